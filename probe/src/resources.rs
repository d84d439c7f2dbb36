//! Resources: `resources/read` for each listed resource (at most
//! [`super::ProbeOptions::max_items`]), judged by the conversation checker; one read of a URI
//! no server serves ([`UNKNOWN_URI`]), judged by the oracle per revision (RES-1): in 2026-07-28
//! a MUST with -32602 (a modern server sending the retired -32002 is the checker's ERR-4 too),
//! up to 2025-11-25 a SHOULD with -32002 (another answer is a warning); and, in a legacy
//! session whose server declares
//! `resources.subscribe`, `resources/subscribe` and `resources/unsubscribe` of the first
//! resource (2026-07-28 removed both for `subscriptions/listen`).

use serde_json::{json, Value};

use mcpgen::conversation::Conversation;

use super::Run;

/// A URI the probe reads to see how a missing resource is refused.
pub const UNKNOWN_URI: &str = "mcpgen-probe://unknown/resource";

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
        // Modern: -32602 (the retired -32002 is the checker's ERR-4 as well); legacy: -32002.
        r.judge(check, &answer, &format!("`resources/read` of `{UNKNOWN_URI}`, a resource that does not exist,"));
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
