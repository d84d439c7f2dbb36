//! `cargo xtask bench` (second part; = `cargo bench -p mcpgen-bench --bench conversation`): the
//! conversation checker on a realistic mix of sessions of both eras
//! ([`mcpgen_bench::conversation`]) against per-message validation of the same messages.
//!
//! Lines (one pass = every message of every session once):
//! - (v) `mcpgen::protocol::validate_message(rev, bytes, &opts)` per message, under its session's
//!   revision (what a per-message validator does: parse, then method-aware validation);
//! - (w) `Conversation::observe(sender, bytes)` per message, one checker per session: the same
//!   parse and validation on one tape, plus each result checked against its request's
//!   definition and the cross-message rules.
//!
//! The goal (issues 11, 19): (w) costs at most 1.25× (v) per message. Before timing, every message
//! is checked valid by (v) and free of findings in (w), so neither line can be fast by being
//! wrong. Criterion times each line on its own; the cost line then times them in pairs (one pass
//! of each, back to back, `MCPGEN_BENCH_ROUNDS` rounds, 51 by default) and reports the median of
//! the rounds' ratios, which a shared machine's changing load moves far less.

use std::cell::RefCell;
use std::hint::black_box;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use mcpgen::conversation::{Conversation, Sender};
use mcpgen::{MessageOptions, Revision};
use mcpgen_bench::clock::Clock;
use mcpgen_bench::conversation::{self, From, Session};
use mcpgen_bench::report::{self, Measured, Ratio};

const GOAL: f64 = 1.25;

fn sender(f: From) -> Sender {
    match f {
        From::Client => Sender::Client,
        From::Server => Sender::Server,
    }
}

type Pass = Box<dyn FnMut() -> usize>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let n: usize = std::env::var("MCPGEN_BENCH_MESSAGES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let seed: u64 = std::env::var("MCPGEN_BENCH_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(2026);
    let sessions = Rc::new(conversation::generate(n, seed));
    let messages: usize = sessions.iter().map(|s| s.messages.len()).sum();
    let bytes: usize = sessions.iter().flat_map(|s| &s.messages).map(|(_, b)| b.len()).sum();
    let revs: Vec<Revision> = sessions
        .iter()
        .map(|s| Revision::parse(s.revision).ok_or(format!("revision {} is not compiled in", s.revision)))
        .collect::<Result<_, _>>()?;
    let results =
        sessions.iter().flat_map(|s| &s.messages).filter(|(_, b)| b.windows(9).any(|w| w == b"\"result\":")).count();
    println!(
        "mcpgen conversation bench: {} sessions ({} legacy 2025-11-25, {} modern 2026-07-28), {messages} messages ({results} results), {:.2} MB, seed {seed}",
        sessions.len(),
        sessions.iter().filter(|s| s.revision == "2025-11-25").count(),
        sessions.iter().filter(|s| s.revision == "2026-07-28").count(),
        bytes as f64 / 1e6
    );
    let profiling = std::env::var("MCPGEN_BENCH_PROFILE").ok();
    if profiling.is_none() {
        check(&sessions, &revs)?;
        println!("verdicts: every message valid for validate_message, no finding from the checker\n");
    }
    let clock = Clock::from_env()?;
    println!("clock: {}", clock.describe());
    let opts = MessageOptions::new();
    let (sv, sw) = (sessions.clone(), sessions.clone());
    let revs_v = revs.clone();
    let mut lines: Vec<(&'static str, &'static str, Pass)> = vec![
        (
            "v",
            "mcpgen::protocol::validate_message per message (bytes in)",
            Box::new(move || {
                let mut ok = 0;
                for (s, rev) in sv.iter().zip(&revs_v) {
                    for (_, b) in &s.messages {
                        ok += mcpgen::protocol::validate_message(*rev, b, &opts).is_ok() as usize;
                    }
                }
                ok
            }),
        ),
        (
            "w",
            "Conversation::observe per message, one checker per session",
            Box::new(move || {
                let mut ok = 0;
                for s in sw.iter() {
                    let mut c = Conversation::new();
                    for (f, b) in &s.messages {
                        ok += c.observe(sender(*f), b).is_empty() as usize;
                    }
                }
                ok
            }),
        ),
    ];
    if let Some(ids) = profiling {
        return profile(lines, &ids, messages, clock);
    }
    let measured = measure(&mut lines, bytes as u64, clock);
    let ratios = [Ratio {
        fast: "v",
        slow: "w",
        goal: None,
        why: "per-message validation vs the conversation checker (see the cost line below)",
    }];
    print!("{}", report::render(messages, bytes, &measured, &ratios));
    let rounds: usize = match std::env::var("MCPGEN_BENCH_ROUNDS") {
        Ok(s) => s.parse().map_err(|_| format!("MCPGEN_BENCH_ROUNDS={s} is not a number"))?,
        Err(_) => ROUNDS,
    };
    let (v, w) = match lines.as_mut_slice() {
        [(_, _, v), (_, _, w)] => (v, w),
        _ => return Err("the cost line needs exactly the lines (v) and (w)".into()),
    };
    let paired = paired(v, w, rounds, clock);
    let criterion = match (measured.iter().find(|m| m.id == "v"), measured.iter().find(|m| m.id == "w")) {
        (Some(v), Some(w)) => format!("; criterion medians {:.2}×", w.seconds_per_pass / v.seconds_per_pass),
        _ => String::new(),
    };
    let verdict = if paired.ratio <= GOAL { "met" } else { "MISSED" };
    println!(
        "conversation state cost: (w) / (v) = {:.3}× per message, {:.2} µs vs {:.2} µs (median of {rounds} paired rounds{criterion})  [goal ≤ {GOAL}×: {verdict}]",
        paired.ratio,
        paired.w / messages as f64 * 1e6,
        paired.v / messages as f64 * 1e6
    );
    Ok(())
}

