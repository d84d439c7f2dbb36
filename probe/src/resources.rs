//! Resources: `resources/read` for each listed resource (at most
//! [`super::ProbeOptions::max_items`]), judged by the conversation checker; one read of a URI
//! no server serves ([`UNKNOWN_URI`]), whose right answer is -32602 (RES-1; a legacy server may
//! still answer the retired -32002, which clients read as "not found", ERR-5; a modern one
//! sending it is the checker's ERR-4); and, in a legacy session whose server declares
//! `resources.subscribe`, `resources/subscribe` and `resources/unsubscribe` of the first
//! resource (2026-07-28 removed both for `subscriptions/listen`).

use serde_json::{json, Value};

use mcpgen::conversation::{Conversation, Level};
use mcpgen::error_codes::INVALID_PARAMS_ERROR;
use mcpgen::rules::id;

use super::Run;

/// A URI the probe reads to see how a missing resource is refused.
pub const UNKNOWN_URI: &str = "mcpgen-probe://unknown/resource";

/// The retired "resource not found" code of the legacy revisions.
const LEGACY_NOT_FOUND: i64 = -32002;

/// Every read of one session, as the module says.
pub(super) fn run(r: &mut Run<'_>, conv: &mut Conversation, resources: &[Value], caps: &Value, modern: bool) {
    if !caps.get("resources").is_some_and(Value::is_object) {
        return;
    }
    let uris: Vec<String> = resources
        .iter()
        .filter_map(|res| res.get("uri").and_then(Value::as_str).map(str::to_owned))
        .take(r.opts.max_items)
        .collect();
    for uri in &uris {
        read(r, conv, "resource/read", uri, modern);
    }
    let check = "resource/unknown";
    if let Some(answer) = read(r, conv, check, UNKNOWN_URI, modern) {
        let at = r.last_exchange();
        let problem = match answer.pointer("/error/code").and_then(Value::as_i64) {
            Some(INVALID_PARAMS_ERROR) => None,
            // Legacy: still read as "not found" (ERR-5); modern: the checker's ERR-4.
            Some(LEGACY_NOT_FOUND) => None,
            Some(code) => {
                Some(("/error/code", format!("answered {code} for a resource that does not exist; -32602 is due")))
            }
            None => {
                answer.pointer("/result/contents").and_then(Value::as_array).is_some_and(Vec::is_empty).then(|| {
                    ("/result/contents", "an empty `contents` for a resource that does not exist; -32602 is due".into())
                })
            }
        };
        if let Some((pointer, message)) = problem {
            r.finding(check, Some(id::RES_1), Level::Error, pointer, message, at);
        }
    }
    let subscribe = caps.pointer("/resources/subscribe") == Some(&Value::Bool(true));
    if !modern && subscribe {
        if let Some(uri) = uris.first() {
            for method in ["resources/subscribe", "resources/unsubscribe"] {
                let id = r.id();
                let request = r.request(id, method, json!({ "uri": uri }), false);
                r.exchange(&format!("resource/{}", &method["resources/".len()..]), conv, request);
            }
        }
    }
}

fn read(r: &mut Run<'_>, conv: &mut Conversation, check: &str, uri: &str, modern: bool) -> Option<Value> {
    let id = r.id();
    let request = r.request(id, "resources/read", json!({ "uri": uri }), modern);
    r.exchange(check, conv, request)
}
