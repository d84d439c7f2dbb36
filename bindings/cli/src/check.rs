//! `mcpgen check-request`.

use std::io::Write;
use std::process::ExitCode;

use mcpgen::json::{Map, Value};
use mcpgen::protocol::{check_request, ServerConfig};

use crate::UsageError;

pub fn run(bytes: &[u8], config: &ServerConfig) -> Result<ExitCode, UsageError> {
    let Err(e) = check_request(bytes, config) else { return Ok(ExitCode::SUCCESS) };
    let mut out = Map::new();
    out.push("response", e.to_response());
    out.push("httpStatus", Value::Number(e.http_status.into()));
    out.push("rule", Value::String(e.rule.to_owned()));
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", Value::Object(out).to_json_string())
        .map_err(|e| UsageError(format!("cannot write output: {e}")))?;
    Ok(ExitCode::from(1))
}