/// Rounds of the paired measurement behind the cost line (`MCPGEN_BENCH_ROUNDS`).
const ROUNDS: usize = 51;

/// The medians of the paired measurement: seconds per pass and the ratio (w)/(v).
struct Paired {
    v: f64,
    w: f64,
    ratio: f64,
}

/// The cost line's measurement: `rounds` rounds of one pass of (v) and one of (w), back to back
/// (the order alternates between rounds), so that both lines of a round run under the same load
/// of a shared machine; the ratio is the median of the rounds' ratios, which criterion's two
/// separate runs (seconds apart, under different loads) cannot give.
fn paired(v: &mut Pass, w: &mut Pass, rounds: usize, clock: Clock) -> Paired {
    let time = |pass: &mut Pass| {
        clock
            .time(|| {
                black_box(pass());
            })
            .as_secs_f64()
    };
    let (mut vs, mut ws, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds.max(1) {
        let (tv, tw) = if round % 2 == 0 {
            let tv = time(v);
            (tv, time(w))
        } else {
            let tw = time(w);
            (time(v), tw)
        };
        vs.push(tv);
        ws.push(tw);
        ratios.push(tw / tv);
    }
    let median = |xs: &mut Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    Paired { v: median(&mut vs), w: median(&mut ws), ratio: median(&mut ratios) }
}

fn check(sessions: &[Session], revs: &[Revision]) -> Result<(), String> {
    let mut problems = Vec::new();
    for (k, (s, rev)) in sessions.iter().zip(revs).enumerate() {
        let mut c = Conversation::new();
        for (i, (f, b)) in s.messages.iter().enumerate() {
            if let Err(e) = mcpgen::protocol::validate_message(*rev, b, &MessageOptions::new()) {
                problems.push(format!("session {k} message {i}: validate_message: {e}"));
            }
            for finding in c.observe(sender(*f), b) {
                problems.push(format!("session {k} message {i}: checker: {finding}"));
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let total = problems.len();
    problems.truncate(20);
    Err(format!("{total} problem(s) before timing:\n{}", problems.join("\n")))
}

/// `MCPGEN_BENCH_PROFILE=v,w`: runs only those lines, `MCPGEN_BENCH_PASSES` passes each (default
/// 20), without criterion and without the verdict check, so that a profiler (`perf record`,
/// `valgrind --tool=callgrind`) sees little else. Under callgrind, the instructions of one pass
/// are the difference between a run with N passes and one with 0.
fn profile(
    lines: Vec<(&'static str, &'static str, Pass)>,
    ids: &str,
    messages: usize,
    clock: Clock,
) -> Result<(), String> {
    let passes: usize = match std::env::var("MCPGEN_BENCH_PASSES") {
        Ok(s) => s.parse().map_err(|_| format!("MCPGEN_BENCH_PASSES={s} is not a number"))?,
        Err(_) => 20,
    };
    let mut lines = lines;
    for id in ids.split(',').map(str::trim) {
        let (_, label, pass) = lines.iter_mut().find(|(l, _, _)| *l == id).ok_or_else(|| format!("no line ({id})"))?;
        let took = clock.time(|| {
            for _ in 0..passes {
                black_box(pass());
            }
        });
        let per_message = took.as_secs_f64() / (passes.max(1) * messages) as f64;
        println!("({id}) {label}: {:.3} µs/message over {passes} passes", per_message * 1e6);
    }
    Ok(())
}

/// Times every line with criterion (flat sampling) and reports the median seconds per pass.
fn measure(lines: &mut [(&'static str, &'static str, Pass)], bytes: u64, clock: Clock) -> Vec<Measured> {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut recorded = Vec::new();
    {
        let mut group = c.benchmark_group("conversation");
        group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes));
        for (id, label, pass) in lines.iter_mut() {
            let samples: Rc<RefCell<Vec<(u64, Duration)>>> = Rc::default();
            let sink = samples.clone();
            group.bench_function(*id, |b| {
                b.iter_custom(|iters| {
                    let elapsed = clock.time(|| {
                        for _ in 0..iters {
                            black_box(pass());
                        }
                    });
                    sink.borrow_mut().push((iters, elapsed));
                    elapsed
                })
            });
            recorded.push((*id, *label, samples));
        }
        group.finish();
    }
    c.final_summary();
    recorded
        .into_iter()
        .filter_map(|(id, label, samples)| {
            let s = samples.borrow();
            let tail = &s[s.len().saturating_sub(10)..];
            let mut per_pass: Vec<f64> = tail.iter().map(|(n, d)| d.as_secs_f64() / *n as f64).collect();
            if per_pass.is_empty() {
                return None;
            }
            per_pass.sort_by(f64::total_cmp);
            Some(Measured {
                id: id.to_owned(),
                label: label.to_owned(),
                seconds_per_pass: per_pass[per_pass.len() / 2],
            })
        })
        .collect()
}
