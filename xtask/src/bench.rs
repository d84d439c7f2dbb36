//! `cargo xtask bench`: the benchmark of every validation path on one realistic message mix
//! (`bench/benches/mix.rs`, criterion underneath), with the ratios the project has goals for;
//! then the conversation checker against per-message validation on a mix of sessions of both
//! eras (`bench/benches/conversation.rs`, goal: at most 1.25× per message; its cost line, with the
//! goal and whether it is met, is repeated at the end of the run).
//!
//! It pulls the pinned inputs (the `jsonschema` comparison compiles the errata-patched schema)
//! and runs `cargo bench -p mcpgen-bench --bench mix` in the release-based `bench` profile;
//! options become the bench's environment (`MCPGEN_BENCH_*`), trailing arguments go to
//! criterion (a filter such as `'mix/(a|c)$'`, `--quick`, `--profile-time 10`).
//!
//! Then the proxy benchmark ([`proxy`]): ping round trips through `mcpgen proxy` against the
//! same round trips straight to the server; and the HTTP proxy benchmark
//! ([`crate::bench_http`]): modern `tools/list` round trips through `mcpgen proxy --listen`
//! against the same straight to the server, at 1 and 16 clients.
//!
//! `--instructions` runs only the conversation cost line, counted by callgrind
//! ([`crate::bench_instructions`]).

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    /// Round trips per run of the proxy benchmark.
    #[arg(long, default_value_t = 10_000)]
    round_trips: usize,
    /// Leave out the proxy benchmark.
    #[arg(long, conflicts_with = "proxy_only")]
    no_proxy: bool,
    /// Only the proxy benchmark (no criterion lines).
    #[arg(long)]
    proxy_only: bool,
    /// Let the CPUs enter their idle states during the round trips. By default the proxy
    /// benchmark holds `/dev/cpu_dma_latency` at 0 (idle CPUs poll instead of halting), because
    /// on a virtual machine waking a halted CPU costs tens of microseconds per hop, which the
    /// round trips would measure instead of the relays.
    #[arg(long)]
    idle_states: bool,
    /// Only the conversation checker's cost line, counted in instructions under callgrind
    /// (needs `valgrind`): (v) and (w) per pass and their ratio, same binary, same inputs.
    #[arg(long, conflicts_with_all = ["proxy_only", "no_proxy"])]
    instructions: bool,
    /// Arguments for criterion (after `--`), e.g. a benchmark filter `'mix/(a|c)$'`.
    #[arg(last = true)]
    criterion: Vec<String>,
}

pub fn run(root: &Path, args: &BenchArgs) -> Result<()> {
    if args.instructions {
        return crate::bench_instructions::instructions(root, args.messages, args.seed);
    }
    let mut cost = None;
    if !args.proxy_only {
        mix(root, args)?;
        cost = Some(conversation(root, args)?);
    }
    if !args.no_proxy {
        let _poll = if args.idle_states { None } else { IdlePoll::hold() };
        proxy(root, args.round_trips)?;
    }
    if let Some(line) = cost {
        // Repeated last, where it is not lost in criterion's output.
        println!("\n{line}");
    }
    Ok(())
}

/// The criterion benchmark of the message mix.
fn mix(root: &Path, args: &BenchArgs) -> Result<()> {
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
    Ok(())
}

/// What the conversation benchmark's cost line starts with: (w)/(v), the goal and whether it is
/// met (`bench/benches/conversation.rs`).
const COST_LINE: &str = "conversation state cost:";

/// The conversation checker's benchmark (`bench/benches/conversation.rs`), its output passed
/// through; returns its cost line.
fn conversation(root: &Path, args: &BenchArgs) -> Result<String> {
    let cargo: OsString = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!(
        "$ MCPGEN_BENCH_MESSAGES={} MCPGEN_BENCH_SEED={} MCPGEN_BENCH_CLOCK={} cargo bench -p mcpgen-bench --bench conversation -- {}",
        args.messages,
        args.seed,
        args.clock,
        args.criterion.join(" ")
    );
    let mut child = Command::new(cargo)
        .args(["bench", "-p", "mcpgen-bench", "--bench", "conversation", "--"])
        .args(&args.criterion)
        .env("MCPGEN_BENCH_MESSAGES", args.messages.to_string())
        .env("MCPGEN_BENCH_SEED", args.seed.to_string())
        .env("MCPGEN_BENCH_CLOCK", &args.clock)
        .current_dir(root)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    let mut cost = None;
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let line = line.map_err(|e| format!("cannot read the benchmark's output: {e}"))?;
        println!("{line}");
        if line.starts_with(COST_LINE) {
            cost = Some(line);
        }
    }
    let status = child.wait().map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("cargo bench --bench conversation exited with {status}"));
    }
    cost.ok_or_else(|| format!("cargo bench --bench conversation printed no `{COST_LINE}` line"))
}

