//! The generated part of the C surface: `bindings/c/include/mcpgen_schema.h` and the id tables
//! the library uses to read it back (`bindings/c/src/ids.rs`).
//!
//! The header holds what comes from the schemas (revision codes, definition ids per revision,
//! method-name constants, JSON-RPC error codes, all from the IR of every revision) and the
//! version macros; the documented API is the C crate's own hand-written
//! `bindings/c/include/mcpgen.h`, which includes it.
//!
//! Ids are stable for a given set of pinned schemas:
//! - a revision's code is its `c_code` in `schema/sources.toml`: the codes are 1..=N, each
//!   once, and never move, so a revision added later (even an older one, back-filled) takes the
//!   next number and no existing code or id changes;
//! - a definition id is `(revision code << 16) | (position in the schema, from 1)`, so one id
//!   names both the revision and the definition.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use heck::ToShoutySnakeCase;

use crate::ir::{Direction, MethodKind, Module};
use crate::{Diagnostics, FileMap};

/// Path of the generated header in the workspace (included by the hand-written `mcpgen.h`).
pub const HEADER_PATH: &str = "bindings/c/include/mcpgen_schema.h";
/// Path of the id tables the C library compiles.
pub const IDS_PATH: &str = "bindings/c/src/ids.rs";

/// One pinned extension as the C surface numbers it (`c_code` of its `[[extension]]`: the
/// codes are 1..=N over the extensions, each once, never moved).
pub struct CExt<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub layers_on: &'a str,
    pub code: Option<u32>,
    pub m: &'a Module,
}

/// One revision as the C surface numbers it.
struct Rev<'m> {
    code: u32,
    m: &'m Module,
}

/// Emits the header and the id tables from every revision's lowered module; `codes` gives each
/// revision's `c_code` from `schema/sources.toml` (by revision name).
pub fn emit(modules: &[Module], codes: &[(&str, Option<u32>)], exts: &[CExt]) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    let revs = numbered(modules, codes, &mut diags);
    let count = exts.len() as u32;
    for (i, e) in exts.iter().enumerate() {
        let at = format!("ext-{}", e.name);
        match e.code {
            None => diags.push(&at, None, "", format!("extension {} has no `c_code` in schema/sources.toml", e.id)),
            Some(c) if c == 0 || c > count => diags.push(
                &at,
                None,
                "",
                format!("extension {}: `c_code = {c}`; the extension codes are 1..={count}, each once", e.id),
            ),
            Some(c) if exts[..i].iter().any(|o| o.code == Some(c)) => {
                diags.push(&at, None, "", format!("extension {}: `c_code = {c}` is used twice", e.id))
            }
            Some(_) => {}
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    for r in &revs {
        if r.m.defs.len() >= 0xFFFF {
            diags.push(&r.m.revision, None, "", "more than 65534 definitions do not fit a C definition id");
        }
    }
    let header = header(&revs, exts, &mut diags);
    let ids = ids_rs(&revs, exts);
    let mut files = FileMap::default();
    files.insert(HEADER_PATH, header);
    files.insert(IDS_PATH, ids);
    diags.into_result(files)
}

/// The revisions in code order. Every revision needs a code, and the codes are 1..=N, each
/// once: the library finds a revision at index `code - 1` of its table, and a code never moves.
fn numbered<'m>(modules: &'m [Module], codes: &[(&str, Option<u32>)], diags: &mut Diagnostics) -> Vec<Rev<'m>> {
    const WHERE: &str = "schema/sources.toml";
    let count = modules.len() as u32;
    let next_free = (1..=count + 1).find(|c| !codes.iter().any(|(_, code)| *code == Some(*c))).unwrap_or(count + 1);
    let mut revs: Vec<Rev> = Vec::new();
    for m in modules {
        match codes.iter().find(|(name, _)| *name == m.revision).and_then(|(_, code)| *code) {
            None => diags.push(
                &m.revision,
                None,
                "",
                format!("no `c_code` (its mcpgen_revision value in the C library) in {WHERE}: give it the next free code, {next_free}"),
            ),
            Some(code) if code == 0 || code > count => diags.push(
                &m.revision,
                None,
                "",
                format!(
                    "`c_code = {code}` in {WHERE}: with {count} revisions the codes are 1..={count}, each once (the C library \
                     indexes its revision table by code); codes never move, so the next revision takes {}",
                    count + 1
                ),
            ),
            Some(code) => match revs.iter().find(|r| r.code == code) {
                Some(other) => diags.push(
                    &m.revision,
                    None,
                    "",
                    format!("`c_code = {code}` in {WHERE} is also revision {}'s: each code names one revision", other.m.revision),
                ),
                None => revs.push(Rev { code, m }),
            },
        }
    }
    revs.sort_by_key(|r| r.code);
    revs
}

