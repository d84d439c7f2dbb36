//! `cargo xtask bench` (= `cargo bench -p mcpgen-bench --bench mix`): every validation path on
//! one realistic mix of MCP messages, side by side, with the ratios the project has goals for.
//!
//! Lines (each one pass = every message of the mix once, verdict computed for each):
//! - (a)  mcpgen typed validators (`<T as Decode>::is_valid`) on pre-parsed `serde_json::Value`s;
//! - (a2) the same through `mcpgen::validate_view(rev, name, …)`, dispatching by name per message;
//! - (b)  `mcpgen::validate(rev, name, bytes, opts)`: parse + validate from bytes;
//! - (c)  the `jsonschema` crate, one validator compiled per definition from the
//!   errata-patched schema (outside the timing), `is_valid` on the same pre-parsed values;
//! - (c+d) what a `jsonschema` user holding bytes runs: `serde_json::from_slice`, then (c);
//! - (d)  `serde_json::from_slice::<serde_json::Value>`: parse only.
//!
//! Extending (for the bindings): an in-process line is one more entry in [`lines`] (the C
//! binding adds "(e) C API per-call overhead" by calling its `extern "C"` functions from here,
//! with a [`Ratio`] against (b) in [`RATIOS`]); a line measured by another program (the Python
//! package's script) is one more entry in [`EXTERNAL`], see `mcpgen_bench::report::External`
//! for the protocol. Before anything is timed, every line's verdicts are checked against the
//! mix, so a fast but wrong line cannot be reported.

use std::cell::RefCell;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use mcpgen::rev_2026_07_28 as rev;
use mcpgen::{Decode, Options, Revision};
use mcpgen_bench::clock::Clock;
use mcpgen_bench::mix::{self, Mix};
use mcpgen_bench::report::{self, External, Measured, Ratio, SpeedGoal};

/// Lines measured by other programs (appended by the bindings' helpers).
/// The Python lines run the `python3` first on `PATH`, which needs mcpgen (release build) and
/// `bindings/python/bench/requirements.txt`: `cargo xtask bench` prepares `target/bench-venv`
/// and puts it first (`--no-python`, i.e. `MCPGEN_BENCH_NO_PYTHON=1`, leaves the lines out).
const EXTERNAL: &[External] = &[
    External {
        id: "e",
        label: "C mcpgen_validate_id from bytes, error details (libmcpgen.a)",
        command: &["bash", "bindings/c/bench/run.sh", "details"],
    },
    External {
        id: "e2",
        label: "C mcpgen_validate_id from bytes, verdict only (error_out NULL)",
        command: &["bash", "bindings/c/bench/run.sh", "verdict"],
    },
    External {
        id: "f",
        label: "Python mcpgen.is_valid(bytes, def)",
        command: &["python3", "bindings/python/bench/mix.py", "--line", "mcpgen-bytes"],
    },
    External {
        id: "g",
        label: "Python mcpgen.is_valid(dict, def), pre-parsed",
        command: &["python3", "bindings/python/bench/mix.py", "--line", "mcpgen-dicts"],
    },
    External {
        id: "h",
        label: "Python orjson.loads + jsonschema-rs is_valid (bytes in)",
        command: &["python3", "bindings/python/bench/mix.py", "--line", "jsonschema-rs-bytes"],
    },
    External {
        id: "i",
        label: "Python jsonschema-rs is_valid, pre-parsed",
        command: &["python3", "bindings/python/bench/mix.py", "--line", "jsonschema-rs-dicts"],
    },
];

