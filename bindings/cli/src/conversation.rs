//! The conversation file (JSON Lines, one message per line, in order) and
//! `mcpgen validate --conversation FILE|-`.
//!
//! ```text
//! {"from": "client"|"server", "message": <JSON-RPC message>}
//! {"from": "client"|"server", "raw": "<the exact text sent>"}
//! ```
//! plus an optional `"session": "<id>"` on any line (independent conversations in one file).
//! `mcpgen proxy --record` writes this format ([`record_line`]); a `message` is the sent text
//! embedded verbatim, so replaying it checks exactly what was sent.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use mcpgen::conversation::{Conversation, ConversationOptions, Finding, Sender};
use mcpgen::json::{Kind, Map, ParseOptions, Tape, TapeBuffer, Value};
use mcpgen::JsonView;

use crate::UsageError;

/// What one conversation line carries besides its sender and session.
enum Payload<'t, 'a> {
    /// A JSON-RPC message, read in place from the line's tape.
    Message(mcpgen::json::TapeView<'t, 'a>),
    /// The exact text that was sent (not JSON, or text the `message` form cannot keep).
    Raw(String),
}

/// A line that is not `{"from": …, "message"|"raw": …, "session"?: …}`.
#[derive(Debug)]
pub struct LineError(pub String);

/// Reads one conversation line (already parsed) into its sender, session and payload.
fn read_line<'t, 'a>(tape: &'t Tape<'a>) -> Result<(Sender, Option<String>, Payload<'t, 'a>), LineError> {
    let root = tape.root();
    if root.kind() != Kind::Object {
        return Err(LineError(format!("a conversation line is a JSON object, found {}", root.describe())));
    }
    let from = match root.get("from") {
        None => return Err(LineError("missing \"from\" (\"client\" or \"server\")".into())),
        Some(v) => match v.as_str() {
            Some(s) => s.parse::<Sender>().map_err(|e| LineError(format!("\"from\": {e}")))?,
            None => {
                return Err(LineError(format!("\"from\" must be \"client\" or \"server\", found {}", v.describe())))
            }
        },
    };
    let session = match root.get("session") {
        None => None,
        Some(v) => match v.as_str() {
            Some(s) => Some(s.into_owned()),
            None => return Err(LineError(format!("\"session\" must be a string, found {}", v.describe()))),
        },
    };
    let payload = match (root.get("message"), root.get("raw")) {
        (Some(m), None) => Payload::Message(m),
        (None, Some(r)) => match r.as_str() {
            Some(s) => Payload::Raw(s.into_owned()),
            None => return Err(LineError(format!("\"raw\" must be a string, found {}", r.describe()))),
        },
        (Some(_), Some(_)) => return Err(LineError("give either \"message\" or \"raw\", not both".into())),
        (None, None) => return Err(LineError("missing \"message\" (a JSON-RPC message) or \"raw\" (text)".into())),
    };
    Ok((from, session, payload))
}

/// The conversation-file line recording `text` (one message as sent, without its `\n`) from
/// `from`: `"message"` with the text embedded verbatim when it is JSON that the line can carry
/// unchanged, else `"raw"` (not JSON, surrounding whitespace, nesting at the parser's limit).
/// Bytes that are not UTF-8 cannot be carried by either form: they become U+FFFD in `raw`.
pub fn record_line(from: Sender, session: Option<&str>, text: &[u8]) -> String {
    let mut line = String::with_capacity(text.len() + 48);
    line.push_str("{\"from\":\"");
    line.push_str(from.as_str());
    line.push('"');
    if let Some(s) = session {
        line.push_str(",\"session\":");
        line.push_str(&Value::String(s.to_owned()).to_json_string());
    }
    let head = line.len();
    if let Ok(s) = std::str::from_utf8(text) {
        let trimmed = s.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
        if trimmed.len() == s.len() && Tape::parse(s).is_ok() {
            line.push_str(",\"message\":");
            line.push_str(s);
            line.push('}');
            // The message is one level deeper in the line: keep it only if the line still parses.
            if Tape::parse_with(&line, ParseOptions::default(), TapeBuffer::default()).is_ok() {
                return line;
            }
            line.truncate(head);
        }
    }
    line.push_str(",\"raw\":");
    line.push_str(&Value::String(String::from_utf8_lossy(text).into_owned()).to_json_string());
    line.push('}');
    line
}

