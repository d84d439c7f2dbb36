//! Unions (`anyOf`, type lists): the generator's static description of each, the exact
//! filter that rules arms out, the ranking of the arms worth trying, and the check that
//! reports why each candidate failed.

use crate::json::{JsonView, Kind};

use super::{quote_list, ArmFailure, Cx, JType, Options, Path, ValidationError};

/// Static description of a union, emitted by the generator for each `anyOf` / type list.
#[derive(Debug)]
pub struct UnionDesc {
    pub name: &'static str,
    pub schema_path: &'static str,
    pub arms: &'static [ArmDesc],
    /// Property whose `const` value selects the arm (`method`, `type`, `mode`…).
    pub tag: Option<&'static str>,
    /// Index of the `InputRequiredResult` arm when arms are told apart by `resultType`.
    pub result_type_arm: Option<usize>,
    /// The union comes from a list of types (`"type": ["string", "integer"]`), so a mismatch
    /// is reported as a `type` error.
    pub type_list: bool,
}

/// Static description of one union arm.
#[derive(Debug)]
pub struct ArmDesc {
    pub name: &'static str,
    /// JSON types the arm accepts; empty means any.
    pub types: &'static [JType],
    /// Values the tag property may take in this arm (empty when the arm has no tag const).
    pub tag_values: &'static [&'static str],
    /// Whether the arm requires the tag property.
    pub tag_required: bool,
    pub required: &'static [&'static str],
    pub declared: &'static [&'static str],
}

/// Arm validator function pointer for a view type.
pub type ArmFn<V> = fn(&V, &Path<'_>, &mut Cx) -> bool;

/// The exact part of arm selection: facts about the instance that rule arms out (wrong JSON
/// type, different tag value, different `resultType` under [`Options::discriminate_results`]).
/// Computed once per union check; no allocation. Generated union validators use it directly
/// in fail-fast passes.
pub struct ArmFilter<'v, V: JsonView<'v>> {
    is_obj: bool,
    /// `Some(tag value or None)` when the union has a tag and the instance is an object.
    tag_val: Option<Option<V>>,
    /// Whether `resultType` is `"input_required"` (`None`: not an object, no resultType arm,
    /// or no `resultType` key).
    rt_input_required: Option<bool>,
    _v: std::marker::PhantomData<&'v ()>,
}

impl<'v, V: JsonView<'v>> ArmFilter<'v, V> {
    #[inline]
    pub fn new(v: &V, u: &UnionDesc) -> Self {
        let is_obj = v.kind() == Kind::Object;
        let tag_val = match (u.tag, is_obj) {
            (Some(t), true) => Some(v.get(t)),
            _ => None,
        };
        let rt_input_required = match (u.result_type_arm, is_obj) {
            (Some(_), true) => v.get("resultType").map(|x| x.str_eq("input_required")),
            _ => None,
        };
        ArmFilter { is_obj, tag_val, rt_input_required, _v: std::marker::PhantomData }
    }

    /// Whether arm `i` can possibly match.
    #[inline(always)]
    pub fn admits(&self, v: &V, u: &UnionDesc, i: usize, opts: &Options) -> bool {
        let arm = &u.arms[i];
        if !arm.types.is_empty() && !arm.types.iter().any(|t| t.accepts(v)) {
            return false;
        }
        if let Some(tv) = &self.tag_val {
            match tv {
                Some(x) if !arm.tag_values.is_empty() && !arm.tag_values.iter().any(|c| x.str_eq(c)) => return false,
                None if arm.tag_required => return false,
                _ => {}
            }
        }
        if let (Some(irr), true) = (u.result_type_arm, opts.discriminate_results) {
            let wants_irr = self.rt_input_required.unwrap_or(false);
            if (i == irr) != wants_irr {
                return false;
            }
        }
        true
    }
}

