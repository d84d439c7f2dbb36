//! The intermediate model. The schema is lowered once into this small, checked structure;
//! every emitter reads the IR, never the raw JSON.
//!
//! Decisions the schema cannot express live in [`overrides`] — a short, documented table.
//!
//! This file holds the model itself; the lowering is in the submodules: [`lower`] (the entry
//! point and one schema position at a time), `objects` (object schemas), `all_of` (`allOf`
//! merging), `unions` (each union's decoding strategy), `methods` (the method table and the
//! final consistency checks) and `names` (Rust names for schema names).

mod all_of;
mod lower;
mod methods;
mod names;
mod objects;
pub mod overrides;
mod unions;

pub use lower::lower;
pub use names::{field_name, variant_name};
pub use unions::schema_types;

use crate::load::Dialect;

/// JSON Schema `type` names, `integer` distinct from `number`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl JType {
    pub fn parse(s: &str) -> Option<JType> {
        Some(match s {
            "null" => JType::Null,
            "boolean" => JType::Boolean,
            "integer" => JType::Integer,
            "number" => JType::Number,
            "string" => JType::String,
            "array" => JType::Array,
            "object" => JType::Object,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            JType::Null => "null",
            JType::Boolean => "boolean",
            JType::Integer => "integer",
            JType::Number => "number",
            JType::String => "string",
            JType::Array => "array",
            JType::Object => "object",
        }
    }
}

/// A schema position: its location, its type, its documentation.
#[derive(Debug, Clone)]
pub struct Schema {
    /// Schema path (`#/$defs/Tool/properties/name`).
    pub sp: String,
    pub ty: Ty,
    pub doc: Option<String>,
}

