//! `cargo xtask codegen`: pinned schemas + errata ledgers → `mcpgen_codegen` → files on disk.
//!
//! The generator only builds an in-memory [`FileMap`](mcpgen_codegen::FileMap);
//! [`ensure_files`] is the one place where generated output meets the disk, in write mode or
//! in check mode.

use std::collections::BTreeSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mcpgen_codegen::RevisionInput;

use crate::pins::{self, Pin};
use crate::schema::{self, Local};
use crate::{mirror_from_env, read, Result};

/// The command that brings generated files up to date; check mode ends with it.
const FIX_COMMAND: &str = "cargo xtask codegen";

/// Directories owned by the generator, as (parent, directory-name prefix): every file inside
/// `generated/` (crate `mcpgen-schema`) comes from the file map, so one the map no longer has
/// is stale. Files the map writes elsewhere are compared and written, but never deleted.
const GENERATED_DIRS: &[(&str, &str)] = &[
    ("generated", "src"),
    // The Python typing modules `mcpgen.rev_*` (one package directory per revision).
    ("bindings/python/python/mcpgen", "rev_"),
    // The Python typing modules `mcpgen.ext_*` (one package directory per extension).
    ("bindings/python/python/mcpgen", "ext_"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Write,
    Check,
}

/// `cargo xtask codegen [--check]`.
pub fn run(root: &Path, check: bool) -> Result<()> {
    let pins = pins::load_pins(root)?;
    // The main job works on a fresh checkout: missing schemas are pulled first, from
    // `$MCPGEN_SCHEMA_MIRROR` when it is set, else from their pinned URLs (sha256-checked).
    let mut missing = Vec::new();
    for pin in &pins {
        if let Local::Missing = Local::read(root, pin)? {
            missing.push(pin);
        }
    }
    if !missing.is_empty() {
        let mirror = mirror_from_env();
        match &mirror {
            Some(_) => println!("pulling {} missing schema file(s) from ${}", missing.len(), schema::MIRROR_ENV),
            None => println!("pulling {} missing schema file(s) from their pinned URLs", missing.len()),
        }
        schema::pull_pins(root, &missing, mirror.as_deref())?;
    }
    let exts = pins::load_extensions(root)?;
    let missing_exts: Vec<&pins::ExtPin> =
        exts.iter().filter(|e| e.file.iter().any(|f| schema::ext_file_missing(root, e, f))).collect();
    if !missing_exts.is_empty() {
        println!("pulling the files of {} extension(s)", missing_exts.len());
        schema::pull_extensions(root, &missing_exts, mirror_from_env().as_deref())?;
    }
    let mode = if check { Mode::Check } else { Mode::Write };
    generate_workspace(root, &pins, mode)
}

/// What `cargo xtask codegen --check` runs once the schemas are present, and what the
/// freshness test and `cargo xtask test` call. Never pulls, never writes.
pub fn check(root: &Path) -> Result<()> {
    generate_workspace(root, &pins::load_pins(root)?, Mode::Check)
}

fn generate_workspace(root: &Path, pins: &[Pin], mode: Mode) -> Result<()> {
    let inputs = load_inputs(root, pins)?;
    let extensions = load_ext_inputs(root, &pins::load_extensions(root)?)?;
    let rules = load_rules(root)?;
    let start = Instant::now();
    let files = mcpgen_codegen::generate_workspace_with_extensions(&inputs, &extensions, &rules)
        .map_err(|diagnostics| format!("code generation failed:\n{diagnostics}"))?;
    println!("generated {} files from {} revisions in {:.2?}", files.len(), inputs.len(), start.elapsed());
    let files: Vec<(&str, &str)> = files.iter().collect();
    ensure_files(root, &files, GENERATED_DIRS, mode)
}

/// The rules catalogue's data file (`schema/rules.toml`).
fn load_rules(root: &Path) -> Result<String> {
    let rel = mcpgen_codegen::rules::RULES_FILE;
    fs::read_to_string(root.join(rel)).map_err(|e| format!("cannot read {rel}: {e}"))
}

/// Every pinned revision, verified against its pin, with its errata ledger.
pub(crate) fn load_inputs(root: &Path, pins: &[Pin]) -> Result<Vec<RevisionInput>> {
    let schemas = schema::read_verified(root, pins)?;
    pins.iter()
        .zip(schemas)
        .map(|(pin, schema)| {
            let errata_rel = pin.errata_rel();
            let errata = fs::read(root.join(&errata_rel)).map_err(|e| {
                format!(
                    "cannot read {errata_rel}: {e}; every pinned revision needs an errata ledger \
                     ({{\"revision\": \"{}\", \"errata\": []}} when it has no known defect)",
                    pin.name
                )
            })?;
            Ok(RevisionInput {
                revision: pin.name.clone(),
                schema,
                schema_sha256: pin.sha256.clone(),
                errata: Some(errata),
                c_code: pin.c_code,
                diff_report_from: pin.diff_report_from.clone(),
            })
        })
        .collect()
}

/// Every pinned extension, verified against its pins, with its errata ledger.
pub(crate) fn load_ext_inputs(root: &Path, exts: &[pins::ExtPin]) -> Result<Vec<mcpgen_codegen::ExtensionInput>> {
    let schemas = schema::read_verified_extensions(root, exts)?;
    exts.iter()
        .zip(schemas)
        .map(|(ext, schema)| {
            let errata_rel = ext.errata_rel();
            let errata = fs::read(root.join(&errata_rel)).map_err(|e| {
                format!(
                    "cannot read {errata_rel}: {e}; every pinned extension needs an errata ledger \
                     ({{\"revision\": \"{}\", \"errata\": []}} when it has no known defect)",
                    ext.key()
                )
            })?;
            Ok(mcpgen_codegen::ExtensionInput {
                id: ext.id.clone(),
                name: ext.name.clone(),
                layers_on: ext.layers_on.clone(),
                client_to_server: ext.directions.client_to_server.clone(),
                server_to_client: ext.directions.server_to_client.clone(),
                input: RevisionInput {
                    revision: ext.key(),
                    schema,
                    schema_sha256: ext.schema().sha256.clone(),
                    errata: Some(errata),
                    c_code: ext.c_code,
                    diff_report_from: None,
                },
            })
        })
        .collect()
}

/// `cargo xtask codegen --schema FILE --revision NAME --out DIR [--errata FILE]`: one revision
/// from any schema file, written under `out`. Nothing there is deleted.
pub fn generate_one(schema_path: &Path, revision: &str, out: &Path, errata_path: Option<&Path>) -> Result<()> {
    pins::check_revision_name(revision)?;
    let out_dir =
        out.to_str().ok_or_else(|| format!("--out {} is not valid UTF-8", out.display()))?.trim_end_matches('/');
    if out_dir.is_empty() {
        return Err("--out must name a directory".to_owned());
    }
    let schema = read(schema_path)?;
    let input = RevisionInput {
        revision: revision.to_owned(),
        schema_sha256: pins::sha256_hex(&schema),
        schema,
        errata: errata_path.map(read).transpose()?,
        ..RevisionInput::default()
    };

    let start = Instant::now();
    let files = mcpgen_codegen::generate_revision(&input, out_dir)
        .map_err(|diagnostics| format!("code generation failed:\n{diagnostics}"))?;
    println!(
        "generated {} files for revision {revision} in {:.2?}, writing into {out_dir}/",
        files.len(),
        start.elapsed()
    );

    // The map's paths start with `out_dir/`; make them relative to `out` for `ensure_files`.
    let prefix = format!("{out_dir}/");
    let files = files
        .iter()
        .map(|(path, contents)| match path.strip_prefix(&prefix) {
            Some(rel) => Ok((rel, contents)),
            None => Err(format!("generator bug: {path} is outside the --out directory {out_dir}")),
        })
        .collect::<Result<Vec<_>>>()?;
    ensure_files(Path::new(out_dir), &files, &[], Mode::Write)
}

/// Brings the files under `root` in line with `files` (paths relative to `root`, `/`-separated).
/// Every generator's output goes through here, as rust-analyzer's `ensure_file_contents` does.
///
/// - Write mode rewrites each file whose bytes differ and deletes files inside `owned_dirs`
///   that `files` does not contain (then any directory left empty there), saying which.
/// - Check mode touches nothing; it fails with one line per stale, missing or extra file and
///   the command that fixes them.
pub fn ensure_files(root: &Path, files: &[(&str, &str)], owned_dirs: &[(&str, &str)], mode: Mode) -> Result<()> {
    let mut problems = Vec::new();
    let (mut unchanged, mut updated, mut deleted) = (0, 0, 0);

    for &(rel, contents) in files {
        let path = root.join(checked_relative(rel)?);
        let current = match fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        if current.as_deref() == Some(contents.as_bytes()) {
            unchanged += 1;
            continue;
        }
        match mode {
            Mode::Check => {
                let what = if current.is_some() { "stale" } else { "missing" };
                problems.push(format!("{what}: {rel}"));
            }
            Mode::Write => {
                let dir = path.parent().expect("joined path has a parent");
                fs::create_dir_all(dir)
                    .and_then(|()| fs::write(&path, contents))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                println!("updated {rel}");
                updated += 1;
            }
        }
    }

    let wanted: BTreeSet<&str> = files.iter().map(|&(rel, _)| rel).collect();
    let owned = OwnedTree::scan(root, owned_dirs)?;
    for (rel, path) in &owned.files {
        if wanted.contains(rel.as_str()) {
            continue;
        }
        match mode {
            Mode::Check => problems.push(format!("extra: {rel}")),
            Mode::Write => {
                fs::remove_file(path).map_err(|e| format!("cannot delete {}: {e}", path.display()))?;
                println!("deleted {rel}");
                deleted += 1;
            }
        }
    }

    match mode {
        Mode::Check if problems.is_empty() => {
            println!("{unchanged} generated files are fresh");
            Ok(())
        }
        Mode::Check => Err(format!(
            "generated files are out of date:\n  {}\nrun `{FIX_COMMAND}` to update them",
            problems.join("\n  ")
        )),
        Mode::Write => {
            owned.remove_empty_dirs()?;
            println!("{unchanged} files unchanged, {updated} updated, {deleted} deleted");
            Ok(())
        }
    }
}

/// A generated path must stay below the root it is written to.
fn checked_relative(rel: &str) -> Result<&Path> {
    let ok =
        !rel.is_empty() && !rel.contains('\\') && rel.split('/').all(|segment| !matches!(segment, "" | "." | ".."));
    if ok {
        Ok(Path::new(rel))
    } else {
        Err(format!("generator bug: {rel:?} is not a clean relative path"))
    }
}

/// What is on disk inside the generator-owned directories.
struct OwnedTree {
    /// Every non-directory entry (symlinks are not followed), as (`/`-path relative to root, path).
    files: Vec<(String, PathBuf)>,
    /// Every directory, children before parents.
    dirs: Vec<PathBuf>,
}

impl OwnedTree {
    fn scan(root: &Path, owned_dirs: &[(&str, &str)]) -> Result<OwnedTree> {
        let mut tree = OwnedTree { files: Vec::new(), dirs: Vec::new() };
        for &(parent, prefix) in owned_dirs {
            for (name, path) in list_dir(&root.join(parent))? {
                if name.starts_with(prefix) && is_real_dir(&path)? {
                    tree.walk(&format!("{parent}/{name}"), &path)?;
                }
            }
        }
        Ok(tree)
    }

    fn walk(&mut self, rel: &str, dir: &Path) -> Result<()> {
        for (name, path) in list_dir(dir)? {
            // Python's bytecode cache beside the generated modules is not generator output.
            if name == "__pycache__" {
                continue;
            }
            let child_rel = format!("{rel}/{name}");
            if is_real_dir(&path)? {
                self.walk(&child_rel, &path)?;
            } else {
                self.files.push((child_rel, path));
            }
        }
        self.dirs.push(dir.to_path_buf());
        Ok(())
    }

    fn remove_empty_dirs(&self) -> Result<()> {
        for dir in &self.dirs {
            let empty = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?.next().is_none();
            if empty {
                fs::remove_dir(dir).map_err(|e| format!("cannot delete {}: {e}", dir.display()))?;
            }
        }
        Ok(())
    }
}

/// Entries of `dir` sorted by name; a missing directory has none.
fn list_dir(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut list = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        list.push((entry.file_name().to_string_lossy().into_owned(), entry.path()));
    }
    list.sort();
    Ok(list)
}

