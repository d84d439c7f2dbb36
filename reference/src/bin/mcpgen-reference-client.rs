//! `mcpgen-reference-client URL`: see `mcpgen_reference::client` and docs/reference.md.

use std::process::ExitCode;

use mcpgen_reference::client::{run, Config};

const USAGE: &str = "usage: mcpgen-reference-client URL

Connects to the MCP server at URL (Streamable HTTP), uses what it offers, and checks every
message with mcpgen. Environment (set by the conformance suite):
  MCP_CONFORMANCE_SCENARIO          the scenario to play (default: list and call everything)
  MCP_CONFORMANCE_PROTOCOL_VERSION  the protocol version to speak (default: the newest)
  MCP_CONFORMANCE_CONTEXT           scenario data (JSON)
  MCPGEN_CLIENT_REPORT              write every operation and its status to this file (JSON Lines)
  MCPGEN_CLIENT_TRACE=1             print every message
Exit status: 0 done, 1 a call failed, 2 usage or connection error.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let url = match args.as_slice() {
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        [url] => url.clone(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let context = match env("MCP_CONFORMANCE_CONTEXT").map(|c| serde_json::from_str(&c)) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            eprintln!("mcpgen-reference-client: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
            return ExitCode::from(2);
        }
    };
    let config = Config {
        url,
        scenario: env("MCP_CONFORMANCE_SCENARIO"),
        protocol_version: env("MCP_CONFORMANCE_PROTOCOL_VERSION"),
        context,
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
                outcome.findings.len()
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
