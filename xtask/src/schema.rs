//! Pulling and verifying the pinned schemas `schema/<rev>/schema.json` (pins: [`crate::pins`])
//! and, through [`crate::examples`], the official examples `schema/<rev>/examples/`.
//!
//! A revision is pinned by the sha256 of its bytes, never by its name alone: upstream has
//! re-published files under an unchanged revision name. Bytes that do not match the pin are
//! never written, and a present file that does not match is an error for every command.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::examples::{self, Source, MANIFEST_REL};
use crate::pins::{curl, load_extensions, load_pins, sha256_hex, write_atomically, ExtFile, ExtPin, Pin};
use crate::{mirror_from_env, read, Result};

/// Environment variable naming a mirror directory laid out as upstream's `schema/` folder:
/// `<mirror>/<rev>/schema.json`, `<mirror>/<rev>/examples/<Def>/<name>.json`.
pub const MIRROR_ENV: &str = "MCPGEN_SCHEMA_MIRROR";
const PULL_HINT: &str = "run `cargo xtask schema pull` (or set MCPGEN_SCHEMA_MIRROR to a mirror directory)";

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
    let exts = load_extensions(root)?;
    for name in only {
        if !pins.iter().any(|pin| &pin.name == name) && !exts.iter().any(|e| &e.key() == name || &e.id == name) {
            let known: Vec<&str> = pins.iter().map(|pin| pin.name.as_str()).collect();
            return Err(format!(
                "revision {name:?} is not pinned in schema/sources.toml (pinned: {})",
                known.join(", ")
            ));
        }
    }
    let selected: Vec<&Pin> = pins.iter().filter(|pin| only.is_empty() || only.contains(&pin.name)).collect();
    let selected_exts: Vec<&ExtPin> =
        exts.iter().filter(|e| only.is_empty() || only.contains(&e.key()) || only.contains(&e.id)).collect();
    let mirror = from.map(Path::to_path_buf).or_else(mirror_from_env);
    let revisions = if selected.is_empty() { Ok(()) } else { pull_inputs(root, &pins, &selected, mirror.as_deref()) };
    let extensions = pull_extensions(root, &selected_exts, mirror.as_deref());
    match (revisions, extensions) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
        (Err(a), Err(b)) => Err(format!("{a}\n{b}")),
    }
}

/// Whether an extension file in the cache is missing or differs from its pin.
pub fn ext_file_missing(root: &Path, ext: &ExtPin, f: &ExtFile) -> bool {
    fs::read(root.join(ext.file_rel(&f.name))).map(|b| sha256_hex(&b) != f.sha256).unwrap_or(true)
}

/// Fills `schema/ext-<name>/<file>` for every pinned file of `exts`: from
/// `<mirror>/<mirror_dir>/<file>`, or from the file's pinned URL. Only bytes with the pinned
/// sha256 are written; failures are reported together.
pub fn pull_extensions(root: &Path, exts: &[&ExtPin], mirror: Option<&Path>) -> Result<()> {
    let mut errors = Vec::new();
    for ext in exts {
        for f in &ext.file {
            match pull_ext_file(root, ext, f, mirror) {
                Ok(done) => println!("{}: {done}", ext.key()),
                Err(e) => errors.push(e),
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

fn pull_ext_file(root: &Path, ext: &ExtPin, f: &ExtFile, mirror: Option<&Path>) -> Result<String> {
    let dest_rel = ext.file_rel(&f.name);
    if !ext_file_missing(root, ext, f) {
        return Ok(format!("{dest_rel} already present with the pinned sha256, left alone"));
    }
    let from_mirror = mirror.map(|dir| dir.join(&ext.mirror_dir).join(&f.name));
    fetch_pinned(root, &format!("extension {} file {}", ext.id, f.name), &dest_rel, from_mirror, &f.url, &f.sha256)
}

/// Fetches the pinned bytes of one file — from `from_mirror` when given, else from `url` — and
/// writes them to `dest_rel` only if their sha256 is `sha256`. `what` names the file in messages
/// (`revision 2026-07-28`, `extension <id> file schema.json`).
fn fetch_pinned(
    root: &Path,
    what: &str,
    dest_rel: &str,
    from_mirror: Option<PathBuf>,
    url: &str,
    sha256: &str,
) -> Result<String> {
    let (bytes, source) = match from_mirror {
        Some(path) => {
            let bytes = read(&path).map_err(|e| format!("{what}: {e}"))?;
            (bytes, path.display().to_string())
        }
        None => (curl(url)?, url.to_owned()),
    };
    let actual = sha256_hex(&bytes);
    if actual != sha256 {
        return Err(format!(
            "sha256 mismatch for {what} from {source}\n  expected {sha256}\n  actual   {actual}\n  {dest_rel} not written"
        ));
    }
    write_atomically(&root.join(dest_rel), &bytes)?;
    Ok(format!("wrote {dest_rel} from {source} (sha256 ok)"))
}

/// The pinned `schema.json` bytes of every extension, in `sources.toml` order.
pub fn read_verified_extensions(root: &Path, exts: &[ExtPin]) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for ext in exts {
        for f in &ext.file {
            let rel = ext.file_rel(&f.name);
            match fs::read(root.join(&rel)) {
                Ok(bytes) if sha256_hex(&bytes) == f.sha256 => {
                    if f.name == "schema.json" {
                        out.push(bytes);
                    }
                }
                Ok(bytes) => errors.push(format!(
                    "{rel} has sha256 {}, but schema/sources.toml pins {} for extension {}",
                    sha256_hex(&bytes),
                    f.sha256,
                    ext.id
                )),
                Err(e) if e.kind() == ErrorKind::NotFound => errors.push(format!("extension file missing: {rel}")),
                Err(e) => errors.push(format!("cannot read {rel}: {e}")),
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        errors.push(format!("to fetch the pinned files, {PULL_HINT}"));
        Err(errors.join("\n"))
    }
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

    let from_mirror = mirror.map(|dir| dir.join(&pin.name).join("schema.json"));
    fetch_pinned(root, &format!("revision {}", pin.name), &dest_rel, from_mirror, &pin.url, &pin.sha256)
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
    for ext in load_extensions(root)? {
        for f in &ext.file {
            let rel = ext.file_rel(&f.name);
            let state = match fs::read(root.join(&rel)) {
                Err(_) => format!("not pulled ({rel})"),
                Ok(b) if sha256_hex(&b) == f.sha256 => "ok".to_owned(),
                Ok(b) => {
                    mismatched += 1;
                    format!("MISMATCH: {rel} has sha256 {}, pinned {}", sha256_hex(&b), f.sha256)
                }
            };
            println!("{} {}: {state}", ext.key(), f.name);
        }
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

/// `cargo xtask schema manifest [--from DIR]`.
pub fn manifest(root: &Path, from: Option<&Path>) -> Result<()> {
    let pins = load_pins(root)?;
    let mirror = from.map(Path::to_path_buf).or_else(mirror_from_env).ok_or_else(|| {
        format!("name the mirror to read the examples from: --from DIR (laid out as upstream's schema/ folder) or {MIRROR_ENV}")
    })?;
    examples::write_manifest(root, &pins, &mirror)
}
