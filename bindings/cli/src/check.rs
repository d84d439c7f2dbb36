//! `mcpgen check-request`: one request, or one per line (`--jsonl`), as text or JSON objects.

use std::io::Write;
use std::process::ExitCode;

use mcpgen::json::{Map, Value};
use mcpgen::protocol::{check_request, ProtocolError, ServerConfig};
use mcpgen::{CoreError, ValidationError};

use crate::validate::split_lines;
use crate::{Input, UsageError};

/// The refusal object of the text output (unchanged for a single request).
fn refusal(e: &ProtocolError) -> Map {
    let mut out = Map::new();
    out.push("response", e.to_response());
    out.push("httpStatus", Value::Number(e.http_status.into()));
    out.push("rule", Value::String(e.rule.to_owned()));
    out
}

pub fn run(input: &Input, config: &ServerConfig, jsonl: bool, json: bool) -> Result<ExitCode, UsageError> {
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
