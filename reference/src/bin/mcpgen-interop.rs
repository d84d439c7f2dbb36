//! `mcpgen-interop`: the official SDKs against the reference peers (see
//! `mcpgen_reference::interop` and docs/reference.md). `cargo xtask interop` installs the SDKs,
//! builds the binaries and runs `mcpgen-interop run`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcpgen_reference::interop::{self, plan::Places};

#[derive(Parser)]
#[command(name = "mcpgen-interop", version)]
struct Args {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the matrix, print the table, write DIR/results.json; exit 1 on any failure.
    Run {
        /// The repository root (the drivers are in reference/interop/).
        #[arg(long)]
        root: PathBuf,
        /// The install and output directory (node_modules/, venv/, runs/).
        #[arg(long)]
        dir: PathBuf,
        /// Where the built binaries are (mcpgen-reference-*, mcpgen-interop, mcpgen).
        #[arg(long)]
        bin_dir: PathBuf,
        /// The Node.js to run the Node drivers with.
        #[arg(long, default_value = "node")]
        node: PathBuf,
        /// The baseline [default: ROOT/reference/interop/baseline.toml].
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Only the pairings whose id contains this text.
        #[arg(long)]
        only: Option<String>,
        /// The HTTP pairings only, with `mcpgen proxy --listen` between the tap and the server:
        /// every operation must work as directly, and the proxy's report must hold the tap's
        /// findings (DIR/results-via-proxy.json).
        #[arg(long)]
        via_proxy: bool,
    },
    /// Run `mcpgen probe` against every SDK server and the reference server, print the table,
    /// write DIR/probe-results.json; exit 1 on a finding the baseline's `[[probe]]` entries do
    /// not list, or on a stale entry.
    Probe {
        /// The repository root (the drivers are in reference/interop/).
        #[arg(long)]
        root: PathBuf,
        /// The install and output directory (node_modules/, venv/, probes/).
        #[arg(long)]
        dir: PathBuf,
        /// Where the built binaries are (mcpgen-reference-server, mcpgen).
        #[arg(long)]
        bin_dir: PathBuf,
        /// The Node.js to run the Node servers with.
        #[arg(long, default_value = "node")]
        node: PathBuf,
        /// The baseline [default: ROOT/reference/interop/baseline.toml].
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Only the targets whose id contains this text.
        #[arg(long)]
        only: Option<String>,
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
        Cmd::Run { root, dir, bin_dir, node, baseline, only, via_proxy } => {
            let baseline = baseline.unwrap_or_else(|| root.join("reference/interop/baseline.toml"));
            let places = Places { root, dir, bin: bin_dir, node, via_proxy };
            match runtime.block_on(interop::run_all(&places, &baseline, only.as_deref())) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("mcpgen-interop: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Cmd::Probe { root, dir, bin_dir, node, baseline, only } => {
            let baseline = baseline.unwrap_or_else(|| root.join("reference/interop/baseline.toml"));
            let places = Places { root, dir, bin: bin_dir, node, via_proxy: false };
            match runtime.block_on(interop::probed::probe_all(&places, &baseline, only.as_deref())) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("mcpgen-interop probe: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Cmd::TapStdio { trace_dir, stderr, server } => {
            let (program, rest) = server.split_first().expect("clap requires the server");
            match runtime.block_on(interop::tap::stdio(&trace_dir, &stderr, program, rest)) {
                Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
                Err(e) => {
                    eprintln!("mcpgen-interop tap-stdio: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
