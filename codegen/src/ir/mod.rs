//! The intermediate model. The schema is lowered once into this small, checked structure;
//! every emitter reads the IR, never the raw JSON.
//!
//! Decisions the schema cannot express live in [`overrides`] — a short, documented table.

use std::collections::{BTreeMap, BTreeSet};

use heck::ToUpperCamelCase;
use serde_json::{Map, Value};

use crate::load::{Dialect, Loaded};
use crate::pointer::escape as escape_pointer;
use crate::Diagnostics;

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

/// The override table: the few decisions the schema cannot express. Each entry says why.
pub mod overrides {
    /// Definitions whose Rust type is a runtime type. `JSONValue` after errata Q-1 admits every
    /// JSON value, so a generated enum would only be a worse `Value`.
    pub fn rust_type(def: &str) -> Option<&'static str> {
        match def {
            "JSONValue" => Some("crate::json::Value"),
            "JSONObject" => Some("crate::json::Map"),
            "JSONArray" => Some("::std::vec::Vec<crate::json::Value>"),
            _ => None,
        }
    }

    /// `_meta` objects are extension points (META-1): undeclared keys are their purpose, so the
    /// strict unknown-key policy does not reject them.
    pub fn is_extension_object(def: &str, key_path: &[String]) -> bool {
        def.ends_with("MetaObject") && key_path.is_empty() || key_path.last().is_some_and(|k| k == "_meta")
    }

    /// Unions containing `InputRequiredResult` are told apart by `resultType` (RESULT-6): the
    /// schema types `resultType` as a plain string in every arm, so it cannot say so.
    pub const RESULT_TYPE_ARM: &str = "InputRequiredResult";

    /// Result members a client must tolerate missing: `resultType` from earlier-revision
    /// servers (RESULT-2); `ttlMs`/`cacheScope`, which clients treat as 0/private when absent
    /// (CACHE-3, AMB-16). They are `Option` in Rust so absence survives a round trip.
    pub fn is_relaxable(key: &str) -> bool {
        matches!(key, "resultType" | "ttlMs" | "cacheScope")
    }

    /// Aggregate unions that name directions, not methods.
    pub const DIRECTION_UNIONS: [(&str, super::Direction); 5] = [
        ("ClientRequest", super::Direction::ClientToServer),
        ("ClientNotification", super::Direction::ClientToServer),
        ("ServerRequest", super::Direction::ServerToClient),
        ("ServerNotification", super::Direction::ServerToClient),
        ("InputRequest", super::Direction::EmbeddedInput),
    ];
}

const KNOWN_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "allOf",
    "const",
    "enum",
    "format",
    "minimum",
    "maximum",
    "maxItems",
    "$ref",
    "description",
    "title",
    "$comment",
    "default",
    "examples",
];

struct Lowerer<'a> {
    rev: &'a str,
    defs_key: &'static str,
    raw: &'a Map<String, Value>,
    decls: Vec<Decl>,
    literals: Vec<Literal>,
    lit_index: BTreeMap<String, usize>,
    type_names: BTreeSet<String>,
    diags: Diagnostics,
    current_def: String,
}

/// Lowers a loaded schema into the IR, collecting every unsupported construct.
pub fn lower(loaded: &Loaded) -> Result<Module, Diagnostics> {
    let mut l = Lowerer {
        rev: &loaded.revision,
        defs_key: loaded.defs_key,
        raw: &loaded.defs,
        decls: Vec::new(),
        literals: Vec::new(),
        lit_index: BTreeMap::new(),
        type_names: loaded.defs.keys().cloned().collect(),
        diags: Diagnostics::default(),
        current_def: String::new(),
    };
    // Reserved names used by generated modules.
    for r in ["lit", "Self"] {
        l.type_names.insert(r.to_owned());
    }
    let mut defs = Vec::new();
    for (name, raw) in loaded.defs.iter() {
        l.current_def = name.clone();
        let sp = format!("#/{}/{}", loaded.defs_key, escape_pointer(name));
        let schema = l.lower_def(name, raw, &sp);
        defs.push(Def { name: name.clone(), schema });
    }
    let mut module = Module {
        revision: loaded.revision.clone(),
        sha256: loaded.sha256.clone(),
        dialect: loaded.dialect,
        defs_key: loaded.defs_key,
        defs,
        decls: l.decls,
        literals: l.literals,
        methods: Vec::new(),
        errata: loaded.errata.clone(),
    };
    let mut diags = l.diags;
    finish_unions(&mut module, &mut diags);
    module.methods = methods(&module, &mut diags);
    check(&module, &mut diags);
    diags.into_result(module)
}

