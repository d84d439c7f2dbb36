//! The static pass that runs before `jsonschema` sees a schema: it walks every subschema once
//! and enforces the JSCHEMA-8 limits `jsonschema` does not have (nesting depth, subschema count,
//! `enum` size, pattern shape), finds `$ref` cycles that never move into the instance (an
//! infinite loop at validation time), and bounds the cost of one validation step by unfolding
//! the reference graph (a chain of `anyOf`s that each reference the previous one twice is
//! exponential; `jsonschema` would evaluate it).
//!
//! References are resolved here only inside the document (JSON pointers, `$anchor`, embedded
//! `$id`s); anything else is left to the `jsonschema` registry, whose retriever refuses it
//! (JSCHEMA-5) or fetches it through the opt-in resolver.

use std::collections::HashMap;

use serde_json::Value;

use super::depth::{self, Child, Segment, Step, Tree, Visit};
use super::dialect::Dialect;
use super::errors::{SchemaError, SchemaErrorKind};
use super::limits::Limits;
use super::pattern;

/// Base URI for a document without `$id` (the one `jsonschema` uses).
const DEFAULT_BASE: &str = "json-schema:///";

/// How a keyword holds subschemas.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// Applied to the same instance location (`allOf`, `not`, `if`, `$ref`…).
    Same,
    /// Applied to a member or item of the instance (`properties`, `items`…).
    Child,
    /// Not applied at all: a container for referenced schemas (`$defs`, `definitions`).
    Container,
}

fn single_keyword(k: &str) -> Option<Edge> {
    Some(match k {
        "not" | "if" | "then" | "else" => Edge::Same,
        "additionalProperties"
        | "additionalItems"
        | "items"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Edge::Child,
        _ => return None,
    })
}

fn array_keyword(k: &str) -> Option<Edge> {
    Some(match k {
        "allOf" | "anyOf" | "oneOf" => Edge::Same,
        "prefixItems" | "items" => Edge::Child,
        _ => return None,
    })
}

fn map_keyword(k: &str) -> Option<Edge> {
    Some(match k {
        "properties" | "patternProperties" => Edge::Child,
        "dependentSchemas" | "dependencies" => Edge::Same,
        "$defs" | "definitions" => Edge::Container,
        _ => return None,
    })
}

struct Node<'s> {
    value: &'s Value,
    pointer: String,
    /// Edges to subschemas nested in this one.
    children: Vec<(usize, Edge)>,
    /// `$ref`-like keywords: (keyword, reference text, resolved target when in the document).
    refs: Vec<(&'static str, String, Option<usize>)>,
    base: String,
}

/// The subschemas of a schema, as the keyword tables above say: what the static pass walks.
struct SchemaTree;

impl<'s> Tree<'s> for SchemaTree {
    type Edge = Edge;
    type Children = std::vec::IntoIter<Child<'s, Edge>>;

    fn children(&self, node: &'s Value) -> Self::Children {
        let mut out = Vec::new();
        let Value::Object(map) = node else { return out.into_iter() };
        let is_schema = |v: &Value| matches!(v, Value::Object(_) | Value::Bool(_));
        for (keyword, sub) in map {
            let first = Segment::Key(keyword.as_str());
            match sub {
                Value::Object(_) | Value::Bool(_) => {
                    if let Some(edge) = single_keyword(keyword) {
                        out.push(Child { first, second: None, value: sub, edge });
                    } else if let (Some(edge), Value::Object(members)) = (map_keyword(keyword), sub) {
                        for (name, member) in members.iter().filter(|(_, m)| is_schema(m)) {
                            out.push(Child { first, second: Some(Segment::Key(name.as_str())), value: member, edge });
                        }
                    }
                }
                Value::Array(items) => {
                    if let Some(edge) = array_keyword(keyword) {
                        for (i, item) in items.iter().enumerate().filter(|(_, x)| is_schema(x)) {
                            out.push(Child { first, second: Some(Segment::Index(i)), value: item, edge });
                        }
                    }
                }
                _ => {}
            }
        }
        out.into_iter()
    }
}

/// What a visited subschema hands its children: its node and its base URI.
struct Parent {
    id: usize,
    base: String,
}

