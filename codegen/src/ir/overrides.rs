//! The override table: the few decisions the schema cannot express. Each entry says why.

use super::Direction;

/// Definitions whose Rust type is a runtime type. `JSONValue` after errata Q-1 admits every
/// JSON value, so a generated enum would only be a worse `Value`.
pub fn rust_type(def: &str) -> Option<&'static str> {
    match def {
        "JSONValue" => Some("crate::json::Value"),
        "JSONObject" => Some("crate::json::Map"),
        "JSONArray" => Some("::std::vec::Vec<crate::json::Value>"),
        _ => None,
    }
}

/// `_meta` objects are extension points (META-1): undeclared keys are their purpose, so the
/// strict unknown-key policy does not reject them.
pub fn is_extension_object(def: &str, key_path: &[String]) -> bool {
    def.ends_with("MetaObject") && key_path.is_empty() || key_path.last().is_some_and(|k| k == "_meta")
}

/// Unions containing `InputRequiredResult` are told apart by `resultType` (RESULT-6): the
/// schema types `resultType` as a plain string in every arm, so it cannot say so.
pub const RESULT_TYPE_ARM: &str = "InputRequiredResult";

/// Result members a client must tolerate missing: `resultType` from earlier-revision
/// servers (RESULT-2); `ttlMs`/`cacheScope`, which clients treat as 0/private when absent
/// (CACHE-3, AMB-16). They are `Option` in Rust so absence survives a round trip.
pub fn is_relaxable(key: &str) -> bool {
    matches!(key, "resultType" | "ttlMs" | "cacheScope")
}

/// Aggregate unions that name directions, not methods.
pub const DIRECTION_UNIONS: [(&str, Direction); 5] = [
    ("ClientRequest", Direction::ClientToServer),
    ("ClientNotification", Direction::ClientToServer),
    ("ServerRequest", Direction::ServerToClient),
    ("ServerNotification", Direction::ServerToClient),
    ("InputRequest", Direction::EmbeddedInput),
];
