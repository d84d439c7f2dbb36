//! No process left behind (Linux): what a stdio server starts — a background child that holds
//! its stdout, a daemon that left its process group and session with `setsid` — is ended with
//! it, by `mcpgen proxy -- CMD` when the server exits and by `mcpgen probe -- CMD` when the run
//! ends or the probe is stopped by a signal.
#![cfg(target_os = "linux")]

mod support;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{read_pid, scratch, spawn_proxy, wait_gone, wait_with_peak};

/// Every process id written to `pidfile` (one per line), waiting until there are `n`.
fn pids(pidfile: &Path, n: usize) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(pidfile).unwrap_or_default();
        let pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if pids.len() >= n {
            return pids;
        }
        assert!(Instant::now() < deadline, "{n} processes never started: {text:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Asserts every process is gone (and kills the ones that are not, so a failure leaves none).
fn assert_all_gone(pids: &[i32], what: &str) {
    let alive: Vec<i32> = pids.iter().copied().filter(|&p| !wait_gone(p)).collect();
    for &p in &alive {
        // SAFETY: kill(2) on a process this test started (through mcpgen).
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    assert!(alive.is_empty(), "{what}: still running: {alive:?}");
}

/// A shell line that starts `sleep 300` in the background and as a `setsid` daemon, appending
/// both process ids to `pidfile`; both inherit the shell's stdout.
fn leave_behind(pidfile: &Path) -> String {
    let f = pidfile.display();
    format!("sleep 300 & echo $! >> {f}; setsid sleep 300 & echo $! >> {f};")
}

#[test]
fn the_proxy_ends_what_its_server_left_running_and_exits() {
    let dir = scratch("descendants", "proxy");
    let pidfile = dir.join("left.pid");
    // The server echoes the client's lines (`cat`) and exits at the end of its input; before
    // that it leaves two sleepers holding its stdout.
    let script = format!("{} exec cat", leave_behind(&pidfile));
    let mut proxy = spawn_proxy(&[], &["sh", "-c", &script]);
    let left = pids(&pidfile, 2);
    let mut stdin = proxy.stdin.take().unwrap();
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").unwrap();
    drop(stdin);
    // Without the fix the proxy waits for the end of the server's stdout, which the sleepers
    // hold for 300 s.
    let (status, _) = wait_with_peak(&mut proxy, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_all_gone(&left, "after the proxy");
}

/// `mcpgen probe --modern-only -- sh -c '<leave_behind> exec python3 recording_server.py'`.
fn probe_command(pidfile: &Path, log: &Path, timeout_ms: &str) -> Command {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/recording_server.py");
    let script = format!("{} exec python3 {server} --log {}", leave_behind(pidfile), log.display());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.args(["probe", "--modern-only", "--quiet", "--timeout-ms", timeout_ms, "--", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

#[test]
fn the_probe_ends_what_its_server_left_running() {
    let dir = scratch("descendants", "probe");
    let (pidfile, log) = (dir.join("left.pid"), dir.join("received.jsonl"));
    let mut probe = probe_command(&pidfile, &log, "5000").spawn().expect("run mcpgen probe");
    let (status, _) = wait_with_peak(&mut probe, Duration::from_secs(120));
    assert!(matches!(status.code(), Some(0 | 1)), "the probe ran: {status:?}");
    // The process group is ended already without the fix; the `setsid` daemon is not.
    assert_all_gone(&pids(&pidfile, 2), "after the probe");
}

#[test]
fn a_probe_stopped_by_a_signal_ends_its_server_and_what_it_left() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let dir = scratch("descendants", &format!("probe-signal-{signal}"));
        let (pidfile, serverfile) = (dir.join("left.pid"), dir.join("server.pid"));
        // A server that never answers: the probe waits up to 60 s for its first answer.
        let f = pidfile.display();
        let script = format!(
            "sleep 300 & echo $! >> {f}; setsid sleep 300 & echo $! >> {f}; echo $$ > {}; exec sleep 300",
            serverfile.display()
        );
        let mut probe = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["probe", "--quiet", "--timeout-ms", "60000", "--", "sh", "-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run mcpgen probe");
        let mut started = pids(&pidfile, 2);
        started.push(read_pid(&serverfile));
        // SAFETY: kill(2) on our own child.
        assert_eq!(unsafe { libc::kill(probe.id() as libc::pid_t, signal) }, 0);
        let (status, _) = wait_with_peak(&mut probe, Duration::from_secs(20));
        assert_eq!(status.code(), Some(128 + signal), "signal {signal}: {status:?} (signal {:?})", status.signal());
        assert_all_gone(&started, &format!("signal {signal}"));
    }
}