struct Walker<'s, 'l> {
    dialect: Dialect,
    limits: &'l Limits,
    nodes: Vec<Node<'s>>,
    by_address: HashMap<*const Value, usize>,
    /// Resource URI (no fragment) → node.
    resources: HashMap<String, usize>,
    /// (resource URI, anchor name) → node.
    anchors: HashMap<(String, String), usize>,
    errors: Vec<SchemaError>,
    too_deep: bool,
    too_many: bool,
}

/// `pointer` with one more segment.
fn child_pointer(pointer: &str, key: &str) -> String {
    let mut out = pointer.to_owned();
    depth::push_segment(&mut out, Segment::Key(key));
    out
}

fn strip_fragment(uri: &str) -> &str {
    uri.split_once('#').map_or(uri, |(base, _)| base)
}

fn resolve(base: &str, reference: &str) -> Option<String> {
    let base = jsonschema::uri::from_str(base).ok()?;
    let base = base.borrow();
    jsonschema::uri::resolve_against(&base, reference).ok().map(|u| u.as_str().to_owned())
}

impl<'s> Walker<'s, '_> {
    fn error(&mut self, kind: SchemaErrorKind, pointer: &str, message: String) {
        self.errors.push(SchemaError::new(kind, pointer, message));
    }

    /// Walks every subschema once ([`SchemaTree`], document order), building the graph and
    /// checking the per-subschema limits.
    fn walk(&mut self, schema: &'s Value) {
        depth::walk(schema, &SchemaTree, |node: Visit<'_, 's, Edge, Parent>| self.visit(node));
    }

    /// One subschema: past a size limit it is skipped; else it becomes a node of the graph (its
    /// base URI, resource and anchors recorded), with its references and keyword limits.
    fn visit(&mut self, node: Visit<'_, 's, Edge, Parent>) -> Step<Parent> {
        let (value, pointer) = (node.value, node.pointer());
        if self.past_size_limit(node.depth, &pointer) {
            return Step::Skip;
        }
        let id = self.nodes.len();
        if let (Some(parent), Some(edge)) = (node.parent, node.edge) {
            self.nodes[parent.id].children.push((id, edge));
        }
        self.by_address.insert(value as *const Value, id);
        let base = node.parent.map_or(DEFAULT_BASE, |p| p.base.as_str()).to_owned();
        let base = match value {
            Value::Object(map) => self.identify(map, base, id),
            _ => base,
        };
        self.nodes.push(Node {
            value,
            pointer: pointer.clone(),
            children: Vec::new(),
            refs: Vec::new(),
            base: base.clone(),
        });
        if let Value::Object(map) = value {
            self.keywords(map, id, &pointer);
        }
        Step::Descend(Parent { id, base })
    }

    /// Whether a subschema at `depth` passes `max_depth`, or one more passes `max_subschemas`
    /// (each reported once, at the first subschema past it).
    fn past_size_limit(&mut self, depth: usize, pointer: &str) -> bool {
        if depth > self.limits.max_depth {
            if !self.too_deep {
                self.too_deep = true;
                self.error(
                    SchemaErrorKind::TooDeep,
                    pointer,
                    format!("subschemas nest deeper than {} levels (limit max_depth)", self.limits.max_depth),
                );
            }
            return true;
        }
        if self.nodes.len() >= self.limits.max_subschemas {
            if !self.too_many {
                self.too_many = true;
                self.error(
                    SchemaErrorKind::TooManySubschemas,
                    pointer,
                    format!("more than {} subschemas (limit max_subschemas)", self.limits.max_subschemas),
                );
            }
            return true;
        }
        false
    }

    /// The base URI of the subschema `map` (node `id`) under its parent's `base`: its `$id`
    /// makes it a resource (or, in draft 7, `#name` an anchor), its `$anchor` and
    /// `$dynamicAnchor` anchors.
    fn identify(&mut self, map: &serde_json::Map<String, Value>, mut base: String, id: usize) -> String {
        if let Some(Value::String(raw_id)) = map.get("$id") {
            if self.dialect == Dialect::Draft07 && raw_id.starts_with('#') {
                self.anchors.insert((strip_fragment(&base).to_owned(), raw_id[1..].to_owned()), id);
            } else if let Some(resolved) = resolve(&base, raw_id) {
                base = strip_fragment(&resolved).to_owned();
                self.resources.insert(base.clone(), id);
            }
        }
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(name)) = map.get(key) {
                self.anchors.insert((base.clone(), name.clone()), id);
            }
        }
        base
    }

    /// The keywords of subschema `map` (node `id`, at `pointer`) the pass reads: its references,
    /// and the limits on `enum` and on the patterns.
    fn keywords(&mut self, map: &'s serde_json::Map<String, Value>, id: usize, pointer: &str) {
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some(Value::String(r)) = map.get(keyword) {
                self.nodes[id].refs.push((keyword, r.clone(), None));
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            if values.len() > self.limits.max_enum_values {
                self.error(
                    SchemaErrorKind::EnumTooLarge,
                    &child_pointer(pointer, "enum"),
                    format!(
                        "`enum` lists {} values (limit max_enum_values = {})",
                        values.len(),
                        self.limits.max_enum_values
                    ),
                );
            }
        }
        if let Some(Value::String(p)) = map.get("pattern") {
            self.check_pattern(p, &child_pointer(pointer, "pattern"));
        }
        if let Some(Value::Object(pp)) = map.get("patternProperties") {
            let at = child_pointer(pointer, "patternProperties");
            for p in pp.keys() {
                self.check_pattern(p, &child_pointer(&at, p));
            }
        }
    }

    fn check_pattern(&mut self, p: &str, pointer: &str) {
        if p.chars().count() > self.limits.max_pattern_length {
            self.error(
                SchemaErrorKind::PatternTooLong,
                pointer,
                format!(
                    "pattern of {} characters (limit max_pattern_length = {})",
                    p.chars().count(),
                    self.limits.max_pattern_length
                ),
            );
            return;
        }
        let shape = pattern::shape(p);
        if shape.needs_backtracking && shape.nested_repetition {
            self.error(
                SchemaErrorKind::CatastrophicPattern,
                pointer,
                format!("pattern `{p}` needs the backtracking engine (look-around or back-reference) and repeats a group that itself repeats or alternates: exponential on a near-miss"),
            );
        } else if !shape.needs_backtracking {
            let built = regex::RegexBuilder::new(p).size_limit(self.limits.regex_size_limit).build();
            if let Err(regex::Error::CompiledTooBig(limit)) = built {
                self.error(
                    SchemaErrorKind::CatastrophicPattern,
                    pointer,
                    format!("pattern `{p}` compiles to more than {limit} bytes (limit regex_size_limit)"),
                );
            }
        }
    }

    /// Resolves a reference to a node of this document, when it points into it.
    fn resolve_ref(&self, base: &str, reference: &str) -> Option<usize> {
        let full = resolve(base, reference)?;
        let (resource, fragment) = match full.split_once('#') {
            Some((r, f)) => (r.to_owned(), f.to_owned()),
            None => (full.clone(), String::new()),
        };
        let root = *self.resources.get(&resource)?;
        if fragment.is_empty() {
            return Some(root);
        }
        if fragment.starts_with('/') {
            let decoded = percent_decode(&fragment);
            let target = self.nodes[root].value.pointer(&decoded)?;
            return self.by_address.get(&(target as *const Value)).copied();
        }
        self.anchors.get(&(resource, percent_decode(&fragment))).copied()
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Runs the static pass; errors carry pointers relative to the schema root.
pub(crate) fn analyze(schema: &Value, dialect: Dialect, limits: &Limits) -> Vec<SchemaError> {
    let mut w = Walker {
        dialect,
        limits,
        nodes: Vec::new(),
        by_address: HashMap::new(),
        resources: HashMap::new(),
        anchors: HashMap::new(),
        errors: Vec::new(),
        too_deep: false,
        too_many: false,
    };
    w.resources.insert(DEFAULT_BASE.to_owned(), 0);
    w.walk(schema);
    if w.too_deep || w.too_many || w.nodes.is_empty() {
        // The graph is incomplete; the limits already rejected the schema.
        return w.errors;
    }
    for id in 0..w.nodes.len() {
        let base = w.nodes[id].base.clone();
        let refs = std::mem::take(&mut w.nodes[id].refs);
        let resolved = refs.into_iter().map(|(k, r, _)| {
            // `$recursiveRef: "#"` and `$dynamicRef` start from the same place as `$ref`.
            let target = w.resolve_ref(&base, &r);
            (k, r, target)
        });
        let resolved: Vec<_> = resolved.collect();
        w.nodes[id].refs = resolved;
    }
    if let Some(e) = find_same_location_cycle(&w.nodes) {
        w.errors.push(e);
        return w.errors;
    }
    let steps = unfolded_cost(&w.nodes);
    if steps > limits.max_steps {
        w.errors.push(SchemaError::new(
            SchemaErrorKind::StepBudgetExceeded,
            "",
            format!(
                "one validation could evaluate {} subschemas at a single instance location (limit max_steps = {}): references unfold exponentially",
                if steps == u64::MAX { "more than 2^64".to_owned() } else { steps.to_string() },
                limits.max_steps
            ),
        ));
    }
    w.errors
}

/// An edge at the same instance location: (target, index of the `$ref` in `refs` when it is one).
type SameEdge = (usize, Option<usize>);

/// Edges evaluated at the same instance location: nested `Same` subschemas and resolved refs.
fn same_location_edges<'a>(node: &'a Node<'_>) -> impl Iterator<Item = SameEdge> + 'a {
    let nested = node.children.iter().filter(|(_, e)| *e == Edge::Same).map(|(c, _)| (*c, None));
    let refs = node.refs.iter().enumerate().filter_map(|(i, (_, _, t))| t.map(|t| (t, Some(i))));
    nested.chain(refs)
}

/// A cycle of `$ref`/applicators that never moves into the instance: validation would recurse
/// forever (or, in `jsonschema`, silently treat the loop as `true`).
fn find_same_location_cycle(nodes: &[Node<'_>]) -> Option<SchemaError> {
    // 0 = unvisited, 1 = on the stack, 2 = done. Iterative: ref chains can be long.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<SameEdge>)> = vec![(start, same_location_edges(&nodes[start]).collect())];
        state[start] = 1;
        while let Some((node, edges)) = stack.last_mut() {
            let node = *node;
            match edges.pop() {
                Some((next, via_ref)) => match state[next] {
                    0 => {
                        state[next] = 1;
                        let e = same_location_edges(&nodes[next]).collect();
                        stack.push((next, e));
                    }
                    1 => {
                        let (keyword, reference) = match via_ref {
                            Some(i) => (nodes[node].refs[i].0, nodes[node].refs[i].1.clone()),
                            None => ("$ref", String::new()),
                        };
                        let at = format!("{}/{keyword}", nodes[node].pointer);
                        let target = if nodes[next].pointer.is_empty() {
                            "#".to_owned()
                        } else {
                            format!("#{}", nodes[next].pointer)
                        };
                        return Some(SchemaError::new(
                            SchemaErrorKind::RefCycle,
                            &at,
                            format!("`{keyword}: {reference}` leads back to {target} without moving into the instance: validation would never end"),
                        ));
                    }
                    _ => {}
                },
                None => {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }
    None
}

/// Worst-case subschema evaluations for one instance path from the root, with references
/// unfolded and recursion through `Child` edges counted once (it is bounded by the instance).
fn unfolded_cost(nodes: &[Node<'_>]) -> u64 {
    let mut cost: Vec<Option<u64>> = vec![None; nodes.len()];
    let mut on_stack = vec![false; nodes.len()];
    let edges_of = |n: usize| -> Vec<usize> {
        let node = &nodes[n];
        let nested = node.children.iter().filter(|(_, e)| *e != Edge::Container).map(|(c, _)| *c);
        nested.chain(node.refs.iter().filter_map(|r| r.2)).collect()
    };
    let mut stack: Vec<(usize, Vec<usize>, u64)> = vec![(0, edges_of(0), 1)];
    on_stack[0] = true;
    while let Some((_, edges, acc)) = stack.last_mut() {
        match edges.pop() {
            Some(next) => {
                if let Some(c) = cost[next] {
                    *acc = acc.saturating_add(c);
                } else if on_stack[next] {
                    *acc = acc.saturating_add(1);
                } else {
                    on_stack[next] = true;
                    let e = edges_of(next);
                    stack.push((next, e, 1));
                }
            }
            None => {
                let (node, _, total) = stack.pop().unwrap_or((0, Vec::new(), 1));
                on_stack[node] = false;
                cost[node] = Some(total);
                if let Some((_, _, parent_acc)) = stack.last_mut() {
                    *parent_acc = parent_acc.saturating_add(total);
                }
            }
        }
    }
    cost[0].unwrap_or(1)
}
