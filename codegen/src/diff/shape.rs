//! What the comparison reads of a schema position: its shape with declarations resolved, the
//! JSON types it admits, union arm labels, and the one-line descriptions a change shows.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::ir::{self, DeclKind, Direction, LitValue, MethodKind, Module, Prop, Schema, Ty, UnionDecl, Unknown};
use crate::pointer::escape as escape_pointer;

/// `additionalProperties`, with "open" as extra keys of any value.
pub(super) enum Extra<'a> {
    Closed,
    Values(&'a Schema),
}

/// A schema position with declarations resolved (references are not followed).
pub(super) enum Shape<'a> {
    Any,
    Bool,
    Null,
    Str(Option<&'a str>),
    Num {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Array(&'a Schema, Option<u64>),
    Object(&'a [Prop], Extra<'a>),
    Union(&'a UnionDecl),
    /// A string enum, or a string const (`true`).
    Values(Vec<&'a str>, bool),
    IntConst(i64),
    Ref(&'a str),
}

static ANY: Schema = Schema { sp: String::new(), ty: Ty::Any, doc: None };

fn extra(u: &Unknown) -> Extra<'_> {
    match u {
        Unknown::Open | Unknown::Extension => Extra::Values(&ANY),
        Unknown::Map(v) => Extra::Values(v),
        Unknown::Forbidden => Extra::Closed,
    }
}

pub(super) fn shape<'a>(m: &'a Module, s: &'a Schema) -> Shape<'a> {
    match &s.ty {
        Ty::Any => Shape::Any,
        Ty::Bool => Shape::Bool,
        Ty::Null => Shape::Null,
        Ty::Str { format } => Shape::Str(format.as_deref()),
        Ty::Num { integer, minimum, maximum } => Shape::Num { integer: *integer, minimum: *minimum, maximum: *maximum },
        Ty::Array { items, max_items } => Shape::Array(items, *max_items),
        Ty::Map(v) => Shape::Object(&[], Extra::Values(v)),
        Ty::Ref(r) => Shape::Ref(r),
        Ty::Lit(l) => match &m.literals[*l].value {
            LitValue::Str(v) => Shape::Values(vec![v.as_str()], true),
            LitValue::Int(i) => Shape::IntConst(*i),
        },
        Ty::Decl(i) => match &m.decls[*i].kind {
            DeclKind::Object(o) => Shape::Object(&o.props, extra(&o.unknown)),
            DeclKind::Union(u) => Shape::Union(u),
            DeclKind::Enum(e) => Shape::Values(e.values.iter().map(|(v, _)| v.as_str()).collect(), false),
        },
    }
}

/// A readable one-line description of a schema position.
pub(super) fn describe(m: &Module, s: &Schema) -> String {
    describe_depth(m, s, 0)
}

fn describe_depth(m: &Module, s: &Schema, depth: usize) -> String {
    if depth > 2 {
        return "…".into();
    }
    match shape(m, s) {
        Shape::Any => "any".into(),
        Shape::Bool => "boolean".into(),
        Shape::Null => "null".into(),
        Shape::Str(None) => "string".into(),
        Shape::Str(Some(f)) => format!("string (format {f})"),
        Shape::Num { integer, minimum, maximum } => {
            let mut t = if integer { "integer" } else { "number" }.to_owned();
            if let Some(v) = minimum {
                write!(t, ", minimum {v}").unwrap();
            }
            if let Some(v) = maximum {
                write!(t, ", maximum {v}").unwrap();
            }
            t
        }
        Shape::Array(items, max) => {
            let mut t = format!("array of {}", describe_depth(m, items, depth + 1));
            if let Some(n) = max {
                write!(t, ", maxItems {n}").unwrap();
            }
            t
        }
        Shape::Object(props, extra) => {
            let fields = match props.len() {
                0 => String::new(),
                1 => " (1 field)".to_owned(),
                n => format!(" ({n} fields)"),
            };
            match extra {
                Extra::Closed => format!("closed object{fields}"),
                Extra::Values(v) if matches!(v.ty, Ty::Any) => format!("object{fields}"),
                Extra::Values(v) if props.is_empty() => format!("map of {}", describe_depth(m, v, depth + 1)),
                Extra::Values(v) => format!("object{fields}, extra keys: {}", describe_depth(m, v, depth + 1)),
            }
        }
        Shape::Union(u) => union_arms(m, u).into_iter().map(|(l, _)| l).collect::<Vec<_>>().join(" | "),
        Shape::Values(v, true) => format!("const {:?}", v[0]),
        Shape::Values(v, false) => {
            format!("enum {}", v.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", "))
        }
        Shape::IntConst(i) => format!("const {i}"),
        Shape::Ref(r) => r.to_owned(),
    }
}

/// A field as `required <type>` / `optional <type>`.
pub(super) fn describe_prop(m: &Module, p: &Prop) -> String {
    format!("{} {}", presence(p), describe(m, &p.schema))
}

pub(super) fn presence(p: &Prop) -> &'static str {
    match (p.required, p.relaxable) {
        (true, true) => "required (readers tolerate absence)",
        (true, false) => "required",
        (false, _) => "optional",
    }
}

/// Whether readers of the revision reject a message without the field.
pub(super) fn demands(p: &Prop) -> bool {
    p.required && !p.relaxable
}

/// The label of a union arm (or of a non-union compared with a union).
pub(super) fn arm_label(m: &Module, s: &Schema, tag: Option<(&str, &[String])>) -> String {
    match &s.ty {
        Ty::Ref(r) => r.clone(),
        Ty::Lit(l) => match &m.literals[*l].value {
            LitValue::Str(v) => format!("const {v:?}"),
            LitValue::Int(i) => format!("const {i}"),
        },
        Ty::Decl(i) => match &m.decls[*i].kind {
            DeclKind::Object(_) => match tag {
                Some((t, vals)) if !vals.is_empty() => format!("{t}={}", vals.join("|")),
                _ => "object".into(),
            },
            DeclKind::Union(u) => {
                format!("({})", union_arms(m, u).into_iter().map(|(l, _)| l).collect::<Vec<_>>().join(" | "))
            }
            DeclKind::Enum(_) => "enum".into(),
        },
        Ty::Map(_) => "object".into(),
        Ty::Str { .. } => "string".into(),
        Ty::Num { integer: true, .. } => "integer".into(),
        Ty::Num { .. } => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::Null => "null".into(),
        Ty::Array { .. } => "array".into(),
        Ty::Any => "any".into(),
    }
}

/// A union's arms with unique labels, in schema order.
pub(super) fn union_arms<'a>(m: &'a Module, u: &'a UnionDecl) -> Vec<(String, &'a Schema)> {
    let mut seen = BTreeSet::new();
    u.arms
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let tag = u.info.tag.as_deref().zip(u.info.arms.get(i).map(|ai| ai.tag_values.as_slice()));
            let base = arm_label(m, &a.schema, tag);
            let mut label = base.clone();
            let mut n = 2;
            while !seen.insert(label.clone()) {
                label = format!("{base}#{n}");
                n += 1;
            }
            (label, &a.schema)
        })
        .collect()
}

