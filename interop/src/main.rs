//! `mcpgen-interop`: the official SDKs against the reference peers (see the library's docs
//! and docs/reference.md). `cargo xtask interop` installs the SDKs, builds the binaries and
//! runs `mcpgen-interop all`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcpgen_interop::plan::{default_baseline, Places};
use mcpgen_interop::{concurrent, gate, probed, run_all, step, tap};

#[derive(Parser)]
#[command(name = "mcpgen-interop", version)]
struct Args {
    #[command(subcommand)]
    command: Cmd,
}

/// Where the run finds its inputs and writes its results (`run`, `probe` and `all`).
#[derive(clap::Args)]
struct Where {
    /// The repository root (the drivers are in interop/drivers/).
    #[arg(long)]
    root: PathBuf,
    /// The install and output directory (node_modules/, venv/, runs/, probes/).
    #[arg(long)]
    dir: PathBuf,
    /// Where the built binaries are (mcpgen-reference-*, mcpgen-interop, mcpgen).
    #[arg(long)]
    bin_dir: PathBuf,
    /// The Node.js to run the Node drivers with.
    #[arg(long, default_value = "node")]
    node: PathBuf,
    /// The baseline [default: ROOT/interop/baseline.toml].
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Only the pairings (or probe targets) whose id contains this text.
    #[arg(long)]
    only: Option<String>,
}

impl Where {
    /// The places, and the baseline's path.
    fn places(self, via_proxy: bool) -> (Places, PathBuf, Option<String>) {
        let baseline = self.baseline.unwrap_or_else(|| default_baseline(&self.root));
        (Places { root: self.root, dir: self.dir, bin: self.bin_dir, node: self.node, via_proxy }, baseline, self.only)
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the matrix, print the table, write DIR/results.json; exit 1 on any failure.
    Run {
        #[command(flatten)]
        at: Where,
        /// The HTTP pairings only, with `mcpgen proxy --listen` between the tap and the server:
        /// every operation must work as directly, and the proxy's report must hold the tap's
        /// findings (DIR/results-via-proxy.json).
        #[arg(long)]
        via_proxy: bool,
    },
    /// Run `mcpgen probe` against every SDK server, the real-server panel and the reference
    /// server, print the table, write DIR/probe-results.json and DIR/panel.md; exit 1 on a
    /// finding the baseline's `[[probe]]` entries do not list, one at another level than its
    /// clause, or a stale entry.
    Probe {
        #[command(flatten)]
        at: Where,
    },
    /// SDK clients in both languages at once, each numbering ids from 1, through one `mcpgen
    /// proxy --listen` and through stdio proxies; write DIR/concurrent-results.json; exit 1 on
    /// any proxy finding or failed operation.
    Concurrent {
        #[command(flatten)]
        at: Where,
    },
    /// The SDK clients call a tool with arguments that break its schema through both proxies,
    /// without and with `--enforce`; write DIR/invalid-args-results.json; exit 1 unless each
    /// proxy reported exactly TOOL-7 and the server's call log holds what the proxy let through.
    InvalidArgs {
        #[command(flatten)]
        at: Where,
    },
    /// Everything `cargo xtask interop` runs once the SDKs are installed: `run`, `run
    /// --via-proxy`, `concurrent`, `invalid-args` and `probe`, each to its end; exit 1 when any of them failed or could not
    /// run (each named on stderr with its results file).
    All {
        #[command(flatten)]
        at: Where,
    },
    /// Stand in for a stdio server: start it, pass every line through, record each line in
    /// DIR/stdio-<pid>.jsonl first.
    TapStdio {
        #[arg(long)]
        trace_dir: PathBuf,
        /// The server's stderr is appended here.
        #[arg(long)]
        stderr: PathBuf,
        /// The server and its arguments.
        #[arg(last = true, required = true)]
        server: Vec<String>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpgen-interop: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match args.command {
        Cmd::Run { at, via_proxy } => {
            let (places, baseline, only) = at.places(via_proxy);
            exit(runtime.block_on(run_all(&places, &baseline, only.as_deref())), "mcpgen-interop")
        }
        Cmd::Probe { at } => {
            let (places, baseline, only) = at.places(false);
            exit(runtime.block_on(probed::probe_all(&places, &baseline, only.as_deref())), "mcpgen-interop probe")
        }
        Cmd::Concurrent { at } => {
            let (places, baseline, only) = at.places(false);
            exit(
                runtime.block_on(concurrent::run_concurrent(&places, &baseline, only.as_deref())),
                "mcpgen-interop concurrent",
            )
        }
        Cmd::InvalidArgs { at } => {
            let (places, _, only) = at.places(false);
            exit(runtime.block_on(gate::run_invalid_args(&places, only.as_deref())), "mcpgen-interop invalid-args")
        }
        Cmd::All { at } => {
            let (places, baseline, only) = at.places(false);
            let problems = runtime.block_on(step::run_step(&places, &baseline, only.as_deref()));
            for p in &problems {
                eprintln!("mcpgen-interop all: {p}");
            }
            if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Cmd::TapStdio { trace_dir, stderr, server } => {
            let (program, rest) = server.split_first().expect("clap requires the server");
            match runtime.block_on(tap::stdio(&trace_dir, &stderr, program, rest)) {
                Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
                Err(e) => {
                    eprintln!("mcpgen-interop tap-stdio: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// The exit status of a run: 0 passed, 1 failed, 2 could not be run (said on stderr).
fn exit(outcome: Result<bool, String>, name: &str) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::from(2)
        }
    }
}
