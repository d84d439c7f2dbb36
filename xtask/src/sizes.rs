//! `cargo xtask sizes` (a step of `cargo xtask test`): keeps hand-written code readable in
//! pieces — no file over [`MAX_FILE_LINES`] lines and no function over [`MAX_FN_LINES`] lines,
//! tests and generated code aside — except the ones `xtask/sizes.toml` lists, each with its size
//! and why it is kept. The list is a ratchet: a listed item that grew past its recorded size, a
//! new item over a limit, and an entry that is no longer needed (the item shrank or went) all
//! fail, so the list only ever gets shorter.
//!
//! What is read: every `.rs` file `git ls-files` knows, except generated ones (`.gitattributes`
//! `linguist-generated`), `fuzz/`, files under a `tests/` or `benches/` directory and test
//! files by name (`tests.rs`, `*_tests.rs`, `tests_*.rs`). Inside a file, `#[cfg(test)]` modules
//! and `#[test]` functions do not count. A function's size runs from its `fn` keyword to its
//! closing brace (its doc comment and attributes aside); a file's size is its line count less
//! its inline test modules. syn parses the files, so braces in strings and comments never
//! mislead the count.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use crate::Result;

/// Lines a hand-written file may have (inline test modules not counted).
pub const MAX_FILE_LINES: usize = 700;
/// Lines a hand-written function may have, from `fn` to its closing brace.
pub const MAX_FN_LINES: usize = 80;
/// The list of kept exceptions.
const ALLOWED: &str = "xtask/sizes.toml";

#[derive(serde::Deserialize)]
struct Allowed {
    #[serde(default)]
    allow: Vec<Entry>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// The file, relative to the workspace root.
    path: String,
    /// `file` for the file itself, else the function's name (`Type::name` for a method).
    item: String,
    /// Its size when it was listed: it may shrink, never grow.
    lines: usize,
    /// Why it is kept whole.
    why: String,
}

