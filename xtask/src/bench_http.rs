//! The HTTP proxy benchmark of `cargo xtask bench`: modern `tools/list` round trips (a POST with
//! the standard headers, a JSON answer) to `http-tools-server` (`bench/src/bin`: a fixed answer,
//! so the proxy is what is measured), straight and through `mcpgen proxy --listen 127.0.0.1:0
//! --upstream … --report …`, and through `http-relay` (`bench/src/bin`: a bare hyper reverse
//! proxy, the proxy's HTTP stack without checking — the floor of any proxy on that stack), by 1
//! and by 16 concurrent clients (one keep-alive connection each, one request at a time).
//! A fourth way is the proxy with `--metrics` (a free loopback port, nobody scrapes) and traces
//! exported to an OTLP sink (`--otlp-endpoint`, [`crate::otlp_sink::otlp_sink`]): export must not
//! sit on the relay's path. A fifth is the proxy with `--enforce`, which checks each client
//! message before it forwards it (so the check is on the relay's path). Direct, relayed and
//! proxied runs alternate, three of each; the
//! medians, p99s and throughputs are reported side by side with their ratios to direct. Goals
//! (measured against the bare relay, the floor on this stack): at 1 client an added median at
//! most 1.5× the relay's, and at 16 clients at least 90 % of the relay's throughput. Wall
//! clock, plain std HTTP/1.1 client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Result;

/// Kills a child however the benchmark ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `program args` and reads `listening on http://ADDR/mcp` from its stdout.
fn start(program: &Path, args: &[&str]) -> Result<(Running, SocketAddr)> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).map_err(|e| e.to_string())?;
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|u| u.strip_suffix("/mcp"))
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("{} printed {line:?}, not its URL", program.display()))?;
    Ok((Running(child), addr))
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// One client: `n` round trips (after `warmup`) on one keep-alive connection; the times.
fn client(addr: SocketAddr, first_id: u64, warmup: usize, n: usize) -> std::result::Result<Vec<Duration>, String> {
    let stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let mut writer = stream;
    let mut times = Vec::with_capacity(n);
    let mut line = String::new();
    for i in 0..(warmup + n) {
        let id = first_id + i as u64;
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{META}}}}}"#);
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let t = Instant::now();
        writer.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
        let mut length = None;
        let mut status = String::new();
        reader.read_line(&mut status).map_err(|e| e.to_string())?;
        loop {
            line.clear();
            reader.read_line(&mut line).map_err(|e| e.to_string())?;
            let h = line.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.trim().eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse::<usize>().ok();
                }
            }
        }
        let mut answer = vec![0; length.ok_or("an answer without Content-Length")?];
        reader.read_exact(&mut answer).map_err(|e| e.to_string())?;
        let took = t.elapsed();
        if !status.starts_with("HTTP/1.1 200")
            || !answer.starts_with(format!(r#"{{"jsonrpc":"2.0","id":{id},"#).as_bytes())
        {
            return Err(format!("round trip {id}: {status:?} {:?}", String::from_utf8_lossy(&answer)));
        }
        if i >= warmup {
            times.push(took);
        }
    }
    Ok(times)
}

/// One run of `clients` clients of `per_client` round trips each: every round trip's time
/// and the run's wall time.
fn run_clients(addr: SocketAddr, clients: usize, per_client: usize) -> Result<(Vec<Duration>, Duration)> {
    let warmup = 100;
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(clients + 1));
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let barrier = std::sync::Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                client(addr, (c as u64 + 1) * 10_000_000, warmup, per_client)
            })
        })
        .collect();
    barrier.wait();
    let t = Instant::now();
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.join().map_err(|_| "a client thread panicked".to_owned())??);
    }
    Ok((all, t.elapsed()))
}

