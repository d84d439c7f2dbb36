//! Protocol rules checked by walking a message: `_meta` keys (META-1, META-3), OpenTelemetry
//! values (OTEL-1..3), capability extension keys (EXT-1), duplicate `inputRequests` keys
//! (MRTR-4). Each finding is a [`ValidationError`] carrying its rule id.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::json::pointer::push as push_key;
use crate::json::{JsonView, Kind};
use crate::rules::id;
use crate::validate::ValidationError;

use super::meta;

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

type FormatCheck = fn(&str) -> Result<(), meta::OtelError>;

pub(crate) struct RuleWalk {
    pub errors: Vec<ValidationError>,
    /// Strict mode: also report keys under reserved prefixes that the spec does not define (META-3).
    pub strict: bool,
}

/// One step from the root to where the walk is.
enum Step<'v> {
    Key(Cow<'v, str>),
    Index(usize),
}

/// Where the walk is, as the steps from the root: kept as the message's own keys and written
/// out as a JSON Pointer only when a rule fails (most messages break none, and escaping every
/// key of every message on the way down cost a quarter of per-message validation).
#[derive(Default)]
pub(crate) struct WalkPath<'v>(Vec<Step<'v>>);

impl<'v> WalkPath<'v> {
    /// The pointer of where the walk is, then `last` when given.
    fn pointer(&self, last: Option<&str>) -> String {
        let mut p = String::new();
        for step in &self.0 {
            match step {
                Step::Key(k) => push_key(&mut p, k),
                Step::Index(i) => {
                    // Writing to a String cannot fail.
                    let _ = write!(p, "/{i}");
                }
            }
        }
        if let Some(k) = last {
            push_key(&mut p, k);
        }
        p
    }
}

impl RuleWalk {
    /// Walks `v` (at `path` from the message's root) with every rule of this module.
    pub fn walk<'v, V: JsonView<'v>>(&mut self, v: &V, path: &mut WalkPath<'v>) {
        match v.kind() {
            Kind::Object => {
                for (k, x) in v.entries() {
                    let key = k.as_ref();
                    let meta = key == "_meta" && x.kind() == Kind::Object;
                    let capabilities = CAPABILITY_KEYS.contains(&key) && x.kind() == Kind::Object;
                    let input_requests = key == "inputRequests" && x.kind() == Kind::Object;
                    let opaque = OPAQUE_KEYS.contains(&key);
                    path.0.push(Step::Key(k));
                    if meta {
                        self.meta_object(&x, path);
                    }
                    if capabilities {
                        if let Some(ext) = x.get("extensions") {
                            path.0.push(Step::Key(Cow::Borrowed("extensions")));
                            self.extension_keys(&ext, path);
                            path.0.pop();
                        }
                    }
                    if input_requests {
                        self.duplicate_keys(&x, path, id::MRTR_4, "inputRequests");
                    }
                    if !opaque {
                        self.walk(&x, path);
                    }
                    path.0.pop();
                }
            }
            Kind::Array => {
                for (i, x) in v.items().enumerate() {
                    path.0.push(Step::Index(i));
                    self.walk(&x, path);
                    path.0.pop();
                }
            }
            _ => {}
        }
    }

    /// META-1 on every key, META-3 (strict), OTEL-1..3 on the three W3C keys.
    fn meta_object<'v, V: JsonView<'v>>(&mut self, meta_obj: &V, path: &WalkPath<'v>) {
        for (k, x) in meta_obj.entries() {
            let at = || path.pointer(Some(&k));
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
                "traceparent" => Some((id::OTEL_1, meta::check_traceparent)),
                "tracestate" => Some((id::OTEL_2, meta::check_tracestate)),
                "baggage" => Some((id::OTEL_3, meta::check_baggage)),
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
    fn extension_keys<'v, V: JsonView<'v>>(&mut self, ext: &V, path: &WalkPath<'v>) {
        for (k, _) in ext.entries() {
            let at = || path.pointer(Some(&k));
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

    fn duplicate_keys<'v, V: JsonView<'v>>(&mut self, obj: &V, path: &WalkPath<'v>, rule: &'static str, what: &str) {
        let keys: Vec<_> = obj.entries().map(|(k, _)| k).collect();
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].iter().filter(|x| *x == k).count() == 1 {
                self.errors.push(rule_error(
                    path.pointer(Some(k)),
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
