//! `cargo xtask core-io` (a step of `cargo xtask test`): the core does no I/O. `mcpgen` and
//! `mcpgen-runtime` are what the C library and the Python package are made of; the probe, the
//! proxy and the reference peers (which spawn, thread and talk to sockets) are crates of their
//! own built on them. Two checks:
//!
//! - **Sources.** Every file of `mcpgen/src` and `runtime/src` reached from `lib.rs` along its
//!   `mod` declarations (`x.rs` or `x/mod.rs`; a module or item under `#[cfg(test)]` is left
//!   out, tests may do what they like) is parsed with syn; every `use` tree and every path in
//!   code is read, with a leading `::` and `core::` read as `std::`. Refused: anything under
//!   `std::process`, `std::fs` and `std::os`, the `stdin`/`stdout`/`stderr` handles of
//!   `std::io`, and under `std::thread` and `std::net` everything but pure values
//!   ([`ALLOWED`]: addresses, `LocalKey`). `use std::thread;` is refused too (it would hide a
//!   later `thread::spawn`). The one exception, [`EXCEPTIONS`], names its file and why.
//!   Comments, strings and doc links are not read.
//! - **Dependencies.** `cargo tree -e normal` of each crate (its default features) names none
//!   of [`DENIED_CRATES`] (async runtimes, HTTP clients and servers) anywhere, and none of
//!   [`DENIED_DIRECT`] (OS bindings) as a direct dependency: `libc` is in the graph through
//!   `jsonschema` (random hash seeds by `getrandom`, `parking_lot`'s locks), which is no I/O of
//!   ours.

use std::path::{Path, PathBuf};
use std::process::Command;

use syn::visit::{self, Visit};

use crate::Result;

/// The crates checked: (package, source root).
const CRATES: &[(&str, &str)] = &[("mcpgen", "mcpgen/src/lib.rs"), ("mcpgen-runtime", "runtime/src/lib.rs")];

/// Paths refused with everything under them.
const DENIED_MODULES: &[&str] =
    &["std::process", "std::fs", "std::os", "std::io::stdin", "std::io::stdout", "std::io::stderr"];

/// Modules where only [`ALLOWED`] items pass.
const GUARDED_MODULES: &[&str] = &["std::thread", "std::net"];

/// Values, not I/O.
const ALLOWED: &[&str] = &[
    "std::thread::LocalKey",
    "std::thread::AccessError",
    "std::net::IpAddr",
    "std::net::Ipv4Addr",
    "std::net::Ipv6Addr",
    "std::net::SocketAddr",
    "std::net::SocketAddrV4",
    "std::net::SocketAddrV6",
    "std::net::AddrParseError",
];

/// (file, path, why): the uses decided legitimate.
const EXCEPTIONS: &[(&str, &str, &str)] = &[(
    "mcpgen/src/tools/resolve.rs",
    "std::net::ToSocketAddrs",
    "`SystemResolver`, the opt-in host resolver a `FetchPolicy` vets a tool schema's remote `$ref` with \
     (JSCHEMA-6); refused by default, and the HTTP fetch itself is the application's",
)];

/// Crates that mean sockets, an async stack or an HTTP stack anywhere in a dependency graph.
const DENIED_CRATES: &[&str] =
    &["tokio", "hyper", "hyper-util", "reqwest", "ureq", "mio", "socket2", "async-std", "smol", "polling", "axum"];

/// OS bindings, refused as a direct dependency of the core.
const DENIED_DIRECT: &[&str] = &["libc", "nix", "rustix", "signal-hook", "windows-sys", "winapi"];