impl<'a> Lowerer<'a> {
    fn diag(&mut self, sp: &str, msg: impl Into<String>) {
        let def = self.current_def.clone();
        self.diags.push(self.rev, Some(&def), sp.trim_start_matches('#'), msg);
    }

    fn unique_name(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut n = 2;
        while self.type_names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.type_names.insert(name.clone());
        name
    }

    fn lower_def(&mut self, name: &str, raw: &Value, sp: &str) -> Schema {
        // A definition that declares a type keeps the spec's name for it.
        self.lower(raw, sp, name, true, &[])
    }

    /// Lowers one schema. `name` is the type name to use if this position declares a type;
    /// `is_def` says the name is a definition's own (already reserved).
    fn lower(&mut self, raw: &Value, sp: &str, name: &str, is_def: bool, key_path: &[String]) -> Schema {
        let doc = raw.get("description").and_then(Value::as_str).map(str::to_owned);
        let obj = match raw {
            Value::Bool(true) => return Schema { sp: sp.into(), ty: Ty::Any, doc },
            Value::Object(m) => m,
            _ => {
                self.diag(sp, "a schema must be an object or `true`");
                return Schema { sp: sp.into(), ty: Ty::Any, doc };
            }
        };
        for k in obj.keys() {
            if !KNOWN_KEYWORDS.contains(&k.as_str()) {
                self.diag(&format!("{sp}/{}", escape_pointer(k)), format!("unsupported keyword `{k}`"));
            }
        }
        if let Some(r) = obj.get("$ref") {
            let others: Vec<&String> =
                obj.keys().filter(|k| !matches!(k.as_str(), "$ref" | "description" | "title" | "$comment")).collect();
            if !others.is_empty() {
                self.diag(sp, format!("`$ref` next to {:?} is not supported", others));
            }
            let target = r.as_str().and_then(|s| s.strip_prefix(&format!("#/{}/", self.defs_key)));
            return match target {
                Some(t) if self.raw.contains_key(t) => Schema { sp: sp.into(), ty: Ty::Ref(t.to_owned()), doc },
                _ => {
                    self.diag(&format!("{sp}/$ref"), format!("unresolvable or non-local `$ref` {r}"));
                    Schema { sp: sp.into(), ty: Ty::Any, doc }
                }
            };
        }
        if let Some(all) = obj.get("allOf") {
            let merged = self.merge_all_of(obj, all, sp);
            let mut s = self.lower(&merged, &format!("{sp}/allOf"), name, is_def, key_path);
            s.sp = sp.into();
            if s.doc.is_none() {
                s.doc = doc;
            }
            return s;
        }
        if let Some(any) = obj.get("anyOf") {
            return self.lower_union_any_of(any, sp, name, is_def, doc, key_path);
        }
        let types: Vec<JType> = match obj.get("type") {
            None => Vec::new(),
            Some(Value::String(t)) => match JType::parse(t) {
                Some(t) => vec![t],
                None => {
                    self.diag(&format!("{sp}/type"), format!("unknown type `{t}`"));
                    Vec::new()
                }
            },
            Some(Value::Array(ts)) => ts.iter().filter_map(|t| t.as_str().and_then(JType::parse)).collect(),
            Some(_) => {
                self.diag(&format!("{sp}/type"), "`type` must be a string or an array");
                Vec::new()
            }
        };
        if let Some(c) = obj.get("const") {
            let value = match c {
                Value::String(s) => LitValue::Str(s.clone()),
                Value::Number(n) if n.as_i64().is_some() => LitValue::Int(n.as_i64().unwrap_or_default()),
                other => {
                    self.diag(&format!("{sp}/const"), format!("unsupported const {other}"));
                    return Schema { sp: sp.into(), ty: Ty::Any, doc };
                }
            };
            let idx = self.literal(value);
            return Schema { sp: sp.into(), ty: Ty::Lit(idx), doc };
        }
        if let Some(e) = obj.get("enum") {
            let Some(values) =
                e.as_array().and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())
            else {
                self.diag(&format!("{sp}/enum"), "only string enums are supported");
                return Schema { sp: sp.into(), ty: Ty::Any, doc };
            };
            if !types.is_empty() && types != [JType::String] {
                self.diag(&format!("{sp}/type"), "a string enum must have `type: string`");
            }
            let tname = if is_def { name.to_owned() } else { self.unique_name(name) };
            let mut seen = BTreeSet::new();
            let mut vals = Vec::new();
            for v in values {
                let mut variant = variant_name(&v);
                let base = variant.clone();
                let mut n = 2;
                while !seen.insert(variant.clone()) {
                    variant = format!("{base}{n}");
                    n += 1;
                }
                vals.push((v, variant));
            }
            let idx = self.push_decl(tname, sp, doc.clone(), DeclKind::Enum(EnumDecl { values: vals }));
            return Schema { sp: sp.into(), ty: Ty::Decl(idx), doc };
        }
        match types.as_slice() {
            [] => {
                if obj.contains_key("properties") || obj.contains_key("items") || obj.contains_key("required") {
                    self.diag(sp, "object or array keywords without `type` are not supported");
                }
                Schema { sp: sp.into(), ty: Ty::Any, doc }
            }
            [t] => self.lower_typed(*t, obj, sp, name, is_def, doc, key_path),
            many => {
                // A type list is a union of primitive arms.
                for k in ["properties", "items", "enum", "format", "minimum", "maximum"] {
                    if obj.contains_key(k) {
                        self.diag(sp, format!("`{k}` with a list of types is not supported"));
                    }
                }
                let tname = if is_def { name.to_owned() } else { self.unique_name(name) };
                let arms = many
                    .iter()
                    .map(|t| Arm {
                        variant: kind_variant(*t).to_owned(),
                        schema: Schema { sp: format!("{sp}/type"), ty: primitive(*t), doc: None },
                    })
                    .collect();
                let idx = self.push_decl(
                    tname,
                    sp,
                    doc.clone(),
                    DeclKind::Union(UnionDecl { arms, info: UnionInfo::default(), type_list: true }),
                );
                Schema { sp: sp.into(), ty: Ty::Decl(idx), doc }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_typed(
        &mut self,
        t: JType,
        obj: &Map<String, Value>,
        sp: &str,
        name: &str,
        is_def: bool,
        doc: Option<String>,
        key_path: &[String],
    ) -> Schema {
        let num = |k: &str| obj.get(k).and_then(Value::as_f64);
        let ty = match t {
            JType::Null => Ty::Null,
            JType::Boolean => Ty::Bool,
            JType::String => Ty::Str { format: obj.get("format").and_then(Value::as_str).map(str::to_owned) },
            JType::Integer | JType::Number => {
                Ty::Num { integer: t == JType::Integer, minimum: num("minimum"), maximum: num("maximum") }
            }
            JType::Array => {
                let items = match obj.get("items") {
                    Some(i) => self.lower(i, &format!("{sp}/items"), &format!("{name}Item"), false, key_path),
                    None => Schema { sp: format!("{sp}/items"), ty: Ty::Any, doc: None },
                };
                Ty::Array { items: Box::new(items), max_items: obj.get("maxItems").and_then(Value::as_u64) }
            }
            JType::Object => return self.lower_object(obj, sp, name, is_def, doc, key_path),
        };
        Schema { sp: sp.into(), ty, doc }
    }

    fn lower_object(
        &mut self,
        obj: &Map<String, Value>,
        sp: &str,
        name: &str,
        is_def: bool,
        doc: Option<String>,
        key_path: &[String],
    ) -> Schema {
        let props_raw = obj.get("properties").and_then(Value::as_object);
        let required: Vec<String> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let additional = obj.get("additionalProperties");
        let no_props = props_raw.is_none_or(|p| p.is_empty());
        // An object of only `additionalProperties` is a map.
        if no_props && required.is_empty() {
            match additional {
                Some(Value::Bool(true)) => {
                    return Schema {
                        sp: sp.into(),
                        ty: Ty::Map(Box::new(Schema {
                            sp: format!("{sp}/additionalProperties"),
                            ty: Ty::Any,
                            doc: None,
                        })),
                        doc,
                    };
                }
                Some(a @ Value::Object(_)) => {
                    let value =
                        self.lower(a, &format!("{sp}/additionalProperties"), &format!("{name}Value"), false, key_path);
                    return Schema { sp: sp.into(), ty: Ty::Map(Box::new(value)), doc };
                }
                _ => {}
            }
        }
        let tname = if is_def { name.to_owned() } else { self.unique_name(name) };
        let mut props = Vec::new();
        let mut fields = BTreeSet::new();
        if let Some(p) = props_raw {
            for (key, raw) in p {
                let psp = format!("{sp}/properties/{}", escape_pointer(key));
                let mut kp = key_path.to_vec();
                kp.push(key.clone());
                let schema = self.lower(raw, &psp, &format!("{tname}{}", type_part(key)), false, &kp);
                let field = field_name(key);
                if !fields.insert(field.clone()) {
                    self.diag(
                        &psp,
                        format!("property `{key}` maps to Rust field `{field}`, which another property already uses"),
                    );
                }
                let req = required.contains(key);
                props.push(Prop {
                    presence_significant: !req && self.is_objectish(&schema),
                    relaxable: overrides::is_relaxable(key),
                    key: key.clone(),
                    field,
                    schema,
                    required: req,
                });
            }
        }
        for r in &required {
            if !props.iter().any(|p| &p.key == r) {
                // Required but undeclared: still checked by `required`; no field to hold it.
                self.diag(
                    &format!("{sp}/required"),
                    format!("required property `{r}` is not declared in `properties`"),
                );
            }
        }
        let unknown = match additional {
            None => {
                if overrides::is_extension_object(&self.current_def, key_path) {
                    Unknown::Extension
                } else {
                    Unknown::Open
                }
            }
            Some(Value::Bool(false)) => Unknown::Forbidden,
            Some(Value::Bool(true)) => {
                Unknown::Map(Box::new(Schema { sp: format!("{sp}/additionalProperties"), ty: Ty::Any, doc: None }))
            }
            Some(a) => {
                let value =
                    self.lower(a, &format!("{sp}/additionalProperties"), &format!("{tname}Value"), false, key_path);
                Unknown::Map(Box::new(value))
            }
        };
        let idx = self.push_decl(tname, sp, doc.clone(), DeclKind::Object(ObjectDecl { props, unknown }));
        Schema { sp: sp.into(), ty: Ty::Decl(idx), doc }
    }

    fn is_objectish(&self, s: &Schema) -> bool {
        match &s.ty {
            Ty::Map(_) => true,
            Ty::Decl(i) => matches!(self.decls.get(*i).map(|d| &d.kind), Some(DeclKind::Object(_))),
            Ty::Ref(r) => {
                let raw = self.raw.get(r);
                raw.and_then(|v| v.get("type")).and_then(Value::as_str) == Some("object")
            }
            _ => false,
        }
    }

    fn lower_union_any_of(
        &mut self,
        any: &Value,
        sp: &str,
        name: &str,
        is_def: bool,
        doc: Option<String>,
        key_path: &[String],
    ) -> Schema {
        let Some(list) = any.as_array() else {
            self.diag(&format!("{sp}/anyOf"), "`anyOf` must be an array");
            return Schema { sp: sp.into(), ty: Ty::Any, doc };
        };
        let tname = if is_def { name.to_owned() } else { self.unique_name(name) };
        let mut arms = Vec::new();
        let mut variants = BTreeSet::new();
        for (i, raw) in list.iter().enumerate() {
            let asp = format!("{sp}/anyOf/{i}");
            let schema = self.lower(raw, &asp, &format!("{tname}Arm{i}"), false, key_path);
            let base = match &schema.ty {
                Ty::Ref(r) => r.clone(),
                Ty::Decl(d) => self.decls[*d].name.clone(),
                Ty::Array { .. } => "Array".into(),
                Ty::Map(_) => "Object".into(),
                Ty::Str { .. } => "String".into(),
                Ty::Num { integer: true, .. } => "Integer".into(),
                Ty::Num { .. } => "Number".into(),
                Ty::Bool => "Boolean".into(),
                Ty::Null => "Null".into(),
                Ty::Any => "Any".into(),
                Ty::Lit(l) => self.literals[*l].name.clone(),
            };
            let mut variant = base.clone();
            let mut n = 2;
            while !variants.insert(variant.clone()) {
                variant = format!("{base}{n}");
                n += 1;
            }
            arms.push(Arm { variant, schema });
        }
        let idx = self.push_decl(
            tname,
            sp,
            doc.clone(),
            DeclKind::Union(UnionDecl { arms, info: UnionInfo::default(), type_list: false }),
        );
        Schema { sp: sp.into(), ty: Ty::Decl(idx), doc }
    }

    /// Merges `allOf` subschemas (resolving `$ref`s) into one schema. Exact for what the MCP
    /// schemas use it for (refining `Error.code` with a const); anything where merging would
    /// change the meaning (`additionalProperties` in a branch, conflicting consts) is reported.
    fn merge_all_of(&mut self, outer: &Map<String, Value>, all: &Value, sp: &str) -> Value {
        let mut merged = Map::new();
        for (k, v) in outer {
            if k != "allOf" {
                merged.insert(k.clone(), v.clone());
            }
        }
        let Some(list) = all.as_array() else {
            self.diag(&format!("{sp}/allOf"), "`allOf` must be an array");
            return Value::Object(merged);
        };
        let mut sources = Vec::new();
        for (i, part) in list.iter().enumerate() {
            let mut part = part.clone();
            if let Some(r) = part.get("$ref").and_then(Value::as_str) {
                let target = r.strip_prefix(&format!("#/{}/", self.defs_key)).unwrap_or(r).to_owned();
                sources.push(target.clone());
                match self.raw.get(&target) {
                    Some(t) => part = t.clone(),
                    None => {
                        self.diag(&format!("{sp}/allOf/{i}/$ref"), format!("unresolvable `$ref` {r}"));
                        continue;
                    }
                }
            }
            let Some(pobj) = part.as_object() else { continue };
            for (k, v) in pobj {
                match k.as_str() {
                    "additionalProperties" if v != &Value::Bool(true) && v != &Value::Object(Map::new()) => {
                        self.diag(
                            &format!("{sp}/allOf/{i}"),
                            "`additionalProperties` inside `allOf` cannot be merged exactly",
                        );
                    }
                    "properties" => {
                        let dst = merged.entry("properties").or_insert_with(|| Value::Object(Map::new()));
                        if let (Some(dst), Some(src)) = (dst.as_object_mut(), v.as_object()) {
                            for (pk, pv) in src {
                                match dst.get_mut(pk) {
                                    None => {
                                        dst.insert(pk.clone(), pv.clone());
                                    }
                                    Some(existing) => {
                                        if let (Some(e), Some(n)) = (existing.as_object_mut(), pv.as_object()) {
                                            for (nk, nv) in n {
                                                match e.get(nk) {
                                                    Some(ev) if ev != nv && nk != "description" => {
                                                        self.diags.push(
                                                            self.rev,
                                                            Some(&self.current_def.clone()),
                                                            sp.trim_start_matches('#'),
                                                            format!("`allOf` branches disagree on `{pk}.{nk}`"),
                                                        );
                                                    }
                                                    Some(_) if nk == "description" => {}
                                                    _ => {
                                                        e.insert(nk.clone(), nv.clone());
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                    "required" => {
                        let dst = merged.entry("required").or_insert_with(|| Value::Array(Vec::new()));
                        if let (Some(dst), Some(src)) = (dst.as_array_mut(), v.as_array()) {
                            for r in src {
                                if !dst.contains(r) {
                                    dst.push(r.clone());
                                }
                            }
                        }
                    }
                    "description" => {
                        merged.entry("description").or_insert_with(|| v.clone());
                    }
                    _ => match merged.get(k) {
                        Some(existing) if existing != v => {
                            self.diag(&format!("{sp}/allOf/{i}/{k}"), format!("`allOf` branches disagree on `{k}`"));
                        }
                        _ => {
                            merged.insert(k.clone(), v.clone());
                        }
                    },
                }
            }
        }
        if !sources.is_empty() {
            let note =
                format!("Refines {}.", sources.iter().map(|s| format!("{{@link {s}}}")).collect::<Vec<_>>().join(", "));
            let desc = match merged.get("description").and_then(Value::as_str) {
                Some(d) => format!("{d}\n\n{note}"),
                None => note,
            };
            merged.insert("description".into(), Value::String(desc));
        }
        Value::Object(merged)
    }

    fn literal(&mut self, value: LitValue) -> usize {
        let key = format!("{value:?}");
        if let Some(&i) = self.lit_index.get(&key) {
            return i;
        }
        let base = match &value {
            LitValue::Str(s) => variant_name(s),
            LitValue::Int(i) if *i < 0 => format!("IntNeg{}", i.unsigned_abs()),
            LitValue::Int(i) => format!("Int{i}"),
        };
        let mut name = base.clone();
        let mut n = 2;
        while self.literals.iter().any(|l| l.name == name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.literals.push(Literal { name, value });
        self.lit_index.insert(key, self.literals.len() - 1);
        self.literals.len() - 1
    }

    fn push_decl(&mut self, name: String, sp: &str, doc: Option<String>, kind: DeclKind) -> usize {
        let def = self.current_def.clone();
        let rust_override = if name == def { overrides::rust_type(&def) } else { None };
        self.decls.push(Decl { name, def, sp: sp.into(), doc, kind, rust_override });
        self.decls.len() - 1
    }
}

fn primitive(t: JType) -> Ty {
    match t {
        JType::Null => Ty::Null,
        JType::Boolean => Ty::Bool,
        JType::Integer => Ty::Num { integer: true, minimum: None, maximum: None },
        JType::Number => Ty::Num { integer: false, minimum: None, maximum: None },
        JType::String => Ty::Str { format: None },
        JType::Array => {
            Ty::Array { items: Box::new(Schema { sp: String::new(), ty: Ty::Any, doc: None }), max_items: None }
        }
        JType::Object => Ty::Map(Box::new(Schema { sp: String::new(), ty: Ty::Any, doc: None })),
    }
}

fn kind_variant(t: JType) -> &'static str {
    match t {
        JType::Null => "Null",
        JType::Boolean => "Boolean",
        JType::Integer => "Integer",
        JType::Number => "Number",
        JType::String => "String",
        JType::Array => "Array",
        JType::Object => "Object",
    }
}

/// `tools/call` → `ToolsCall`, `2.0` → `V2_0`, `allServers` → `AllServers`.
pub fn variant_name(value: &str) -> String {
    let mut out = String::new();
    for part in value.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let camel = part.to_upper_camel_case();
        if out.chars().last().is_some_and(|c| c.is_ascii_digit()) && camel.starts_with(|c: char| c.is_ascii_digit()) {
            out.push('_');
        }
        out.push_str(&camel);
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}

/// The part of a type name contributed by a property key (`_meta` → `Meta`).
fn type_part(key: &str) -> String {
    let key = key.strip_prefix("io.modelcontextprotocol/").unwrap_or(key);
    variant_name(key)
}

/// Rust field name for a property key: snake case, `_meta` → `meta`, the spec's reserved
/// `io.modelcontextprotocol/` prefix dropped (`…/protocolVersion` → `protocol_version`).
pub fn field_name(key: &str) -> String {
    use heck::ToSnakeCase;
    let key = key.strip_prefix("io.modelcontextprotocol/").unwrap_or(key);
    let cleaned: String = key.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let mut s = cleaned.to_snake_case();
    if s.is_empty() {
        s = "field".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// Computes each union's strategy facts once every definition is lowered.
fn finish_unions(m: &mut Module, diags: &mut Diagnostics) {
    for i in 0..m.decls.len() {
        let DeclKind::Union(u) = &m.decls[i].kind else { continue };
        let arms: Vec<ArmInfo> = u.arms.iter().map(|a| arm_info(m, &a.schema)).collect();
        // Tag: a property every object arm pins with string consts, with ≥ 2 distinct values.
        let obj_arms: Vec<(usize, &Decl)> = u
            .arms
            .iter()
            .enumerate()
            .filter_map(|(j, a)| {
                m.resolve_decl(&a.schema).filter(|d| matches!(d.kind, DeclKind::Object(_))).map(|d| (j, d))
            })
            .collect();
        let mut best: Option<(String, usize)> = None;
        if obj_arms.len() >= 2 {
            let mut candidates: BTreeSet<String> = BTreeSet::new();
            for (_, d) in &obj_arms {
                if let DeclKind::Object(o) = &d.kind {
                    for p in &o.props {
                        if !tag_values(m, &p.schema).is_empty() {
                            candidates.insert(p.key.clone());
                        }
                    }
                }
            }
            for key in candidates {
                let mut all = true;
                let mut distinct = BTreeSet::new();
                for (_, d) in &obj_arms {
                    let DeclKind::Object(o) = &d.kind else { continue };
                    match o.props.iter().find(|p| p.key == key) {
                        Some(p) => {
                            let vals = tag_values(m, &p.schema);
                            if vals.is_empty() {
                                all = false;
                            }
                            distinct.extend(vals);
                        }
                        None => all = false,
                    }
                }
                if all && distinct.len() >= 2 && best.as_ref().is_none_or(|(_, n)| distinct.len() > *n) {
                    best = Some((key, distinct.len()));
                }
            }
        }
        let tag = best.map(|(k, _)| k);
        let mut arms = arms;
        if let Some(tag) = &tag {
            for (j, d) in &obj_arms {
                if let DeclKind::Object(o) = &d.kind {
                    if let Some(p) = o.props.iter().find(|p| &p.key == tag) {
                        arms[*j].tag_values = tag_values(m, &p.schema);
                        arms[*j].tag_required = p.required;
                    }
                }
            }
            let absent_ok = arms.iter().filter(|a| !a.tag_values.is_empty() && !a.tag_required).count();
            if absent_ok > 1 {
                diags.push(
                    &m.revision,
                    Some(&m.decls[i].def),
                    m.decls[i].sp.trim_start_matches('#'),
                    format!("union tag `{tag}` is optional in several arms; decoding would be ambiguous"),
                );
            }
        }
        let result_type_arm =
            u.arms.iter().position(|a| matches!(&a.schema.ty, Ty::Ref(r) if r == overrides::RESULT_TYPE_ARM));
        let strategy = if let Some(t) = &tag {
            format!("told apart by the `{t}` constant")
        } else if result_type_arm.is_some() {
            "told apart by `resultType` (`input_required` selects `InputRequiredResult`)".to_owned()
        } else if arms.iter().all(|a| !a.types.is_empty()) && {
            let mut seen = BTreeSet::new();
            arms.iter().all(|a| a.types.iter().all(|t| seen.insert(*t)))
        } {
            "told apart by JSON type".to_owned()
        } else {
            "told apart by which fields are present (the arm whose required fields are all present and that declares the most present fields wins; ties in schema order)".to_owned()
        };
        let info = UnionInfo { tag, result_type_arm, arms, strategy };
        if let DeclKind::Union(u) = &mut m.decls[i].kind {
            u.info = info;
        }
    }
}

fn tag_values(m: &Module, s: &Schema) -> Vec<String> {
    match &m.resolve(s).ty {
        Ty::Lit(l) => match &m.literals[*l].value {
            LitValue::Str(v) => vec![v.clone()],
            LitValue::Int(_) => Vec::new(),
        },
        Ty::Decl(d) => match &m.decls[*d].kind {
            DeclKind::Enum(e) => e.values.iter().map(|(v, _)| v.clone()).collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// JSON types a schema can accept; empty = any.
pub fn schema_types(m: &Module, s: &Schema) -> Vec<JType> {
    fn go(m: &Module, s: &Schema, depth: usize) -> Vec<JType> {
        if depth > 32 {
            return Vec::new();
        }
        match &s.ty {
            Ty::Any => Vec::new(),
            Ty::Bool => vec![JType::Boolean],
            Ty::Null => vec![JType::Null],
            Ty::Str { .. } => vec![JType::String],
            Ty::Num { integer: true, .. } => vec![JType::Integer],
            Ty::Num { .. } => vec![JType::Number],
            Ty::Array { .. } => vec![JType::Array],
            Ty::Map(_) => vec![JType::Object],
            Ty::Ref(r) => m.def(r).map(|d| go(m, &d.schema, depth + 1)).unwrap_or_default(),
            Ty::Lit(l) => match m.literals[*l].value {
                LitValue::Str(_) => vec![JType::String],
                LitValue::Int(_) => vec![JType::Integer],
            },
            Ty::Decl(d) => match &m.decls[*d].kind {
                DeclKind::Object(_) => vec![JType::Object],
                DeclKind::Enum(_) => vec![JType::String],
                DeclKind::Union(u) => {
                    let mut out = BTreeSet::new();
                    for a in &u.arms {
                        let t = go(m, &a.schema, depth + 1);
                        if t.is_empty() {
                            return Vec::new();
                        }
                        out.extend(t);
                    }
                    out.into_iter().collect()
                }
            },
        }
    }
    go(m, s, 0)
}

fn arm_info(m: &Module, s: &Schema) -> ArmInfo {
    let mut info = ArmInfo { types: schema_types(m, s), ..Default::default() };
    if let Some(Decl { kind: DeclKind::Object(o), .. }) = m.resolve_decl(s) {
        info.required = o.props.iter().filter(|p| p.required).map(|p| p.key.clone()).collect();
        info.declared = o.props.iter().map(|p| p.key.clone()).collect();
    }
    info
}

/// Derives the method table from the definitions: every object definition whose `method`
/// property is a string const.
fn methods(m: &Module, diags: &mut Diagnostics) -> Vec<Method> {
    let aggregate = |name: &str| overrides::DIRECTION_UNIONS.iter().any(|(n, _)| *n == name);
    // method → directions from the aggregate unions (or aggregate objects).
    let mut dirs: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for (uname, dir) in overrides::DIRECTION_UNIONS {
        let Some(def) = m.def(uname) else { continue };
        let members: Vec<&Schema> = match m.resolve_decl(&def.schema).map(|d| &d.kind) {
            Some(DeclKind::Union(u)) => u.arms.iter().map(|a| &a.schema).collect(),
            Some(DeclKind::Object(_)) => vec![&def.schema],
            _ => Vec::new(),
        };
        for s in members {
            if let Some(method) = method_const(m, s) {
                let tag = match dir {
                    Direction::ClientToServer => "c2s",
                    Direction::ServerToClient => "s2c",
                    _ => "input",
                };
                dirs.entry(method).or_default().insert(tag);
            }
        }
    }
    let mut out: Vec<Method> = Vec::new();
    for def in &m.defs {
        if aggregate(&def.name) {
            continue;
        }
        let Some(Decl { kind: DeclKind::Object(o), .. }) = m.resolve_decl(&def.schema) else { continue };
        if !matches!(def.schema.ty, Ty::Decl(_)) {
            continue;
        }
        let Some(method) = method_const(m, &def.schema) else { continue };
        if out.iter().any(|x| x.method == method) {
            diags.push(&m.revision, Some(&def.name), "", format!("method `{method}` is defined by two definitions"));
            continue;
        }
        let has_id = o.props.iter().any(|p| p.key == "id");
        let d = dirs.get(&method);
        let direction = match d {
            Some(s) if s.contains("input") => Direction::EmbeddedInput,
            Some(s) if s.contains("c2s") && s.contains("s2c") => Direction::Both,
            Some(s) if s.contains("c2s") => Direction::ClientToServer,
            Some(s) if s.contains("s2c") => Direction::ServerToClient,
            _ => Direction::Unspecified,
        };
        let kind = if has_id || direction == Direction::EmbeddedInput || def.name.ends_with("Request") {
            MethodKind::Request
        } else {
            MethodKind::Notification
        };
        let params = o.props.iter().find(|p| p.key == "params");
        let params_type = params.and_then(|p| match &p.schema.ty {
            Ty::Ref(r) => Some(r.clone()),
            Ty::Decl(i) => Some(m.decls[*i].name.clone()),
            _ => None,
        });
        let (result_defs, input_required) =
            if kind == MethodKind::Request { result_defs(m, &def.name) } else { (Vec::new(), false) };
        let task_result = params
            .filter(|_| kind == MethodKind::Request && m.def(TASK_RESULT).is_some())
            .filter(|p| declares_task(m, &p.schema))
            .map(|_| TASK_RESULT.to_owned());
        out.push(Method {
            method,
            kind,
            direction,
            request_def: def.name.clone(),
            params_type,
            params_required: params.is_some_and(|p| p.required),
            result_defs,
            input_required,
            task_result,
        });
    }
    out
}

fn method_const(m: &Module, s: &Schema) -> Option<String> {
    let Some(Decl { kind: DeclKind::Object(o), .. }) = m.resolve_decl(s) else { return None };
    let p = o.props.iter().find(|p| p.key == "method")?;
    match &p.schema.ty {
        Ty::Lit(l) => match &m.literals[*l].value {
            LitValue::Str(v) => Some(v.clone()),
            LitValue::Int(_) => None,
        },
        _ => None,
    }
}

/// What a task-augmented request returns (2025-11-25).
const TASK_RESULT: &str = "CreateTaskResult";

/// Whether a params schema (an object, or every arm of a union of objects) declares `task`.
fn declares_task(m: &Module, s: &Schema) -> bool {
    match m.resolve_decl(s).map(|d| &d.kind) {
        Some(DeclKind::Object(o)) => o.props.iter().any(|p| p.key == "task"),
        Some(DeclKind::Union(u)) => !u.arms.is_empty() && u.arms.iter().all(|a| declares_task(m, &a.schema)),
        _ => false,
    }
}

/// Result definitions of a request: from `<Stem>ResultResponse.result` when the revision has it
/// (2026-07-28), else `<Stem>Result`, else `EmptyResult`/`Result`.
fn result_defs(m: &Module, request: &str) -> (Vec<String>, bool) {
    let stem = request.strip_suffix("Request").unwrap_or(request);
    if let Some(resp) = m.def(&format!("{stem}ResultResponse")) {
        if let Some(Decl { kind: DeclKind::Object(o), .. }) = m.resolve_decl(&resp.schema) {
            if let Some(p) = o.props.iter().find(|p| p.key == "result") {
                let refs: Vec<String> = match &p.schema.ty {
                    Ty::Ref(r) => vec![r.clone()],
                    Ty::Decl(i) => match &m.decls[*i].kind {
                        DeclKind::Union(u) => u
                            .arms
                            .iter()
                            .filter_map(|a| if let Ty::Ref(r) = &a.schema.ty { Some(r.clone()) } else { None })
                            .collect(),
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                let irr = refs.iter().any(|r| r == overrides::RESULT_TYPE_ARM);
                let mut complete: Vec<String> = refs.into_iter().filter(|r| r != overrides::RESULT_TYPE_ARM).collect();
                if irr {
                    complete.push(overrides::RESULT_TYPE_ARM.to_owned());
                }
                if !complete.is_empty() {
                    return (complete, irr);
                }
            }
        }
    }
    for cand in [format!("{stem}Result"), "EmptyResult".to_owned(), "Result".to_owned()] {
        if m.def(&cand).is_some() {
            return (vec![cand], false);
        }
    }
    (Vec::new(), false)
}

/// Consistency checks on the finished IR.
fn check(m: &Module, diags: &mut Diagnostics) {
    for d in &m.decls {
        if let DeclKind::Union(u) = &d.kind {
            if u.arms.is_empty() {
                diags.push(&m.revision, Some(&d.def), d.sp.trim_start_matches('#'), "empty `anyOf`");
            }
        }
    }
    for method in &m.methods {
        if method.kind == MethodKind::Request
            && method.direction != Direction::EmbeddedInput
            && method.result_defs.is_empty()
        {
            diags.push(
                &m.revision,
                Some(&method.request_def),
                "",
                format!("no result definition found for `{}`", method.method),
            );
        }
    }
}
