//! Client capabilities a server needs (CAP-3, CAP-4) and the -32021 error that asks for them
//! (ERR-9, META-9).

use crate::error_codes;
use crate::json::{JsonView, Map, Value};
use crate::rules::id;

use super::ProtocolError;

/// -32021 (ERR-9, META-9, HTTP 400): the handler needs a client capability that this request's
/// `clientCapabilities` did not declare. `required` is a `ClientCapabilities`-shaped object
/// (see [`required_capability`]).
pub fn missing_capability_error(id: Option<Value>, required: Value) -> ProtocolError {
    let mut data = Map::new();
    data.push("requiredCapabilities", required);
    let mut e = ProtocolError::new(
        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY_ERROR,
        "Missing required client capability",
        id,
        400,
        id::META_9,
    );
    e.data = Some(Value::Object(data));
    e
}

/// CAP-4: the client capability an input request (`{"method", "params"}` from
/// `InputRequiredResult.inputRequests`) needs, as a `ClientCapabilities`-shaped object:
/// `elicitation/create` → `elicitation.form` (no `mode`, or `form`) or `elicitation.url`;
/// `sampling/createMessage` → `sampling`, plus `sampling.tools` with `tools`/`toolChoice` and
/// `sampling.context` with `includeContext` other than `none`; `roots/list` → `roots`.
/// Anything else → `{}`.
pub fn required_capability<'v>(input_request: impl JsonView<'v>) -> Value {
    let obj = |entries: Vec<(&str, Value)>| {
        let mut m = Map::new();
        for (k, v) in entries {
            m.push(k, v);
        }
        Value::Object(m)
    };
    let empty = || Value::Object(Map::new());
    let params = input_request.get("params");
    let param = |k: &str| params.as_ref().and_then(|p| p.get(k));
    let param_is = |k: &str, s: &str| param(k).is_some_and(|v| v.str_eq(s));
    match input_request.get("method").and_then(|m| m.as_str()).as_deref() {
        Some("elicitation/create") => {
            let mode = if param_is("mode", "url") { "url" } else { "form" };
            obj(vec![("elicitation", obj(vec![(mode, empty())]))])
        }
        Some("sampling/createMessage") => {
            let mut sampling = Vec::new();
            if param("tools").is_some() || param("toolChoice").is_some() {
                sampling.push(("tools", empty()));
            }
            if param("includeContext").is_some() && !param_is("includeContext", "none") {
                sampling.push(("context", empty()));
            }
            obj(vec![("sampling", obj(sampling))])
        }
        Some("roots/list") => obj(vec![("roots", empty())]),
        _ => empty(),
    }
}

/// The part of `required` (a `ClientCapabilities`-shaped object, as from
/// [`required_capability`]) that `declared` lacks, or `None` when everything is declared.
/// CAP-3: `elicitation: {}` declares form mode.
pub fn missing_capabilities<'d, 'r>(declared: impl JsonView<'d>, required: impl JsonView<'r>) -> Option<Value> {
    fn walk<'d, 'r, D: JsonView<'d>, R: JsonView<'r>>(decl: Option<D>, req: &R, parent: &str) -> Option<Value> {
        let Some(decl) = decl else { return Some(req.to_value()) };
        if req.kind() != crate::json::Kind::Object {
            return None;
        }
        let mut out = Map::new();
        for (k, sub) in req.entries() {
            let d = decl.get(&k);
            let implied_form = parent == "elicitation" && k == "form" && d.is_none() && decl.get("url").is_none();
            if implied_form {
                continue;
            }
            if let Some(x) = walk(d, &sub, &k) {
                out.push(k.into_owned(), x);
            }
        }
        (!out.is_empty()).then_some(Value::Object(out))
    }
    walk(Some(declared), &required, "")
}
