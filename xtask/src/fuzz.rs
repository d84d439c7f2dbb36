//! `cargo xtask fuzz [--target NAME] [--seconds N]`: runs the cargo-fuzz targets of `fuzz/`
//! (not a workspace member; CI only compiles them, in a step of `cargo xtask test`) for a given
//! time each, seeded with the official examples and the project's vectors, and prints
//! executions and findings per target.
//!
//! Installs nothing: without `cargo-fuzz` or the nightly toolchain it says what to install and
//! exits 2. Seed corpora are written at run time into `fuzz/corpus/<target>/` (git-ignored),
//! from the example cache `schema/2026-07-28/examples` and `vectors/{decode,protocol}` (and
//! `vectors/{tools,icons}` for the `tools`, `probe_args` and `c_abi` targets, `vectors/conversations` for
//! `conversation`, in their input formats);
//! libFuzzer adds what it finds there, and crashes, timeouts (over [`TIMEOUT_SECS`] for one
//! input) and out-of-memory inputs land in `fuzz/artifacts/<target>/`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// The targets in `fuzz/fuzz_targets/`.
pub const TARGETS: &[&str] = &[
    "decode",
    "validate",
    "check_request",
    "parse_differential",
    "tools",
    "c_abi",
    "conversation",
    "probe_args",
    "reference_server",
];

/// One input running longer than this is a finding (libFuzzer `-timeout`).
pub const TIMEOUT_SECS: u64 = 1;

/// Largest input libFuzzer makes for the targets that take untrusted tool schemas (`-max_len`);
/// larger seeds (the two biggest hostile tool vectors) are left out of their corpora.
const MAX_LEN: usize = 8192;

/// The pinned revisions by `mcpgen_revision` code of the C library (index = code - 1): their
/// `c_code` in `schema/sources.toml`, the one list (`codegen/src/emit/c.rs` checks it).
fn c_revisions(root: &Path) -> Result<Vec<String>, String> {
    let mut pins = crate::pins::load_pins(root)?;
    pins.sort_by_key(|p| p.c_code);
    Ok(pins.into_iter().map(|p| p.name).collect())
}

#[derive(clap::Args)]
pub struct FuzzArgs {
    /// Run only this target (decode, validate, check_request, parse_differential, tools, c_abi,
    /// conversation, probe_args, reference_server) [default: all]
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
    println!(
        "\n{:<14} {:>12} {:>10} {:>8} {:>7} {:>8} {:>9}  result",
        "target", "executions", "exec/s", "corpus", "cov", "ft", "slowest s"
    );
    for (t, r) in &rows {
        println!(
            "{:<14} {:>12} {:>10} {:>8} {:>7} {:>8} {:>9}  {}",
            t, r.execs, r.execs_per_sec, r.corpus, r.cover, r.features, r.slowest, r.summary
        );
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

/// Writes the seed corpus of `target` (see [`Seeds`]). Returns how many seeds were written.
fn write_seeds(root: &Path, examples: &Path, target: &str, corpus: &Path) -> Result<usize, String> {
    std::fs::create_dir_all(corpus).map_err(|e| format!("cannot create {}: {e}", corpus.display()))?;
    let mut seeds = Seeds { corpus, n: 0, max_len: max_len(target) };
    match target {
        "tools" | "probe_args" => tool_seeds(root, examples, &mut seeds)?,
        "c_abi" => c_abi_seeds(root, examples, &mut seeds)?,
        "conversation" => conversation_seeds(root, &mut seeds)?,
        "reference_server" => reference_server_seeds(root, examples, &mut seeds)?,
        _ => message_seeds(root, examples, target, &mut seeds)?,
    }
    Ok(seeds.n)
}

/// `-max_len` for a target, when it sets one.
fn max_len(target: &str) -> Option<usize> {
    matches!(target, "tools" | "c_abi" | "probe_args").then_some(MAX_LEN)
}

/// A seed corpus being written; seeds over `max_len` are skipped.
struct Seeds<'a> {
    corpus: &'a Path,
    n: usize,
    max_len: Option<usize>,
}

impl Seeds<'_> {
    fn write(&mut self, name: String, bytes: &[u8]) -> Result<(), String> {
        if self.max_len.is_some_and(|m| bytes.len() > m) {
            return Ok(());
        }
        let path = self.corpus.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.n += 1;
        Ok(())
    }
}

