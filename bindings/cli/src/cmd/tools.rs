//! `mcpgen tools pin (URL | -- COMMAND…)`: lists every page of a server's `tools/list` through
//! the probe's peers ([`mcpgen_probe::stdio::StdioPeer`], [`mcpgen_probe::http::HttpPeer`]) and
//! writes the pin file ([`mcpgen::tools::ToolsBaseline`]) that `--tools-baseline` reads.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::Duration;

use mcpgen::tools::{PinLimits, ToolsBaseline};
use mcpgen_probe::http::{HttpLimits, HttpTarget, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_EVENTS, DEFAULT_MAX_MESSAGES};
use mcpgen_probe::stdio::{StdioLimits, StdioPeer};
use mcpgen_probe::{modern_revision, Peer};
use serde_json::{json, Value};

use crate::flags::millis_or_duration;
use crate::UsageError;

/// Tool definitions: `pin` writes a server's tools to a file that `validate --conversation`
/// and `proxy` compare every `tools/list` with (`--tools-baseline FILE`, rule TOOL-12).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: ToolsCommand,
}

#[derive(clap::Subcommand)]
enum ToolsCommand {
    Pin(PinArgs),
}

/// Pin a server's tools: list every page of `tools/list` (modern era first, a legacy
/// `initialize` session when the server refuses it) and write each tool's definition (all
/// but its `_meta`, as canonical JSON) with its SHA256, one tool per line (docs/proxy.md).
/// Exit 0 when written, 2 when the server cannot be reached or its list cannot be pinned.
#[derive(clap::Args)]
#[command(override_usage = "mcpgen tools pin [OPTIONS] (URL | -- COMMAND…)")]
struct PinArgs {
    /// Write the pin here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Longest wait for one answer: `10s`, `500ms`; a bare number is milliseconds.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = millis_or_duration)]
    timeout: Duration,
    /// Most pages of `tools/list` read; a list that goes on is not pinned (exit 2).
    #[arg(long, value_name = "N", default_value_t = 32)]
    max_pages: usize,
    /// The server's Streamable HTTP endpoint (`http://127.0.0.1:3000/mcp`).
    #[arg(value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// The stdio server's command and its arguments (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    match args.command {
        ToolsCommand::Pin(pin) => run_pin(pin),
    }
}

fn run_pin(args: PinArgs) -> Result<ExitCode, UsageError> {
    let (server, tools) = match (&args.url, args.command.split_first()) {
        (Some(url), None) => {
            let limits = HttpLimits {
                timeout: args.timeout,
                max_body_bytes: DEFAULT_MAX_BODY_BYTES,
                max_events: DEFAULT_MAX_EVENTS,
                max_messages: DEFAULT_MAX_MESSAGES,
            };
            let target = HttpTarget::new(url, limits).map_err(|e| UsageError(e.to_string()))?;
            list_tools(&mut || Ok(Box::new(target.peer())), args.max_pages)?
        }
        (None, Some((program, rest))) => {
            let limits = StdioLimits { timeout: args.timeout, ..StdioLimits::default() };
            let name = program.to_string_lossy().into_owned();
            let mut open = || -> Result<Box<dyn Peer>, UsageError> {
                let mut cmd = Command::new(program);
                cmd.args(rest);
                let peer =
                    StdioPeer::spawn(cmd, limits).map_err(|e| UsageError(format!("cannot start {name}: {e}")))?;
                Ok(Box::new(peer))
            };
            list_tools(&mut open, args.max_pages)?
        }
        _ => return Err(UsageError("give either the server's URL or its command after --".into())),
    };
    let pin = ToolsBaseline::from_tools(server, &tools)
        .map_err(|e| UsageError(format!("the server's tools cannot be pinned: tool {e}")))?;
    let text = pin.to_json();
    match &args.output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
            eprintln!("mcpgen: pinned {} tools to {}", pin.tools.len(), path.display());
        }
        None => crate::write_out(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The server's `serverInfo` (when it said) and every tool of every page: the modern era
/// first; when the server answers that with an error, a legacy session on a fresh connection.
fn list_tools(
    open: &mut dyn FnMut() -> Result<Box<dyn Peer>, UsageError>,
    max_pages: usize,
) -> Result<(Option<Value>, Vec<Value>), UsageError> {
    let mut peer = open()?;
    let mut ids = 0u64;
    let modern = |method: &str, params: Value, id: u64| {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": modern_revision(),
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "mcpgen-tools-pin", "version": env!("CARGO_PKG_VERSION")}
        });
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    };
    match pages(&mut *peer, &mut ids, max_pages, &modern)? {
        Ok(tools) => {
            ids += 1;
            let server = ask(&mut *peer, &modern("server/discover", json!({}), ids))?
                .ok()
                .and_then(|r| r.get("serverInfo").cloned());
            Ok((server, tools))
        }
        Err(modern_error) => {
            drop(peer);
            let mut peer = open()?;
            ids += 1;
            let init = json!({"jsonrpc": "2.0", "id": ids, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcpgen-tools-pin", "version": env!("CARGO_PKG_VERSION")}
            }});
            let result = ask(&mut *peer, &init)?.map_err(|legacy_error| {
                UsageError(format!(
                    "the server refused `tools/list` ({modern_error}) and `initialize` ({legacy_error}): nothing to pin"
                ))
            })?;
            let server = result.get("serverInfo").cloned();
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            peer.send(initialized.to_string().as_bytes(), None).map_err(|e| UsageError(format!("the server: {e}")))?;
            let legacy = |method: &str, params: Value, id: u64| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            let tools = pages(&mut *peer, &mut ids, max_pages, &legacy)?
                .map_err(|e| UsageError(format!("the server refused `tools/list`: {e}")))?;
            Ok((server, tools))
        }
    }
}

