//! The one walker over a JSON value that every depth-bounded pass of this module uses: the
//! parser-depth check of a tool or schema ([`too_deep_error`]), the instance-depth check at
//! validation ([`first_value_deeper`]), the `$ref` locations of a schema ([`ref_locations`]),
//! and the static pass over subschemas (`analyze`, through its own [`Tree`]).
//!
//! The walk is iterative (an explicit stack, never recursion: the value may be hostile), in
//! document order, pre-order, and keeps the path as segments, so a JSON pointer is rendered
//! only where a pass asks for one.

use serde_json::Value;

use super::errors::{SchemaError, SchemaErrorKind};
use super::limits::MAX_JSON_DEPTH;

/// One step of a path: a member name or an array index.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Segment<'v> {
    Key(&'v str),
    Index(usize),
}

/// Appends `segment` to a JSON pointer (RFC 6901 escapes).
pub(crate) fn push_segment(pointer: &mut String, segment: Segment<'_>) {
    pointer.push('/');
    match segment {
        Segment::Index(i) => pointer.push_str(&i.to_string()),
        Segment::Key(k) => {
            let mut rest = k;
            while let Some(i) = rest.find(['~', '/']) {
                pointer.push_str(&rest[..i]);
                pointer.push_str(if rest.as_bytes()[i] == b'~' { "~0" } else { "~1" });
                rest = &rest[i + 1..];
            }
            pointer.push_str(rest);
        }
    }
}

/// A JSON pointer from segments.
pub(crate) fn render(path: &[Segment<'_>]) -> String {
    let mut out = String::new();
    for s in path {
        push_segment(&mut out, *s);
    }
    out
}

/// A child of a node: the one or two segments that lead to it, the value, and how the tree
/// relates it to its parent.
pub(crate) struct Child<'v, E> {
    pub first: Segment<'v>,
    pub second: Option<Segment<'v>>,
    pub value: &'v Value,
    pub edge: E,
}

/// What the children of a node are: every member and item ([`JsonTree`]), or only the
/// subschemas of a schema.
pub(crate) trait Tree<'v> {
    type Edge: Copy;
    type Children: Iterator<Item = Child<'v, Self::Edge>>;
    fn children(&self, node: &'v Value) -> Self::Children;
}

/// Every array item and object member.
pub(crate) struct JsonTree;

pub(crate) enum JsonChildren<'v> {
    None,
    Array(std::iter::Enumerate<std::slice::Iter<'v, Value>>),
    Object(serde_json::map::Iter<'v>),
}

impl<'v> Iterator for JsonChildren<'v> {
    type Item = Child<'v, ()>;
    fn next(&mut self) -> Option<Child<'v, ()>> {
        let (first, value) = match self {
            JsonChildren::None => return None,
            JsonChildren::Array(items) => items.next().map(|(i, x)| (Segment::Index(i), x))?,
            JsonChildren::Object(entries) => entries.next().map(|(k, x)| (Segment::Key(k.as_str()), x))?,
        };
        Some(Child { first, second: None, value, edge: () })
    }
}

impl<'v> Tree<'v> for JsonTree {
    type Edge = ();
    type Children = JsonChildren<'v>;
    fn children(&self, node: &'v Value) -> JsonChildren<'v> {
        match node {
            Value::Array(items) => JsonChildren::Array(items.iter().enumerate()),
            Value::Object(map) => JsonChildren::Object(map.iter()),
            _ => JsonChildren::None,
        }
    }
}

/// One node as the walk meets it.
pub(crate) struct Visit<'a, 'v, E, S> {
    pub value: &'v Value,
    /// 0 at the root; one more per step of the tree.
    pub depth: usize,
    /// How the parent holds it (`None` at the root).
    pub edge: Option<E>,
    /// What the visit of the parent returned.
    pub parent: Option<&'a S>,
    path: &'a [Segment<'v>],
}

impl<E, S> Visit<'_, '_, E, S> {
    /// The JSON pointer of the node from the root of the walk.
    pub fn pointer(&self) -> String {
        render(self.path)
    }
}

/// What the walk does after a visit.
pub(crate) enum Step<S> {
    /// Visit the node's children; `S` is what they see as their parent's state.
    Descend(S),
    /// Leave the node's children out.
    Skip,
    /// End the walk.
    Stop,
}

struct Frame<'v, S, C> {
    state: S,
    children: C,
    path_len: usize,
    _v: std::marker::PhantomData<&'v ()>,
}

