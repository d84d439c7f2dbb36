//! `mcpgen check-tool`: the tool schemas of a `Tool` or a `tools/list` result.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::input::read_input;
use crate::{output_error, UsageError};

/// Check tool schemas: a `Tool` object or a `tools/list` result (also inside a JSON-RPC
/// response). Reports every problem of every tool (dialect, meta-schema, `$ref`, cost
/// limits); never fetches anything.
///
/// Exit 0 when every tool is usable, 1 when any tool has a problem or the document is not a
/// tool document (not JSON, no `tools`), 2 on usage or I/O errors. A tool nesting deeper
/// than the JSON parser's limit (128 levels) is a tool problem (`too_deep`, JSCHEMA-8).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Input file, or `-` for standard input.
    input: PathBuf,
}

/// `mcpgen check-tool`: one line per tool, then one line per problem. A document that cannot
/// be checked (not JSON, or no tool document) is invalid input: exit 1 with the core's message
/// and the error's kind on stderr, whatever the variant; only usage and I/O errors exit 2.
pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let bytes = read_input(&args.input)?;
    let reports = match mcpgen::tools::check_tools_json(&bytes, &mcpgen::tools::SchemaOptions::default()) {
        Ok(reports) => reports,
        Err(e) => {
            eprintln!("{e} [{}]", e.kind());
            return Ok(ExitCode::from(1));
        }
    };
    let mut out = std::io::stdout().lock();
    let write_err = output_error;
    let mut bad = 0;
    for r in &reports {
        let at = if r.pointer().is_empty() { String::new() } else { format!(" ({})", r.pointer()) };
        if r.errors().is_empty() {
            writeln!(out, "ok    {}{at}", r.name()).map_err(write_err)?;
            continue;
        }
        bad += 1;
        writeln!(out, "FAIL  {}{at}: {} problem(s)", r.name(), r.errors().len()).map_err(write_err)?;
        for e in r.errors() {
            writeln!(out, "  {e}").map_err(write_err)?;
        }
    }
    writeln!(out, "{} tool(s), {} with problems", reports.len(), bad).map_err(write_err)?;
    Ok(if bad == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
