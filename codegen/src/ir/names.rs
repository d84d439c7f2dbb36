//! Rust names for schema names: enum variants, type-name parts and field names.

use heck::ToUpperCamelCase;

/// `tools/call` → `ToolsCall`, `2.0` → `V2_0`, `allServers` → `AllServers`.
pub fn variant_name(value: &str) -> String {
    let mut out = String::new();
    for part in value.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let camel = part.to_upper_camel_case();
        if out.chars().last().is_some_and(|c| c.is_ascii_digit()) && camel.starts_with(|c: char| c.is_ascii_digit()) {
            out.push('_');
        }
        out.push_str(&camel);
    }
    if out.is_empty() {
        out.push_str("Empty");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}

/// The part of a type name contributed by a property key (`_meta` → `Meta`).
pub(super) fn type_part(key: &str) -> String {
    let key = key.strip_prefix("io.modelcontextprotocol/").unwrap_or(key);
    variant_name(key)
}

/// Rust field name for a property key: snake case, `_meta` → `meta`, the spec's reserved
/// `io.modelcontextprotocol/` prefix dropped (`…/protocolVersion` → `protocol_version`).
pub fn field_name(key: &str) -> String {
    use heck::ToSnakeCase;
    let key = key.strip_prefix("io.modelcontextprotocol/").unwrap_or(key);
    let cleaned: String = key.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let mut s = cleaned.to_snake_case();
    if s.is_empty() {
        s = "field".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}
