//! `mcpgen-reference-server`: the reference MCP server (both eras) over Streamable HTTP or stdio.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use mcpgen_reference::server::{http, stdio, Server};

/// A dual-era MCP server (2025-11-25 sessions and 2026-07-28 stateless requests on one
/// endpoint) built on mcpgen and scored by the official conformance suite.
#[derive(Parser)]
#[command(name = "mcpgen-reference-server", version)]
struct Args {
    /// Serve Streamable HTTP at http://ADDR/mcp (loopback addresses only; port 0 picks a free
    /// port). The bound URL is printed on stdout.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3000", conflicts_with = "stdio")]
    listen: SocketAddr,
    /// Serve one connection over stdin/stdout instead.
    #[arg(long)]
    stdio: bool,
    /// Feed every message through mcpgen's conversation checker; findings on messages the
    /// server sent go to stderr.
    #[arg(long)]
    self_check: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let server = Arc::new(Server::new(args.self_check));
    let outcome = if args.stdio {
        stdio::serve(server).await.map_err(|e| e.to_string())
    } else {
        match http::bind(args.listen).await {
            Ok((listener, addr)) => {
                println!("listening on http://{addr}/mcp");
                http::serve(server, listener).await.map_err(|e| e.to_string())
            }
            Err(e) => Err(format!("cannot listen on {}: {e}", args.listen)),
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcpgen-reference-server: {e}");
            ExitCode::FAILURE
        }
    }
}
