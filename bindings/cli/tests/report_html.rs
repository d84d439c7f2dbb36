//! `mcpgen report SESSION --html FILE` and `mcpgen probe --html FILE`: every finding on the page
//! at its message, the peer's text escaped, the page bounded; and the page in a real browser
//! (headless Chromium: the DOM it builds, a screenshot). Without Chromium the browser tests
//! fail, unless `MCPGEN_SKIP_BROWSER_TESTS=1` (docs/testing.md).

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{mcpgen, scratch, FINDINGS_SESSION};

/// The findings of FINDINGS_SESSION in page order: (rule, level).
const FINDINGS: [(&str, &str); 4] = [("SCHEMA", "error"), ("ID-4", "warning"), ("ID-4", "error"), ("MSG-8", "error")];

/// Writes the session and its page; the page's text.
fn page(dir: &Path, flags: &[&str]) -> (PathBuf, String) {
    let session = dir.join("session.jsonl");
    std::fs::write(&session, FINDINGS_SESSION).unwrap();
    let html = dir.join("report.html");
    let mut args = vec!["report", session.to_str().unwrap(), "--html", html.to_str().unwrap()];
    args.extend_from_slice(flags);
    let (code, out, err) = mcpgen(&args, b"");
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&html).unwrap();
    (html, text)
}

/// Each finding's element, in order, with its rule and level.
fn assert_every_finding(dom: &str) {
    for (i, (rule, level)) in FINDINGS.iter().enumerate() {
        let element = format!("<li class=\"finding level-{level}\" id=\"finding-{}\" data-rule=\"{rule}\">", i + 1);
        assert_eq!(dom.matches(&element).count(), 1, "{element} in:\n{dom}");
    }
    assert!(!dom.contains("id=\"finding-5\""), "{dom}");
}

#[test]
fn the_page_marks_every_finding_and_escapes_the_peer() {
    let (_, html) = page(&scratch("report-html", "findings"), &[]);
    assert_every_finding(&html);
    assert!(html.contains("<span id=\"total-errors\">3</span> errors"), "{html}");
    assert!(html.contains("<span id=\"total-warnings\">1</span> warnings"), "{html}");
    // The clause on click: ID-4's sentence and page.
    assert!(html.contains("<details><summary>"));
    assert!(html.contains("MUST (2026-07-28): \u{201c}Error responses MUST include the same ID"), "{html}");
    // Hostile text (a body and a session id) is text, never markup; nothing loads or runs.
    assert!(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), "{html}");
    assert!(html.contains("session &lt;/script&gt;&lt;b id=&quot;evil&quot;&gt;"), "{html}");
    assert!(!html.contains("<img") && !html.contains("<b id") && !html.contains("<script"), "{html}");
    assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    assert!(!html.contains("http-equiv=\"refresh\"") && !html.contains("src=\""), "{html}");
}

#[test]
fn the_page_is_bounded_and_says_what_it_left_out() {
    let (_, html) = page(&scratch("report-html", "cut"), &["--body-bytes", "20"]);
    assert!(html.contains("5 message bodies are cut at 20 bytes (--body-bytes)"), "{html}");
    assert!(html.contains("<pre>{&quot;jsonrpc&quot;:&quot;2.0&quot;,&quot;id</pre>"), "{html}");
    let (_, html) = page(&scratch("report-html", "elided"), &["--page-bytes", "300"]);
    assert!(html.contains("message bodies are left out: the page holds at most 300 bytes of bodies"), "{html}");
    assert!(html.contains("left out: --page-bytes)"), "{html}");
    assert!(!html.contains("onerror"), "the last body is left out: {html}");
    assert_every_finding(&html);
    let (_, html) = page(&scratch("report-html", "omitted"), &["--max-messages", "1"]);
    assert!(html.contains("1 messages without findings are not listed"), "{html}");
    assert!(!html.contains("line 3 · client"), "line 3 has no finding: {html}");
    assert_every_finding(&html);
}

#[test]
fn fail_on_sets_the_exit_status() {
    let dir = scratch("report-html", "fail-on");
    let session = dir.join("session.jsonl");
    std::fs::write(&session, FINDINGS_SESSION).unwrap();
    let html = dir.join("r.html");
    let args = ["report", session.to_str().unwrap(), "--html", html.to_str().unwrap(), "--fail-on", "error"];
    assert_eq!(mcpgen(&args, b"").0, 1);
    let (code, _, err) = mcpgen(&["report", "/nonexistent/s.jsonl", "--html", html.to_str().unwrap()], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read /nonexistent/s.jsonl"), "{err}");
}

#[test]
fn the_probe_page_marks_its_findings_at_their_exchange() {
    let dir = scratch("report-html", "probe");
    let html = dir.join("probe.html");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe/faulty_server.py");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["probe", "--quiet", "--timeout-ms", "5000", "--html", html.to_str().unwrap()])
        .args(["--", "python3", server, "--fault", "version-without-data"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.contains("<li class=\"finding level-error\" id=\"finding-1\" data-rule=\"SCHEMA\">"), "{html}");
    assert!(html.contains("<li class=\"finding level-error\" id=\"finding-2\" data-rule=\"VER-1\">"), "{html}");
    assert!(!html.contains("id=\"finding-3\""), "{html}");
    assert!(html.contains("negative/unsupported-version · exchange"), "{html}");
}

/// Headless Chromium, or `None` when the browser tests are opted out. Missing without the
/// opt-out: the test fails saying how to install it.
fn chromium() -> Option<PathBuf> {
    if std::env::var_os("MCPGEN_SKIP_BROWSER_TESTS").is_some_and(|v| v == "1") {
        eprintln!("MCPGEN_SKIP_BROWSER_TESTS=1: the browser check is skipped");
        return None;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file());
    Some(found.unwrap_or_else(|| {
        panic!(
            "headless Chromium is not installed: `apt-get install -y --no-install-recommends chromium` (Debian), or \
             set MCPGEN_SKIP_BROWSER_TESTS=1 to skip the browser tests (docs/testing.md)"
        )
    }))
}

/// Runs Chromium headless on `page` with `args` (a fresh profile, no network services), at most
/// 120 seconds; its stdout.
fn run_chromium(browser: &Path, dir: &Path, page: &Path, args: &[&str]) -> String {
    let profile = dir.join(format!("profile-{}", args.len()));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "chromium failed: {status}");
    reader.join().unwrap()
}

#[test]
fn the_page_renders_in_headless_chromium_with_every_finding() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("report-html", "chromium");
    let (html, _) = page(&dir, &[]);
    let dom = run_chromium(&browser, &dir, &html, &["--dump-dom"]);
    assert!(dom.contains("<h1>mcpgen report</h1>"), "{dom}");
    assert_every_finding(&dom);
    // The browser parsed the hostile text as text: no element came of it.
    assert!(!dom.contains("<img") && !dom.contains("<b id=\"evil\">"), "{dom}");
    assert!(dom.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), "{dom}");
    let png = dir.join("report.png");
    run_chromium(&browser, &dir, &html, &["--window-size=1200,1600", &format!("--screenshot={}", png.display())]);
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (width, height) =
        (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap()));
    assert_eq!((width, height), (1200, 1600));
    // A blank page of that size compresses to a few kB; the rendered report does not.
    assert!(bytes.len() > 30_000, "the screenshot has only {} bytes", bytes.len());
}
