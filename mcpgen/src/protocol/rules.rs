//! Protocol rules checked by walking a message: `_meta` keys (META-1, META-3), OpenTelemetry
//! values (OTEL-1..3), capability extension keys (EXT-1), duplicate `inputRequests` keys
//! (MRTR-4). Each finding is a [`ValidationError`] carrying its rule id.

use crate::json::{JsonView, Kind};
use crate::rules::id;
use crate::validate::{Path, ValidationError};

use super::{meta, otel};

/// Objects whose contents belong to someone else (JSON Schemas, tool arguments, structured
/// tool output, experimental capabilities): a `_meta` key inside them is user data, not MCP
/// metadata, so the walk does not descend into them.
const OPAQUE_KEYS: [&str; 6] =
    ["inputSchema", "outputSchema", "requestedSchema", "arguments", "structuredContent", "experimental"];

/// Keys whose value is a capabilities object (client or server), so its `extensions` member
/// is subject to EXT-1.
const CAPABILITY_KEYS: [&str; 3] = [crate::meta_keys::CLIENT_CAPABILITIES, "capabilities", "requiredCapabilities"];

/// Keys under reserved prefixes that the spec defines but no pinned schema declares (the
/// declared ones are `meta_keys::ALL`): 2025-11-25's tasks key, named only in the spec's text.
const SPEC_ONLY_RESERVED_KEYS: [&str; 1] = ["io.modelcontextprotocol/related-task"];

/// META-5: a key under a reserved prefix that the spec defines; others are flagged under META-3
/// in strict mode only.
fn is_known_reserved_key(key: &str) -> bool {
    crate::meta_keys::ALL.contains(&key) || SPEC_ONLY_RESERVED_KEYS.contains(&key)
}

/// An error raised by a protocol rule rather than the schema. `keyword` names the JSON Schema
/// keyword that would express the rule; `schema_path` is empty.
pub(crate) fn rule_error(
    pointer: String,
    keyword: &'static str,
    rule: &'static str,
    message: String,
) -> ValidationError {
    ValidationError::new(pointer, keyword, message).with_rule(rule)
}

type FormatCheck = fn(&str) -> Result<(), otel::OtelError>;

pub(crate) struct RuleWalk {
    pub errors: Vec<ValidationError>,
    /// Strict mode: also report keys under reserved prefixes that the spec does not define (META-3).
    pub strict: bool,
}

impl RuleWalk {
    /// Walks `v` (at `path` from the message's root) with every rule of this module. The path
    /// is the validators' linked [`Path`] of the message's own keys, written out as a JSON
    /// Pointer only when a rule fails (most messages break none).
    pub fn walk<'v, V: JsonView<'v>>(&mut self, v: &V, path: &Path<'_>) {
        match v.kind() {
            Kind::Object => {
                for (k, x) in v.entries() {
                    let key = k.as_ref();
                    let meta = key == "_meta" && x.kind() == Kind::Object;
                    let capabilities = CAPABILITY_KEYS.contains(&key) && x.kind() == Kind::Object;
                    let input_requests = key == "inputRequests" && x.kind() == Kind::Object;
                    let opaque = OPAQUE_KEYS.contains(&key);
                    let here = path.key(key);
                    if meta {
                        self.meta_object(&x, &here);
                    }
                    if capabilities {
                        if let Some(ext) = x.get("extensions") {
                            self.extension_keys(&ext, &here.key("extensions"));
                        }
                    }
                    if input_requests {
                        self.duplicate_keys(&x, &here, id::MRTR_4, "inputRequests");
                    }
                    if !opaque {
                        self.walk(&x, &here);
                    }
                }
            }
            Kind::Array => {
                for (i, x) in v.items().enumerate() {
                    self.walk(&x, &path.index(i));
                }
            }
            _ => {}
        }
    }

    /// META-1 on every key, META-3 (strict), OTEL-1..3 on the three W3C keys.
    fn meta_object<'v, V: JsonView<'v>>(&mut self, meta_obj: &V, path: &Path<'_>) {
        for (k, x) in meta_obj.entries() {
            let at = || path.key(&k).pointer();
            match meta::split_meta_key(&k) {
                Err(e) => self.errors.push(rule_error(at(), "propertyNames", e.rule(), e.to_string())),
                Ok((_, _, reserved)) if reserved && self.strict && !is_known_reserved_key(&k) => {
                    self.errors.push(rule_error(
                        at(),
                        "propertyNames",
                        id::META_3,
                        format!("`{k}` uses a prefix reserved for MCP, and this revision defines no such key (reported in strict mode)"),
                    ))
                }
                Ok(_) => {}
            }
            let otel: Option<(&'static str, FormatCheck)> = match k.as_ref() {
                "traceparent" => Some((id::OTEL_1, otel::check_traceparent)),
                "tracestate" => Some((id::OTEL_2, otel::check_tracestate)),
                "baggage" => Some((id::OTEL_3, otel::check_baggage)),
                _ => None,
            };
            if let Some((rule, check)) = otel {
                let problem = match x.as_str() {
                    Some(s) => check(&s).err().map(|e| e.to_string()),
                    None => Some(format!("`{k}` must be a string (AMB-5), found {}", x.describe())),
                };
                if let Some(e) = problem {
                    self.errors.push(rule_error(at(), "format", rule, format!("{e}; a receiver drops the value")));
                }
            }
        }
    }

    /// EXT-1: extension keys follow the `_meta` key grammar and have a prefix.
    fn extension_keys<'v, V: JsonView<'v>>(&mut self, ext: &V, path: &Path<'_>) {
        for (k, _) in ext.entries() {
            let at = || path.key(&k).pointer();
            match meta::check_meta_key(&k) {
                Err(e) => self.errors.push(rule_error(at(), "propertyNames", id::EXT_1, format!("extension {e}"))),
                Ok(key) if key.prefix.is_none() => self.errors.push(rule_error(
                    at(),
                    "propertyNames",
                    id::EXT_1,
                    format!("extension key `{k}` needs a prefix (`com.example/{k}`, `io.modelcontextprotocol/{k}`)"),
                )),
                Ok(_) => {}
            }
        }
    }

    fn duplicate_keys<'v, V: JsonView<'v>>(&mut self, obj: &V, path: &Path<'_>, rule: &'static str, what: &str) {
        let keys: Vec<_> = obj.entries().map(|(k, _)| k).collect();
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].iter().filter(|x| *x == k).count() == 1 {
                self.errors.push(rule_error(
                    path.key(k).pointer(),
                    "uniqueKeys",
                    rule,
                    format!("`{what}` key `{k}` appears more than once; keys must be unique (most JSON parsers silently keep the last one)"),
                ));
            }
        }
    }
}

/// MRTR-3: an `input_required` result has `inputRequests`, `requestState`, or both.
pub(crate) fn check_input_required<'v, V: JsonView<'v>>(result: &V, at: &str, errors: &mut Vec<ValidationError>) {
    if result.get("inputRequests").is_none() && result.get("requestState").is_none() {
        errors.push(rule_error(
            at.to_owned(),
            "anyOf",
            id::MRTR_3,
            "an `input_required` result needs `inputRequests`, `requestState`, or both".into(),
        ));
    }
}
