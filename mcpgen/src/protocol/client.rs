//! Client side: checking responses ([`super::check_response`]) and era detection (ERA-2/3/5).

use crate::error_codes;
use crate::json::{JsonSource, JsonView, Kind, Tape, ViewFn};
use crate::rules::id;
use crate::validate::{Options, Path, Policy, ValidationError};
use crate::Revision;

use super::message::{self, int_literal, is_modern, read_id, IdRead};
use super::result_check::result_errors;
use super::rules::RuleWalk;
use super::{CheckedResponse, DetectedEra, ResponseError};

fn invalid(rule: Option<&'static str>, message: impl Into<String>) -> ResponseError {
    ResponseError::new(rule, message)
}

pub(crate) fn check_response<S: JsonSource + ?Sized>(
    revision: Revision,
    input: &S,
    options: &crate::ResultOptions<'_>,
) -> Result<CheckedResponse, ResponseError> {
    struct Run<'o, 'a> {
        revision: Revision,
        options: &'o crate::ResultOptions<'a>,
    }
    impl ViewFn for Run<'_, '_> {
        type Output = Result<CheckedResponse, ResponseError>;
        fn call<'v, V: JsonView<'v>>(self, v: &V) -> Self::Output {
            check_response_view(self.revision, v, self.options)
        }
    }
    input.read(Run { revision, options }).map_err(|e| invalid(e.rule(), format!("not JSON: {e}")))?
}

fn check_response_view<'v, V: JsonView<'v>>(
    revision: Revision,
    v: &V,
    options: &crate::ResultOptions<'_>,
) -> Result<CheckedResponse, ResponseError> {
    response_envelope(v)?;
    match (v.get("result"), v.get("error")) {
        (Some(_), Some(_)) => {
            Err(invalid(Some(id::MSG_2), "a response has exactly one of `result` and `error`, this one has both"))
        }
        (None, None) => Err(invalid(Some(id::MSG_2), "a response needs `result` or `error`")),
        (None, Some(err)) => error_response(v, &err),
        (Some(result), None) => result_response(revision, v, &result, options),
    }
}

/// A response is one JSON object (MSG-1, CORE-2), not a request or notification (MSG-5), with
/// `jsonrpc: "2.0"` (CORE-2).
#[inline]
fn response_envelope<'v, V: JsonView<'v>>(v: &V) -> Result<(), ResponseError> {
    match v.kind() {
        Kind::Object => {}
        Kind::Array => {
            return Err(invalid(Some(id::MSG_1), "a batch (array) is not a response; one message per line or POST"))
        }
        _ => {
            return Err(invalid(Some(id::CORE_2), format!("a response must be a JSON object, found {}", v.describe())))
        }
    }
    if v.get("method").is_some() {
        return Err(invalid(
            Some(id::MSG_5),
            "a request or notification, not a response (servers never send requests, MSG-5)",
        ));
    }
    if !v.get("jsonrpc").is_some_and(|j| j.str_eq("2.0")) {
        return Err(invalid(Some(id::CORE_2), "`jsonrpc` must be \"2.0\""));
    }
    Ok(())
}

/// An error response: its `id` (ID-3; `null` accepted, Q-17), then `error` (MSG-3) an object
/// with an integer `code` and a string `message`.
#[inline]
fn error_response<'v, V: JsonView<'v>>(v: &V, err: &V) -> Result<CheckedResponse, ResponseError> {
    // `"id": null` from generic JSON-RPC peers is accepted on receipt.
    let id = match read_id(v) {
        IdRead::Absent => None,
        IdRead::Valid(id) => Some(id),
        IdRead::Invalid(_) if v.get("id").is_some_and(|x| x.kind() == Kind::Null) => None,
        IdRead::Invalid(msg) => return Err(invalid(Some(id::ID_3), msg)),
    };
    if err.kind() != Kind::Object {
        return Err(invalid(Some(id::MSG_3), format!("`error` must be an object, found {}", err.describe())));
    }
    let code = err.get("code").ok_or_else(|| invalid(Some(id::MSG_3), "`error.code` is missing"))?;
    let code = int_literal(&code).ok_or_else(|| {
        invalid(Some(id::MSG_3), format!("`error.code` must be an integer, found {}", code.describe()))
    })?;
    let message = match err.get("message") {
        Some(m) => m
            .as_str()
            .ok_or_else(|| {
                invalid(Some(id::MSG_3), format!("`error.message` must be a string, found {}", m.describe()))
            })?
            .into_owned(),
        None => return Err(invalid(Some(id::MSG_3), "`error.message` is missing")),
    };
    let data = err.get("data").map(|d| d.to_value());
    Ok(CheckedResponse::Error { id, code, message, data })
}