/// `2026-07-28` → `2026_07_28`.
fn rev_ident(revision: &str) -> String {
    revision.replace(['-', '.'], "_")
}

/// Text safe inside a `/* */` comment, on one line.
fn comment_text(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace("*/", "* /")
}

/// A C string literal (method names are plain ASCII, but stay correct for anything).
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

fn version_parts() -> (u32, u32, u32) {
    let mut it = env!("CARGO_PKG_VERSION").split(['.', '-', '+']).map(|x| x.parse::<u32>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0), it.next().unwrap_or(0))
}

fn header(revs: &[Rev], exts: &[CExt], diags: &mut Diagnostics) -> String {
    let mut h = String::new();
    let _ = writeln!(h, "/* @generated by mcpgen-codegen {} from MCP schema revisions:", env!("CARGO_PKG_VERSION"));
    let mut newest_first: Vec<&Rev> = revs.iter().collect();
    newest_first.sort_by(|a, b| b.m.revision.cmp(&a.m.revision));
    for r in newest_first {
        let _ = writeln!(h, " *   {} (sha256 {})", r.m.revision, r.m.sha256);
    }
    for e in exts {
        let _ = writeln!(h, " *   extension {} (sha256 {})", e.id, e.m.sha256);
    }
    h.push_str(
        " * Do not edit; run `cargo xtask codegen`. The schema constants come from the same IR as the\n * Rust types. Include <mcpgen.h> (the documented API, hand-written), which includes this. */\n",
    );
    h.push_str("#ifndef MCPGEN_SCHEMA_H\n#define MCPGEN_SCHEMA_H\n\n#include <stdint.h>\n\n");

    let (major, minor, patch) = version_parts();
    h.push_str("/* ---- Version of this header (compare with mcpgen_version_number() at run time) -------- */\n\n");
    let _ = writeln!(h, "#define MCPGEN_VERSION_MAJOR {major}");
    let _ = writeln!(h, "#define MCPGEN_VERSION_MINOR {minor}");
    let _ = writeln!(h, "#define MCPGEN_VERSION_PATCH {patch}");
    let _ = writeln!(h, "#define MCPGEN_VERSION_STRING \"{major}.{minor}.{patch}\"");
    h.push_str("/** One number that grows with every release: major * 1000000 + minor * 1000 + patch. */\n");
    h.push_str(
        "#define MCPGEN_VERSION_NUMBER (MCPGEN_VERSION_MAJOR * 1000000 + MCPGEN_VERSION_MINOR * 1000 + MCPGEN_VERSION_PATCH)\n\n",
    );

    revisions(&mut h, revs);
    extensions(&mut h, exts);
    definitions(&mut h, revs, diags);
    methods(&mut h, revs, exts, diags);
    error_codes(&mut h, revs, diags);

    h.push_str("#endif /* MCPGEN_SCHEMA_H */\n");
    h
}

fn revisions(h: &mut String, revs: &[Rev]) {
    h.push_str("/* ---- Revisions ---------------------------------------------------------------------------- */\n\n");
    h.push_str("/** A schema revision. The codes are stable (`c_code` in schema/sources.toml): a revision added later gets\n *  the next number, whatever its date. */\n");
    h.push_str("typedef enum mcpgen_revision {\n");
    for r in revs {
        let m = r.m;
        let _ = writeln!(
            h,
            "    /** MCP revision {} ({} definitions, {} methods). */\n    MCPGEN_REVISION_{} = {},",
            m.revision,
            m.defs.len(),
            m.methods.len(),
            rev_ident(&m.revision),
            r.code
        );
    }
    trim_last_comma(h);
    h.push_str("} mcpgen_revision;\n\n");
    if let Some(latest) = revs.iter().max_by(|a, b| a.m.revision.cmp(&b.m.revision)) {
        let _ = writeln!(
            h,
            "/** The newest revision this header knows. */\n#define MCPGEN_REVISION_LATEST MCPGEN_REVISION_{}",
            rev_ident(&latest.m.revision)
        );
    }
    let _ = writeln!(h, "/** How many revisions this header knows (codes 1..MCPGEN_REVISION_COUNT). */\n#define MCPGEN_REVISION_COUNT {}\n", revs.len());
}