/// What a schema position accepts.
#[derive(Debug, Clone)]
pub enum Ty {
    /// `{}` / `true`: any JSON value.
    Any,
    Bool,
    Null,
    Str {
        format: Option<String>,
    },
    Num {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Array {
        items: Box<Schema>,
        max_items: Option<u64>,
    },
    /// An object with only `additionalProperties`: a map from keys to values of one schema.
    Map(Box<Schema>),
    /// A named definition.
    Ref(String),
    /// A declared type (index into [`Module::decls`]): object, union or string enum.
    Decl(usize),
    /// A `const` (index into [`Module::literals`]).
    Lit(usize),
}

/// How an object treats keys it does not declare.
#[derive(Debug, Clone)]
pub enum Unknown {
    /// No `additionalProperties`: allowed by the schema, kept as `extra` (lossless policy),
    /// rejected by the strict policy.
    Open,
    /// Like `Open`, but the object is an extension point (`_meta`): the strict policy accepts
    /// its keys too (override table).
    Extension,
    /// `additionalProperties: <schema>` (including `{}`/`true`): declared map entries, always kept.
    Map(Box<Schema>),
    /// `additionalProperties: false`.
    Forbidden,
}

#[derive(Debug, Clone)]
pub struct Prop {
    pub key: String,
    /// Rust field name (without `r#`).
    pub field: String,
    pub schema: Schema,
    pub required: bool,
    /// Optional, and its value is an object or map: `{"roots":{}}` means something that
    /// `{}` does not, so presence is kept (`Option<T>` with `Some(empty)`).
    pub presence_significant: bool,
    /// A result member clients tolerate missing (RESULT-2, CACHE-3), so it is `Option` even
    /// where required (override table).
    pub relaxable: bool,
}

#[derive(Debug, Clone)]
pub struct ObjectDecl {
    pub props: Vec<Prop>,
    pub unknown: Unknown,
}

/// Union decoding strategy facts, computed from the arms.
#[derive(Debug, Clone, Default)]
pub struct UnionInfo {
    /// Property whose `const` selects the arm.
    pub tag: Option<String>,
    /// Index of the `InputRequiredResult` arm when `resultType` discriminates (override table).
    pub result_type_arm: Option<usize>,
    pub arms: Vec<ArmInfo>,
    /// Human summary of the strategy, for docs.
    pub strategy: String,
}

#[derive(Debug, Clone, Default)]
pub struct ArmInfo {
    pub types: Vec<JType>,
    pub tag_values: Vec<String>,
    pub tag_required: bool,
    pub required: Vec<String>,
    pub declared: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Arm {
    /// Rust variant name.
    pub variant: String,
    pub schema: Schema,
}

#[derive(Debug, Clone)]
pub struct UnionDecl {
    pub arms: Vec<Arm>,
    pub info: UnionInfo,
    /// Comes from a list of types rather than `anyOf`.
    pub type_list: bool,
}

#[derive(Debug, Clone)]
pub struct EnumDecl {
    /// (wire value, Rust variant)
    pub values: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub enum DeclKind {
    Object(ObjectDecl),
    Union(UnionDecl),
    Enum(EnumDecl),
}

/// A type the emitters declare (named definitions and inline objects, unions and enums).
#[derive(Debug, Clone)]
pub struct Decl {
    /// Rust type name (the spec's name for definitions).
    pub name: String,
    /// The definition it belongs to.
    pub def: String,
    pub sp: String,
    pub doc: Option<String>,
    pub kind: DeclKind,
    /// Rust type to use instead of a generated one (override table: `JSONValue` → `Value`).
    pub rust_override: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LitValue {
    Str(String),
    Int(i64),
}

#[derive(Debug, Clone)]
pub struct Literal {
    pub name: String,
    pub value: LitValue,
}

/// A named definition.
#[derive(Debug, Clone)]
pub struct Def {
    pub name: String,
    pub schema: Schema,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    ClientToServer,
    ServerToClient,
    Both,
    /// Embedded input request inside `InputRequiredResult.inputRequests` (never a JSON-RPC request).
    EmbeddedInput,
    /// Not listed in any of the schema's direction unions.
    Unspecified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    Request,
    Notification,
}

#[derive(Debug, Clone)]
pub struct Method {
    pub method: String,
    pub kind: MethodKind,
    pub direction: Direction,
    pub request_def: String,
    /// Rust type of `params` (definition name or inline type name).
    pub params_type: Option<String>,
    pub params_required: bool,
    /// Result definitions (a method's complete result; plus `InputRequiredResult` where allowed).
    pub result_defs: Vec<String>,
    pub input_required: bool,
    /// The result of a task-augmented request: `CreateTaskResult` when the params declare
    /// `task` (2025-11-25) and the revision has that definition.
    pub task_result: Option<String>,
}

/// One revision, lowered.
#[derive(Debug, Clone)]
pub struct Module {
    pub revision: String,
    pub sha256: String,
    pub dialect: Dialect,
    pub defs_key: &'static str,
    pub defs: Vec<Def>,
    pub decls: Vec<Decl>,
    pub literals: Vec<Literal>,
    pub methods: Vec<Method>,
    pub errata: Vec<crate::errata::Applied>,
}

impl Module {
    pub fn def(&self, name: &str) -> Option<&Def> {
        self.defs.iter().find(|d| d.name == name)
    }
    /// Follows `Ref`s to the declaration a schema ends at, if any.
    pub fn resolve_decl<'a>(&'a self, s: &'a Schema) -> Option<&'a Decl> {
        let mut cur = s;
        for _ in 0..64 {
            match &cur.ty {
                Ty::Decl(i) => return self.decls.get(*i),
                Ty::Ref(name) => cur = &self.def(name)?.schema,
                _ => return None,
            }
        }
        None
    }
    /// Follows `Ref`s to the first non-ref schema.
    pub fn resolve<'a>(&'a self, s: &'a Schema) -> &'a Schema {
        let mut cur = s;
        for _ in 0..64 {
            match &cur.ty {
                Ty::Ref(name) => match self.def(name) {
                    Some(d) => cur = &d.schema,
                    None => return cur,
                },
                _ => return cur,
            }
        }
        cur
    }
}
