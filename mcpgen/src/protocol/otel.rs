//! The W3C formats of the OpenTelemetry `_meta` keys `traceparent`, `tracestate` and `baggage`
//! (OTEL-1..3), with their typed error ([`OtelError`]).

use std::borrow::Cow;
use std::fmt;

use mcpgen_runtime::__rt::single;

use crate::rules::id;
use crate::{CoreError, ValidationError};

/// Why a value of the W3C keys `traceparent` (OTEL-1), `tracestate` (OTEL-2) or `baggage`
/// (OTEL-3) is malformed ([`check_traceparent`], [`check_tracestate`], [`check_baggage`]); its
/// [`fmt::Display`] is the one message every surface shows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OtelError {
    /// `traceparent` shorter than 55 characters, or not ASCII (`chars`: its length).
    #[non_exhaustive]
    TraceparentLength { chars: usize },
    /// `traceparent` fields not separated by `-`.
    TraceparentSeparator,
    /// A `traceparent` field (`version`, `trace-id`, `parent-id`, `trace-flags`) that is not
    /// lowercase hexadecimal.
    #[non_exhaustive]
    TraceparentNotHex { field: &'static str, value: String },
    /// `traceparent` version `ff`.
    TraceparentVersionFf,
    /// `traceparent` version 00 that is not exactly 55 characters.
    #[non_exhaustive]
    TraceparentVersion00Length { len: usize },
    /// A later version's extra fields without a leading `-`.
    TraceparentExtension,
    /// An all-zero `trace-id`.
    TraceparentZeroTraceId,
    /// An all-zero `parent-id`.
    TraceparentZeroParentId,
    /// A `tracestate` member that is not `key=value`.
    #[non_exhaustive]
    TracestateMember { member: String },
    /// A `tracestate` key outside the W3C grammar.
    #[non_exhaustive]
    TracestateKey { key: String },
    /// A `tracestate` value outside the W3C grammar.
    #[non_exhaustive]
    TracestateValue { key: String },
    /// A `tracestate` key given twice.
    #[non_exhaustive]
    TracestateDuplicateKey { key: String },
    /// More than 32 `tracestate` members.
    #[non_exhaustive]
    TracestateTooManyMembers { count: usize },
    /// A `baggage` over the 8192-byte propagation limit.
    #[non_exhaustive]
    BaggageTooLong { bytes: usize },
    /// A `baggage` member that is not `key=value`.
    #[non_exhaustive]
    BaggageMember { member: String },
    /// A `baggage` key that is not an HTTP token.
    #[non_exhaustive]
    BaggageKey { key: String },
    /// A `baggage` value with characters that must be percent-encoded.
    #[non_exhaustive]
    BaggageValue { key: String },
    /// A malformed `baggage` property.
    #[non_exhaustive]
    BaggageProperty { key: String, property: String },
    /// More than 64 `baggage` members.
    #[non_exhaustive]
    BaggageTooManyMembers { count: usize },
}

impl OtelError {
    /// Stable snake_case name of the variant (`traceparent_length`, …, `baggage_too_many_members`).
    pub fn kind(&self) -> &'static str {
        match self {
            OtelError::TraceparentLength { .. } => "traceparent_length",
            OtelError::TraceparentSeparator => "traceparent_separator",
            OtelError::TraceparentNotHex { .. } => "traceparent_not_hex",
            OtelError::TraceparentVersionFf => "traceparent_version_ff",
            OtelError::TraceparentVersion00Length { .. } => "traceparent_version_00_length",
            OtelError::TraceparentExtension => "traceparent_extension",
            OtelError::TraceparentZeroTraceId => "traceparent_zero_trace_id",
            OtelError::TraceparentZeroParentId => "traceparent_zero_parent_id",
            OtelError::TracestateMember { .. } => "tracestate_member",
            OtelError::TracestateKey { .. } => "tracestate_key",
            OtelError::TracestateValue { .. } => "tracestate_value",
            OtelError::TracestateDuplicateKey { .. } => "tracestate_duplicate_key",
            OtelError::TracestateTooManyMembers { .. } => "tracestate_too_many_members",
            OtelError::BaggageTooLong { .. } => "baggage_too_long",
            OtelError::BaggageMember { .. } => "baggage_member",
            OtelError::BaggageKey { .. } => "baggage_key",
            OtelError::BaggageValue { .. } => "baggage_value",
            OtelError::BaggageProperty { .. } => "baggage_property",
            OtelError::BaggageTooManyMembers { .. } => "baggage_too_many_members",
        }
    }

    /// The `_meta` key whose value this is about: `traceparent`, `tracestate` or `baggage`.
    pub fn key(&self) -> &'static str {
        match self {
            OtelError::TraceparentLength { .. }
            | OtelError::TraceparentSeparator
            | OtelError::TraceparentNotHex { .. }
            | OtelError::TraceparentVersionFf
            | OtelError::TraceparentVersion00Length { .. }
            | OtelError::TraceparentExtension
            | OtelError::TraceparentZeroTraceId
            | OtelError::TraceparentZeroParentId => "traceparent",
            OtelError::TracestateMember { .. }
            | OtelError::TracestateKey { .. }
            | OtelError::TracestateValue { .. }
            | OtelError::TracestateDuplicateKey { .. }
            | OtelError::TracestateTooManyMembers { .. } => "tracestate",
            _ => "baggage",
        }
    }

    /// The rule: `OTEL-1` (`traceparent`), `OTEL-2` (`tracestate`) or `OTEL-3` (`baggage`).
    pub fn rule(&self) -> &'static str {
        match self.key() {
            "traceparent" => id::OTEL_1,
            "tracestate" => id::OTEL_2,
            _ => id::OTEL_3,
        }
    }
}