/// Ratios printed under the table, with the goals of issue 3.
const RATIOS: &[Ratio] = &[
    Ratio { fast: "a", slow: "c", goal: Some(5.0), why: "pre-parsed validation: mcpgen vs jsonschema" },
    Ratio { fast: "b", slow: "d", goal: Some(1.5), why: "mcpgen parse+validate vs serde_json parse alone" },
    Ratio { fast: "b", slow: "c+d", goal: None, why: "bytes in, verdict out: mcpgen vs serde_json + jsonschema" },
    Ratio { fast: "b", slow: "c", goal: None, why: "mcpgen from bytes vs jsonschema on pre-parsed values" },
    Ratio { fast: "a", slow: "a2", goal: None, why: "typed call vs dispatch by definition name" },
    Ratio {
        fast: "b",
        slow: "e",
        goal: None,
        why: "C API per-call overhead: the Rust core vs the same call through libmcpgen",
    },
    Ratio {
        fast: "e2",
        slow: "b",
        goal: None,
        why: "C verdict-only call (no error details) vs the Rust core collecting errors",
    },
    Ratio {
        fast: "f",
        slow: "h",
        goal: Some(2.0),
        why: "Python, bytes in: mcpgen vs orjson + jsonschema-rs (issue 5)",
    },
    Ratio {
        fast: "g",
        slow: "i",
        goal: Some(1.2),
        why: "Python, pre-parsed dicts: mcpgen vs jsonschema-rs (issue 36)",
    },
];

/// Speed goals printed under the ratios.
const SPEED_GOALS: &[SpeedGoal] =
    &[SpeedGoal { id: "b", mb_per_s: 2000.0, why: "mcpgen::validate from bytes, parse + validate (issue 36)" }];

/// The serde lines' ratios (issue 12): serde's `Deserialize` of the generated types against
/// serde_json's own tree and against the native decoder.
const SERDE_RATIOS: &[Ratio] = &[
    Ratio {
        fast: "s",
        slow: "d",
        goal: Some(1.0),
        why: "serde_json::from_slice::<T> (validated, typed) vs serde_json::from_slice::<Value> (issue 12)",
    },
    Ratio { fast: "n", slow: "s", goal: None, why: "native decode_bytes vs serde_json::from_slice::<T>" },
];

/// What a line's verdicts mean.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Schema validity: must equal the mix's verdict for every message.
    Schema,
    /// Parse-only reference: every message must parse.
    Parses,
}

/// One pass over the mix: writes the verdict of message `i` to `out[i]`, for every `i`.
type Pass = Box<dyn FnMut(&mut [bool])>;

/// One line measured in this process.
struct Line {
    id: &'static str,
    label: &'static str,
    verdict: Verdict,
    pass: Pass,
}

/// Everything prepared outside the timing.
struct Prepared {
    mix: Mix,
    /// Index into `mix::DEFINITIONS` per message.
    def_idx: Vec<usize>,
    /// Each message parsed once by serde_json (the input of the pre-parsed lines).
    values: Vec<serde_json::Value>,
    /// `jsonschema` validators, one per definition of the mix.
    validators: Vec<jsonschema::Validator>,
}

fn lines(p: &Rc<Prepared>) -> Vec<Line> {
    let opts = Options::default();
    let revision = Revision::parse(mix::REVISION).expect("the bench revision is compiled in");
    let typed: Vec<TypedFn> = mix::DEFINITIONS.iter().map(|d| typed_validator(d).expect("typed validator")).collect();
    let (pa, pa2, pb, pc, pcd, pd) = (p.clone(), p.clone(), p.clone(), p.clone(), p.clone(), p.clone());
    vec![
        Line {
            id: "a",
            label: "mcpgen validate, pre-parsed serde_json::Value (typed is_valid)",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, v) in pa.values.iter().enumerate() {
                    out[i] = typed[pa.def_idx[i]](v, opts);
                }
            }),
        },
        Line {
            id: "a2",
            label: "mcpgen::validate_view by name, pre-parsed serde_json::Value",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, v) in pa2.values.iter().enumerate() {
                    out[i] = mcpgen::validate_view(revision, pa2.mix.messages[i].def, &v, opts).is_ok();
                }
            }),
        },
        Line {
            id: "b",
            label: "mcpgen::validate from bytes (parse + validate)",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, m) in pb.mix.messages.iter().enumerate() {
                    out[i] = mcpgen::validate(revision, m.def, &m.bytes, opts).is_ok();
                }
            }),
        },
        Line {
            id: "c",
            label: "jsonschema 0.61 is_valid, pre-parsed serde_json::Value",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, v) in pc.values.iter().enumerate() {
                    out[i] = pc.validators[pc.def_idx[i]].is_valid(v);
                }
            }),
        },
        Line {
            id: "c+d",
            label: "serde_json::from_slice + jsonschema is_valid (bytes in)",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, m) in pcd.mix.messages.iter().enumerate() {
                    out[i] = serde_json::from_slice::<serde_json::Value>(&m.bytes)
                        .is_ok_and(|v| pcd.validators[pcd.def_idx[i]].is_valid(&v));
                }
            }),
        },
        Line {
            id: "d",
            label: "serde_json::from_slice::<Value> (parse only)",
            verdict: Verdict::Parses,
            pass: Box::new(move |out| {
                for (i, m) in pd.mix.messages.iter().enumerate() {
                    out[i] = serde_json::from_slice::<serde_json::Value>(&m.bytes).is_ok();
                }
            }),
        },
    ]
}