fn percentile(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort_unstable();
    samples.get(samples.len().saturating_sub(1) * p / 100).copied().unwrap_or_default()
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// `cargo xtask bench`'s HTTP proxy benchmark (release binaries in `bin`).
/// One way to the upstream, measured: its round-trip times and its wall time.
#[derive(Default)]
struct Way {
    times: Vec<Duration>,
    wall: Duration,
}

impl Way {
    fn add(&mut self, (times, wall): (Vec<Duration>, Duration)) {
        self.times.extend(times);
        self.wall += wall;
    }
}

/// The proxy with `--metrics` on a free loopback port and traces exported to a local OTLP sink.
fn start_observed(bin: &Path, scratch: &Path, upstream_url: &str) -> Result<(Running, SocketAddr)> {
    let sink = crate::otlp_sink::otlp_sink().map_err(|e| format!("cannot start the OTLP sink: {e}"))?;
    let report = scratch.join("http-report-observed.jsonl").display().to_string();
    let sink = format!("http://{sink}");
    let flags = ["--report", &report, "--metrics", "127.0.0.1:0", "--otlp-endpoint", &sink];
    let mut args = vec!["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream_url];
    args.extend(flags);
    start(&bin.join("mcpgen"), &args)
}

pub fn run(bin: &Path, scratch: &Path, round_trips: usize) -> Result<()> {
    let report = scratch.join("http-report.jsonl");
    let (_server, upstream) = start(&bin.join("http-tools-server"), &[])?;
    let upstream_url = format!("http://{upstream}/mcp");
    let report_arg = report.display().to_string();
    let (_proxy, proxied) = start(
        &bin.join("mcpgen"),
        &["proxy", "--listen", "127.0.0.1:0", "--upstream", &upstream_url, "--report", &report_arg],
    )?;
    let (_relay, relayed) = start(&bin.join("http-relay"), &[&format!("http://{upstream}")])?;
    let (_observed, observed) = start_observed(bin, scratch, &upstream_url)?;
    let enforce_report = scratch.join("http-report-enforce.jsonl").display().to_string();
    let (_enforcing, enforcing) = start(
        &bin.join("mcpgen"),
        &["proxy", "--listen", "127.0.0.1:0", "--upstream", &upstream_url, "--report", &enforce_report, "--enforce"],
    )?;
    println!(
        "\nHTTP proxy: modern tools/list round trips, {round_trips} per configuration and run (split over the clients), 3 runs, wall clock"
    );
    println!("$ mcpgen proxy --listen 127.0.0.1:0 --upstream {upstream_url} --report {report_arg}");
    println!("(bare hyper relay: bench/src/bin/http-relay.rs, the proxy's HTTP stack without any checking;");
    println!(" + metrics + traces: the same proxy with --metrics 127.0.0.1:0 --otlp-endpoint to a local OTLP sink;");
    println!(" --enforce: the same proxy checking each request before forwarding it)");
    println!("| clients | way | median | added median | p99 | req/s | throughput vs direct |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    let mut verdicts = Vec::new();
    for clients in [1usize, 16] {
        let per_client = (round_trips / clients).max(1);
        let (mut direct, mut relay, mut proxy, mut watched, mut enforced) =
            (Way::default(), Way::default(), Way::default(), Way::default(), Way::default());
        for _ in 0..3 {
            direct.add(run_clients(upstream, clients, per_client)?);
            relay.add(run_clients(relayed, clients, per_client)?);
            proxy.add(run_clients(proxied, clients, per_client)?);
            watched.add(run_clients(observed, clients, per_client)?);
            enforced.add(run_clients(enforcing, clients, per_client)?);
        }
        let n = (3 * clients * per_client) as f64;
        let direct_rps = n / direct.wall.as_secs_f64();
        let direct_median = micros(percentile(&mut direct.times, 50));
        let row = |way: &str, p: &mut Way| {
            let rps = n / p.wall.as_secs_f64();
            let median = micros(percentile(&mut p.times, 50));
            let added = if way == "direct" { "—".to_owned() } else { format!("{:.1} µs", median - direct_median) };
            println!(
                "| {clients} | {way} | {median:.1} µs | {added} | {:.1} µs | {rps:.0} | {:.0} % |",
                micros(percentile(&mut p.times, 99)),
                100.0 * rps / direct_rps
            );
            (median - direct_median, 100.0 * rps / direct_rps)
        };
        row("direct", &mut direct);
        let (relay_added, relay_ratio) = row("bare hyper relay", &mut relay);
        let (added, ratio) = row("mcpgen proxy", &mut proxy);
        let (watched_added, watched_ratio) = row("mcpgen proxy + metrics + traces", &mut watched);
        let (enforced_added, enforced_ratio) = row("mcpgen proxy --enforce", &mut enforced);
        if clients == 1 {
            let times = added / relay_added;
            verdicts.push(format!(
                "added median at 1 client {added:.1} µs = {times:.2}× the bare relay's {relay_added:.1} µs (goal ≤ 1.5×: {}; with metrics and traces {watched_added:.1} µs; --enforce {enforced_added:.1} µs, {:.2}×)",
                met(times <= 1.5),
                enforced_added / relay_added
            ));
        } else {
            let share = 100.0 * ratio / relay_ratio;
            verdicts.push(format!(
                "throughput at 16 clients {share:.0} % of the bare relay's (goal ≥ 90 %: {}; with metrics and traces {:.0} %; --enforce {:.0} %)",
                met(share >= 90.0),
                100.0 * watched_ratio / relay_ratio,
                100.0 * enforced_ratio / relay_ratio
            ));
        }
    }
    let count = |path: &Path| std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0);
    let findings = count(&report) + count(Path::new(&enforce_report));
    println!("{}; findings reported: {findings}", verdicts.join("; "));
    Ok(())
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}
