//! `cargo xtask fuzz [--target NAME] [--seconds N]`: runs the cargo-fuzz targets of `fuzz/`
//! (not a workspace member, never part of CI) for a given time each, seeded with the official
//! examples and the project's vectors, and prints executions and findings per target.
//!
//! Installs nothing: without `cargo-fuzz` or the nightly toolchain it says what to install and
//! exits 2. Seed corpora are written at run time into `fuzz/corpus/<target>/` (git-ignored),
//! from the example cache `schema/2026-07-28/examples` and `vectors/{decode,protocol}`; libFuzzer
//! adds what it finds there, and crashes land in `fuzz/artifacts/<target>/`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// The targets in `fuzz/fuzz_targets/`.
pub const TARGETS: &[&str] = &["decode", "validate", "check_request"];

#[derive(clap::Args)]
pub struct FuzzArgs {
    /// Run only this target (decode, validate, check_request) [default: all]
    #[arg(long, value_name = "NAME")]
    target: Option<String>,
    /// Seconds per target.
    #[arg(long, value_name = "N", default_value_t = 60)]
    seconds: u64,
}

/// Exit 0: every target ran clean; 1: a target crashed or could not build; 2: usage or a
/// missing tool.
pub fn main(root: &Path, args: FuzzArgs) -> ExitCode {
    let targets: Vec<&str> = match &args.target {
        Some(t) if TARGETS.contains(&t.as_str()) => vec![t.as_str()],
        Some(t) => {
            eprintln!("error: unknown fuzz target `{t}` (expected one of {})", TARGETS.join(", "));
            return ExitCode::from(2);
        }
        None => TARGETS.to_vec(),
    };
    if args.seconds == 0 {
        eprintln!("error: --seconds must be at least 1");
        return ExitCode::from(2);
    }
    if let Err(e) = check_tools(root) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let examples = match examples_dir(root) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = Vec::new();
    let mut rows = Vec::new();
    for t in targets {
        let corpus = root.join("fuzz/corpus").join(t);
        let seeds = match write_seeds(root, &examples, t, &corpus) {
            Ok(n) => n,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        println!("==> fuzz {t}: {} s, {seeds} seeds in {}", args.seconds, corpus.display());
        match run_target(root, t, &corpus, args.seconds) {
            Ok(r) => {
                if !r.ok {
                    failed.push(t);
                }
                rows.push((t, r));
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed.push(t);
            }
        }
    }
    println!("\n{:<14} {:>12} {:>10} {:>8} {:>7}  result", "target", "executions", "exec/s", "corpus", "cover");
    for (t, r) in &rows {
        println!("{:<14} {:>12} {:>10} {:>8} {:>7}  {}", t, r.execs, r.execs_per_sec, r.corpus, r.cover, r.summary);
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: fuzz target(s) failed: {} (see fuzz/artifacts/ and the log under target/fuzz-logs/)",
            failed.join(", ")
        );
        ExitCode::FAILURE
    }
}

fn check_tools(root: &Path) -> Result<(), String> {
    let cargo_fuzz = Command::new("cargo")
        .args(["fuzz", "--version"])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !cargo_fuzz.is_ok_and(|s| s.success()) {
        return Err("cargo-fuzz is not installed; install it with `cargo install cargo-fuzz` (this command installs nothing itself)".into());
    }
    let nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !nightly.is_ok_and(|s| s.success()) {
        return Err("cargo fuzz needs the nightly toolchain; install it with `rustup toolchain install nightly`".into());
    }
    Ok(())
}

fn examples_dir(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("schema/2026-07-28/examples");
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!("official examples not found at {}; run `cargo xtask schema pull` first", dir.display()))
    }
}