/// The string const an object arm gives property `tag`, if any.
pub(super) fn tag_value(m: &Module, s: &Schema, tag: &str) -> Option<String> {
    let Some(ir::Decl { kind: DeclKind::Object(o), .. }) = m.resolve_decl(s) else { return None };
    let p = o.props.iter().find(|p| p.key == tag)?;
    match &m.resolve(&p.schema).ty {
        Ty::Lit(l) => match &m.literals[*l].value {
            LitValue::Str(v) => Some(v.clone()),
            LitValue::Int(_) => None,
        },
        _ => None,
    }
}

/// Whether a position admits every JSON value (`{}`, or a union such as `JSONValue` whose arms
/// together do). A definition met again while deciding is assumed to.
pub(super) fn universal(m: &Module, s: &Schema) -> bool {
    use ir::JType as J;
    let all = [J::Null, J::Boolean, J::Number, J::String, J::Array, J::Object];
    let covered = covered(m, s, &mut Vec::new());
    all.iter().all(|t| covered.contains(t))
}

/// The JSON types whose every value a position admits.
fn covered(m: &Module, s: &Schema, visiting: &mut Vec<String>) -> BTreeSet<ir::JType> {
    use ir::JType as J;
    let all = || [J::Null, J::Boolean, J::Integer, J::Number, J::String, J::Array, J::Object].into_iter().collect();
    let full = |m: &Module, s: &Schema, visiting: &mut Vec<String>| {
        let c: BTreeSet<ir::JType> = covered(m, s, visiting);
        [J::Null, J::Boolean, J::Number, J::String, J::Array, J::Object].iter().all(|t| c.contains(t))
    };
    match &s.ty {
        Ty::Any => all(),
        Ty::Bool => [J::Boolean].into(),
        Ty::Null => [J::Null].into(),
        Ty::Str { format: None } => [J::String].into(),
        Ty::Num { integer, minimum: None, maximum: None } => {
            if *integer {
                [J::Integer].into()
            } else {
                [J::Integer, J::Number].into()
            }
        }
        Ty::Array { items, max_items: None } if full(m, items, visiting) => [J::Array].into(),
        Ty::Map(v) if full(m, v, visiting) => [J::Object].into(),
        Ty::Ref(r) => {
            if visiting.contains(r) {
                return all();
            }
            let Some(d) = m.def(r) else { return BTreeSet::new() };
            visiting.push(r.clone());
            let c = covered(m, &d.schema, visiting);
            visiting.pop();
            c
        }
        Ty::Decl(i) => match &m.decls[*i].kind {
            DeclKind::Union(u) => {
                let mut c = BTreeSet::new();
                for a in &u.arms {
                    c.extend(covered(m, &a.schema, visiting));
                }
                c
            }
            DeclKind::Object(o) => {
                let open = match &o.unknown {
                    Unknown::Open | Unknown::Extension => true,
                    Unknown::Map(v) => full(m, v, visiting),
                    Unknown::Forbidden => false,
                };
                if open && o.props.is_empty() {
                    [J::Object].into()
                } else {
                    BTreeSet::new()
                }
            }
            DeclKind::Enum(_) => BTreeSet::new(),
        },
        _ => BTreeSet::new(),
    }
}

