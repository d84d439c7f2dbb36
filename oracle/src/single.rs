//! Single mutations of one example: every operator of the crate documentation that changes one
//! node, at every node, with seeded samples for the vocabulary and the swaps.

use std::collections::BTreeSet;

use mcpgen_runtime::json::pointer::escape;
use serde_json::{json, Map, Value};

use super::{
    kind_of, kind_samples, nodes, num, replace_at, Config, Example, Mutant, Rng, Vocabulary, BOUNDARY_NUMBERS,
};

/// Single mutations of one example, systematically (with seeded samples for vocab and swaps).
pub(super) fn single_mutants(ex: &Example, voc: &Vocabulary, cfg: &Config, rng: &mut Rng) -> Vec<Mutant> {
    let mut found = Singles { ex, origin: format!("{}/{}", ex.def, ex.name), out: Vec::new() };
    for (ptr, key, node) in nodes(&ex.value) {
        found.kind_changes(&ptr, node);
        match node {
            Value::Object(m) => found.object(&ptr, m),
            Value::Array(a) => found.array(&ptr, a, cfg.grow_to),
            Value::String(s) => {
                let vocab = key.as_ref().and_then(|k| voc.strings.get(k.trim_end_matches("[]")));
                found.string(&ptr, s, vocab, cfg.vocab_per_node, rng);
            }
            Value::Number(n) => found.number(&ptr, node, n, key.as_ref().and_then(|k| voc.ints.get(k))),
            Value::Bool(b) => found.set("bool-flip".into(), &ptr, json!(!b)),
            Value::Null => {}
        }
        found.swaps(&ptr, node, key.as_ref().and_then(|k| voc.values.get(k)), cfg.swaps_per_node, rng);
    }
    found.out
}

/// The single mutants of one example, in the order they are made.
struct Singles<'e> {
    ex: &'e Example,
    /// `<Def>/<example>`.
    origin: String,
    out: Vec<Mutant>,
}

impl Singles<'_> {
    /// Records the message `value`, made by the operator `kind` at `pointer`.
    fn push(&mut self, kind: String, pointer: &str, value: Value) {
        self.out.push(Mutant {
            def: self.ex.def.clone(),
            origin: self.origin.clone(),
            kind,
            pointer: pointer.to_owned(),
            value,
            bytes: None,
        });
    }

    /// Records the example with the node at `ptr` replaced by `new`.
    fn set(&mut self, kind: String, ptr: &str, new: Value) {
        let value = replace_at(&self.ex.value, ptr, |_| Some(new));
        self.push(kind, ptr, value);
    }

    /// The node changed to each other JSON kind.
    fn kind_changes(&mut self, ptr: &str, node: &Value) {
        let own = kind_of(node);
        for (k, sample) in kind_samples() {
            if k != own {
                self.set(format!("type:{k}"), ptr, sample);
            }
        }
    }

    /// An object: each member dropped, a member and a `_meta` added, emptied.
    fn object(&mut self, ptr: &str, m: &Map<String, Value>) {
        for k in m.keys() {
            let child = format!("{ptr}/{}", escape(k));
            let dropped = replace_at(&self.ex.value, &child, |_| None);
            self.push(format!("drop:{k}"), &child, dropped);
        }
        let mut added = m.clone();
        added.insert("oracleExtra".into(), json!(1));
        self.set("add-key".into(), ptr, Value::Object(added));
        if !m.contains_key("_meta") {
            let mut with_meta = m.clone();
            with_meta.insert("_meta".into(), json!({"com.example/oracle": 1}));
            self.set("add-meta".into(), ptr, Value::Object(with_meta));
        }
        if !m.is_empty() {
            self.set("empty-object".into(), ptr, json!({}));
        }
    }

    /// A non-empty array: emptied, its first item repeated, grown to `grow_to` items, an item
    /// of another kind appended.
    fn array(&mut self, ptr: &str, a: &[Value], grow_to: usize) {
        if a.is_empty() {
            return;
        }
        self.set("empty-array".into(), ptr, json!([]));
        let mut d = a.to_vec();
        d.push(a[0].clone());
        self.set("dup-item".into(), ptr, Value::Array(d));
        let grown: Vec<Value> = (0..grow_to).map(|i| a[i % a.len()].clone()).collect();
        self.set("grow".into(), ptr, Value::Array(grown));
        let mut w = a.to_vec();
        w.push(if a[0].is_number() { json!("oracle") } else { json!(42) });
        self.set("append-wrong".into(), ptr, Value::Array(w));
    }

    /// A string: emptied, another string, and up to `per_node` other values its key takes
    /// elsewhere (`vocab`).
    fn string(&mut self, ptr: &str, s: &str, vocab: Option<&BTreeSet<String>>, per_node: usize, rng: &mut Rng) {
        if !s.is_empty() {
            self.set("str-empty".into(), ptr, json!(""));
        }
        self.set("str-other".into(), ptr, json!("oracle-mutated"));
        if let Some(vals) = vocab {
            let others: Vec<&String> = vals.iter().filter(|v| *v != s).collect();
            for v in rng.pick(&others, per_node) {
                self.set("vocab".into(), ptr, json!(v));
            }
        }
    }

    /// A number: the boundary numbers, its integer neighbours, and the integer consts its key
    /// takes (`codes`), each also as a fraction.
    fn number(&mut self, ptr: &str, node: &Value, n: &serde_json::Number, codes: Option<&BTreeSet<i64>>) {
        for t in BOUNDARY_NUMBERS {
            let b = num(t);
            if &b != node {
                self.set(format!("number:{t}"), ptr, b);
            }
        }
        if let Some(i) = n.as_i64() {
            for (label, x) in [
                ("+1", json!(i.saturating_add(1))),
                ("-1", json!(i.saturating_sub(1))),
                ("+0.5", json!(i as f64 + 0.5)),
                ("neg", json!(i.saturating_neg())),
            ] {
                if &x != node {
                    self.set(format!("number:{label}"), ptr, x);
                }
            }
        }
        for c in codes.into_iter().flatten() {
            if n.as_i64() != Some(*c) {
                self.set(format!("number:{c}"), ptr, json!(c));
            } else {
                self.set(format!("number:{c}.0"), ptr, json!(*c as f64));
            }
            self.set(format!("number:{c}.5"), ptr, json!(*c as f64 - 0.5));
        }
    }

    /// Up to `per_node` values another example holds under the same key (`pool`), swapped in.
    fn swaps(&mut self, ptr: &str, node: &Value, pool: Option<&Vec<(String, Value)>>, per_node: usize, rng: &mut Rng) {
        let Some(pool) = pool else { return };
        let others: Vec<&(String, Value)> = pool.iter().filter(|(o, v)| *o != self.origin && v != node).collect();
        for (o, v) in rng.pick(&others, per_node) {
            self.set(format!("swap:{o}"), ptr, v.clone());
        }
    }
}
