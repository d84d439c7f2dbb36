//! `cargo xtask test`: every check the project has, as named steps run in order, stopping at
//! the first failure. CI (`.ci/run`) and the README call exactly this.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::{codegen, mirror_from_env, pins, schema, Result};

/// The steps, in order. Adding a check is adding one line here.
const STEPS: &[Step] = &[
    Step::in_process("schema pull", pull_inputs),
    Step::in_process("codegen --check", codegen::check),
    // House style (rustfmt.toml); generated modules carry #[rustfmt::skip].
    Step::command("cargo fmt --check", "cargo", &["fmt", "--all", "--check"], &[]),
    // No import circle between the files of one crate (what counts: xtask/src/circles.rs).
    Step::in_process("import circles", crate::circles::check),
    // No hand-written file over 700 lines or function over 80 but those xtask/sizes.toml keeps,
    // none of them growing (what counts: xtask/src/sizes.rs).
    Step::in_process("sizes", crate::sizes::check),
    // The core (mcpgen, mcpgen-runtime) spawns nothing and opens no file or socket (what
    // counts: xtask/src/core_io.rs).
    Step::in_process("core does no I/O", crate::core_io::check),
    // The official SARIF 2.1.0 schema the CLI's SARIF test validates against (PyPI, pinned).
    Step::in_process("SARIF schema", crate::sarif_schema::pull),
    Step::command("cargo test", "cargo", &["test", "--workspace"], &[]),
    Step::command("cargo test schemars", "cargo", &["test", "-p", "mcpgen", "--features", "schemars"], &[]),
    // Everything else builds with the default `serde` feature: the generated crate and mcpgen
    // must build without it too (two revisions: one of each era).
    Step::command(
        "cargo check without serde",
        "cargo",
        &["check", "-p", "mcpgen", "--no-default-features", "--features", "rev-2026-07-28,rev-2024-11-05"],
        &[],
    ),
    // libmcpgen from C, C++ and Go: static and shared, valgrind, pthreads, pkg-config example,
    // the cgo example's tests under the race detector.
    Step::command("C library", "bash", &["bindings/c/tests/run.sh"], &[]),
    // The cargo-fuzz crate (fuzz/, its own workspace) type-checks on the pinned stable toolchain,
    // libFuzzer's C++ runtime left out (its default feature `libfuzzer`), apart from cargo-fuzz's
    // nightly builds in fuzz/target. `c_abi` calls the C library's exports as Rust functions, so
    // a changed export signature fails here. No fuzzing run.
    Step::command(
        "fuzz targets compile",
        "cargo",
        &[
            "check",
            "--manifest-path",
            "fuzz/Cargo.toml",
            "--bins",
            "--no-default-features",
            "--locked",
            "--target-dir",
            "target/fuzz-check",
        ],
        &[("RUSTFLAGS", "-Dwarnings")],
    )
    .with_hint(
        "if cargo says fuzz/Cargo.lock needs to be updated, run the same command without --locked (cargo adds what \
         is missing and changes nothing else) and commit fuzz/Cargo.lock",
    ),
    Step::command("cargo clippy", "cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[]),
    Step::command(
        "cargo doc",
        "cargo",
        &["doc", "--no-deps", "-p", "mcpgen-runtime", "-p", "mcpgen"],
        &[("RUSTDOCFLAGS", "-Dwarnings")],
    ),
    Step::in_process("python", crate::python::test),
    // The release artifacts built (`cargo xtask dist`), then installed and tested as a user
    // would (`cargo xtask dist check`): the wheel without Rust, the C archive through
    // pkg-config, the CLI binary, the sdist offline, the crates.
    Step::in_process("dist", crate::dist::build_and_check),
    // The official MCP conformance suite against the reference server and client.
    Step::in_process("conformance", crate::conformance::run),
    // The official SDKs against the reference peers, every exchange checked by mcpgen.
    Step::in_process("interop", crate::interop::run),
];

struct Step {
    name: &'static str,
    action: Action,
    /// What to do about a failure, printed with it.
    hint: Option<&'static str>,
}

enum Action {
    /// A function of xtask itself, given the workspace root.
    InProcess(fn(&Path) -> Result<()>),
    /// A program run in the workspace root; `"cargo"` is the cargo that runs xtask.
    Command { program: &'static str, args: &'static [&'static str], env: &'static [(&'static str, &'static str)] },
}

impl Step {
    const fn in_process(name: &'static str, run: fn(&Path) -> Result<()>) -> Step {
        Step { name, action: Action::InProcess(run), hint: None }
    }

    const fn command(
        name: &'static str,
        program: &'static str,
        args: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    ) -> Step {
        Step { name, action: Action::Command { program, args, env }, hint: None }
    }

    const fn with_hint(self, hint: &'static str) -> Step {
        Step { hint: Some(hint), ..self }
    }

    fn run(&self, root: &Path) -> Result<()> {
        match self.action {
            Action::InProcess(run) => run(root),
            Action::Command { program, args, env } => {
                let resolved: OsString = match program {
                    "cargo" => std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
                    other => other.into(),
                };
                let shown: Vec<String> = env
                    .iter()
                    .map(|(key, value)| format!("{key}={value}"))
                    .chain(std::iter::once(program.to_owned()))
                    .chain(args.iter().map(|arg| arg.to_string()))
                    .collect();
                println!("$ {}", shown.join(" "));
                let status = Command::new(&resolved)
                    .args(args)
                    .envs(env.iter().copied())
                    .current_dir(root)
                    .status()
                    .map_err(|e| format!("cannot run {program}: {e}"))?;
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("`{}` exited with {status}", shown.join(" ")))
                }
            }
        }
    }
}

/// `cargo xtask test`.
pub fn run(root: &Path) -> Result<()> {
    let start = Instant::now();
    for step in STEPS {
        println!("==> {}", step.name);
        let step_start = Instant::now();
        step.run(root).map_err(|e| match step.hint {
            Some(hint) => format!("step `{}` failed: {e}\n{hint}", step.name),
            None => format!("step `{}` failed: {e}", step.name),
        })?;
        println!("<== {} ok ({:.1?})", step.name, step_start.elapsed());
    }
    println!("all {} steps passed in {:.1?}", STEPS.len(), start.elapsed());
    Ok(())
}

/// Pulls every pinned schema, official example and extension file into the cache (`schema/<rev>/`,
/// `schema/ext-<name>/`), from
/// `MCPGEN_SCHEMA_MIRROR` when it is set, else from the pinned upstream URLs. The tests read
/// only the cache.
pub(crate) fn pull_inputs(root: &Path) -> Result<()> {
    let mirror = mirror_from_env();
    match &mirror {
        Some(dir) => println!("mirror: {} ({})", dir.display(), schema::MIRROR_ENV),
        None => println!("no mirror ({} unset): downloading from the pinned URLs", schema::MIRROR_ENV),
    }
    let pins = pins::load_pins(root)?;
    let all: Vec<&pins::Pin> = pins.iter().collect();
    schema::pull_inputs(root, &pins, &all, mirror.as_deref())?;
    let exts = pins::load_extensions(root)?;
    let all_exts: Vec<&pins::ExtPin> = exts.iter().collect();
    schema::pull_extensions(root, &all_exts, mirror.as_deref())
}
