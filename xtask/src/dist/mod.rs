//! `cargo xtask dist`: the release artifacts, in `target/dist/`; `cargo xtask dist check`: each
//! artifact installed the way a user installs it, then tested ([`check`]).
//!
//! | artifact | file |
//! |---|---|
//! | Python wheel (abi3: every CPython ≥ 3.9 on this platform) | `mcpgen-<v>-cp39-abi3-<platform>.whl` |
//! | Python sdist (generated code included: builds offline) | `mcpgen-<v>.tar.gz` |
//! | C library: `lib/` (shared with an ABI soname, static), `include/`, `lib/pkgconfig/mcpgen.pc` | `mcpgen-c-<v>-<target>.tar.gz` |
//! | CLI binary | `mcpgen-<v>-<target>.tar.gz` |
//! | the publishable crates, in dependency order | `<crate>-<v>.crate` |
//! | sha256 of every file above | `SHA256SUMS` |
//!
//! One release build of the generated core serves the C library, the CLI and the wheel: the C
//! library and the CLI come from one `cargo build` (one feature resolution), maturin builds the
//! extension into the same target directory, and `bindings/c/Cargo.toml` asks for the dependency
//! features the extension adds, so cargo finds the core already built (see [`core_builds`]).

mod archive;
mod check;
mod layout;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use clap::{Subcommand, ValueEnum};

use crate::Result;
use layout::{CArchive, Platform};

/// The crates `cargo package` packs, in dependency order (each depends only on earlier ones).
const CRATES: [&str; 5] = ["mcpgen-runtime", "mcpgen-schema", "mcpgen", "mcpgen-probe", "mcpgen-cli"];
/// crates.io refuses a `.crate` above this size (its default `max_upload_size`).
const CRATE_SIZE_LIMIT: u64 = 10 * 1024 * 1024;
/// The manylinux policy of the wheel, checked by maturin's auditwheel (`--auditwheel check`):
/// a wheel linked against this machine's glibc (2.36, Debian 12) references `GLIBC_2.34`
/// symbols (`pthread_key_create`, `dlsym`: libpthread and libdl moved into libc in 2.34), so
/// 2.34 is the oldest glibc it runs on. Older policies need an older glibc at link time: the
/// release workflow builds those wheels in manylinux2014 containers.
const MANYLINUX: &str = "manylinux_2_34";
/// The build tool, pinned (the release workflow pins the same version for maturin-action).
const BUILD_REQUIREMENTS: &str = "bindings/python/dist-requirements.txt";
/// The virtual environment holding maturin (kept between runs).
const BUILD_VENV: &str = "target/dist-venv";
/// The environment variable `bindings/c/build.rs` reads: the soname to link libmcpgen with.
const SONAME_ENV: &str = "MCPGEN_C_SONAME";

#[derive(clap::Args)]
pub struct DistArgs {
    #[command(subcommand)]
    command: Option<DistCommand>,
    /// Only these artifacts (repeatable) [default: all]
    #[arg(long = "only", value_enum, value_name = "PART", global = true)]
    only: Vec<Part>,
}

#[derive(Subcommand)]
enum DistCommand {
    /// Install every artifact of target/dist/ the way a user does and test it (no Rust toolchain
    /// for the wheel, pkg-config for the C archive, the CLI on sample messages), then check that
    /// every surface reports the workspace version and that SHA256SUMS matches.
    Check,
}

/// One kind of artifact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Part {
    /// The C archive.
    C,
    /// The CLI archive.
    Cli,
    /// The abi3 wheel.
    Wheel,
    /// The Python source distribution.
    Sdist,
    /// The packaged crates.
    Crates,
}

impl Part {
    /// Every part, in build order: the C library and the CLI first (one cargo build), the wheel
    /// next (reusing that build's core), then the sources.
    pub const ALL: [Part; 5] = [Part::C, Part::Cli, Part::Wheel, Part::Sdist, Part::Crates];

    fn name(self) -> &'static str {
        match self {
            Part::C => "c",
            Part::Cli => "cli",
            Part::Wheel => "wheel",
            Part::Sdist => "sdist",
            Part::Crates => "crates",
        }
    }
}

/// What every part needs to know: where things are, the version, the target.
pub(crate) struct Dist {
    root: PathBuf,
    /// The cargo target directory (`CARGO_TARGET_DIR`, else `target/`).
    target_dir: PathBuf,
    /// `target/dist/`.
    out: PathBuf,
    /// The workspace version (`[workspace.package] version`): every artifact carries it.
    version: String,
    /// The host target triple (`rustc -vV`): the C and CLI archives are named after it.
    target: String,
    platform: Platform,
}

