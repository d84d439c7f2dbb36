//! Per-item lenient decoding of list results: one malformed tool in a `tools/list` result
//! should cost that tool, not the whole list.
//!
//! The lists are the paginated results of each revision (`tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`, and `tasks/list` in 2025-11-25): the results
//! whose definition has `nextCursor` and one required array of definitions, read from the
//! generated [`ResultShape`](crate::methods::ResultShape) table
//! ([`Revision::result_shape`]). Arrays whose items only mean something together —
//! `CallToolResult.content`, `GetPromptResult.messages` — are never thinned out.
//!
//! ```
//! use mcpgen::{Policy, Revision};
//!
//! let rev = Revision::parse("2026-07-28").unwrap();
//! let bytes = br#"{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[
//!     {"name":"ok","inputSchema":{"type":"object"}},
//!     {"name":"broken"},
//!     {"name":"fine","inputSchema":{"type":"object"}}]}"#;
//! // Without the option the whole result is refused …
//! assert!(rev.decode_result("tools/list", bytes, Policy::Lossless).is_err());
//! // … with it, the bad tool is skipped and said why.
//! let out = mcpgen::decode_result_skipping_invalid_items(rev, "tools/list", bytes, Policy::Lossless).unwrap();
//! assert_eq!(out.result.variant, "ListToolsResult");
//! assert_eq!(out.skipped.len(), 1);
//! assert_eq!(out.skipped[0].pointer, "/tools/1");
//! assert_eq!(out.skipped[0].errors[0].pointer, "/tools/1");
//! assert!(!out.result.value.to_json_string().contains("broken"));
//! ```

use crate::decode::{DecodeError, DecodedResult};
use crate::json::{JsonView, Kind, Tape, Value};
use crate::methods::ResultFor;
use crate::validate::{Cx, Options, Path, Policy, ValidationError};
use crate::Revision;

/// One list item that [`decode_result_skipping_invalid_items`] left out. Its `Display` is one
/// line: `skipped /tools/1: /tools/1: missing required property ...` (the CLI's stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedItem {
    /// JSON pointer of the item in the result as received (`/tools/1`).
    pub pointer: String,
    /// Its index in the array as received.
    pub index: usize,
    /// Why it is invalid: the item definition's validation errors, with pointers into the
    /// whole result (`/tools/1/inputSchema`).
    pub errors: Vec<ValidationError>,
}

impl std::fmt::Display for SkippedItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipped {}:", self.pointer)?;
        for (i, e) in self.errors.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            write!(f, "{sep}{}", e.to_string().replace('\n', " "))?;
        }
        Ok(())
    }
}

/// A result decoded with invalid list items left out.
#[derive(Debug)]
pub struct LenientResult {
    /// The result as [`Revision::decode_result`] decodes it, without the skipped items.
    pub result: DecodedResult,
    /// The items left out, in array order (empty when every item was valid, and for results
    /// that are not lists).
    pub skipped: Vec<SkippedItem>,
}

/// [`Revision::decode_result`], except that the invalid items of a list result are left out
/// and reported instead of failing the whole result. Everything else is checked as usual: a
/// result that is invalid outside its items, not a complete result (`input_required`, an
/// extension's `resultType`), or for a method that is not a list decodes exactly as
/// [`Revision::decode_result`] would (and fails where it fails), with nothing skipped.
pub fn decode_result_skipping_invalid_items(
    revision: Revision,
    request_method: &str,
    bytes: &[u8],
    policy: Policy,
) -> Result<LenientResult, DecodeError> {
    let tape = Tape::parse_bytes(bytes)?;
    decode_result_skipping_invalid_items_view(revision, request_method, &tape.root(), policy)
}

/// [`decode_result_skipping_invalid_items`] on any JSON view (a result inside a parsed
/// response, a Python object, `serde_json::Value`).
pub fn decode_result_skipping_invalid_items_view<'v, V: JsonView<'v>>(
    revision: Revision,
    request_method: &str,
    v: &V,
    policy: Policy,
) -> Result<LenientResult, DecodeError> {
    decode_result_for_skipping_invalid_items_view(revision, &ResultFor::method(request_method), v, policy)
}

/// [`decode_result_skipping_invalid_items_view`] for a result selected by the whole request
/// ([`ResultFor`]: task augmentation, negotiated extension `resultType`s), as
/// [`Revision::decode_result_for_view`] selects it.
pub fn decode_result_for_skipping_invalid_items_view<'v, V: JsonView<'v>>(
    revision: Revision,
    req: &ResultFor<'_>,
    v: &V,
    policy: Policy,
) -> Result<LenientResult, DecodeError> {
    let plain = |v: &V| {
        revision.decode_result_for_view(req, v, policy).map(|result| LenientResult { result, skipped: Vec::new() })
    };
    let Some(shape) = revision.result_shape(req.method) else { return plain(v) };
    let Some(list) = shape.list else { return plain(v) };
    // Only the method's complete result is a list; anything else (an error, `input_required`,
    // an extension's `resultType`, a task-augmented answer) fails or decodes exactly as
    // without the option.
    if !matches!(revision.result_definition(req, v), Ok(Some(def)) if def == shape.result_def) {
        return plain(v);
    }
    let Some(items) = v.get(list.key).filter(|a| a.kind() == Kind::Array) else { return plain(v) };
    // The options `decode_result` validates with, so an item kept here is an item it accepts.
    let mut opts = Options::decoding(policy);
    opts.client_leniency = true;
    let root = Path::Root;
    let at_key = root.key(list.key);
    let mut skipped = Vec::new();
    for (index, item) in items.items().enumerate() {
        let at = at_key.index(index);
        let valid = revision.validate_view(list.item_def, &item, &at, &mut Cx::fail_fast(opts));
        if valid != Some(false) {
            continue;
        }
        let mut cx = Cx::collecting(opts);
        revision.validate_view(list.item_def, &item, &at, &mut cx);
        skipped.push(SkippedItem { pointer: at.pointer(), index, errors: cx.into_errors() });
    }
    if skipped.is_empty() {
        return plain(v);
    }
    let mut thinned = v.to_value();
    if let Value::Object(m) = &mut thinned {
        if let Some(Value::Array(a)) = m.get_mut(list.key) {
            let mut index = 0;
            let mut next = skipped.iter().map(|s| s.index).peekable();
            a.retain(|_| {
                let skip = next.peek() == Some(&index);
                if skip {
                    next.next();
                }
                index += 1;
                !skip
            });
        }
    }
    let result = revision.decode_result_for_view(req, &&thinned, policy)?;
    Ok(LenientResult { result, skipped })
}
