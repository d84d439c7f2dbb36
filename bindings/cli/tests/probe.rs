//! `mcpgen probe -- CMD` on a small stdio server with seeded faults (tests/probe/faulty_server.py):
//! the right server probes clean, each fault is reported with its rule and nothing else, the
//! exit status follows, JUnit and JSON Lines say the same, destructive tools are never called.

use std::process::Command;

fn probe(args: &[&str], fault: Option<&str>) -> (i32, String, String) {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_server.py");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.arg("probe").args(args).args(["--timeout-ms", "5000", "--", "python3", server]);
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
    assert!(out.ends_with("eras: modern; 0 errors, 0 warnings\n"), "{out}");
    assert!(!err.contains("wipe was called"), "{err}");
    // Named, it is called.
    let (code, _, err) = probe(&["--call-tools", "wipe"], None);
    assert_eq!(code, 0);
    assert!(err.contains("wipe was called"), "{err}");
}

#[test]
fn each_seeded_fault_is_found_with_its_rule_and_nothing_else() {
    for (fault, check, rule) in [
        ("log-without-capability", "tool/echo", "LOG-5"),
        ("unknown-method-internal", "negative/unknown-method", "MSG-9"),
        ("version-without-data", "negative/unsupported-version", "VER-1"),
        // A plain schema violation carries no rule id.
        ("missing-result-type", "inventory/tools/list", ""),
    ] {
        let (code, out, err) = probe(&["--format", "json"], Some(fault));
        assert_eq!(code, 1, "{fault}: {out}{err}");
        let got = findings(&out);
        assert!(got.iter().any(|(c, r, l)| c == check && r == rule && l == "error"), "{fault}: {got:?}");
        // Nothing outside the faulted check, and only rules the fault explains.
        assert!(got.iter().all(|(c, _, _)| c == check), "{fault}: {got:?}");
    }
}

#[test]
fn junit_has_a_case_per_check_and_a_failure_per_error() {
    let dir = std::env::temp_dir().join(format!("mcpgen-probe-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("probe.xml");
    let (code, _, _) = probe(&["--junit", file.to_str().unwrap()], Some("unknown-method-internal"));
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.contains("failures=\"1\""), "{xml}");
    assert!(
        xml.contains(
            "<testcase classname=\"mcpgen.probe\" name=\"negative/unknown-method\">\n    <failure type=\"MSG-9\""
        ),
        "{xml}"
    );
    assert!(xml.contains("name=\"discover\"></testcase>"), "{xml}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors() {
    let (code, _, err) = probe(&["--call-tools", ","], None);
    assert_eq!(code, 2, "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(["probe", "--", "/nonexistent/server"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/server"));
}
