//! The pins of `schema/sources.toml` and the few helpers every fetch uses: sha256, a download
//! with the system curl, an atomic write. A leaf module: [`crate::schema`] (the schemas) and
//! [`crate::examples`] (the official examples) both build on it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::{read, Result};

const DIALECTS: &[&str] = &["2020-12", "draft-07"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourcesFile {
    revision: Vec<Pin>,
    #[serde(default)]
    extension: Vec<ExtPin>,
}

/// One `[[extension]]` of `schema/sources.toml`: an extension schema pinned like a revision.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtPin {
    /// The extension identifier (`io.modelcontextprotocol/tasks`).
    pub id: String,
    /// Short name: cache `schema/ext-<name>/`, ledger `schema/errata/ext-<name>.json`,
    /// module `ext_<name>`.
    pub name: String,
    /// The pinned core revision the extension layers on.
    pub layers_on: String,
    /// JSON Schema dialect of its `schema.json`.
    pub dialect: String,
    /// Where a mirror holds the files, relative to the mirror root (`ext-tasks/draft`).
    pub mirror_dir: String,
    /// The extension's `mcpgen_extension` value in the C library: 1..=N over the pinned
    /// extensions, each once, never renumbered (the generator checks them).
    pub c_code: Option<u32>,
    /// The pinned files; one must be `schema.json`.
    pub file: Vec<ExtFile>,
    /// Who sends each method the extension adds (its schema has no direction unions).
    #[serde(default)]
    pub directions: ExtDirections,
}

/// `[extension.directions]`: the senders of the extension's methods, as its normative text says.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtDirections {
    /// Where the text says so (`tasks.md#…`).
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub client_to_server: Vec<String>,
    #[serde(default)]
    pub server_to_client: Vec<String>,
}

/// One pinned file of an extension.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtFile {
    /// File name in the cache and in the mirror directory (`schema.json`, `schema.ts`, `tasks.md`).
    pub name: String,
    /// Upstream URL at a fixed commit.
    pub url: String,
    /// Lowercase hex sha256 of the exact bytes.
    pub sha256: String,
}

impl ExtPin {
    /// `ext-<name>`: the extension's name in diagnostics, paths and the errata ledger.
    pub fn key(&self) -> String {
        format!("ext-{}", self.name)
    }
    /// `schema/ext-<name>/<file>`, relative to the workspace root.
    pub fn file_rel(&self, file: &str) -> String {
        format!("schema/{}/{file}", self.key())
    }
    /// `schema/errata/ext-<name>.json`.
    pub fn errata_rel(&self) -> String {
        format!("schema/errata/{}.json", self.key())
    }
    /// The pinned `schema.json`.
    pub fn schema(&self) -> &ExtFile {
        self.file.iter().find(|f| f.name == "schema.json").expect("checked by load_extensions")
    }
}

/// Reads and checks the `[[extension]]` entries of `schema/sources.toml`.
pub fn load_extensions(root: &Path) -> Result<Vec<ExtPin>> {
    let path = root.join("schema/sources.toml");
    let text = String::from_utf8(read(&path)?).map_err(|e| format!("{} is not UTF-8: {e}", path.display()))?;
    let sources: SourcesFile = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut errors = Vec::new();
    for (i, ext) in sources.extension.iter().enumerate() {
        let at = format!("schema/sources.toml: extension {:?}", ext.id);
        if let Err(e) = check_revision_name(&ext.name) {
            errors.push(format!("{at}: name: {e}"));
        }
        if sources.extension[..i].iter().any(|e| e.name == ext.name || e.id == ext.id) {
            errors.push(format!("{at}: pinned twice"));
        }
        if !sources.revision.iter().any(|r| r.name == ext.layers_on) {
            errors.push(format!("{at}: layers_on {:?} is not a pinned revision", ext.layers_on));
        }
        if !DIALECTS.contains(&ext.dialect.as_str()) {
            errors.push(format!("{at}: dialect must be one of {DIALECTS:?}, got {:?}", ext.dialect));
        }
        let d = &ext.directions;
        if (!d.client_to_server.is_empty() || !d.server_to_client.is_empty()) && d.source.trim().is_empty() {
            errors.push(format!(
                "{at}: [extension.directions] needs `source`: where the extension's text says who sends each method"
            ));
        }
        if ext.mirror_dir.split('/').any(|seg| seg.is_empty() || seg == "." || seg == "..") {
            errors.push(format!("{at}: mirror_dir {:?} must be a plain relative path", ext.mirror_dir));
        }
        if !ext.file.iter().any(|f| f.name == "schema.json") {
            errors.push(format!("{at}: needs a [[extension.file]] named schema.json"));
        }
        for (j, f) in ext.file.iter().enumerate() {
            if let Err(e) = check_revision_name(&f.name) {
                errors.push(format!("{at}: file {:?}: {e}", f.name));
            }
            if ext.file[..j].iter().any(|g| g.name == f.name) {
                errors.push(format!("{at}: file {:?} pinned twice", f.name));
            }
            if !is_sha256_hex(&f.sha256) {
                errors.push(format!("{at}: file {:?}: sha256 must be 64 lowercase hex digits", f.name));
            }
        }
    }
    if errors.is_empty() {
        Ok(sources.extension)
    } else {
        Err(errors.join("\n"))
    }
}

