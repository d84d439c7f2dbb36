//! `mcpgen probe -- CMD` on a small stdio server with seeded faults (tests/probe/faulty_server.py):
//! the right server probes clean, each fault is reported with its rule and nothing else, the
//! exit status follows, JUnit and JSON Lines say the same, destructive tools are never called.

use std::process::Command;

fn probe(args: &[&str], fault: Option<&str>) -> (i32, String, String) {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_server.py");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.arg("probe").args(args);
    if !args.iter().any(|a| a.starts_with("--timeout")) {
        cmd.args(["--timeout-ms", "5000"]);
    }
    cmd.args(["--", "python3", server]);
    if let Some(f) = fault {
        cmd.args(["--fault", f]);
    }
    let out = cmd.output().expect("run mcpgen probe");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn findings(stdout: &str) -> Vec<(String, String, String)> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("check").is_some())
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
            (s("check"), s("rule"), s("level"))
        })
        .collect()
}

#[test]
fn the_right_server_probes_clean_and_its_destructive_tool_is_not_called() {
    let (code, out, err) = probe(&[], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with("eras: modern; 0 errors, 0 warnings (seed 23)\n"), "{out}");
    assert!(!err.contains("wipe was called"), "{err}");
    // Named, it is called.
    let (code, _, err) = probe(&["--call-tools", "wipe"], None);
    assert_eq!(code, 0);
    assert!(err.contains("wipe was called"), "{err}");
}

/// Every fault of faulty_server.py, the rules it must be found with (a rule-less schema
/// finding is `""`), and the exit status (1 when one of them is an error).
const FAULTS: &[(&str, &[&str], i32)] = &[
    // Both broken at once: `logging` undeclared (LOG-5), and no request asked for logs (LOG-1).
    ("log-without-capability", &["LOG-5", "LOG-1"], 1),
    // MSG-9's MUST is a sentence of the Streamable HTTP page; this server is stdio: a warning.
    ("unknown-method-internal", &["MSG-9"], 0),
    ("answers-notifications", &["MSG-12"], 1),
    // The schema requires `data` on -32022 (no rule id), VER-1 names `data.supported`.
    ("version-without-data", &["", "VER-1"], 1),
    // RESULT-1 is the schema's `required`: a plain schema finding carries no rule id.
    ("missing-result-type", &[""], 1),
    ("error-id-null", &["ID-4"], 1),
    // Modern: the retired code (ERR-4) is not the -32602 the clause asks for (RES-1).
    ("retired-not-found-code", &["ERR-4", "RES-1"], 1),
    ("bad-meta-key", &["META-1"], 1),
    ("resources-undeclared", &["CAP-2"], 1),
    ("accepts-invalid-arguments", &["TOOL-5"], 1),
    ("bad-structured-content", &["TOOL-4"], 1),
    // Informal wording on the tools page: a warning.
    ("refuses-valid-arguments", &["PROBE-4"], 0),
    ("prompt-missing-argument-internal", &["PROMPT-2"], 0),
    ("resource-not-found-empty", &["RES-1"], 1),
    // A SHOULD: a warning.
    ("completion-wrong-code", &["COMP-2"], 0),
    ("progress-backwards", &["PROG-3"], 1),
    ("progress-unknown-token", &["PROG-2"], 1),
    ("unknown-tool-internal", &["TOOL-11"], 0),
    ("server-cancels", &["CANCEL-7"], 1),
    // Off any listen stream a list-changed notification has no subscriptionId (SUB-4), and
    // `tools.listChanged` is undeclared (SUB-12, a warning).
    ("list-changed-undeclared", &["SUB-4", "SUB-12"], 1),
    ("endless-cursor", &["PROBE-1"], 0),
    // `7` for `"7"`: the answer with the wrong type (ID-3), not a missing one (MSG-11).
    ("id-retyped", &["ID-3"], 1),
    // The one-request batch answered with an array: a server message that is no single one.
    ("batch-answered", &["MSG-1"], 1),
    // A SHOULD of the tools page (from 2025-11-25): a warning.
    ("tool-name-odd", &["TOOL-2"], 0),
    // The hints a client may do without, a server MUST send (2026-07-28).
    ("read-without-hints", &["CACHE-1"], 1),
];

#[test]
fn each_seeded_fault_is_found_with_its_rule_and_nothing_else() {
    // Every fault the server knows is in the table (and no other).
    let source = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_server.py")).unwrap();
    let block = &source[source.find("FAULTS = {").unwrap()..];
    let block = &block[..block.find("\n}").unwrap()];
    let known: Vec<&str> =
        block.lines().skip(1).filter_map(|l| l.trim().strip_prefix('"')?.split('"').next()).collect();
    let tested: Vec<&str> = FAULTS.iter().map(|f| f.0).collect();
    assert_eq!(known, tested);
    for (fault, rules, exit) in FAULTS {
        let (code, out, err) = probe(&["--format", "json"], Some(fault));
        assert_eq!(code, *exit, "{fault}: {out}{err}");
        let mut got: Vec<String> = Vec::new();
        for (_, rule, _) in findings(&out) {
            if !got.contains(&rule) {
                got.push(rule);
            }
        }
        let mut want: Vec<String> = rules.iter().map(|r| r.to_string()).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{fault}: {out}");
    }
}

