//! What the integration tests share: where the workspace and the official examples are.

// Each test crate compiles this module and uses a subset of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The git-ignored cache that `cargo xtask schema pull` fills; a missing cache is an error that
/// says how to fill it, never a skip.
pub fn examples_dir() -> Result<PathBuf, String> {
    let examples = workspace().join("schema/2026-07-28/examples");
    if examples.is_dir() {
        Ok(examples)
    } else {
        Err(format!(
            "official examples not found at {}; run `cargo xtask schema pull` (add --from DIR for a mirror)",
            examples.display()
        ))
    }
}

/// Every official example as (definition name, path), sorted by definition, then file name.
pub fn example_files() -> Result<Vec<(String, PathBuf)>, String> {
    let dir = examples_dir()?;
    let mut out = Vec::new();
    for def in sorted_entries(&dir)? {
        let name = def.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        out.extend(sorted_entries(&def)?.into_iter().filter(|f| is_json(f)).map(|f| (name.clone(), f)));
    }
    Ok(out)
}

/// The official examples expected to fail `check` (`decode` or `protocol`), from
/// `vectors/official-examples.json` (the one list every surface reads): `("<Def>/<name>", reason)`.
pub fn expected_example_failures(check: &str) -> Vec<(String, String)> {
    let path = workspace().join("vectors/official-examples.json");
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: serde_json::Value = serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list = file["expected_failures"][check]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no list expected_failures.{check}", path.display()));
    list.iter()
        .map(|entry| {
            let field = |name: &str| {
                entry[name].as_str().map(str::to_owned).unwrap_or_else(|| {
                    panic!("{}: an expected_failures.{check} entry lacks the string `{name}`", path.display())
                })
            };
            (field("example"), field("reason"))
        })
        .collect()
}

/// The `*.json` files of `vectors/<dir>`, sorted; an empty or missing directory fails the run.
pub fn vector_files(dir: &str) -> Vec<PathBuf> {
    let vdir = workspace().join("vectors").join(dir);
    let files: Vec<PathBuf> =
        sorted_entries(&vdir).unwrap_or_else(|e| panic!("{e}")).into_iter().filter(|p| is_json(p)).collect();
    assert!(!files.is_empty(), "no vectors in {}", vdir.display());
    files
}

fn is_json(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "json")
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    paths.sort();
    Ok(paths)
}

/// A conversation vector: `vectors/conversations/<name>.jsonl` and its `<name>.expect.json`.
pub struct ConversationVector {
    pub name: String,
    pub jsonl: PathBuf,
    pub expect: PathBuf,
}

/// Every conversation vector, sorted by name; a `.jsonl` without its `.expect.json` (or the
/// other way round), or an empty directory, fails the run.
pub fn conversation_vectors() -> Vec<ConversationVector> {
    let dir = workspace().join("vectors/conversations");
    let files = sorted_entries(&dir).unwrap_or_else(|e| panic!("{e}"));
    let name_of = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out = Vec::new();
    for f in &files {
        let file = name_of(f);
        if let Some(stem) = file.strip_suffix(".jsonl") {
            let expect = dir.join(format!("{stem}.expect.json"));
            assert!(expect.is_file(), "{} has no {stem}.expect.json", f.display());
            out.push(ConversationVector { name: stem.to_owned(), jsonl: f.clone(), expect });
        } else if let Some(stem) = file.strip_suffix(".expect.json") {
            assert!(dir.join(format!("{stem}.jsonl")).is_file(), "{} has no {stem}.jsonl", f.display());
        } else if file != "README.md" {
            panic!("unexpected file {} in vectors/conversations", f.display());
        }
    }
    assert!(!out.is_empty(), "no vectors in {}", dir.display());
    out
}
