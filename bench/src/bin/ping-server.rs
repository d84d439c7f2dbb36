//! The stdio MCP server of the proxy benchmark (`cargo xtask bench`): answers the legacy
//! `initialize` handshake and every `ping` of newline-delimited JSON, as fast as a server can
//! (no parsing beyond finding the id; the benchmark sends compact requests with an integer id).

use std::io::{BufRead, BufWriter, Write};

const INITIALIZE_RESULT: &str =
    r#"{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"ping-server","version":"1"}}"#;

/// The text of the `"id"` member's value (an integer or a plain string), if any.
fn id_of(line: &str) -> Option<&str> {
    let start = line.find("\"id\":")? + 5;
    let rest = &line[start..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

fn main() {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Some(id) = id_of(&line) else { continue }; // a notification
        let result = if line.contains("\"method\":\"initialize\"") { INITIALIZE_RESULT } else { "{}" };
        if writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
