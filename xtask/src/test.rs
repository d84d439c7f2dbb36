//! `cargo xtask test`: every check the project has, as named steps run in order, stopping at
//! the first failure. CI (`.ci/run`) and the README call exactly this.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::{codegen, mirror_from_env, schema, Result};

/// The steps, in order. Adding a check is adding one line here.
const STEPS: &[Step] = &[
    Step::in_process("schema pull", pull_inputs),
    Step::in_process("codegen --check", codegen::check),
    // House style (rustfmt.toml); generated modules carry #[rustfmt::skip].
    Step::command("cargo fmt --check", "cargo", &["fmt", "--all", "--check"], &[]),
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
    // libmcpgen from C and C++: static and shared, valgrind, pthreads, pkg-config example.
    Step::command("C library", "bash", &["bindings/c/tests/run.sh"], &[]),
    Step::command("cargo clippy", "cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[]),
    Step::command(
        "cargo doc",
        "cargo",
        &["doc", "--no-deps", "-p", "mcpgen-runtime", "-p", "mcpgen"],
        &[("RUSTDOCFLAGS", "-Dwarnings")],
    ),
    Step::in_process("python", crate::python::test),
    // The official MCP conformance suite against the reference server and client.
    Step::in_process("conformance", crate::conformance::run),
    // The official SDKs against the reference peers, every exchange checked by mcpgen.
    Step::in_process("interop", crate::interop::run),
];

struct Step {
    name: &'static str,
    action: Action,
}

enum Action {
    /// A function of xtask itself, given the workspace root.
    InProcess(fn(&Path) -> Result<()>),
    /// A program run in the workspace root; `"cargo"` is the cargo that runs xtask.
    Command { program: &'static str, args: &'static [&'static str], env: &'static [(&'static str, &'static str)] },
}

impl Step {
    const fn in_process(name: &'static str, run: fn(&Path) -> Result<()>) -> Step {
        Step { name, action: Action::InProcess(run) }
    }

    const fn command(
        name: &'static str,
        program: &'static str,
        args: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    ) -> Step {
        Step { name, action: Action::Command { program, args, env } }
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
        step.run(root).map_err(|e| format!("step `{}` failed: {e}", step.name))?;
        println!("<== {} ok ({:.1?})", step.name, step_start.elapsed());
    }
    println!("all {} steps passed in {:.1?}", STEPS.len(), start.elapsed());
    Ok(())
}

/// Pulls every pinned schema and official example into the cache (`schema/<rev>/`), from
/// `MCPGEN_SCHEMA_MIRROR` when it is set, else from the pinned upstream URLs. The tests read
/// only the cache.
pub(crate) fn pull_inputs(root: &Path) -> Result<()> {
    let mirror = mirror_from_env();
    match &mirror {
        Some(dir) => println!("mirror: {} ({})", dir.display(), schema::MIRROR_ENV),
        None => println!("no mirror ({} unset): downloading from the pinned URLs", schema::MIRROR_ENV),
    }
    let pins = schema::load_pins(root)?;
    let all: Vec<&schema::Pin> = pins.iter().collect();
    schema::pull_inputs(root, &pins, &all, mirror.as_deref())
}