impl Dist {
    fn new(root: &Path) -> Result<Dist> {
        let target_dir = crate::conformance::target_dir(root);
        let version = workspace_version(root)?;
        let target = host_target()?;
        let platform = Platform::of(&target);
        Ok(Dist { root: root.to_path_buf(), out: target_dir.join("dist"), target_dir, version, target, platform })
    }

    fn sdist_name(&self) -> String {
        format!("mcpgen-{}.tar.gz", self.version)
    }
    fn c_archive_name(&self) -> String {
        format!("mcpgen-c-{}-{}", self.version, self.target)
    }
    fn cli_archive_name(&self) -> String {
        format!("mcpgen-{}-{}", self.version, self.target)
    }
    fn crate_file(&self, name: &str) -> String {
        format!("{name}-{}.crate", self.version)
    }
    /// The wheel of this version in `target/dist/` (its platform tag is maturin's).
    fn wheel(&self) -> Result<PathBuf> {
        let prefix = format!("mcpgen-{}-", self.version);
        let mut found: Vec<PathBuf> = list_dir(&self.out)?
            .into_iter()
            .filter(|p| file_name(p).starts_with(&prefix) && file_name(p).ends_with(".whl"))
            .collect();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(format!("no mcpgen {} wheel in {}; run `cargo xtask dist`", self.version, self.out.display())),
            _ => Err(format!("more than one mcpgen {} wheel in {}: {found:?}", self.version, self.out.display())),
        }
    }
    fn release_dir(&self) -> PathBuf {
        self.target_dir.join("release")
    }
    /// A scratch directory under the target directory, emptied first.
    fn scratch(&self, name: &str) -> Result<PathBuf> {
        fresh_dir(self.target_dir.join("dist-work").join(name))
    }
}

/// `cargo xtask dist [check] [--only PART]...`.
pub fn run(root: &Path, args: &DistArgs) -> Result<()> {
    let mut parts = if args.only.is_empty() { Part::ALL.to_vec() } else { args.only.clone() };
    parts.sort();
    parts.dedup();
    match args.command {
        None => build(root, &parts),
        Some(DistCommand::Check) => check::run(root, &parts),
    }
}

/// The step of `cargo xtask test`: every artifact built, then installed and tested.
pub fn build_and_check(root: &Path) -> Result<()> {
    build(root, &Part::ALL)?;
    check::run(root, &Part::ALL)
}

/// Builds `parts` into `target/dist/` (all of them: the directory is emptied first), then
/// rewrites `SHA256SUMS` over everything in it.
fn build(root: &Path, parts: &[Part]) -> Result<()> {
    let start = Instant::now();
    let started = SystemTime::now();
    let d = Dist::new(root)?;
    println!("mcpgen {} for {} into {}", d.version, d.target, d.out.display());
    if parts.len() == Part::ALL.len() && d.out.exists() {
        fs::remove_dir_all(&d.out).map_err(|e| format!("cannot empty {}: {e}", d.out.display()))?;
    }
    fs::create_dir_all(&d.out).map_err(|e| format!("cannot create {}: {e}", d.out.display()))?;
    let mut made = Vec::new();
    if parts.contains(&Part::C) || parts.contains(&Part::Cli) {
        let step = Instant::now();
        release_build(&d)?;
        println!("[release build] C library and CLI ({:.1?})", step.elapsed());
    }
    for &part in parts {
        let step = Instant::now();
        let files = match part {
            Part::C => vec![c_archive(&d)?],
            Part::Cli => vec![cli_archive(&d)?],
            Part::Wheel => vec![wheel(&d)?],
            Part::Sdist => vec![sdist(&d)?],
            Part::Crates => crates(&d)?,
        };
        for file in &files {
            println!("[{}] {}  {} ({:.1?})", part.name(), file_name(file), size_text(file_size(file)?), step.elapsed());
        }
        made.extend(files);
    }
    let sums = archive::write_sums(&d.out)?;
    println!("[sums] {} ({} files)", file_name(&sums), list_dir(&d.out)?.len() - 1);
    core_builds(&d, started);
    println!("dist: {} artifacts in {:.1?}", made.len(), start.elapsed());
    Ok(())
}

/// The release build of the C library and the CLI: one `cargo build`, so both link the same
/// compiled core; the shared library gets its soname from `bindings/c/build.rs`.
fn release_build(d: &Dist) -> Result<()> {
    let mut cmd = cargo();
    cmd.args(["build", "--release", "--locked", "-p", "mcpgen-c", "-p", "mcpgen-cli"]);
    if let Some(soname) = d.platform.soname(&d.version) {
        cmd.env(SONAME_ENV, soname);
    }
    run_in(d, &mut cmd, "the release build of libmcpgen and the mcpgen CLI")
}