/// Kind as [`OtelError::kind`], rule OTEL-1..3; one entry at `""` with keyword `format`.
impl CoreError for OtelError {
    fn kind(&self) -> &'static str {
        OtelError::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        Some(OtelError::rule(self))
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single("", "format", Some(OtelError::rule(self)), self.to_string())
    }
}

impl fmt::Display for OtelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OtelError::TraceparentLength { chars } => write!(
                f,
                "`traceparent` must be at least 55 ASCII characters (`00-<32 hex>-<16 hex>-<2 hex>`), found {chars} characters"
            ),
            OtelError::TraceparentSeparator => {
                f.write_str("`traceparent` fields must be separated by `-` (`00-<32 hex>-<16 hex>-<2 hex>`)")
            }
            OtelError::TraceparentNotHex { field, value } => {
                write!(f, "`traceparent` {field} `{value}` must be lowercase hexadecimal")
            }
            OtelError::TraceparentVersionFf => f.write_str("`traceparent` version `ff` is invalid"),
            OtelError::TraceparentVersion00Length { len } => {
                write!(f, "`traceparent` version 00 is exactly 55 characters, found {len}")
            }
            OtelError::TraceparentExtension => {
                f.write_str("`traceparent` of a later version may only append fields after a `-`")
            }
            OtelError::TraceparentZeroTraceId => f.write_str("`traceparent` trace-id must not be all zeros"),
            OtelError::TraceparentZeroParentId => f.write_str("`traceparent` parent-id must not be all zeros"),
            OtelError::TracestateMember { member } => write!(f, "`tracestate` member `{member}` is not `key=value`"),
            OtelError::TracestateKey { key } => write!(
                f,
                "`tracestate` key `{key}` is invalid (lowercase letter first, then `a-z0-9_-*/`, or `tenant@system`)"
            ),
            OtelError::TracestateValue { key } => write!(
                f,
                "`tracestate` value for `{key}` is invalid (1-256 printable ASCII characters, no `,` or `=`, not ending in a space)"
            ),
            OtelError::TracestateDuplicateKey { key } => write!(f, "`tracestate` key `{key}` appears twice"),
            OtelError::TracestateTooManyMembers { count } => {
                write!(f, "`tracestate` has {count} members; at most 32 are allowed")
            }
            OtelError::BaggageTooLong { bytes } => {
                write!(f, "`baggage` is {bytes} bytes; the propagation limit is 8192")
            }
            OtelError::BaggageMember { member } => write!(f, "`baggage` member `{member}` is not `key=value`"),
            OtelError::BaggageKey { key } => write!(f, "`baggage` key `{key}` is not an HTTP token"),
            OtelError::BaggageValue { key } => {
                write!(f, "`baggage` value for `{key}` has characters that must be percent-encoded")
            }
            OtelError::BaggageProperty { key, property } => {
                write!(f, "`baggage` property `{property}` of `{key}` is invalid")
            }
            OtelError::BaggageTooManyMembers { count } => {
                write!(f, "`baggage` has {count} members; the propagation limit is 64")
            }
        }
    }
}