/// Writes the seed corpus: every official example file as is, and the `input` of every
/// project vector (decode and protocol). Returns how many seeds were written.
fn write_seeds(root: &Path, examples: &Path, target: &str, corpus: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(corpus).map_err(|e| format!("cannot create {}: {e}", corpus.display()))?;
    let mut n = 0;
    let mut write = |name: String, bytes: &[u8]| -> Result<(), String> {
        let path = corpus.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        n += 1;
        Ok(())
    };
    for def in sorted_entries(examples)? {
        if !def.is_dir() {
            continue;
        }
        let def_name = file_name(&def);
        for f in sorted_entries(&def)? {
            if f.extension().is_some_and(|x| x == "json") {
                let bytes = crate::read(&f)?;
                write(format!("seed-example-{def_name}-{}", file_name(&f)), &bytes)?;
            }
        }
    }
    let vector_dirs: &[&str] = if target == "check_request" {
        &["vectors/protocol", "vectors/decode"]
    } else {
        &["vectors/decode", "vectors/protocol"]
    };
    for dir in vector_dirs {
        let dir = root.join(dir);
        if !dir.is_dir() {
            continue;
        }
        for f in sorted_entries(&dir)? {
            if f.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_slice(&crate::read(&f)?).map_err(|e| format!("{}: {e}", f.display()))?;
            let input = match (v.get("input"), v.get("input_text").and_then(|t| t.as_str())) {
                (Some(i), _) => serde_json::to_vec(i).map_err(|e| e.to_string())?,
                (None, Some(t)) => t.as_bytes().to_vec(),
                _ => continue,
            };
            write(format!("seed-vector-{}", file_name(&f)), &input)?;
        }
    }
    Ok(n)
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    out.sort();
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

struct RunResult {
    ok: bool,
    execs: String,
    execs_per_sec: String,
    corpus: String,
    cover: String,
    summary: String,
}

/// `cargo +nightly fuzz run --debug-assertions --sanitizer none TARGET CORPUS --
/// -max_total_time=N`, its output kept in `target/fuzz-logs/TARGET.log`; the last status line
/// is parsed for the table. No sanitizer: the mcpgen crate has no `unsafe` code, so
/// AddressSanitizer would only slow the search; debug assertions keep overflow checks on.
fn run_target(root: &Path, target: &str, corpus: &Path, seconds: u64) -> Result<RunResult, String> {
    let logs = root.join("target/fuzz-logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    let log_path = logs.join(format!("{target}.log"));
    let mut log = std::fs::File::create(&log_path).map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let max_time = format!("-max_total_time={seconds}");
    let args = [
        "+nightly",
        "fuzz",
        "run",
        "--debug-assertions",
        "--sanitizer",
        "none",
        target,
        &corpus.to_string_lossy(),
        "--",
        &max_time,
        "-print_final_stats=1",
    ];
    println!("$ cargo {}", args.join(" "));
    let mut child = Command::new("cargo")
        .args(args)
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    // libFuzzer reports on stderr; stdout carries little. Read stdout on a thread.
    let stdout = child.stdout.take();
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut s) = stdout {
            let _ = std::io::Read::read_to_end(&mut s, &mut buf);
        }
        buf
    });
    let mut last_status = String::new();
    let mut execs = String::from("?");
    let mut crash = None;
    let mut tail: Vec<String> = Vec::new();
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines().map_while(|l| l.ok()) {
            let _ = writeln!(log, "{line}");
            if line.starts_with('#')
                && (line.contains("pulse") || line.contains("DONE") || line.contains("NEW") || line.contains("REDUCE"))
            {
                last_status = line.clone();
            }
            if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
                execs = n.trim().to_owned();
            }
            if line.contains("Test unit written to") {
                crash = Some(line.trim().to_owned());
            }
            if line.starts_with("Compiling") || line.contains("Finished") {
                println!("   {}", line.trim());
            }
            tail.push(line);
            if tail.len() > 60 {
                tail.remove(0);
            }
        }
    }
    let status = child.wait().map_err(|e| format!("cargo fuzz: {e}"))?;
    let _ = log.write_all(&out_thread.join().unwrap_or_default());
    let field = |key: &str| -> String {
        let mut it = last_status.split_whitespace();
        while let Some(w) = it.next() {
            if w == key {
                return it.next().unwrap_or("?").trim_end_matches(':').to_owned();
            }
        }
        "?".into()
    };
    let (cover, corpus_size) = (field("cov:"), field("corp:"));
    let corpus_size = corpus_size.split('/').next().unwrap_or("?").to_owned();
    let ok = status.success() && crash.is_none();
    if !ok {
        eprintln!("--- last lines of {} ---", log_path.display());
        for l in &tail {
            eprintln!("{l}");
        }
    }
    Ok(RunResult {
        ok,
        execs,
        execs_per_sec: field("exec/s:"),
        corpus: corpus_size,
        cover,
        summary: match (&crash, status.success()) {
            (Some(c), _) => format!("FOUND: {c}"),
            (None, true) => "no crash".into(),
            (None, false) => format!("failed ({status}); see {}", log_path.display()),
        },
    })
}
