//! `mcpgen validate`: inputs, per-message validation, text/JSON output, progress on a terminal.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcpgen::ext::Extension;
use mcpgen::json::{Map, Tape, Value};
use mcpgen::protocol::{validate_message, MessageKind};
use mcpgen::{CoreError, JsonView, MessageOptions, Options, Revision, ValidationError};

use crate::conversation::Limits;
use crate::flags::{size_or, CheckFlags, FailOn, FailOnFlag, FormatFlag, MaxSessionsFlag, RevisionFlag};
use crate::suggest::{unknown_definition, unknown_extension_definition};
use crate::UsageError;

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
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    revision: RevisionFlag,
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
    #[arg(long, value_name = "FILE", conflicts_with = "revision")]
    conversation: Option<PathBuf>,
    #[command(flatten)]
    fail_on: FailOnFlag,
    #[command(flatten)]
    max_sessions: MaxSessionsFlag,
    /// With --conversation: most requests of each side tracked as pending in one session
    /// [default: 4096]; past it the oldest is forgotten with a POLICY-PENDING warning.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_pending: Option<u64>,
    /// Longest message checked, in bytes [default: 67108864, 64 MiB]: a JSON Lines line, a
    /// whole .json file, or a conversation line; a longer one is skipped and reported (exit
    /// 2), the others still checked. Inputs are read one message at a time, so memory stays
    /// near this bound whatever the files' total size.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    max_line_bytes: Option<u64>,
    /// With --conversation: compare every `tools/list` result with this pin (`mcpgen tools
    /// pin`): each tool added, removed or changed is a TOOL-12 warning (`--fail-on warning`
    /// to fail on it).
    #[arg(long, value_name = "FILE", requires = "conversation")]
    tools_baseline: Option<PathBuf>,
    #[command(flatten)]
    check: CheckFlags,
    #[command(flatten)]
    format: FormatFlag,
    /// Also write every finding as SARIF 2.1.0 to FILE, for GitHub code scanning and other
    /// SARIF viewers (docs/observability.md): file and line of each message, the rule with its
    /// catalogue text and clause. The console output is unchanged.
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// Files, directories, or `-` for standard input.
    #[arg(required_unless_present = "conversation", conflicts_with = "conversation")]
    paths: Vec<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let opts = args.check.options()?;
    if let Some(file) = &args.conversation {
        return conversation(&args, file, opts);
    }
    if args.fail_on.fail_on.is_some() {
        return Err(UsageError("--fail-on applies to --conversation (messages alone fail on any error)".into()));
    }
    if args.max_sessions.given() || args.max_pending.is_some() {
        return Err(UsageError("--max-sessions and --max-pending apply to --conversation".into()));
    }
    let extensions = crate::flags::extensions(&args.extensions)?;
    let explicit = args.revision.explicit();
    let rev = args.revision.get()?;
    match (&args.def, extensions.as_slice()) {
        (Some(d), []) => {
            mcpgen::definition(rev, d).map_err(|_| unknown_definition(rev, d))?;
        }
        (Some(_), [_]) if explicit => {
            return Err(UsageError(
                "--revision and --extension with --def: the extension's definitions are its own schema's".into(),
            ))
        }
        (Some(d), [ext]) => {
            mcpgen::ext::definition(*ext, d).map_err(|_| unknown_extension_definition(*ext, d))?;
        }
        (Some(_), _) => return Err(UsageError("with --def, give one --extension (the schema that defines it)".into())),
        (None, _) => {}
    }
    let json = args.format.json();
    let max_bytes = size_or(args.max_line_bytes, crate::conversation::MAX_LINE_BYTES);
    let settings = Settings {
        revision: rev,
        explicit,
        def: args.def,
        extensions,
        jsonl: args.jsonl,
        opts,
        json,
        max_bytes,
        sarif: args.sarif,
    };
    check_paths(&settings, &args.paths)
}

