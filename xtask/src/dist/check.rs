//! `cargo xtask dist check`: the artifacts of `target/dist/`, installed as a user installs them
//! and tested there, never the tree they came from.
//!
//! - sums: `SHA256SUMS` matches every file and lists them all;
//! - wheel: a fresh venv whose `PATH` has no `cargo` or `rustc` (shown by `command -v`), the
//!   wheel installed from `target/dist/` only (`--no-index --only-binary`), then the Python suite
//!   (pytest, stubtest, mypy, the README example) against that installation;
//! - sdist: unpacked outside the repository (no `schema/` cache, no generated tree beside it)
//!   and built into a wheel by pip without network (`--no-index`, `CARGO_NET_OFFLINE`, no
//!   `MCPGEN_SCHEMA_MIRROR`);
//! - c: the archive unpacked into a temporary prefix; the soname of `libmcpgen`; the examples
//!   built through `pkg-config` from that prefix and run (`bindings/c/tests/examples.sh`);
//! - cli: the binary from its archive on a valid and an invalid message;
//! - crates: each `.crate` under the size limit, its manifest carrying the version;
//! - versions: every surface above reports the workspace version.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::{archive, file_name, file_size, list_dir, Dist, Part, CRATES};
use crate::Result;

/// Who reported which version, compared with the workspace version at the end.
struct Versions {
    expected: String,
    seen: Vec<(String, String)>,
}

impl Versions {
    fn add(&mut self, surface: impl Into<String>, version: impl Into<String>) {
        self.seen.push((surface.into(), version.into()));
    }

    fn check(&self) -> Result<()> {
        println!("versions (workspace: {}):", self.expected);
        for (surface, version) in &self.seen {
            let mark = if *version == self.expected { "ok" } else { "MISMATCH" };
            println!("  {surface:<48} {version:<12} {mark}");
        }
        let wrong: Vec<String> =
            self.seen.iter().filter(|(_, v)| *v != self.expected).map(|(s, v)| format!("{s} says {v:?}")).collect();
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!("the workspace version is {} but {}", self.expected, wrong.join(", ")))
        }
    }
}

pub fn run(root: &Path, parts: &[Part]) -> Result<()> {
    let start = Instant::now();
    let d = Dist::new(root)?;
    let covered = archive::check_sums(&d.out)?;
    println!("[sums] SHA256SUMS matches all {covered} files");
    let mut versions = Versions { expected: d.version.clone(), seen: Vec::new() };
    for &part in parts {
        let step = Instant::now();
        println!("==> [{}] check", part.name());
        match part {
            Part::C => c_archive(&d, &mut versions)?,
            Part::Cli => cli_archive(&d, &mut versions)?,
            Part::Wheel => wheel(&d, &mut versions)?,
            Part::Sdist => sdist(&d, &mut versions)?,
            Part::Crates => crates(&d, &mut versions)?,
        }
        println!("<== [{}] ok ({:.1?})", part.name(), step.elapsed());
    }
    versions.check()?;
    println!("dist check: {} parts passed in {:.1?}", parts.len(), start.elapsed());
    Ok(())
}

/// A directory outside the repository (so nothing of the tree is beside what is tested), named
/// after this checkout so two checkouts never share it; emptied first.
fn outside_dir(d: &Dist, what: &str) -> Result<PathBuf> {
    let tag = &crate::pins::sha256_hex(d.root.to_string_lossy().as_bytes())[..8];
    super::fresh_dir(std::env::temp_dir().join(format!("mcpgen-dist-check-{tag}")).join(what))
}

// ---- wheel -------------------------------------------------------------------------------

/// `PATH` without the directories that hold `cargo` or `rustc`, with `first` in front.
fn path_without_rust(first: &Path) -> Result<OsString> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let rusty = |dir: &Path| ["cargo", "rustc", "cargo.exe", "rustc.exe"].iter().any(|tool| dir.join(tool).exists());
    let mut dirs = vec![first.to_path_buf()];
    let mut removed = Vec::new();
    for dir in std::env::split_paths(&path) {
        if rusty(&dir) {
            removed.push(dir);
        } else {
            dirs.push(dir);
        }
    }
    let needed = ["sh", "python3"];
    for dir in &removed {
        if let Some(tool) = needed.iter().find(|t| dir.join(t).exists()) {
            return Err(format!(
                "{} holds both the Rust toolchain and {tool}: cannot take one off PATH without the other",
                dir.display()
            ));
        }
    }
    println!("off PATH (they hold cargo or rustc): {removed:?}");
    std::env::join_paths(dirs).map_err(|e| format!("cannot build PATH: {e}"))
}

