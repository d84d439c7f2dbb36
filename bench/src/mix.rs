//! The benchmark mix: realistic MCP 2026-07-28 wire messages, generated deterministically at
//! run time from templates (no copies of the official examples are committed), each paired
//! with the definition that validates it.
//!
//! Shares by message count (bytes are dominated by `tools/list` and `resources/read`):
//!
//! | share | kind | definition |
//! |---|---|---|
//! | 33 % | `tools/call` request with `_meta` (protocol version, capabilities, client info, progress token, log level, custom keys) | `CallToolRequest` |
//! | 15 % | `tools/call` result (text, structured content, resource links) | `CallToolResultResponse` |
//! | 3 % | `tools/list` result with 10–60 tools and their input schemas | `ListToolsResultResponse` |
//! | 12 % | `resources/read` result with source text or base64 blobs | `ReadResourceResultResponse` |
//! | 8 % | error responses (-32602, -32601, -32603, -32021, -32022, -32700) | `JSONRPCErrorResponse` |
//! | 16 % | `notifications/progress` | `ProgressNotification` |
//! | 6 % | `notifications/message` | `LoggingMessageNotification` |
//! | 4 % | `notifications/tools/list_changed` | `ToolListChangedNotification` |
//! | 3 % | `notifications/cancelled` | `CancelledNotification` |
//!
//! About 1 message in 64 is broken on purpose (a missing required key, a wrong type, a wrong
//! `const`, an out-of-range number…), so every path must agree on invalid input too.

use std::fmt::Write;

/// Revision the mix is written for.
pub const REVISION: &str = "2026-07-28";

/// Every definition the mix uses (what the comparators compile validators for).
pub const DEFINITIONS: &[&str] = &[
    "CallToolRequest",
    "CallToolResultResponse",
    "ListToolsResultResponse",
    "ReadResourceResultResponse",
    "JSONRPCErrorResponse",
    "ProgressNotification",
    "LoggingMessageNotification",
    "ToolListChangedNotification",
    "CancelledNotification",
];

/// One message of the mix.
#[derive(Clone, Debug)]
pub struct Message {
    /// Definition the message is validated against (one of [`DEFINITIONS`]).
    pub def: &'static str,
    /// Compact JSON, one line.
    pub bytes: Vec<u8>,
    /// Whether the generator meant it to be valid (the bench checks every path agrees).
    pub valid: bool,
}

/// The whole mix.
#[derive(Clone, Debug)]
pub struct Mix {
    pub messages: Vec<Message>,
}

impl Mix {
    /// Total bytes of all messages.
    pub fn total_bytes(&self) -> usize {
        self.messages.iter().map(|m| m.bytes.len()).sum()
    }
    /// Number of messages meant to be invalid.
    pub fn invalid_count(&self) -> usize {
        self.messages.iter().filter(|m| !m.valid).count()
    }
    /// Index of `def` in [`DEFINITIONS`].
    pub fn def_index(def: &str) -> usize {
        DEFINITIONS.iter().position(|d| *d == def).expect("definition of the mix")
    }
    /// Messages per definition, in [`DEFINITIONS`] order: (name, count, bytes).
    pub fn breakdown(&self) -> Vec<(&'static str, usize, usize)> {
        DEFINITIONS
            .iter()
            .map(|d| {
                let ms = self.messages.iter().filter(|m| m.def == *d);
                let (n, b) = ms.fold((0, 0), |(n, b), m| (n + 1, b + m.bytes.len()));
                (*d, n, b)
            })
            .collect()
    }
    /// The mix as TSV for benchmark lines that run outside this process: one message per line,
    /// `definition<TAB>valid|invalid<TAB>compact JSON` (the JSON never holds a raw tab or newline).
    pub fn to_tsv(&self) -> String {
        let mut out = String::with_capacity(self.total_bytes() + self.messages.len() * 40);
        for m in &self.messages {
            out.push_str(m.def);
            out.push('\t');
            out.push_str(if m.valid { "valid" } else { "invalid" });
            out.push('\t');
            out.push_str(std::str::from_utf8(&m.bytes).expect("generated JSON is UTF-8"));
            out.push('\n');
        }
        out
    }
}

