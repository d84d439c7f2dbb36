//! Each union's decoding strategy (tag property, `resultType`, JSON type or present fields),
//! computed once every definition is lowered, and the JSON types a schema accepts.

use std::collections::BTreeSet;

use super::overrides;
use super::{ArmInfo, Decl, DeclKind, JType, LitValue, Module, Schema, Ty, UnionInfo};
use crate::Diagnostics;

/// Computes each union's strategy facts once every definition is lowered.
pub(super) fn finish_unions(m: &mut Module, diags: &mut Diagnostics) {
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
