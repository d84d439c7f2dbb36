//! `mcpgen probe` against a server that tries to make it hold memory without bound
//! (tests/probe/hostile_memory_server.py): large notifications before every answer, and a
//! `tools/list` of 60,000 tools a page with a cursor that never ends. With the default limits
//! the run ends on its own, under the bound docs/security.md gives (peak RSS of the probe's
//! process, `wait4`). Before the byte caps these took 446 MB and more than 6 GB.
#![cfg(target_os = "linux")]

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::wait_with_peak;

/// The documented bound of a probe run with the default limits (docs/security.md).
const BOUND: usize = 320 << 20;

fn probe(mode: &str) -> (Option<i32>, usize, String) {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/hostile_memory_server.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--modern-only", "--quiet", "--call-tools", "none", "--format", "json", "--"])
        .args(["python3", server, "--mode", mode])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run mcpgen probe");
    let stdout = support::drain(child.stdout.take().unwrap());
    let (status, peak) = wait_with_peak(&mut child, Duration::from_secs(300));
    (status.code(), peak, String::from_utf8_lossy(&stdout.join().unwrap()).into_owned())
}

#[test]
fn large_notifications_before_every_answer_stay_under_the_bound() {
    let (code, peak, stdout) = probe("notes");
    assert_eq!(code, Some(1), "a finished run with findings (LOG-1: unrequested logs): {stdout}");
    assert!(stdout.contains("\"unkept\""), "the report says what it did not keep");
    assert!(peak < BOUND, "peak {} MiB", peak >> 20);
}

#[test]
fn an_endless_list_of_60000_tools_a_page_stays_under_the_bound() {
    let (code, peak, stdout) = probe("pages");
    assert_eq!(code, Some(1), "{}", &stdout[stdout.len().saturating_sub(2000)..]);
    assert!(stdout.lines().any(|l| l.contains("PROBE-1") && l.contains("more than 1024 items")), "the cut is said");
    assert!(peak < BOUND, "peak {} MiB", peak >> 20);
}
