//! `mcpgen validate --conversation` in bounded memory: the file is streamed line by line, at
//! most `--max-sessions` sessions are open (the least recently used evicted, with a note), and a
//! line longer than `--max-line-bytes` is skipped. Memory is the child's peak RSS, from
//! `wait4`'s resource usage of exactly that process (`support::wait_with_peak`).

mod support;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use support::{drain, mcpgen_command, wait_with_peak};

/// What one run of `mcpgen` did: exit status, stdout, stderr, and its peak RSS in KiB.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    peak_kib: i64,
}

/// Runs `mcpgen ARGS` to its end, reading its output, and returns its peak resident set.
fn mcpgen(args: &[&str]) -> Run {
    let mut child = mcpgen_command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpgen");
    let stdout = drain(child.stdout.take().expect("stdout"));
    let stderr = drain(child.stderr.take().expect("stderr"));
    let (status, peak) = wait_with_peak(&mut child, Duration::from_secs(600));
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    Run {
        code: status.code().unwrap_or_else(|| panic!("mcpgen did not exit normally: {status}")),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        peak_kib: (peak / 1024) as i64,
    }
}

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mcpgen-conversation-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write_lines(path: &Path, lines: impl Iterator<Item = String>) -> u64 {
    let mut w = BufWriter::new(std::fs::File::create(path).expect("create"));
    for l in lines {
        w.write_all(l.as_bytes()).expect("write");
        w.write_all(b"\n").expect("write");
    }
    w.flush().expect("flush");
    std::fs::metadata(path).expect("metadata").len()
}

const INIT: &str = r#"{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}"#;
const INITIALIZED: &str = r#"{"from":"server","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}}}"#;

/// The debug binary's resident set with nothing to hold is about 11 MiB; the bounds below
/// leave room for that and the open sessions, far under what holding the input took before.
const BASE_KIB: i64 = 12 << 10;

