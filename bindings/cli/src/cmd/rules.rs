//! `mcpgen rules`: the rules catalogue.

use std::fmt::Write as _;
use std::process::ExitCode;

use mcpgen::rules::{Enforcement, Rule};

use crate::flags::FormatFlag;
use crate::{write_out, UsageError};

/// List the rules catalogue: every rule id mcpgen reports or documents, with its level and
/// summary, and whether mcpgen enforces it (docs/rules.md; `mcpgen explain ID` for one).
///
/// --format json prints one JSON array of {"id", "level", "summary", "source", "enforced"}.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    format: FormatFlag,
}

fn status(r: &Rule) -> &'static str {
    match r.enforcement {
        Enforcement::Enforced(_) => "enforced",
        Enforcement::NotEnforced(_) => "not enforced",
        Enforcement::Stateful(_) => "needs state",
    }
}

/// `mcpgen rules [--format json]`.
pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let json = args.format.json();
    let all = mcpgen::rules::catalogue();
    let s = if json {
        let list = mcpgen::Value::Array(all.iter().map(Rule::to_value).collect());
        format!("{}\n", mcpgen::json::to_json_string(&list))
    } else {
        let w_id = all.iter().map(|r| r.id.len()).max().unwrap_or(0);
        let w_level = all.iter().map(|r| r.level.as_str().len()).max().unwrap_or(0);
        let mut s = String::new();
        for r in all {
            let _ = writeln!(s, "{:<w_id$}  {:<w_level$}  {:<12}  {}", r.id, r.level.as_str(), status(r), r.summary);
        }
        s
    };
    write_out(&s)?;
    Ok(ExitCode::SUCCESS)
}