/// A finding as `validate --format json` prints it.
pub fn finding_json(f: &Finding) -> Value {
    let mut m = Map::new();
    m.push("pointer", Value::String(f.pointer.clone()));
    m.push("schemaPath", Value::String(f.schema_path.clone()));
    m.push("keyword", Value::String(f.keyword.to_owned()));
    m.push("rule", f.rule.map(|r| Value::String(r.to_owned())).unwrap_or(Value::Null));
    m.push("level", Value::String(f.level.as_str().to_owned()));
    m.push("message", Value::String(f.message.clone()));
    let name = |s: Option<&'static str>| s.map_or(Value::Null, |s| Value::String(s.to_owned()));
    m.push("era", name(f.era.map(|e| e.as_str())));
    m.push("revision", name(f.revision.map(|r| r.as_str())));
    Value::Object(m)
}

/// The `validate --format json` object of one message: `valid` is false only when an
/// error-level finding exists.
pub fn report_object(source: String, from: Option<Sender>, findings: &[Finding]) -> Map {
    let mut m = Map::new();
    m.push("source", Value::String(source));
    if let Some(from) = from {
        m.push("from", Value::String(from.as_str().to_owned()));
    }
    m.push("valid", Value::Bool(!findings.iter().any(Finding::is_error)));
    m.push("errors", Value::Array(findings.iter().map(finding_json).collect()));
    m
}

/// One session's checker per session id (`None`: lines without `session`).
pub struct Sessions {
    options: ConversationOptions,
    by_id: HashMap<Option<String>, Conversation>,
}

impl Sessions {
    pub fn new(options: ConversationOptions) -> Self {
        Sessions { options, by_id: HashMap::new() }
    }

    fn get(&mut self, session: Option<String>) -> &mut Conversation {
        let options = &self.options;
        self.by_id.entry(session).or_insert_with(|| Conversation::with_options(options.clone()))
    }
}

/// Checks one conversation line: `Ok(findings)`, or the line's shape error.
pub fn check_line(sessions: &mut Sessions, line: &[u8]) -> Result<(Sender, Vec<Finding>), LineError> {
    let tape = Tape::parse_bytes(line).map_err(|e| LineError(format!("not a JSON object: {e}")))?;
    let (from, session, payload) = read_line(&tape)?;
    let conversation = sessions.get(session);
    let findings = match payload {
        Payload::Message(view) => conversation.observe_view(from, &view),
        Payload::Raw(text) => conversation.observe(from, text.as_bytes()),
    };
    Ok((from, findings))
}

/// `mcpgen validate --conversation FILE|-`.
pub fn run(
    path: &PathBuf,
    options: ConversationOptions,
    fail_on: crate::FailOn,
    json: bool,
) -> Result<ExitCode, UsageError> {
    let bytes = crate::read_input(path)?;
    let name = if path.as_os_str() == "-" { "<stdin>".to_owned() } else { path.display().to_string() };
    let mut sessions = Sessions::new(options);
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let io = crate::output_error;
    let (mut total, mut invalid, mut warned, mut bad_lines) = (0usize, 0usize, 0usize, 0usize);
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let source = format!("{name}:{}", i + 1);
        let (from, findings) = match check_line(&mut sessions, line) {
            Ok(checked) => checked,
            Err(LineError(why)) => {
                // The shape of the file is the caller's fault: say where, keep going, exit 2.
                stdout.flush().map_err(io)?;
                eprintln!("mcpgen: {source}: not a conversation line: {why}");
                bad_lines += 1;
                continue;
            }
        };
        total += 1;
        let is_invalid = findings.iter().any(Finding::is_error);
        invalid += usize::from(is_invalid);
        warned += usize::from(!is_invalid && !findings.is_empty());
        if json {
            writeln!(stdout, "{}", Value::Object(report_object(source, None, &findings)).to_json_string())
                .map_err(io)?;
        } else if !findings.is_empty() {
            let verdict = if is_invalid { "invalid" } else { "warning" };
            writeln!(stdout, "{source}: {verdict} ({} message)", from.as_str()).map_err(io)?;
            for f in &findings {
                writeln!(stdout, "  {}", f.to_string().replace('\n', "\n  ")).map_err(io)?;
            }
        }
    }
    stdout.flush().map_err(io)?;
    if !json {
        let warnings = if warned == 0 { String::new() } else { format!(", {warned} with warnings only") };
        eprintln!(
            "{total} message{} checked in {} session{}: {} valid, {invalid} invalid{warnings}",
            if total == 1 { "" } else { "s" },
            sessions.by_id.len(),
            if sessions.by_id.len() == 1 { "" } else { "s" },
            total - invalid
        );
    }
    if bad_lines > 0 {
        return Err(UsageError(format!("{name}: {bad_lines} line(s) that are not conversation lines (see above)")));
    }
    Ok(if fail_on.fails(invalid, warned) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
