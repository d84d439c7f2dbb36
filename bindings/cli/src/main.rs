//! `mcpgen`: decode and check MCP messages from the command line.
//!
//! Exit codes: 0 success, 1 the input is invalid, 2 usage or I/O error.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcpgen::{DecodeError, Policy, Revision};

#[derive(Parser)]
#[command(name = "mcpgen", version, about = "Decode and check Model Context Protocol messages against the official schema")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a JSON document as a schema definition and print it re-encoded (compact JSON).
    ///
    /// Exit 0 and the re-encoded JSON on stdout when it decodes; exit 1 and every error (JSON
    /// pointer, what was expected, what was found) on stderr when it does not.
    Decode {
        /// Schema revision.
        #[arg(long, default_value = "2026-07-28")]
        revision: String,
        /// Definition to decode as (`CallToolRequest`, `JSONRPCMessage`, …).
        #[arg(long, required_unless_present = "result_for", conflicts_with = "result_for")]
        def: Option<String>,
        /// Decode a result given the method of the request it answers (`tools/call`, …).
        #[arg(long, value_name = "METHOD")]
        result_for: Option<String>,
        /// Unknown-key policy.
        #[arg(long, default_value = "lossless", value_parser = ["strict", "lenient", "lossless"])]
        policy: String,
        /// Input file, or `-` for standard input.
        input: PathBuf,
    },
    /// List the definitions of a revision (name and summary).
    Defs {
        #[arg(long, default_value = "2026-07-28")]
        revision: String,
    },
}

/// A failure that is the caller's fault (usage, I/O): exit 2.
struct UsageError(String);

fn read_input(path: &PathBuf) -> Result<Vec<u8>, UsageError> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| UsageError(format!("cannot read standard input: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))
    }
}

fn revision(name: &str) -> Result<Revision, UsageError> {
    Revision::parse(name).ok_or_else(|| {
        let known: Vec<String> = Revision::all().iter().map(|r| r.to_string()).collect();
        UsageError(format!("unknown revision `{name}` (this build has: {})", known.join(", ")))
    })
}

fn run(cli: Cli) -> Result<ExitCode, UsageError> {
    match cli.command {
        Command::Decode { revision: rev, def, result_for, policy, input } => {
            let rev = revision(&rev)?;
            let policy: Policy = policy.parse().map_err(UsageError)?;
            let bytes = read_input(&input)?;
            let decoded = match (&def, &result_for) {
                (Some(def), _) => mcpgen::decode(rev, def, &bytes, policy).map(|d| d.to_json_string()),
                (None, Some(method)) => rev.decode_result(method, &bytes, policy).map(|d| d.value.to_json_string()),
                (None, None) => return Err(UsageError("give --def NAME or --result-for METHOD".into())),
            };
            match decoded {
                Ok(json) => {
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "{json}").map_err(|e| UsageError(format!("cannot write output: {e}")))?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(DecodeError::UnknownDefinition { revision, name }) => {
                    Err(UsageError(format!("revision {revision} has no definition named `{name}` (see `mcpgen defs --revision {revision}`)")))
                }
                Err(e) => {
                    eprintln!("{e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        Command::Defs { revision: rev } => {
            let rev = revision(&rev)?;
            let mut out = std::io::stdout().lock();
            for d in rev.definitions() {
                writeln!(out, "{:<44} {}", d.name, d.summary).map_err(|e| UsageError(format!("cannot write output: {e}")))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
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
