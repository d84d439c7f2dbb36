//! [`StdioPeer`]: a server run as a child process, one JSON-RPC message per line on its stdin
//! and stdout (the stdio transport). Bounded: a line above `max_line_bytes` is an error, every
//! wait ends after `timeout`, the messages kept while waiting for one answer are capped, and the
//! child is killed when the peer is dropped.
//!
//! Against a hostile server (issue 38): writes go through a writer thread and a wait for them
//! ends after `timeout` too (a server that stops reading fails the exchange with
//! [`PeerError::Timeout`] instead of blocking the probe), and on Unix the server runs in a
//! process group of its own, killed as a whole ([`StdioPeer::kill_all`], also on drop), so a
//! child the server started (`sh -c 'x & exec server'`) does not outlive the probe.

use std::io::{BufRead, BufReader, Read, Write};
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Peer, PeerError};

/// Limits of a [`StdioPeer`].
#[derive(Debug, Clone, Copy)]
pub struct StdioLimits {
    /// Longest line read from the server.
    pub max_line_bytes: usize,
    /// Longest wait for an answer.
    pub timeout: Duration,
    /// Most messages kept while waiting for one answer (a server that floods notifications
    /// fails the request with [`PeerError::TooMany`] instead of growing the buffer).
    pub max_messages_per_answer: usize,
    /// Most bytes of the messages kept while waiting for one answer, all together (a server
    /// that sends large notifications before each answer fails the request with
    /// [`PeerError::TooMany`] instead of growing the buffer); at least one line's worth is
    /// always taken.
    pub max_answer_bytes: usize,
}

impl Default for StdioLimits {
    fn default() -> Self {
        StdioLimits {
            max_line_bytes: 16 << 20,
            timeout: Duration::from_secs(10),
            max_messages_per_answer: 1024,
            max_answer_bytes: 32 << 20,
        }
    }
}

/// What the reader thread hands over: a line, or why it stopped.
enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
    Failed(String),
}

/// A stdio MCP server under the probe.
pub struct StdioPeer {
    child: Child,
    /// To the writer thread: one line at a time; it answers on `written`.
    stdin: Option<SyncSender<Vec<u8>>>,
    written: Receiver<std::io::Result<()>>,
    lines: Receiver<Line>,
    limits: StdioLimits,
    /// The reader stopped (end of output, or a fault): every later call fails with this.
    done: Option<PeerError>,
    /// A shorter wait for the following requests ([`Peer::set_wait`]).
    wait: Option<Duration>,
}

impl StdioPeer {
    /// Starts `command` (its stderr passes through to this process's stderr).
    pub fn spawn(mut command: Command, limits: StdioLimits) -> std::io::Result<StdioPeer> {
        // A process group of its own, so the server and what it starts are ended together.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let (stdin, written) = match child.stdin.take() {
            Some(pipe) => {
                let (tx, rx) = writer(pipe);
                (Some(tx), rx)
            }
            None => (None, mpsc::sync_channel(1).1),
        };
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("the child has no stdout"))?;
        // A channel of one line: the reader waits while the probe is slow, so what is in
        // transit is at most two lines (the one queued, the one being read); the rest waits in
        // the pipe, where the server's writes block.
        let (tx, rx) = mpsc::sync_channel(1);
        let max = limits.max_line_bytes;
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                // Read at most one byte past the limit, so an endless line costs `max` bytes.
                let read = (&mut reader).take(max as u64 + 1).read_until(b'\n', &mut line);
                let msg = match read {
                    Ok(0) => Line::Eof,
                    Ok(_) if line.len() > max && !line.ends_with(b"\n") => Line::TooLong,
                    Ok(_) => {
                        while matches!(line.last(), Some(b'\n' | b'\r')) {
                            line.pop();
                        }
                        if line.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        Line::Text(line)
                    }
                    Err(e) => Line::Failed(e.to_string()),
                };
                let last = !matches!(msg, Line::Text(_));
                if tx.send(msg).is_err() || last {
                    return;
                }
            }
        });
        Ok(StdioPeer { child, stdin, written, lines: rx, limits, done: None, wait: None })
    }
}

