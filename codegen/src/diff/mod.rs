//! Revision diff: what changed between two lowered schema revisions, and who it breaks.
//!
//! [`diff`] compares two [`ir::Module`]s — the lowered models, errata applied, never the raw
//! JSON — definition by definition (matched by name) and method by method (matched by method
//! name), and returns typed [`Change`]s. Each change says whom it breaks on the wire
//! ([`Breaks`]): a *reader* of the old revision that receives a message written by the new one,
//! and a *writer* of the old revision whose message is received by the new one. The rules are
//! [`SEMANTICS`], which the rendered report repeats in its header.
//!
//! [`RevisionDiff::to_markdown`] and [`RevisionDiff::to_json`] render the result;
//! `cargo xtask diff FROM TO` prints them, and the workspace generation commits the report for
//! each revision with a `diff_report_from` in `schema/sources.toml` under `docs/`
//! ([`workspace_reports`]; `cargo xtask codegen --check` flags drift).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::ir::{self, DeclKind, Direction, LitValue, MethodKind, Module, Prop, Schema, Ty, UnionDecl, Unknown};
use crate::pointer::escape as escape_pointer;
use crate::workspace::header;
use crate::{Diagnostics, FileMap, RevisionInput};

/// Where the committed report for `from → to` lives, relative to the workspace root.
pub fn report_path(from: &str, to: &str) -> String {
    format!("docs/revision-diff-{from}-to-{to}.md")
}

/// The classification rules, as the report's header states them (Markdown).
pub const SEMANTICS: &str = "\
Every change is classified by whom it breaks on the wire, taking each schema as the contract of
its revision:

- **old readers**: a peer that validates with the *old* revision receives a message written to
  the *new* one and may reject or misread it (the new revision accepts something the old one did
  not: a widening);
- **old writers**: a peer that writes to the *old* revision sends to one that validates with the
  *new* revision, which may reject it (the new revision no longer accepts something the old one
  did: a narrowing);
- both (a change of type), or neither.

The rules, per kind of change:

| change | old readers | old writers |
|---|---|---|
| definition added or removed | – | – (what refers to it reports the change) |
| method added | breaks (old peers do not serve it) | – |
| method removed | – | breaks (new peers do not serve it) |
| method direction: a sending side added / removed | breaks / – | – / breaks |
| request ↔ notification | breaks | breaks |
| field added, optional | breaks if the old object is closed | – |
| field added, required | breaks if the old object is closed | breaks (old messages lack it) |
| field removed, was optional | – | breaks if the new object is closed |
| field removed, was required | breaks (new messages lack it) | breaks if the new object is closed |
| optional → required | – | breaks |
| required → optional | breaks | – |
| open → closed object (`additionalProperties: false`) | – | breaks (extra keys rejected) |
| closed → open object | breaks (extra keys may arrive) | – |
| enum value added | breaks | – |
| enum value removed | – | breaks |
| union arm added | breaks, unless an old arm already accepted all its values | – |
| union arm removed | – | breaks, unless a remaining arm accepts all its values |
| const changed, unrelated type change | breaks | breaks |
| type widened (integer → number, const/enum → string, something → any) | breaks | – |
| type narrowed (the reverse) | – | breaks |
| bound, `maxItems` or `format` added / tightened | – | breaks |
| bound, `maxItems` or `format` removed / loosened | breaks | – |
| a reference to another definition (or inline ↔ reference) | – | – (its shape differences are listed under the same path) |

Assumptions:

- An object is *open* unless it has `additionalProperties: false`; `additionalProperties` with a
  schema admits extra keys of that schema (a field added to or removed from such an object is
  checked against it).
- Extra keys that old writers send to an open object are extensions, not a field that the new
  revision declares under the same name: adding an optional field to an open object breaks no
  one.
- A member the specification tells readers to tolerate missing (`resultType`, RESULT-2;
  `ttlMs`/`cacheScope`, CACHE-3) is required by the schema but not *demanded*: requiring it
  breaks no old writer, and the report marks it `required (readers tolerate absence)`.
- Definitions are compared by name and methods by method name, so a renamed definition is one
  removed and one added; where a position refers to a different definition, the two are compared
  structurally under that position (a revisited pair counts as equal).
- Descriptions, decoding strategies and Rust names are not wire behaviour and are not compared.

Paths are instance paths from the definition (or, for a method, from its request message;
`/result` is its result): `/key` a member (JSON Pointer escaping: `~1` is `/`), `[]` array items,
`{}` the values of extra keys, `<arm>` a union arm (a definition name, a JSON type, `tag=value`
or `const …`).";

/// One compared revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionId {
    pub revision: String,
    pub sha256: String,
}

/// Where a change is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// Definition `name`; `path` is an instance path inside it (`""` for the definition itself).
    Definition { name: String, path: String },
    /// Method `method`; `path` is inside its request message (`""` for the method itself) or
    /// `/result` for its result.
    Method { method: String, path: String },
}

