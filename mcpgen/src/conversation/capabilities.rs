//! Capabilities: what each side declared (legacy `initialize`, modern `server/discover`) and
//! what it then does: a server request needing an undeclared client capability (CAP-5, ELIC-1,
//! SAMP-1), a server answering for an undeclared feature (TOOL-1, PROMPT-1, CAP-2, LOG-5),
//! list-changed notifications without `listChanged` (SUB-12).

use crate::json::JsonView;
use crate::protocol;
use crate::rules::id;

use super::facts::Facts;
use super::finding::{rule_finding, Finding};
use super::state::Session;

/// A client's legacy `initialize`: its capabilities, for the server requests that follow.
#[inline(never)]
pub(super) fn client_declared<'v, V: JsonView<'v>>(f: &Facts<'v, V>, s: &mut Session) {
    s.client_caps = f.param("capabilities").map(|c| c.to_value());
}

/// The server's capabilities, from its `initialize` or `server/discover` result.
#[inline(never)]
pub(super) fn server_declared<'v, V: JsonView<'v>>(result: &V, s: &mut Session) {
    s.server_caps = result.get("capabilities").map(|c| c.to_value());
}

/// Legacy: a server request that needs a client capability declared at `initialize`.
#[inline(never)]
pub(super) fn server_request<'v, V: JsonView<'v>>(f: &Facts<'v, V>, method: &str, s: &Session, out: &mut Vec<Finding>) {
    if !matches!(method, "sampling/createMessage" | "elicitation/create" | "roots/list") {
        return;
    }
    let Some(declared) = &s.client_caps else { return };
    let required = protocol::required_capability(f.msg.clone());
    let Some(missing) = protocol::missing_capabilities(declared, &required) else { return };
    let top_declared = match method {
        "sampling/createMessage" => declared.get("sampling").is_some(),
        "elicitation/create" => declared.get("elicitation").is_some(),
        _ => declared.get("roots").is_some(),
    };
    let rule = match method {
        "elicitation/create" if top_declared => id::ELIC_1,
        "sampling/createMessage" if top_declared => id::SAMP_1,
        _ => id::CAP_5,
    };
    out.push(rule_finding(
        rule,
        "/method",
        "",
        format!(
            "`{method}` needs the client capability {} that the client did not declare at `initialize`",
            crate::json::to_json_string(&missing)
        ),
    ));
}

/// TOOL-1 / PROMPT-1 / CAP-2 / LOG-5: a server that serves a feature declares it.
pub(super) fn declared_feature(method: &str, s: &Session, out: &mut Vec<Finding>) {
    let Some(caps) = &s.server_caps else { return };
    let (feature, rule) = match method {
        m if m.starts_with("tools/") => ("tools", id::TOOL_1),
        m if m.starts_with("prompts/") => ("prompts", id::PROMPT_1),
        m if m.starts_with("resources/") => ("resources", id::CAP_2),
        "completion/complete" => ("completions", id::CAP_2),
        "logging/setLevel" => ("logging", id::LOG_5),
        _ => return,
    };
    if caps.get(feature).is_none() {
        out.push(rule_finding(
            rule,
            "/result",
            "",
            format!("the server answers `{method}` but did not declare the `{feature}` capability"),
        ));
    }
}

/// SUB-12: list-changed notifications need `listChanged` on their feature.
pub(super) fn list_changed(method: &str, s: &Session, out: &mut Vec<Finding>) {
    let feature = match method {
        "notifications/tools/list_changed" => "tools",
        "notifications/prompts/list_changed" => "prompts",
        "notifications/resources/list_changed" => "resources",
        _ => return,
    };
    let Some(caps) = &s.server_caps else { return };
    let declared = caps.get(feature).and_then(|f| f.get("listChanged")).and_then(|x| x.as_bool()) == Some(true);
    if !declared {
        out.push(rule_finding(
            id::SUB_12,
            "/method",
            "",
            format!("`{method}` comes from a server that did not declare `{feature}.listChanged`"),
        ));
    }
}
