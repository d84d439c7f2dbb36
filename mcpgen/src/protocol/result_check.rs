//! The method row of a name and the check of a result against the request it answers: what
//! the message and response checks and the extensions share (a leaf below them, so a result an
//! extension carries inside its own, such as a completed task's, is judged by the same check as
//! any other result).

use crate::decode::DecodeError;
use crate::json::JsonView;
use crate::methods::{MethodInfo, ResultFor};
use crate::rules::id;
use crate::validate::{Options, ValidationError};
use crate::Revision;

use super::rules;

/// The revision's method row of `method` (the core's table; extension rows are looked up by
/// the extension).
pub(crate) fn find_method(rev: Revision, method: &str) -> Option<&'static MethodInfo> {
    rev.methods().iter().find(|m| m.method == method)
}

/// A result's refusal by [`Revision::result_definition`] or its definition, as errors with
/// pointers relative to the result (one verdict for `check_response` and the conversation
/// checker).
pub(crate) fn result_errors(e: DecodeError, request_method: &str) -> Vec<ValidationError> {
    match e {
        DecodeError::Protocol { .. } => e.errors().into_owned(),
        DecodeError::Invalid(errors) => errors,
        // Pointers here are into the result, which an unknown method leaves unreadable as a
        // whole (`DecodeError::errors` names the request's `/method` instead).
        DecodeError::UnknownMethod { revision, method, .. } => vec![rules::rule_error(
            String::new(),
            "enum",
            id::MSG_9,
            format!("`{method}` is not a method of revision {revision} (unknown, or removed in it), so no result answers it"),
        )],
        other => vec![rules::rule_error(String::new(), "", id::SCHEMA, format!("`{request_method}`: {other}"))],
    }
}

/// The conversation checker's result check: the definition [`Revision::result_definition`]
/// selects (here from the request's method row, which the checker holds), validated (fail-fast
/// first) with the client leniency of `decode_result`; errors point into the result. No typed
/// value is built. `Ok` names the definition (`None` for a negotiated extension's `resultType`).
pub(crate) fn check_result_view<'v, V: JsonView<'v>>(
    revision: Revision,
    info: &'static MethodInfo,
    req: &ResultFor<'_>,
    result: &V,
    opts: Options,
) -> Result<Option<&'static str>, Vec<ValidationError>> {
    let has_result_type = revision.results_have_result_type();
    let def = match crate::methods::result_definition(result, req, Some(info), revision.as_str(), has_result_type) {
        Ok(Some(def)) => def,
        Ok(None) => return Ok(None),
        Err(e) => return Err(result_errors(e, req.method)),
    };
    // As `decode_result`: client leniency and the `resultType` discriminator.
    let mut opts = opts;
    opts.client_leniency = true;
    opts.discriminate_results = true;
    match crate::validate_view(revision, def, result, opts) {
        Ok(()) => Ok(Some(def)),
        Err(e) => Err(result_errors(e, req.method)),
    }
}
