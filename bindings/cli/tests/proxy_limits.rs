//! `mcpgen proxy` against hostile traffic (Linux: the servers are `cat` and `sh`, memory and
//! processes are read from `/proc`): a line above
//! `--max-message-bytes` passes byte for byte in bounded memory, a checker that cannot keep up
//! stops the reading instead of queueing (`--max-queued-bytes`), repeated findings are counted
//! instead of printed (`--max-repeats`), and the server's life is bound to the proxy's
//! (signals forwarded, PR_SET_PDEATHSIG). Memory is the peak RSS of the proxy's process.
#![cfg(target_os = "linux")]

mod http_support;
mod support;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use support::{drain, json_lines, read_pid, scratch, spawn_proxy, vm_hwm, wait_gone, wait_with_peak};

const MIB: usize = 1024 * 1024;

/// The POLICY-SIZE findings of a report, by sender.
fn too_large(report: &[Value]) -> Vec<String> {
    report
        .iter()
        .filter(|o| o["errors"].as_array().is_some_and(|e| e.iter().any(|f| f["rule"] == "POLICY-SIZE")))
        .map(|o| o["from"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_line_above_the_limit_passes_unchanged_in_bounded_memory_and_is_reported_once() {
    let dir = scratch("proxy-limits", "long-line");
    let (report, record) = (dir.join("report.jsonl"), dir.join("record.jsonl"));
    let flags =
        ["--max-message-bytes", "1048576", "--report", report.to_str().unwrap(), "--record", record.to_str().unwrap()];
    // `cat` echoes: the long line crosses both relays.
    let mut child = spawn_proxy(&flags, &["cat"]);
    let head = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".to_vec();
    let long_len = 64 * MIB;
    let tail = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n".to_vec();
    let mut stdin = child.stdin.take().unwrap();
    let (h, t) = (head.clone(), tail.clone());
    let writer = std::thread::spawn(move || {
        stdin.write_all(&h).unwrap();
        stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\",\"params\":{\"p\":\"").unwrap();
        let block = vec![b'a'; MIB];
        let mut left = long_len - 60;
        while left > 0 {
            let n = left.min(block.len());
            stdin.write_all(&block[..n]).unwrap();
            left -= n;
        }
        stdin.write_all(b"\"}}\n").unwrap();
        stdin.write_all(&t).unwrap();
    });
    // Compares the output with the input as it streams by, holding none of it.
    let mut stdout = child.stdout.take().unwrap();
    let (h, t) = (head.clone(), tail.clone());
    let reader = std::thread::spawn(move || {
        let mut want: Vec<u8> = h;
        want.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\",\"params\":{\"p\":\"");
        let prefix = want.len();
        let mut got = 0usize;
        let mut buf = vec![0u8; 256 * 1024];
        let mut mismatch = None;
        let a_run = long_len - 60;
        let suffix: Vec<u8> = [&b"\"}}\n"[..], &t].concat();
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            for (i, &b) in buf[..n].iter().enumerate() {
                let pos = got + i;
                let expected = if pos < prefix {
                    Some(want[pos])
                } else if pos < prefix + a_run {
                    Some(b'a')
                } else {
                    suffix.get(pos - prefix - a_run).copied()
                };
                if expected != Some(b) && mismatch.is_none() {
                    mismatch = Some(pos);
                }
            }
            got += n;
        }
        (got, prefix + a_run + suffix.len(), mismatch)
    });
    let stderr = drain(child.stderr.take().unwrap());
    writer.join().unwrap();
    let (status, peak) = wait_with_peak(&mut child, Duration::from_secs(60));
    let (got, want, mismatch) = reader.join().unwrap();
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
    assert!(status.success(), "{status:?}: {stderr}");
    assert_eq!((got, mismatch), (want, None), "the output must be the input, byte for byte");
    assert!(peak < 48 * MIB, "peak RSS {} MiB for a {} MiB line", peak / MIB, long_len / MIB);
    // Reported once per direction, as too large to check.
    let report = json_lines(&report);
    assert_eq!(too_large(&report), ["client", "server"], "{report:?}");
    let finding = report.iter().find(|o| o["from"] == "client" && o["errors"][0]["rule"] == "POLICY-SIZE").unwrap();
    assert_eq!(finding["valid"], true, "a warning: {finding}");
    assert!(finding["errors"][0]["message"].as_str().unwrap().contains("1048576 bytes"), "{finding}");
    // Not recorded: the record holds the four short messages, not the long one.
    let recorded = json_lines(&record);
    assert_eq!(recorded.len(), 4, "{recorded:?}");
    assert!(std::fs::metadata(&record).unwrap().len() < 4096);
}

