//! The method table, derived from the definitions (directions from the aggregate unions,
//! results from the response definitions), and the consistency checks on the finished IR.

use std::collections::{BTreeMap, BTreeSet};

use super::overrides;
use super::{Decl, DeclKind, Direction, LitValue, Method, MethodKind, Module, Schema, Ty};
use crate::Diagnostics;

/// Derives the method table from the definitions: every object definition whose `method`
/// property is a string const.
pub(super) fn methods(m: &Module, diags: &mut Diagnostics) -> Vec<Method> {
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
pub(super) fn check(m: &Module, diags: &mut Diagnostics) {
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
