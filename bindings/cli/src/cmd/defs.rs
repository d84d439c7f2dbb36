//! `mcpgen defs`: the definitions of a revision.

use std::io::Write;
use std::process::ExitCode;

use crate::flags::RevisionFlag;
use crate::{output_error, UsageError};

/// List the definitions of a revision (name and summary).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    revision: RevisionFlag,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, UsageError> {
    let rev = args.revision.get()?;
    let mut out = std::io::stdout().lock();
    for d in rev.definitions() {
        writeln!(out, "{:<44} {}", d.name, d.summary).map_err(output_error)?;
    }
    Ok(ExitCode::SUCCESS)
}
