//! The taps' output: every message of a connection in the conversation format that
//! `mcpgen validate --conversation` reads (docs/cli.md), one line per message, plus what the
//! HTTP tap saw of the headers.
//!
//! A line carries the message text verbatim (`"message"`) when the line can hold it unchanged,
//! else as a string (`"raw"`: text that is not JSON, or JSON spread over several lines), so the
//! checker reads exactly what was on the wire. A client POST's line also carries its headers
//! (`"http": {"headers": [[name, value], …]}`, a member the conversation reader ignores), and
//! each header mismatch mcpgen finds goes to a sidecar file (`headers.jsonl`).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use mcpgen::conversation::Sender;
use serde_json::{json, Value};

/// Appends to one trace (and its header sidecar); clones share the files and the line count.
#[derive(Clone)]
pub struct TraceWriter {
    inner: Arc<Mutex<Files>>,
}

struct Files {
    trace: File,
    headers: Option<File>,
    lines: u64,
}

impl TraceWriter {
    /// Creates (truncates) `trace`, and `headers` when the tap checks headers (HTTP).
    pub fn create(trace: &Path, headers: Option<&Path>) -> io::Result<TraceWriter> {
        let files = Files { trace: File::create(trace)?, headers: headers.map(File::create).transpose()?, lines: 0 };
        Ok(TraceWriter { inner: Arc::new(Mutex::new(files)) })
    }

    /// Records one message as sent; `http_headers` for a client POST. Returns its line number
    /// (1-based). A write error is reported once per message on stderr: a trace that misses
    /// lines fails the check, so it is not silent.
    pub fn message(&self, from: Sender, text: &[u8], http_headers: Option<&[(String, String)]>) -> u64 {
        let line = line_for(from, text, http_headers);
        let mut f = self.inner.lock().expect("not poisoned");
        f.lines += 1;
        if let Err(e) = f.trace.write_all(line.as_bytes()) {
            eprintln!("mcpgen-interop: cannot write the trace: {e}");
        }
        f.lines
    }

    /// Records a header mismatch of the client message at `line`.
    pub fn header_finding(&self, line: u64, method: &str, e: &mcpgen::protocol::ProtocolError) {
        let record = json!({"line": line, "method": method, "rule": e.rule, "message": e.message});
        let mut f = self.inner.lock().expect("not poisoned");
        if let Some(h) = f.headers.as_mut() {
            if let Err(e) = h.write_all(format!("{record}\n").as_bytes()) {
                eprintln!("mcpgen-interop: cannot write the header findings: {e}");
            }
        }
    }
}

/// The conversation line for `text` from `from`, ending in `\n`.
pub fn line_for(from: Sender, text: &[u8], http_headers: Option<&[(String, String)]>) -> String {
    let mut line = format!("{{\"from\":\"{}\"", from.as_str());
    if let Some(h) = http_headers {
        let pairs: Vec<Value> = h.iter().map(|(k, v)| json!([k, v])).collect();
        line.push_str(&format!(",\"http\":{}", json!({ "headers": pairs })));
    }
    let verbatim = std::str::from_utf8(text).ok().filter(|s| {
        !s.contains(['\n', '\r'])
            && s.trim_matches([' ', '\t']).len() == s.len()
            && serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
    });
    match verbatim {
        Some(s) => line.push_str(&format!(",\"message\":{s}}}\n")),
        None => line.push_str(&format!(",\"raw\":{}}}\n", Value::String(String::from_utf8_lossy(text).into_owned()))),
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_kept_verbatim_and_anything_else_as_raw_text() {
        let exact = br#"{"jsonrpc":"2.0","id":1,"result":{"n":1.50}}"#;
        assert_eq!(
            line_for(Sender::Server, exact, None),
            "{\"from\":\"server\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":1.50}}}\n"
        );
        assert_eq!(line_for(Sender::Client, b"{not json", None), "{\"from\":\"client\",\"raw\":\"{not json\"}\n");
        let spread = b"{\"jsonrpc\":\n\"2.0\"}";
        assert_eq!(
            line_for(Sender::Client, spread, None),
            "{\"from\":\"client\",\"raw\":\"{\\\"jsonrpc\\\":\\n\\\"2.0\\\"}\"}\n"
        );
        let headers = [("Mcp-Method".to_owned(), "ping".to_owned())];
        let l = line_for(Sender::Client, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, Some(&headers));
        assert!(
            l.starts_with("{\"from\":\"client\",\"http\":{\"headers\":[[\"Mcp-Method\",\"ping\"]]},\"message\":"),
            "{l}"
        );
        let v: Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["message"]["method"], "ping");
    }
}