/// The writer thread: writes each line it is given to `pipe`, and says how that went.
fn writer(mut pipe: ChildStdin) -> (SyncSender<Vec<u8>>, Receiver<std::io::Result<()>>) {
    let (tx, lines) = mpsc::sync_channel::<Vec<u8>>(0);
    let (done, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        for line in lines {
            let result = pipe.write_all(&line).and_then(|()| pipe.flush());
            let failed = result.is_err();
            if done.send(result).is_err() || failed {
                return;
            }
        }
    });
    (tx, rx)
}

impl StdioPeer {
    /// Writes one line, waiting at most `timeout` for the server to take it. A write that does
    /// not end in time fails this and every later call ([`PeerError::Timeout`]).
    fn write(&mut self, message: &[u8]) -> Result<(), PeerError> {
        let stdin = self.stdin.as_ref().ok_or(PeerError::Closed)?;
        let mut line = Vec::with_capacity(message.len() + 1);
        line.extend_from_slice(message);
        line.push(b'\n');
        let fail = |peer: &mut StdioPeer, e: PeerError| {
            peer.done = Some(e.clone());
            Err(e)
        };
        if stdin.send(line).is_err() {
            return fail(self, PeerError::Closed);
        }
        match self.written.recv_timeout(self.limits.timeout) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => fail(self, PeerError::Closed),
            Err(RecvTimeoutError::Timeout) => {
                let after_ms = self.limits.timeout.as_millis() as u64;
                fail(self, PeerError::Timeout { after_ms })
            }
        }
    }

    /// Ends the server and everything in its process group (on Unix), and reaps it. Safe to
    /// call more than once; dropping the peer calls it.
    pub fn kill_all(&mut self) {
        // Closing stdin asks the server to stop; killing makes sure it does.
        self.stdin.take();
        // The group may outlive its leader (a child left running), so it is signalled always.
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals the group the child leads (made its
            // leader at spawn); no memory is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long a request still waits for its answer after a line that is no JSON came
/// ([`StdioPeer::send`]).
pub const UNREADABLE_GRACE: Duration = Duration::from_millis(500);

impl Peer for StdioPeer {
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError> {
        if let Some(e) = &self.done {
            return Err(e.clone());
        }
        let start = Instant::now();
        self.write(message)?;
        let mut got = Vec::new();
        // A notification's answer is what arrives shortly after it (nothing, usually).
        let budget = if id.is_some() { self.wait.unwrap_or(self.limits.timeout) } else { Duration::from_millis(50) };
        let mut budget = budget;
        // A line that is no JSON (too deep, invalid UTF-8, not JSON at all) while a request
        // waits may be its answer, unreadable: over stdio nothing tells which request it
        // answers. The wait then ends [`UNREADABLE_GRACE`] later at the latest (an answer
        // that follows a stray line is still taken), and what came is returned — the checker
        // reports the line (MSG-8), as over HTTP, and no "no answer" is blamed on the server.
        let mut unreadable = false;
        let mut bytes_got = 0usize;
        loop {
            let left = budget.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(bytes)) => {
                    let parsed = serde_json::from_slice::<Value>(&bytes);
                    let answers = id.is_some_and(|id| parsed.as_ref().is_ok_and(|v| crate::peer::is_answer(v, id)));
                    bytes_got = bytes_got.saturating_add(bytes.len());
                    got.push(bytes);
                    if answers {
                        return Ok(got);
                    }
                    if bytes_got > self.limits.max_answer_bytes.max(self.limits.max_line_bytes) {
                        return Err(PeerError::TooMany {
                            limit: self.limits.max_answer_bytes,
                            what: "bytes of messages",
                        });
                    }
                    if id.is_some() && parsed.is_err() && !unreadable {
                        unreadable = true;
                        budget = budget.min(start.elapsed() + UNREADABLE_GRACE);
                    }
                    if got.len() >= self.limits.max_messages_per_answer {
                        return Err(PeerError::TooMany {
                            limit: self.limits.max_messages_per_answer,
                            what: "messages",
                        });
                    }
                }
                Ok(Line::TooLong) => {
                    self.done = Some(PeerError::TooLarge { limit: self.limits.max_line_bytes });
                    return Err(PeerError::TooLarge { limit: self.limits.max_line_bytes });
                }
                Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    self.done = Some(PeerError::Closed);
                    return if id.is_none() { Ok(got) } else { Err(PeerError::Closed) };
                }
                Ok(Line::Failed(m)) => {
                    self.done = Some(PeerError::Io(m.clone()));
                    return Err(PeerError::Io(m));
                }
                Err(RecvTimeoutError::Timeout) if id.is_none() || unreadable => return Ok(got),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(PeerError::Timeout { after_ms: budget.as_millis() as u64 });
                }
            }
        }
    }

    fn set_wait(&mut self, wait: Option<Duration>) {
        self.wait = wait;
    }

    fn reads_late(&self) -> bool {
        true
    }

    fn drain(&mut self, grace: Duration) -> Vec<Vec<u8>> {
        self.lines_within(grace)
    }
}