impl std::error::Error for OtelError {}

fn is_lower_hex(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// OTEL-1: W3C Trace Context `traceparent` (`version-traceid-parentid-flags`, lowercase hex).
pub fn check_traceparent(s: &str) -> Result<(), OtelError> {
    if s.len() < 55 || !s.is_ascii() {
        return Err(OtelError::TraceparentLength { chars: s.chars().count() });
    }
    let (version, trace_id, parent_id, flags) = (&s[0..2], &s[3..35], &s[36..52], &s[53..55]);
    if [2usize, 35, 52].iter().any(|&i| s.as_bytes()[i] != b'-') {
        return Err(OtelError::TraceparentSeparator);
    }
    for (field, value) in
        [("version", version), ("trace-id", trace_id), ("parent-id", parent_id), ("trace-flags", flags)]
    {
        if !is_lower_hex(value) {
            return Err(OtelError::TraceparentNotHex { field, value: value.to_owned() });
        }
    }
    if version == "ff" {
        return Err(OtelError::TraceparentVersionFf);
    }
    if version == "00" && s.len() != 55 {
        return Err(OtelError::TraceparentVersion00Length { len: s.len() });
    }
    if s.len() > 55 && s.as_bytes()[55] != b'-' {
        return Err(OtelError::TraceparentExtension);
    }
    if trace_id.bytes().all(|c| c == b'0') {
        return Err(OtelError::TraceparentZeroTraceId);
    }
    if parent_id.bytes().all(|c| c == b'0') {
        return Err(OtelError::TraceparentZeroParentId);
    }
    Ok(())
}

fn tracestate_key_char(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'-' | b'*' | b'/')
}

fn check_tracestate_key(key: &str) -> bool {
    let b = key.as_bytes();
    match key.split_once('@') {
        None => (1..=256).contains(&b.len()) && b[0].is_ascii_lowercase() && b.iter().all(|&c| tracestate_key_char(c)),
        Some((tenant, system)) => {
            let (t, s) = (tenant.as_bytes(), system.as_bytes());
            (1..=241).contains(&t.len())
                && (t[0].is_ascii_lowercase() || t[0].is_ascii_digit())
                && t.iter().all(|&c| tracestate_key_char(c))
                && (1..=14).contains(&s.len())
                && s[0].is_ascii_lowercase()
                && s.iter().all(|&c| tracestate_key_char(c))
        }
    }
}

/// OTEL-2: W3C Trace Context `tracestate` (≤ 32 `key=value` members, no duplicate keys).
pub fn check_tracestate(s: &str) -> Result<(), OtelError> {
    let mut keys: Vec<&str> = Vec::new();
    for member in s.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            continue; // empty list members are allowed
        }
        let Some((key, value)) = member.split_once('=') else {
            return Err(OtelError::TracestateMember { member: member.to_owned() });
        };
        if !check_tracestate_key(key) {
            return Err(OtelError::TracestateKey { key: key.to_owned() });
        }
        let vb = value.as_bytes();
        let value_ok = (1..=256).contains(&vb.len())
            && vb.iter().all(|&c| (0x20..=0x7e).contains(&c) && c != b',' && c != b'=')
            && vb.last() != Some(&b' ');
        if !value_ok {
            return Err(OtelError::TracestateValue { key: key.to_owned() });
        }
        if keys.contains(&key) {
            return Err(OtelError::TracestateDuplicateKey { key: key.to_owned() });
        }
        keys.push(key);
    }
    if keys.len() > 32 {
        return Err(OtelError::TracestateTooManyMembers { count: keys.len() });
    }
    Ok(())
}

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

fn is_baggage_octet(c: u8) -> bool {
    matches!(c, 0x21 | 0x23..=0x2b | 0x2d..=0x3a | 0x3c..=0x5b | 0x5d..=0x7e)
}

