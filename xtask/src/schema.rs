//! Schema pins: `schema/sources.toml`, and pulling and verifying `schema/<rev>/schema.json`
//! and, through [`crate::examples`], the official examples `schema/<rev>/examples/`.
//!
//! A revision is pinned by the sha256 of its bytes, never by its name alone: upstream has
//! re-published files under an unchanged revision name. Bytes that do not match the pin are
//! never written, and a present file that does not match is an error for every command.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::examples::{self, Source, MANIFEST_REL};
use crate::{mirror_from_env, read, Result};

/// Environment variable naming a mirror directory laid out as upstream's `schema/` folder:
/// `<mirror>/<rev>/schema.json`, `<mirror>/<rev>/examples/<Def>/<name>.json`.
pub const MIRROR_ENV: &str = "MCPGEN_SCHEMA_MIRROR";
const PULL_HINT: &str = "run `cargo xtask schema pull` (or set MCPGEN_SCHEMA_MIRROR to a mirror directory)";
const DIALECTS: &[&str] = &["2020-12", "draft-07"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourcesFile {
    revision: Vec<Pin>,
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

/// What is on disk for a pinned revision.
pub enum Local {
    Missing,
    Present { bytes: Vec<u8>, sha256: String },
}

impl Local {
    pub fn read(root: &Path, pin: &Pin) -> Result<Local> {
        let path = root.join(pin.schema_rel());
        match fs::read(&path) {
            Ok(bytes) => Ok(Local::Present { sha256: sha256_hex(&bytes), bytes }),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(Local::Missing),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
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
        if pin.sha256.len() != 64 || !pin.sha256.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
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

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The pinned bytes of every revision, in `sources.toml` order. Missing or mismatching files
/// are reported together.
pub fn read_verified(root: &Path, pins: &[Pin]) -> Result<Vec<Vec<u8>>> {
    let mut schemas = Vec::new();
    let mut missing = Vec::new();
    let mut mismatched = Vec::new();
    for pin in pins {
        match Local::read(root, pin)? {
            Local::Missing => missing.push(pin.schema_rel()),
            Local::Present { sha256, .. } if sha256 != pin.sha256 => mismatched.push(format!(
                "{} has sha256 {sha256}, but schema/sources.toml pins {} for revision {}",
                pin.schema_rel(),
                pin.sha256,
                pin.name
            )),
            Local::Present { bytes, .. } => schemas.push(bytes),
        }
    }
    let mut errors = mismatched;
    if !missing.is_empty() {
        errors.push(format!("schema files missing: {}", missing.join(", ")));
    }
    if errors.is_empty() {
        Ok(schemas)
    } else {
        errors.push(format!("to fetch the pinned files, {PULL_HINT}"));
        Err(errors.join("\n"))
    }
}

/// `cargo xtask schema pull`: the schemas and the official examples of the selected revisions.
pub fn pull(root: &Path, from: Option<&Path>, only: &[String]) -> Result<()> {
    let pins = load_pins(root)?;
    for name in only {
        if !pins.iter().any(|pin| &pin.name == name) {
            let known: Vec<&str> = pins.iter().map(|pin| pin.name.as_str()).collect();
            return Err(format!(
                "revision {name:?} is not pinned in schema/sources.toml (pinned: {})",
                known.join(", ")
            ));
        }
    }
    let selected: Vec<&Pin> = pins.iter().filter(|pin| only.is_empty() || only.contains(&pin.name)).collect();
    let mirror = from.map(Path::to_path_buf).or_else(mirror_from_env);
    pull_inputs(root, &pins, &selected, mirror.as_deref())
}

/// Fills `schema/<rev>/schema.json` and `schema/<rev>/examples/` for the `selected` revisions
/// from `mirror`, or from the pinned URLs when there is none; both are tried, their failures
/// reported together.
pub fn pull_inputs(root: &Path, pins: &[Pin], selected: &[&Pin], mirror: Option<&Path>) -> Result<()> {
    let manifest = examples::load(root, pins)?;
    let schemas = pull_pins(root, selected, mirror);
    let revisions: Vec<&str> = selected.iter().map(|pin| pin.name.as_str()).collect();
    let wanted: Vec<&str> = manifest.revisions().into_iter().filter(|rev| revisions.contains(rev)).collect();
    let examples = if wanted.is_empty() {
        Ok(())
    } else {
        let source = match mirror {
            Some(dir) => Source::Mirror(dir),
            None => Source::Upstream,
        };
        examples::pull(root, &manifest, &wanted, source).map(drop)
    };
    match (schemas, examples) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
        (Err(a), Err(b)) => Err(format!("{a}\n{b}")),
    }
}

/// Fills `schema/<rev>/schema.json` for `pins` from `mirror` (`<mirror>/<rev>/schema.json`), or
/// from the pinned URL when there is no mirror. Every revision is tried; failures are reported
/// together, and only bytes with the pinned sha256 are ever written.
pub fn pull_pins(root: &Path, pins: &[&Pin], mirror: Option<&Path>) -> Result<()> {
    let errors: Vec<String> = pins
        .iter()
        .filter_map(|pin| match pull_one(root, pin, mirror) {
            Ok(done) => {
                println!("{}: {done}", pin.name);
                None
            }
            Err(e) => Some(e),
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

fn pull_one(root: &Path, pin: &Pin, mirror: Option<&Path>) -> Result<String> {
    let dest_rel = pin.schema_rel();
    if let Local::Present { sha256, .. } = Local::read(root, pin)? {
        if sha256 == pin.sha256 {
            return Ok(format!("{dest_rel} already present with the pinned sha256, left alone"));
        }
        println!("{}: {dest_rel} has sha256 {sha256}, not the pinned {}; fetching it again", pin.name, pin.sha256);
    }

    let (bytes, source) = match mirror {
        Some(dir) => {
            let path = dir.join(&pin.name).join("schema.json");
            let bytes = read(&path).map_err(|e| format!("revision {}: {e}", pin.name))?;
            (bytes, path.display().to_string())
        }
        None => (curl(&pin.url)?, pin.url.clone()),
    };
    let actual = sha256_hex(&bytes);
    if actual != pin.sha256 {
        return Err(format!(
            "sha256 mismatch for revision {} from {source}\n  expected {}\n  actual   {actual}\n  {dest_rel} not written",
            pin.name, pin.sha256
        ));
    }
    write_atomically(&root.join(&dest_rel), &bytes)?;
    Ok(format!("wrote {dest_rel} from {source} (sha256 ok)"))
}

/// Downloads `url` with the system curl: xtask carries no HTTP stack.
pub(crate) fn curl(url: &str) -> Result<Vec<u8>> {
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
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().expect("schema path has a parent");
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp: PathBuf = path.with_extension("json.tmp");
    fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path)).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// `cargo xtask schema verify`: every present schema file must match its pin, every present
/// example its manifest line, and the example cache must hold no unlisted file.
pub fn verify(root: &Path) -> Result<()> {
    let pins = load_pins(root)?;
    let manifest = examples::load(root, &pins)?;
    let mut mismatched = 0;
    for pin in &pins {
        let state = match Local::read(root, pin)? {
            Local::Missing => format!("not pulled ({})", pin.schema_rel()),
            Local::Present { sha256, .. } if sha256 == pin.sha256 => "ok".to_owned(),
            Local::Present { sha256, .. } => {
                mismatched += 1;
                format!("MISMATCH: {} has sha256 {sha256}, pinned {}", pin.schema_rel(), pin.sha256)
            }
        };
        println!("{} ({}): {state}", pin.name, pin.dialect);
    }
    let found = examples::verify(root, &manifest)?;
    let mut errors = Vec::new();
    if mismatched > 0 {
        errors.push(format!("{mismatched} schema file(s) do not match their pins"));
    }
    if !found.mismatched.is_empty() {
        errors.push(format!("{} example file(s) do not match {MANIFEST_REL}", found.mismatched.len()));
    }
    if !found.extra.is_empty() {
        errors.push(format!("{} file(s) in the example cache are not in {MANIFEST_REL}", found.extra.len()));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.push("run `cargo xtask schema pull` to replace them with the pinned bytes".to_owned());
        Err(errors.join("; "))
    }
}

/// `cargo xtask schema manifest [--from DIR] [--base-url URL]`.
pub fn manifest(root: &Path, from: Option<&Path>, base_url: Option<&str>) -> Result<()> {
    let pins = load_pins(root)?;
    let mirror = from.map(Path::to_path_buf).or_else(mirror_from_env).ok_or_else(|| {
        format!("name the mirror to read the examples from: --from DIR (laid out as upstream's schema/ folder) or {MIRROR_ENV}")
    })?;
    examples::write_manifest(root, &pins, &mirror, base_url)
}
