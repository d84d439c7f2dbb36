//! `mcpgen report SESSION --html FILE`: a recorded conversation (the file `validate
//! --conversation` reads) checked as that command checks it, rendered as one HTML page
//! ([`crate::html`]).

use std::path::PathBuf;
use std::process::ExitCode;

use mcpgen::conversation::{ConversationOptions, Finding};
use mcpgen::json::Tape;
use mcpgen::JsonView;

use crate::conversation::{check_line, next_line, Checked, Line, LineError, Sessions};
use crate::flags::{CheckFlags, FailOn, FailOnFlag, MaxSessionsFlag};
use crate::html::{Budget, Group, Item, Mark, Page};
use crate::UsageError;

/// Render a recorded conversation (JSON Lines, the format of `validate --conversation`; `-` for
/// standard input) as one self-contained HTML page: each session's messages as a timeline, every
/// finding marked at its message with its rule and clause (click to open), totals by rule and
/// level. The page loads nothing from the network and runs no script.
///
/// The page holds the messages' bodies: it is as private as the session (docs/security.md).
/// Exit 0 when the page is written (1 with --fail-on when a finding reaches that level), 2 on
/// usage or I/O errors and on lines that are not conversation lines (the page is still written).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The conversation file.
    #[arg(value_name = "SESSION")]
    session: PathBuf,
    /// Write the HTML page to FILE.
    #[arg(long, value_name = "FILE", required = true)]
    html: PathBuf,
    /// The most bytes of one message's body shown; a longer body is cut (the page says so).
    #[arg(long, value_name = "BYTES", default_value_t = crate::html::BODY_BYTES, value_parser = at_least_one)]
    body_bytes: usize,
    /// The most bytes of bodies on the page; past it bodies are left out, the findings still
    /// shown.
    #[arg(long, value_name = "BYTES", default_value_t = crate::html::PAGE_BYTES)]
    page_bytes: usize,
    /// Messages listed; past it only messages with findings are.
    #[arg(long, value_name = "N", default_value_t = crate::html::MAX_MESSAGES)]
    max_messages: usize,
    #[command(flatten)]
    check: CheckFlags,
    #[command(flatten)]
    max_sessions: MaxSessionsFlag,
    #[command(flatten)]
    fail_on: FailOnFlag,
}

fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("give at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let options = ConversationOptions::default().validation(args.check.options()?);
    let mut sessions = Sessions::with_max(options, args.max_sessions.get_or(crate::conversation::MAX_SESSIONS));
    let (name, mut input) = crate::conversation::open(&args.session)?;
    let read_error = |e: std::io::Error| UsageError(format!("cannot read {name}: {e}"));
    let mut budget = Budget::new(args.body_bytes, args.page_bytes, args.max_messages);
    // Sessions in the order they first appear: (id, timeline).
    let mut groups: Vec<(Option<String>, Vec<Item>)> = Vec::new();
    let (mut buf, mut number, mut bad, mut errors, mut warned) = (Vec::new(), 0usize, 0usize, 0usize, 0usize);
    let max_line = crate::conversation::MAX_LINE_BYTES;
    loop {
        number += 1;
        let line = match next_line(&mut input, &mut buf, max_line).map_err(read_error)? {
            Line::End => break,
            Line::Read => buf.strip_suffix(b"\r").unwrap_or(&buf),
            Line::TooLong(len) => {
                eprintln!("mcpgen: {name}:{number}: not checked: the line has {len} bytes, more than {max_line}");
                bad += 1;
                continue;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Checked { from, findings, .. } = match check_line(&mut sessions, line, number) {
            Ok(checked) => checked,
            Err(LineError(why)) => {
                eprintln!("mcpgen: {name}:{number}: not a conversation line: {why}");
                bad += 1;
                continue;
            }
        };
        let is_error = findings.iter().any(Finding::is_error);
        errors += usize::from(is_error);
        warned += usize::from(!is_error && !findings.is_empty());
        if !budget.admit(findings.len()) {
            continue;
        }
        let (session, body) = session_and_body(line);
        let marks = findings.iter().map(mark).collect();
        let item = Item { label: format!("line {number}"), from: from.as_str(), body: budget.body(&body), marks };
        match groups.iter_mut().find(|(s, _)| *s == session) {
            Some((_, items)) => items.push(item),
            None => groups.push((session, vec![item])),
        }
    }
    let groups = groups.into_iter().map(|(s, items)| Group { name: session_name(s), items }).collect();
    crate::html::write(&args.html, &Page { source: name.clone(), groups, budget })?;
    if bad > 0 {
        return Err(UsageError(format!("{name}: {bad} line(s) not checked (see above); the page lists the others")));
    }
    let fails = args.fail_on.fail_on.is_some_and(|level: FailOn| level.fails(errors, warned));
    Ok(if fails { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// How a timeline is headed: the session id, cut at 200 bytes (a peer chooses it).
fn session_name(session: Option<String>) -> String {
    match session {
        None => "session (lines without \"session\")".into(),
        Some(s) if s.len() <= 200 => format!("session {s}"),
        Some(s) => {
            let cut = (0..=200).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            format!("session {}… ({} bytes)", &s[..cut], s.len())
        }
    }
}

/// The line's session id and its message's text (the `message` as JSON, or the `raw` text).
fn session_and_body(line: &[u8]) -> (Option<String>, String) {
    let Ok(tape) = Tape::parse_bytes(line) else { return (None, String::from_utf8_lossy(line).into_owned()) };
    let root = tape.root();
    let session = root.get("session").and_then(|s| s.as_str().map(|s| s.into_owned()));
    let body = match (root.get("message"), root.get("raw")) {
        (Some(m), _) => m.to_value().to_json_string(),
        (None, Some(r)) => r.as_str().map(|s| s.into_owned()).unwrap_or_default(),
        (None, None) => String::new(),
    };
    (session, body)
}

fn mark(f: &Finding) -> Mark {
    let revision = f.revision.map_or(mcpgen::rules::CATALOGUE_REVISION, |r| r.as_str());
    Mark {
        rule: f.rule,
        level: f.level,
        pointer: f.pointer.clone(),
        message: f.message.clone(),
        clause: f.clause().map(|c| (c, revision.to_owned())),
    }
}