/// Every official example file: (definition name, file name, bytes).
fn example_files(examples: &Path) -> Result<Vec<(String, String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    for def in sorted_entries(examples)? {
        if !def.is_dir() {
            continue;
        }
        for f in sorted_entries(&def)? {
            if f.extension().is_some_and(|x| x == "json") {
                out.push((file_name(&def), file_name(&f), crate::read(&f)?));
            }
        }
    }
    Ok(out)
}

/// Every vector of `vectors/<dir>`: (file name, parsed JSON).
fn vector_files(root: &Path, dir: &str) -> Result<Vec<(String, serde_json::Value)>, String> {
    let dir = root.join("vectors").join(dir);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for f in sorted_entries(&dir)? {
        if f.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let v = serde_json::from_slice(&crate::read(&f)?).map_err(|e| format!("{}: {e}", f.display()))?;
        out.push((file_name(&f), v));
    }
    Ok(out)
}

/// A vector's message: `input` as JSON, or `input_text` as is.
fn vector_input(v: &serde_json::Value) -> Result<Option<Vec<u8>>, String> {
    Ok(match (v.get("input"), v.get("input_text").and_then(|t| t.as_str())) {
        (Some(i), _) => Some(serde_json::to_vec(i).map_err(|e| e.to_string())?),
        (None, Some(t)) => Some(t.as_bytes().to_vec()),
        _ => None,
    })
}

fn json_bytes(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// decode, validate, check_request, parse_differential: every official example file as is, and the `input` of
/// every project vector (decode and protocol).
fn message_seeds(root: &Path, examples: &Path, target: &str, seeds: &mut Seeds) -> Result<(), String> {
    for (def, file, bytes) in example_files(examples)? {
        seeds.write(format!("seed-example-{def}-{file}"), &bytes)?;
    }
    let vector_dirs: &[&str] =
        if target == "check_request" { &["protocol", "decode"] } else { &["decode", "protocol"] };
    for dir in vector_dirs {
        for (file, v) in vector_files(root, dir)? {
            if let Some(input) = vector_input(&v)? {
                seeds.write(format!("seed-vector-{file}"), &input)?;
            }
        }
    }
    Ok(())
}

/// reference_server (input: an optional mode byte below 0x20, then the body; see
/// fuzz/fuzz_targets/reference_server.rs): the message seeds as they are (mode 0: no session,
/// no headers), behind mode 1 (HTTP, the standard headers derived from the body) and mode 3 (on
/// a legacy session opened by `initialize`); the modern examples once more behind mode 2 with
/// headers that contradict them (a wrong `MCP-Protocol-Version` and `Mcp-Method`).
fn reference_server_seeds(root: &Path, examples: &Path, seeds: &mut Seeds) -> Result<(), String> {
    let mut bodies = Vec::new();
    for (def, file, bytes) in example_files(examples)? {
        bodies.push((format!("example-{def}-{file}"), bytes));
    }
    for dir in ["protocol", "decode"] {
        for (file, v) in vector_files(root, dir)? {
            if let Some(input) = vector_input(&v)? {
                bodies.push((format!("vector-{file}"), input));
            }
        }
    }
    for (name, body) in &bodies {
        seeds.write(format!("seed-{name}"), body)?;
        for mode in [1u8, 3] {
            let mut b = vec![mode];
            b.extend_from_slice(body);
            seeds.write(format!("seed-mode{mode}-{name}"), &b)?;
        }
        if body.windows(b"protocolVersion".len()).any(|w| w == b"protocolVersion") && name.starts_with("example-") {
            let mut b = b"\x02MCP-Protocol-Version: 2025-11-25\nMcp-Method: ping\n\x00".to_vec();
            b.extend_from_slice(body);
            seeds.write(format!("seed-mode2-{name}"), &b)?;
        }
    }
    Ok(())
}

/// conversation (input: lines of a sender byte, `c` or `s`, then the message): every
/// conversation vector (`vectors/conversations/*.jsonl`, sessions ignored), whole.
fn conversation_seeds(root: &Path, seeds: &mut Seeds) -> Result<(), String> {
    let dir = root.join("vectors/conversations");
    for f in sorted_entries(&dir)? {
        if f.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let mut out = Vec::new();
        for line in String::from_utf8_lossy(&crate::read(&f)?).lines().filter(|l| !l.trim().is_empty()) {
            let row: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("{}: {e}", f.display()))?;
            out.push(if row["from"] == "server" { b's' } else { b'c' });
            match (row.get("message"), row.get("raw").and_then(|r| r.as_str())) {
                (Some(m), _) => out.extend(json_bytes(m)),
                (None, Some(raw)) => out.extend(raw.as_bytes()),
                _ => {}
            }
            out.push(b'\n');
        }
        seeds.write(format!("seed-conversation-{}", file_name(&f)), &out)?;
    }
    Ok(())
}