fn c_archive(d: &Dist) -> Result<PathBuf> {
    let layout = CArchive::new(&d.platform, &d.version);
    let name = d.c_archive_name();
    let mut tar = archive::TarGz::create(&d.out.join(format!("{name}.tar.gz")), &name)?;
    let release = d.release_dir();
    layout.add_libraries(&mut tar, &release)?;
    for header in ["mcpgen.h", "mcpgen_schema.h"] {
        tar.file(&format!("include/{header}"), &read(&d.root.join("bindings/c/include").join(header))?, false)?;
    }
    let pc = String::from_utf8_lossy(&read(&d.root.join("bindings/c/mcpgen.pc.in"))?).replace("@VERSION@", &d.version);
    tar.file("lib/pkgconfig/mcpgen.pc", pc.as_bytes(), false)?;
    add_license_and_readme(d, &mut tar, "bindings/c/README.archive.md")?;
    tar.finish()
}

fn cli_archive(d: &Dist) -> Result<PathBuf> {
    let name = d.cli_archive_name();
    let mut tar = archive::TarGz::create(&d.out.join(format!("{name}.tar.gz")), &name)?;
    let exe = d.platform.exe("mcpgen");
    tar.file(&exe, &read(&d.release_dir().join(&exe))?, true)?;
    add_license_and_readme(d, &mut tar, "bindings/cli/README.archive.md")?;
    tar.finish()
}

fn add_license_and_readme(d: &Dist, tar: &mut archive::TarGz, readme: &str) -> Result<()> {
    tar.file("LICENSE", &read(&d.root.join("LICENSE"))?, false)?;
    let text = String::from_utf8_lossy(&read(&d.root.join(readme))?)
        .replace("@VERSION@", &d.version)
        .replace("@TARGET@", &d.target);
    tar.file("README.md", text.as_bytes(), false)
}

/// `maturin build --release`: the abi3 wheel, its manylinux tag checked (not repaired: it
/// must need nothing beyond the policy's libraries).
fn wheel(d: &Dist) -> Result<PathBuf> {
    let stage = d.scratch("wheel")?;
    let mut cmd = maturin(d)?;
    cmd.args(["build", "--release", "--locked", "--strip", "--manifest-path", "bindings/python/Cargo.toml", "--out"])
        .arg(&stage);
    if d.platform.is_linux() {
        cmd.args(["--compatibility", MANYLINUX, "--auditwheel", "check"]);
    }
    cmd.env("CARGO_TARGET_DIR", &d.target_dir);
    run_in(d, &mut cmd, "maturin build")?;
    move_single(&stage, ".whl", &d.out)
}

/// `maturin sdist`: the package source with the crates it builds from (generated code included).
fn sdist(d: &Dist) -> Result<PathBuf> {
    let stage = d.scratch("sdist")?;
    let mut cmd = maturin(d)?;
    cmd.args(["sdist", "--manifest-path", "bindings/python/Cargo.toml", "--out"]).arg(&stage);
    run_in(d, &mut cmd, "maturin sdist")?;
    let made = move_single(&stage, ".tar.gz", &d.out)?;
    if file_name(&made) != d.sdist_name() {
        return Err(format!("maturin sdist wrote {}, expected {}", file_name(&made), d.sdist_name()));
    }
    Ok(made)
}

/// `cargo package` of the publishable crates. Packaging them together lets cargo verify each
/// one (a build of the packed sources) against the others through a temporary local registry,
/// before any of them exists on crates.io; it needs no network when the dependencies are in
/// cargo's cache (`CARGO_NET_OFFLINE=true` makes sure).
fn crates(d: &Dist) -> Result<Vec<PathBuf>> {
    let home = cargo_home()?;
    for stale in stale_unpacked(&home, &d.version)? {
        fs::remove_dir_all(&stale)
            .map_err(|e| format!("removing the stale unpacked crate {}: {e}", stale.display()))?;
    }
    let mut cmd = cargo();
    cmd.args(["package", "--locked", "--allow-dirty"]);
    // The verification builds prove the packed sources compile; debug info would only slow
    // them down (the generated crate is large).
    cmd.env("CARGO_PROFILE_DEV_DEBUG", "0");
    for name in CRATES {
        cmd.args(["-p", name]);
    }
    run_in(d, &mut cmd, "cargo package")?;
    let mut made = Vec::new();
    let mut too_big = Vec::new();
    for name in CRATES {
        let file = d.crate_file(name);
        let from = d.target_dir.join("package").join(&file);
        let to = d.out.join(&file);
        fs::copy(&from, &to).map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
        too_big.extend(over_crate_limit(&file, file_size(&to)?));
        made.push(to);
    }
    if too_big.is_empty() {
        Ok(made)
    } else {
        Err(too_big.join("; "))
    }
}

