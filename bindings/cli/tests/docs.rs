//! Every `console` example of README.md and docs/*.md runs as a test (trycmd): each `$ mcpgen …`
//! line is run and its output (stdout and stderr together) compared with the lines under it;
//! `[..]` matches the rest of a line, `...` on its own line any number of lines, and `? N` under
//! the command the exit status (default 0).
//!
//! The commands run in a copy of `tests/docs/` (the files the examples name: `tools-call.json`,
//! `session.jsonl`, …), so they are hermetic. An example that cannot run offline and in an
//! instant (a proxy waiting for its client) is fenced `console,ignore` with the reason beside it.
//! `TRYCMD=overwrite` rewrites the copies under the test's temporary directory, not the docs.

use std::path::{Path, PathBuf};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// trycmd drops one line end from the output it expects (the one before the blank line that
/// separates two commands), so the last command of a block would be expected without its final
/// line end: a blank line before each closing fence keeps the pages free of that detail.
fn blank_before_fence(text: &str) -> String {
    let mut out = String::new();
    let mut in_console = false;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        if fence && in_console {
            out.push('\n');
            in_console = false;
        } else if fence {
            let info = line.trim_start().trim_start_matches('`');
            in_console = info.starts_with("console") || info.starts_with("trycmd");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The Markdown pages with console examples, copied beside a `NAME.in/` working directory each.
fn cases() -> Vec<PathBuf> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir.join("../..");
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs");
    let _ = std::fs::remove_dir_all(&work);
    let mut cases = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        if !text.lines().any(|l| l.trim_start().starts_with("```console") || l.trim_start().starts_with("```trycmd")) {
            continue;
        }
        let name = page.file_name().unwrap();
        let case = work.join(name);
        copy_dir(&crate_dir.join("tests/docs"), &case.with_extension("in"));
        std::fs::write(&case, blank_before_fence(&text)).unwrap();
        cases.push(case);
    }
    cases
}

#[test]
fn console_examples() {
    let cases = cases();
    assert!(cases.len() >= 4, "expected the README and several docs pages, found {cases:?}");
    let t = trycmd::TestCases::new();
    t.register_bin("mcpgen", Path::new(env!("CARGO_BIN_EXE_mcpgen")));
    for case in &cases {
        t.case(case);
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The ```` ```json ```` blocks of a page, parsed, each with the paragraph before it.
fn json_blocks(page: &str) -> Vec<(String, serde_json::Value)> {
    let text = std::fs::read_to_string(root().join(page)).unwrap();
    let mut blocks = Vec::new();
    let (mut before, mut block, mut inside) = (String::new(), String::new(), false);
    for line in text.lines() {
        match (inside, line.trim_start() == "```json", line.trim_start() == "```") {
            (false, true, _) => inside = true,
            (true, _, true) => {
                inside = false;
                if let Ok(v) = serde_json::from_str(&block) {
                    blocks.push((std::mem::take(&mut before), v));
                }
                block.clear();
            }
            (true, _, _) => block.push_str(&format!("{line}\n")),
            (false, _, _) => before.push_str(&format!("{line}\n")),
        }
    }
    blocks
}

/// The client configurations of docs/proxy.md: VS Code's `servers` form with `"type": "stdio"`,
/// the others' `mcpServers`, and absolute paths for the command (a GUI client's PATH and
/// working directory are its own); the HTTP form's entries (`"type": "http"`) name the proxy's
/// loopback URL instead.
#[test]
fn client_configurations_have_each_clients_form_and_absolute_paths() {
    let configs: Vec<_> = json_blocks("docs/proxy.md")
        .into_iter()
        .filter(|(_, v)| v.get("servers").or(v.get("mcpServers")).is_some())
        .collect();
    assert!(configs.len() >= 2, "expected the mcpServers and the VS Code configurations");
    let mut vscode = 0;
    for (before, config) in &configs {
        let intro = before.rsplit("\n\n").find(|p| !p.trim().is_empty()).unwrap_or_default();
        let is_vscode = intro.contains("VS Code");
        let key = if is_vscode { "servers" } else { "mcpServers" };
        let servers = config[key].as_object().unwrap_or_else(|| panic!("`{key}` expected after: {intro}"));
        for (name, server) in servers {
            // The HTTP form: the proxy's loopback URL, no command.
            if let Some(url) = server.get("url") {
                assert_eq!(server["type"], "http", "{name}");
                assert!(url.as_str().unwrap().starts_with("http://127.0.0.1:"), "{name}: {url}");
                assert!(server.get("command").is_none(), "{name}");
                continue;
            }
            if is_vscode {
                assert_eq!(server["type"], "stdio", "{name}");
            }
            let command = server["command"].as_str().unwrap();
            assert!(command.starts_with('/'), "{name}: {command} is not an absolute path");
        }
        vscode += usize::from(is_vscode);
    }
    assert_eq!(vscode, 2, "the VS Code configurations of both forms");
}

/// docs/maintaining.md names every fuzz target, by count and by name.
#[test]
fn maintaining_names_every_fuzz_target() {
    let mut targets: Vec<String> = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    targets.sort();
    let text = std::fs::read_to_string(root().join("docs/maintaining.md")).unwrap();
    let line = text.lines().find(|l| l.contains("cargo xtask fuzz")).expect("the fuzz row");
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    let count = words.get(targets.len()).expect("at most ten targets");
    assert!(line.contains(&format!("the {count} fuzz targets")), "{line}");
    for t in &targets {
        assert!(line.contains(&format!("`{t}`")), "`{t}` missing from: {line}");
    }
}
