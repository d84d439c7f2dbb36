//! mcpgen-codegen: schema → IR → emitted files.
//!
//! Data flow (one way): [`load`] parses a schema and applies the errata ledger,
//! [`ir::lower`] turns it into the validated intermediate model, and the emitters in
//! [`emit`] render the IR into an in-memory [`FileMap`]; [`rules`] does the same for the rules
//! catalogue. Nothing here touches the file system; `xtask` writes or compares the map.

pub mod diag;
pub mod diff;
pub mod emit;
pub mod errata;
pub mod ir;
pub mod load;
/// The runtime's JSON-pointer helper, the same source file: codegen must build before the
/// runtime (it writes the runtime's rule ids), so it includes the file instead of depending on
/// the crate.
#[path = "../../runtime/src/json/pointer.rs"]
#[allow(dead_code)]
mod pointer;
pub mod rules;
pub mod workspace;

use std::collections::BTreeMap;

pub use diag::{Diagnostic, Diagnostics};

/// One schema revision to generate.
#[derive(Debug, Clone, Default)]
pub struct RevisionInput {
    /// Revision name as the spec spells it, e.g. `2026-07-28`.
    pub revision: String,
    /// The raw bytes of `schema.json` (already verified against its pinned sha256).
    pub schema: Vec<u8>,
    /// Hex sha256 of `schema`, recorded in every generated file header.
    pub schema_sha256: String,
    /// The errata ledger for this revision (`schema/errata/<rev>.json`), if any.
    pub errata: Option<Vec<u8>>,
    /// The revision's `mcpgen_revision` value in the C library (`c_code` in
    /// `schema/sources.toml`). The workspace generation needs one per revision (codes 1..=N,
    /// each once) and refuses a missing or repeated code; one-revision generation ignores it.
    pub c_code: Option<u32>,
    /// Commit the revision diff report from this (pinned) revision to this one under `docs/`
    /// (`diff_report_from` in `schema/sources.toml`); workspace generation only.
    pub diff_report_from: Option<String>,
}

/// One pinned extension schema to generate (a `[[extension]]` of `schema/sources.toml`).
#[derive(Debug, Clone, Default)]
pub struct ExtensionInput {
    /// The extension identifier negotiated in `capabilities.extensions`
    /// (`io.modelcontextprotocol/tasks`).
    pub id: String,
    /// Short name: module `ext_<name>`, cargo feature `ext-<name>` (`tasks`).
    pub name: String,
    /// The core revision the extension layers on (`2026-07-28`); must be pinned.
    pub layers_on: String,
    /// Who sends each of the extension's methods, from its normative text (`[extension.directions]`
    /// in `schema/sources.toml`): an extension schema has no direction unions. Every method the
    /// extension adds must be in one list (both: either side may send it).
    pub client_to_server: Vec<String>,
    pub server_to_client: Vec<String>,
    /// The schema and its errata ledger (`revision` is `ext-<name>`; `c_code` and
    /// `diff_report_from` are unused).
    pub input: RevisionInput,
}

/// Generated files keyed by their path relative to the workspace root (or to the
/// `--out` directory), always with `/` separators. A duplicate path is a bug.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileMap {
    files: BTreeMap<String, String>,
}

impl FileMap {
    /// Adds a file; panics on a duplicate path because that is a generator bug, never input.
    pub fn insert(&mut self, path: impl Into<String>, contents: String) {
        let path = path.into();
        assert!(self.files.insert(path.clone(), contents).is_none(), "generator bug: two emitters produced {path}");
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
    pub fn get(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }
    pub fn len(&self) -> usize {
        self.files.len()
    }
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    pub fn extend(&mut self, other: FileMap) {
        for (k, v) in other.files {
            self.insert(k, v);
        }
    }
}

/// Generates the whole committed tree for all `revisions`: per-revision Rust modules under
/// `generated/src/rev_<rev>/`, plus the index module that wires them into the crate; and from
/// `rules` (the text of `schema/rules.toml`) the rules table and `docs/rules.md` ([`rules`]).
pub fn generate_workspace(revisions: &[RevisionInput], rules: &str) -> Result<FileMap, Diagnostics> {
    emit::workspace(revisions, &[], rules)
}

/// [`generate_workspace`] with the pinned extensions: each becomes module
/// `generated/src/ext_<name>/` (types, validators, serde, builders, its own method rows).
pub fn generate_workspace_with_extensions(
    revisions: &[RevisionInput],
    extensions: &[ExtensionInput],
    rules: &str,
) -> Result<FileMap, Diagnostics> {
    emit::workspace(revisions, extensions, rules)
}

/// Generates one revision's Rust module into `out_dir` (relative paths in the returned map are
/// `<out_dir>/<file>`). This is what `cargo xtask codegen --schema F --revision R --out D` runs.
pub fn generate_revision(rev: &RevisionInput, out_dir: &str) -> Result<FileMap, Diagnostics> {
    emit::revision_module(rev, out_dir)
}