/// One `[[revision]]` of `schema/sources.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// Revision name as the spec spells it, e.g. `2026-07-28`.
    pub name: String,
    /// Upstream URL at a fixed commit.
    pub url: String,
    /// Lowercase hex sha256 of the exact bytes.
    pub sha256: String,
    /// JSON Schema dialect the file declares (`2020-12` or `draft-07`).
    pub dialect: String,
    /// The revision's `mcpgen_revision` value in the C library: 1..=N over the pinned
    /// revisions, each once, never renumbered (the generator checks them).
    pub c_code: Option<u32>,
    /// Commit `docs/revision-diff-<this>-to-<name>.md`, the diff from this pinned revision.
    #[serde(default)]
    pub diff_report_from: Option<String>,
}

impl Pin {
    /// `schema/<rev>/schema.json`, relative to the workspace root.
    pub fn schema_rel(&self) -> String {
        format!("schema/{}/schema.json", self.name)
    }

    /// `schema/errata/<rev>.json`, relative to the workspace root.
    pub fn errata_rel(&self) -> String {
        format!("schema/errata/{}.json", self.name)
    }
}

/// Reads and checks `schema/sources.toml`, keeping its order.
pub fn load_pins(root: &Path) -> Result<Vec<Pin>> {
    let path = root.join("schema/sources.toml");
    let text = String::from_utf8(read(&path)?).map_err(|e| format!("{} is not UTF-8: {e}", path.display()))?;
    let sources: SourcesFile = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;

    let mut errors = Vec::new();
    for (i, pin) in sources.revision.iter().enumerate() {
        let at = format!("schema/sources.toml: revision {:?}", pin.name);
        if let Err(e) = check_revision_name(&pin.name) {
            errors.push(format!("{at}: {e}"));
        }
        if sources.revision[..i].iter().any(|earlier| earlier.name == pin.name) {
            errors.push(format!("{at}: pinned twice"));
        }
        if !is_sha256_hex(&pin.sha256) {
            errors.push(format!("{at}: sha256 must be 64 lowercase hex digits, got {:?}", pin.sha256));
        }
        if !DIALECTS.contains(&pin.dialect.as_str()) {
            errors.push(format!("{at}: dialect must be one of {DIALECTS:?}, got {:?}", pin.dialect));
        }
    }
    if sources.revision.is_empty() {
        errors.push("schema/sources.toml pins no revision".to_owned());
    }
    if errors.is_empty() {
        Ok(sources.revision)
    } else {
        Err(errors.join("\n"))
    }
}

/// Revision names become path segments (`schema/<rev>/`), so keep them to a safe alphabet.
pub fn check_revision_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        Ok(())
    } else {
        Err(format!(
            "revision name {name:?} must start with a letter or digit and contain only letters, digits, '-', '_' and '.'"
        ))
    }
}

/// Whether `s` is a sha256 as `sources.toml` writes it: 64 lowercase hex digits.
fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Downloads `url` with the system curl: xtask carries no HTTP stack.
pub fn curl(url: &str) -> Result<Vec<u8>> {
    let hint = "to pull from a mirror directory instead, use --from DIR or MCPGEN_SCHEMA_MIRROR";
    let output = Command::new("curl")
        .args(["-fsSL", url])
        .output()
        .map_err(|e| format!("cannot run curl to download {url}: {e}\n  {hint}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("`curl -fsSL {url}` failed ({}): {}\n  {hint}", output.status, stderr.trim()));
    }
    Ok(output.stdout)
}

/// Writes next to `path` first, then renames, so an interrupted pull never leaves a partial
/// `schema.json` (or example) behind.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().expect("schema path has a parent");
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut tmp: PathBuf = path.to_path_buf();
    tmp.as_mut_os_string().push(".tmp");
    fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path)).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}
