//! `cargo xtask diff FROM TO [--format markdown|json]`: what changed between two schema
//! revisions, classified by whom it breaks (`mcpgen_codegen::diff`).
//!
//! FROM and TO are pinned revision names, pinned extensions (`ext-tasks` or
//! `io.modelcontextprotocol/tasks`; both verified and patched with their errata ledger, as
//! `cargo xtask codegen` does) or paths to schema files (used as they are, without errata): so
//! an extension's next version is compared as `cargo xtask diff ext-tasks path/to/schema.json`.

use std::path::{Path, PathBuf};

use mcpgen_codegen::RevisionInput;

use crate::pins;
use crate::schema::{self, Local};
use crate::{codegen, mirror_from_env, read, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Markdown,
    Json,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old revision: a pinned revision name (e.g. 2025-11-25), a pinned extension
    /// (ext-tasks) or a schema file.
    from: String,
    /// The new revision: a pinned revision name, a pinned extension or a schema file.
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
    let pins = pins::load_pins(root)?;
    if let Some(pin) = pins.iter().find(|p| p.name == arg) {
        if let (Local::Missing, Some(mirror)) = (Local::read(root, pin)?, mirror_from_env()) {
            schema::pull_pins(root, &[pin], Some(&mirror))?;
        }
        let mut inputs = codegen::load_inputs(root, std::slice::from_ref(pin))?;
        return Ok(inputs.remove(0));
    }
    let exts = pins::load_extensions(root)?;
    if let Some(ext) = exts.iter().find(|e| e.key() == arg || e.id == arg) {
        if ext.file.iter().any(|f| schema::ext_file_missing(root, ext, f)) {
            if let Some(mirror) = mirror_from_env() {
                schema::pull_extensions(root, &[ext], Some(&mirror))?;
            }
        }
        let mut inputs = codegen::load_ext_inputs(root, std::slice::from_ref(ext))?;
        return Ok(inputs.remove(0).input);
    }
    let path = PathBuf::from(arg);
    if !path.is_file() {
        let mut names: Vec<String> = pins.iter().map(|p| p.name.clone()).collect();
        names.extend(exts.iter().map(|e| e.key()));
        return Err(format!("{arg} is neither a pinned revision ({}) nor a schema file", names.join(", ")));
    }
    let bytes = read(&path)?;
    Ok(RevisionInput {
        revision: arg.to_owned(),
        schema_sha256: pins::sha256_hex(&bytes),
        schema: bytes,
        ..RevisionInput::default()
    })
}

#[cfg(test)]
mod tests {
    use mcpgen_codegen::diff::{ChangeKind, RevisionDiff};

    use super::*;

    fn pinned(from: &str, to: &str) -> RevisionDiff {
        let root = crate::project_root();
        let (old, new) = (input(&root, from).unwrap(), input(&root, to).unwrap());
        mcpgen_codegen::diff::diff_inputs(&old, &new).unwrap_or_else(|d| panic!("{d}"))
    }

    fn has(d: &RevisionDiff, kind: ChangeKind, name: &str, path: &str) -> bool {
        d.changes.iter().any(|c| c.kind == kind && c.subject.name() == name && c.subject.path() == path)
    }

    /// An extension compares like a revision: with itself (nothing), and with the core
    /// revision whose tasks it replaced (2025-11-25 had tasks/list and tasks/result in core).
    #[test]
    fn extensions_are_compared_like_revisions() {
        assert!(pinned("ext-tasks", "io.modelcontextprotocol/tasks").changes.is_empty());
        let d = pinned("2025-11-25", "ext-tasks");
        assert!(has(&d, ChangeKind::MethodAdded, "tasks/update", ""), "{:#?}", d.changes);
        assert!(has(&d, ChangeKind::MethodRemoved, "tasks/list", ""));
        assert!(has(&d, ChangeKind::MethodRemoved, "tasks/result", ""));
    }

    #[test]
    fn a_revision_has_no_changes_from_itself() {
        let d = pinned("2026-07-28", "2026-07-28");
        assert!(d.changes.is_empty(), "{:#?}", d.changes);
    }

    /// The known 2025-11-25 → 2026-07-28 changes, found in the lowered models of the pinned schemas.
    #[test]
    fn the_known_changes_of_2026_07_28() {
        let d = pinned("2025-11-25", "2026-07-28");
        let initialize = d.changes.iter().find(|c| c.subject.name() == "initialize").expect("initialize");
        assert_eq!((initialize.kind, initialize.breaks.old_writers), (ChangeKind::MethodRemoved, true));
        assert!(has(&d, ChangeKind::MethodAdded, "server/discover", ""));
        for m in ["tasks/get", "tasks/list", "tasks/cancel", "tasks/result"] {
            assert!(has(&d, ChangeKind::MethodRemoved, m, ""), "{m}");
        }
        assert!(has(&d, ChangeKind::FieldAdded, "CallToolResult", "/resultType"));
        assert!(has(&d, ChangeKind::FieldRequired, "CallToolRequestParams", "/_meta"));
        let pv = "/_meta/io.modelcontextprotocol~1protocolVersion";
        let c = d.changes.iter().find(|c| c.subject.name() == "CallToolRequestParams" && c.subject.path() == pv);
        assert!(c.is_some_and(|c| c.kind == ChangeKind::FieldAdded && c.breaks.old_writers), "{c:?}");
        assert!(has(&d, ChangeKind::UnionArmAdded, "tools/call", "/result"));
    }
}
