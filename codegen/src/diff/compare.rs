//! The comparison: both revisions walked method by method, then definition by definition,
//! each pair of schema positions compared and every difference recorded as a [`Change`] with
//! whom it breaks.

use std::collections::BTreeSet;

use super::shape::{
    arm_label, demands, describe, describe_method, describe_prop, direction, extra_text, identity, key_segment,
    presence, senders, shape, tag_value, union_arms, universal, Extra, Shape,
};
use super::{Breaks, Change, ChangeKind, RevisionDiff, RevisionId, Subject};
use crate::ir::{self, MethodKind, Module, Prop, Schema, Ty};

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