/// `/dev/cpu_dma_latency` held at 0 while this lives: the kernel keeps idle CPUs out of the
/// states that take long to leave (on a VM, halting, which exits to the hypervisor).
struct IdlePoll {
    _held: std::fs::File,
}

impl IdlePoll {
    /// Holds the request, or says why not (it needs root) and returns `None`.
    fn hold() -> Option<IdlePoll> {
        let held = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/cpu_dma_latency")
            .and_then(|mut f| f.write_all(&0i32.to_ne_bytes()).map(|()| f));
        match held {
            Ok(f) => {
                println!("==> CPU idle states: held at polling for the round trips (/dev/cpu_dma_latency = 0; --idle-states to leave them)");
                Some(IdlePoll { _held: f })
            }
            Err(e) => {
                println!("==> CPU idle states: left as they are (/dev/cpu_dma_latency: {e}); round trips include waking idle CPUs");
                None
            }
        }
    }
}

/// The proxy benchmark: `round_trips` `ping` round trips (after a legacy `initialize`
/// handshake, so every message is valid) from this process to `ping-server` (`bench/src/bin`),
/// straight and through `mcpgen proxy -- ping-server` (findings to `--report`), and through
/// the proxy with `--record` and `--enforce` as well, with `--metrics`, and with `--metrics
/// --otlp-endpoint` (to [`crate::otlp_sink::otlp_sink`]). Each configuration runs three times,
/// interleaved, in one process; the median round trip of each is reported, and the added time
/// per message is half the difference of the medians (a round trip is two messages, each
/// relayed once). Release builds; wall clock (it is the latency a client sees).
fn proxy(root: &Path, round_trips: usize) -> Result<()> {
    let cargo: OsString = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("==> proxy benchmark: building mcpgen and ping-server (release)");
    let status = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "-p",
            "mcpgen-cli",
            "--bin",
            "mcpgen",
            "-p",
            "mcpgen-bench",
            "--bin",
            "ping-server",
            "--bin",
            "http-tools-server",
            "--bin",
            "http-relay",
        ])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build exited with {status}"));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let bin = target.join("release");
    let (mcpgen, server) = (bin.join("mcpgen"), bin.join("ping-server"));
    let scratch = target.join("bench-proxy");
    std::fs::create_dir_all(&scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let (report, record) = (scratch.join("report.jsonl"), scratch.join("record.jsonl"));
    let sink = crate::otlp_sink::otlp_sink().map_err(|e| format!("cannot start the OTLP sink: {e}"))?;
    let configs = proxy_configurations(&mcpgen, &server, &report, &record, sink);
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); configs.len()];
    for run in 0..3 {
        for (i, (name, program, args)) in configs.iter().enumerate() {
            let (program, args) = (program.as_path(), args.as_slice());
            let times = ping_round_trips(program, args, round_trips)
                .map_err(|e| format!("proxy benchmark, {name} (run {}): {e}", run + 1))?;
            samples[i].extend(times);
        }
    }
    let findings = std::fs::read_to_string(&report).map(|t| t.lines().count()).unwrap_or(0);
    let medians: Vec<Duration> = samples.iter_mut().map(|s| percentile(s, 50)).collect();
    println!(
        "\nproxy: {round_trips} ping round trips x 3 runs per configuration (after an initialize handshake), wall clock"
    );
    println!("| configuration | median round trip | p90 | added per message (median) |");
    println!("|---|---:|---:|---:|");
    for (i, (name, _, _)) in configs.iter().enumerate() {
        let added = if i == 0 {
            "—".to_owned()
        } else {
            let d = medians[i].as_secs_f64() - medians[0].as_secs_f64();
            format!("{:.1} µs", d * 1e6 / 2.0)
        };
        println!(
            "| {name} | {:.1} µs | {:.1} µs | {added} |",
            medians[i].as_secs_f64() * 1e6,
            percentile(&mut samples[i], 90).as_secs_f64() * 1e6
        );
    }
    // Issue 36: at most 5 µs added per message with `--report`, and with `--record --enforce`.
    let added = |i: usize| (medians[i].as_secs_f64() - medians[0].as_secs_f64()) * 1e6 / 2.0;
    let verdict = |i: usize| if added(i) <= 5.0 { "met" } else { "NOT met" };
    println!(
        "goal ≤ 5 µs added per message: --report {} ({:.1} µs), --record --enforce {} ({:.1} µs); findings reported in the last run: {findings}",
        verdict(1),
        added(1),
        verdict(2),
        added(2)
    );
    crate::bench_http::run(&bin, &scratch, round_trips)
}