/// `validate --conversation FILE`: the file's sessions through the conversation checker.
fn conversation(args: &Args, file: &Path, validation: Options) -> Result<ExitCode, UsageError> {
    let defaults = mcpgen::conversation::ConversationOptions::default();
    let options = defaults
        .clone()
        .validation(validation)
        .max_pending(size_or(args.max_pending, defaults.max_pending))
        .tools_baseline(args.tools_baseline.as_deref().map(crate::cmd::tools::load_baseline).transpose()?);
    let limits = Limits {
        max_sessions: args.max_sessions.get_or(crate::conversation::MAX_SESSIONS),
        max_line_bytes: size_or(args.max_line_bytes, crate::conversation::MAX_LINE_BYTES),
    };
    let fail_on = args.fail_on.fail_on.unwrap_or(FailOn::Error);
    crate::conversation::run(file, options, limits, fail_on, args.format.json(), args.sarif.as_deref())
}

struct Settings {
    revision: Revision,
    /// Whether `--revision` was given (else `revision` is the newest, and a message of an older
    /// revision gets a hint).
    explicit: bool,
    def: Option<String>,
    /// `--extension`: with `def`, the extension whose schema defines it (exactly one); without,
    /// the extensions negotiated, whose messages are judged instead of unknown.
    extensions: Vec<Extension>,
    jsonl: bool,
    opts: Options,
    json: bool,
    /// The longest message read (`--max-line-bytes`).
    max_bytes: usize,
    /// `--sarif FILE`.
    sarif: Option<PathBuf>,
}

/// One input: a file or standard input (`None`), and whether it holds one message per line.
/// Inputs are listed first and read one at a time, one message at a time.
struct Input {
    path: Option<PathBuf>,
    lines: bool,
}

/// Inputs larger than this (in total) get a progress line when stderr is a terminal.
const PROGRESS_THRESHOLD_BYTES: usize = 8 << 20;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), UsageError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| UsageError(format!("cannot read directory {}: {e}", dir.display())))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| UsageError(format!("cannot read directory {}: {e}", dir.display())))?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "json" || x == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}

fn collect_inputs(paths: &[PathBuf], jsonl: bool) -> Result<Vec<Input>, UsageError> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input { path: None, lines: jsonl });
            continue;
        }
        let files = if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)?;
            found
        } else {
            vec![path.clone()]
        };
        for f in files {
            let lines = jsonl || f.extension().is_some_and(|x| x == "jsonl");
            inputs.push(Input { path: Some(f), lines });
        }
    }
    Ok(inputs)
}

/// One message read from an input, or why it was not.
enum Next {
    Message,
    TooLong(u64),
    End,
}

/// The messages of one input, read one at a time into a buffer of at most `max` bytes.
struct Messages {
    name: String,
    reader: Box<dyn std::io::BufRead>,
    lines: bool,
    line: usize,
    done: bool,
    max: usize,
}

impl Messages {
    fn open(input: &Input, max: usize) -> Result<Messages, UsageError> {
        let (name, reader) = crate::conversation::open(input.path.as_deref().unwrap_or(Path::new("-")))?;
        Ok(Messages { name, reader, lines: input.lines, line: 0, done: false, max })
    }

    /// The next message into `buf` (its line number in [`Messages::line`]).
    fn next(&mut self, buf: &mut Vec<u8>) -> Result<Next, UsageError> {
        let name = &self.name;
        let read_error = |e: std::io::Error| UsageError(format!("cannot read {name}: {e}"));
        if self.done {
            return Ok(Next::End);
        }
        if !self.lines {
            // The whole input is one message: read at most one byte past the limit.
            self.done = true;
            self.line = 1;
            buf.clear();
            let limit = self.max as u64 + 1;
            std::io::Read::take(&mut self.reader, limit).read_to_end(buf).map_err(read_error)?;
            if buf.len() as u64 == limit {
                let mut rest = 0u64;
                loop {
                    let n = self.reader.fill_buf().map_err(read_error)?.len();
                    if n == 0 {
                        break;
                    }
                    rest += n as u64;
                    self.reader.consume(n);
                }
                buf.clear();
                return Ok(Next::TooLong(limit + rest));
            }
            return Ok(Next::Message);
        }
        loop {
            self.line += 1;
            match crate::conversation::next_line(&mut self.reader, buf, self.max).map_err(read_error)? {
                crate::conversation::Line::End => return Ok(Next::End),
                crate::conversation::Line::TooLong(n) => return Ok(Next::TooLong(n)),
                crate::conversation::Line::Read => {
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                    if !buf.iter().all(u8::is_ascii_whitespace) {
                        return Ok(Next::Message);
                    }
                }
            }
        }
    }
}

