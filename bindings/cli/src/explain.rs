//! `mcpgen explain`.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use mcpgen::methods::{Direction, MethodInfo, MethodKind};
use mcpgen::Revision;

use crate::UsageError;

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::ClientToServer => "client → server",
        Direction::ServerToClient => "server → client",
        Direction::Both => "either direction",
        Direction::EmbeddedInput => "embedded input request (inside InputRequiredResult.inputRequests)",
        Direction::Unspecified => "direction unspecified",
    }
}

fn method_row(m: &MethodInfo) -> String {
    let kind = if m.kind == MethodKind::Request { "request" } else { "notification" };
    let mut s = format!("  {} — {kind}, {}\n", m.method, direction(m.direction));
    let _ = writeln!(s, "    definition: {}", m.request_def);
    if let Some(p) = m.params_type {
        let _ = writeln!(s, "    params:     {p}{}", if m.params_required { " (required)" } else { " (optional)" });
    }
    if !m.result_defs.is_empty() {
        let _ = writeln!(s, "    results:    {}", m.result_defs.join(", "));
    }
    if m.input_required {
        let _ = writeln!(s, "    may answer `input_required` (MRTR)");
    }
    s
}

pub fn run(rev: Revision, name: &str) -> Result<ExitCode, UsageError> {
    let by_method = rev.methods().iter().find(|m| m.method == name);
    let def_name = by_method.map(|m| m.request_def).unwrap_or(name);
    let def = mcpgen::definition(rev, def_name).map_err(|_| {
        UsageError(format!(
            "revision {rev} has no definition or method named `{name}` (see `mcpgen defs --revision {rev}`)"
        ))
    })?;
    let mut s = String::new();
    let _ = writeln!(s, "{} ({rev})  {}", def.name, def.schema_path);
    if !def.summary.is_empty() {
        let _ = writeln!(s, "{}", def.summary);
    }
    if def.variants.is_empty() {
        let _ = writeln!(s, "\nType: {}", def.type_desc);
    }
    if !def.fields.is_empty() {
        let _ = writeln!(s, "\nFields:");
        let w_name = def.fields.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
        let w_ty = def.fields.iter().map(|f| f.type_desc.chars().count()).max().unwrap_or(0).min(48);
        for f in def.fields {
            let req = if f.required { "required" } else { "optional" };
            let line = format!("  {:<w_name$}  {:<w_ty$}  {req}  {}", f.name, f.type_desc, f.summary);
            let _ = writeln!(s, "{}", line.trim_end());
        }
    }
    if !def.variants.is_empty() {
        let _ = writeln!(s, "\nOne of:");
        for v in def.variants {
            let _ = writeln!(s, "  {v}");
        }
    }
    let rows: Vec<&MethodInfo> = rev.methods().iter().filter(|m| m.request_def == def.name).collect();
    if !rows.is_empty() {
        let _ = writeln!(s, "\nMethod:");
        for m in rows {
            s.push_str(&method_row(m));
        }
    }
    let answers: Vec<&str> =
        rev.methods().iter().filter(|m| m.result_defs.contains(&def.name)).map(|m| m.method).collect();
    if !answers.is_empty() {
        let _ = writeln!(s, "\nResult of: {}", answers.join(", "));
    }
    std::io::stdout().lock().write_all(s.as_bytes()).map_err(|e| UsageError(format!("cannot write output: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