/// Walks `root` in document order (pre-order), calling `visit` on every node the tree reaches.
/// Returns `true` when a visit stopped the walk.
pub(crate) fn walk<'v, T: Tree<'v>, S>(
    root: &'v Value,
    tree: &T,
    mut visit: impl FnMut(Visit<'_, 'v, T::Edge, S>) -> Step<S>,
) -> bool {
    let mut path: Vec<Segment<'v>> = Vec::new();
    let state = match visit(Visit { value: root, depth: 0, edge: None, parent: None, path: &path }) {
        Step::Stop => return true,
        Step::Skip => return false,
        Step::Descend(s) => s,
    };
    let mut stack = vec![Frame { state, children: tree.children(root), path_len: 0, _v: std::marker::PhantomData }];
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else { break };
        let Some(child) = frame.children.next() else {
            stack.pop();
            continue;
        };
        path.truncate(frame.path_len);
        path.push(child.first);
        path.extend(child.second);
        let step =
            visit(Visit { value: child.value, depth, edge: Some(child.edge), parent: Some(&frame.state), path: &path });
        match step {
            Step::Stop => return true,
            Step::Skip => {}
            Step::Descend(state) => stack.push(Frame {
                state,
                children: tree.children(child.value),
                path_len: path.len(),
                _v: std::marker::PhantomData,
            }),
        }
    }
    false
}

/// The pointer of the first node (document order) for which `past` holds, its subtree left
/// unvisited otherwise.
fn first_where(v: &Value, mut past: impl FnMut(&Value, usize) -> bool) -> Option<String> {
    let mut found = None;
    walk(v, &JsonTree, |node: Visit<'_, '_, (), ()>| {
        if past(node.value, node.depth) {
            found = Some(node.pointer());
            return Step::Stop;
        }
        Step::Descend(())
    });
    found
}

/// The first array or object nested inside `max` others (`max` = 128: the 129th level).
pub(crate) fn first_container_nested_in(v: &Value, max: usize) -> Option<String> {
    first_where(v, |node, depth| matches!(node, Value::Array(_) | Value::Object(_)) && depth >= max)
}

/// The first value (of any type) deeper than `max` (the root is at depth 0).
pub(crate) fn first_value_deeper(v: &Value, max: usize) -> Option<String> {
    first_where(v, |_, depth| depth > max)
}

/// [`MAX_JSON_DEPTH`]: the `too_deep` error of a value nested deeper than the parser reads.
pub(crate) fn too_deep_error(v: &Value) -> Option<SchemaError> {
    first_container_nested_in(v, MAX_JSON_DEPTH).map(|pointer| {
        SchemaError::new(
            SchemaErrorKind::TooDeep,
            &pointer,
            format!("arrays and objects nested deeper than {MAX_JSON_DEPTH} levels (the JSON parser's limit)"),
        )
    })
}

/// Every `$ref` / `$dynamicRef` of the schema in document order: (pointer to the keyword, text).
pub(crate) fn ref_locations(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(schema, &JsonTree, |node: Visit<'_, '_, (), ()>| {
        if let Value::Object(map) = node.value {
            for key in ["$ref", "$dynamicRef"] {
                if let Some(Value::String(r)) = map.get(key) {
                    let mut at = node.pointer();
                    push_segment(&mut at, Segment::Key(key));
                    out.push((at, r.clone()));
                }
            }
        }
        Step::Descend(())
    });
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn depth_checks_report_the_first_location_in_document_order() {
        let v = json!({"a": [1, [2]], "b": [[[3]]], "c/~": {"d": {}}});
        // Containers nested inside 2 others: `/a/1` is inside the root and `a`.
        assert_eq!(first_container_nested_in(&v, 2).as_deref(), Some("/a/1"));
        assert_eq!(first_container_nested_in(&v, 3).as_deref(), Some("/b/0/0"));
        assert_eq!(first_container_nested_in(&v, 0).as_deref(), Some(""));
        assert_eq!(first_container_nested_in(&v, 4), None);
        // Any value deeper than 2: `2` inside `/a/1` is at depth 3.
        assert_eq!(first_value_deeper(&v, 2).as_deref(), Some("/a/1/0"));
        assert_eq!(first_value_deeper(&v, 3).as_deref(), Some("/b/0/0/0"));
        assert_eq!(first_value_deeper(&json!({"c/~": {"d": {"e": 1}}}), 2).as_deref(), Some("/c~1~0/d/e"));
        assert_eq!(first_value_deeper(&v, 4), None);
    }

    #[test]
    fn a_deep_value_does_not_overflow_the_stack() {
        let mut v = json!(0);
        for _ in 0..200_000 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(first_value_deeper(&v, 199_999).map(|p| p.len()), Some(2 * 200_000));
        assert!(ref_locations(&v).is_empty());
        // serde_json's own drop of this value recurses; take it apart here.
        let mut stack = vec![v];
        while let Some(mut x) = stack.pop() {
            if let Value::Array(items) = &mut x {
                stack.append(items);
            }
        }
    }

    #[test]
    fn references_in_document_order() {
        let schema = json!({"$ref": "#/a", "x": [{"$dynamicRef": "#b"}, {"$ref": "c", "$dynamicRef": "d"}]});
        assert_eq!(
            ref_locations(&schema),
            [
                ("/$ref".to_owned(), "#/a".to_owned()),
                ("/x/0/$dynamicRef".to_owned(), "#b".to_owned()),
                ("/x/1/$ref".to_owned(), "c".to_owned()),
                ("/x/1/$dynamicRef".to_owned(), "d".to_owned()),
            ]
        );
    }
}