enum Verdict {
    Valid(Option<MessageKind>),
    Invalid(Vec<ValidationError>),
}

fn check(settings: &Settings, bytes: &[u8]) -> Verdict {
    let tape = match Tape::parse_bytes(bytes) {
        Ok(t) => t,
        Err(e) => return Verdict::Invalid(e.errors().into_owned()),
    };
    let result = match (&settings.def, settings.extensions.as_slice()) {
        (Some(def), [ext]) => mcpgen::ext::validate_view(*ext, def, &tape.root(), settings.opts).map(|()| None),
        (Some(def), _) => mcpgen::validate_view(settings.revision, def, &tape.root(), settings.opts).map(|()| None),
        (None, exts) => {
            validate_message(settings.revision, &tape.root(), &MessageOptions::from(settings.opts).negotiated(exts))
                .map(Some)
        }
    };
    match result {
        Ok(kind) => Verdict::Valid(kind),
        Err(e) => Verdict::Invalid(e.errors().into_owned()),
    }
}

/// A validation error as a SARIF result: always an error (a message alone is valid or not).
fn sarif_entry<'a>(settings: &Settings, e: &'a ValidationError) -> crate::sarif::Entry<'a> {
    let revision = settings.revision.as_str();
    let clause = e.rule.and_then(|r| mcpgen::rules::at(r, settings.revision)).map(|c| (c, revision));
    let mut extra = serde_json::Map::new();
    extra.insert("keyword".into(), e.keyword.into());
    extra.insert("schemaPath".into(), e.schema_path.clone().into());
    crate::sarif::Entry {
        rule: e.rule,
        level: mcpgen::conversation::Severity::Error,
        message: &e.message,
        pointer: &e.pointer,
        clause,
        extra,
    }
}

/// For a message refused as an unknown method (MSG-9) that is a method of an extension layering
/// on the revision, and not negotiated with `--extension`: that extension.
fn extension_of(settings: &Settings, bytes: &[u8], errors: &[ValidationError]) -> Option<Extension> {
    if settings.def.is_some() || !errors.iter().any(|e| e.rule == Some(mcpgen::rules::id::MSG_9)) {
        return None;
    }
    let tape = Tape::parse_bytes(bytes).ok()?;
    let method = tape.root().get("method")?.as_str()?.into_owned();
    Extension::ALL
        .iter()
        .copied()
        .find(|e| e.layers_on() == settings.revision && e.method(&method).is_some() && !settings.extensions.contains(e))
}

/// For a message refused for a missing `_meta` (META-6) or an unknown method (MSG-9) under the
/// default revision: the older revision that accepts it, newest first (`initialize`, `ping`,
/// requests without `_meta` are valid 2025-11-25 messages).
fn legacy_revision(settings: &Settings, bytes: &[u8], errors: &[ValidationError]) -> Option<Revision> {
    use mcpgen::rules::id;
    if settings.explicit
        || settings.def.is_some()
        || !errors.iter().any(|e| matches!(e.rule, Some(id::META_6 | id::MSG_9)))
    {
        return None;
    }
    let tape = Tape::parse_bytes(bytes).ok()?;
    Revision::all()
        .iter()
        .copied()
        .filter(|&r| r != settings.revision)
        .find(|&r| validate_message(r, &tape.root(), &MessageOptions::from(settings.opts)).is_ok())
}

/// A success response (it has `result`), valid or not: checked alone, only as a generic result.
fn is_result(bytes: &[u8]) -> bool {
    use mcpgen::JsonView;
    Tape::parse_bytes(bytes).is_ok_and(|t| t.root().get("result").is_some())
}

fn describe_kind(kind: &Option<MessageKind>) -> String {
    match kind {
        None => String::new(),
        Some(MessageKind::Request { method }) => format!(" (request `{method}`)"),
        Some(MessageKind::Notification { method }) => format!(" (notification `{method}`)"),
        Some(MessageKind::Result) => " (result)".into(),
        Some(MessageKind::Error { code }) => format!(" (error {code})"),
    }
}

/// A one-line progress indicator on stderr (terminals only, large inputs only).
struct Progress {
    total: usize,
    done: usize,
    last: Instant,
    enabled: bool,
}