type TypedFn = fn(&serde_json::Value, Options) -> bool;

/// Decodes bytes as one definition of the mix; `true` when it decodes.
type DecodeFn = fn(&[u8]) -> bool;

/// The decode lines (issue 12), typed per definition like (a):
/// - (s) `serde_json::from_slice::<T>` through the generated `Deserialize` (serde input read
///   into a tape, then the generated validator and builder, lossless policy);
/// - (n) the native `T::decode_bytes(bytes, Policy::Lossless)` (mcpgen's parser, same
///   validator and builder).
fn serde_lines(p: &Rc<Prepared>) -> Vec<Line> {
    macro_rules! decoders {
        ($($t:ident),* $(,)?) => {
            fn decoders(name: &str) -> Option<(DecodeFn, DecodeFn)> {
                match name {
                    $(stringify!($t) => Some((
                        |b: &[u8]| serde_json::from_slice::<rev::$t>(b).is_ok(),
                        |b: &[u8]| <rev::$t as Decode>::decode_bytes(b, mcpgen::Policy::Lossless).is_ok(),
                    )),)*
                    _ => None,
                }
            }
        };
    }
    decoders!(
        CallToolRequest,
        CallToolResultResponse,
        ListToolsResultResponse,
        ReadResourceResultResponse,
        JSONRPCErrorResponse,
        ProgressNotification,
        LoggingMessageNotification,
        ToolListChangedNotification,
        CancelledNotification,
    );
    let table: Vec<(DecodeFn, DecodeFn)> =
        mix::DEFINITIONS.iter().map(|d| decoders(d).expect("a decoder per definition of the mix")).collect();
    let (ps, pn) = (p.clone(), p.clone());
    let (ts, tn) = (table.clone(), table);
    vec![
        Line {
            id: "s",
            label: "serde_json::from_slice::<T> (generated Deserialize: typed, validated)",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, m) in ps.mix.messages.iter().enumerate() {
                    out[i] = ts[ps.def_idx[i]].0(&m.bytes);
                }
            }),
        },
        Line {
            id: "n",
            label: "native T::decode_bytes (mcpgen parser, typed, validated)",
            verdict: Verdict::Schema,
            pass: Box::new(move |out| {
                for (i, m) in pn.mix.messages.iter().enumerate() {
                    out[i] = tn[pn.def_idx[i]].1(&m.bytes);
                }
            }),
        },
    ]
}

