//! Helpers shared by the CLI's test files (`mod support;` in each): running the binary, scratch
//! directories, reading reports, peak memory of a child, and the shared vectors. (The HTTP
//! tests' upstream and client are in `http_support`.)
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// `mcpgen` as built for these tests.
pub fn mcpgen_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
}

/// Runs `mcpgen ARGS` with `stdin` as its input: exit code (-1 for a signal), stdout, stderr.
pub fn mcpgen(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = mcpgen_command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpgen");
    // The child may exit (usage error) before reading its input: a broken pipe is fine.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "writing to mcpgen: {e}");
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `mcpgen proxy FLAGS -- SERVER…`, with piped stdio.
pub fn spawn_proxy<S: AsRef<OsStr>>(flags: &[&str], server: &[S]) -> Child {
    mcpgen_command()
        .arg("proxy")
        .args(flags)
        .arg("--")
        .args(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpgen proxy")
}

/// A fresh directory for one test's files, under the target's scratch directory.
pub fn scratch(group: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group).join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The objects of a JSON Lines file (a report, a record).
pub fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

/// Reads a child's pipe to its end on a thread of its own.
pub fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = r.read_to_end(&mut v);
        v
    })
}

/// Waits (at most `limit`) for the child and returns its status and peak RSS in bytes
/// (`wait4`'s `ru_maxrss` of exactly that process); kills it past the limit and fails. The
/// child is reaped here: do not wait for it again.
pub fn wait_with_peak(child: &mut Child, limit: Duration) -> (ExitStatus, usize) {
    use std::os::unix::process::ExitStatusExt;
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + limit;
    loop {
        let mut status = 0;
        // SAFETY: wait4 on our own child into locals; an all-zero `rusage` is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            return (ExitStatus::from_raw(status), usage.ru_maxrss as usize * 1024);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("mcpgen did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The peak RSS of a running process (`VmHWM`), in bytes.
pub fn vm_hwm(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    let kb: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// The `*.json` vectors of `vectors/DIR`, sorted; fails when there are none.
pub fn vectors(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors").join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", root.display());
    files
}

/// Whether a process is gone (no longer exists, or only as a zombie nobody reaped).
pub fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `pid (comm) S …`: the state follows the last `)`.
        Ok(stat) => {
            stat.rsplit_once(')').is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X')))
        }
    }
}

/// The first process id written to `pidfile`, waiting (at most 10 s) for it to appear.
pub fn read_pid(pidfile: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(pidfile).ok().and_then(|s| s.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether the process is gone within 5 s.
pub fn wait_gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// A recorded session (`validate --conversation`) with findings of every level a finding has
/// (error, warning) and a plain schema violation (no rule): line 1 a schema error, line 2 an
/// ID-4 warning (null id answering an unreadable request), line 4 an ID-4 error, line 5 not JSON
/// (MSG-8): hostile text for the HTML report, in a session whose id is hostile too. The SARIF
/// and HTML tests share it.
pub const FINDINGS_SESSION: &str = r#"{"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}, "cursor": 5}}}
{"from": "server", "message": {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}}}
{"from": "client", "message": {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}}
{"from": "server", "message": {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}}}
{"from": "server", "session": "</script><b id=\"evil\">", "raw": "</script><img src=x onerror=alert(1)>"}
"#;
