//! Python emitter: one module per revision (`mcpgen.rev_2026_07_28`, …) with a `TypedDict` for
//! every object declaration and a type alias (`Literal`, `Union`, `List`, `Dict`, a primitive)
//! for everything else, docstrings from the schema descriptions.
//!
//! Choices:
//! - Class syntax where every key is a plain identifier; the functional form
//!   `X = TypedDict("X", {...})` where a key is not (`io.modelcontextprotocol/…`, keywords) or
//!   would shadow a name the class's annotations use.
//! - Optional keys are `NotRequired[...]` (typing_extensions before 3.11).
//! - Objects without declared properties are `Dict[str, ...]`: TypedDicts cannot say "any key".
//! - Undeclared keys of open objects are not expressible in a `TypedDict` (PEP 728 is too new
//!   for 3.9); the docstring says what the runtime does with them.
//! - `typing` is imported as `_t` so no schema name can shadow it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::docs::Docs;
use crate::ir::{Decl, DeclKind, LitValue, Module, Schema, Ty, Unknown};
use crate::{ir, FileMap};

/// Directory of the Python package, workspace-relative.
pub const PACKAGE_DIR: &str = "bindings/python/python/mcpgen";

/// Python module name of a revision (`rev_2026_07_28`, as the Rust module).
pub fn module_name(revision: &str) -> String {
    super::module_name(revision)
}

/// Every revision's typing module: `bindings/python/python/mcpgen/rev_<rev>/__init__.py`.
pub fn workspace(modules: &[Module]) -> FileMap {
    let mut files = FileMap::default();
    for m in modules {
        files.insert(format!("{PACKAGE_DIR}/{}/__init__.py", module_name(&m.revision)), module(m));
    }
    files
}

const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !PY_KEYWORDS.contains(&key)
        && !key.starts_with("__")
}

/// A Python string literal (double quotes, escapes for `\` and `"`).
fn py_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A docstring body: backslashes and quote runs escaped, trailing spaces and a trailing quote
/// that would merge with the closing `"""` avoided.
fn docstring(text: &str, indent: &str) -> String {
    let body = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let lines: Vec<String> = body.lines().map(|l| l.trim_end().to_owned()).collect();
    let mut out = String::new();
    if lines.len() <= 1 {
        let one = lines.first().cloned().unwrap_or_default();
        let one = if one.ends_with('"') { format!("{one} ") } else { one };
        let _ = writeln!(out, "{indent}\"\"\"{one}\"\"\"");
        return out;
    }
    let _ = writeln!(out, "{indent}\"\"\"{}", lines[0]);
    for l in &lines[1..] {
        if l.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{indent}{l}");
        }
    }
    let _ = writeln!(out, "{indent}\"\"\"");
    out
}

struct Emitter<'m> {
    m: &'m Module,
    docs: Docs,
}