fn extensions(h: &mut String, exts: &[CExt]) {
    h.push_str(
        "/* ---- Extensions ---------------------------------------------------------------------------- */\n\n",
    );
    h.push_str("/** A pinned MCP extension (negotiated in `capabilities.extensions`). The codes are stable (`c_code` of\n *  its `[[extension]]` in schema/sources.toml). */\n");
    h.push_str("typedef enum mcpgen_extension {\n");
    h.push_str("    /** No extension. */\n    MCPGEN_EXTENSION_NONE = 0,\n");
    let mut sorted: Vec<&CExt> = exts.iter().collect();
    sorted.sort_by_key(|e| e.code);
    for e in &sorted {
        let _ = writeln!(
            h,
            "    /** Extension `{}`, layering on revision {} ({} methods of its own). */\n    MCPGEN_EXTENSION_{} = {},",
            e.id,
            e.layers_on,
            e.m.methods.len(),
            e.name.to_shouty_snake_case(),
            e.code.unwrap_or(0)
        );
    }
    trim_last_comma(h);
    h.push_str("} mcpgen_extension;\n\n");
    let _ = writeln!(h, "/** How many extensions this header knows (codes 1..MCPGEN_EXTENSION_COUNT). */\n#define MCPGEN_EXTENSION_COUNT {}", exts.len());
    for e in &sorted {
        let c = e.name.to_shouty_snake_case();
        let _ = writeln!(h, "/** The identifier of extension {c}, its key under `capabilities.extensions`. */");
        let _ = writeln!(h, "#define MCPGEN_EXTENSION_{c}_ID {}", c_string(e.id));
        let _ = writeln!(h, "/** The revision extension {c} layers on. */");
        let _ = writeln!(h, "#define MCPGEN_EXTENSION_{c}_LAYERS_ON MCPGEN_REVISION_{}", rev_ident(e.layers_on));
    }
    h.push('\n');
}

fn trim_last_comma(h: &mut String) {
    if h.ends_with(",\n") {
        h.truncate(h.len() - 2);
        h.push('\n');
    }
}

fn definitions(h: &mut String, revs: &[Rev], diags: &mut Diagnostics) {
    h.push_str(
        "/* ---- Definition ids ------------------------------------------------------------------------ */\n\n",
    );
    h.push_str(
        "/** A definition of a revision: `(revision code << 16) | position in the schema (from 1)`.\n *  Use the `MCPGEN_DEF_<REVISION>_<NAME>` constants, or `mcpgen_def_lookup()` by name. */\n",
    );
    h.push_str("typedef uint32_t mcpgen_def_id;\n\n");
    for r in revs {
        let m = r.m;
        let rid = rev_ident(&m.revision);
        let _ = writeln!(h, "/** Definitions of revision {}, in schema order. */", m.revision);
        let _ = writeln!(h, "enum mcpgen_defs_{rid} {{");
        let mut seen: BTreeMap<String, &str> = BTreeMap::new();
        let docs = super::docs::Docs::new(m);
        for (i, def) in m.defs.iter().enumerate() {
            let c = def.name.to_shouty_snake_case();
            if let Some(other) = seen.insert(c.clone(), &def.name) {
                diags.push(
                    &m.revision,
                    Some(&def.name),
                    &def.schema.sp,
                    format!("C constant name {c} collides with definition {other}"),
                );
            }
            let summary = def.schema.doc.as_deref().map(|d| docs.summary(d)).unwrap_or_default();
            let doc = if summary.is_empty() {
                format!("`{}`.", def.name)
            } else {
                format!("`{}`: {}", def.name, comment_text(&summary))
            };
            let id = (r.code << 16) | (i as u32 + 1);
            let _ = writeln!(h, "    /** {doc} */\n    MCPGEN_DEF_{rid}_{c} = 0x{id:06X},");
        }
        trim_last_comma(h);
        h.push_str("};\n\n");
    }
}