impl Progress {
    fn new(total: usize) -> Self {
        let enabled = total >= PROGRESS_THRESHOLD_BYTES && std::io::stderr().is_terminal();
        Progress { total, done: 0, last: Instant::now(), enabled }
    }
    fn advance(&mut self, bytes: usize, messages: usize) {
        self.done += bytes;
        if !self.enabled || self.last.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.last = Instant::now();
        let pct = (self.done * 100).checked_div(self.total).unwrap_or(100);
        let bar = "#".repeat(pct / 4) + &".".repeat(25 - pct / 4);
        eprint!("\r[{bar}] {pct:>3}%  {messages} messages");
    }
    fn finish(&self) {
        if self.enabled {
            eprint!("\r{}\r", " ".repeat(60));
        }
    }
}

/// Every message of the paths, checked, one input and one message at a time.
fn check_paths(settings: &Settings, paths: &[PathBuf]) -> Result<ExitCode, UsageError> {
    let inputs = collect_inputs(paths, settings.jsonl)?;
    if inputs.is_empty() {
        return Err(UsageError("no *.json or *.jsonl files found in the given paths".into()));
    }
    let sizes = inputs.iter().filter_map(|i| i.path.as_ref()?.metadata().ok()).map(|m| m.len() as usize);
    let mut pass = Pass::new(settings, Progress::new(sizes.sum()));
    let mut buf = Vec::new();
    for input in &inputs {
        pass.input(input, &mut buf)?;
    }
    pass.finish(&inputs)
}

/// A run of `validate` over its inputs: where it reports, and what it has counted so far.
struct Pass<'s> {
    settings: &'s Settings,
    stdout: std::io::BufWriter<std::io::StdoutLock<'static>>,
    progress: Progress,
    sarif: crate::sarif::SarifLog,
    /// Messages checked.
    total: usize,
    /// Those found invalid.
    invalid: usize,
    /// Success responses, checked only as a generic result.
    results: usize,
    /// Messages longer than `--max-line-bytes`, not checked.
    too_long: usize,
    /// A single valid message says what it was read as: kept until the end shows it was alone.
    only_valid: Option<String>,
}

impl<'s> Pass<'s> {
    fn new(settings: &'s Settings, progress: Progress) -> Self {
        Pass {
            settings,
            stdout: std::io::BufWriter::new(std::io::stdout().lock()),
            progress,
            sarif: crate::sarif::SarifLog::default(),
            total: 0,
            invalid: 0,
            results: 0,
            too_long: 0,
            only_valid: None,
        }
    }

    /// Checks the messages of one input in order, each read into `buf` (kept from one message
    /// to the next).
    fn input(&mut self, input: &Input, buf: &mut Vec<u8>) -> Result<(), UsageError> {
        let mut messages = Messages::open(input, self.settings.max_bytes)?;
        loop {
            match messages.next(buf)? {
                Next::End => return Ok(()),
                Next::TooLong(len) => self.not_checked(&messages, len)?,
                Next::Message => {
                    self.message(input, &messages, buf)?;
                    // A long message's buffer is not kept for the short ones after it.
                    if buf.capacity() > 1 << 20 {
                        *buf = Vec::new();
                    }
                }
            }
        }
    }

    /// A message longer than `--max-line-bytes`: said on stderr and counted, not checked.
    fn not_checked(&mut self, messages: &Messages, len: u64) -> Result<(), UsageError> {
        self.stdout.flush().map_err(crate::output_error)?;
        eprintln!(
            "mcpgen: {}:{}: not checked: the message has {len} bytes, more than --max-line-bytes ({})",
            messages.name, messages.line, self.settings.max_bytes
        );
        self.too_long += 1;
        self.progress.advance(len as usize + 1, self.total);
        Ok(())
    }