/// tools (input `DOC [0x00 VALUE]`): each tool vector's tool alone, in a `tools/list` result,
/// and with each of its argument and structured-content values; the official `Tool` and
/// `tools/list` examples; one JSON-RPC response listing the accepted tools.
fn tool_seeds(root: &Path, examples: &Path, seeds: &mut Seeds) -> Result<(), String> {
    let with_value = |tool: &serde_json::Value, value: &serde_json::Value| {
        let mut b = json_bytes(tool);
        b.push(0);
        b.extend(json_bytes(value));
        b
    };
    let mut accepted = Vec::new();
    for (file, v) in vector_files(root, "tools")? {
        let Some(tool) = v.get("tool") else { continue };
        seeds.write(format!("seed-vector-{file}"), &json_bytes(tool))?;
        seeds.write(format!("seed-vector-list-{file}"), &json_bytes(&serde_json::json!({ "tools": [tool] })))?;
        for member in ["arguments", "structured_content"] {
            let cases = v.get(member).and_then(|c| c.as_array()).into_iter().flatten();
            for (i, case) in cases.enumerate() {
                if let Some(value) = case.get("value") {
                    seeds.write(format!("seed-vector-{member}-{i}-{file}"), &with_value(tool, value))?;
                }
            }
        }
        if file.starts_with("accept-") && json_bytes(tool).len() < 1024 {
            accepted.push(tool.clone());
        }
    }
    let response = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "result": { "tools": accepted } });
    seeds.write("seed-response-accepted-tools".into(), &json_bytes(&response))?;
    for (def, file, bytes) in example_files(examples)? {
        if matches!(def.as_str(), "Tool" | "ListToolsResult" | "ListToolsResultResponse") {
            seeds.write(format!("seed-example-{def}-{file}"), &bytes)?;
        }
    }
    Ok(())
}

/// c_abi (input: 5 header bytes, then `A [0x00 B]`; see fuzz/fuzz_targets/c_abi.rs): every
/// official example with its definition name as `B`, the decode and protocol vectors (with
/// their definition or method), each tool vector with its first argument value, and each icon
/// case (`src` or bytes, with the MIME type or server). Header: error and optional outputs
/// wanted, a context, the vector's revision (else 2026-07-28).
fn c_abi_seeds(root: &Path, examples: &Path, seeds: &mut Seeds) -> Result<(), String> {
    let revisions = c_revisions(root)?;
    let seed = |revision: Option<&str>, a: &[u8], b: Option<&[u8]>| {
        // Without a revision: the newest, as the exports' default.
        let code = revision.and_then(|r| revisions.iter().position(|c| c == r)).unwrap_or(revisions.len() - 1);
        let mut out = vec![0x07, code as u8 + 1, 0, 0, 0];
        out.extend_from_slice(a);
        if let Some(b) = b {
            out.push(0);
            out.extend_from_slice(b);
        }
        out
    };
    for (def, file, bytes) in example_files(examples)? {
        seeds.write(format!("seed-example-{def}-{file}"), &seed(None, &bytes, Some(def.as_bytes())))?;
    }
    for dir in ["decode", "protocol"] {
        for (file, v) in vector_files(root, dir)? {
            let Some(input) = vector_input(&v)? else { continue };
            let revision = v.get("revision").and_then(|r| r.as_str());
            let decode = v.get("decode");
            let b = decode
                .and_then(|d| d.get("def").or_else(|| d.get("result_for_method")))
                .or_else(|| v.get("request_method"))
                .and_then(|x| x.as_str());
            seeds.write(format!("seed-vector-{dir}-{file}"), &seed(revision, &input, b.map(str::as_bytes)))?;
        }
    }
    for (file, v) in vector_files(root, "tools")? {
        let Some(tool) = v.get("tool") else { continue };
        let value = ["arguments", "structured_content"]
            .iter()
            .find_map(|m| v.get(*m).and_then(|c| c.get(0)).and_then(|c| c.get("value")))
            .map(json_bytes);
        seeds.write(format!("seed-vector-tools-{file}"), &seed(None, &json_bytes(tool), value.as_deref()))?;
    }
    for (file, v) in vector_files(root, "icons")? {
        let cases = v.get("cases").and_then(|c| c.as_array()).into_iter().flatten();
        for (i, case) in cases.enumerate() {
            let text = |k: &str| case.get(k).and_then(|x| x.as_str());
            let a = match (text("src"), text("bytes_text"), text("bytes_base64")) {
                (Some(src), _, _) => src.as_bytes().to_vec(),
                (None, Some(t), _) => t.as_bytes().to_vec(),
                (None, None, Some(b64)) => base64_decode(b64).ok_or_else(|| format!("{file}: case {i}: bad base64"))?,
                _ => continue,
            };
            let b = text("mime_type").or_else(|| text("server"));
            seeds.write(format!("seed-vector-icons-{i}-{file}"), &seed(None, &a, b.map(str::as_bytes)))?;
        }
    }
    Ok(())
}