/// Why crates.io would refuse a `.crate` of this size, if it would.
fn over_crate_limit(file: &str, size: u64) -> Option<String> {
    (size > CRATE_SIZE_LIMIT)
        .then(|| format!("{file} is {} (crates.io takes at most {})", size_text(size), size_text(CRATE_SIZE_LIMIT)))
}

/// Reports how often this run compiled the generated core (`mcpgen-schema`) in release: once
/// when the C library, the CLI and the wheel resolved the same dependency features. More means
/// a dependency update changed the features one of them adds; `cargo tree -e features` of
/// `mcpgen-python` against `mcpgen-c` shows which, and `bindings/c/Cargo.toml` lists them.
fn core_builds(d: &Dist, since: SystemTime) {
    let deps = d.release_dir().join("deps");
    let Ok(entries) = list_dir(&deps) else { return };
    let built = entries
        .iter()
        .filter(|p| file_name(p).starts_with("libmcpgen_schema-") && file_name(p).ends_with(".rlib"))
        .filter(|p| fs::metadata(p).and_then(|m| m.modified()).is_ok_and(|t| t >= since))
        .count();
    match built {
        0 | 1 => println!("[release build] the generated core was compiled {built} time(s)"),
        n => println!(
            "warning: [release build] the generated core was compiled {n} times: the wheel, the C library and the CLI \
             resolved different dependency features (see the comment in bindings/c/Cargo.toml)"
        ),
    }
}

/// maturin from the pinned build requirements, in `target/dist-venv` (made once).
fn maturin(d: &Dist) -> Result<Command> {
    let venv = d.root.join(BUILD_VENV);
    let py = crate::python::venv_python(&venv);
    if !py.exists() {
        crate::python::create_venv(&d.root, &venv, "the build environment")?;
    }
    run_in(
        d,
        &mut crate::python::pip(&py, &["install", "--quiet", "-r", BUILD_REQUIREMENTS]),
        "install the build tools",
    )?;
    let bin = py.parent().expect("a venv interpreter is inside a directory");
    let mut cmd = Command::new(bin.join(if cfg!(windows) { "maturin.exe" } else { "maturin" }));
    cmd.current_dir(&d.root);
    Ok(cmd)
}

/// Cargo's home: `$CARGO_HOME`, else `$HOME/.cargo`.
fn cargo_home() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        return Ok(PathBuf::from(home));
    }
    std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cargo"))
        .ok_or_else(|| "neither CARGO_HOME nor HOME is set: cannot find cargo's home".to_string())
}

/// The unpacked copies of this version of our crates under `<cargo home>/registry/src/*/`.
///
/// Cargo unpacks every registry crate it builds into `registry/src/<source>/<name>-<version>/`
/// and reuses that directory whenever it is there (it never compares it with the `.crate`).
/// The temporary registry `cargo package` verifies through gets the same source directory as
/// long as the workspace path is the same, so a second packing of the same version — the
/// sources changed, the version did not — would verify against the first one's sources: a
/// change to `mcpgen-runtime` then breaks the verification build of `mcpgen`, which compiles
/// against the old runtime. Removing these copies first makes cargo unpack the new `.crate`s.
fn stale_unpacked(cargo_home: &Path, version: &str) -> Result<Vec<PathBuf>> {
    let src = cargo_home.join("registry").join("src");
    let sources = match fs::read_dir(&src) {
        Ok(sources) => sources,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("reading {}: {e}", src.display())),
    };
    let mut stale = Vec::new();
    for source in sources {
        let source = source.map_err(|e| format!("reading {}: {e}", src.display()))?.path();
        for name in CRATES {
            let unpacked = source.join(format!("{name}-{version}"));
            if unpacked.is_dir() {
                stale.push(unpacked);
            }
        }
    }
    stale.sort();
    Ok(stale)
}

/// The cargo that runs xtask.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

fn run_in(d: &Dist, cmd: &mut Command, what: &str) -> Result<()> {
    crate::python::run(&d.root, cmd, what)
}