/// The environment of every command of the wheel check: no Rust toolchain on `PATH`, none of
/// cargo's or rustup's variables (which name the toolchain's location).
fn without_rust(cmd: &mut Command, path: &OsString) {
    cmd.env("PATH", path);
    for (key, _) in std::env::vars_os() {
        let key_text = key.to_string_lossy();
        if key_text.starts_with("CARGO") || key_text.starts_with("RUSTUP") || key_text.starts_with("RUSTC") {
            cmd.env_remove(&key);
        }
    }
}

fn wheel(d: &Dist, versions: &mut Versions) -> Result<()> {
    let wheel = d.wheel()?;
    let name = file_name(&wheel);
    versions.add(format!("wheel file name ({name})"), name.split('-').nth(1).unwrap_or_default());
    let venv = outside_dir(d, "wheel-venv")?;
    crate::python::create_venv(&d.root, &venv, "the wheel's virtual environment")?;
    let py = crate::python::venv_python(&venv);
    let path = path_without_rust(py.parent().expect("a venv interpreter is inside a directory"))?;
    let without = |cmd: &mut Command| without_rust(cmd, &path);
    let env: &dyn Fn(&mut Command) -> &mut Command = &|cmd| {
        without(cmd);
        cmd
    };

    // The proof that nothing below can build Rust: both lookups must fail.
    let mut probe = Command::new("sh");
    probe.args(["-c", "! command -v cargo && ! command -v rustc"]);
    crate::python::run(&d.root, env(&mut probe), "no Rust toolchain in the test environment")?;
    println!("`command -v cargo` and `command -v rustc` fail in the test environment");

    let run = |cmd: &mut Command, what: &str| crate::python::run(&d.root, env(cmd), what);
    run(
        &mut crate::python::pip(&py, &["install", "--quiet", "-r", "bindings/python/tests/requirements.txt"]),
        "install the test tools",
    )?;
    let requirement = format!("mcpgen=={}", d.version);
    let find_links = d.out.to_string_lossy().into_owned();
    run(
        &mut crate::python::pip(
            &py,
            &["install", "--no-index", "--find-links", &find_links, "--only-binary", ":all:", &requirement],
        ),
        "install the wheel",
    )?;
    let reported = output(env(Command::new(&py).args(["-c", "import mcpgen; print(mcpgen.__version__)"])))?;
    versions.add("mcpgen.__version__ (installed wheel)", reported);
    crate::python::test_installed(&d.root, &py, env)
}

// ---- sdist -------------------------------------------------------------------------------

fn sdist(d: &Dist, versions: &mut Versions) -> Result<()> {
    let sdist = d.out.join(d.sdist_name());
    let work = outside_dir(d, "sdist")?;
    let top = archive::unpack(&sdist, &work.join("src"))?;
    for absent in ["schema", "codegen", "xtask", ".git"] {
        if top.join(absent).exists() {
            return Err(format!("the sdist holds {absent}/: it must build from its own files only"));
        }
    }
    let generated = top.join("generated/src");
    if !generated.is_dir() {
        return Err(format!("the sdist lacks the generated crate ({})", generated.display()));
    }
    println!("unpacked into {} (no schema/ cache; generated code: {})", top.display(), generated.display());

    // pip builds it the way `pip install mcpgen-<v>.tar.gz` would, with the pinned maturin
    // already installed and nothing reachable: no index, cargo offline, no schema mirror.
    let build_py = crate::python::venv_python(&d.root.join(super::BUILD_VENV));
    let wheels = work.join("wheel");
    // maturin's build backend runs `maturin` from PATH: the build environment's first.
    let bin = build_py.parent().expect("a venv interpreter is inside a directory");
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .map_err(|e| format!("cannot build PATH: {e}"))?;
    let mut cmd = crate::python::pip(&build_py, &["wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w"]);
    cmd.arg(&wheels)
        .arg(&top)
        .env("PATH", path)
        .env_remove(crate::schema::MIRROR_ENV)
        .env("CARGO_NET_OFFLINE", "true")
        // The debug profile: the build proves the sources are complete, not how fast they run.
        // Not --locked: the sdist's workspace has fewer members than the lock file lists, so
        // cargo drops their entries (the versions of what it builds stay as locked).
        .env("MATURIN_PEP517_ARGS", "--profile dev")
        .env("CARGO_TARGET_DIR", &d.target_dir);
    crate::python::run(&d.root, &mut cmd, "build a wheel from the sdist, offline")?;
    let built = list_dir(&wheels)?;
    let [wheel] = built.as_slice() else {
        return Err(format!("the sdist build left {built:?} in {}", wheels.display()));
    };
    let name = file_name(wheel);
    println!("built {name} from {}", file_name(&sdist));
    versions.add(format!("wheel built from the sdist ({name})"), name.split('-').nth(1).unwrap_or_default());
    Ok(())
}