impl Subject {
    /// The definition or method name.
    pub fn name(&self) -> &str {
        match self {
            Subject::Definition { name, .. } => name,
            Subject::Method { method, .. } => method,
        }
    }
    pub fn path(&self) -> &str {
        match self {
            Subject::Definition { path, .. } | Subject::Method { path, .. } => path,
        }
    }
}

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    DefinitionAdded,
    DefinitionRemoved,
    MethodAdded,
    MethodRemoved,
    /// Request ↔ notification.
    MethodKindChanged,
    /// The sides that send the method changed.
    DirectionChanged,
    FieldAdded,
    FieldRemoved,
    /// Optional → required.
    FieldRequired,
    /// Required → optional.
    FieldOptional,
    TypeChanged,
    ConstChanged,
    EnumValueAdded,
    EnumValueRemoved,
    UnionArmAdded,
    UnionArmRemoved,
    /// Open → closed (`additionalProperties: false`).
    ObjectClosed,
    /// Closed → open.
    ObjectOpened,
    /// A bound, `maxItems` or `format`.
    ConstraintChanged,
    /// The position refers to another definition (or stops or starts referring to one).
    RefChanged,
}

impl ChangeKind {
    pub const ALL: [ChangeKind; 20] = [
        ChangeKind::DefinitionAdded,
        ChangeKind::DefinitionRemoved,
        ChangeKind::MethodAdded,
        ChangeKind::MethodRemoved,
        ChangeKind::MethodKindChanged,
        ChangeKind::DirectionChanged,
        ChangeKind::FieldAdded,
        ChangeKind::FieldRemoved,
        ChangeKind::FieldRequired,
        ChangeKind::FieldOptional,
        ChangeKind::TypeChanged,
        ChangeKind::ConstChanged,
        ChangeKind::EnumValueAdded,
        ChangeKind::EnumValueRemoved,
        ChangeKind::UnionArmAdded,
        ChangeKind::UnionArmRemoved,
        ChangeKind::ObjectClosed,
        ChangeKind::ObjectOpened,
        ChangeKind::ConstraintChanged,
        ChangeKind::RefChanged,
    ];

    /// The snake-case name used in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::DefinitionAdded => "definition_added",
            ChangeKind::DefinitionRemoved => "definition_removed",
            ChangeKind::MethodAdded => "method_added",
            ChangeKind::MethodRemoved => "method_removed",
            ChangeKind::MethodKindChanged => "method_kind_changed",
            ChangeKind::DirectionChanged => "direction_changed",
            ChangeKind::FieldAdded => "field_added",
            ChangeKind::FieldRemoved => "field_removed",
            ChangeKind::FieldRequired => "field_required",
            ChangeKind::FieldOptional => "field_optional",
            ChangeKind::TypeChanged => "type_changed",
            ChangeKind::ConstChanged => "const_changed",
            ChangeKind::EnumValueAdded => "enum_value_added",
            ChangeKind::EnumValueRemoved => "enum_value_removed",
            ChangeKind::UnionArmAdded => "union_arm_added",
            ChangeKind::UnionArmRemoved => "union_arm_removed",
            ChangeKind::ObjectClosed => "object_closed",
            ChangeKind::ObjectOpened => "object_opened",
            ChangeKind::ConstraintChanged => "constraint_changed",
            ChangeKind::RefChanged => "ref_changed",
        }
    }

    /// A short phrase for the Markdown report.
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::DefinitionAdded => "definition added",
            ChangeKind::DefinitionRemoved => "definition removed",
            ChangeKind::MethodAdded => "method added",
            ChangeKind::MethodRemoved => "method removed",
            ChangeKind::MethodKindChanged => "request ↔ notification",
            ChangeKind::DirectionChanged => "direction changed",
            ChangeKind::FieldAdded => "field added",
            ChangeKind::FieldRemoved => "field removed",
            ChangeKind::FieldRequired => "now required",
            ChangeKind::FieldOptional => "now optional",
            ChangeKind::TypeChanged => "type changed",
            ChangeKind::ConstChanged => "const changed",
            ChangeKind::EnumValueAdded => "enum value added",
            ChangeKind::EnumValueRemoved => "enum value removed",
            ChangeKind::UnionArmAdded => "union arm added",
            ChangeKind::UnionArmRemoved => "union arm removed",
            ChangeKind::ObjectClosed => "object closed",
            ChangeKind::ObjectOpened => "object opened",
            ChangeKind::ConstraintChanged => "constraint changed",
            ChangeKind::RefChanged => "reference changed",
        }
    }
}

/// Whom a change breaks on the wire (see [`SEMANTICS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Breaks {
    /// A reader of the old revision may reject (or misread) what the new revision allows.
    pub old_readers: bool,
    /// What a writer of the old revision sends may be rejected by the new revision.
    pub old_writers: bool,
}

impl Breaks {
    pub const NONE: Breaks = Breaks { old_readers: false, old_writers: false };
    pub const READERS: Breaks = Breaks { old_readers: true, old_writers: false };
    pub const WRITERS: Breaks = Breaks { old_readers: false, old_writers: true };
    pub const BOTH: Breaks = Breaks { old_readers: true, old_writers: true };

    pub fn any(self) -> bool {
        self.old_readers || self.old_writers
    }
    fn or(self, other: Breaks) -> Breaks {
        Breaks {
            old_readers: self.old_readers || other.old_readers,
            old_writers: self.old_writers || other.old_writers,
        }
    }
    /// `readers`, `writers`, `both` or `none`.
    pub fn as_str(self) -> &'static str {
        match (self.old_readers, self.old_writers) {
            (true, true) => "both",
            (true, false) => "readers",
            (false, true) => "writers",
            (false, false) => "none",
        }
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub subject: Subject,
    pub kind: ChangeKind,
    /// What the old revision has there (absent for an addition).
    pub old: Option<String>,
    /// What the new revision has there (absent for a removal).
    pub new: Option<String>,
    pub breaks: Breaks,
}