/// The typed validator of a definition of the mix, resolved once (no name lookup per message).
fn typed_validator(name: &str) -> Option<TypedFn> {
    macro_rules! typed {
        ($($t:ident),* $(,)?) => {
            match name {
                $(stringify!($t) => Some(|v: &serde_json::Value, o: Options| <rev::$t as Decode>::is_valid(&v, o)),)*
                _ => None,
            }
        };
    }
    typed!(
        CallToolRequest,
        CallToolResultResponse,
        ListToolsResultResponse,
        ReadResourceResultResponse,
        JSONRPCErrorResponse,
        ProgressNotification,
        LoggingMessageNotification,
        ToolListChangedNotification,
        CancelledNotification,
    )
}

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("bench/ is inside the workspace").to_path_buf();
    let n = env_usize("MCPGEN_BENCH_MESSAGES", 10_000)?;
    let seed = env_usize("MCPGEN_BENCH_SEED", 2026)? as u64;
    let mut mix = mix::generate(n, seed);
    if let Ok(defs) = std::env::var("MCPGEN_BENCH_DEFS") {
        // For profiling one kind of message: keep only these definitions.
        let keep: Vec<&str> = defs.split(',').map(str::trim).collect();
        mix.messages.retain(|m| keep.contains(&m.def));
    }
    let prepared = Rc::new(prepare(&root, mix)?);
    let mix = &prepared.mix;
    let (messages, bytes) = (mix.messages.len(), mix.total_bytes());
    println!(
        "mcpgen bench: {messages} messages ({} meant invalid), {:.2} MB, revision {}, seed {seed}",
        mix.invalid_count(),
        bytes as f64 / 1e6,
        mix::REVISION
    );
    for (def, count, b) in mix.breakdown() {
        println!("  {def:<28} {count:>6} messages {:>8.2} MB", b as f64 / 1e6);
    }

    let clock = Clock::from_env()?;
    println!("clock: {}", clock.describe());
    let mut lines = lines(&prepared);
    lines.extend(serde_lines(&prepared));
    if let Ok(ids) = std::env::var("MCPGEN_BENCH_PROFILE") {
        return profile(&mut lines, &ids, messages, env_usize("MCPGEN_BENCH_PASSES", 20)?, clock);
    }
    check_agreement(&prepared, &mut lines)?;
    println!("verdicts: every line agrees with the mix on all {messages} messages\n");

    let expected_invalid: Vec<usize> =
        mix.messages.iter().enumerate().filter(|(_, m)| !m.valid).map(|(i, _)| i).collect();
    let mut measured = measure(lines, messages, bytes as u64, clock);
    if !EXTERNAL.is_empty() {
        let tsv = target_dir(&root).join("mcpgen-bench/mix.tsv");
        std::fs::create_dir_all(tsv.parent().expect("has a parent")).map_err(|e| e.to_string())?;
        std::fs::write(&tsv, mix.to_tsv()).map_err(|e| format!("cannot write {}: {e}", tsv.display()))?;
        let no_python = std::env::var_os("MCPGEN_BENCH_NO_PYTHON").is_some();
        for ext in EXTERNAL {
            if no_python && ext.command.first() == Some(&"python3") {
                println!("({}) not measured: the Python lines were left out (--no-python)", ext.id);
                continue;
            }
            measured.push(ext.run(&root, &tsv, &expected_invalid)?);
        }
    }
    let ratios: Vec<Ratio> = RATIOS.iter().chain(SERDE_RATIOS).copied().collect();
    print!("{}", report::render(messages, bytes, &measured, &ratios));
    print!("{}", report::render_speed_goals(bytes, &measured, SPEED_GOALS));
    Ok(())
}

/// `MCPGEN_BENCH_PROFILE=a,c`: runs only those lines, `MCPGEN_BENCH_PASSES` passes each, no
/// criterion and no agreement check, so a profiler (`perf record`, `valgrind --tool=callgrind`) sees little else.
fn profile(lines: &mut [Line], ids: &str, messages: usize, passes: usize, clock: Clock) -> Result<(), String> {
    let wanted: Vec<&str> = ids.split(',').map(str::trim).collect();
    for id in &wanted {
        let line = lines.iter_mut().find(|l| l.id == *id).ok_or_else(|| format!("no line ({id})"))?;
        let mut out = vec![false; messages];
        let took = clock.time(|| {
            for _ in 0..passes {
                (line.pass)(black_box(&mut out));
                black_box(&out);
            }
        });
        let per_pass = took.as_secs_f64() / passes.max(1) as f64;
        println!("({id}) {}: {:.2} ms/pass over {passes} passes", line.label, per_pass * 1e3);
    }
    Ok(())
}

fn env_usize(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Ok(s) => s.parse().map_err(|_| format!("{name}={s} is not a number")),
        Err(_) => Ok(default),
    }
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
}