fn methods(h: &mut String, revs: &[Rev], exts: &[CExt], diags: &mut Diagnostics) {
    // method → (kind, direction, revisions) over every revision, newest facts win; then the
    // extensions' own methods, named by extension (a method the core also had keeps its
    // core direction).
    let mut all: BTreeMap<&str, (MethodKind, Direction, Vec<String>)> = BTreeMap::new();
    for r in revs {
        for x in &r.m.methods {
            let e = all.entry(&x.method).or_insert((x.kind, x.direction, Vec::new()));
            e.0 = x.kind;
            e.1 = x.direction;
            e.2.push(r.m.revision.clone());
        }
    }
    for ext in exts {
        for x in &ext.m.methods {
            let e = all.entry(&x.method).or_insert((x.kind, x.direction, Vec::new()));
            e.0 = x.kind;
            e.2.push(format!("extension {}", ext.id));
        }
    }
    h.push_str(
        "/* ---- Method names ---------------------------------------------------------------------------- */\n\n",
    );
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for (method, (kind, dir, in_revs)) in &all {
        let c = method.replace('/', "_").to_shouty_snake_case();
        if let Some(other) = seen.insert(c.clone(), method) {
            diags.push("*", None, "", format!("C constant MCPGEN_METHOD_{c} names both {other} and {method}"));
        }
        let kind = match kind {
            MethodKind::Request => "Request",
            MethodKind::Notification => "Notification",
        };
        let dir = match dir {
            Direction::ClientToServer => ", client to server",
            Direction::ServerToClient => ", server to client",
            Direction::Both => ", either direction",
            Direction::EmbeddedInput => ", embedded input request",
            Direction::Unspecified => "",
        };
        let _ = writeln!(h, "/** {kind}{dir}; revisions {}. */", in_revs.join(", "));
        let _ = writeln!(h, "#define MCPGEN_METHOD_{c} {}", c_string(method));
    }
    h.push('\n');
}

fn error_codes(h: &mut String, revs: &[Rev], diags: &mut Diagnostics) {
    // The one collection the Rust constants (`mcpgen::error_codes`) come from too.
    let modules: Vec<&Module> = revs.iter().map(|r| r.m).collect();
    let all = super::tables::error_codes(&modules, diags);
    h.push_str(
        "/* ---- JSON-RPC error codes (from the error definitions' `code` constants) ---------------------- */\n\n",
    );
    for (def, e) in &all {
        let _ = writeln!(h, "/** `{def}`; revisions {}. */", e.revisions.join(", "));
        let _ = writeln!(h, "#define MCPGEN_ERROR_CODE_{} ({})", def.to_shouty_snake_case(), e.code);
    }
    h.push('\n');
}

fn ids_rs(revs: &[Rev], exts: &[CExt]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// @generated by mcpgen-codegen {}: revision codes and definition ids of include/mcpgen_schema.h.",
        env!("CARGO_PKG_VERSION")
    );
    s.push_str("// Do not edit; run `cargo xtask codegen`.\n\n");
    s.push_str("/// A revision as `mcpgen_schema.h` numbers it. Names end with a NUL, so C can borrow them.\npub struct RevisionIds {\n    /// `mcpgen_revision` value.\n    pub code: u32,\n    pub name: &'static str,\n    /// Definition names; the id of `definitions[i]` is `(code << 16) | (i + 1)`.\n    pub definitions: &'static [&'static str],\n    /// Method names, in the order of the revision's method table.\n    pub methods: &'static [&'static str],\n}\n\n");
    s.push_str(
        "/// Every revision of the header, by code (index `code - 1`).\npub const REVISIONS: &[RevisionIds] = &[\n",
    );
    for r in revs {
        let _ = writeln!(
            s,
            "    RevisionIds {{\n        code: {},\n        name: {:?},\n        definitions: &[",
            r.code,
            format!("{}\0", r.m.revision)
        );
        for d in &r.m.defs {
            let _ = writeln!(s, "            {:?},", format!("{}\0", d.name));
        }
        s.push_str("        ],\n        methods: &[\n");
        for x in &r.m.methods {
            let _ = writeln!(s, "            {:?},", format!("{}\0", x.method));
        }
        s.push_str("        ],\n    },\n");
    }
    s.push_str("];\n");
    s.push_str("\n/// An extension as `mcpgen_schema.h` numbers it (`mcpgen_extension`). The id ends with a NUL.\npub struct ExtensionIds {\n    /// `mcpgen_extension` value.\n    pub code: u32,\n    /// The identifier negotiated in `capabilities.extensions`.\n    pub id: &'static str,\n}\n\n");
    s.push_str(
        "/// Every extension of the header, by code (index `code - 1`).\npub const EXTENSIONS: &[ExtensionIds] = &[\n",
    );
    let mut by_code: Vec<&CExt> = exts.iter().collect();
    by_code.sort_by_key(|e| e.code);
    for e in by_code {
        let _ = writeln!(s, "    ExtensionIds {{ code: {}, id: {:?} }},", e.code.unwrap_or(0), format!("{}\0", e.id));
    }
    s.push_str("];\n");
    s
}