// ---- C -----------------------------------------------------------------------------------

fn c_archive(d: &Dist, versions: &mut Versions) -> Result<()> {
    let work = outside_dir(d, "c")?;
    let prefix = archive::unpack(&d.out.join(format!("{}.tar.gz", d.c_archive_name())), &work.join("prefix"))?;
    println!("prefix: {}", prefix.display());
    for file in ["LICENSE", "README.md", "include/mcpgen.h", "include/mcpgen_schema.h", "lib/pkgconfig/mcpgen.pc"] {
        if !prefix.join(file).is_file() {
            return Err(format!("the C archive lacks {file}"));
        }
    }
    let soname = d.platform.soname(&d.version);
    if let (true, Some(soname)) = (d.platform.is_linux(), &soname) {
        let library = prefix.join(format!("lib/libmcpgen.so.{}", d.version));
        let dynamic = output(Command::new("readelf").arg("-d").arg(&library))?;
        if !dynamic.contains(&format!("Library soname: [{soname}]")) {
            return Err(format!("{} has no soname {soname}:\n{dynamic}", library.display()));
        }
        println!("{}: soname {soname}", file_name(&library));
    }

    let built = work.join("examples");
    let mut script = Command::new("bash");
    script.arg("bindings/c/tests/examples.sh").arg(&prefix).arg(&built);
    crate::python::run(&d.root, &mut script, "the C examples against the archive")?;

    if let (true, Some(soname)) = (d.platform.is_linux(), &soname) {
        // A program linked with `pkg-config --libs` records the soname, and the loader finds it
        // in the archive's lib/ (the example carries that directory as its rpath).
        let program = built.join("c");
        let dynamic = output(Command::new("readelf").arg("-d").arg(&program))?;
        if !dynamic.contains(&format!("Shared library: [{soname}]")) {
            return Err(format!("{} does not need {soname}:\n{dynamic}", program.display()));
        }
        let loaded = output(Command::new("ldd").arg(&program))?;
        let from_prefix = loaded.lines().any(|l| l.contains(soname.as_str()) && l.contains(&*prefix.to_string_lossy()));
        if !from_prefix {
            return Err(format!("{} does not load {soname} from {}:\n{loaded}", program.display(), prefix.display()));
        }
        println!("the C example needs {soname} and loads it from the archive's lib/");
    }

    let pc_dir = prefix.join("lib/pkgconfig");
    let modversion =
        output(Command::new("pkg-config").args(["--modversion", "mcpgen"]).env("PKG_CONFIG_PATH", &pc_dir))?;
    versions.add("pkg-config --modversion mcpgen", modversion);
    versions.add("mcpgen_version() (C example --version)", output(Command::new(built.join("c")).arg("--version"))?);
    let header = String::from_utf8_lossy(&crate::read(&prefix.join("include/mcpgen_schema.h"))?).into_owned();
    let macro_version = header
        .lines()
        .find_map(|l| l.strip_prefix("#define MCPGEN_VERSION_STRING "))
        .map(|v| v.trim_matches('"').to_owned())
        .unwrap_or_default();
    versions.add("MCPGEN_VERSION_STRING (mcpgen_schema.h)", macro_version);
    Ok(())
}