#[test]
fn a_message_of_exactly_the_limit_is_checked_and_one_byte_more_is_not() {
    let dir = scratch("proxy-limits", "at-limit");
    let report = dir.join("report.jsonl");
    let limit = 100;
    let input = format!("{}\n{}\n", "x".repeat(limit), "y".repeat(limit + 1));
    let mut child = spawn_proxy(&["--max-message-bytes", "100", "--report", report.to_str().unwrap()], &["cat"]);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, input.as_bytes());
    let report = json_lines(&report);
    let rules: Vec<(&str, &str)> =
        report.iter().map(|o| (o["from"].as_str().unwrap(), o["errors"][0]["rule"].as_str().unwrap())).collect();
    // The 100-byte line is checked (not JSON: MSG-8), the 101-byte one is not (POLICY-SIZE).
    assert_eq!(
        rules.iter().filter(|(_, r)| *r == "MSG-8").count(),
        2,
        "the line of exactly the limit is checked in both directions: {report:?}"
    );
    assert_eq!(too_large(&report).len(), 2, "{report:?}");
}

#[test]
fn a_checker_that_cannot_keep_up_stops_the_reading_instead_of_queueing() {
    let dir = scratch("proxy-limits", "backpressure");
    // The record is a FIFO nobody reads yet: the checker blocks on its first write, so every
    // message from then on waits in the queue.
    let fifo = dir.join("record.fifo");
    let record = http_support::fifo_reader(&fifo);
    let flags = ["--max-message-bytes", "1048576", "--max-queued-bytes", "2097152", "--record", fifo.to_str().unwrap()];
    let mut child = spawn_proxy(&flags, &["cat"]);
    let (messages, size) = (100usize, MIB - 100);
    let line = {
        let mut l =
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{{\"p\":\"{}", "a".repeat(size));
        l.truncate(size - 3);
        l.push_str("\"}}\n");
        l
    };
    let total = messages * line.len();
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut stdin = child.stdin.take().unwrap();
    let w = std::sync::Arc::clone(&written);
    let writer = std::thread::spawn(move || {
        for _ in 0..messages {
            stdin.write_all(line.as_bytes()).unwrap();
            w.fetch_add(line.len(), std::sync::atomic::Ordering::SeqCst);
        }
    });
    let stdout = drain(child.stdout.take().unwrap());
    let _stderr = drain(child.stderr.take().unwrap());
    // Time for the proxy to take in what it would (all 100 MiB, without backpressure).
    std::thread::sleep(Duration::from_millis(1500));
    let peak = vm_hwm(child.id());
    let sent = written.load(std::sync::atomic::Ordering::SeqCst);
    // Now read the record: everything goes through.
    let record = drain(record);
    writer.join().unwrap();
    let (status, _) = wait_with_peak(&mut child, Duration::from_secs(60));
    assert!(status.success(), "{status:?}");
    assert_eq!(stdout.join().unwrap().len(), total, "every byte relayed once the checker caught up");
    let record = record.join().unwrap();
    assert_eq!(record.iter().filter(|&&b| b == b'\n').count(), 2 * messages, "every message recorded");
    assert!(sent < total, "the proxy must stop reading while the checker is stuck ({sent} of {total} bytes taken)");
    assert!(peak < 40 * MIB, "peak RSS {} MiB with a 2 MiB queue", peak / MIB);
}

#[test]
fn repeated_findings_are_counted_not_printed() {
    let dir = scratch("proxy-limits", "repeats");
    let report = dir.join("report.jsonl");
    let n = 100_000;
    let input: String = (0..n).map(|i| format!("not json {i}\n")).collect();
    for with_report in [true, false] {
        let mut flags = vec!["--fail-on", "error"];
        if with_report {
            flags.extend(["--report", report.to_str().unwrap()]);
        }
        let mut child = spawn_proxy(&flags, &["cat"]);
        let mut stdin = child.stdin.take().unwrap();
        let bytes = input.clone();
        let writer = std::thread::spawn(move || stdin.write_all(bytes.as_bytes()).unwrap());
        let stdout = drain(child.stdout.take().unwrap());
        let stderr = drain(child.stderr.take().unwrap());
        writer.join().unwrap();
        let (status, _) = wait_with_peak(&mut child, Duration::from_secs(60));
        assert_eq!(stdout.join().unwrap(), input.as_bytes());
        let stderr = String::from_utf8(stderr.join().unwrap()).unwrap();
        // Every message still counts for --fail-on.
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&format!("{} message(s) with errors", 2 * n)), "{stderr}");
        let printed = if with_report { std::fs::read_to_string(&report).unwrap() } else { stderr.clone() };
        assert!(printed.len() < 16 * 1024, "{} bytes printed for {} bytes of traffic", printed.len(), 2 * input.len());
        if with_report {
            let lines = json_lines(&report);
            let shown = lines.iter().filter(|o| o.get("errors").is_some()).count();
            assert_eq!(shown, 2 * 20, "20 of each kind (client's and server's MSG-8)");
            // Summaries at 200, 2,000, 20,000 and the end, for each sender.
            let finals: Vec<(&str, u64)> = lines
                .iter()
                .filter(|o| o["count"] == n as u64)
                .map(|o| (o["repeated"]["from"].as_str().unwrap(), o["shown"].as_u64().unwrap()))
                .collect();
            assert_eq!(finals, [("client", 20), ("server", 20)], "{lines:?}");
            assert!(lines.iter().all(|o| o.get("errors").is_some() || o["repeated"]["rule"] == "MSG-8"));
        } else {
            assert!(stderr.contains(&format!("{} more error findings (MSG-8)", n - 20)), "{stderr}");
        }
    }
}