/// Generates `n` messages from `seed`. Same inputs, same bytes.
pub fn generate(n: usize, seed: u64) -> Mix {
    let mut g = Gen { rng: Rng(seed), id: 0 };
    let mut messages = Vec::with_capacity(n);
    for i in 0..n {
        let pick = g.rng.below(100);
        let (def, mut json) = match pick {
            0..=32 => ("CallToolRequest", g.call_tool_request()),
            33..=47 => ("CallToolResultResponse", g.call_tool_result()),
            48..=50 => ("ListToolsResultResponse", g.list_tools_result()),
            51..=62 => ("ReadResourceResultResponse", g.read_resource_result()),
            63..=70 => ("JSONRPCErrorResponse", g.error_response()),
            71..=86 => ("ProgressNotification", g.progress()),
            87..=92 => ("LoggingMessageNotification", g.log_message()),
            93..=96 => ("ToolListChangedNotification", g.tools_list_changed()),
            _ => ("CancelledNotification", g.cancelled()),
        };
        // Every 64th message (offset by the seed) is broken on purpose.
        let valid = (i as u64 + seed) % 64 != 17;
        if !valid {
            json = break_message(def, &json, &mut g.rng);
        }
        messages.push(Message { def, bytes: json.into_bytes(), valid });
    }
    Mix { messages }
}