impl StdioPeer {
    /// The lines that arrive within `grace` (ends early at the end of the output or the cap).
    fn lines_within(&mut self, grace: Duration) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        if self.done.is_some() {
            return got;
        }
        let start = Instant::now();
        let mut bytes_got = 0usize;
        while got.len() < self.limits.max_messages_per_answer
            && bytes_got <= self.limits.max_answer_bytes.max(self.limits.max_line_bytes)
        {
            match self.lines.recv_timeout(grace.saturating_sub(start.elapsed())) {
                Ok(Line::Text(bytes)) => {
                    bytes_got = bytes_got.saturating_add(bytes.len());
                    got.push(bytes);
                }
                _ => break,
            }
        }
        got
    }
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        self.kill_all();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str, limits: StdioLimits) -> StdioPeer {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        StdioPeer::spawn(cmd, limits).expect("sh")
    }

    const REQUEST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    #[test]
    fn an_answer_ends_the_wait_and_what_came_before_is_kept() {
        let script = r#"read line; echo '{"jsonrpc":"2.0","method":"notifications/message","params":{}}'; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; sleep 5"#;
        let mut peer = sh(script, StdioLimits::default());
        let got = peer.send(REQUEST, Some(&serde_json::json!(1))).unwrap();
        assert_eq!(got.len(), 2);
        assert!(got[1].starts_with(br#"{"jsonrpc":"2.0","id":1"#));
    }

    /// An answer that is no JSON (here too deep for the parser) ends the wait soon and is
    /// kept, not dropped as "no answer" after the whole timeout (60 s here: the test would
    /// take a minute and fail); a stray line before a good answer does not hide the answer.
    #[test]
    fn an_unreadable_answer_is_kept_and_does_not_wait_for_the_timeout() {
        let limits = StdioLimits { timeout: Duration::from_secs(60), ..StdioLimits::default() };
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let mut peer = sh(&format!("read line; echo '{deep}'; printf '\\377\\n'; sleep 120"), limits);
        let got = peer.send(REQUEST, Some(&serde_json::json!(1))).unwrap();
        assert_eq!(got, vec![deep.into_bytes(), vec![0xff]]);
        let script = r#"read line; echo 'not json'; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; sleep 120"#;
        let mut peer = sh(script, limits);
        let got = peer.send(REQUEST, Some(&serde_json::json!(1))).unwrap();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[1].starts_with(br#"{"jsonrpc":"2.0","id":1"#));
    }

    #[test]
    fn a_server_that_does_not_answer_times_out() {
        let limits = StdioLimits { timeout: Duration::from_millis(100), ..StdioLimits::default() };
        let mut peer = sh("sleep 5", limits);
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(1))), Err(PeerError::Timeout { after_ms: 100 }));
    }

    #[test]
    fn a_line_above_the_limit_fails_without_being_kept() {
        let limits = StdioLimits { max_line_bytes: 1000, ..StdioLimits::default() };
        let mut peer = sh("read line; head -c 100000 /dev/zero | tr '\\0' a; echo; sleep 5", limits);
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(1))), Err(PeerError::TooLarge { limit: 1000 }));
        // The reader stopped: later calls fail at once.
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(2))), Err(PeerError::TooLarge { limit: 1000 }));
    }

    #[test]
    fn a_flood_of_notifications_is_cut_at_the_cap() {
        let limits = StdioLimits { max_messages_per_answer: 10, ..StdioLimits::default() };
        let script =
            r#"read line; while :; do echo '{"jsonrpc":"2.0","method":"notifications/message","params":{}}'; done"#;
        let mut peer = sh(script, limits);
        assert_eq!(
            peer.send(REQUEST, Some(&serde_json::json!(1))),
            Err(PeerError::TooMany { limit: 10, what: "messages" })
        );
    }

    #[test]
    fn large_notifications_before_an_answer_are_cut_at_the_byte_cap() {
        // Lines of 100,001 bytes; the cap is 300,000 bytes: the fourth line passes it.
        let limits = StdioLimits { max_answer_bytes: 300_000, max_line_bytes: 200_000, ..StdioLimits::default() };
        let pad = "x".repeat(100_000 - 71);
        let note = format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{pad}"}}}}"#);
        assert_eq!(note.len() + 1, 100_001);
        let script = format!("read line; for i in 1 2 3 4 5 6; do echo '{note}'; done; echo '{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}}}}'; sleep 5");
        let mut peer = sh(&script, limits);
        assert_eq!(
            peer.send(REQUEST, Some(&serde_json::json!(1))),
            Err(PeerError::TooMany { limit: 300_000, what: "bytes of messages" })
        );
        // At or under the cap the answer comes with what preceded it.
        let limits = StdioLimits { max_answer_bytes: 700_000, max_line_bytes: 200_000, ..StdioLimits::default() };
        let mut peer = sh(&script, limits);
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(1))).map(|got| got.len()), Ok(7));
    }

    #[test]
    fn a_late_answer_comes_with_the_next_exchange_or_the_drain() {
        let limits = StdioLimits { timeout: Duration::from_millis(200), ..StdioLimits::default() };
        let script = r#"read a; read b; sleep 0.5; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; echo '{"jsonrpc":"2.0","id":2,"result":{}}'; read c; sleep 0.3; echo '{"jsonrpc":"2.0","id":3,"result":{}}'; sleep 5"#;
        let mut peer = sh(script, limits);
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(1))), Err(PeerError::Timeout { after_ms: 200 }));
        peer.set_wait(Some(Duration::from_secs(2)));
        let got = peer.send(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, Some(&serde_json::json!(2))).unwrap();
        assert_eq!(got.len(), 2, "the late answer to 1, then the answer to 2");
        assert!(got[0].starts_with(br#"{"jsonrpc":"2.0","id":1"#));
        peer.set_wait(None);
        let third = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        assert_eq!(peer.send(third, Some(&serde_json::json!(3))), Err(PeerError::Timeout { after_ms: 200 }));
        let drained = peer.drain(Duration::from_secs(2));
        assert_eq!(drained.len(), 1);
        assert!(drained[0].starts_with(br#"{"jsonrpc":"2.0","id":3"#));
    }

    #[test]
    fn a_server_that_exits_is_closed() {
        let mut peer = sh("exit 0", StdioLimits::default());
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(1))), Err(PeerError::Closed));
    }

    #[test]
    fn a_server_that_stops_reading_fails_the_write_after_the_timeout() {
        // Issue 38 cause 7: the write used to block forever on a full pipe.
        let limits = StdioLimits { timeout: Duration::from_millis(300), ..StdioLimits::default() };
        let mut peer = sh("sleep 30", limits);
        let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"d":"{}"}}}}"#, "x".repeat(8 << 20));
        let start = Instant::now();
        assert_eq!(peer.send(big.as_bytes(), Some(&serde_json::json!(1))), Err(PeerError::Timeout { after_ms: 300 }));
        assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
        // Later calls fail at once.
        assert_eq!(peer.send(REQUEST, Some(&serde_json::json!(2))), Err(PeerError::Timeout { after_ms: 300 }));
    }

    fn alive(pid: i32) -> bool {
        // A zombie (not yet reaped by its new parent) is no longer running.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
    }

    #[test]
    fn a_child_the_server_started_is_ended_with_it() {
        // Issue 38 cause 13: `sh -c 'x & exec server'` left `x` running after the probe.
        let dir = std::env::temp_dir().join(format!("mcpgen-probe-group-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join("pid");
        let script = format!("sleep 60 & echo $! > {}; exec sleep 60", file.display());
        let peer = sh(&script, StdioLimits::default());
        let start = Instant::now();
        let pid = loop {
            if let Some(pid) = std::fs::read_to_string(&file).ok().and_then(|s| s.trim().parse::<i32>().ok()) {
                break pid;
            }
            assert!(start.elapsed() < Duration::from_secs(5), "the server never started its child");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(alive(pid));
        drop(peer);
        let start = Instant::now();
        while alive(pid) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!alive(pid), "the server's child {pid} outlived the peer");
    }
}
