//! `mcpgen explain`: a definition, a method or a rule id.

use std::fmt::Write as _;
use std::process::ExitCode;

use mcpgen::methods::{Direction, MethodInfo, MethodKind};
use mcpgen::Revision;

use crate::flags::RevisionFlag;
use crate::suggest::{definitions, did_you_mean, methods};
use crate::{write_out, UsageError};

/// Show a definition: summary, schema path, fields (name, type, required) and, for
/// methods, the method-table row. DEF may also be a method name (`tools/call`), or a rule
/// id (`META-6`): then the rule's level, summary, source and what mcpgen does about it.
///
/// Exit 2 for an unknown definition, method or rule id.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    revision: RevisionFlag,
    /// Definition name (`CallToolRequest`), method (`tools/call`) or rule id (`META-6`).
    def: String,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    if let Some(code) = rule(&args.def)? {
        return Ok(code);
    }
    explain_definition(args.revision.get()?, &args.def)
}

/// Shaped like a rule id: `FAMILY-N` (`META-6`, `meta-6`) or an upper-case word, possibly
/// hyphenated (`SCHEMA`, `POLICY-STRICT`). Definition names are mixed-case, methods lower-case
/// with a `/`.
fn rule_shaped(s: &str) -> bool {
    let letters = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphabetic());
    let one_case = s.bytes().all(|b| !b.is_ascii_lowercase()) || s.bytes().all(|b| !b.is_ascii_uppercase());
    let mut parts = s.split('-');
    let family = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    one_case
        && letters(family)
        && match rest.as_slice() {
            [] => s.bytes().all(|b| b.is_ascii_uppercase()),
            [n] if n.bytes().all(|b| b.is_ascii_digit()) => !n.is_empty(),
            words => words.iter().all(|w| letters(w)),
        }
}

/// `mcpgen explain RULE-ID`: `Some(exit code)` when `name` is a rule id, `None` when it is not
/// shaped like one (a definition or method then); an unknown rule-shaped id is a usage error.
fn rule(name: &str) -> Result<Option<ExitCode>, UsageError> {
    let Some(rule) = mcpgen::rules::lookup(name) else {
        if rule_shaped(name) {
            let hint = did_you_mean(name, mcpgen::rules::catalogue().iter().map(|r| r.id));
            return Err(UsageError(format!(
                "`{name}` is not a rule id of the catalogue{hint} (see `mcpgen rules`, or docs/rules.md)"
            )));
        }
        return Ok(None);
    };
    write_out(&format!("{rule}\n"))?;
    Ok(Some(ExitCode::SUCCESS))
}

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

/// `mcpgen explain DEF` for a definition or method name.
fn explain_definition(rev: Revision, name: &str) -> Result<ExitCode, UsageError> {
    let by_method = rev.methods().iter().find(|m| m.method == name);
    let def_name = by_method.map(|m| m.request_def).unwrap_or(name);
    let def = mcpgen::definition(rev, def_name).map_err(|_| {
        let hint = did_you_mean(name, definitions(rev).chain(methods(rev)));
        UsageError(format!(
            "revision {rev} has no definition or method named `{name}`{hint} (see `mcpgen defs --revision {rev}`)"
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
    write_out(&s)?;
    Ok(ExitCode::SUCCESS)
}