/// SplitMix64: tiny, deterministic, good enough for templates.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// A JSON string literal.
fn q(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

const WORDS: &[&str] = &[
    "weather",
    "forecast",
    "repository",
    "issue",
    "commit",
    "branch",
    "query",
    "table",
    "user",
    "file",
    "search",
    "index",
    "deploy",
    "metric",
    "alert",
    "invoice",
    "calendar",
    "event",
    "message",
    "channel",
    "document",
    "page",
    "summary",
    "translate",
    "image",
    "audio",
    "ticket",
    "customer",
    "order",
    "shipment",
];
const VERBS: &[&str] = &["get", "list", "create", "update", "delete", "search", "run", "fetch", "sync", "describe"];
const LEVELS: &[&str] = &["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const MIME_TEXT: &[&str] = &["text/x-rust", "text/plain", "text/markdown", "application/json", "text/x-python"];
const MIME_BLOB: &[&str] = &["image/png", "application/pdf", "application/octet-stream", "audio/wav"];
const PROP_TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];

struct Gen {
    rng: Rng,
    id: u64,
}

impl Gen {
    fn words(&mut self, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.rng.pick(WORDS));
        }
        s
    }
    fn words_in(&mut self, lo: usize, hi: usize) -> String {
        let n = self.rng.range(lo, hi);
        self.words(n)
    }
    fn tool_name(&mut self) -> String {
        format!("{}_{}", self.rng.pick(VERBS), self.rng.pick(WORDS))
    }
    /// A request id: mostly integers, some strings.
    fn request_id(&mut self) -> String {
        self.id += 1;
        if self.rng.chance(70) {
            self.id.to_string()
        } else {
            q(&format!("req-{:08x}", self.rng.next() as u32))
        }
    }
    fn progress_token(&mut self) -> String {
        if self.rng.chance(50) {
            q(&format!("progress-{}", self.rng.below(1_000_000)))
        } else {
            self.rng.below(1 << 40).to_string()
        }
    }
    fn client_capabilities(&mut self) -> String {
        match self.rng.below(4) {
            0 => "{}".into(),
            1 => r#"{"roots":{},"sampling":{}}"#.into(),
            2 => r#"{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}}}"#.into(),
            _ => r#"{"roots":{},"elicitation":{"form":{}},"experimental":{"com.example/batching":{"maxBatch":16,"enabled":true}},"extensions":{"io.modelcontextprotocol/ui":{"version":"1"}}}"#.into(),
        }
    }
    fn implementation(&mut self, name: &str) -> String {
        if self.rng.chance(30) {
            format!(
                r#"{{"name":{},"title":{},"version":"{}.{}.{}","websiteUrl":"https://example.com/{}"}}"#,
                q(name),
                q(&format!("{name} for {}", self.words(2))),
                self.rng.below(4),
                self.rng.below(20),
                self.rng.below(50),
                name
            )
        } else {
            format!(
                r#"{{"name":{},"version":"{}.{}.{}"}}"#,
                q(name),
                self.rng.below(4),
                self.rng.below(20),
                self.rng.below(50)
            )
        }
    }
    /// Tool arguments: a few scalars, sometimes nested objects and arrays.
    fn arguments(&mut self) -> String {
        let n = self.rng.range(1, 6);
        let mut s = String::from("{");
        for i in 0..n {
            if i > 0 {
                s.push(',');
            }
            let key = format!("{}{}", self.rng.pick(WORDS), if self.rng.chance(30) { "_id" } else { "" });
            let val = match self.rng.below(7) {
                0 => q(&self.words_in(1, 8)),
                1 => self.rng.below(100_000).to_string(),
                2 => format!("{}.{:02}", self.rng.below(1000), self.rng.below(100)),
                3 => (if self.rng.chance(50) { "true" } else { "false" }).into(),
                4 => {
                    let k = self.rng.range(0, 5);
                    let items: Vec<String> = (0..k).map(|_| q(self.rng.pick(WORDS))).collect();
                    format!("[{}]", items.join(","))
                }
                5 => format!(
                    r#"{{"filter":{{"field":{},"op":"eq","value":{}}},"limit":{},"offset":0}}"#,
                    q(self.rng.pick(WORDS)),
                    q(&self.words(2)),
                    self.rng.range(1, 100)
                ),
                _ => "null".into(),
            };
            let _ = write!(s, "{}:{}", q(&key), val);
        }
        s.push('}');
        s
    }

    fn call_tool_request(&mut self) -> String {
        let mut meta = format!(
            r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#,
            self.client_capabilities()
        );
        if self.rng.chance(80) {
            let client = self.implementation("ExampleClient");
            let _ = write!(meta, r#","io.modelcontextprotocol/clientInfo":{client}"#);
        }
        if self.rng.chance(60) {
            let token = self.progress_token();
            let _ = write!(meta, r#","progressToken":{token}"#);
        }
        if self.rng.chance(25) {
            let _ = write!(meta, r#","io.modelcontextprotocol/logLevel":{}"#, q(self.rng.pick(LEVELS)));
        }
        if self.rng.chance(50) {
            let _ = write!(
                meta,
                r#","com.example/trace-id":"{:016x}{:016x}","com.example.gateway/route":{{"region":"eu-west-1","hops":{}}}"#,
                self.rng.next(),
                self.rng.next(),
                self.rng.below(5)
            );
        }
        let id = self.request_id();
        let name = self.tool_name();
        let args = if self.rng.chance(90) { format!(r#","arguments":{}"#, self.arguments()) } else { String::new() };
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{{meta}}},"name":{}{args}}}}}"#,
            q(&name)
        )
    }

    fn text_content(&mut self) -> String {
        let n = self.rng.range(3, 60);
        let text = self.words(n);
        if self.rng.chance(20) {
            format!(
                r#"{{"type":"text","text":{},"annotations":{{"audience":["user","assistant"],"priority":0.{}}}}}"#,
                q(&text),
                self.rng.below(10)
            )
        } else {
            format!(r#"{{"type":"text","text":{}}}"#, q(&text))
        }
    }

    fn call_tool_result(&mut self) -> String {
        let id = self.request_id();
        let n = self.rng.range(1, 4);
        let mut content: Vec<String> = (0..n).map(|_| self.text_content()).collect();
        if self.rng.chance(15) {
            content.push(format!(
                r#"{{"type":"resource_link","uri":"file:///project/src/{}.rs","name":"{}.rs","mimeType":"text/x-rust"}}"#,
                self.rng.pick(WORDS),
                self.rng.pick(WORDS)
            ));
        }
        let mut extra = String::new();
        if self.rng.chance(30) {
            let _ = write!(
                extra,
                r#","structuredContent":{{"temperature":{}.{},"conditions":{},"humidity":{}}}"#,
                self.rng.below(40),
                self.rng.below(10),
                q(&self.words(2)),
                self.rng.below(100)
            );
        }
        if self.rng.chance(10) {
            extra.push_str(r#","isError":true"#);
        }
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[{}]{extra}}}}}"#,
            content.join(",")
        )
    }

    fn input_schema(&mut self) -> String {
        let n = self.rng.range(1, 12);
        let mut props = Vec::with_capacity(n);
        let mut required = Vec::new();
        for i in 0..n {
            let name = format!("{}_{i}", self.rng.pick(WORDS));
            let ty = self.rng.pick(PROP_TYPES);
            let desc = self.words_in(4, 16);
            let detail = match ty {
                "string" if self.rng.chance(30) => r#","enum":["asc","desc","none"]"#.to_owned(),
                "string" if self.rng.chance(20) => r#","format":"date-time""#.to_owned(),
                "integer" => {
                    format!(r#","minimum":0,"maximum":{},"default":{}"#, self.rng.range(10, 1000), self.rng.below(10))
                }
                "number" => r#","minimum":0.0,"exclusiveMaximum":1.0"#.to_owned(),
                "array" => r#","items":{"type":"string"},"maxItems":50"#.to_owned(),
                "object" => {
                    r#","properties":{"key":{"type":"string"},"value":{}},"additionalProperties":false"#.to_owned()
                }
                _ => String::new(),
            };
            if self.rng.chance(40) {
                required.push(q(&name));
            }
            props.push(format!(r#"{}:{{"type":"{ty}","description":{}{detail}}}"#, q(&name), q(&desc)));
        }
        let schema =
            if self.rng.chance(30) { r#""$schema":"https://json-schema.org/draft/2020-12/schema","# } else { "" };
        format!(
            r#"{{{schema}"type":"object","properties":{{{}}},"required":[{}],"additionalProperties":false}}"#,
            props.join(","),
            required.join(",")
        )
    }

    fn tool(&mut self) -> String {
        let name = self.tool_name();
        let mut s = format!(r#"{{"name":{}"#, q(&name));
        if self.rng.chance(60) {
            let _ = write!(s, r#","title":{}"#, q(&self.words(3)));
        }
        let desc = self.words_in(8, 40);
        let _ = write!(s, r#","description":{},"inputSchema":{}"#, q(&desc), self.input_schema());
        if self.rng.chance(20) {
            let _ = write!(
                s,
                r#","outputSchema":{{"type":"object","properties":{{"result":{{"type":"string"}},"count":{{"type":"integer"}}}}}}"#
            );
        }
        if self.rng.chance(50) {
            let _ = write!(
                s,
                r#","annotations":{{"readOnlyHint":{},"destructiveHint":{},"idempotentHint":true,"openWorldHint":false}}"#,
                self.rng.chance(50),
                self.rng.chance(20)
            );
        }
        if self.rng.chance(25) {
            s.push_str(r#","icons":[{"src":"https://example.com/icons/tool.png","mimeType":"image/png","sizes":["48x48","96x96"]},{"src":"https://example.com/icons/tool.svg","mimeType":"image/svg+xml","theme":"dark"}]"#);
        }
        if self.rng.chance(15) {
            s.push_str(r#","_meta":{"com.example/owner":"platform-team","com.example/cost":3}"#);
        }
        s.push('}');
        s
    }

    fn list_tools_result(&mut self) -> String {
        let id = self.request_id();
        let n = self.rng.range(10, 60);
        let tools: Vec<String> = (0..n).map(|_| self.tool()).collect();
        let cursor = if self.rng.chance(50) {
            format!(r#","nextCursor":"cursor-{}""#, self.rng.below(1000))
        } else {
            String::new()
        };
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","tools":[{}]{cursor},"ttlMs":{},"cacheScope":"{}"}}}}"#,
            tools.join(","),
            self.rng.range(0, 3_600_000),
            if self.rng.chance(50) { "public" } else { "private" }
        )
    }

    /// Source-like text with quotes, backslashes, tabs, newlines and some non-ASCII.
    fn source_text(&mut self) -> String {
        let lines = self.rng.range(5, 200);
        let mut s = String::new();
        for i in 0..lines {
            let indent = "    ".repeat(self.rng.range(0, 3));
            match self.rng.below(6) {
                0 => {
                    let _ = writeln!(s, "{indent}// {} — {}", self.words(5), self.words(3));
                }
                1 => {
                    let _ = writeln!(s, "{indent}let {}_{i} = \"{}\\n\";", self.rng.pick(WORDS), self.words(3));
                }
                2 => {
                    let _ = writeln!(s, "{indent}fn {}(x: u32) -> Result<(), Error> {{", self.tool_name());
                }
                3 => {
                    let _ = writeln!(s, "{indent}\tprintln!(\"{{}} {}\", x); // naïve café", self.words(2));
                }
                4 => s.push_str("}\n"),
                _ => {
                    let _ = writeln!(s, "{indent}{}", self.words(8));
                }
            }
        }
        s
    }

    fn base64(&mut self, len: usize) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::with_capacity(len.div_ceil(3) * 4);
        let mut bytes = Vec::with_capacity(len);
        while bytes.len() < len {
            bytes.extend_from_slice(&self.rng.next().to_le_bytes());
        }
        bytes.truncate(len);
        for chunk in bytes.chunks(3) {
            let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
            let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
            out.push(A[(n >> 18) as usize & 63] as char);
            out.push(A[(n >> 12) as usize & 63] as char);
            out.push(if chunk.len() > 1 { A[(n >> 6) as usize & 63] as char } else { '=' });
            out.push(if chunk.len() > 2 { A[n as usize & 63] as char } else { '=' });
        }
        out
    }

    fn read_resource_result(&mut self) -> String {
        let id = self.request_id();
        let n = self.rng.range(1, 3);
        let mut contents = Vec::with_capacity(n);
        for _ in 0..n {
            let path = format!("{}/{}", self.rng.pick(WORDS), self.rng.pick(WORDS));
            if self.rng.chance(60) {
                let text = self.source_text();
                contents.push(format!(
                    r#"{{"uri":"file:///project/{path}.rs","mimeType":{},"text":{}}}"#,
                    q(self.rng.pick(MIME_TEXT)),
                    q(&text)
                ));
            } else {
                let len = self.rng.range(256, 24 * 1024);
                let blob = self.base64(len);
                let meta = if self.rng.chance(20) {
                    r#","_meta":{"com.example/checksum":"sha256:0f3a","com.example/size":1}"#
                } else {
                    ""
                };
                contents.push(format!(
                    r#"{{"uri":"file:///project/{path}.bin","mimeType":{},"blob":"{blob}"{meta}}}"#,
                    q(self.rng.pick(MIME_BLOB))
                ));
            }
        }
        let meta = if self.rng.chance(20) {
            r#","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"files","version":"2.1.0"}}"#
        } else {
            ""
        };
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","contents":[{}],"ttlMs":{},"cacheScope":"private"{meta}}}}}"#,
            contents.join(","),
            self.rng.range(0, 600_000)
        )
    }

    fn error_response(&mut self) -> String {
        let id = self.request_id();
        let error = match self.rng.below(6) {
            0 => format!(r#"{{"code":-32602,"message":{}}}"#, q(&format!("Unknown tool: {}", self.tool_name()))),
            1 => r#"{"code":-32601,"message":"Method not found","data":{"method":"prompts/list"}}"#.to_owned(),
            2 => r#"{"code":-32603,"message":"Internal error","data":{"retryAfterMs":250,"trace":["a","b"]}}"#.to_owned(),
            3 => r#"{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}"#.to_owned(),
            4 => r#"{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"2024-01-01"}}"#.to_owned(),
            _ => {
                return r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#.to_owned();
            }
        };
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
    }

    fn progress(&mut self) -> String {
        let token = self.progress_token();
        let total = self.rng.range(1, 1000);
        let done = self.rng.range(0, total);
        let progress = if self.rng.chance(30) { format!("{done}.5") } else { done.to_string() };
        let message = if self.rng.chance(60) {
            format!(r#","message":{}"#, q(&format!("Processing {}…", self.words(2))))
        } else {
            String::new()
        };
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":{progress},"total":{total}{message}}}}}"#
        )
    }

    fn log_message(&mut self) -> String {
        let level = self.rng.pick(LEVELS);
        let data = match self.rng.below(3) {
            0 => q(&self.words(6)),
            1 => format!(
                r#"{{"error":{},"details":{{"host":"localhost","port":{},"retries":[1,2,4]}}}}"#,
                q(&self.words(3)),
                self.rng.range(1024, 65535)
            ),
            _ => format!(r#"[{},{},null,true]"#, q(self.rng.pick(WORDS)), self.rng.below(100)),
        };
        let logger =
            if self.rng.chance(70) { format!(r#","logger":{}"#, q(self.rng.pick(WORDS))) } else { String::new() };
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"{level}"{logger},"data":{data}}}}}"#
        )
    }

    fn tools_list_changed(&mut self) -> String {
        if self.rng.chance(50) {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":"listen-{}"}}}}}}"#,
                self.rng.below(100)
            )
        } else {
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_owned()
        }
    }

    fn cancelled(&mut self) -> String {
        let id = self.request_id();
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":{}}}}}"#,
            q(&format!("User requested cancellation of {}", self.tool_name()))
        )
    }
}

/// Breaks a valid message of `def` in one of a few ways that every schema validator must catch.
fn break_message(def: &str, json: &str, rng: &mut Rng) -> String {
    let swaps: &[(&str, &str)] = match def {
        "CallToolRequest" => &[
            (r#""jsonrpc":"2.0""#, r#""jsonrpc":"1.0""#),
            (r#""method":"tools/call""#, r#""method":"tools/list""#),
            (r#","name":"#, r#","tool":"#),
            (
                r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#,
                r#""io.modelcontextprotocol/protocolVersion":20260728"#,
            ),
        ],
        // Results are `anyOf [InputRequiredResult, <method's result>]`, and InputRequiredResult
        // only needs a string `resultType`: break what both arms or the envelope check.
        "CallToolResultResponse" | "ListToolsResultResponse" | "ReadResourceResultResponse" => &[
            (r#""resultType":"complete""#, r#""resultType":true"#),
            (r#""jsonrpc":"2.0""#, r#""jsonrpc":2"#),
            (r#","result":{"#, r#","result":[],"r":{"#),
            (r#""id":"#, r#""id":1.5,"i":"#),
        ],
        "JSONRPCErrorResponse" => &[(r#""code":-32"#, r#""code":-0.5,"c":-32"#), (r#""message":"#, r#""msg":"#)],
        "ProgressNotification" => {
            &[(r#""progress":"#, r#""progress":"half","p":"#), (r#""progressToken":"#, r#""progressToken":true,"t":"#)]
        }
        "LoggingMessageNotification" => {
            &[(r#""level":""#, r#""level":"verbose","l":""#), (r#""data":"#, r#""payload":"#)]
        }
        "ToolListChangedNotification" => {
            &[(r#""method":"notifications/tools/list_changed""#, r#""method":"notifications/tools/changed""#)]
        }
        "CancelledNotification" => &[(r#""requestId":"#, r#""requestId":null,"r":"#)],
        _ => &[],
    };
    let start = rng.below(swaps.len().max(1) as u64) as usize;
    for k in 0..swaps.len() {
        let (from, to) = swaps[(start + k) % swaps.len()];
        if json.contains(from) {
            return json.replacen(from, to, 1);
        }
    }
    // No template matched (cannot happen for the templates above): drop the jsonrpc member.
    json.replacen(r#""jsonrpc":"2.0","#, "", 1)
}
