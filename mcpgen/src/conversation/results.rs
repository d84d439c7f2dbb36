//! Results by request: a result checked against the definition its request selects (method,
//! task augmentation, revision, negotiated `resultType`s), and the pages of one list
//! (CACHE-6).

use crate::rules::id;
use std::borrow::Cow;

use crate::json::JsonView;
use crate::methods::{MethodInfo, ResultFor};

use super::finding::{rule_finding, validation_finding, Finding};
use super::keys::Text;
use super::options::ConversationOptions;
use super::state::{Pending, Session, Table};

/// What the result check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The result does not match its request (reported).
    Invalid,
    /// A valid `input_required` result: the MRTR family takes it from here.
    InputRequired,
    /// A valid complete result.
    Complete,
}

/// The result checked against its request's definition; errors point into `/result`.
pub(super) fn check<'v, V: JsonView<'v>>(
    opts: &ConversationOptions,
    info: &'static MethodInfo,
    p: &Pending,
    result: &V,
    out: &mut Vec<Finding>,
) -> Verdict {
    let ext: Vec<&str> = opts.extension_result_types.iter().map(String::as_str).collect();
    let req = ResultFor { method: info.method, task_augmented: p.task, extension_result_types: &ext };
    match crate::protocol::check_result_view(p.rev, info, &req, result, opts.validation) {
        // `result_definition` selects `InputRequiredResult` exactly for a valid `input_required`.
        Ok(Some("InputRequiredResult")) => Verdict::InputRequired,
        Ok(_) => Verdict::Complete,
        Err(errors) => {
            for mut e in errors {
                e.pointer.insert_str(0, "/result");
                // Per-message validation already reports some (MRTR-3 of `input_required`).
                if !out.iter().any(|f| f.rule == e.rule && f.pointer == e.pointer && f.message == e.message) {
                    out.push(validation_finding(e));
                }
            }
            Verdict::Invalid
        }
    }
}

/// A request for a later page (`params.cursor`): the `cacheScope` of the page that gave the
/// cursor, which the answer must repeat.
pub(super) fn page_scope(
    s: &mut Session,
    info: Option<&MethodInfo>,
    cursor: Option<Cow<'_, str>>,
) -> Option<Option<Text>> {
    match (info, cursor) {
        (Some(i), Some(c)) => s.cursors.remove(&(i.method, Text::new(&c))),
        _ => None,
    }
}

/// CACHE-6: every page of one list has the same `cacheScope`; a `nextCursor` is remembered with
/// the scope of its page.
pub(super) fn pages<'v, V: JsonView<'v>>(
    s: &mut Session,
    info: &MethodInfo,
    p: &Pending,
    result: &V,
    out: &mut Vec<Finding>,
) {
    // Only lists have cursors.
    if !info.method.ends_with("/list") {
        return;
    }
    let scope = result.get("cacheScope").and_then(|c| c.as_str());
    if let Some(expected) = &p.page_scope {
        let same = match (expected, &scope) {
            (Some(e), Some(s)) => e.is(s),
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.push(rule_finding(
                id::CACHE_6,
                "/result/cacheScope",
                "const",
                format!(
                    "this page's `cacheScope` ({}) differs from the page that gave its cursor ({}); all pages of one list use the same",
                    scope.as_deref().unwrap_or("absent"),
                    expected.as_ref().map_or("absent".into(), |e| e.shown())
                ),
            ));
        }
    }
    if let Some(next) = result.get("nextCursor").and_then(|c| c.as_str()) {
        let page = (info.method, Text::new(&next));
        if let Some(((method, _), _)) = s.cursors.insert(page, scope.as_deref().map(Text::new)) {
            let cap = s.cursors.cap();
            s.capped(
                Table::Cursors,
                format_args!(
                    "more than {cap} list cursors are remembered; the oldest (of `{method}`) is forgotten, so the cacheScope of its next page is not checked (CACHE-6)"
                ),
                out,
            );
        }
    }
}
