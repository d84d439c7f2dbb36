//! `cargo xtask bench --instructions`: the conversation benchmark's cost line counted in
//! instructions instead of timed, so a shared machine's load cannot move it. Builds the
//! conversation bench (`bench/benches/conversation.rs`), runs its profiling entry
//! (`MCPGEN_BENCH_PROFILE`) under `valgrind --tool=callgrind` for (v) and (w) with 1 and 3
//! passes, and reports each line's instructions per pass (the 3-pass count minus the 1-pass
//! count, halved: generating the mix and the first pass's one-off work, such as compiling the
//! listed tools into the process-wide cache, cancel out) and their ratio, same binary, same
//! inputs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

/// The instruction-count goal of (w)/(v) (issue 36, item 3).
const GOAL: f64 = 1.15;

/// Runs the counts and prints the ratio line.
pub fn instructions(root: &Path, messages: usize, seed: u64) -> Result<()> {
    let exe = build(root)?;
    println!("counting instructions of {} under callgrind ({messages} messages, seed {seed})", exe.display());
    let mut per_pass = Vec::new();
    for line in ["v", "w"] {
        let (one, in_mix) = count(&exe, line, 1, messages, seed)?;
        let (three, _) = count(&exe, line, 3, messages, seed)?;
        let n = three.checked_sub(one).ok_or(format!("({line}): 3 passes counted fewer instructions than 1"))? / 2;
        let each = in_mix.map_or(String::new(), |m| format!(" ({:.0} per message of {m})", n as f64 / m as f64));
        println!("({line}) {n} instructions per pass{each}");
        per_pass.push(n);
    }
    let ratio = per_pass[1] as f64 / per_pass[0] as f64;
    let verdict = if ratio <= GOAL { "met" } else { "MISSED" };
    println!(
        "conversation state cost by instructions: (w) / (v) = {ratio:.3}× ({:.1} M vs {:.1} M per pass)  [goal ≤ {GOAL}×: {verdict}]",
        per_pass[1] as f64 / 1e6,
        per_pass[0] as f64 / 1e6
    );
    Ok(())
}

/// Builds the conversation benchmark and returns its executable.
fn build(root: &Path) -> Result<PathBuf> {
    let cargo: OsString = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("$ cargo bench -p mcpgen-bench --bench conversation --no-run");
    let out = Command::new(cargo)
        .args(["bench", "-p", "mcpgen-bench", "--bench", "conversation", "--no-run", "--message-format=json"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo bench --no-run exited with {}:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "conversation")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo bench --no-run named no executable for the conversation bench".into())
}

/// Instructions callgrind counts for one run of the profiling entry, and the messages of the mix
/// as the bench reports them.
fn count(exe: &Path, line: &str, passes: usize, messages: usize, seed: u64) -> Result<(u64, Option<usize>)> {
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .env("MCPGEN_BENCH_PROFILE", line)
        .env("MCPGEN_BENCH_PASSES", passes.to_string())
        .env("MCPGEN_BENCH_MESSAGES", messages.to_string())
        .env("MCPGEN_BENCH_SEED", seed.to_string())
        .output()
        .map_err(|e| format!("cannot run valgrind (is it installed?): {e}"))?;
    if !out.status.success() {
        return Err(format!("valgrind on ({line}) exited with {}", out.status));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let total =
        collected(&stderr).ok_or_else(|| format!("valgrind on ({line}) printed no `Collected :` line:\n{stderr}"))?;
    Ok((total, mix_messages(&String::from_utf8_lossy(&out.stdout))))
}

/// The message count of the bench's first line (`…, 10003 messages (3701 results), …`).
fn mix_messages(stdout: &str) -> Option<usize> {
    let head = stdout.lines().next()?.split(" messages (").next()?;
    head.rsplit(' ').next()?.parse().ok()
}

/// The total of callgrind's `==PID== Collected : N` line.
fn collected(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|l| l.split_once("Collected :").and_then(|(_, n)| n.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::{collected, mix_messages};

    #[test]
    fn reads_callgrind_s_total() {
        let stderr = "==32305== Events    : Ir\n==32305== Collected : 243523427\n==32305==\n==32305== I   refs:      243,523,427\n";
        assert_eq!(collected(stderr), Some(243_523_427));
        assert_eq!(collected("==1== no total here\n"), None);
    }

    #[test]
    fn reads_the_mix_s_message_count() {
        let head = "mcpgen conversation bench: 21 sessions (11 legacy 2025-11-25, 10 modern 2026-07-28), 10003 messages (3701 results), 2.69 MB, seed 2026\n(v) …";
        assert_eq!(mix_messages(head), Some(10003));
        assert_eq!(mix_messages("something else\n"), None);
    }
}