/// Every page of `tools/list`: `Ok(Err(error))` when the server answers one with an error.
fn pages(
    peer: &mut dyn Peer,
    ids: &mut u64,
    max_pages: usize,
    request: &dyn Fn(&str, Value, u64) -> Value,
) -> Result<Result<Vec<Value>, String>, UsageError> {
    let mut tools = Vec::new();
    let mut params = json!({});
    for _ in 0..max_pages {
        *ids += 1;
        let result = match ask(peer, &request("tools/list", params, *ids))? {
            Ok(result) => result,
            Err(e) => return Ok(Err(e)),
        };
        let Some(page) = result.get("tools").and_then(Value::as_array) else {
            return Err(UsageError("the server's `tools/list` result has no `tools` array: nothing to pin".into()));
        };
        tools.extend(page.iter().cloned());
        if tools.len() > PinLimits::default().max_tools {
            return Err(UsageError(format!(
                "the server lists more than {} tools, more than a pin file may hold",
                PinLimits::default().max_tools
            )));
        }
        match result.get("nextCursor") {
            Some(cursor) if !cursor.is_null() => params = json!({ "cursor": cursor }),
            _ => return Ok(Ok(tools)),
        }
    }
    Err(UsageError(format!("`tools/list` still has a next page after {max_pages} pages (--max-pages): not pinned")))
}

/// One request: `Ok(Ok(result))`, `Ok(Err(what the error said))`, or the transport's failure.
fn ask(peer: &mut dyn Peer, request: &Value) -> Result<Result<Value, String>, UsageError> {
    let id = request.get("id");
    let messages = peer.send(request.to_string().as_bytes(), id).map_err(|e| UsageError(format!("the server: {e}")))?;
    let answer = messages
        .last()
        .and_then(|m| serde_json::from_slice::<Value>(m).ok())
        .ok_or_else(|| UsageError("the server's answer is not JSON".into()))?;
    if let Some(result) = answer.get("result") {
        return Ok(Ok(result.clone()));
    }
    match answer.get("error") {
        Some(e) => Ok(Err(format!(
            "error {}: {}",
            e.get("code").map_or("?".into(), Value::to_string),
            e.get("message").and_then(Value::as_str).unwrap_or("")
        ))),
        None => Err(UsageError("the server's answer is neither a result nor an error".into())),
    }
}

/// `--tools-baseline FILE`: the pin, read within [`PinLimits::default`] (a larger file is
/// refused unread).
pub(crate) fn load_baseline(path: &Path) -> Result<Arc<ToolsBaseline>, UsageError> {
    let limits = PinLimits::default();
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| UsageError(format!("--tools-baseline {shown}: {e}")))?;
    let mut bytes = Vec::new();
    // One byte past the cap, so a larger file is refused by the parser's own check.
    file.take(limits.max_bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| UsageError(format!("--tools-baseline {shown}: {e}")))?;
    ToolsBaseline::parse(&bytes, &limits)
        .map(Arc::new)
        .map_err(|e| UsageError(format!("--tools-baseline {shown}: not a pin file: {e}")))
}