/// Orders the arms worth trying: arms that cannot match (wrong JSON type, different tag
/// value, different `resultType` under [`Options::discriminate_results`]) are dropped — those
/// filters are exact — and the rest are ranked by field presence (all required keys present
/// first, then more required keys, then more declared keys present), ties in schema order.
pub fn candidate_arms<'v, V: JsonView<'v>>(v: &V, u: &UnionDesc, opts: &Options) -> Vec<usize> {
    let mut out: Vec<(usize, (bool, usize, usize))> = Vec::with_capacity(u.arms.len());
    let filter = ArmFilter::new(v, u);
    for (i, arm) in u.arms.iter().enumerate() {
        if !filter.admits(v, u, i, opts) {
            continue;
        }
        let score = if filter.is_obj {
            let req_present = arm.required.iter().filter(|k| v.get(k).is_some()).count();
            let decl_present = arm.declared.iter().filter(|k| v.get(k).is_some()).count();
            (req_present == arm.required.len(), req_present, decl_present)
        } else {
            (true, 0, 0)
        };
        out.push((i, score));
    }
    // Under plain anyOf semantics the resultType arm goes first when the instance asks for it.
    if let (Some(irr), false, Some(true)) = (u.result_type_arm, opts.discriminate_results, filter.rt_input_required) {
        if let Some(pos) = out.iter().position(|(i, _)| *i == irr) {
            let e = out.remove(pos);
            out.insert(0, e);
            return out.into_iter().map(|(i, _)| i).collect();
        }
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out.into_iter().map(|(i, _)| i).collect()
}

/// Validates a union (`anyOf`): valid when a candidate arm is valid. On failure the error
/// lists why each candidate failed, closest first.
pub fn check_union<'v, V: JsonView<'v>>(v: &V, u: &UnionDesc, arms: &[ArmFn<V>], p: &Path<'_>, cx: &mut Cx) -> bool {
    if !cx.is_collecting() {
        // Yes/no only: the verdict of `anyOf` does not depend on the order arms are tried in,
        // so skip the ranking (and its allocation) and try the admitted arms in schema order.
        let opts = cx.opts;
        let filter = ArmFilter::new(v, u);
        return (0..arms.len()).any(|i| filter.admits(v, u, i, &opts) && arms[i](v, p, cx));
    }
    let cands = candidate_arms(v, u, &cx.opts);
    let mut failures = Vec::new();
    for &i in &cands {
        let mark = cx.mark();
        if arms[i](v, p, cx) {
            cx.rollback(mark);
            return true;
        }
        failures.push(ArmFailure { arm: u.arms[i].name, errors: cx.take_since(mark) });
    }
    let message = union_message(v, u, &cands);
    if u.type_list && cands.is_empty() {
        cx.push(ValidationError {
            pointer: p.pointer(),
            schema_path: format!("{}/type", u.schema_path),
            keyword: "type",
            rule: None,
            message,
            arms: Vec::new(),
        });
        return false;
    }
    // One candidate: its errors are the errors (no wrapper noise).
    if failures.len() == 1 {
        for e in failures.pop().map(|f| f.errors).unwrap_or_default() {
            cx.push(e);
        }
        return false;
    }
    // Closest arm first: the one whose errors reach deepest into the instance, then fewest errors.
    failures.sort_by_key(|f| {
        let depth = f.errors.iter().map(|e| e.pointer.matches('/').count()).max().unwrap_or(0);
        (std::cmp::Reverse(depth), f.errors.len())
    });
    cx.push(ValidationError {
        pointer: p.pointer(),
        schema_path: format!("{}/anyOf", u.schema_path),
        keyword: "anyOf",
        rule: None,
        message,
        arms: failures,
    });
    false
}

fn union_message<'v, V: JsonView<'v>>(v: &V, u: &UnionDesc, cands: &[usize]) -> String {
    if cands.is_empty() {
        if let (Some(tag), Kind::Object) = (u.tag, v.kind()) {
            let allowed: Vec<&str> = u.arms.iter().flat_map(|a| a.tag_values.iter().copied()).collect();
            return match v.get(tag) {
                Some(x) => format!(
                    "{} is not a valid `{tag}` for {}; expected one of {}",
                    x.describe(),
                    u.name,
                    quote_list(&allowed)
                ),
                None => format!(
                    "missing `{tag}`, which selects the kind of {}; expected one of {}",
                    u.name,
                    quote_list(&allowed)
                ),
            };
        }
        let mut types: Vec<&str> = u.arms.iter().flat_map(|a| a.types.iter().map(|t| t.name())).collect();
        types.dedup();
        return format!("{} cannot be a {}: expected {}", v.describe(), u.name, types.join(" or "));
    }
    let names: Vec<&str> = cands.iter().map(|&i| u.arms[i].name).collect();
    format!("{} does not match any variant of {} (tried {})", v.describe(), u.name, names.join(", "))
}

/// Picks the arm to decode into: the first candidate that validates.
pub fn select_arm<'v, V: JsonView<'v>>(v: &V, u: &UnionDesc, arms: &[ArmFn<V>], opts: &Options) -> Option<usize> {
    let cands = candidate_arms(v, u, opts);
    if cands.len() == 1 {
        return cands.first().copied();
    }
    let mut cx = Cx::fail_fast(*opts);
    cands.into_iter().find(|&i| arms[i](v, &Path::Root, &mut cx))
}