/// `sh -c` that writes its pid to `pidfile`, then becomes `sleep 30` (which never reads stdin);
/// with `ignore`, SIGTERM, SIGINT and SIGHUP are ignored too.
fn sleeper(pidfile: &Path, ignore: bool) -> Vec<String> {
    let trap = if ignore { "trap '' TERM INT HUP; " } else { "" };
    vec!["sh".into(), "-c".into(), format!("{trap}echo $$ > {}; exec sleep 30", pidfile.display())]
}

#[test]
fn sigterm_sigint_and_sighup_reach_a_server_that_does_not_read_stdin() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let dir = scratch("proxy-limits", &format!("signal-{signal}"));
        let pidfile = dir.join("server.pid");
        let server = sleeper(&pidfile, false);
        let mut child = spawn_proxy(&[], &server.iter().map(String::as_str).collect::<Vec<_>>());
        let server_pid = read_pid(&pidfile);
        // SAFETY: kill(2) on our own child.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let (status, _) = wait_with_peak(&mut child, Duration::from_secs(10));
        let alive = !wait_gone(server_pid);
        if alive {
            // SAFETY: kill(2) on the process the test started (through the proxy).
            unsafe { libc::kill(server_pid, libc::SIGKILL) };
        }
        assert!(!alive, "signal {signal}: the server is still running");
        assert_eq!(status.signal(), Some(signal), "the proxy dies of the server's signal: {status:?}");
    }
}

#[test]
fn a_killed_proxy_takes_its_server_along() {
    let dir = scratch("proxy-limits", "sigkill");
    let pidfile = dir.join("server.pid");
    // Deaf to stdin and to the polite signals: only the parent-death SIGKILL ends it.
    let server = sleeper(&pidfile, true);
    let mut child = spawn_proxy(&[], &server.iter().map(String::as_str).collect::<Vec<_>>());
    let server_pid = read_pid(&pidfile);
    child.kill().unwrap();
    let _ = child.wait();
    let alive = !wait_gone(server_pid);
    if alive {
        // SAFETY: kill(2) on the process the test started (through the proxy).
        unsafe { libc::kill(server_pid, libc::SIGKILL) };
    }
    assert!(!alive, "the server outlived its proxy");
}

#[test]
fn enforce_refusals_are_counted_past_max_repeats_too() {
    let n = 300;
    let input: String = (0..n)
        .map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/calll\",\"params\":{{}}}}\n"))
        .collect();
    let mut child = spawn_proxy(&["--enforce", "--max-repeats", "5"], &["cat"]);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), n, "every request answered");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.matches("refused the client's request").count(), 5, "{stderr}");
    // Periodic summaries at 50 and at the end (300), on stderr.
    assert!(stderr.contains("45 more --enforce refusals"), "{stderr}");
    assert!(stderr.contains(&format!("{} more --enforce refusals", n - 5)), "{stderr}");
}