/// The proxy benchmark's configurations: name, program, arguments. Straight to `server`;
/// through `mcpgen proxy --report`; with `--record` and `--enforce` too; with `--metrics` on a
/// free loopback port (nobody scrapes during the run); and with `--metrics` and traces
/// exported to `sink` ([`crate::otlp_sink::otlp_sink`]).
fn proxy_configurations(
    mcpgen: &Path,
    server: &Path,
    report: &Path,
    record: &Path,
    sink: std::net::SocketAddr,
) -> Vec<(&'static str, PathBuf, Vec<OsString>)> {
    let proxy = |flags: &[&OsStr]| {
        let mut args: Vec<OsString> = vec!["proxy".into(), "--report".into(), report.into()];
        args.extend(flags.iter().map(|f| f.to_os_string()));
        args.extend(["--".into(), server.into()]);
        (mcpgen.to_path_buf(), args)
    };
    let (metrics, sink) = (OsStr::new("127.0.0.1:0"), OsString::from(format!("http://{sink}")));
    let with = |name, (program, args)| (name, program, args);
    vec![
        ("direct", server.to_path_buf(), Vec::new()),
        with("mcpgen proxy --report", proxy(&[])),
        with(
            "mcpgen proxy --report --record --enforce",
            proxy(&[OsStr::new("--record"), record.as_os_str(), OsStr::new("--enforce")]),
        ),
        with("mcpgen proxy --report --metrics", proxy(&[OsStr::new("--metrics"), metrics])),
        with(
            "mcpgen proxy --report --metrics --otlp-endpoint",
            proxy(&[OsStr::new("--metrics"), metrics, OsStr::new("--otlp-endpoint"), &sink]),
        ),
    ]
}

/// One run: start `program args`, shake hands, then time `n` ping round trips one at a time.
fn ping_round_trips(program: &Path, args: &[OsString], n: usize) -> std::result::Result<Vec<Duration>, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let mut to = std::io::BufWriter::new(child.stdin.take().expect("piped"));
    let mut from = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    let send = |to: &mut std::io::BufWriter<_>, text: &str| -> std::result::Result<(), String> {
        to.write_all(text.as_bytes())
            .and_then(|()| to.write_all(b"\n"))
            .and_then(|()| to.flush())
            .map_err(|e| e.to_string())
    };
    send(
        &mut to,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
    )?;
    from.read_line(&mut line).map_err(|e| e.to_string())?;
    send(&mut to, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
    let warmup = 200;
    let mut times = Vec::with_capacity(n);
    for i in 1..=(n + warmup) {
        let request = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#);
        let expected = format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#);
        line.clear();
        let t = Instant::now();
        send(&mut to, &request)?;
        from.read_line(&mut line).map_err(|e| e.to_string())?;
        let took = t.elapsed();
        if line.trim_end() != expected {
            return Err(format!("round trip {i}: expected {expected}, got {:?}", line));
        }
        if i > warmup {
            times.push(took);
        }
    }
    drop(to);
    child.wait().map_err(|e| e.to_string())?;
    Ok(times)
}

fn percentile(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort_unstable();
    samples.get((samples.len().saturating_sub(1)) * p / 100).copied().unwrap_or_default()
}
