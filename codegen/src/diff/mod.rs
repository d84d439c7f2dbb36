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
//!
//! This file holds the change model and the entry points; the submodules hold the comparison
//! (`compare`, with [`diff`] itself), the shapes and one-line descriptions of schema positions
//! it reads (`shape`), and the two renderings (`markdown`, `json`).

mod compare;
mod json;
mod markdown;
mod shape;

pub use compare::diff;

use std::collections::BTreeMap;

use crate::ir::{self, Module};
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
}