// ---- CLI ---------------------------------------------------------------------------------

fn cli_archive(d: &Dist, versions: &mut Versions) -> Result<()> {
    let work = outside_dir(d, "cli")?;
    let top = archive::unpack(&d.out.join(format!("{}.tar.gz", d.cli_archive_name())), &work.join("unpacked"))?;
    let exe = top.join(d.platform.exe("mcpgen"));
    for file in ["LICENSE", "README.md"] {
        if !top.join(file).is_file() {
            return Err(format!("the CLI archive lacks {file}"));
        }
    }
    let version = output(Command::new(&exe).arg("--version"))?;
    versions.add("mcpgen --version (CLI archive)", version.strip_prefix("mcpgen ").unwrap_or(&version));

    let valid = d.root.join("schema/2026-07-28/examples/CallToolRequest/call-tool-request.json");
    if !valid.is_file() {
        return Err(format!("{} is missing; run `cargo xtask schema pull`", valid.display()));
    }
    crate::python::run(&d.root, Command::new(&exe).arg("validate").arg(&valid), "mcpgen validate (valid message)")?;
    let invalid = work.join("invalid-tools-call.json");
    fs::write(&invalid, br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#)
        .map_err(|e| format!("cannot write {}: {e}", invalid.display()))?;
    let out = Command::new(&exe)
        .arg("validate")
        .arg(&invalid)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.code() != Some(1) || !text.contains("/params/name") {
        return Err(format!(
            "mcpgen validate on an invalid message: expected exit 1 naming /params/name, got {}:\n{text}",
            out.status
        ));
    }
    println!("mcpgen validate: exit 1 on the invalid message, naming /params/name");
    Ok(())
}

// ---- crates ------------------------------------------------------------------------------

fn crates(d: &Dist, versions: &mut Versions) -> Result<()> {
    let work = outside_dir(d, "crates")?;
    for name in CRATES {
        let file = d.out.join(d.crate_file(name));
        if let Some(refused) = super::over_crate_limit(&file_name(&file), file_size(&file)?) {
            return Err(refused);
        }
        let top = archive::unpack(&file, &work.join(name))?;
        let manifest_path = top.join("Cargo.toml");
        let text = String::from_utf8_lossy(&crate::read(&manifest_path)?).into_owned();
        let manifest: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", manifest_path.display()))?;
        let package = manifest.get("package");
        if package.and_then(|p| p.get("publish")).and_then(|p| p.as_bool()) == Some(false) {
            return Err(format!("{name} is packaged with publish = false"));
        }
        let version = package.and_then(|p| p.get("version")).and_then(|v| v.as_str()).unwrap_or_default();
        versions.add(format!("{} (Cargo.toml)", file_name(&file)), version);
    }
    Ok(())
}

/// Runs `cmd`, fails unless it exits 0, returns its trimmed stdout.
fn output(cmd: &mut Command) -> Result<String> {
    let shown = format!(
        "{} {}",
        cmd.get_program().to_string_lossy(),
        cmd.get_args().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ")
    );
    let out = cmd.output().map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if !out.status.success() {
        return Err(format!("`{shown}` exited with {}: {}", out.status, String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surface_with_another_version_fails_the_check() {
        let mut versions = Versions { expected: "0.1.0".into(), seen: Vec::new() };
        versions.add("mcpgen --version", "0.1.0");
        assert!(versions.check().is_ok());
        versions.add("pkg-config --modversion mcpgen", "0.0.9");
        let err = versions.check().unwrap_err();
        assert!(err.contains("pkg-config --modversion mcpgen says \"0.0.9\""), "{err}");
    }

    #[test]
    fn the_rust_toolchain_is_taken_off_path() {
        let path = path_without_rust(Path::new("/venv/bin")).unwrap();
        let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
        assert_eq!(dirs[0], Path::new("/venv/bin"));
        assert!(dirs.iter().all(|d| !d.join("cargo").exists() && !d.join("rustc").exists()), "{dirs:?}");
    }
}