impl Emitter<'_> {
    /// The Python type of a schema position. Named types are quoted (forward references):
    /// annotations are evaluated at import time.
    fn ty(&self, s: &Schema, names: &mut BTreeSet<String>) -> String {
        let named = |n: &str, names: &mut BTreeSet<String>| {
            names.insert(n.to_owned());
            py_str(n)
        };
        match &s.ty {
            Ty::Any => "_t.Any".into(),
            Ty::Bool => builtin("bool", names),
            Ty::Null => "None".into(),
            Ty::Str { .. } => builtin("str", names),
            Ty::Num { integer: true, .. } => builtin("int", names),
            Ty::Num { integer: false, .. } => builtin("float", names),
            Ty::Array { items, .. } => format!("_t.List[{}]", self.ty(items, names)),
            Ty::Map(v) => format!("_t.Dict[{}, {}]", builtin("str", names), self.ty(v, names)),
            Ty::Ref(name) => named(name, names),
            Ty::Decl(i) => named(&self.m.decls[*i].name, names),
            Ty::Lit(i) => match &self.m.literals[*i].value {
                LitValue::Str(v) => format!("_t.Literal[{}]", py_str(v)),
                LitValue::Int(v) => format!("_t.Literal[{v}]"),
            },
        }
    }

    fn object(&self, d: &Decl, o: &ir::ObjectDecl, out: &mut String) {
        let mut doc = d.doc.as_deref().map(|t| self.docs.plain(t)).unwrap_or_default();
        if !doc.is_empty() {
            doc.push_str("\n\n");
        }
        let _ = write!(doc, "Schema: ``{}``.", d.sp);
        match &o.unknown {
            Unknown::Open => doc.push_str(
                " Undeclared keys are allowed by the schema: kept by the lossless policy, dropped by lenient, rejected by strict.",
            ),
            Unknown::Extension => doc.push_str(" An extension point (``_meta``): undeclared keys are allowed and kept under every policy (META-4)."),
            Unknown::Map(_) => doc.push_str(" Undeclared keys are allowed (``additionalProperties``)."),
            Unknown::Forbidden => doc.push_str(" Undeclared keys are not allowed."),
        }
        if o.props.is_empty() {
            let value = match &o.unknown {
                Unknown::Map(v) => self.ty(v, &mut BTreeSet::new()),
                Unknown::Forbidden => "_t.NoReturn".into(),
                _ => "_t.Any".into(),
            };
            let _ = writeln!(out, "{}: _te.TypeAlias = _t.Dict[str, {value}]", d.name);
            out.push_str(&docstring(&doc, ""));
            return;
        }
        // Field types and the names they use (a key equal to one of them cannot be a class field).
        let mut names = BTreeSet::new();
        let fields: Vec<(String, String, Option<String>)> = o
            .props
            .iter()
            .map(|p| {
                let t = self.ty(&p.schema, &mut names);
                let t = if p.required { t } else { format!("_te.NotRequired[{t}]") };
                let mut fdoc = p.schema.doc.as_deref().map(|t| self.docs.plain(t));
                if p.relaxable && p.required {
                    let note = "Clients tolerate its absence in results from earlier revisions (RESULT-2, CACHE-3).";
                    fdoc = Some(match fdoc {
                        Some(t) => format!("{t}\n\n{note}"),
                        None => note.to_owned(),
                    });
                }
                (p.key.clone(), t, fdoc)
            })
            .collect();
        let class_form =
            fields.iter().all(|(k, _, _)| is_identifier(k) && !names.contains(k) && k != "_t" && k != "_te");
        if class_form {
            let _ = writeln!(out, "class {}(_te.TypedDict):", d.name);
            out.push_str(&docstring(&doc, "    "));
            for (key, t, fdoc) in &fields {
                let _ = writeln!(out, "    {key}: {t}");
                if let Some(fd) = fdoc {
                    out.push_str(&docstring(fd, "    "));
                }
            }
        } else {
            let _ = writeln!(out, "{} = _te.TypedDict(", d.name);
            let _ = writeln!(out, "    {},", py_str(&d.name));
            out.push_str("    {\n");
            for p in &o.props {
                let t = self.ty(&p.schema, &mut BTreeSet::new());
                let t = if p.required { t } else { format!("_te.NotRequired[{t}]") };
                let _ = writeln!(out, "        {}: {t},", py_str(&p.key));
            }
            out.push_str("    },\n)\n");
            let mut full = doc;
            full.push_str("\n\nKeys:\n");
            for (key, _, fdoc) in &fields {
                let summary =
                    fdoc.as_deref().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).unwrap_or_default();
                if summary.is_empty() {
                    let _ = writeln!(full, "\n- ``{key}``");
                } else {
                    let _ = writeln!(full, "\n- ``{key}``: {summary}");
                }
            }
            out.push_str(&docstring(full.trim_end(), ""));
        }
    }

    /// `X: TypeAlias = ...` for unions, enums and definitions that name another type.
    fn alias(&self, name: &str, value: &str, doc: Option<&str>, sp: &str, out: &mut String) {
        let _ = writeln!(out, "{name}: _te.TypeAlias = {value}");
        let mut text = doc.map(|t| self.docs.plain(t)).unwrap_or_default();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let _ = write!(text, "Schema: ``{sp}``.");
        out.push_str(&docstring(&text, ""));
    }
}

