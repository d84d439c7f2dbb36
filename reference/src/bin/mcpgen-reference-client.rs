//! `mcpgen-reference-client URL`: see `mcpgen_reference::client` and docs/reference.md.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mcpgen_reference::client::{self, run, Config, Limits};

const AFTER_HELP: &str = "Environment (set by the conformance suite):
  MCP_CONFORMANCE_SCENARIO          the scenario to play (default: list and call everything)
  MCP_CONFORMANCE_PROTOCOL_VERSION  the protocol version to speak (default: the newest)
  MCP_CONFORMANCE_CONTEXT           scenario data (JSON)
  MCPGEN_CLIENT_REPORT              write every operation and its status to this file (JSON Lines)
  MCPGEN_CLIENT_TRACE=1             print every message
Exit status: 0 done, 1 a call failed (a timeout or an oversized answer included), 2 usage or
connection error, or the run gave up (--timeout).";

/// Connects to the MCP server at URL (Streamable HTTP), uses what it offers, and checks every
/// message with mcpgen.
#[derive(Parser)]
#[command(name = "mcpgen-reference-client", version, after_help = AFTER_HELP)]
struct Args {
    /// Give up connecting (TCP) after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = secs(client::DEFAULT_CONNECT_TIMEOUT), value_parser = seconds)]
    connect_timeout: f64,
    /// Give up on an answer when the server sends nothing for this many seconds (before the
    /// headers, and between the bytes of a body or stream).
    #[arg(long, value_name = "SECS", default_value_t = secs(client::DEFAULT_READ_TIMEOUT), value_parser = seconds)]
    read_timeout: f64,
    /// Give up the whole run (connect, scenario, close) after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = secs(client::DEFAULT_TIMEOUT), value_parser = seconds)]
    timeout: f64,
    /// Refuse a response body or SSE event larger than this (16 MiB by default).
    #[arg(long, value_name = "BYTES", default_value_t = client::DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// Print at most this many finding lines a second on stderr; the others are counted, and
    /// the count is printed with the next line.
    #[arg(long, value_name = "N", default_value_t = mcpgen_reference::log::DEFAULT_LINES_PER_SECOND,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_log_lines_per_second: u32,
    /// The server's MCP endpoint (`http://127.0.0.1:3000/mcp`).
    url: String,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// A positive, finite number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && Duration::try_from_secs_f64(s).is_ok() => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let context = match env("MCP_CONFORMANCE_CONTEXT").map(|c| serde_json::from_str(&c)) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            eprintln!("mcpgen-reference-client: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = Limits {
        connect_timeout: Duration::from_secs_f64(args.connect_timeout),
        read_timeout: Duration::from_secs_f64(args.read_timeout),
        timeout: Duration::from_secs_f64(args.timeout),
        max_message_bytes: args.max_message_bytes,
        max_log_lines_per_second: args.max_log_lines_per_second,
    };
    let config = Config {
        url: args.url,
        scenario: env("MCP_CONFORMANCE_SCENARIO"),
        protocol_version: env("MCP_CONFORMANCE_PROTOCOL_VERSION"),
        context,
        limits,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpgen-reference-client: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(run(&config)) {
        Ok(outcome) => {
            if let Some(path) = env("MCPGEN_CLIENT_REPORT") {
                let lines: String = outcome.operations.iter().map(|o| format!("{}\n", o.to_json())).collect();
                if let Err(e) = std::fs::write(&path, lines) {
                    eprintln!("mcpgen-reference-client: cannot write the report {path}: {e}");
                    return ExitCode::from(2);
                }
            }
            for e in &outcome.errors {
                eprintln!("mcpgen-reference-client: {e}");
            }
            eprintln!(
                "mcpgen-reference-client: done: {} failed call(s), {} self-check finding(s)",
                outcome.errors.len(),
                outcome.finding_count
            );
            if outcome.errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("mcpgen-reference-client: {e}");
            ExitCode::from(2)
        }
    }
}
