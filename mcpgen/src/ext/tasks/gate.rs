//! What a server serving the extension accepts and refuses (`check_request`'s gate): its
//! requests need the request's own declaration (TASK-24), as do task notifications on a listen
//! stream (TASK-23); a declared request is validated and built from the extension's
//! definitions.

// The refusal carries everything needed for the reply, as `check_request` returns it (see
// protocol.rs).
#![allow(clippy::result_large_err)]

use crate::error_codes;
use crate::json::{JsonView, Value};
use crate::methods::{MethodInfo, MethodKind};
use crate::protocol::{invalid_params, AcceptedRequest, ProtocolError};
use crate::rules::id;
use crate::validate::{Options, Policy, ValidationError};
use crate::Revision;

use super::{extension, missing_extension_error, request_declares, rules, EXTENSION_ID};

/// `Some` when the request is the extension's: accepted (built from its definitions) or
/// refused with -32021.
pub(super) fn gate<'v, V: JsonView<'v>>(
    rev: Revision,
    method: &str,
    v: &V,
    id: &Value,
) -> Option<Result<AcceptedRequest, ProtocolError>> {
    if let Some(info) = rules::row(rev, method).filter(|i| i.kind == MethodKind::Request) {
        if !request_declares(v) {
            let mut e = missing_extension_error(Some(id.clone()));
            e.rule = id::TASK_24;
            e.message = format!(
                "Missing required client capability: `{method}` needs `{EXTENSION_ID}` declared in this request's `_meta` client capabilities (`extensions`)"
            );
            return Some(Err(e));
        }
        return Some(decode_ext_request(rev, info, v, id.clone()));
    }
    if method == "subscriptions/listen" && !request_declares(v) {
        let task_ids = v.get("params").and_then(|p| p.get("notifications")).and_then(|n| n.get("taskIds"));
        if task_ids.is_some() {
            let mut e = missing_extension_error(Some(id.clone()));
            e.rule = id::TASK_23;
            e.message = format!(
                "Missing required client capability: task status notifications (`notifications.taskIds`) need `{EXTENSION_ID}` declared in this request's `_meta` client capabilities"
            );
            return Some(Err(e));
        }
    }
    None
}

/// The `inputResponses` keys every error is inside (`/params/inputResponses/<key>/…`), or
/// `None` when an error is elsewhere.
fn input_response_keys(errors: &[ValidationError]) -> Option<Vec<String>> {
    let mut keys: Vec<String> = Vec::new();
    for e in errors {
        let rest = e.pointer.strip_prefix("/params/inputResponses/")?;
        let token = rest.split('/').next().unwrap_or(rest);
        let key = crate::json::pointer::unescape(token).into_owned();
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    Some(keys)
}

/// An extension request: validated and built from the extension's definitions.
fn decode_ext_request<'v, V: JsonView<'v>>(
    rev: Revision,
    info: &MethodInfo,
    v: &V,
    id: Value,
) -> Result<AcceptedRequest, ProtocolError> {
    let opts = Options::decoding(Policy::Lossless);
    let mut errors = Vec::new();
    rules::validate_message_of_row(info, v, v.get("params").as_ref(), opts, &mut errors);
    // `tasks/update`: an `inputResponses` entry is judged against the request its key names,
    // which only the server holding the task knows; one for a key that is not outstanding is
    // ignored (TASK-19). Entries that fail the schema are set aside, not refused here.
    let mut set_aside = Vec::new();
    let mut without = None;
    if !errors.is_empty() && info.method == "tasks/update" {
        if let Some(keys) = input_response_keys(&errors) {
            let mut m = v.to_value();
            if let Value::Object(msg) = &mut m {
                if let Some(Value::Object(params)) = msg.get_mut("params") {
                    if let Some(Value::Object(responses)) = params.get_mut("inputResponses") {
                        for k in &keys {
                            while responses.remove(k).is_some() {}
                        }
                    }
                }
            }
            let mut again = Vec::new();
            let stripped = &m;
            rules::validate_message_of_row(info, &stripped, stripped.get("params").as_ref(), opts, &mut again);
            if again.is_empty() {
                errors.clear();
                set_aside = keys;
                without = Some(m);
            }
        }
    }
    if !errors.is_empty() {
        return Err(invalid_params(info.method, errors, Some(id), 200));
    }
    let ext = extension();
    let built = match &without {
        Some(m) => ext.map(|e| crate::ext::decode_view(e, info.request_def, &m, Policy::Lossless)),
        None => ext.map(|e| crate::ext::decode_view(e, info.request_def, v, Policy::Lossless)),
    };
    match built {
        Some(Ok(request)) => Ok(AcceptedRequest {
            revision: rev,
            method: info.method.to_owned(),
            id: Some(id),
            legacy: false,
            request,
            extension: ext,
            set_aside_input_responses: set_aside,
        }),
        _ => Err(ProtocolError::new(
            error_codes::INTERNAL_ERROR,
            format!("Internal error: `{}` validated but could not be built", info.request_def),
            Some(id),
            500,
            id::ERR_1,
        )),
    }
}
