//! `mcpgen`: decode and check MCP messages from the command line.
//!
//! Exit codes: 0 success, 1 the input is invalid, 2 usage or I/O error.
//!
//! Each command is a module of [`cmd`] (its flags and its `run`); this file only dispatches.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod checker;
mod conversation;
mod flags;
mod html;
mod input;
mod probe;
mod proxy;
#[cfg(unix)]
mod reaper;
mod sarif;
mod suggest;

/// One module per command: its `clap::Args` (the command's flags and `--help`) and its
/// `run(args)`. Flags several commands take are declared once in [`crate::flags`] and
/// flattened in; the work shared by several commands lives beside (`crate::checker`,
/// `crate::conversation`, `crate::proxy`, `crate::input`). `mcpgen probe` is `crate::probe`.
mod cmd {
    pub(crate) mod check_icon;
    pub(crate) mod check_request;
    pub(crate) mod check_tool;
    pub(crate) mod decode;
    pub(crate) mod defs;
    pub(crate) mod explain;
    pub(crate) mod proxy;
    pub(crate) mod report;
    pub(crate) mod rules;
    pub(crate) mod tools;
    pub(crate) mod validate;
}

pub(crate) use flags::{FailOn, Format};

#[derive(Parser)]
#[command(
    name = "mcpgen",
    version,
    about = "Decode and check Model Context Protocol messages against the official schema"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Decode(cmd::decode::Args),
    Defs(cmd::defs::Args),
    CheckTool(cmd::check_tool::Args),
    CheckIcon(cmd::check_icon::Args),
    Validate(cmd::validate::Args),
    CheckRequest(cmd::check_request::Args),
    /// Probe an MCP server (docs/probe.md): a Streamable HTTP one at URL, or a stdio one
    /// started from COMMAND. Discover and each era it offers (a session per legacy revision),
    /// every list, the requests whose right answer the spec fixes (on HTTP the header
    /// mismatches too), and the tools `--call-tools` allows, every answer judged by mcpgen's
    /// checker.
    ///
    /// Findings go to stdout (text, or JSON Lines with --format json), progress to stderr;
    /// exit 1 on any error-level finding; 2 when nothing could be judged — the server cannot be
    /// reached, refuses the probe (HTTP 401, 403, 407), COMMAND cannot be started — or a flag
    /// is wrong. Never calls a tool that is not annotated `readOnlyHint: true` and
    /// `openWorldHint: false` unless named (or --call-tools all). Each finding quotes the spec
    /// clause it rests on, at the revision in play.
    #[command(override_usage = "mcpgen probe [OPTIONS] (URL | -- COMMAND…)")]
    Probe(probe::Settings),
    Proxy(cmd::proxy::Args),
    Report(cmd::report::Args),
    Explain(cmd::explain::Args),
    Rules(cmd::rules::Args),
    Tools(cmd::tools::Args),
}

fn run(cli: Cli) -> Result<ExitCode, UsageError> {
    match cli.command {
        Command::Decode(args) => cmd::decode::run(args),
        Command::Defs(args) => cmd::defs::run(args),
        Command::CheckTool(args) => cmd::check_tool::run(args),
        Command::CheckIcon(args) => cmd::check_icon::run(args),
        Command::Validate(args) => cmd::validate::run(args),
        Command::CheckRequest(args) => cmd::check_request::run(args),
        Command::Probe(settings) => probe::run(settings),
        Command::Proxy(args) => cmd::proxy::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Rules(args) => cmd::rules::run(args),
        Command::Tools(args) => cmd::tools::run(args),
    }
}

/// A failure that is the caller's fault (usage, I/O): exit 2.
pub(crate) struct UsageError(pub(crate) String);

/// A failed write to stdout. A closed stdout (`mcpgen rules | head`) ends the command quietly,
/// with status 0, as ripgrep does: the reader has what it wanted. Any other write error is an
/// I/O error (exit 2).
pub(crate) fn output_error(e: std::io::Error) -> UsageError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    UsageError(format!("cannot write output: {e}"))
}

/// All of `s` to stdout.
pub(crate) fn write_out(s: &str) -> Result<(), UsageError> {
    std::io::stdout().lock().write_all(s.as_bytes()).map_err(output_error)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(UsageError(msg)) => {
            eprintln!("mcpgen: {msg}");
            ExitCode::from(2)
        }
    }
}