fn builtin(name: &str, names: &mut BTreeSet<String>) -> String {
    names.insert(name.to_owned());
    name.to_owned()
}

/// Renders one revision's module.
pub fn module(m: &Module) -> String {
    module_for(m, None)
}

/// An extension's typing module (`mcpgen.ext_<name>`): `(extension id, revision it layers on)`.
pub fn extension_module(m: &Module, id: &str, layers_on: &str) -> String {
    module_for(m, Some((id, layers_on)))
}

fn module_for(m: &Module, ext: Option<(&str, &str)>) -> String {
    let e = Emitter { m, docs: Docs::new(m) };
    let mut out = String::new();
    let source = match ext {
        Some((id, _)) => format!("MCP extension {id}"),
        None => format!("MCP schema revision {}", m.revision),
    };
    let _ = writeln!(
        out,
        "# @generated by mcpgen-codegen {} from {source} (sha256 {}).\n# Typed dictionaries for every definition.\n# Do not edit; run `cargo xtask codegen`.",
        env!("CARGO_PKG_VERSION"),
        m.sha256
    );
    let object_count = m.decls.iter().filter(|d| matches!(d.kind, DeclKind::Object(_))).count();
    let head = if let Some((id, layers_on)) = ext {
        format!(
            "MCP extension ``{id}`` (layers on revision {layers_on}): a ``TypedDict`` or type alias for every definition of its schema.\n\nGenerated from the extension's ``schema.json`` (sha256 ``{}``): {} definitions (its copies of core definitions included), {} declared types ({object_count} objects).\nUse them to type task messages::\n\n    from mcpgen.{} import GetTaskResult\n\n    result: GetTaskResult = response[\"result\"]",
            m.sha256,
            m.defs.len(),
            m.decls.len(),
            super::ext_module_name(m.revision.trim_start_matches("ext-")),
        )
    } else {
        format!(
        "MCP schema revision {}: a ``TypedDict`` or type alias for every definition.\n\nGenerated from ``schema.json`` (sha256 ``{}``): {} definitions, {} declared types ({object_count} objects).\nUse them to type data passed to and returned by ``mcpgen.validate`` / ``mcpgen.decode``::\n\n    from mcpgen.{} import CallToolRequest\n\n    request: CallToolRequest = mcpgen.decode(data, \"CallToolRequest\", revision=\"{}\")",
        m.revision,
        m.sha256,
        m.defs.len(),
        m.decls.len(),
        module_name(&m.revision),
        m.revision
        )
    };
    out.push_str(&docstring(&head, ""));
    out.push_str(
        "\nimport sys\nimport typing as _t\n\nif sys.version_info >= (3, 11):\n    import typing as _te\nelse:\n    import typing_extensions as _te\n\n",
    );
    if let Some((id, layers_on)) = ext {
        out.push_str(&format!("EXTENSION_ID = {}\n", py_str(id)));
        out.push_str("\"\"\"The extension identifier, its key under ``capabilities.extensions``.\"\"\"\n\n");
        out.push_str(&format!("LAYERS_ON = {}\n", py_str(layers_on)));
        out.push_str("\"\"\"The schema revision the extension layers on.\"\"\"\n\n");
    } else {
        out.push_str(&format!("REVISION = {}\n", py_str(&m.revision)));
        out.push_str("\"\"\"The schema revision these types describe.\"\"\"\n\n");
    }

    // Every exported name.
    let mut exported: BTreeSet<String> = m.defs.iter().map(|d| d.name.clone()).collect();
    exported.extend(m.decls.iter().map(|d| d.name.clone()));

    // Objects first (they quote every reference to a named type, so they need nothing at
    // import time; the annotations are not postponed, so `NotRequired` stays visible to
    // `__required_keys__`), then aliases ordered so that an alias naming another alias
    // directly comes after it.
    let mut aliases: BTreeMap<String, (String, Option<String>, String)> = BTreeMap::new();
    for d in &m.decls {
        match &d.kind {
            DeclKind::Object(o) => {
                out.push_str("\n\n");
                e.object(d, o, &mut out);
            }
            DeclKind::Union(u) => {
                let mut arms: Vec<String> = Vec::new();
                for a in &u.arms {
                    let t = e.ty(&a.schema, &mut BTreeSet::new());
                    if !arms.contains(&t) {
                        arms.push(t);
                    }
                }
                let value = if arms.len() == 1 { arms.remove(0) } else { format!("_t.Union[{}]", arms.join(", ")) };
                aliases.insert(d.name.clone(), (value, d.doc.clone(), d.sp.clone()));
            }
            DeclKind::Enum(en) => {
                let values: Vec<String> = en.values.iter().map(|(v, _)| py_str(v)).collect();
                aliases.insert(
                    d.name.clone(),
                    (format!("_t.Literal[{}]", values.join(", ")), d.doc.clone(), d.sp.clone()),
                );
            }
        }
    }
    for def in &m.defs {
        let is_own_decl = matches!(&def.schema.ty, Ty::Decl(i) if m.decls[*i].name == def.name);
        if is_own_decl {
            continue;
        }
        let value = match &def.schema.ty {
            // A bare name must exist at import time: not quoted, ordered below.
            Ty::Ref(r) => r.clone(),
            Ty::Decl(i) => m.decls[*i].name.clone(),
            _ => e.ty(&def.schema, &mut BTreeSet::new()),
        };
        let sp = format!("#/{}/{}", m.defs_key, crate::pointer::escape(&def.name));
        aliases.insert(def.name.clone(), (value, def.schema.doc.clone(), sp));
    }
    let mut done: BTreeSet<String> = BTreeSet::new();
    let names: Vec<String> = aliases.keys().cloned().collect();
    for name in names {
        emit_alias(&e, &name, &aliases, &mut done, &mut out, 0);
    }

    let constants = if ext.is_some() { "    \"EXTENSION_ID\",\n    \"LAYERS_ON\",\n" } else { "    \"REVISION\",\n" };
    out.push_str("\n\n__all__ = [\n");
    out.push_str(constants);
    for n in &exported {
        let _ = writeln!(out, "    {},", py_str(n));
    }
    out.push_str("]\n");
    out
}

