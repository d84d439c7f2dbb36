//! `cargo xtask bench`: the benchmark of every validation path on one realistic message mix
//! (`bench/benches/mix.rs`, criterion underneath), with the ratios the project has goals for;
//! then the conversation checker against per-message validation on a mix of sessions of both
//! eras (`bench/benches/conversation.rs`, goal: at most 1.25× per message).
//!
//! It pulls the pinned inputs (the `jsonschema` comparison compiles the errata-patched schema)
//! and runs `cargo bench -p mcpgen-bench --bench mix` in the release-based `bench` profile;
//! options become the bench's environment (`MCPGEN_BENCH_*`), trailing arguments go to
//! criterion (a filter such as `'mix/(a|c)$'`, `--quick`, `--profile-time 10`).

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use crate::Result;

/// `cargo xtask bench` options.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Messages in the mix (at least 10,000 for the reported numbers).
    #[arg(long, default_value_t = 10_000)]
    messages: usize,
    /// Seed of the deterministic mix generator.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// What a sample is timed with: `cpu` (the benchmark thread's CPU time, stable on a shared
    /// machine) or `wall` (elapsed time).
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "wall"])]
    clock: String,
    /// Leave out the Python lines (f)–(i). Otherwise `target/bench-venv` is prepared first
    /// (the comparison packages and a release build of `./bindings/python`) and its `python3`
    /// runs them.
    #[arg(long)]
    no_python: bool,
    /// Arguments for criterion (after `--`), e.g. a benchmark filter `'mix/(a|c)$'`.
    #[arg(last = true)]
    criterion: Vec<String>,
}

pub fn run(root: &Path, args: &BenchArgs) -> Result<()> {
    crate::test::pull_inputs(root)?;
    let cargo: OsString = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    if args.no_python {
        cmd.env("MCPGEN_BENCH_NO_PYTHON", "1");
    } else {
        println!("==> preparing the Python lines (target/bench-venv; --no-python to leave them out)");
        let bin = crate::python::bench_env(root)?;
        let path = std::env::var_os("PATH").unwrap_or_default();
        let joined = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path)))
            .map_err(|e| format!("cannot build PATH: {e}"))?;
        cmd.env("PATH", joined);
    }
    cmd.args(["bench", "-p", "mcpgen-bench", "--bench", "mix", "--"])
        .args(&args.criterion)
        .env("MCPGEN_BENCH_MESSAGES", args.messages.to_string())
        .env("MCPGEN_BENCH_SEED", args.seed.to_string())
        .env("MCPGEN_BENCH_CLOCK", &args.clock)
        .current_dir(root);
    println!(
        "$ MCPGEN_BENCH_MESSAGES={} MCPGEN_BENCH_SEED={} MCPGEN_BENCH_CLOCK={} cargo bench -p mcpgen-bench --bench mix -- {}",
        args.messages,
        args.seed,
        args.clock,
        args.criterion.join(" ")
    );
    let status = cmd.status().map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("cargo bench exited with {status}"));
    }
    conversation(root, args)
}

/// The conversation checker's benchmark (`bench/benches/conversation.rs`).
fn conversation(root: &Path, args: &BenchArgs) -> Result<()> {
    let cargo: OsString = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!(
        "$ MCPGEN_BENCH_MESSAGES={} MCPGEN_BENCH_SEED={} MCPGEN_BENCH_CLOCK={} cargo bench -p mcpgen-bench --bench conversation -- {}",
        args.messages,
        args.seed,
        args.clock,
        args.criterion.join(" ")
    );
    let status = Command::new(cargo)
        .args(["bench", "-p", "mcpgen-bench", "--bench", "conversation", "--"])
        .args(&args.criterion)
        .env("MCPGEN_BENCH_MESSAGES", args.messages.to_string())
        .env("MCPGEN_BENCH_SEED", args.seed.to_string())
        .env("MCPGEN_BENCH_CLOCK", &args.clock)
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo bench --bench conversation exited with {status}"))
    }
}
