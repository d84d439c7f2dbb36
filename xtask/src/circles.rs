//! `cargo xtask circles` (a step of `cargo xtask test`): fails on any import circle between the
//! files of one crate, in every crate target of the workspace and of `fuzz/`.
//!
//! # What an edge is
//!
//! Each crate target (lib, bin, test, bench, build script) is read from its root file along its
//! `mod` declarations (`mod x;` → `x.rs` or `x/mod.rs`, `#[path]` honoured, inline `mod x { … }`
//! kept in its file), which gives a tree of modules, each in one file. Every module's names are
//! collected: the items it defines (`fn`, `struct`, `enum`, `union`, `trait`, `type`, `const`,
//! `static`, `macro_rules!`, items of `extern` blocks), its child modules, and its `use`
//! bindings (renames and globs included).
//!
//! File A **depends on** file B (A ≠ B, both in the crate) when A contains a path that resolves,
//! through those names, to an item defined in B or to a module whose file is B. The paths read
//! are every `use` tree, and every path of two or more segments in code (expressions, types,
//! patterns, trait bounds, macro names) and in the tokens of macro calls (`format!(…)`,
//! `assert!(…)`, …), whether it starts with `crate::`, `super::`, `self::` or a name in scope (a
//! child module, an import, an enum). Resolution follows imports and re-exports to where the
//! item is defined: `crate::Diagnostics`, re-exported by the crate root from `diag.rs`, is an
//! edge to `diag.rs`, not to the root.
//!
//! Not edges:
//! - **Containment.** A module using what it contains — `mod child;`, `pub use child::Item`, or
//!   a call `child::helper()` from the parent's file — is the module tree itself, not an import:
//!   a path from a module to an item of one of its own descendant modules is never an edge. A
//!   child reaching up (`super::Shared`) is one, so a circle is a way back through at least one
//!   file that is not an ancestor of where it started (siblings, cousins, or a child back to a
//!   parent that reached it through a sibling).
//! - Single-segment paths in code: a bare name is defined in its own module, or brought in by a
//!   `use` (the edge is that `use`).
//! - Paths in `quote!`-like macros (`quote!`, `quote_spanned!`, `parse_quote!`,
//!   `parse_quote_spanned!`): they are generated code for another crate. Paths in strings,
//!   comments and doc links are not read either.
//! - Paths that do not resolve inside the crate (`std::…`, other crates, `Self::…`, generic
//!   parameters). A path that resolves to a module but names a member the scan cannot see (a
//!   macro-generated item) is an edge to that module's file.
//!
//! syn parses the files (it is in the workspace already, for codegen) so `crate::…` text in
//! string literals, comments and generated-code templates never counts, which a line scan
//! could not tell apart.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::Result;

/// Macros whose tokens are code generated for another crate, never paths of this one.
const QUOTING_MACROS: &[&str] = &["quote", "quote_spanned", "parse_quote", "parse_quote_spanned"];

/// `cargo xtask circles`: every crate target of the workspace and of `fuzz/`.
pub fn check(root: &Path) -> Result<()> {
    let mut roots = BTreeMap::new();
    for manifest in [root.join("Cargo.toml"), root.join("fuzz/Cargo.toml")] {
        for (name, src) in targets(&manifest)? {
            roots.entry(src).or_insert(name);
        }
    }
    let mut found = Vec::new();
    let mut files = 0;
    for (src, name) in &roots {
        let krate = Crate::load(src, &|path| std::fs::read_to_string(path))?;
        files += krate.files.len();
        for circle in krate.circles() {
            found.push(circle.render(name, &|path| shown(root, path)));
        }
    }
    if found.is_empty() {
        println!("no import circle in {} crate targets ({files} files)", roots.len());
        Ok(())
    } else {
        for circle in &found {
            println!("{circle}");
        }
        Err(format!(
            "{} import circle(s) between files of one crate; break each with a leaf module both sides can use (see xtask/src/circles.rs for what counts)",
            found.len()
        ))
    }
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).display().to_string()
}

