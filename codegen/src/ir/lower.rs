//! Lowering, one schema position at a time: the entry point [`lower`], the dispatch on a
//! position's keywords (`$ref`, `allOf`, `anyOf`, `const`, `enum`, `type`), scalars, arrays,
//! type lists and `anyOf` unions; objects and `allOf` have their own files.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::methods::{check, methods};
use super::names::variant_name;
use super::overrides;
use super::unions::finish_unions;
use super::{Arm, Decl, DeclKind, Def, EnumDecl, JType, LitValue, Literal, Module, Schema, Ty, UnionDecl, UnionInfo};
use crate::load::Loaded;
use crate::pointer::escape as escape_pointer;
use crate::Diagnostics;

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

/// The lowering state; the `impl` is spread over this file, `objects` and `all_of`.
pub(super) struct Lowerer<'a> {
    pub(super) rev: &'a str,
    pub(super) defs_key: &'static str,
    pub(super) raw: &'a Map<String, Value>,
    pub(super) decls: Vec<Decl>,
    literals: Vec<Literal>,
    lit_index: BTreeMap<String, usize>,
    type_names: BTreeSet<String>,
    pub(super) diags: Diagnostics,
    pub(super) current_def: String,
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
    pub(super) fn diag(&mut self, sp: &str, msg: impl Into<String>) {
        let def = self.current_def.clone();
        self.diags.push(self.rev, Some(&def), sp.trim_start_matches('#'), msg);
    }

    pub(super) fn unique_name(&mut self, base: &str) -> String {
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
    pub(super) fn lower(&mut self, raw: &Value, sp: &str, name: &str, is_def: bool, key_path: &[String]) -> Schema {
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

    pub(super) fn push_decl(&mut self, name: String, sp: &str, doc: Option<String>, kind: DeclKind) -> usize {
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