#[test]
fn a_failing_tool_case_is_reported_shrunk_and_the_seed_repeats_a_run() {
    let (_, out, _) = probe(&["--format", "json"], Some("accepts-invalid-arguments"));
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let shrunk: Vec<_> =
        lines.iter().filter(|v| v["message"].as_str().is_some_and(|m| m.contains("shrunk in"))).collect();
    assert!(!shrunk.is_empty(), "{out}");
    for v in shrunk {
        // The smallest arguments echo's schema refuses: none (`text` is required).
        assert_eq!(v["sent"]["params"]["arguments"], serde_json::json!({}), "{v}");
    }
    assert_eq!(lines.last().unwrap()["seed"], 23);
    let sent = |seed: &str| {
        let (_, out, _) = probe(&["--format", "json", "--seed", seed], Some("accepts-invalid-arguments"));
        out.lines().map(str::to_owned).collect::<Vec<_>>()
    };
    let (a, b) = (sent("7"), sent("7"));
    assert_eq!(a, b);
    assert!(a.last().unwrap().contains("\"seed\":7"), "{}", a.last().unwrap());
}

/// The numbers of the text summary: checks, failed, skipped.
fn summary_counts(text: &str) -> (usize, usize, usize) {
    let last = text.lines().last().unwrap();
    let nums: Vec<usize> = last
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(3)
        .map(|w| w.parse().unwrap())
        .collect();
    assert!(last.contains(" checks (") && last.contains(" failed, "), "{last}");
    (nums[0], nums[1], nums[2])
}

#[test]
fn junit_has_the_checks_the_text_counts_and_each_failure_its_clause() {
    let dir = std::env::temp_dir().join(format!("mcpgen-probe-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("probe.xml");
    // One failing check: the unknown resource answered with the retired -32002.
    let (code, text, _) = probe(&["--junit", file.to_str().unwrap()], Some("retired-not-found-code"));
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    let (checks, failed, skipped) = summary_counts(&text);
    assert_eq!(failed, 1, "{text}");
    assert!(xml.contains(&format!("tests=\"{checks}\" failures=\"{failed}\" skipped=\"{skipped}\"")), "{text}\n{xml}");
    assert_eq!(xml.matches("<testcase ").count(), checks, "{xml}");
    assert_eq!(xml.matches("<skipped ").count(), skipped, "{xml}");
    let case = &xml[xml.find("name=\"resource/unknown\">").expect("the case")..];
    let case = &case[..case.find("</testcase>").unwrap()];
    assert!(case.contains("<failure type=\"ERR-4\""), "{case}");
    assert!(case.contains("<failure type=\"RES-1\""), "{case}");
    assert!(case.contains("clause (2026-07-28, MUST)"), "{case}");
    assert!(case.contains("https://modelcontextprotocol.io/specification/2026-07-28/server/resources"), "{case}");
    assert!(xml.contains("<testcase classname=\"mcpgen.probe.modern\" name=\"discover\"></testcase>"), "{xml}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_text_shows_each_findings_clause_and_ends_it_before_the_summary() {
    let (code, text, err) = probe(&[], Some("prompt-missing-argument-internal"));
    assert_eq!(code, 0, "{text}{err}");
    let lines: Vec<&str> = text.lines().collect();
    let at =
        lines.iter().position(|l| l.starts_with("prompt/greet/missing-argument: warning (PROMPT-2)")).expect(&text);
    assert!(lines[at].contains("got error code -32603; the spec accepts error code -32602"), "{}", lines[at]);
    assert!(lines[at + 1].starts_with("  clause (2026-07-28, SHOULD): \"Servers SHOULD return"), "{}", lines[at + 1]);
    assert!(lines[at + 1].ends_with("<https://modelcontextprotocol.io/specification/2026-07-28/server/prompts>"));
    assert_eq!(lines[at + 2], "  accepted: error code -32602");
    // A blank line, then the summary alone.
    assert_eq!(lines[lines.len() - 2], "", "{text}");
    assert!(lines[lines.len() - 1].contains("1 warnings (seed 23)"), "{text}");
    // The progress line names the script, not its interpreter.
    assert!(err.contains("mcpgen probe: probing ") && err.contains("faulty_server.py"), "{err}");
    assert!(!err.contains("probing python3"), "{err}");
}

#[test]
fn durations_take_units_and_the_old_millisecond_flags_still_work() {
    for args in [&["--timeout", "5s", "--budget", "2m"][..], &["--timeout-ms", "5000", "--budget-ms", "120000"]] {
        let (code, text, err) = probe(args, None);
        assert_eq!(code, 0, "{args:?}: {text}{err}");
    }
    let (code, _, err) = probe(&["--timeout", "5 parsecs"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown unit"), "{err}");
}

#[test]
fn era_chooses_the_eras_probed() {
    let (_, text, _) = probe(&["--era", "modern"], None);
    assert!(!text.contains("legacy client at"), "{text}");
    // The faulty server is modern only: its `initialize` is refused, and that is no finding.
    let (code, text, _) = probe(&["--era", "both"], None);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("legacy client at 2025-11-25: `initialize` refused (-32602)"), "{text}");
    let (_, text, _) = probe(&["--era", "legacy"], None);
    assert!(!text.contains("modern client at"), "{text}");
}

#[test]
fn usage_errors() {
    let (code, _, err) = probe(&["--call-tools", ","], None);
    assert_eq!(code, 2, "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(["probe", "--", "/nonexistent/server"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/server"));
}