/// `(target name, root file)` of every target of the packages of `manifest`, from `cargo metadata`.
fn targets(manifest: &Path) -> Result<Vec<(String, PathBuf)>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline", "--manifest-path"])
        .arg(manifest)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata --manifest-path {} failed: {}",
            manifest.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    let mut found = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        for target in package["targets"].as_array().into_iter().flatten() {
            if let (Some(name), Some(src)) = (target["name"].as_str(), target["src_path"].as_str()) {
                let kind = target["kind"][0].as_str().unwrap_or("?");
                found
                    .push((format!("{} ({kind} {name})", package["name"].as_str().unwrap_or("?")), PathBuf::from(src)));
            }
        }
    }
    Ok(found)
}

/// One crate target: its files and modules, and every path its files contain.
#[derive(Debug, Default)]
struct Crate {
    files: Vec<PathBuf>,
    /// The module each file holds (the outermost, when it has inline modules).
    file_modules: Vec<usize>,
    modules: Vec<Module>,
    refs: Vec<Ref>,
}

#[derive(Debug)]
struct Module {
    parent: Option<usize>,
    file: usize,
    children: BTreeMap<String, usize>,
    /// Items defined here, by name.
    items: BTreeSet<String>,
    /// `use` bindings: name → path, resolved from this module.
    imports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

/// A path written in a file, in the scope of a module.
#[derive(Debug)]
struct Ref {
    file: usize,
    module: usize,
    line: usize,
    path: Vec<String>,
}

/// What a path resolves to: a module, or an item defined in a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Module(usize),
    Item(usize),
}

/// One import circle: its files in order (each depends on the next, the last on the first) and
/// the path that makes each edge.
#[derive(Debug)]
struct Circle {
    /// `(file, evidence line, path)`: `files[i]` depends on `files[i + 1]` through `path`.
    steps: Vec<(PathBuf, usize, String)>,
    /// Every edge between files of the strongly connected component, when it has more files
    /// than the cycle shown: `(from, line, path, to)`.
    component: Vec<(PathBuf, usize, String, PathBuf)>,
}

impl Circle {
    fn render(&self, krate: &str, show: &dyn Fn(&Path) -> String) -> String {
        let names: Vec<String> = self.steps.iter().map(|(file, _, _)| show(file)).collect();
        let mut s = format!("import circle in {krate}: {} → {}\n", names.join(" → "), names[0]);
        for (i, (file, line, path)) in self.steps.iter().enumerate() {
            let next = &names[(i + 1) % names.len()];
            s.push_str(&format!("  {}:{line}: `{path}` → {next}\n", show(file)));
        }
        if !self.component.is_empty() {
            s.push_str("  more files are on circles with these; every edge between them:\n");
            for (from, line, path, to) in &self.component {
                s.push_str(&format!("    {}:{line}: `{path}` → {}\n", show(from), show(to)));
            }
        }
        s
    }
}

impl Crate {
    /// Reads the target rooted at `root` through `read`.
    fn load(root: &Path, read: &dyn Fn(&Path) -> std::io::Result<String>) -> Result<Crate> {
        let mut krate = Crate::default();
        let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
        krate.load_file(root, None, None, dir, read)?;
        Ok(krate)
    }

    /// Loads `path` as a new module under `parent` (named `name`); its child files are in `dir`.
    fn load_file(
        &mut self,
        path: &Path,
        parent: Option<usize>,
        name: Option<&str>,
        dir: PathBuf,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
    ) -> Result<()> {
        let text = read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file = syn::parse_file(&text).map_err(|e| {
            let at = e.span().start();
            format!("cannot parse {}:{}:{}: {e}", path.display(), at.line, at.column + 1)
        })?;
        let file_id = self.files.len();
        self.files.push(path.to_path_buf());
        let module = self.new_module(parent, name, file_id);
        self.file_modules.push(module);
        let file_dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut collector =
            Collector { krate: self, module, file: file_id, dir, file_dir, inline: 0, depth: 0, pending: Vec::new() };
        collector.visit_file(&file);
        for (parent, name, candidates, child_dir) in collector.pending {
            let found = candidates.iter().find(|c| read(c).is_ok()).ok_or_else(|| {
                let tried: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
                format!("{}: `mod {name};` has no file (tried {})", path.display(), tried.join(", "))
            })?;
            self.load_file(found, Some(parent), Some(&name), child_dir, read)?;
        }
        Ok(())
    }

