//! What a message's envelope says, read structurally before any schema: its class, the
//! top-level members validation and the checker read, and its `id`.

use std::borrow::Cow;

use crate::json::{JsonView, Kind, Value};
use crate::rules::id;
use crate::validate::ValidationError;

use super::rules::rule_error;
use super::MessageKind;

/// What the envelope says a message is, read structurally before any schema. The method
/// is borrowed from the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Class<'v> {
    Request(Cow<'v, str>),
    Notification(Cow<'v, str>),
    Result,
    /// `None` when `error.code` is not an integer (the schema reports why).
    Error(Option<i64>),
}

impl Class<'_> {
    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Class::Request(m) | Class::Notification(m) => Some(m),
            Class::Result | Class::Error(_) => None,
        }
    }

    pub(super) fn to_kind(&self) -> MessageKind {
        match self {
            Class::Request(m) => MessageKind::Request { method: m.clone().into_owned() },
            Class::Notification(m) => MessageKind::Notification { method: m.clone().into_owned() },
            Class::Result => MessageKind::Result,
            Class::Error(code) => MessageKind::Error { code: code.unwrap_or_default() },
        }
    }
}

/// The top-level members of a message that validation and the conversation checker read, in
/// one pass over the object (the last of duplicate keys wins, as with `get`).
#[derive(Debug, Clone)]
pub(crate) struct Envelope<V> {
    pub kind: Kind,
    pub method: Option<V>,
    pub id: Option<V>,
    pub params: Option<V>,
    pub result: Option<V>,
    pub error: Option<V>,
    /// What a caller that read the message already knows (the conversation checker's facts);
    /// `None`, or `Some(false)`, and validation reads it itself. `id_valid`: the `id` is a string
    /// or an integer literal. `meta_complete`: `params._meta` is an object with a string
    /// `protocolVersion` and an object `clientCapabilities` (META-6 has nothing to tag).
    pub id_valid: Option<bool>,
    pub meta_complete: Option<bool>,
}

impl<'v, V: JsonView<'v>> Envelope<V> {
    #[inline]
    pub fn read(v: &V) -> Envelope<V> {
        let mut e = Envelope {
            kind: v.kind(),
            method: None,
            id: None,
            params: None,
            result: None,
            error: None,
            id_valid: None,
            meta_complete: None,
        };
        if e.kind == Kind::Object {
            for (k, x) in v.entries() {
                match k.as_ref() {
                    "method" => e.method = Some(x),
                    "id" => e.id = Some(x),
                    "params" => e.params = Some(x),
                    "result" => e.result = Some(x),
                    "error" => e.error = Some(x),
                    _ => {}
                }
            }
        }
        e
    }

    /// MSG-1 / MSG-2 / MSG-4 classification. `Err` when the message cannot be classified.
    #[inline]
    pub fn classify(&self, v: &V) -> Result<Class<'v>, ValidationError> {
        match self.kind {
            Kind::Object => {}
            Kind::Array => {
                return Err(rule_error(
                    String::new(),
                    "type",
                    id::MSG_1,
                    format!(
                        "a JSON-RPC batch ({}) is not allowed: send one message object per line or POST",
                        v.describe()
                    ),
                ))
            }
            _ => {
                return Err(rule_error(
                    String::new(),
                    "type",
                    id::CORE_2,
                    format!("a message must be a JSON object, found {}", v.describe()),
                ))
            }
        }
        if let Some(m) = &self.method {
            let Some(method) = m.as_str() else {
                return Err(rule_error(
                    "/method".into(),
                    "type",
                    id::CORE_2,
                    format!("`method` must be a string, found {}", m.describe()),
                ));
            };
            // MSG-4: an `id` key, even `null`, makes a request.
            return Ok(if self.id.is_some() { Class::Request(method) } else { Class::Notification(method) });
        }
        match (&self.result, &self.error) {
            (Some(_), Some(_)) => Err(rule_error(
                String::new(),
                "oneOf",
                id::MSG_2,
                "a response has exactly one of `result` and `error`, this one has both".into(),
            )),
            (Some(_), None) => Ok(Class::Result),
            (None, Some(e)) => Ok(Class::Error(e.get("code").and_then(|c| int_literal(&c)))),
            (None, None) => Err(rule_error(
                String::new(),
                "required",
                id::CORE_2,
                "not a JSON-RPC message: no `method` (request, notification), `result` or `error` (response)".into(),
            )),
        }
    }
}

/// An integer written as an integer literal (AMB-12: `1.0` is not one).
pub(crate) fn int_literal<'v, V: JsonView<'v>>(v: &V) -> Option<i64> {
    let n = v.to_number()?;
    if !n.is_integer_literal() {
        return None;
    }
    n.as_i64()
}

/// How a request id reads (ID-1, AMB-12).
pub(crate) enum IdRead {
    Absent,
    Valid(Value),
    Invalid(String),
}

pub(crate) fn read_id<'v, V: JsonView<'v>>(v: &V) -> IdRead {
    read_id_member(v.get("id"))
}

/// [`read_id`] of the `id` member, already read.
pub(super) fn read_id_member<'v, V: JsonView<'v>>(id: Option<V>) -> IdRead {
    let Some(id) = id else { return IdRead::Absent };
    match id.kind() {
        Kind::String => IdRead::Valid(id.to_value()),
        Kind::Number => match id.to_number() {
            Some(n) if n.is_integer_literal() => IdRead::Valid(Value::Number(n)),
            _ => IdRead::Invalid(format!(
                "`id` must be a string or an integer literal, found {} (AMB-12: `1.0` is rejected too)",
                id.describe()
            )),
        },
        Kind::Null => IdRead::Invalid("`id` must be a string or an integer, never null".into()),
        _ => IdRead::Invalid(format!("`id` must be a string or an integer, found {}", id.describe())),
    }
}