/// Everything that changed from one revision to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionDiff {
    pub from: RevisionId,
    pub to: RevisionId,
    /// Method changes first (by method name), then definition changes (by name); within one
    /// method or definition, in schema order.
    pub changes: Vec<Change>,
}

/// Counts of changes by breakage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    /// Breaks old readers only.
    pub readers: usize,
    /// Breaks old writers only.
    pub writers: usize,
    pub both: usize,
    pub none: usize,
}

impl Counts {
    fn add(&mut self, b: Breaks) {
        self.total += 1;
        match (b.old_readers, b.old_writers) {
            (true, true) => self.both += 1,
            (true, false) => self.readers += 1,
            (false, true) => self.writers += 1,
            (false, false) => self.none += 1,
        }
    }
    fn json(self) -> Value {
        json!({"total": self.total, "readers": self.readers, "writers": self.writers, "both": self.both, "none": self.none})
    }
}

/// Lowers two revisions (errata applied, like code generation) and compares them.
pub fn diff_inputs(old: &RevisionInput, new: &RevisionInput) -> Result<RevisionDiff, Diagnostics> {
    let lower = |r: &RevisionInput| crate::load::load(r).and_then(|l| ir::lower(&l));
    let (o, n) = (lower(old), lower(new));
    match (o, n) {
        (Ok(o), Ok(n)) => Ok(diff(&o, &n)),
        (o, n) => {
            let mut d = Diagnostics::default();
            for r in [o, n] {
                if let Err(e) = r {
                    d.extend(e);
                }
            }
            Err(d)
        }
    }
}

/// Compares two lowered revisions.
pub fn diff(old: &Module, new: &Module) -> RevisionDiff {
    let mut c =
        Cmp { old, new, scope: Scope::Method(String::new()), path: Vec::new(), stack: Vec::new(), out: Vec::new() };
    c.methods();
    c.definitions();
    RevisionDiff {
        from: RevisionId { revision: old.revision.clone(), sha256: old.sha256.clone() },
        to: RevisionId { revision: new.revision.clone(), sha256: new.sha256.clone() },
        changes: c.out,
    }
}

/// The committed reports, at [`report_path`], for the `(from, to)` pairs whose revisions are
/// both in `modules` (for the workspace file map; the pairs come from `diff_report_from` in
/// `schema/sources.toml`).
pub fn workspace_reports(modules: &[Module], pairs: &[(String, String)]) -> FileMap {
    let mut files = FileMap::default();
    for (from, to) in pairs {
        let find = |r: &str| modules.iter().find(|m| m.revision == r);
        if let (Some(o), Some(n)) = (find(from), find(to)) {
            let head = header("<!--", " -->", None, &format!("`cargo xtask diff {from} {to}`."));
            files.insert(report_path(from, to), head + &diff(o, n).to_markdown());
        }
    }
    files
}

// ---------------------------------------------------------------------------------------------
// Comparison.

#[derive(Clone)]
enum Scope {
    Definition(String),
    Method(String),
}

struct Cmp<'a> {
    old: &'a Module,
    new: &'a Module,
    scope: Scope,
    /// Rendered path segments.
    path: Vec<String>,
    /// Pairs of positions being compared through a reference change (cycle guard).
    stack: Vec<(String, String)>,
    out: Vec<Change>,
}

/// `additionalProperties`, with "open" as extra keys of any value.
enum Extra<'a> {
    Closed,
    Values(&'a Schema),
}

/// A schema position with declarations resolved (references are not followed).
enum Shape<'a> {
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