    fn new_module(&mut self, parent: Option<usize>, name: Option<&str>, file: usize) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            parent,
            file,
            children: BTreeMap::new(),
            items: BTreeSet::new(),
            imports: BTreeMap::new(),
            globs: Vec::new(),
        });
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent].children.insert(name.to_owned(), id);
        }
        id
    }

    fn resolve(&self, module: usize, path: &[String], depth: u8) -> Option<Target> {
        if depth > 16 {
            return None;
        }
        let (mut current, rest) = match path.first()?.as_str() {
            "crate" => (Target::Module(0), &path[1..]),
            "super" | "self" => {
                let mut m = module;
                let mut i = 0;
                while let Some(seg) = path.get(i).filter(|s| *s == "super" || *s == "self") {
                    if seg == "super" {
                        m = self.modules[m].parent?;
                    }
                    i += 1;
                }
                (Target::Module(m), &path[i..])
            }
            "Self" => return None,
            first => (self.lookup(module, first, depth)?, &path[1..]),
        };
        for seg in rest {
            match current {
                Target::Module(m) => match self.lookup(m, seg, depth) {
                    Some(next) => current = next,
                    None => return Some(current),
                },
                // An enum variant or an associated item: the item's file is the target.
                Target::Item(_) => break,
            }
        }
        Some(current)
    }

    /// `name` in the scope of module `m`: a child module, an item, an import, a glob import.
    fn lookup(&self, m: usize, name: &str, depth: u8) -> Option<Target> {
        let module = &self.modules[m];
        if let Some(&child) = module.children.get(name) {
            return Some(Target::Module(child));
        }
        if module.items.contains(name) {
            return Some(Target::Item(m));
        }
        if let Some(path) = module.imports.get(name) {
            return self.resolve(m, path, depth + 1);
        }
        module.globs.iter().find_map(|glob| match self.resolve(m, glob, depth + 1) {
            Some(Target::Module(g)) if g != m => self.lookup(g, name, depth + 1),
            _ => None,
        })
    }

    fn is_within(&self, mut module: usize, ancestor: usize) -> bool {
        loop {
            if module == ancestor {
                return true;
            }
            match self.modules[module].parent {
                Some(parent) => module = parent,
                None => return false,
            }
        }
    }

    /// File → file edges, each with the first path that makes it.
    fn edges(&self) -> BTreeMap<usize, BTreeMap<usize, &Ref>> {
        let mut edges: BTreeMap<usize, BTreeMap<usize, &Ref>> = BTreeMap::new();
        for r in &self.refs {
            let Some(target) = self.resolve(r.module, &r.path, 0) else { continue };
            let (Target::Module(m) | Target::Item(m)) = target;
            let file = self.modules[m].file;
            // Containment: the file's own module reaching into its descendants (from any
            // inline module of the file, e.g. its `mod tests`).
            let owner = self.file_modules[r.file];
            if file != r.file && !self.is_within(m, owner) {
                edges.entry(r.file).or_default().entry(file).or_insert(r);
            }
        }
        edges
    }

    /// Every strongly connected component of more than one file, each shown as one shortest
    /// cycle through its first file.
    fn circles(&self) -> Vec<Circle> {
        let edges = self.edges();
        let components = strongly_connected(self.files.len(), &|f| {
            edges.get(&f).into_iter().flat_map(|e| e.keys().copied()).collect()
        });
        let mut circles = Vec::new();
        for component in components.into_iter().filter(|c| c.len() > 1) {
            let start = component[0];
            let inside: BTreeSet<usize> = component.iter().copied().collect();
            // Breadth-first from `start` back to it, staying inside the component.
            let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
            let mut queue = VecDeque::from([start]);
            let mut last = None;
            'search: while let Some(f) = queue.pop_front() {
                for &next in edges.get(&f).into_iter().flat_map(|e| e.keys()) {
                    if next == start {
                        last = Some(f);
                        break 'search;
                    }
                    if inside.contains(&next) && !came_from.contains_key(&next) {
                        came_from.insert(next, f);
                        queue.push_back(next);
                    }
                }
            }
            let mut order = vec![last.expect("a component of two or more files has a cycle through each file")];
            while let Some(&prev) = order.last().and_then(|f| came_from.get(f)) {
                order.push(prev);
            }
            if order.last() != Some(&start) {
                order.push(start);
            }
            order.reverse();
            let steps: Vec<_> = order
                .iter()
                .enumerate()
                .map(|(i, &f)| {
                    let to = order[(i + 1) % order.len()];
                    let r = edges[&f][&to];
                    (self.files[f].clone(), r.line, r.path.join("::"))
                })
                .collect();
            let mut all = Vec::new();
            if component.len() > steps.len() {
                for &f in &component {
                    for (&to, r) in edges.get(&f).into_iter().flatten().filter(|(to, _)| inside.contains(to)) {
                        all.push((self.files[f].clone(), r.line, r.path.join("::"), self.files[to].clone()));
                    }
                }
            }
            circles.push(Circle { steps, component: all });
        }
        circles
    }
}