/// `cargo xtask core-io`.
pub fn check(root: &Path) -> Result<()> {
    let mut problems = Vec::new();
    for (package, lib) in CRATES {
        for file in module_files(&root.join(lib))? {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let rel = file.strip_prefix(root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
            let found = scan_source(&text).map_err(|e| format!("{rel}: {e}"))?;
            for (line, path) in found {
                if !EXCEPTIONS.iter().any(|(f, p, _)| *f == rel && *p == path) {
                    problems.push(format!("{rel}:{line}: `{path}` (the core does no I/O)"));
                }
            }
        }
        let out = Command::new(env!("CARGO"))
            .args(["tree", "-p", package, "-e", "normal", "--prefix", "depth", "--format", "{p}"])
            .current_dir(root)
            .output()
            .map_err(|e| format!("cargo tree: {e}"))?;
        if !out.status.success() {
            return Err(format!("cargo tree -p {package} failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        for name in denied_crates(&String::from_utf8_lossy(&out.stdout)) {
            problems.push(format!("{package} depends on `{name}` (cargo tree -p {package} -e normal -i {name})"));
        }
    }
    if problems.is_empty() {
        println!("core-io: mcpgen and mcpgen-runtime do no I/O and depend on no I/O crate");
        return Ok(());
    }
    Err(format!("the core does I/O (xtask/src/core_io.rs says what counts):\n  {}", problems.join("\n  ")))
}

/// The crates of [`DENIED_CRATES`] (any depth) and [`DENIED_DIRECT`] (depth 1) in
/// `cargo tree --prefix depth --format {p}` output (`0mcpgen v0.1.0`, `1serde v1.0.0`, …).
fn denied_crates(tree: &str) -> Vec<String> {
    let mut out: Vec<String> = tree
        .lines()
        .filter_map(|l| {
            let name = l.trim_start_matches(|c: char| c.is_ascii_digit()).split_whitespace().next()?;
            let depth = &l[..l.len() - l.trim_start_matches(|c: char| c.is_ascii_digit()).len()];
            (DENIED_CRATES.contains(&name) || (depth == "1" && DENIED_DIRECT.contains(&name))).then_some(name)
        })
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether `attrs` hold `#[cfg(test)]` (or a `cfg` naming `test` otherwise, `all(test, …)`;
/// one with a `not` is read as not test-only).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    fn idents(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                _ => {}
            }
        }
    }
    attrs.iter().any(|a| {
        let Ok(list) = a.meta.require_list() else { return false };
        let mut words = Vec::new();
        idents(list.tokens.clone(), &mut words);
        a.path().is_ident("cfg") && words.iter().any(|w| w == "test") && !words.iter().any(|w| w == "not")
    })
}

/// The files of the module tree rooted at `lib`, test-only modules left out.
fn module_files(lib: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut todo = vec![(lib.to_path_buf(), lib.parent().map(Path::to_path_buf).unwrap_or_default())];
    while let Some((file, dir)) = todo.pop() {
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        for item in &ast.items {
            let syn::Item::Mod(m) = item else { continue };
            if m.content.is_some() || is_test_only(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            // `#[path = "…"]`: relative to this file's directory; the file's own children are
            // then beside it, as for a `mod.rs`.
            if let Some(path) = path_attr(&m.attrs) {
                let child = file.parent().unwrap_or(Path::new("")).join(path);
                let child_dir = child.parent().map(Path::to_path_buf).unwrap_or_default();
                todo.push((child, child_dir));
                continue;
            }
            let flat = dir.join(format!("{name}.rs"));
            let child = if flat.exists() { flat } else { dir.join(&name).join("mod.rs") };
            todo.push((child, dir.join(&name)));
        }
        files.push(file);
    }
    files.sort();
    Ok(files)
}

/// The value of a `#[path = "…"]` attribute.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(syn::MetaNameValue { value: syn::Expr::Lit(l), .. }) => match &l.lit {
            syn::Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The refused paths of one source file: (line, path), test-only items left out.
fn scan_source(text: &str) -> Result<Vec<(usize, String)>> {
    let ast = syn::parse_file(text).map_err(|e| e.to_string())?;
    let mut v = Scan::default();
    v.visit_file(&ast);
    Ok(v.found)
}

#[derive(Default)]
struct Scan {
    found: Vec<(usize, String)>,
}

impl Scan {
    fn judge(&mut self, line: usize, path: &str) {
        let path = path.strip_prefix("::").unwrap_or(path);
        let path = match path.strip_prefix("core::") {
            Some(rest) => format!("std::{rest}"),
            None => path.to_owned(),
        };
        let under = |m: &str| path == m || path.starts_with(&format!("{m}::"));
        let denied = DENIED_MODULES.iter().any(|m| under(m))
            || (GUARDED_MODULES.iter().any(|m| under(m)) && !ALLOWED.iter().any(|a| under(a)));
        if denied {
            self.found.push((line, path));
        }
    }
}

/// Every full path of a `use` tree (`std::{fs, net::IpAddr}` → `std::fs`, `std::net::IpAddr`;
/// `std::thread::{self}` → `std::thread`; a glob is its module).
fn use_paths(tree: &syn::UseTree, prefix: &str, out: &mut Vec<String>) {
    let join = |name: &str| if prefix.is_empty() { name.to_owned() } else { format!("{prefix}::{name}") };
    match tree {
        syn::UseTree::Path(p) => use_paths(&p.tree, &join(&p.ident.to_string()), out),
        syn::UseTree::Name(n) if n.ident == "self" => out.push(prefix.to_owned()),
        syn::UseTree::Name(n) => out.push(join(&n.ident.to_string())),
        syn::UseTree::Rename(r) => out.push(join(&r.ident.to_string())),
        syn::UseTree::Glob(_) => out.push(prefix.to_owned()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_paths(t, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Impl(i) => &i.attrs,
            _ => &[],
        };
        if !is_test_only(attrs) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = u.use_token.span.start().line;
        let prefix = if u.leading_colon.is_some() { "::" } else { "" };
        let mut paths = Vec::new();
        use_paths(&u.tree, "", &mut paths);
        for p in paths {
            self.judge(line, &format!("{prefix}{p}"));
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let lead = if p.leading_colon.is_some() { "::" } else { "" };
        let line = p.segments.first().map_or(0, |s| s.ident.span().start().line);
        self.judge(line, &format!("{lead}{}", segments.join("::")));
        visit::visit_path(self, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(src: &str) -> Vec<String> {
        scan_source(src).unwrap().into_iter().map(|(_, p)| p).collect()
    }

    #[test]
    fn spawning_threads_sockets_and_files_are_found_in_every_spelling() {
        let src = r#"
            use std::process::Command;
            use std::{fs, net::{IpAddr, TcpStream}};
            use std::thread;
            use ::std::io::stdout;
            fn f() {
                let _ = std::thread::spawn(|| ());
                let _ = core::net::UdpSocket::bind("x");
                let _: std::thread::LocalKey<u8>;
                let _ = std::io::Cursor::new(0);
            }
        "#;
        assert_eq!(
            paths(src),
            [
                "std::process::Command",
                "std::fs",
                "std::net::TcpStream",
                "std::thread",
                "std::io::stdout",
                "std::thread::spawn",
                "std::net::UdpSocket::bind",
            ]
        );
    }

    #[test]
    fn tests_comments_strings_and_values_pass() {
        let src = r#"
            //! Uses `std::process::Command` in a comment only.
            use std::net::{IpAddr, SocketAddr};
            use std::thread::LocalKey;
            const DOC: &str = "std::fs::read";
            #[cfg(test)]
            mod tests {
                use std::process::Command;
                fn t() { std::thread::spawn(|| ()); }
            }
            #[cfg(all(test, unix))]
            fn helper() { let _ = std::fs::read("x"); }
        "#;
        assert_eq!(paths(src), Vec::<String>::new());
    }

    #[test]
    fn io_crates_in_the_tree_are_named() {
        let tree = "0mcpgen v0.1.0 (/w/mcpgen)\n1serde v1.0.0\n2tokio v1.40.0\n1libc v0.2.1\n3tokio v1.40.0 (*)\n1libcx v1.0.0\n";
        assert_eq!(denied_crates(tree), ["libc", "tokio"]);
        // libc deeper down (getrandom's) is not the core's own.
        assert!(denied_crates("0mcpgen v0.1.0\n1regex v1.0.0\n2getrandom v0.3.4\n3libc v0.2.1\n").is_empty());
    }

    /// The module walk leaves test-only modules out and finds `x.rs` and `x/mod.rs` children.
    #[test]
    fn the_walk_follows_mod_declarations_but_not_test_only_ones() {
        let dir = std::env::temp_dir().join(format!("xtask-core-io-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n").unwrap();
        std::fs::write(dir.join("a.rs"), "use std::process::Command;\n").unwrap();
        std::fs::write(dir.join("b/mod.rs"), "").unwrap();
        std::fs::write(dir.join("tests.rs"), "").unwrap();
        let found: Vec<String> = module_files(&dir.join("lib.rs"))
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found, ["a.rs", "b/mod.rs", "lib.rs"]);
    }
}