fn emit_alias(
    e: &Emitter,
    name: &str,
    aliases: &BTreeMap<String, (String, Option<String>, String)>,
    done: &mut BTreeSet<String>,
    out: &mut String,
    depth: usize,
) {
    if done.contains(name) || depth > 64 {
        return;
    }
    let Some((value, doc, sp)) = aliases.get(name) else { return };
    // An unquoted bare reference to another alias needs that alias first.
    if aliases.contains_key(value) {
        emit_alias(e, value, aliases, done, out, depth + 1);
    }
    done.insert(name.to_owned());
    out.push_str("\n\n");
    e.alias(name, value, doc.as_deref(), sp, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_strings() {
        assert!(is_identifier("_meta"));
        assert!(is_identifier("name"));
        assert!(!is_identifier("io.modelcontextprotocol/protocolVersion"));
        assert!(!is_identifier("from"));
        assert!(!is_identifier("__dunder"));
        assert!(!is_identifier("1x"));
        assert_eq!(py_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }

    #[test]
    fn docstrings_escape_quotes_and_backslashes() {
        assert_eq!(docstring("say \"\"\"hi\"\"\"", ""), "\"\"\"say \\\"\\\"\\\"hi\\\"\\\"\\\" \"\"\"\n");
        assert_eq!(docstring("a\\b", "    "), "    \"\"\"a\\\\b\"\"\"\n");
        assert_eq!(docstring("one\n\ntwo", ""), "\"\"\"one\n\ntwo\n\"\"\"\n");
    }
}
