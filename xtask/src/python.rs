//! The Python step of `cargo xtask test`: install the package the way a user does, into a fresh
//! virtual environment, then run its tests against that installation.
//!
//! 1. `python3 -m venv target/python-test-venv` (deleted first: always fresh);
//! 2. `pip install -r bindings/python/tests/requirements.txt` (pytest, mypy; pinned);
//! 3. `pip install ./bindings/python`: pip fetches maturin from PyPI (PEP 517 build isolation)
//!    and builds the extension. The build shares the workspace `target/` directory and uses the
//!    dev profile (`MATURIN_PEP517_ARGS=--profile dev`): a release build of the generated
//!    validators takes minutes on two cores and the tests do not need it;
//! 4. pytest over `bindings/python/tests` (official examples, `vectors/`, API, typing);
//! 5. `mypy.stubtest mcpgen`: the stubs against the built module;
//! 6. `mypy --strict` over the package and the README example, then the example runs.
//!
//! `MCPGEN_PYTHON` picks the interpreter (default `python3`).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

const VENV: &str = "target/python-test-venv";

pub fn test(root: &Path) -> Result<()> {
    let venv = root.join(VENV);
    if venv.exists() {
        fs::remove_dir_all(&venv).map_err(|e| format!("cannot delete {}: {e}", venv.display()))?;
    }
    create_venv(root, &venv, "the virtual environment")?;
    let py = venv_python(&venv);
    run(
        root,
        &mut pip(&py, &["install", "--quiet", "-r", "bindings/python/tests/requirements.txt"]),
        "install the test tools",
    )?;
    run(
        root,
        pip(&py, &["install", "./bindings/python"])
            .env("CARGO_TARGET_DIR", root.join("target"))
            .env("MATURIN_PEP517_ARGS", "--profile dev"),
        "pip install ./bindings/python",
    )?;
    test_installed(root, &py, &|c| c)
}

/// Steps 4-6 against the package installed in the venv of `py`; `env` adjusts each command's
/// environment (`cargo xtask dist check` takes the Rust toolchain off `PATH`).
pub(crate) fn test_installed(root: &Path, py: &Path, env: &dyn Fn(&mut Command) -> &mut Command) -> Result<()> {
    run(
        root,
        env(Command::new(py)
            .args(["-m", "pytest", "bindings/python/tests", "-q", "-p", "no:cacheprovider"])
            .env("MCPGEN_TEST_INSTALLED", "1")),
        "pytest",
    )?;
    let mypy_cache = root.join("target/python-test-mypy-cache");
    run(
        root,
        env(Command::new(py)
            .args(["-m", "mypy.stubtest", "mcpgen", "--allowlist", "bindings/python/tests/stubtest-allowlist.txt"])
            .env("MYPY_CACHE_DIR", &mypy_cache)),
        "stubtest",
    )?;
    for target in [&["-p", "mcpgen"][..], &["bindings/python/examples/quickstart.py"][..]] {
        run(
            root,
            env(Command::new(py).args(["-m", "mypy", "--strict"]).args(target).arg("--cache-dir").arg(&mypy_cache)),
            "mypy --strict",
        )?;
    }
    run(root, env(Command::new(py).arg("bindings/python/examples/quickstart.py")), "the README example")
}

/// The environment of the Python lines of `cargo xtask bench`: `target/bench-venv` (made once)
/// with `bindings/python/bench/requirements.txt` and a release build of the package installed
/// (reinstalled on every run, so the lines measure the current tree; cargo rebuilds only what
/// changed). Returns the directory to put first on `PATH`.
pub fn bench_env(root: &Path) -> Result<PathBuf> {
    let venv = root.join("target/bench-venv");
    if !venv_python(&venv).exists() {
        create_venv(root, &venv, "the benchmark environment")?;
    }
    let py = venv_python(&venv);
    let install = |args: &[&str]| pip(&py, &[&["install", "--quiet"], args].concat());
    run(
        root,
        &mut install(&["-r", "bindings/python/bench/requirements.txt"]),
        "install the benchmark's comparison packages",
    )?;
    run(
        root,
        install(&["--force-reinstall", "--no-deps", "./bindings/python"]).env("CARGO_TARGET_DIR", root.join("target")),
        "pip install ./bindings/python (release)",
    )?;
    Ok(py.parent().expect("a venv interpreter is inside a directory").to_path_buf())
}

/// `python3 -m venv VENV` with the interpreter `MCPGEN_PYTHON` names (default `python3`).
pub(crate) fn create_venv(root: &Path, venv: &Path, what: &str) -> Result<()> {
    let python: OsString = std::env::var_os("MCPGEN_PYTHON").unwrap_or_else(|| "python3".into());
    run(
        root,
        Command::new(&python).args(["-m", "venv"]).arg(venv),
        &format!("create {what} (on Debian: apt-get install python3-venv)"),
    )
}

/// `PY -m pip ARGS`, quiet about pip's own version and never prompting.
pub(crate) fn pip(py: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(py);
    c.args(["-m", "pip", "--disable-pip-version-check", "--no-input"]).args(args);
    c
}

pub(crate) fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

pub(crate) fn run(root: &Path, cmd: &mut Command, what: &str) -> Result<()> {
    let shown = format!(
        "{} {}",
        cmd.get_program().to_string_lossy(),
        cmd.get_args().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ")
    );
    println!("$ {shown}");
    let status = cmd.current_dir(root).status().map_err(|e| format!("{what}: cannot run `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what}: `{shown}` exited with {status}"))
    }
}