fn shape<'a>(m: &'a Module, s: &'a Schema) -> Shape<'a> {
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
fn describe(m: &Module, s: &Schema) -> String {
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
fn describe_prop(m: &Module, p: &Prop) -> String {
    format!("{} {}", presence(p), describe(m, &p.schema))
}

fn presence(p: &Prop) -> &'static str {
    match (p.required, p.relaxable) {
        (true, true) => "required (readers tolerate absence)",
        (true, false) => "required",
        (false, _) => "optional",
    }
}

/// Whether readers of the revision reject a message without the field.
fn demands(p: &Prop) -> bool {
    p.required && !p.relaxable
}

/// The label of a union arm (or of a non-union compared with a union).
fn arm_label(m: &Module, s: &Schema, tag: Option<(&str, &[String])>) -> String {
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
fn union_arms<'a>(m: &'a Module, u: &'a UnionDecl) -> Vec<(String, &'a Schema)> {
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
fn tag_value(m: &Module, s: &Schema, tag: &str) -> Option<String> {
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
fn universal(m: &Module, s: &Schema) -> bool {
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
fn identity(s: &Schema) -> String {
    match &s.ty {
        Ty::Ref(r) => format!("$ref {r}"),
        _ => s.sp.clone(),
    }
}

impl<'a> Cmp<'a> {
    fn push(&mut self, kind: ChangeKind, old: Option<String>, new: Option<String>, breaks: Breaks) {
        let path = self.path.concat();
        let subject = match &self.scope {
            Scope::Definition(name) => Subject::Definition { name: name.clone(), path },
            Scope::Method(method) => Subject::Method { method: method.clone(), path },
        };
        self.out.push(Change { subject, kind, old, new, breaks });
    }

    fn at<R>(&mut self, segment: String, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(segment);
        let r = f(self);
        self.path.pop();
        r
    }

    /// What comparing `o` with `n` would report, without reporting it.
    fn breaks_of(&mut self, o: &'a Schema, n: &'a Schema) -> Breaks {
        let mark = self.out.len();
        self.schema(o, n, None, None);
        let b = self.out[mark..].iter().fold(Breaks::NONE, |acc, c| acc.or(c.breaks));
        self.out.truncate(mark);
        b
    }

    fn definitions(&mut self) {
        let (old, new) = (self.old, self.new);
        let names: BTreeSet<&str> = old.defs.iter().chain(&new.defs).map(|d| d.name.as_str()).collect();
        for name in names {
            self.scope = Scope::Definition(name.to_owned());
            match (old.def(name), new.def(name)) {
                (Some(o), None) => {
                    self.push(ChangeKind::DefinitionRemoved, Some(describe(old, &o.schema)), None, Breaks::NONE)
                }
                (None, Some(n)) => {
                    self.push(ChangeKind::DefinitionAdded, None, Some(describe(new, &n.schema)), Breaks::NONE)
                }
                (Some(o), Some(n)) => self.schema(&o.schema, &n.schema, None, None),
                (None, None) => unreachable!(),
            }
        }
    }

    fn methods(&mut self) {
        let (old, new) = (self.old, self.new);
        let names: BTreeSet<&str> = old.methods.iter().chain(&new.methods).map(|m| m.method.as_str()).collect();
        for name in names {
            self.scope = Scope::Method(name.to_owned());
            let find = |m: &'a Module| m.methods.iter().find(|x| x.method == name);
            match (find(old), find(new)) {
                (Some(o), None) => {
                    self.push(ChangeKind::MethodRemoved, Some(describe_method(o)), None, Breaks::WRITERS)
                }
                (None, Some(n)) => self.push(ChangeKind::MethodAdded, None, Some(describe_method(n)), Breaks::READERS),
                (Some(o), Some(n)) => self.method(o, n),
                (None, None) => unreachable!(),
            }
        }
    }

    fn method(&mut self, o: &'a ir::Method, n: &'a ir::Method) {
        if o.kind != n.kind {
            let kind = |k: MethodKind| match k {
                MethodKind::Request => "request",
                MethodKind::Notification => "notification",
            };
            self.push(
                ChangeKind::MethodKindChanged,
                Some(kind(o.kind).into()),
                Some(kind(n.kind).into()),
                Breaks::BOTH,
            );
        }
        if o.direction != n.direction {
            let (os, ns) = (senders(o.direction), senders(n.direction));
            let breaks = Breaks {
                old_readers: ns.iter().any(|s| !os.contains(s)),
                old_writers: os.iter().any(|s| !ns.contains(s)),
            };
            self.push(
                ChangeKind::DirectionChanged,
                Some(direction(o.direction).into()),
                Some(direction(n.direction).into()),
                breaks,
            );
        }
        if o.request_def != n.request_def {
            // Different definitions for the same method: compare them under the method.
            let (os, ns) = (self.ref_schema(&o.request_def), self.ref_schema(&n.request_def));
            self.schema_owned(os, ns);
        }
        if o.kind != n.kind {
            // A notification has no result: nothing more to compare there.
            return;
        }
        let complete = |m: &'a ir::Method| -> Vec<&'a str> {
            m.result_defs.iter().map(String::as_str).filter(|r| *r != ir::overrides::RESULT_TYPE_ARM).collect()
        };
        let (oc, nc) = (complete(o), complete(n));
        let paired = (oc.len() == 1 && nc.len() == 1 && oc[0] != nc[0]).then(|| (oc[0], nc[0]));
        self.at("/result".into(), |c| {
            for r in &o.result_defs {
                if !n.result_defs.contains(r) && paired.is_none_or(|(p, _)| p != r) {
                    c.push(ChangeKind::UnionArmRemoved, Some(r.clone()), None, Breaks::WRITERS);
                }
            }
            for r in &n.result_defs {
                if !o.result_defs.contains(r) && paired.is_none_or(|(_, p)| p != r) {
                    c.push(ChangeKind::UnionArmAdded, None, Some(r.clone()), Breaks::READERS);
                }
            }
            if let Some((p, q)) = paired {
                let (os, ns) = (c.ref_schema(p), c.ref_schema(q));
                c.schema_owned(os, ns);
            }
        });
    }

    fn ref_schema(&self, name: &str) -> Schema {
        Schema { sp: String::new(), ty: Ty::Ref(name.to_owned()), doc: None }
    }

    /// [`Cmp::schema`] on two reference schemas made on the spot (they only name definitions).
    fn schema_owned(&mut self, o: Schema, n: Schema) {
        let (Ty::Ref(a), Ty::Ref(b)) = (&o.ty, &n.ty) else { return };
        let (Some(od), Some(nd)) = (self.old.def(a), self.new.def(b)) else { return };
        let key = (identity(&o), identity(&n));
        if self.stack.contains(&key) {
            return;
        }
        self.stack.push(key);
        self.push(ChangeKind::RefChanged, Some(a.clone()), Some(b.clone()), Breaks::NONE);
        self.schema(&od.schema, &nd.schema, Some(od.name.as_str()), Some(nd.name.as_str()));
        self.stack.pop();
    }

    /// Compares two positions. `oa`/`na` name the definitions they were reached through (the
    /// label a non-union side takes when compared with a union).
    fn schema(&mut self, o: &'a Schema, n: &'a Schema, oa: Option<&'a str>, na: Option<&'a str>) {
        if self.path.len() > 48 {
            return;
        }
        let (old, new) = (self.old, self.new);
        let (mut os, mut ns) = (shape(old, o), shape(new, n));
        // A union that admits every JSON value (`JSONValue`) is `any`.
        match (universal(old, o), universal(new, n)) {
            (true, true) => {
                if identity(o) != identity(n) && (matches!(os, Shape::Ref(_)) || matches!(ns, Shape::Ref(_))) {
                    self.push(ChangeKind::RefChanged, Some(describe(old, o)), Some(describe(new, n)), Breaks::NONE);
                }
                return;
            }
            (true, false) => os = Shape::Any,
            (false, true) => ns = Shape::Any,
            (false, false) => {}
        }
        match (&os, &ns) {
            // Same definition: compared once, under its own name.
            (Shape::Ref(a), Shape::Ref(b)) if a == b => {}
            (Shape::Union(ou), Shape::Union(nu)) => {
                let (oarms, narms) = (union_arms(old, ou), union_arms(new, nu));
                self.arms(oarms, narms, ou.info.tag.as_deref().or(nu.info.tag.as_deref()));
            }
            (Shape::Union(ou), _) => {
                let label = na.map(str::to_owned).unwrap_or_else(|| arm_label(new, n, None));
                let oarms = union_arms(old, ou);
                if matches!(ns, Shape::Ref(_)) && !oarms.iter().any(|(l, _)| *l == label) {
                    self.through_ref(o, n, oa, na);
                } else {
                    self.arms(oarms, vec![(label, n)], ou.info.tag.as_deref());
                }
            }
            (_, Shape::Union(nu)) => {
                let label = oa.map(str::to_owned).unwrap_or_else(|| arm_label(old, o, None));
                let narms = union_arms(new, nu);
                if matches!(os, Shape::Ref(_)) && !narms.iter().any(|(l, _)| *l == label) {
                    self.through_ref(o, n, oa, na);
                } else {
                    self.arms(vec![(label, o)], narms, nu.info.tag.as_deref());
                }
            }
            (Shape::Ref(_), _) | (_, Shape::Ref(_)) => self.through_ref(o, n, oa, na),
            _ => self.shapes(os, ns, o, n),
        }
    }

    /// One side (or both) refers to a definition the other does not: note it and compare the
    /// shapes behind the references.
    fn through_ref(&mut self, o: &'a Schema, n: &'a Schema, oa: Option<&'a str>, na: Option<&'a str>) {
        let key = (identity(o), identity(n));
        if self.stack.contains(&key) {
            return;
        }
        let (old, new) = (self.old, self.new);
        let (mut o2, mut oa2, mut n2, mut na2) = (o, oa, n, na);
        if let Ty::Ref(r) = &o.ty {
            let Some(d) = old.def(r) else { return };
            (o2, oa2) = (&d.schema, Some(r.as_str()));
        }
        if let Ty::Ref(r) = &n.ty {
            let Some(d) = new.def(r) else { return };
            (n2, na2) = (&d.schema, Some(r.as_str()));
        }
        self.push(ChangeKind::RefChanged, Some(describe(old, o)), Some(describe(new, n)), Breaks::NONE);
        self.stack.push(key);
        self.schema(o2, n2, oa2, na2);
        self.stack.pop();
    }

    /// Matches arms by label, then the rest by the value of the union's `tag` (an arm that
    /// became another definition or an inline object keeps its `method`), and compares pairs.
    fn arms(&mut self, oarms: Vec<(String, &'a Schema)>, narms: Vec<(String, &'a Schema)>, tag: Option<&str>) {
        let (old, new) = (self.old, self.new);
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (i, (l, _)) in oarms.iter().enumerate() {
            if let Some(j) = narms.iter().position(|(k, _)| k == l) {
                pairs.push((i, j));
            }
        }
        if let Some(tag) = tag {
            for (i, (_, os)) in oarms.iter().enumerate() {
                if pairs.iter().any(|p| p.0 == i) {
                    continue;
                }
                let Some(v) = tag_value(old, os, tag) else { continue };
                let j = narms.iter().enumerate().position(|(j, (_, ns))| {
                    !pairs.iter().any(|p| p.1 == j) && tag_value(new, ns, tag) == Some(v.clone())
                });
                if let Some(j) = j {
                    pairs.push((i, j));
                }
            }
        }
        // An arm removed breaks old writers unless a new arm still takes all its values; an arm
        // added breaks old readers unless an old arm already took all of its values.
        for (i, (l, os)) in oarms.iter().enumerate() {
            if !pairs.iter().any(|p| p.0 == i) {
                let cover = narms.iter().find(|(_, ns)| !self.breaks_of(os, ns).old_writers);
                let (new, breaks) = match cover {
                    Some((k, _)) => (Some(format!("accepted as {k}")), Breaks::NONE),
                    None => (None, Breaks::WRITERS),
                };
                self.push(ChangeKind::UnionArmRemoved, Some(l.clone()), new, breaks);
            }
        }
        for (j, (l, ns)) in narms.iter().enumerate() {
            if !pairs.iter().any(|p| p.1 == j) {
                let cover = oarms.iter().find(|(_, os)| !self.breaks_of(os, ns).old_readers);
                let (old, breaks) = match cover {
                    Some((k, _)) => (Some(format!("accepted as {k}")), Breaks::NONE),
                    None => (None, Breaks::READERS),
                };
                self.push(ChangeKind::UnionArmAdded, old, Some(l.clone()), breaks);
            }
        }
        let single = oarms.len() == 1 && narms.len() == 1;
        for (i, j) in pairs {
            let ((l, os), (_, ns)) = (&oarms[i], &narms[j]);
            if single {
                // A non-union compared with a one-arm union: no arm to name in the path.
                self.schema(os, ns, None, None);
            } else {
                self.at(format!("<{l}>"), |c| c.schema(os, ns, None, None));
            }
        }
    }

    fn shapes(&mut self, os: Shape<'a>, ns: Shape<'a>, o: &'a Schema, n: &'a Schema) {
        let (old, new) = (self.old, self.new);
        match (os, ns) {
            (Shape::Any, Shape::Any) | (Shape::Bool, Shape::Bool) | (Shape::Null, Shape::Null) => {}
            (Shape::Str(a), Shape::Str(b)) => {
                if a != b {
                    let breaks = match (a, b) {
                        (None, Some(_)) => Breaks::WRITERS,
                        (Some(_), None) => Breaks::READERS,
                        _ => Breaks::BOTH,
                    };
                    let f = |x: Option<&str>| x.map_or("no format".to_owned(), |f| format!("format {f}"));
                    self.push(ChangeKind::ConstraintChanged, Some(f(a)), Some(f(b)), breaks);
                }
            }
            (
                Shape::Num { integer: oi, minimum: omin, maximum: omax },
                Shape::Num { integer: ni, minimum: nmin, maximum: nmax },
            ) => {
                if oi != ni {
                    let t = |i: bool| if i { "integer" } else { "number" }.to_owned();
                    let breaks = if oi { Breaks::READERS } else { Breaks::WRITERS };
                    self.push(ChangeKind::TypeChanged, Some(t(oi)), Some(t(ni)), breaks);
                }
                self.bound("minimum", omin, nmin, true);
                self.bound("maximum", omax, nmax, false);
            }
            (Shape::Array(oi, om), Shape::Array(ni, nm)) => {
                self.bound("maxItems", om.map(|v| v as f64), nm.map(|v| v as f64), false);
                self.at("[]".into(), |c| c.schema(oi, ni, None, None));
            }
            (Shape::Object(op, oe), Shape::Object(np, ne)) => self.object(op, oe, np, ne),
            (Shape::Values(a, true), Shape::Values(b, true)) => {
                if a != b {
                    self.push(
                        ChangeKind::ConstChanged,
                        Some(format!("{:?}", a[0])),
                        Some(format!("{:?}", b[0])),
                        Breaks::BOTH,
                    );
                }
            }
            (Shape::Values(a, _), Shape::Values(b, _)) => {
                for v in &a {
                    if !b.contains(v) {
                        self.push(ChangeKind::EnumValueRemoved, Some(format!("{v:?}")), None, Breaks::WRITERS);
                    }
                }
                for v in &b {
                    if !a.contains(v) {
                        self.push(ChangeKind::EnumValueAdded, None, Some(format!("{v:?}")), Breaks::READERS);
                    }
                }
            }
            (Shape::IntConst(a), Shape::IntConst(b)) => {
                if a != b {
                    self.push(ChangeKind::ConstChanged, Some(a.to_string()), Some(b.to_string()), Breaks::BOTH);
                }
            }
            (os, ns) => {
                let breaks = match (&os, &ns) {
                    (Shape::Any, _) => Breaks::WRITERS,
                    (_, Shape::Any) => Breaks::READERS,
                    (Shape::Values(..), Shape::Str(_)) | (Shape::IntConst(_), Shape::Num { .. }) => Breaks::READERS,
                    (Shape::Str(_), Shape::Values(..)) | (Shape::Num { .. }, Shape::IntConst(_)) => Breaks::WRITERS,
                    _ => Breaks::BOTH,
                };
                self.push(ChangeKind::TypeChanged, Some(describe(old, o)), Some(describe(new, n)), breaks);
            }
        }
    }

    /// A bound added, removed or moved; `lower` for minimums (a larger value is tighter).
    fn bound(&mut self, name: &str, o: Option<f64>, n: Option<f64>, lower: bool) {
        let breaks = match (o, n) {
            (None, None) => return,
            (Some(a), Some(b)) if a == b => return,
            (None, Some(_)) => Breaks::WRITERS,
            (Some(_), None) => Breaks::READERS,
            (Some(a), Some(b)) => {
                if (b > a) == lower {
                    Breaks::WRITERS
                } else {
                    Breaks::READERS
                }
            }
        };
        let f = |v: Option<f64>| v.map_or(format!("no {name}"), |v| format!("{name} {v}"));
        self.push(ChangeKind::ConstraintChanged, Some(f(o)), Some(f(n)), breaks);
    }

    fn object(&mut self, op: &'a [Prop], oe: Extra<'a>, np: &'a [Prop], ne: Extra<'a>) {
        let (old, new) = (self.old, self.new);
        for p in op {
            if np.iter().any(|q| q.key == p.key) {
                continue;
            }
            // Old writers may still send it: the new object must take it as an extra key.
            let writers = match ne {
                Extra::Closed => true,
                Extra::Values(v) if matches!(v.ty, Ty::Any) => false,
                Extra::Values(v) => self.at(key_segment(&p.key), |c| c.breaks_of(&p.schema, v)).old_writers,
            };
            let breaks = Breaks { old_readers: demands(p), old_writers: writers };
            self.at(key_segment(&p.key), |c| {
                c.push(ChangeKind::FieldRemoved, Some(describe_prop(old, p)), None, breaks)
            });
        }
        for q in np {
            let Some(p) = op.iter().find(|p| p.key == q.key) else {
                // New writers may send it: the old object must take it as an extra key.
                let readers = match oe {
                    Extra::Closed => true,
                    Extra::Values(v) if matches!(v.ty, Ty::Any) => false,
                    Extra::Values(v) => self.at(key_segment(&q.key), |c| c.breaks_of(v, &q.schema)).old_readers,
                };
                let breaks = Breaks { old_readers: readers, old_writers: demands(q) };
                self.at(key_segment(&q.key), |c| {
                    c.push(ChangeKind::FieldAdded, None, Some(describe_prop(new, q)), breaks)
                });
                continue;
            };
            self.at(key_segment(&q.key), |c| {
                if p.required != q.required || p.relaxable != q.relaxable {
                    let kind = if q.required && !p.required {
                        ChangeKind::FieldRequired
                    } else if p.required && !q.required {
                        ChangeKind::FieldOptional
                    } else if demands(q) {
                        ChangeKind::FieldRequired
                    } else {
                        ChangeKind::FieldOptional
                    };
                    let breaks =
                        Breaks { old_readers: demands(p) && !demands(q), old_writers: demands(q) && !demands(p) };
                    c.push(kind, Some(presence(p).into()), Some(presence(q).into()), breaks);
                }
                c.schema(&p.schema, &q.schema, None, None);
            });
        }
        match (oe, ne) {
            (Extra::Closed, Extra::Closed) => {}
            (Extra::Values(v), Extra::Closed) => {
                self.push(ChangeKind::ObjectClosed, Some(extra_text(old, v)), Some("closed".into()), Breaks::WRITERS)
            }
            (Extra::Closed, Extra::Values(v)) => {
                self.push(ChangeKind::ObjectOpened, Some("closed".into()), Some(extra_text(new, v)), Breaks::READERS)
            }
            (Extra::Values(a), Extra::Values(b)) => self.at("{}".into(), |c| c.schema(a, b, None, None)),
        }
    }
}

fn extra_text(m: &Module, v: &Schema) -> String {
    match v.ty {
        Ty::Any => "open".into(),
        _ => format!("extra keys: {}", describe(m, v)),
    }
}

fn key_segment(key: &str) -> String {
    format!("/{}", escape_pointer(key))
}

/// The sides that send a method.
fn senders(d: Direction) -> &'static [&'static str] {
    match d {
        Direction::ClientToServer => &["client"],
        Direction::ServerToClient => &["server"],
        Direction::Both => &["client", "server"],
        Direction::EmbeddedInput => &["server (embedded)"],
        Direction::Unspecified => &[],
    }
}

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::ClientToServer => "client → server",
        Direction::ServerToClient => "server → client",
        Direction::Both => "both ways",
        Direction::EmbeddedInput => "embedded input request",
        Direction::Unspecified => "no direction",
    }
}

fn describe_method(m: &ir::Method) -> String {
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

// ---------------------------------------------------------------------------------------------
// Rendering.

impl RevisionDiff {
    /// Counts over all changes, and by kind (kinds without changes are left out).
    pub fn counts(&self) -> (Counts, BTreeMap<ChangeKind, Counts>) {
        let mut all = Counts::default();
        let mut by_kind: BTreeMap<ChangeKind, Counts> = BTreeMap::new();
        for c in &self.changes {
            all.add(c.breaks);
            by_kind.entry(c.kind).or_default().add(c.breaks);
        }
        (all, by_kind)
    }

    /// The changes that break someone.
    pub fn breaking(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.breaks.any())
    }

    /// The report as JSON: `from`, `to`, `summary` (counts) and every change.
    pub fn to_json(&self) -> Value {
        let (all, by_kind) = self.counts();
        let rev = |r: &RevisionId| json!({"revision": r.revision, "sha256": r.sha256});
        let by_kind: serde_json::Map<String, Value> =
            by_kind.iter().map(|(k, c)| (k.as_str().to_owned(), c.json())).collect();
        let changes: Vec<Value> = self
            .changes
            .iter()
            .map(|c| {
                let subject = match &c.subject {
                    Subject::Definition { name, path } => json!({"definition": name, "path": path}),
                    Subject::Method { method, path } => json!({"method": method, "path": path}),
                };
                json!({
                    "subject": subject,
                    "kind": c.kind.as_str(),
                    "old": c.old,
                    "new": c.new,
                    "breaks": {"old_readers": c.breaks.old_readers, "old_writers": c.breaks.old_writers},
                })
            })
            .collect();
        json!({
            "from": rev(&self.from),
            "to": rev(&self.to),
            "summary": {"changes": all.json(), "by_kind": by_kind},
            "changes": changes,
        })
    }

    /// [`RevisionDiff::to_json`] as pretty-printed text with a final newline.
    pub fn to_json_string(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_json()).expect("JSON values always serialize");
        s.push('\n');
        s
    }

    /// The report as Markdown: the classification rules, a summary table, then the changes
    /// per method and per definition.
    pub fn to_markdown(&self) -> String {
        let (from, to) = (&self.from.revision, &self.to.revision);
        let mut s = String::new();
        writeln!(s, "# MCP schema changes: {from} → {to}\n").unwrap();
        writeln!(
            s,
            "What changed from revision `{from}` (schema sha256 `{}`) to revision `{to}` (sha256 `{}`), \
             computed by `cargo xtask diff {from} {to}` from the lowered models of both schemas \
             (a pinned revision with its errata applied), not from the raw JSON. `--format json` \
             prints the same changes for tools.\n",
            self.from.sha256, self.to.sha256
        )
        .unwrap();
        writeln!(s, "## How to read it\n\n{SEMANTICS}\n").unwrap();

        let (all, by_kind) = self.counts();
        writeln!(s, "## Summary\n").unwrap();
        writeln!(
            s,
            "{} changes: {} break old readers only, {} old writers only, {} both, {} no one.\n",
            all.total, all.readers, all.writers, all.both, all.none
        )
        .unwrap();
        s.push_str("| change | total | old readers | old writers | both | none |\n|---|--:|--:|--:|--:|--:|\n");
        for (k, c) in &by_kind {
            writeln!(s, "| {} | {} | {} | {} | {} | {} |", k.label(), c.total, c.readers, c.writers, c.both, c.none)
                .unwrap();
        }
        writeln!(s, "| **all** | {} | {} | {} | {} | {} |\n", all.total, all.readers, all.writers, all.both, all.none)
            .unwrap();

        let methods: Vec<&Change> =
            self.changes.iter().filter(|c| matches!(c.subject, Subject::Method { .. })).collect();
        let defs: Vec<&Change> =
            self.changes.iter().filter(|c| matches!(c.subject, Subject::Definition { .. })).collect();

        writeln!(s, "## Methods\n").unwrap();
        section(&mut s, &methods, ChangeKind::MethodAdded, ChangeKind::MethodRemoved, "methods");
        writeln!(s, "## Definitions\n").unwrap();
        section(&mut s, &defs, ChangeKind::DefinitionAdded, ChangeKind::DefinitionRemoved, "definitions");
        while s.ends_with("\n\n") {
            s.pop();
        }
        s
    }
}