fn prepare(root: &Path, mix: Mix) -> Result<Prepared, String> {
    let def_idx = mix.messages.iter().map(|m| Mix::def_index(m.def)).collect();
    let values = mix
        .messages
        .iter()
        .map(|m| serde_json::from_slice(&m.bytes).map_err(|e| format!("generated message is not JSON: {e}")))
        .collect::<Result<_, _>>()?;
    let schema = patched_schema(root)?;
    let validators = mix::DEFINITIONS
        .iter()
        .map(|def| {
            let mut doc = schema.clone();
            doc.as_object_mut().expect("schema is an object").insert("$ref".into(), format!("#/$defs/{def}").into());
            jsonschema::options()
                .should_validate_formats(false)
                .build(&doc)
                .map_err(|e| format!("jsonschema cannot compile {def}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Prepared { mix, def_idx, values, validators })
}

/// `schema/<rev>/schema.json` with `schema/errata/<rev>.json` applied (the same ledger the
/// generator applies: each entry's `expect` is asserted, then replaced by `replace`).
fn patched_schema(root: &Path) -> Result<serde_json::Value, String> {
    let read = |p: PathBuf| -> Result<serde_json::Value, String> {
        let bytes = std::fs::read(&p)
            .map_err(|e| format!("cannot read {} ({e}); run `cargo xtask schema pull` first", p.display()))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{} is not JSON: {e}", p.display()))
    };
    let mut schema = read(root.join("schema").join(mix::REVISION).join("schema.json"))?;
    let ledger = read(root.join("schema/errata").join(format!("{}.json", mix::REVISION)))?;
    for e in ledger["errata"].as_array().ok_or("errata ledger without `errata`")? {
        let pointer = e["pointer"].as_str().ok_or("erratum without `pointer`")?;
        let slot = schema.pointer_mut(pointer).ok_or_else(|| format!("erratum pointer {pointer} not in the schema"))?;
        if *slot != e["expect"] {
            return Err(format!("erratum {pointer}: schema holds {slot}, ledger expects {}", e["expect"]));
        }
        *slot = e["replace"].clone();
    }
    Ok(schema)
}

/// Runs every line once and compares its verdicts with the mix's.
fn check_agreement(p: &Prepared, lines: &mut [Line]) -> Result<(), String> {
    let expected: Vec<bool> = p.mix.messages.iter().map(|m| m.valid).collect();
    let mut problems = Vec::new();
    for line in lines.iter_mut() {
        let mut got = vec![false; expected.len()];
        (line.pass)(&mut got);
        for (i, m) in p.mix.messages.iter().enumerate() {
            let want = match line.verdict {
                Verdict::Schema => m.valid,
                Verdict::Parses => true,
            };
            if got[i] != want {
                let text = String::from_utf8_lossy(&m.bytes);
                let cut: String = text.chars().take(300).collect();
                problems.push(format!("({}) message {i} ({}): got {}, expected {want}: {cut}", line.id, m.def, got[i]));
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let total = problems.len();
    problems.truncate(20);
    Err(format!("{total} disagreement(s) before timing:\n{}", problems.join("\n")))
}

/// Times every line with criterion (flat sampling: each sample is several whole passes) and
/// reports the median seconds per pass of its samples.
fn measure(lines: Vec<Line>, messages: usize, bytes: u64, clock: Clock) -> Vec<Measured> {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut recorded = Vec::new();
    {
        let mut group = c.benchmark_group("mix");
        group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(bytes));
        for mut line in lines {
            let samples: Rc<RefCell<Vec<(u64, Duration)>>> = Rc::default();
            let sink = samples.clone();
            let mut out = vec![false; messages];
            group.bench_function(line.id, |b| {
                b.iter_custom(|iters| {
                    let elapsed = clock.time(|| {
                        for _ in 0..iters {
                            (line.pass)(black_box(&mut out));
                            black_box(&out);
                        }
                    });
                    sink.borrow_mut().push((iters, elapsed));
                    elapsed
                })
            });
            recorded.push((line.id, line.label, samples));
        }
        group.finish();
    }
    c.final_summary();
    recorded
        .into_iter()
        .filter_map(|(id, label, samples)| {
            // The measurement samples are the last `sample_size` calls; earlier ones are warm-up.
            let s = samples.borrow();
            let tail = &s[s.len().saturating_sub(10)..];
            let mut per_pass: Vec<f64> = tail.iter().map(|(n, d)| d.as_secs_f64() / *n as f64).collect();
            if per_pass.is_empty() {
                return None; // filtered out on the command line
            }
            per_pass.sort_by(f64::total_cmp);
            let median = per_pass[per_pass.len() / 2];
            Some(Measured { id: id.to_owned(), label: label.to_owned(), seconds_per_pass: median })
        })
        .collect()
}
