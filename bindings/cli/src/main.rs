//! `mcpgen`: decode and check MCP messages from the command line.
//!
//! Exit codes: 0 success, 1 the input is invalid, 2 usage or I/O error.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mcpgen::{DecodeError, Policy, Revision};

mod check;
mod explain;
mod validate;

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
    /// Validate messages: without --def, each message is checked against the definition its
    /// method or error code selects, plus the protocol rules (META, ID, ERR, EXT, MRTR, SUB,
    /// OTEL…); with --def, against that definition only (schema semantics).
    ///
    /// PATHs are files, directories (walked in sorted order for *.json and *.jsonl) or `-` for
    /// standard input. A .jsonl file (or every input, with --jsonl) holds one message per line.
    /// Text output lists invalid messages and a summary; --format json prints one object per
    /// message. Exit 0 when all are valid, 1 when any is invalid, 2 on usage or I/O errors.
    Validate {
        /// Schema revision.
        #[arg(long, default_value = "2026-07-28")]
        revision: String,
        /// Validate against this definition instead of by method.
        #[arg(long)]
        def: Option<String>,
        /// Read every input as JSON Lines (one message per line).
        #[arg(long)]
        jsonl: bool,
        /// Assert `format` (`uri`, `uri-template`, `byte`) instead of treating it as an annotation.
        #[arg(long)]
        strict_formats: bool,
        /// Unknown-key policy; `strict` also reports META-3 and non-core resultType (RESULT-3).
        #[arg(long, default_value = "lossless", value_parser = ["strict", "lenient", "lossless"])]
        policy: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Files, directories, or `-` for standard input.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Decide, as a server would, whether a request should be served (protocol-rules.md §0).
    ///
    /// Exit 0 and print nothing when it should; otherwise exit 1 and print
    /// `{"response": <JSON-RPC error response>, "httpStatus": N, "rule": "ID"}`.
    CheckRequest {
        /// Protocol versions the server supports, preferred first (default: every revision of
        /// this build). A legacy version makes the server dual-era (legacy `initialize` accepted).
        #[arg(long, value_delimiter = ',', value_name = "V,V")]
        supported_versions: Option<Vec<String>>,
        /// Input file, or `-` for standard input.
        input: PathBuf,
    },
    /// Show a definition: summary, schema path, fields (name, type, required) and, for
    /// methods, the method-table row. DEF may also be a method name (`tools/call`).
    Explain {
        #[arg(long, default_value = "2026-07-28")]
        revision: String,
        /// Definition name (`CallToolRequest`) or method (`tools/call`).
        def: String,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// A failure that is the caller's fault (usage, I/O): exit 2.
pub(crate) struct UsageError(pub(crate) String);

pub(crate) fn read_input(path: &PathBuf) -> Result<Vec<u8>, UsageError> {
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
        Command::Validate { revision: rev, def, jsonl, strict_formats, policy, format, paths } => {
            let rev = revision(&rev)?;
            let policy: Policy = policy.parse().map_err(UsageError)?;
            if let Some(d) = &def {
                mcpgen::definition(rev, d).map_err(|_| UsageError(format!("revision {rev} has no definition named `{d}` (see `mcpgen defs --revision {rev}`)")))?;
            }
            let opts = mcpgen::Options { policy, strict_formats, ..mcpgen::Options::default() };
            validate::run(&validate::Settings { revision: rev, def, jsonl, opts, json: format == Format::Json }, &paths)
        }
        Command::CheckRequest { supported_versions, input } => {
            let config = match supported_versions {
                None => mcpgen::protocol::ServerConfig::default(),
                Some(list) => {
                    for v in &list {
                        revision(v)?;
                    }
                    mcpgen::protocol::ServerConfig::new(list)
                }
            };
            let bytes = read_input(&input)?;
            check::run(&bytes, &config)
        }
        Command::Explain { revision: rev, def } => {
            let rev = revision(&rev)?;
            explain::run(rev, &def)
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