/// OTEL-3: W3C Baggage (`key=value(;property)*`, comma-separated; ≤ 64 members, ≤ 8192 bytes).
pub fn check_baggage(s: &str) -> Result<(), OtelError> {
    if s.len() > 8192 {
        return Err(OtelError::BaggageTooLong { bytes: s.len() });
    }
    let mut count = 0;
    for member in s.split(',') {
        count += 1;
        let mut parts = member.split(';');
        let kv = parts.next().unwrap_or_default();
        let Some((key, value)) = kv.split_once('=') else {
            return Err(OtelError::BaggageMember { member: member.trim().to_owned() });
        };
        let (key, value) = (key.trim_matches([' ', '\t']), value.trim_matches([' ', '\t']));
        if key.is_empty() || !key.bytes().all(is_tchar) {
            return Err(OtelError::BaggageKey { key: key.to_owned() });
        }
        if !value.bytes().all(is_baggage_octet) {
            return Err(OtelError::BaggageValue { key: key.to_owned() });
        }
        for prop in parts {
            let (pk, pv) = match prop.split_once('=') {
                Some((k, v)) => (k.trim_matches([' ', '\t']), Some(v.trim_matches([' ', '\t']))),
                None => (prop.trim_matches([' ', '\t']), None),
            };
            if pk.is_empty() || !pk.bytes().all(is_tchar) || pv.is_some_and(|v| !v.bytes().all(is_baggage_octet)) {
                return Err(OtelError::BaggageProperty { key: key.to_owned(), property: prop.trim().to_owned() });
            }
        }
    }
    if count > 64 {
        return Err(OtelError::BaggageTooManyMembers { count });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent() {
        assert!(check_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").is_ok());
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
            "",
        ] {
            assert!(check_traceparent(bad).is_err(), "{bad}");
        }
        assert!(check_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future").is_ok());
        let kind = |s: &str| check_traceparent(s).unwrap_err().kind();
        assert_eq!(kind(""), "traceparent_length");
        assert_eq!(kind("00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01"), "traceparent_separator");
        assert_eq!(kind("00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"), "traceparent_not_hex");
        assert_eq!(kind("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), "traceparent_version_ff");
        assert_eq!(kind("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"), "traceparent_version_00_length");
        assert_eq!(kind("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"), "traceparent_extension");
        assert_eq!(kind("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), "traceparent_zero_trace_id");
        assert_eq!(kind("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"), "traceparent_zero_parent_id");
        let e = check_traceparent("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01").unwrap_err();
        assert_eq!(e.rule(), "OTEL-1");
        assert_eq!(
            e.to_string(),
            "`traceparent` trace-id `4BF92F3577B34DA6A3CE929D0E0E4736` must be lowercase hexadecimal"
        );
    }

    #[test]
    fn tracestate_and_baggage() {
        assert!(check_tracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE").is_ok());
        assert!(check_tracestate("tenant@vendor=x, ,a=b").is_ok());
        assert!(check_tracestate("Rojo=1").is_err());
        assert!(check_tracestate("a=1,a=2").is_err());
        assert!(check_tracestate("a=").is_err());
        assert!(check_tracestate(&(0..33).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",")).is_err());
        assert!(check_baggage("userId=alice,serverNode=DF%2028,isProduction=false;prop").is_ok());
        assert!(check_baggage("key with space=1").is_err());
        assert!(check_baggage("k=va lue").is_err());
        assert!(check_baggage("novalue").is_err());
        assert!(check_baggage(&(0..65).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",")).is_err());
        let ts = |s: &str| check_tracestate(s).unwrap_err();
        assert_eq!((ts("Rojo=1").kind(), ts("Rojo=1").rule()), ("tracestate_key", "OTEL-2"));
        assert_eq!(ts("a=1,a=2").kind(), "tracestate_duplicate_key");
        assert_eq!(ts("a=").kind(), "tracestate_value");
        assert_eq!(ts("novalue").kind(), "tracestate_member");
        assert_eq!(
            ts(&(0..33).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",")).kind(),
            "tracestate_too_many_members"
        );
        let bg = |s: &str| check_baggage(s).unwrap_err();
        assert_eq!((bg("key with space=1").kind(), bg("novalue").rule()), ("baggage_key", "OTEL-3"));
        assert_eq!(bg("k=va lue").kind(), "baggage_value");
        assert_eq!(bg("novalue").kind(), "baggage_member");
        assert_eq!(bg("k=v;=x").kind(), "baggage_property");
        assert_eq!(bg(&"k=v,".repeat(3000)).kind(), "baggage_too_long");
        assert_eq!(
            bg(&(0..65).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",")).kind(),
            "baggage_too_many_members"
        );
        assert_eq!(bg("k=v;=x").to_string(), "`baggage` property `=x` of `k` is invalid");
    }
}