/// Standard base64 (with or without padding), for the icon vectors' `bytes_base64`.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = ((acc << 6) | u32::from(v)) & 0xFFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
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
    /// libFuzzer's slowest input, in whole seconds.
    slowest: String,
    execs_per_sec: String,
    corpus: String,
    cover: String,
    features: String,
    summary: String,
}

/// The sanitizer a target is built with, and the build's own target directory when it is not
/// the default one (so the two builds do not invalidate each other). `c_abi` runs the C
/// library's `unsafe` marshalling (raw pointers, the strings' size headers, `Box` round
/// trips), so it gets AddressSanitizer and its leak checker (the target frees every object it
/// receives, so a leak is a finding). The others exercise the safe core only (the mcpgen
/// crates have no `unsafe` code), where ASan would only slow the search.
fn sanitizer(target: &str) -> (&'static str, Option<&'static str>) {
    if target == "c_abi" {
        ("address", Some("fuzz/target/asan"))
    } else {
        ("none", None)
    }
}

/// `cargo +nightly fuzz run --debug-assertions --sanitizer S [--target-dir D] TARGET CORPUS --
/// -max_total_time=N -timeout=1 [-max_len=M]`, its output kept in
/// `target/fuzz-logs/TARGET.log`; the last status line is parsed for the table. One process
/// (libFuzzer's default; `-jobs`/`-workers` are not passed). Debug assertions keep overflow
/// checks on.
fn run_target(root: &Path, target: &str, corpus: &Path, seconds: u64) -> Result<RunResult, String> {
    let logs = root.join("target/fuzz-logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    let log_path = logs.join(format!("{target}.log"));
    let mut log = std::fs::File::create(&log_path).map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
    let corpus = corpus.to_string_lossy().into_owned();
    let (sanitizer, target_dir) = sanitizer(target);
    let mut args: Vec<String> = ["+nightly", "fuzz", "run", "--debug-assertions", "--sanitizer", sanitizer]
        .into_iter()
        .map(String::from)
        .collect();
    if let Some(dir) = target_dir {
        args.extend(["--target-dir".into(), dir.into()]);
    }
    args.extend([target.to_owned(), corpus, "--".into()]);
    args.push(format!("-max_total_time={seconds}"));
    args.push(format!("-timeout={TIMEOUT_SECS}"));
    if let Some(m) = max_len(target) {
        args.push(format!("-max_len={m}"));
    }
    args.push("-print_final_stats=1".into());
    println!("$ cargo {}", args.join(" "));
    let mut child = Command::new("cargo")
        .args(&args)
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
    let mut slowest = String::from("?");
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
            if let Some(n) = line.strip_prefix("stat::slowest_unit_time_sec:") {
                slowest = n.trim().to_owned();
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
    let (cover, features, corpus_size) = (field("cov:"), field("ft:"), field("corp:"));
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
        slowest,
        execs_per_sec: field("exec/s:"),
        corpus: corpus_size,
        cover,
        features,
        summary: match (&crash, status.success()) {
            (Some(c), _) => format!("FOUND: {c}"),
            (None, true) => "no crash".into(),
            (None, false) => format!("failed ({status}); see {}", log_path.display()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeds' revision codes are the C library's: every `MCPGEN_REVISION_<rev> = <code>` of
    /// the generated header matches the derived list.
    #[test]
    fn c_revision_codes_match_the_generated_header() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let header = std::fs::read_to_string(root.join("bindings/c/include/mcpgen_schema.h")).unwrap();
        let revisions = c_revisions(root).unwrap();
        assert!(!revisions.is_empty());
        for (i, rev) in revisions.iter().enumerate() {
            let line = format!("MCPGEN_REVISION_{} = {}", rev.replace('-', "_"), i + 1);
            assert!(header.contains(&line), "mcpgen_schema.h lacks `{line}`");
        }
    }
}