/// A position's identity for the cycle guard: the definition it refers to, else its location.
pub(super) fn identity(s: &Schema) -> String {
    match &s.ty {
        Ty::Ref(r) => format!("$ref {r}"),
        _ => s.sp.clone(),
    }
}

pub(super) fn extra_text(m: &Module, v: &Schema) -> String {
    match v.ty {
        Ty::Any => "open".into(),
        _ => format!("extra keys: {}", describe(m, v)),
    }
}

pub(super) fn key_segment(key: &str) -> String {
    format!("/{}", escape_pointer(key))
}

/// The sides that send a method.
pub(super) fn senders(d: Direction) -> &'static [&'static str] {
    match d {
        Direction::ClientToServer => &["client"],
        Direction::ServerToClient => &["server"],
        Direction::Both => &["client", "server"],
        Direction::EmbeddedInput => &["server (embedded)"],
        Direction::Unspecified => &[],
    }
}

pub(super) fn direction(d: Direction) -> &'static str {
    match d {
        Direction::ClientToServer => "client → server",
        Direction::ServerToClient => "server → client",
        Direction::Both => "both ways",
        Direction::EmbeddedInput => "embedded input request",
        Direction::Unspecified => "no direction",
    }
}

pub(super) fn describe_method(m: &ir::Method) -> String {
    let kind = match m.kind {
        MethodKind::Request => "request",
        MethodKind::Notification => "notification",
    };
    let mut s = format!("{kind}, {}: {}", direction(m.direction), m.request_def);
    if !m.result_defs.is_empty() {
        write!(s, " → {}", m.result_defs.join(" | ")).unwrap();
    }
    s
}