/// Added and removed subjects as lists, then one table per changed subject.
fn section(s: &mut String, changes: &[&Change], added: ChangeKind, removed: ChangeKind, what: &str) {
    for (kind, title) in [(removed, "Removed"), (added, "Added")] {
        let list: Vec<&&Change> = changes.iter().filter(|c| c.kind == kind).collect();
        if list.is_empty() {
            continue;
        }
        writeln!(s, "### {title} {what} ({})\n", list.len()).unwrap();
        s.push_str("| name | what | breaks |\n|---|---|---|\n");
        for c in list {
            let what = c.old.as_deref().or(c.new.as_deref()).unwrap_or("");
            writeln!(s, "| `{}` | {} | {} |", c.subject.name(), cell(what), breaks_cell(c.breaks)).unwrap();
        }
        s.push('\n');
    }
    let mut groups: Vec<(&str, Vec<&Change>)> = Vec::new();
    for c in changes.iter().filter(|c| c.kind != added && c.kind != removed) {
        match groups.last_mut() {
            Some((name, list)) if *name == c.subject.name() => list.push(c),
            _ => groups.push((c.subject.name(), vec![c])),
        }
    }
    if groups.is_empty() {
        return;
    }
    writeln!(s, "### Changed {what} ({})\n", groups.len()).unwrap();
    for (name, list) in groups {
        writeln!(s, "#### `{name}`\n").unwrap();
        s.push_str("| at | change | old | new | breaks |\n|---|---|---|---|---|\n");
        for c in list {
            let at = if c.subject.path().is_empty() { "".to_owned() } else { format!("`{}`", c.subject.path()) };
            let v = |x: &Option<String>| x.as_deref().map(cell).unwrap_or_default();
            writeln!(s, "| {at} | {} | {} | {} | {} |", c.kind.label(), v(&c.old), v(&c.new), breaks_cell(c.breaks))
                .unwrap();
        }
        s.push('\n');
    }
}

fn breaks_cell(b: Breaks) -> &'static str {
    match (b.old_readers, b.old_writers) {
        (true, true) => "**old readers, old writers**",
        (true, false) => "**old readers**",
        (false, true) => "**old writers**",
        (false, false) => "–",
    }
}

/// A table cell: code-formatted, with `|` escaped.
fn cell(text: &str) -> String {
    format!("`{}`", text.replace('|', "\\|"))
}
