//! `mcpgen check-request`: one request, or one per line (`--jsonl`), as text or JSON objects.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use mcpgen::json::{Map, Value};
use mcpgen::protocol::{check_request, ProtocolError, ServerConfig};
use mcpgen::{CoreError, ValidationError};

use crate::flags::FormatFlag;
use crate::input::{read_named, split_lines, Input};
use crate::UsageError;

/// Decide, as a server would, whether a request should be served, in mcpgen's check order
/// (parse, envelope, `_meta`, version, method, params: `mcpgen explain AMB-9`).
///
/// Exit 0 and print nothing when it should; otherwise exit 1 and print
/// `{"response": <JSON-RPC error response>, "httpStatus": N, "rule": "ID"}` (`mcpgen explain ID`
/// says what the rule is). --format json prints one object per request: `{"source", "valid",
/// "errors"}` plus `method` and `revision` when served, `response`, `httpStatus` and `rule` when
/// refused.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Protocol versions the server supports, preferred first (default: every revision of
    /// this build). A legacy version makes the server dual-era (legacy `initialize` accepted).
    #[arg(long, value_delimiter = ',', value_name = "V,V")]
    supported_versions: Option<Vec<String>>,
    /// Extensions the server serves (identifier or short name; repeatable): with `tasks`,
    /// `tasks/*` are served to requests that declare it and refused -32021 otherwise.
    #[arg(long = "extension", value_name = "NAME")]
    extensions: Vec<String>,
    /// Read the input as JSON Lines: check every non-blank line (refusals prefixed with
    /// FILE:LINE, a summary on stderr).
    #[arg(long)]
    jsonl: bool,
    #[command(flatten)]
    format: FormatFlag,
    /// Input file, or `-` for standard input.
    input: PathBuf,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let config = match args.supported_versions {
        None => ServerConfig::default(),
        Some(list) => {
            for v in &list {
                crate::flags::revision(v)?;
            }
            ServerConfig::new(list)
        }
    }
    .with_extensions(crate::flags::extensions(&args.extensions)?);
    let input = read_named(&args.input)?;
    check_all(&input, &config, args.jsonl, args.format.json())
}

/// The refusal object of the text output (unchanged for a single request).
fn refusal(e: &ProtocolError) -> Map {
    let mut out = Map::new();
    out.push("response", e.to_response());
    out.push("httpStatus", Value::Number(e.http_status.into()));
    out.push("rule", Value::String(e.rule.to_owned()));
    out
}

/// Every request of the input, judged.
fn check_all(input: &Input, config: &ServerConfig, jsonl: bool, json: bool) -> Result<ExitCode, UsageError> {
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let io = crate::output_error;
    let (mut total, mut refused) = (0usize, 0usize);
    for (line, bytes) in split_lines(&input.bytes, jsonl) {
        total += 1;
        let source = format!("{}:{line}", input.name);
        let checked = check_request(bytes, config);
        refused += usize::from(checked.is_err());
        if json {
            let mut m = Map::new();
            m.push("source", Value::String(source));
            m.push("valid", Value::Bool(checked.is_ok()));
            match &checked {
                Ok(a) => {
                    m.push("errors", Value::Array(Vec::new()));
                    m.push("method", Value::String(a.method.clone()));
                    m.push("revision", Value::String(a.revision.as_str().to_owned()));
                }
                Err(e) => {
                    m.push("errors", Value::Array(e.errors().iter().map(ValidationError::to_json).collect()));
                    for (k, v) in refusal(e) {
                        m.push(k, v);
                    }
                }
            }
            writeln!(stdout, "{}", Value::Object(m).to_json_string()).map_err(io)?;
        } else if let Err(e) = &checked {
            if jsonl {
                write!(stdout, "{source}: ").map_err(io)?;
            }
            writeln!(stdout, "{}", Value::Object(refusal(e)).to_json_string()).map_err(io)?;
        }
    }
    stdout.flush().map_err(io)?;
    if jsonl && !json {
        eprintln!(
            "{total} request{} checked: {} served, {refused} refused",
            if total == 1 { "" } else { "s" },
            total - refused
        );
    }
    Ok(if refused == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
