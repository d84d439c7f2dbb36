//! What `mcpgen probe` touches by default, proved on a server that records every request it
//! receives (tests/probe/recording_server.py): only tools annotated `readOnlyHint: true` and
//! `openWorldHint: false` are called, and no prompt with an argument a server could act on
//! outside itself (a URL, a file, a command) is got; the skipped ones are reported.

use std::process::Command;

use serde_json::Value;

/// Runs the probe with `args` on the recording server; what it received and the probe's stdout.
fn probe(args: &[&str]) -> (Vec<Value>, String) {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/recording_server.py");
    let dir = std::env::temp_dir().join(format!("mcpgen-probe-safety-{}-{}", std::process::id(), args.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("received.jsonl");
    let _ = std::fs::remove_file(&log);
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("probe")
        .args(args)
        .args(["--modern-only", "--format", "json", "--timeout-ms", "5000", "--", "python3", server, "--log"])
        .arg(&log)
        .output()
        .expect("run mcpgen probe");
    let received = std::fs::read_to_string(&log).unwrap_or_default();
    let received = received.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    (received, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The names in the `params.name` of every `method` request received, each once, in order.
fn named(received: &[Value], method: &str) -> Vec<String> {
    let mut names = Vec::new();
    for m in received.iter().filter(|m| m["method"] == method) {
        let name = m["params"]["name"].as_str().unwrap_or("").to_owned();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[test]
fn the_default_calls_only_closed_world_read_only_tools_and_safe_prompts() {
    let (received, stdout) = probe(&[]);
    assert!(received.iter().any(|m| m["method"] == "tools/list"), "the server was probed: {received:?}");
    // Besides `reader`, only the call of a tool no server lists (`negative/unknown-tool`,
    // which runs nothing).
    assert_eq!(named(&received, "tools/call"), ["reader", "mcpgen-probe-no-such-tool"]);
    assert_eq!(named(&received, "prompts/get"), ["greet"]);
    let skipped: Vec<String> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["skipped"].as_str().map(str::to_owned))
        .collect();
    for prompt in ["prompt/summarize_page", "prompt/explain", "prompt/run"] {
        assert!(skipped.iter().any(|s| s == prompt), "{prompt} not reported skipped: {stdout}");
    }
}

#[test]
fn the_flags_widen_what_is_touched() {
    let (received, _) = probe(&["--call-tools", "all", "--get-prompts", "all"]);
    assert_eq!(
        named(&received, "tools/call"),
        ["reader", "open_reader", "unsaid_world", "writer", "bare", "mcpgen-probe-no-such-tool"]
    );
    assert_eq!(named(&received, "prompts/get"), ["greet", "summarize_page", "explain", "run"]);
    let (received, _) = probe(&["--call-tools", "none"]);
    assert!(named(&received, "tools/call").is_empty());
}
