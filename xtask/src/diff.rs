//! `cargo xtask diff FROM TO [--format markdown|json]`: what changed between two schema
//! revisions, classified by whom it breaks (`mcpgen_codegen::diff`).
//!
//! FROM and TO are pinned revision names (verified and patched with their errata ledger, as
//! `cargo xtask codegen` does) or paths to schema files (used as they are, without errata).

use std::path::{Path, PathBuf};

use mcpgen_codegen::RevisionInput;

use crate::schema::{self, Local};
use crate::{codegen, mirror_from_env, read, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Markdown,
    Json,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old revision: a pinned revision name (e.g. 2025-11-25) or a schema file.
    from: String,
    /// The new revision: a pinned revision name or a schema file.
    to: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    format: Format,
}

/// `cargo xtask diff`: prints the report on stdout.
pub fn run(root: &Path, args: &DiffArgs) -> Result<()> {
    let old = input(root, &args.from)?;
    let new = input(root, &args.to)?;
    let diff = mcpgen_codegen::diff::diff_inputs(&old, &new)
        .map_err(|diagnostics| format!("cannot lower the schemas:\n{diagnostics}"))?;
    let text = match args.format {
        Format::Markdown => diff.to_markdown(),
        Format::Json => diff.to_json_string(),
    };
    print!("{text}");
    Ok(())
}

/// A pinned revision by name, else a schema file by path.
fn input(root: &Path, arg: &str) -> Result<RevisionInput> {
    let pins = schema::load_pins(root)?;
    if let Some(pin) = pins.iter().find(|p| p.name == arg) {
        if let (Local::Missing, Some(mirror)) = (Local::read(root, pin)?, mirror_from_env()) {
            schema::pull_pins(root, &[pin], Some(&mirror))?;
        }
        let mut inputs = codegen::load_inputs(root, std::slice::from_ref(pin))?;
        return Ok(inputs.remove(0));
    }
    let path = PathBuf::from(arg);
    if !path.is_file() {
        let names: Vec<&str> = pins.iter().map(|p| p.name.as_str()).collect();
        return Err(format!("{arg} is neither a pinned revision ({}) nor a schema file", names.join(", ")));
    }
    let bytes = read(&path)?;
    Ok(RevisionInput {
        revision: arg.to_owned(),
        schema_sha256: schema::sha256_hex(&bytes),
        schema: bytes,
        errata: None,
    })
}
