//! Lowering an object schema: a map when it has only `additionalProperties`, else a declared
//! struct with its properties, required keys and unknown-key policy.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::lower::Lowerer;
use super::names::{field_name, type_part};
use super::overrides;
use super::{DeclKind, ObjectDecl, Prop, Schema, Ty, Unknown};
use crate::pointer::escape as escape_pointer;

impl<'a> Lowerer<'a> {
    pub(super) fn lower_object(
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
}