/// `cargo xtask sizes`.
pub fn check(root: &Path) -> Result<()> {
    let allowed: Allowed = toml::from_str(
        &std::fs::read_to_string(root.join(ALLOWED)).map_err(|e| format!("cannot read {ALLOWED}: {e}"))?,
    )
    .map_err(|e| format!("{ALLOWED}: {e}"))?;
    let mut listed: BTreeMap<(String, String), &Entry> = BTreeMap::new();
    for e in &allowed.allow {
        if e.why.trim().is_empty() {
            return Err(format!("{ALLOWED}: `{}` in {} says no why", e.item, e.path));
        }
        if listed.insert((e.path.clone(), e.item.clone()), e).is_some() {
            return Err(format!("{ALLOWED}: `{}` in {} is listed twice", e.item, e.path));
        }
    }
    let mut found = BTreeMap::new();
    for path in files(root)? {
        let text = std::fs::read_to_string(root.join(&path)).map_err(|e| format!("cannot read {path}: {e}"))?;
        for (item, lines) in oversized(&path, &text)? {
            found.insert((path.clone(), item), lines);
        }
    }
    let mut problems = Vec::new();
    for ((path, item), lines) in &found {
        let limit = if item == "file" { MAX_FILE_LINES } else { MAX_FN_LINES };
        match listed.get(&(path.clone(), item.clone())) {
            None => problems.push(format!("{path}: `{item}` has {lines} lines (limit {limit}): split it")),
            Some(e) if *lines > e.lines => problems.push(format!(
                "{path}: `{item}` grew to {lines} lines ({ALLOWED} keeps it at {}; limit {limit}): split it",
                e.lines
            )),
            Some(_) => {}
        }
    }
    for ((path, item), e) in &listed {
        match found.get(&(path.clone(), item.clone())) {
            None => problems
                .push(format!("{ALLOWED}: `{item}` in {path} is within the limit now (or gone): remove its entry")),
            Some(lines) if *lines < e.lines => {
                problems.push(format!("{ALLOWED}: `{item}` in {path} shrank to {lines} lines: record {lines}"))
            }
            Some(_) => {}
        }
    }
    println!(
        "sizes: {} hand-written items over the limits ({MAX_FILE_LINES}-line files, {MAX_FN_LINES}-line functions), {} kept in {ALLOWED}",
        found.len(),
        listed.len()
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The hand-written Rust files (see the module documentation).
fn files(root: &Path) -> Result<Vec<String>> {
    let out = Command::new("git")
        .args(["ls-files", "-z", "--", "*.rs"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git ls-files: {e}"))?;
    if !out.status.success() {
        return Err(format!("git ls-files failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let listed: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let generated = generated(root, &listed)?;
    Ok(listed.into_iter().filter(|p| is_hand_written(p) && !generated.contains(p)).collect())
}

/// Whether a path is read at all: not fuzz, tests or benches.
fn is_hand_written(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parts: Vec<&str> = path.split('/').collect();
    !(path.starts_with("fuzz/")
        || parts.iter().any(|p| *p == "tests" || *p == "benches")
        || name == "tests.rs"
        || name.ends_with("_tests.rs")
        || name.starts_with("tests_"))
}

/// The files `.gitattributes` marks `linguist-generated`.
fn generated(root: &Path, paths: &[String]) -> Result<std::collections::BTreeSet<String>> {
    let mut child = Command::new("git")
        .args(["check-attr", "--stdin", "-z", "linguist-generated"])
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git check-attr: {e}"))?;
    let input: Vec<u8> = paths.iter().flat_map(|p| p.bytes().chain([0])).collect();
    let mut stdin = child.stdin.take().ok_or("git check-attr: no stdin")?;
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let out = child.wait_with_output().map_err(|e| format!("git check-attr: {e}"))?;
    writer.join().map_err(|_| "git check-attr: the writer panicked")?.map_err(|e| format!("git check-attr: {e}"))?;
    // `path NUL attribute NUL value NUL`, three fields per path.
    let fields: Vec<String> = out.stdout.split(|b| *b == 0).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    Ok(fields.chunks(3).filter(|c| c.len() == 3 && c[2] == "true").map(|c| c[0].clone()).collect())
}

/// The items of one file over a limit: `("file", lines)` and `(fn name, lines)`.
fn oversized(path: &str, text: &str) -> Result<Vec<(String, usize)>> {
    let file = syn::parse_file(text).map_err(|e| {
        let at = e.span().start();
        format!("{path}:{}:{}: cannot parse: {e}", at.line, at.column + 1)
    })?;
    let mut walk = Walk { functions: Vec::new(), test_lines: 0, owner: Vec::new() };
    walk.visit_file(&file);
    let mut out = Vec::new();
    let lines = text.lines().count().saturating_sub(walk.test_lines);
    if lines > MAX_FILE_LINES {
        out.push(("file".to_owned(), lines));
    }
    out.extend(walk.functions.into_iter().filter(|(_, n)| *n > MAX_FN_LINES));
    Ok(out)
}

struct Walk {
    functions: Vec<(String, usize)>,
    /// Lines of inline `#[cfg(test)]` modules.
    test_lines: usize,
    /// The `impl` or `trait` the walk is in (its type's last segment).
    owner: Vec<String>,
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string() == "test"))
    })
}

fn span_lines(from: proc_macro2::Span, to: proc_macro2::Span) -> usize {
    to.end().line.saturating_sub(from.start().line) + 1
}

impl Walk {
    fn function(&mut self, name: &syn::Ident, fn_token: proc_macro2::Span, block: &syn::Block) {
        let name = match self.owner.last() {
            Some(owner) => format!("{owner}::{name}"),
            None => name.to_string(),
        };
        self.functions.push((name, span_lines(fn_token, block.brace_token.span.close())));
    }
}

impl<'a> Visit<'a> for Walk {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        if is_test(&m.attrs) {
            if let Some((brace, _)) = &m.content {
                self.test_lines += span_lines(m.span(), brace.span.close());
            }
            return;
        }
        visit::visit_item_mod(self, m);
    }

    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.function(&f.sig.ident, f.sig.fn_token.span, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        if is_test(&i.attrs) {
            return;
        }
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        self.owner.push(owner.unwrap_or_else(|| "impl".into()));
        visit::visit_item_impl(self, i);
        self.owner.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.function(&f.sig.ident, f.sig.fn_token.span, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_item_trait(&mut self, t: &'a syn::ItemTrait) {
        self.owner.push(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.owner.pop();
    }

    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.function(&f.sig.ident, f.sig.fn_token.span, block);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(text: &str) -> Vec<(String, usize)> {
        let file = syn::parse_file(text).unwrap();
        let mut walk = Walk { functions: Vec::new(), test_lines: 0, owner: Vec::new() };
        walk.visit_file(&file);
        walk.functions
    }

    #[test]
    fn a_function_counts_from_fn_to_its_brace_and_tests_do_not_count() {
        let text = "/// doc\n#[inline]\nfn a() {\n    let s = \"}\";\n}\nstruct T;\nimpl T {\n    fn b(&self) {}\n}\n#[cfg(test)]\nmod tests {\n    fn c() {\n    }\n}\n#[test]\nfn d() {}\n";
        assert_eq!(sizes(text), [("a".to_owned(), 3), ("T::b".to_owned(), 1)]);
        let file = syn::parse_file(text).unwrap();
        let mut walk = Walk { functions: Vec::new(), test_lines: 0, owner: Vec::new() };
        walk.visit_file(&file);
        assert_eq!(walk.test_lines, 5, "the #[cfg(test)] module's lines, from `#[cfg(test)]` to its brace");
    }

    #[test]
    fn test_files_are_not_read() {
        assert!(is_hand_written("mcpgen/src/conversation/observe.rs"));
        for p in
            ["mcpgen/tests/a.rs", "probe/src/tests.rs", "mcpgen/src/x_tests.rs", "probe/src/tests_late.rs", "fuzz/x.rs"]
        {
            assert!(!is_hand_written(p), "{p}");
        }
    }
}