/// A result response: it echoes the request `id` (ID-3), its `result` is an object without
/// duplicate `inputRequests` keys (MRTR-4), decoded as the request's result (by an extension
/// when one claims it).
#[inline]
fn result_response<'v, V: JsonView<'v>>(
    revision: Revision,
    v: &V,
    result: &V,
    options: &crate::ResultOptions<'_>,
) -> Result<CheckedResponse, ResponseError> {
    let id = match read_id(v) {
        IdRead::Valid(id) => id,
        IdRead::Absent => return Err(invalid(Some(id::ID_3), "a result response must echo the request `id`")),
        IdRead::Invalid(msg) => return Err(invalid(Some(id::ID_3), msg)),
    };
    if result.kind() != Kind::Object {
        return Err(invalid(None, format!("`result` must be an object, found {}", result.describe())));
    }
    duplicate_input_requests(revision, v, result)?;
    let req = options.request;
    let decoded = match super::hook::decode_by_extension(revision, options, result) {
        Some(owned) => owned,
        None => revision.decode_result_view(&req, result, options.policy),
    };
    match decoded {
        Ok(result) => Ok(CheckedResponse::Result { id, result }),
        Err(e) => Err(refused_result(e, options.request.method)),
    }
}

/// MRTR-4 (duplicate `inputRequests` keys) is read from the text, before decoding keeps the
/// last of each.
#[inline]
fn duplicate_input_requests<'v, V: JsonView<'v>>(revision: Revision, v: &V, result: &V) -> Result<(), ResponseError> {
    if revision.results_have_result_type() && result.get("resultType").is_some_and(|r| r.str_eq("input_required")) {
        let mut walk = RuleWalk { errors: Vec::new(), strict: false };
        walk.walk(v, &Path::Root);
        let errors: Vec<_> = walk.errors.into_iter().filter(|e| e.rule == Some(id::MRTR_4)).collect();
        if let Some(first) = errors.first() {
            return Err(ResponseError { rule: first.rule, message: first.message.clone(), errors });
        }
    }
    Ok(())
}

/// The refusal of a result that does not decode as `request_method`'s: the first error's
/// message (with its rule) and every error, pointing into `/result`.
fn refused_result(e: crate::decode::DecodeError, request_method: &str) -> ResponseError {
    let mut errors = result_errors(e, request_method);
    let message = match errors.first() {
        Some(first) if first.rule.is_some() => first.message.clone(),
        Some(first) => format!("the result does not match `{request_method}`'s result: {first}"),
        None => "the result was refused without an error (mcpgen bug)".into(),
    };
    let rule = errors.first().and_then(|e| e.rule);
    for e in &mut errors {
        prefix_pointer(e, "/result");
    }
    ResponseError { rule, message, errors }
}

fn prefix_pointer(e: &mut ValidationError, prefix: &str) {
    e.pointer.insert_str(0, prefix);
    for arm in &mut e.arms {
        for x in &mut arm.errors {
            prefix_pointer(x, prefix);
        }
    }
}

/// AMB-7: a recognized modern error is -32020, -32021 or -32022 whose response is schema-valid
/// under a modern revision of this build. Returns the versions a -32022 names.
fn recognized_modern_error<'v, V: JsonView<'v>>(v: &V) -> Option<Vec<String>> {
    let code = int_literal(&v.get("error")?.get("code")?)?;
    if !matches!(code, error_codes::UNSUPPORTED_PROTOCOL_VERSION_ERROR..=error_codes::HEADER_MISMATCH_ERROR) {
        return None;
    }
    let opts = Options::decoding(Policy::Lossless);
    let valid = Revision::all().into_iter().filter(|r| is_modern(*r)).any(|rev| {
        message::error_def(rev, code).is_some_and(|d| {
            let mut errors = Vec::new();
            message::validate_def_at(rev, d.def, v, &Path::Root, opts, &mut errors)
        })
    });
    if !valid {
        return None;
    }
    Some(string_list(v.get("error").and_then(|e| e.get("data")).and_then(|d| d.get("supported"))))
}

fn string_list<'v, V: JsonView<'v>>(v: Option<V>) -> Vec<String> {
    v.map(|a| a.items().filter_map(|x| x.as_str().map(|s| s.into_owned())).collect()).unwrap_or_default()
}

pub(crate) fn detect_era_from_probe(response: Option<&[u8]>) -> DetectedEra {
    let Some(bytes) = response else { return DetectedEra::Legacy };
    let Ok(tape) = Tape::parse_bytes(bytes) else { return DetectedEra::Legacy };
    let v = tape.root();
    if v.get("error").is_none() {
        // A DiscoverResult: recognized by its `supportedVersions` list of strings.
        if let Some(sv) = v.get("result").and_then(|r| r.get("supportedVersions")) {
            if sv.kind() == Kind::Array && sv.items().all(|x| x.kind() == Kind::String) {
                return DetectedEra::Modern { supported: string_list(Some(sv)) };
            }
        }
        return DetectedEra::Legacy;
    }
    match recognized_modern_error(&v) {
        Some(supported) => DetectedEra::Modern { supported },
        None => DetectedEra::Legacy,
    }
}

pub(crate) fn detect_era_from_http_400(body: &[u8]) -> DetectedEra {
    let Ok(tape) = Tape::parse_bytes(body) else { return DetectedEra::Legacy };
    match recognized_modern_error(&tape.root()) {
        Some(supported) => DetectedEra::Modern { supported },
        None => DetectedEra::Legacy,
    }
}