/// Tarjan's algorithm over nodes `0..n`; each component lists its nodes in ascending order.
fn strongly_connected(n: usize, next: &dyn Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn connect(v: usize, s: &mut State, next: &dyn Fn(usize) -> Vec<usize>) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for w in next(v) {
            match s.index[w] {
                None => {
                    connect(w, s, next);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let mut s = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            connect(v, &mut s, next);
        }
    }
    s.out.sort();
    s.out
}

/// Walks one file, collecting names into its modules and paths into `refs`.
struct Collector<'k> {
    krate: &'k mut Crate,
    module: usize,
    file: usize,
    /// Where the current module's `mod x;` files are.
    dir: PathBuf,
    /// The directory of the file itself, where a `#[path]` outside inline modules starts.
    file_dir: PathBuf,
    /// How many inline `mod x { … }` the walk is inside.
    inline: usize,
    /// Inside a block (a function body): items and `use`s there are not the module's names.
    depth: usize,
    /// `mod x;` declarations to load after this file: (parent module, name, candidate files in
    /// order, the directory of its own children).
    pending: Vec<(usize, String, Vec<PathBuf>, PathBuf)>,
}

impl Collector<'_> {
    fn push_ref(&mut self, path: Vec<String>, line: usize) {
        self.krate.refs.push(Ref { file: self.file, module: self.module, line, path });
    }

    fn module_declaration(&mut self, m: &syn::ItemMod) {
        let name = m.ident.to_string();
        let explicit = m.attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        match &m.content {
            Some((_, items)) => {
                let inner = self.krate.new_module(Some(self.module), Some(&name), self.file);
                let saved = (self.module, self.dir.clone(), self.depth);
                self.module = inner;
                self.dir = self.dir.join(explicit.as_deref().unwrap_or(&name));
                self.depth = 0;
                self.inline += 1;
                for item in items {
                    self.visit_item(item);
                }
                self.inline -= 1;
                (self.module, self.dir, self.depth) = saved;
            }
            None => {
                let (candidates, dir) = match explicit {
                    // A `#[path]` file is read like a `mod.rs`: its children sit beside it.
                    Some(p) => {
                        let base = if self.inline == 0 { &self.file_dir } else { &self.dir };
                        let path = base.join(p);
                        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
                        (vec![path], dir)
                    }
                    None => {
                        let dir = self.dir.join(&name);
                        (vec![self.dir.join(format!("{name}.rs")), dir.join("mod.rs")], dir)
                    }
                };
                self.pending.push((self.module, name, candidates, dir));
            }
        }
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>, bind: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix, bind);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let line = n.ident.span().start().line;
                let (path, name) = if n.ident == "self" {
                    (prefix.clone(), prefix.last().cloned())
                } else {
                    let mut path = prefix.clone();
                    path.push(n.ident.to_string());
                    (path, Some(n.ident.to_string()))
                };
                self.bind_import(bind, name, &path);
                self.push_ref(path, line);
            }
            syn::UseTree::Rename(r) => {
                let line = r.ident.span().start().line;
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                let name = (r.rename != "_").then(|| r.rename.to_string());
                self.bind_import(bind, name, &path);
                self.push_ref(path, line);
            }
            syn::UseTree::Glob(g) => {
                if bind && !prefix.is_empty() {
                    self.krate.modules[self.module].globs.push(prefix.clone());
                }
                self.push_ref(prefix.clone(), g.star_token.span.start().line);
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(tree, prefix, bind);
                }
            }
        }
    }

    fn bind_import(&mut self, bind: bool, name: Option<String>, path: &[String]) {
        if let (true, Some(name)) = (bind, name) {
            self.krate.modules[self.module].imports.insert(name, path.to_vec());
        }
    }

    /// Paths in a macro call's tokens: `a::b…` sequences, not after `$` (a macro variable).
    fn macro_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => self.macro_tokens(g.stream()),
                TokenTree::Ident(first) => {
                    let after_dollar = i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                    let mut path = vec![first.to_string()];
                    let mut j = i + 1;
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(seg))) =
                        (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(seg.to_string());
                        j += 3;
                    }
                    let preceded_by_colons =
                        i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == ':');
                    if path.len() > 1 && (!after_dollar || path[0] == "crate") && !preceded_by_colons {
                        self.push_ref(path, first.span().start().line);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if self.depth == 0 {
            let name = match item {
                syn::Item::Const(i) => Some(&i.ident),
                syn::Item::Enum(i) => Some(&i.ident),
                syn::Item::Fn(i) => Some(&i.sig.ident),
                syn::Item::Macro(i) => i.ident.as_ref(),
                syn::Item::Static(i) => Some(&i.ident),
                syn::Item::Struct(i) => Some(&i.ident),
                syn::Item::Trait(i) => Some(&i.ident),
                syn::Item::TraitAlias(i) => Some(&i.ident),
                syn::Item::Type(i) => Some(&i.ident),
                syn::Item::Union(i) => Some(&i.ident),
                _ => None,
            };
            if let Some(name) = name {
                self.krate.modules[self.module].items.insert(name.to_string());
            }
            if let syn::Item::ForeignMod(f) = item {
                for foreign in &f.items {
                    let name = match foreign {
                        syn::ForeignItem::Fn(i) => Some(&i.sig.ident),
                        syn::ForeignItem::Static(i) => Some(&i.ident),
                        syn::ForeignItem::Type(i) => Some(&i.ident),
                        _ => None,
                    };
                    if let Some(name) = name {
                        self.krate.modules[self.module].items.insert(name.to_string());
                    }
                }
            }
        }
        match item {
            syn::Item::Mod(m) => self.module_declaration(m),
            syn::Item::Use(u) => {
                if u.leading_colon.is_none() {
                    let bind = self.depth == 0;
                    self.use_tree(&u.tree, &mut Vec::new(), bind);
                }
            }
            _ => visit::visit_item(self, item),
        }
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.depth += 1;
        visit::visit_block(self, block);
        self.depth -= 1;
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.push_ref(segments, path.segments[0].ident.span().start().line);
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        let name = mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if !QUOTING_MACROS.contains(&name.as_str()) {
            self.macro_tokens(mac.tokens.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads a crate from `(path, text)` pairs; the first is the root.
    fn fixture(files: &[(&str, &str)]) -> Crate {
        let map: BTreeMap<PathBuf, String> =
            files.iter().map(|(p, t)| (Path::new("/fx").join(p), t.to_string())).collect();
        let root = Path::new("/fx").join(files[0].0);
        Crate::load(&root, &|p| map.get(p).cloned().ok_or_else(|| std::io::ErrorKind::NotFound.into())).unwrap()
    }

    fn rendered(krate: &Crate) -> Vec<String> {
        let show = |p: &Path| p.strip_prefix("/fx").unwrap().display().to_string();
        krate.circles().iter().map(|c| c.render("fx", &show)).collect()
    }

    /// A root with `a`, `b` and a re-exported `shared`; `b` says `crate::a::A`.
    const LIB: &str = "mod a;\nmod b;\nmod shared;\npub use shared::Shared;\npub fn top() -> a::A { a::A }\n";
    const A_OK: &str = "use crate::Shared;\npub struct A;\nimpl A { pub fn s(&self) -> Shared { Shared } }\n";
    const B: &str = "pub fn b() -> crate::a::A { crate::a::A }\n";
    const SHARED: &str = "pub struct Shared;\n";

    #[test]
    fn containment_and_one_way_imports_are_not_circles() {
        // The root uses its children and re-exports one; `a` uses the re-export (an edge to
        // shared.rs, not to the root); `b` uses `a`: all one way.
        let krate = fixture(&[("lib.rs", LIB), ("a.rs", A_OK), ("b.rs", B), ("shared.rs", SHARED)]);
        assert_eq!(rendered(&krate), Vec::<String>::new());
    }

    #[test]
    fn a_circle_between_siblings_is_found_with_its_paths() {
        let a = "use crate::Shared;\npub struct A;\n\nfn f() { let _ = format!(\"{:?}\", super::b::b()); }\n";
        let krate = fixture(&[("lib.rs", LIB), ("a.rs", a), ("b.rs", B), ("shared.rs", SHARED)]);
        assert_eq!(
            rendered(&krate),
            ["import circle in fx: a.rs → b.rs → a.rs\n  a.rs:4: `super::b::b` → b.rs\n  b.rs:1: `crate::a::A` → a.rs\n"]
        );
    }

    #[test]
    fn a_child_reaching_up_closes_a_circle_through_a_sibling() {
        // emit/mod.rs uses rules.rs, rules.rs uses emit/c.rs, and emit/c.rs uses its parent.
        let lib = "mod emit;\nmod rules;\n";
        let emit = "mod c;\npub const DIR: &str = \"x\";\npub fn all() { crate::rules::go(); c::go(); }\n";
        let c = "pub fn go() { let _ = super::DIR; }\n";
        let rules = "use crate::emit::c;\npub fn go() { c::go() }\n";
        let krate = fixture(&[("lib.rs", lib), ("emit/mod.rs", emit), ("emit/c.rs", c), ("rules.rs", rules)]);
        assert_eq!(
            rendered(&krate),
            ["import circle in fx: emit/mod.rs → rules.rs → emit/c.rs → emit/mod.rs\n  emit/mod.rs:3: `crate::rules::go` → rules.rs\n  rules.rs:1: `crate::emit::c` → emit/c.rs\n  emit/c.rs:1: `super::DIR` → emit/mod.rs\n"]
        );
    }

    #[test]
    fn imports_and_renames_are_followed_to_the_defining_file() {
        // `b` reaches `a` only through the root's private alias and a renamed import; templates
        // in quote! and text in strings are not paths.
        let lib = "mod a;\nmod b;\nuse a as alias;\n";
        let a = "pub struct A;\npub fn f() { let _ = quote!(crate::b::B); let _ = \"crate::b::B\"; }\n";
        let b = "use crate::alias::A as Renamed;\npub struct B(Renamed);\n";
        assert_eq!(rendered(&fixture(&[("lib.rs", lib), ("a.rs", a), ("b.rs", b)])), Vec::<String>::new());
        let a_back = "pub struct A;\npub fn f() { let _ = crate::b::B; }\n";
        assert_eq!(rendered(&fixture(&[("lib.rs", lib), ("a.rs", a_back), ("b.rs", b)])).len(), 1);
    }

    #[test]
    fn inline_modules_and_path_attributes_find_their_files() {
        let lib = "#[path = \"inner/x.rs\"]\nmod x;\nmod outer { pub mod y; }\n";
        let x = "pub fn f() { crate::outer::y::g() }\n";
        let y = "pub fn g() { crate::x::f() }\n";
        let krate = fixture(&[("lib.rs", lib), ("inner/x.rs", x), ("outer/y.rs", y)]);
        assert_eq!(rendered(&krate).len(), 1, "{:?}", krate.files);
    }
}