/// A 100 MB conversation (20,000 valid log notifications of 5 KB in one session) is checked
/// in a resident set under 40 MiB: the file is streamed, never read whole (before, the whole
/// file was read first: at least its 100 MB).
#[test]
fn a_large_file_is_checked_in_bounded_memory() {
    let d = dir("large");
    let file = d.join("large.jsonl");
    let data = "d".repeat(5_000);
    let log = format!(
        r#"{{"from":"server","message":{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{data}"}}}}}}"#
    );
    let size = write_lines(
        &file,
        [INIT.to_owned(), INITIALIZED.to_owned()].into_iter().chain(std::iter::repeat_n(log, 20_000)),
    );
    assert!(size > 100_000_000, "{size} bytes");
    let run = mcpgen(&["validate", "--conversation", file.to_str().expect("path")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "20002 messages checked in 1 session: 20002 valid, 0 invalid\n");
    assert!(run.peak_kib < 40 << 10, "peak RSS {} KiB for a {size}-byte file", run.peak_kib);
    let _ = std::fs::remove_dir_all(&d);
}

/// 20,000 sessions with `--max-sessions 1000`: at most 1000 are open at once (19,000 evicted,
/// ten notes and a count), in a resident set far under what keeping every session took
/// (before: 477 MB for 200,000 sessions, about 48 MB for these).
#[test]
fn many_sessions_stay_bounded() {
    let d = dir("sessions");
    let file = d.join("sessions.jsonl");
    let line = |i: usize| {
        format!(
            r#"{{"from":"client","session":"session-{i}","message":{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}}}"#
        )
    };
    write_lines(&file, (0..20_000).map(line));
    let run = mcpgen(&["validate", "--conversation", file.to_str().expect("path"), "--max-sessions", "1000"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 11, "{}", run.stderr);
    assert!(
        notes[0].contains(":1001: more than 1000 sessions are open: session \"session-0\" (last line 1) is evicted"),
        "{}",
        notes[0]
    );
    assert!(notes[9].ends_with("(further evictions are only counted)"), "{}", notes[9]);
    assert_eq!(notes[10], "note: 19000 idle sessions were evicted at --max-sessions 1000");
    assert!(run.stderr.contains("20000 messages checked in 20000 sessions: 20000 valid, 0 invalid"), "{}", run.stderr);
    assert!(run.peak_kib < BASE_KIB + (16 << 10), "peak RSS {} KiB", run.peak_kib);
    let _ = std::fs::remove_dir_all(&d);
}

/// N+1 sessions with `--max-sessions N`: the least recently used one is evicted with a note
/// (its findings already printed), and a later line of it starts it anew (so the answer to its
/// request, forgotten with it, reads as ID-3).
#[test]
fn one_session_too_many_evicts_the_least_recently_used() {
    let d = dir("evict");
    let file = d.join("evict.jsonl");
    let msg = |session: &str, body: &str| format!(r#"{{"from":"client","session":"{session}","message":{body}}}"#);
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let bad = r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#;
    let answer = r#"{"from":"server","session":"b","message":{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}}"#;
    let lines = [
        msg("a", call),
        msg("b", call),
        msg("b", bad),
        msg("c", call),
        // a, b, c open; a is used again, so b is now the least recently used.
        msg("a", bad),
        msg("d", call),
        answer.to_owned(),
    ];
    write_lines(&file, lines.into_iter());
    let path = file.to_str().expect("path");
    let run = mcpgen(&["validate", "--conversation", path, "--max-sessions", "3"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let notes: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(
        notes,
        vec![
            format!("note: {path}:6: more than 3 sessions are open: session \"b\" (last line 3) is evicted, the least recently used; its findings are reported above and a later line of it starts it anew"),
            format!("note: {path}:7: more than 3 sessions are open: session \"c\" (last line 4) is evicted, the least recently used; its findings are reported above and a later line of it starts it anew"),
            "note: 2 idle sessions were evicted at --max-sessions 3".to_owned(),
        ]
    );
    // Session b's finding (line 3) was reported before it was evicted; its answer, after, is
    // for a request the new session b never saw.
    assert!(run.stdout.contains(&format!("{path}:3: invalid")), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!("{path}:7: invalid (server message)\n  error at /id (ID-3)")),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("7 messages checked in 5 sessions"), "{}", run.stderr);
    // With room for every session nothing is evicted, and the answer matches its request.
    let run = mcpgen(&["validate", "--conversation", path, "--max-sessions", "4"]);
    assert!(!run.stderr.contains("note: "), "{}", run.stderr);
    assert!(!run.stdout.contains(":7:"), "{}", run.stdout);
    assert!(run.stderr.contains("7 messages checked in 4 sessions"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&d);
}

/// A line longer than `--max-line-bytes` is read past, not kept: reported with its length,
/// exit 2, and the lines after it still checked. `--max-pending` reaches the checker.
#[test]
fn a_line_longer_than_the_limit_is_skipped_and_max_pending_applies() {
    let d = dir("long-line");
    let file = d.join("long.jsonl");
    let long = format!(
        r#"{{"from":"server","message":{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{}"}}}}}}"#,
        "x".repeat(2_000_000)
    );
    let call = |id: usize| {
        format!(
            r#"{{"from":"client","message":{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"a","arguments":{{}},"_meta":{{"progressToken":{id}}}}}}}}}"#
        )
    };
    let len = long.len();
    write_lines(&file, [INIT.to_owned(), INITIALIZED.to_owned(), long, call(1), call(2), call(3)].into_iter());
    let path = file.to_str().expect("path");
    let run = mcpgen(&["validate", "--conversation", path, "--max-line-bytes", "1000000", "--max-pending", "2"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "mcpgen: {path}:3: not checked: the line has {len} bytes, more than --max-line-bytes (1000000)"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("5 messages checked in 1 session: 5 valid, 0 invalid, 1 with warnings only"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains(&format!(
            "{path}:6: warning (client message)\n  warning at /id (POLICY-PENDING): more than 2 requests"
        )),
        "{}",
        run.stdout
    );
    let run = mcpgen(&["validate", "--conversation", path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&d);
}

const PING: &str = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"DATA"}}"#;

/// Plain `validate` streams too: a 100 MB JSON Lines file and a directory of 100 files of 1 MB
/// are checked in a resident set under 40 MiB (before, every input was read whole first, and
/// a directory held all its files at once: at least their 100 MB).
#[test]
fn plain_validate_reads_one_message_at_a_time() {
    let d = dir("plain");
    let data = "d".repeat(5_000);
    let log = PING.replace("DATA", &data);
    let size = write_lines(&d.join("large.jsonl"), std::iter::repeat_n(log.clone(), 20_000));
    assert!(size > 100_000_000, "{size} bytes");
    let run = mcpgen(&["validate", "--revision", "2025-11-25", d.join("large.jsonl").to_str().expect("path")]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(run.stderr, "20000 messages checked: 20000 valid, 0 invalid\n");
    assert!(run.peak_kib < 40 << 10, "peak RSS {} KiB for a {size}-byte file", run.peak_kib);
    std::fs::remove_file(d.join("large.jsonl")).expect("remove");
    let many = d.join("many");
    std::fs::create_dir_all(&many).expect("dir");
    let big = PING.replace("DATA", &"e".repeat(1_000_000));
    for i in 0..100 {
        std::fs::write(many.join(format!("{i:03}.json")), &big).expect("write");
    }
    let run = mcpgen(&["validate", "--revision", "2025-11-25", many.to_str().expect("path")]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(run.stderr, "100 messages checked: 100 valid, 0 invalid\n");
    assert!(run.peak_kib < 40 << 10, "peak RSS {} KiB for 100 files of 1 MB", run.peak_kib);
    let _ = std::fs::remove_dir_all(&d);
}

/// A message longer than `--max-line-bytes` (a JSON Lines line or a whole `.json` file) is
/// skipped and named, the others are still checked, and the run exits 2.
#[test]
fn plain_validate_skips_a_message_past_the_limit() {
    let d = dir("plain-limit");
    let short = PING.replace("DATA", "x");
    let long = PING.replace("DATA", &"y".repeat(500));
    write_lines(&d.join("a.jsonl"), [short.clone(), long.clone(), short.clone()].into_iter());
    std::fs::write(d.join("b.json"), &long).expect("write");
    let run = mcpgen(&["validate", "--revision", "2025-11-25", "--max-line-bytes", "200", d.to_str().expect("path")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let a = d.join("a.jsonl");
    let b = d.join("b.json");
    let want = format!(
        "mcpgen: {}:2: not checked: the message has {} bytes, more than --max-line-bytes (200)\n\
         mcpgen: {}:1: not checked: the message has {} bytes, more than --max-line-bytes (200)\n\
         2 messages checked: 2 valid, 0 invalid\n\
         mcpgen: 2 message(s) longer than --max-line-bytes (200) not checked (see above)\n",
        a.display(),
        long.len(),
        b.display(),
        long.len()
    );
    assert_eq!(run.stderr, want);
    let _ = std::fs::remove_dir_all(&d);
}