/// `[workspace.package] version` of the root `Cargo.toml`.
pub(crate) fn workspace_version(root: &Path) -> Result<String> {
    let path = root.join("Cargo.toml");
    let text = String::from_utf8_lossy(&read(&path)?).into_owned();
    let manifest: toml::Value = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    manifest
        .get("workspace")
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("version"))
        .and_then(|v| v.as_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: no [workspace.package] version", path.display()))
}

/// The host triple, from `rustc -vV`.
fn host_target() -> Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| OsString::from("rustc"));
    let out = Command::new(&rustc).arg("-vV").output().map_err(|e| format!("cannot run rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "rustc -vV printed no `host:` line".to_owned())
}

/// Moves the one file ending in `suffix` from `stage` into `out`.
fn move_single(stage: &Path, suffix: &str, out: &Path) -> Result<PathBuf> {
    let found: Vec<PathBuf> = list_dir(stage)?.into_iter().filter(|p| file_name(p).ends_with(suffix)).collect();
    let [file] = found.as_slice() else {
        return Err(format!("expected one *{suffix} in {}, found {found:?}", stage.display()));
    };
    let to = out.join(file_name(file));
    fs::rename(file, &to).map_err(|e| format!("cannot move {} to {}: {e}", file.display(), to.display()))?;
    Ok(to)
}

/// `dir`, empty: deleted first if it exists, then created.
fn fresh_dir(dir: PathBuf) -> Result<PathBuf> {
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("cannot delete {}: {e}", dir.display()))?;
    }
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The files (not directories) of `dir`, sorted by name.
fn list_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn file_size(path: &Path) -> Result<u64> {
    fs::metadata(path).map(|m| m.len()).map_err(|e| format!("cannot stat {}: {e}", path.display()))
}

fn read(path: &Path) -> Result<Vec<u8>> {
    crate::read(path)
}

/// `1.2 MiB`, `38.3 KiB`, `512 B`.
fn size_text(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else if b >= KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(512), "512 B");
        assert_eq!(size_text(38_322), "37.4 KiB");
        assert_eq!(size_text(CRATE_SIZE_LIMIT), "10.0 MiB");
    }

    #[test]
    fn a_crate_over_ten_megabytes_is_refused() {
        assert_eq!(over_crate_limit("a.crate", CRATE_SIZE_LIMIT), None);
        let refused = over_crate_limit("mcpgen-schema-0.1.0.crate", CRATE_SIZE_LIMIT + 1).unwrap();
        assert!(refused.starts_with("mcpgen-schema-0.1.0.crate is 10.0 MiB"), "{refused}");
    }

    #[test]
    fn stale_unpacked_copies_of_our_crates_are_found_in_every_source() {
        let home = std::env::temp_dir().join(format!("mcpgen-xtask-cargo-home-{}", std::process::id()));
        let _ = fs::remove_dir_all(&home);
        let src = home.join("registry/src");
        for dir in [
            "-22c3805da5a543b4/mcpgen-runtime-0.1.0",
            "-22c3805da5a543b4/mcpgen-0.1.0",
            "-778034e970cdb2d0/mcpgen-schema-0.1.0",
            // Another version of ours, and crates of others: left alone.
            "-778034e970cdb2d0/mcpgen-runtime-0.0.9",
            "index.crates.io-1949cf8c6b5b557f/serde-1.0.229",
            "index.crates.io-1949cf8c6b5b557f/mcpgen-runtime-extra-0.1.0",
        ] {
            fs::create_dir_all(src.join(dir)).unwrap();
        }
        let found = stale_unpacked(&home, "0.1.0").unwrap();
        let _ = fs::remove_dir_all(&home);
        let found: Vec<String> =
            found.iter().map(|p| p.strip_prefix(&src).unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(
            found,
            [
                "-22c3805da5a543b4/mcpgen-0.1.0",
                "-22c3805da5a543b4/mcpgen-runtime-0.1.0",
                "-778034e970cdb2d0/mcpgen-schema-0.1.0"
            ]
        );
        assert!(stale_unpacked(&home, "0.1.0").unwrap().is_empty(), "no registry/src at all is no error");
    }

    #[test]
    fn the_workspace_version_is_read_from_the_root_manifest() {
        let root = crate::project_root();
        let version = workspace_version(&root).unwrap();
        assert_eq!(version.split('.').count(), 3, "{version}");
        // Every published crate inherits it, so their packages and the CLI carry it too.
        for manifest in ["runtime", "generated", "mcpgen", "bindings/cli", "bindings/c", "bindings/python"] {
            let text = std::fs::read_to_string(root.join(manifest).join("Cargo.toml")).unwrap();
            assert!(text.lines().any(|l| l == "version.workspace = true"), "{manifest}/Cargo.toml has its own version");
        }
    }
}