fn is_real_dir(path: &Path) -> Result<bool> {
    fs::symlink_metadata(path).map(|meta| meta.is_dir()).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test` catches drift: the same check as `cargo xtask codegen --check`. Missing
    /// schemas are a failure that says how to pull them, never a skip.
    #[test]
    fn generated_files_are_fresh() {
        if let Err(message) = check(&crate::project_root()) {
            panic!("{message}");
        }
    }

    /// Two generations from the same inputs produce identical bytes.
    #[test]
    fn generation_is_deterministic() {
        let root = crate::project_root();
        let pins = pins::load_pins(&root).unwrap();
        let inputs = load_inputs(&root, &pins).unwrap_or_else(|e| panic!("{e}"));
        let rules = load_rules(&root).unwrap();
        let a = mcpgen_codegen::generate_workspace(&inputs, &rules).unwrap();
        let b = mcpgen_codegen::generate_workspace(&inputs, &rules).unwrap();
        assert!(!a.is_empty());
        assert!(a == b, "two runs of the generator disagree");
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn ensure_files_checks_writes_and_deletes_only_in_owned_dirs() {
        let root = temp_dir("ensure-files");
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        write("gen/src/rev_a/fresh.rs", "fresh");
        write("gen/src/rev_a/stale.rs", "old");
        write("gen/src/rev_a/nested/extra.rs", "gone");
        write("gen/src/rev_old/extra.rs", "gone");
        write("gen/src/runtime.rs", "hand-written, not owned");
        let files = [
            ("gen/src/rev_a/fresh.rs", "fresh"),
            ("gen/src/rev_a/stale.rs", "new"),
            ("gen/src/rev_a/missing.rs", "new"),
            ("gen/index.rs", "outside owned dirs"),
        ];
        let owned = [("gen/src", "rev_")];

        let err = ensure_files(&root, &files, &owned, Mode::Check).unwrap_err();
        assert_eq!(
            err,
            "generated files are out of date:\n  stale: gen/src/rev_a/stale.rs\n  \
             missing: gen/src/rev_a/missing.rs\n  missing: gen/index.rs\n  \
             extra: gen/src/rev_a/nested/extra.rs\n  extra: gen/src/rev_old/extra.rs\n\
             run `cargo xtask codegen` to update them"
        );
        assert_eq!(fs::read_to_string(root.join("gen/src/rev_a/stale.rs")).unwrap(), "old");

        ensure_files(&root, &files, &owned, Mode::Write).unwrap();
        ensure_files(&root, &files, &owned, Mode::Check).unwrap();
        assert_eq!(fs::read_to_string(root.join("gen/src/rev_a/stale.rs")).unwrap(), "new");
        assert!(!root.join("gen/src/rev_a/nested").exists());
        assert!(!root.join("gen/src/rev_old").exists());
        assert!(root.join("gen/src/runtime.rs").exists());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn generated_paths_must_stay_below_the_root() {
        for bad in ["", "/etc/passwd", "a/../../b", "a//b", "./a", "a\\b"] {
            assert!(checked_relative(bad).is_err(), "{bad:?} accepted");
        }
        assert!(checked_relative("generated/src/rev_x/mod.rs").is_ok());
    }
}
