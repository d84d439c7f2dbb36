//! CACHE-1 on every cacheable result the probe receives (2026-07-28): "Servers MUST include
//! caching hints on results with `resultType: "complete"` returned by" `server/discover`, the
//! four list methods and `resources/read`, and "Servers MUST provide a `ttlMs` value that is
//! `>= 0`". The spec lets a client read a missing or negative `ttlMs` as 0 (CACHE-3), and
//! mcpgen's decoding does; the probe tests a server, so it takes no such leniency: a hint
//! missing, or a negative `ttlMs`, is an error on the exchange that showed it. A value of the
//! wrong type is the schema's (the conversation checker's), not judged twice here. Revisions
//! before 2026-07-28 have no caching hints (no finding).

use serde_json::Value;

use mcpgen::rules::id;

use super::Run;

/// The methods whose `complete` results carry caching hints.
pub const CACHEABLE: [&str; 6] =
    ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/// Why `result` (of a `method` request) lacks the hints the caching page requires, each with
/// its pointer; empty when it has them or is no cacheable `complete` result.
pub fn missing_hints(method: &str, result: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if !CACHEABLE.contains(&method) || result.get("resultType").and_then(Value::as_str) != Some("complete") {
        return out;
    }
    match result.get("ttlMs") {
        None => out.push(("/result", format!("a `{method}` result without `ttlMs`"))),
        Some(ttl) if ttl.as_f64().is_some_and(|t| t < 0.0) => out.push((
            "/result/ttlMs",
            format!("a `{method}` result with `ttlMs: {ttl}`; servers MUST provide a `ttlMs` value that is `>= 0`"),
        )),
        Some(_) => {}
    }
    if result.get("cacheScope").is_none() {
        out.push(("/result", format!("a `{method}` result without `cacheScope`")));
    }
    out
}

/// The hints of `response` to a `method` request, judged at the revision in play.
pub(super) fn judge(r: &mut Run<'_>, check: &str, method: &str, response: &Value, exchange: Option<usize>) {
    let Some(result) = response.get("result") else { return };
    for (pointer, what) in missing_hints(method, result) {
        let message = format!(
            "{what}: servers MUST include caching hints (`ttlMs`, `cacheScope`) on complete results of \
             cacheable operations (the leniency the spec grants clients is not a server's)"
        );
        let accepts = Some("`ttlMs` (an integer, 0 or more) and `cacheScope`".to_owned());
        r.violation(check, id::CACHE_1, pointer, message, accepts, exchange);
    }
}
