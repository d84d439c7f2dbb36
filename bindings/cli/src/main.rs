//! `mcpgen`: decode and check MCP messages from the command line.
//!
//! Exit codes: 0 success, 1 the input is invalid, 2 usage or I/O error.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mcpgen::conversation::ConversationOptions;
use mcpgen::{Policy, Revision};

mod check;
mod conversation;
mod decode;
mod explain;
mod probe;
mod proxy;
mod suggest;
mod validate;

#[derive(Parser)]
#[command(
    name = "mcpgen",
    version,
    about = "Decode and check Model Context Protocol messages against the official schema"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a JSON document as a schema definition and print it re-encoded (compact JSON).
    ///
    /// Exit 0 and the re-encoded JSON on stdout when it decodes; exit 1 and every error (JSON
    /// pointer, what was expected, what was found) on stderr when it does not.
    Decode {
        /// Schema revision.
        #[arg(long, default_value_t = latest_revision())]
        revision: String,
        /// Definition to decode as (`CallToolRequest`, `JSONRPCMessage`, …).
        #[arg(long, conflicts_with = "result_for")]
        def: Option<String>,
        /// An extension by identifier (`io.modelcontextprotocol/tasks`) or short name (`tasks`):
        /// with --def, the definition is the extension's own (`GetTaskRequest`).
        #[arg(long, value_name = "NAME", conflicts_with_all = ["revision", "result_for"])]
        extension: Option<String>,
        /// Decode a result given the method of the request it answers (`tools/call`, …).
        #[arg(long, value_name = "METHOD")]
        result_for: Option<String>,
        /// With --result-for a list method (`tools/list`, …): leave invalid items out of the
        /// result instead of refusing it; each skipped item's pointer and reason go to stderr,
        /// and the exit status is 0.
        #[arg(long)]
        skip_invalid_items: bool,
        /// Unknown-key policy.
        #[arg(long, default_value = "lossless", value_parser = ["strict", "lenient", "lossless"])]
        policy: String,
        /// Read the input as JSON Lines: decode every non-blank line (output: one line each).
        #[arg(long)]
        jsonl: bool,
        /// Output format: `json` prints one `{"source", "valid", "errors", "output"}` object
        /// per document.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Input file, or `-` for standard input.
        input: PathBuf,
    },
    /// List the definitions of a revision (name and summary).
    Defs {
        #[arg(long, default_value_t = latest_revision())]
        revision: String,
    },
    /// Check tool schemas: a `Tool` object or a `tools/list` result (also inside a JSON-RPC
    /// response). Reports every problem of every tool (dialect, meta-schema, `$ref`, cost
    /// limits); never fetches anything.
    ///
    /// Exit 0 when every tool is usable, 1 when any tool has a problem or the document is not a
    /// tool document (not JSON, no `tools`), 2 on usage or I/O errors. A tool nesting deeper
    /// than the JSON parser's limit (128 levels) is a tool problem (`too_deep`, JSCHEMA-8).
    CheckTool {
        /// Input file, or `-` for standard input.
        input: PathBuf,
    },
    /// Check an icon source (ICON-3..9): scheme, MIME type, and the bytes of a `data:` URI or of
    /// `--bytes FILE` (sniffed; a type mismatch is refused).
    ///
    /// Exit 0 when acceptable, 1 when refused, 2 on usage or I/O errors.
    CheckIcon {
        /// The `Icon.src` URI.
        uri: String,
        /// The icon's bytes (as fetched from an https: source).
        #[arg(long, value_name = "FILE")]
        bytes: Option<PathBuf>,
        /// The declared MIME type (`Icon.mimeType` or the HTTP `Content-Type`).
        #[arg(long, value_name = "TYPE")]
        mime: Option<String>,
        /// Accept plain http: (refused by default, AMB-3).
        #[arg(long)]
        allow_http: bool,
        /// Accept SVG (active content, refused by default, ICON-9).
        #[arg(long)]
        allow_svg: bool,
        /// The server's URL: also require the icon to come from its origin (ICON-6).
        #[arg(long, value_name = "URL")]
        server: Option<String>,
    },
    /// Validate messages: without --def, each message is checked against the definition its
    /// method or error code selects, plus the protocol rules (META, ID, ERR, EXT, MRTR, SUB,
    /// OTEL…); with --def, against that definition only (schema semantics).
    ///
    /// PATHs are files, directories (walked in sorted order for *.json and *.jsonl) or `-` for
    /// standard input. A .jsonl file (or every input, with --jsonl) holds one message per line.
    /// Text output lists invalid messages and a summary; --format json prints one object per
    /// message. Exit 0 when all are valid, 1 when any is invalid, 2 on usage or I/O errors.
    ///
    /// With --conversation FILE, the file is one or more whole sessions (docs/cli.md): every
    /// line `{"from": "client"|"server", "message": …}` (or `"raw": "text"`, optional
    /// `"session"`) is checked in order, results against their requests and rules across
    /// messages included; the revision comes from the session itself.
    Validate {
        /// Schema revision (default: the newest of this build).
        #[arg(long, conflicts_with = "conversation")]
        revision: Option<String>,
        /// Validate against this definition instead of by method.
        #[arg(long, conflicts_with = "conversation")]
        def: Option<String>,
        /// Extensions negotiated (identifier or short name; repeatable): their methods and
        /// notifications are judged instead of unknown. With --def, exactly one: the definition
        /// is that extension's own (`--extension tasks --def GetTaskRequest`).
        #[arg(long = "extension", value_name = "NAME", conflicts_with = "conversation")]
        extensions: Vec<String>,
        /// Read every input as JSON Lines (one message per line).
        #[arg(long, conflicts_with = "conversation")]
        jsonl: bool,
        /// Check a conversation file (JSON Lines, `-` for standard input) as whole sessions.
        #[arg(long, value_name = "FILE")]
        conversation: Option<PathBuf>,
        /// With --conversation: exit 1 on `error`-level findings (the default) or on `warning`s too.
        #[arg(long, value_enum, value_name = "LEVEL")]
        fail_on: Option<FailOn>,
        /// With --conversation: most sessions open at once [default: 1024]. A line of one more
        /// session evicts the least recently used (its findings stay reported, its state is
        /// forgotten, a note on stderr says so).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_sessions: Option<u64>,
        /// With --conversation: most requests of each side tracked as pending in one session
        /// [default: 4096]; past it the oldest is forgotten with a POLICY-PENDING warning.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_pending: Option<u64>,
        /// With --conversation: longest line checked, in bytes [default: 67108864, 64 MiB]; a
        /// longer line is skipped and reported (exit 2), the other lines still checked.
        #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
        max_line_bytes: Option<u64>,
        /// Assert `format` (`uri`, `uri-template`, `byte`) instead of treating it as an annotation.
        #[arg(long)]
        strict_formats: bool,
        /// Unknown-key policy; `strict` also reports META-3 and non-core resultType (RESULT-3).
        #[arg(long, default_value = "lossless", value_parser = ["strict", "lenient", "lossless"])]
        policy: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Files, directories, or `-` for standard input.
        #[arg(required_unless_present = "conversation", conflicts_with = "conversation")]
        paths: Vec<PathBuf>,
    },
    /// Decide, as a server would, whether a request should be served, in mcpgen's check order
    /// (parse, envelope, `_meta`, version, method, params: `mcpgen explain AMB-9`).
    ///
    /// Exit 0 and print nothing when it should; otherwise exit 1 and print
    /// `{"response": <JSON-RPC error response>, "httpStatus": N, "rule": "ID"}` (`mcpgen explain ID`
    /// says what the rule is).
    CheckRequest {
        /// Protocol versions the server supports, preferred first (default: every revision of
        /// this build). A legacy version makes the server dual-era (legacy `initialize` accepted).
        #[arg(long, value_delimiter = ',', value_name = "V,V")]
        supported_versions: Option<Vec<String>>,
        /// Extensions the server serves (identifier or short name; repeatable): with `tasks`,
        /// `tasks/*` are served to requests that declare it and refused -32021 otherwise.
        #[arg(long = "extension", value_name = "NAME")]
        extensions: Vec<String>,
        /// Read the input as JSON Lines: check every non-blank line (refusals prefixed with
        /// FILE:LINE, a summary on stderr).
        #[arg(long)]
        jsonl: bool,
        /// Output format: `json` prints one object per request: `{"source", "valid", "errors"}`
        /// plus `method` and `revision` when served, `response`, `httpStatus` and `rule` when
        /// refused.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Input file, or `-` for standard input.
        input: PathBuf,
    },
    /// Probe a stdio MCP server (docs/probe.md): discover and each era it offers, every list,
    /// the requests whose right answer the spec fixes, and the tools `--call-tools` allows,
    /// every answer judged by mcpgen's checker.
    ///
    /// Findings go to stdout (text, or JSON Lines with --format json); exit 1 on any
    /// error-level finding, 2 when COMMAND cannot be started. Never calls a tool that is not
    /// annotated `readOnlyHint: true` unless named (or --call-tools all).
    Probe {
        /// Which tools to call: `none`, `read-only` (tools annotated `readOnlyHint: true`),
        /// `all`, or a comma-separated list of tool names.
        #[arg(long, value_name = "POLICY", default_value = "read-only")]
        call_tools: String,
        /// Longest wait for one answer, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
        timeout_ms: u64,
        /// Probe the modern era only (no `initialize`).
        #[arg(long)]
        modern_only: bool,
        /// The seed of the tool-argument cases: the same seed, the same cases (the summary
        /// prints the one used).
        #[arg(long, value_name = "N", default_value_t = mcpgen::probe::DEFAULT_SEED)]
        seed: u64,
        /// Also write a JUnit XML report (one test case per check) to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// The server command and its arguments.
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// Run a stdio MCP server behind a checking relay: every message between the client (this
    /// process's stdin/stdout) and COMMAND is relayed unchanged, byte for byte and in order, and
    /// checked as one conversation (docs/proxy.md). With --listen and --upstream instead of
    /// COMMAND: a checking reverse proxy for a Streamable HTTP server.
    ///
    /// Findings go to --report (JSON Lines: the objects of `validate --format json` plus
    /// "from") or to stderr; the server's stderr passes through. Exits with the server's
    /// status (or its signal); 2 when COMMAND cannot be started. SIGTERM, SIGINT and SIGHUP
    /// are forwarded to the server; on Linux the server is killed if the proxy dies.
    Proxy {
        /// Write findings here (JSON Lines) instead of stderr.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Record the conversation here, in the format `validate --conversation` replays.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// Answer a client request that `check-request` refuses with its error response instead
        /// of forwarding it.
        #[arg(long)]
        enforce: bool,
        /// Assert `format` (`uri`, `uri-template`, `byte`) in the checks.
        #[arg(long)]
        strict_formats: bool,
        /// Unknown-key policy of the checks.
        #[arg(long, default_value = "lossless", value_parser = ["strict", "lenient", "lossless"])]
        policy: String,
        /// Exit 1 when a message had a finding at this level (`error`, or `warning` for either),
        /// where the server itself exits 0; without it the proxy exits with the server's status.
        #[arg(long, value_enum, value_name = "LEVEL")]
        fail_on: Option<FailOn>,
        /// Check messages (lines without their line end) up to this size; a longer line is
        /// relayed unchanged in chunks, neither checked nor recorded, and reported once
        /// (POLICY-SIZE, a warning). Default 16 MiB.
        #[arg(long, value_name = "BYTES", default_value_t = proxy::DEFAULT_MAX_MESSAGE_BYTES)]
        max_message_bytes: usize,
        /// What the messages waiting for the checker may hold in all (at least one message of
        /// --max-message-bytes); past it the proxy reads no further until the checker catches
        /// up. Default 64 MiB.
        #[arg(long, value_name = "BYTES", default_value_t = proxy::DEFAULT_MAX_QUEUED_BYTES)]
        max_queued_bytes: usize,
        /// Show at most N findings of one kind (sender, rule, keyword, schema path, level);
        /// later ones are counted, with a summary when the count reaches N×10, N×100, … and
        /// at the end.
        #[arg(long, value_name = "N", default_value_t = proxy::DEFAULT_MAX_REPEATS)]
        max_repeats: usize,
        /// Conversations checked at once (HTTP: one per legacy session, plus the requests
        /// outside a session); past it the least recently used is forgotten, as on the replay
        /// by `validate --conversation --max-sessions`.
        #[arg(long, value_name = "N", default_value_t = proxy::DEFAULT_MAX_SESSIONS)]
        max_sessions: usize,
        /// Streamable HTTP: listen here (`127.0.0.1:0` picks a free port; the URL is printed
        /// on stdout as `listening on http://…`) and relay to --upstream.
        #[arg(long, value_name = "ADDR", requires = "upstream", conflicts_with = "command")]
        listen: Option<std::net::SocketAddr>,
        /// Streamable HTTP: the server's endpoint URL (`http://127.0.0.1:3000/mcp`).
        #[arg(long, value_name = "URL", requires = "listen")]
        upstream: Option<String>,
        /// Streamable HTTP: allow a --listen address that is not loopback.
        #[arg(long, requires = "listen")]
        allow_non_loopback: bool,
        /// Streamable HTTP: a host name clients may use in `Host` and `Origin` besides the
        /// loopback names (repeatable).
        #[arg(long, value_name = "HOST", requires = "listen")]
        allow_host: Vec<String>,
        /// Streamable HTTP: connections served at once (more wait in the listen backlog).
        #[arg(long, value_name = "N", default_value_t = proxy::http::DEFAULT_MAX_CONNECTIONS)]
        max_connections: usize,
        /// Streamable HTTP: the largest request or response header section (431 / 502 past it).
        #[arg(long, value_name = "BYTES", default_value_t = proxy::http::DEFAULT_MAX_HEADER_BYTES)]
        max_header_bytes: usize,
        /// Streamable HTTP: seconds a connection may take to send a request's headers (and
        /// stay idle between requests).
        #[arg(long, value_name = "SECONDS", default_value_t = proxy::http::DEFAULT_HEADER_READ_TIMEOUT.as_secs_f64())]
        header_timeout: f64,
        /// Streamable HTTP: seconds a request's body may take to arrive (408 past it).
        #[arg(long, value_name = "SECONDS", default_value_t = proxy::http::DEFAULT_BODY_TIMEOUT.as_secs_f64())]
        body_timeout: f64,
        /// Streamable HTTP: seconds the upstream may take to answer with its headers (504).
        #[arg(long, value_name = "SECONDS", default_value_t = proxy::http::DEFAULT_UPSTREAM_TIMEOUT.as_secs_f64())]
        upstream_timeout: f64,
        /// The server command and its arguments (after `--`).
        #[arg(last = true, required_unless_present = "listen", value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// Show a definition: summary, schema path, fields (name, type, required) and, for
    /// methods, the method-table row. DEF may also be a method name (`tools/call`), or a rule
    /// id (`META-6`): then the rule's level, summary, source and what mcpgen does about it.
    ///
    /// Exit 2 for an unknown definition, method or rule id.
    Explain {
        #[arg(long, default_value_t = latest_revision())]
        revision: String,
        /// Definition name (`CallToolRequest`), method (`tools/call`) or rule id (`META-6`).
        def: String,
    },
    /// List the rules catalogue: every rule id mcpgen reports or documents, with its level and
    /// summary, and whether mcpgen enforces it (docs/rules.md; `mcpgen explain ID` for one).
    ///
    /// --format json prints one JSON array of {"id", "level", "summary", "source", "enforced"}.
    Rules {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// `--fail-on`: the finding level that makes the exit status 1.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    /// MUST / MUST NOT and schema violations.
    Error,
    /// Also SHOULD (warning-level findings).
    Warning,
}

impl FailOn {
    /// Whether messages with errors / with warnings only reach this level.
    pub(crate) fn fails(self, errors: usize, warnings_only: usize) -> bool {
        errors > 0 || (self == FailOn::Warning && warnings_only > 0)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// A failure that is the caller's fault (usage, I/O): exit 2.
pub(crate) struct UsageError(pub(crate) String);

/// A failed write to stdout. A closed stdout (`mcpgen rules | head`) ends the command quietly,
/// with status 0, as ripgrep does: the reader has what it wanted. Any other write error is an
/// I/O error (exit 2).
pub(crate) fn output_error(e: std::io::Error) -> UsageError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    UsageError(format!("cannot write output: {e}"))
}

/// The message for a definition name the revision lacks, with a suggestion.
pub(crate) fn unknown_definition(rev: Revision, name: &str) -> UsageError {
    UsageError(format!(
        "revision {rev} has no definition named `{name}`{} (see `mcpgen defs --revision {rev}`)",
        suggest::did_you_mean(name, suggest::definitions(rev))
    ))
}

/// One input document: its display name and bytes.
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) bytes: Vec<u8>,
}

pub(crate) fn read_named(path: &PathBuf) -> Result<Input, UsageError> {
    let name = if path.as_os_str() == "-" { "<stdin>".to_owned() } else { path.display().to_string() };
    Ok(Input { name, bytes: read_input(path)? })
}

fn policy(name: &str) -> Result<Policy, UsageError> {
    name.parse().map_err(|e: mcpgen::UnknownPolicy| UsageError(e.to_string()))
}

pub(crate) fn read_input(path: &PathBuf) -> Result<Vec<u8>, UsageError> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| UsageError(format!("cannot read standard input: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))
    }
}

/// The default `--revision`: the newest revision of this build.
fn latest_revision() -> String {
    Revision::latest().map(Revision::as_str).unwrap_or_default().to_owned()
}

fn revision(name: &str) -> Result<Revision, UsageError> {
    Revision::parse(name).ok_or_else(|| {
        let known: Vec<String> = Revision::all().iter().map(|r| r.to_string()).collect();
        UsageError(format!("unknown revision `{name}` (this build has: {})", known.join(", ")))
    })
}

/// An extension of this build by identifier or short name.
fn extension(name: &str) -> Result<mcpgen::ext::Extension, UsageError> {
    mcpgen::ext::Extension::parse(name).ok_or_else(|| {
        let known: Vec<&str> = mcpgen::ext::Extension::ALL.iter().map(|e| e.id()).collect();
        UsageError(format!("unknown extension `{name}` (this build has: {})", known.join(", ")))
    })
}

/// The message for a definition name the extension's schema lacks.
fn unknown_extension_definition(ext: mcpgen::ext::Extension, name: &str) -> UsageError {
    let known: Vec<&str> = ext.definitions().iter().map(|d| d.name).collect();
    let hint = suggest::did_you_mean(name, known.iter().copied());
    UsageError(format!("extension {} has no definition named `{name}`{hint}", ext.id()))
}

fn run(cli: Cli) -> Result<ExitCode, UsageError> {
    match cli.command {
        Command::Decode {
            revision: rev,
            def,
            extension: ext,
            result_for,
            skip_invalid_items,
            policy: p,
            jsonl,
            format,
            input,
        } => {
            let rev = revision(&rev)?;
            let ext = ext.as_deref().map(extension).transpose()?;
            let target = match (def, result_for) {
                (Some(_), _) if skip_invalid_items => {
                    return Err(UsageError("--skip-invalid-items needs --result-for METHOD".into()))
                }
                (Some(def), _) => match ext {
                    Some(ext) => decode::Target::ExtensionDef(ext, def),
                    None => decode::Target::Def(def),
                },
                (None, _) if ext.is_some() => return Err(UsageError("--extension needs --def NAME".into())),
                (None, Some(method)) if skip_invalid_items => decode::Target::ResultForSkipping(method),
                (None, Some(method)) => decode::Target::ResultFor(method),
                (None, None) => return Err(UsageError("give --def NAME or --result-for METHOD".into())),
            };
            let input = read_named(&input)?;
            decode::run(&input, rev, &target, policy(&p)?, jsonl, format == Format::Json)
        }
        Command::CheckTool { input } => check_tool(&input),
        Command::CheckIcon { uri, bytes, mime, allow_http, allow_svg, server } => {
            check_icon(&uri, bytes.as_ref(), mime.as_deref(), allow_http, allow_svg, server.as_deref())
        }
        Command::Validate {
            revision: rev,
            def,
            extensions,
            jsonl,
            conversation,
            fail_on,
            max_sessions,
            max_pending,
            max_line_bytes,
            strict_formats,
            policy: p,
            format,
            paths,
        } => {
            let policy = policy(&p)?;
            let opts = mcpgen::Options { policy, strict_formats, ..mcpgen::Options::default() };
            if let Some(file) = conversation {
                let size =
                    |n: Option<u64>, default: usize| n.map_or(default, |n| usize::try_from(n).unwrap_or(usize::MAX));
                let defaults = ConversationOptions::default();
                let options = ConversationOptions {
                    validation: opts,
                    max_pending: size(max_pending, defaults.max_pending),
                    ..defaults
                };
                let limits = conversation::Limits {
                    max_sessions: size(max_sessions, conversation::MAX_SESSIONS),
                    max_line_bytes: size(max_line_bytes, conversation::MAX_LINE_BYTES),
                };
                let fail_on = fail_on.unwrap_or(FailOn::Error);
                return conversation::run(&file, options, limits, fail_on, format == Format::Json);
            }
            if fail_on.is_some() {
                return Err(UsageError(
                    "--fail-on applies to --conversation (messages alone fail on any error)".into(),
                ));
            }
            if max_sessions.is_some() || max_pending.is_some() || max_line_bytes.is_some() {
                return Err(UsageError(
                    "--max-sessions, --max-pending and --max-line-bytes apply to --conversation".into(),
                ));
            }
            let extensions = extensions.iter().map(|e| extension(e)).collect::<Result<Vec<_>, _>>()?;
            let explicit = rev.is_some();
            let rev = revision(&rev.unwrap_or_else(latest_revision))?;
            match (&def, extensions.as_slice()) {
                (Some(d), []) => {
                    mcpgen::definition(rev, d).map_err(|_| unknown_definition(rev, d))?;
                }
                (Some(_), [_]) if explicit => {
                    return Err(UsageError(
                        "--revision and --extension with --def: the extension's definitions are its own schema's"
                            .into(),
                    ))
                }
                (Some(d), [ext]) => {
                    mcpgen::ext::definition(*ext, d).map_err(|_| unknown_extension_definition(*ext, d))?;
                }
                (Some(_), _) => {
                    return Err(UsageError("with --def, give one --extension (the schema that defines it)".into()))
                }
                (None, _) => {}
            }
            let json = format == Format::Json;
            validate::run(&validate::Settings { revision: rev, explicit, def, extensions, jsonl, opts, json }, &paths)
        }
        Command::CheckRequest { supported_versions, extensions, jsonl, format, input } => {
            let config = match supported_versions {
                None => mcpgen::protocol::ServerConfig::default(),
                Some(list) => {
                    for v in &list {
                        revision(v)?;
                    }
                    mcpgen::protocol::ServerConfig::new(list)
                }
            }
            .with_extensions(extensions.iter().map(|e| extension(e)).collect::<Result<Vec<_>, _>>()?);
            let input = read_named(&input)?;
            check::run(&input, &config, jsonl, format == Format::Json)
        }
        Command::Probe { call_tools, timeout_ms, modern_only, seed, junit, format, command } => {
            let run = probe::Run { call_tools: &call_tools, timeout_ms, legacy: !modern_only, seed };
            probe::run(&run, junit.as_deref(), format == Format::Json, &command)
        }
        Command::Proxy {
            report,
            record,
            enforce,
            strict_formats,
            policy: p,
            fail_on,
            max_message_bytes,
            max_queued_bytes,
            max_repeats,
            max_sessions,
            listen,
            upstream,
            allow_non_loopback,
            allow_host,
            max_connections,
            max_header_bytes,
            header_timeout,
            body_timeout,
            upstream_timeout,
            command,
        } => {
            let validation = mcpgen::Options { policy: policy(&p)?, strict_formats, ..mcpgen::Options::default() };
            let options = ConversationOptions { validation, ..ConversationOptions::default() };
            let limits = proxy::Limits { max_message_bytes, max_queued_bytes, max_repeats, max_sessions };
            if let (Some(listen), Some(upstream)) = (listen, upstream) {
                let seconds = |s: f64, flag: &str| {
                    std::time::Duration::try_from_secs_f64(s)
                        .ok()
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| UsageError(format!("--{flag}: give a positive number of seconds, not {s}")))
                };
                let http = proxy::http::HttpLimits {
                    header_read_timeout: seconds(header_timeout, "header-timeout")?,
                    body_timeout: seconds(body_timeout, "body-timeout")?,
                    upstream_timeout: seconds(upstream_timeout, "upstream-timeout")?,
                    max_connections,
                    max_header_bytes,
                };
                return proxy::http::run(proxy::http::HttpSettings {
                    listen,
                    upstream,
                    allow_non_loopback,
                    allowed_hosts: allow_host,
                    report,
                    record,
                    enforce,
                    options,
                    fail_on,
                    limits,
                    http,
                });
            }
            proxy::run(proxy::Settings { report, record, enforce, command, options, fail_on, limits })
        }
        Command::Explain { revision: rev, def } => {
            if let Some(code) = explain::rule(&def)? {
                return Ok(code);
            }
            let rev = revision(&rev)?;
            explain::run(rev, &def)
        }
        Command::Rules { format } => explain::rules(format == Format::Json),
        Command::Defs { revision: rev } => {
            let rev = revision(&rev)?;
            let mut out = std::io::stdout().lock();
            for d in rev.definitions() {
                writeln!(out, "{:<44} {}", d.name, d.summary).map_err(output_error)?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `mcpgen check-tool`: one line per tool, then one line per problem. A document that cannot
/// be checked (not JSON, or no tool document) is invalid input: exit 1 with the core's message
/// and the error's kind on stderr, whatever the variant; only usage and I/O errors exit 2.
fn check_tool(input: &PathBuf) -> Result<ExitCode, UsageError> {
    let bytes = read_input(input)?;
    let reports = match mcpgen::tools::check_tools_json(&bytes, &mcpgen::tools::SchemaOptions::default()) {
        Ok(reports) => reports,
        Err(e) => {
            eprintln!("{e} [{}]", e.kind());
            return Ok(ExitCode::from(1));
        }
    };
    let mut out = std::io::stdout().lock();
    let write_err = output_error;
    let mut bad = 0;
    for r in &reports {
        let at = if r.pointer().is_empty() { String::new() } else { format!(" ({})", r.pointer()) };
        if r.errors().is_empty() {
            writeln!(out, "ok    {}{at}", r.name()).map_err(write_err)?;
            continue;
        }
        bad += 1;
        writeln!(out, "FAIL  {}{at}: {} problem(s)", r.name(), r.errors().len()).map_err(write_err)?;
        for e in r.errors() {
            writeln!(out, "  {e}").map_err(write_err)?;
        }
    }
    writeln!(out, "{} tool(s), {} with problems", reports.len(), bad).map_err(write_err)?;
    Ok(if bad == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `mcpgen check-icon`.
fn check_icon(
    uri: &str,
    bytes: Option<&PathBuf>,
    mime: Option<&str>,
    allow_http: bool,
    allow_svg: bool,
    server: Option<&str>,
) -> Result<ExitCode, UsageError> {
    use mcpgen::icons::{IconPolicy, IconSource};
    let policy = IconPolicy { allow_http, allow_svg, ..IconPolicy::default() };
    let file = bytes
        .map(|p| std::fs::read(p).map_err(|e| UsageError(format!("cannot read {}: {e}", p.display()))))
        .transpose()?;
    let checked = policy.check_icon(uri, mime).and_then(|source| {
        if let Some(server) = server {
            policy.check_origin(uri, server)?;
        }
        let found = match (&source, &file) {
            (_, Some(b)) => Some(policy.check_bytes(b, mime)?),
            (IconSource::Data { image, .. }, None) => Some(*image),
            (IconSource::Remote { .. }, None) => None,
        };
        Ok((source, found))
    });
    match checked {
        Ok((source, found)) => {
            let what = match (&source, found) {
                (_, Some(t)) => format!("{} image", t.mime()),
                (IconSource::Remote { origin, .. }, None) => {
                    format!("remote icon from {origin} (bytes not checked: pass --bytes FILE)")
                }
                (IconSource::Data { .. }, None) => "data icon".to_owned(),
            };
            println!("ok: {what}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("refused: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(UsageError(msg)) => {
            eprintln!("mcpgen: {msg}");
            ExitCode::from(2)
        }
    }
}