    /// Checks one message (the last `messages` read) and reports its verdict: in the SARIF log,
    /// and as a JSON line or as text.
    fn message(&mut self, input: &Input, messages: &Messages, bytes: &[u8]) -> Result<(), UsageError> {
        let (settings, io) = (self.settings, crate::output_error);
        self.total += 1;
        let source = format!("{}:{}", messages.name, messages.line);
        let verdict = check(settings, bytes);
        self.progress.advance(bytes.len() + 1, self.total);
        if let (Verdict::Invalid(errors), Some(_)) = (&verdict, &settings.sarif) {
            let at = || crate::sarif::Place::File { path: input.path.as_deref(), line: messages.line };
            for e in errors {
                self.sarif.push(sarif_entry(settings, e), at());
            }
        }
        match (&verdict, settings.json) {
            (_, true) => write_json_verdict(&mut self.stdout, source, &verdict).map_err(io)?,
            (Verdict::Invalid(errors), false) => {
                write_invalid(&mut self.stdout, settings, &source, bytes, errors).map_err(io)?
            }
            (Verdict::Valid(kind), false) if self.total == 1 => {
                self.only_valid = Some(format!("{source}: valid{}", describe_kind(kind)));
            }
            (Verdict::Valid(_), false) => {}
        }
        self.invalid += usize::from(matches!(verdict, Verdict::Invalid(_)));
        self.results += usize::from(settings.def.is_none() && is_result(bytes));
        Ok(())
    }

    /// The end of the run: a lone valid message's line, the summary, the SARIF log, and the
    /// exit code (an error when a message was not checked).
    fn finish(mut self, inputs: &[Input]) -> Result<ExitCode, UsageError> {
        let (settings, io) = (self.settings, crate::output_error);
        if let Some(line) = self.only_valid.take().filter(|_| self.total == 1) {
            writeln!(self.stdout, "{line}").map_err(io)?;
        }
        self.progress.finish();
        self.stdout.flush().map_err(io)?;
        if !settings.json {
            self.summarise();
        }
        if let Some(path) = &settings.sarif {
            let files: Vec<String> = inputs
                .iter()
                .map(|i| i.path.as_deref().map_or("<stdin>".to_owned(), |p| p.display().to_string()))
                .collect();
            let props = serde_json::json!({"command": "validate", "inputs": files, "messages": self.total,
                "notChecked": self.too_long, "revision": settings.revision.as_str()});
            self.sarif.write(path, self.too_long == 0, props)?;
        }
        if self.too_long > 0 {
            return Err(UsageError(format!(
                "{} message(s) longer than --max-line-bytes ({}) not checked (see above)",
                self.too_long, settings.max_bytes
            )));
        }
        Ok(if self.invalid == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
    }

    /// The summary on stderr (text output): the counts, and a note on responses checked only
    /// as a generic result.
    fn summarise(&self) {
        let (total, invalid, results) = (self.total, self.invalid, self.results);
        eprintln!(
            "{total} message{} checked: {} valid, {invalid} invalid",
            if total == 1 { "" } else { "s" },
            total - invalid
        );
        if results > 0 {
            eprintln!(
                "note: {results} response{s} checked as a generic result (a result's shape depends on the request it \
                 answers): `mcpgen decode --result-for METHOD FILE` checks one against its method, \
                 `mcpgen validate --conversation FILE` a whole recorded session",
                s = if results == 1 { "" } else { "s" }
            );
        }
    }
}

/// A verdict as one JSON line: the message's source, whether it is valid, and its errors.
fn write_json_verdict(out: &mut impl Write, source: String, verdict: &Verdict) -> std::io::Result<()> {
    let mut m = Map::new();
    m.push("source", Value::String(source));
    m.push("valid", Value::Bool(matches!(verdict, Verdict::Valid(_))));
    let errors = match verdict {
        Verdict::Valid(_) => Vec::new(),
        Verdict::Invalid(errors) => errors.iter().map(ValidationError::to_json).collect(),
    };
    m.push("errors", Value::Array(errors));
    writeln!(out, "{}", Value::Object(m).to_json_string())
}

/// An invalid message as text: its errors, then a hint when an extension not negotiated, or an
/// older revision, accepts it.
fn write_invalid(
    out: &mut impl Write,
    settings: &Settings,
    source: &str,
    bytes: &[u8],
    errors: &[ValidationError],
) -> std::io::Result<()> {
    writeln!(out, "{source}: invalid")?;
    for e in errors {
        writeln!(out, "  {}", e.to_string().replace('\n', "\n  "))?;
    }
    if let Some(ext) = extension_of(settings, bytes, errors) {
        writeln!(
            out,
            "  hint: this is a message of the extension {}; pass `--extension {}` to check it where that extension is negotiated",
            ext.id(),
            ext.name()
        )?;
    } else if let Some(older) = legacy_revision(settings, bytes, errors) {
        writeln!(
            out,
            "  hint: this looks like a {older} message (valid there); pass `--revision {older}` to check it as one"
        )?;
    }
    Ok(())
}
