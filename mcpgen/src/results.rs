//! [`decode_result`]: the one way to decode a result, by the request it answers, with
//! [`ResultOptions`](crate::ResultOptions) (policy, task augmentation, negotiated extension `resultType`s, and leaving
//! out the invalid items of a list result).

use crate::decode::{DecodeError, DecodedResult, SkippedItem};
use crate::json::{JsonSource, JsonView, Kind, Value, ViewFn};
use crate::methods::ResultFor;
use crate::validate::{Cx, Options, Path, Policy};
use crate::{ResultOptions, Revision};

/// Decodes a result by the request it answers, from JSON text (`&[u8]`, `&str`, …) or any JSON
/// view (a result inside a parsed response, a `&serde_json::Value`, Python objects).
///
/// `resultType` first, then the method and task augmentation
/// ([`Revision::result_definition`]): a method the revision does not have (unknown, or removed
/// in it) is [`DecodeError::UnknownMethod`] (MSG-9), an unknown `resultType` RESULT-3 (a
/// negotiated extension's is kept raw, variant `Raw`), an `input_required` result RESULT-5 /
/// MRTR-3 where they apply. Client leniency is on: a result without `resultType` reads as
/// `complete` (RESULT-2), absent `ttlMs`/`cacheScope` and a negative `ttlMs` are tolerated
/// (CACHE-3); none of them is invented on re-encode. The value is the revision's `MethodResult`
/// ([`DecodedResult::downcast_ref`]).
///
/// With [`ResultOptions::skip_invalid_items`], one malformed tool costs that tool, not the whole
/// `tools/list`: the lists are the paginated results of each revision (`tools/list`,
/// `prompts/list`, `resources/list`, `resources/templates/list`, and `tasks/list` in
/// 2025-11-25, from the generated [`Revision::result_shape`] table); items are judged as the
/// plain call judges them, and everything outside them is checked as usual (a result invalid
/// elsewhere, an `input_required` answer, a method that is not a list decode or fail exactly
/// as without the option). Arrays whose items only mean something together
/// (`CallToolResult.content`) are never thinned out.
///
/// ```
/// use mcpgen::rev_2026_07_28::MethodResult;
/// use mcpgen::{Revision, ResultOptions};
///
/// let rev = Revision::parse("2026-07-28").unwrap();
/// let bytes = br#"{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[
///     {"name":"ok","inputSchema":{"type":"object"}},
///     {"name":"broken"},
///     {"name":"fine","inputSchema":{"type":"object"}}]}"#;
/// // Without the option the whole result is refused …
/// assert!(mcpgen::decode_result(rev, bytes, &ResultOptions::method("tools/list")).is_err());
/// // … with it, the bad tool is skipped and said why.
/// let opts = ResultOptions::method("tools/list").skip_invalid_items(true);
/// let out = mcpgen::decode_result(rev, bytes, &opts).unwrap();
/// assert_eq!(out.variant, "ListToolsResult");
/// assert_eq!(out.skipped.len(), 1);
/// assert_eq!(out.skipped[0].pointer, "/tools/1");
/// assert_eq!(out.skipped[0].errors[0].pointer, "/tools/1");
/// match out.downcast_ref::<MethodResult>() {
///     Some(MethodResult::ListToolsResult(list)) => assert_eq!(list.tools.len(), 2),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn decode_result<S: JsonSource + ?Sized>(
    revision: Revision,
    input: &S,
    options: &ResultOptions<'_>,
) -> Result<DecodedResult, DecodeError> {
    struct Run<'o, 'a> {
        revision: Revision,
        options: &'o ResultOptions<'a>,
    }
    impl ViewFn for Run<'_, '_> {
        type Output = Result<DecodedResult, DecodeError>;
        fn call<'v, V: JsonView<'v>>(self, v: &V) -> Self::Output {
            let (revision, o) = (self.revision, self.options);
            if let Some(owned) = crate::protocol::hook::decode_by_extension(revision, o, v) {
                return owned;
            }
            if o.skip_invalid_items {
                skipping_invalid_items(revision, &o.request, v, o.policy)
            } else {
                revision.decode_result_view(&o.request, v, o.policy)
            }
        }
    }
    input.read(Run { revision, options })?
}

/// The result decoded with the invalid items of its list left out.
fn skipping_invalid_items<'v, V: JsonView<'v>>(
    revision: Revision,
    req: &ResultFor<'_>,
    v: &V,
    policy: Policy,
) -> Result<DecodedResult, DecodeError> {
    let plain = |v: &V| revision.decode_result_view(req, v, policy);
    let Some(shape) = revision.result_shape(req.method) else { return plain(v) };
    let Some(list) = shape.list else { return plain(v) };
    // Only the method's complete result is a list; anything else (an error, `input_required`,
    // an extension's `resultType`, a task-augmented answer) fails or decodes exactly as
    // without the option.
    if !matches!(revision.result_definition(req, v), Ok(Some(def)) if def == shape.result_def) {
        return plain(v);
    }
    let Some(items) = v.get(list.key).filter(|a| a.kind() == Kind::Array) else { return plain(v) };
    // The options the plain decode validates with, so an item kept here is an item it accepts.
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
        skipped.push(SkippedItem::new(at.pointer(), index, cx.into_errors()));
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
    let mut result = revision.decode_result_view(req, &&thinned, policy)?;
    result.skipped = skipped;
    Ok(result)
}
