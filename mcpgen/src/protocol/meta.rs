//! `_meta` key grammar (META-1, META-3, AMB-5) and the W3C formats of the OpenTelemetry keys
//! (OTEL-1..3), with their typed errors ([`MetaKeyError`], [`OtelError`]).

use std::borrow::Cow;
use std::fmt;

use mcpgen_runtime::__rt::single;

use super::MetaKey;

use crate::rules::id;
use crate::{CoreError, ValidationError};

/// The second labels that make a prefix reserved for MCP (META-3), compared case-insensitively
/// (AMB-5).
const RESERVED_SECOND_LABELS: [&str; 2] = ["modelcontextprotocol", "mcp"];

/// Why a `_meta` key breaks the META-1 grammar ([`super::check_meta_key`]). Every variant has
/// rule META-1; its [`fmt::Display`] is the one message every surface shows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaKeyError {
    /// The empty key (AMB-5: rejected although the grammar's optional parts allow it).
    Empty,
    /// Two dots, or a dot at either end of the prefix.
    #[non_exhaustive]
    EmptyLabel { key: String },
    /// A prefix label that does not start with a letter.
    #[non_exhaustive]
    LabelStart { key: String, label: String },
    /// A prefix label that does not end with a letter or digit.
    #[non_exhaustive]
    LabelEnd { key: String, label: String },
    /// A prefix label with a character other than letters, digits and `-`.
    #[non_exhaustive]
    LabelChar { key: String, label: String, found: char },
    /// A name that does not start with a letter or digit.
    #[non_exhaustive]
    NameStart { key: String, name: String },
    /// A name that does not end with a letter or digit.
    #[non_exhaustive]
    NameEnd { key: String, name: String },
    /// A second `/`: a key has at most one prefix separator.
    #[non_exhaustive]
    NameSlash { key: String, name: String },
    /// A name with a character other than letters, digits, `.`, `_` and `-`.
    #[non_exhaustive]
    NameChar { key: String, name: String, found: char },
}

impl MetaKeyError {
    /// Stable snake_case name of the variant (`empty_key`, `empty_label`, `label_start`,
    /// `label_end`, `label_char`, `name_start`, `name_end`, `name_slash`, `name_char`).
    pub fn kind(&self) -> &'static str {
        match self {
            MetaKeyError::Empty => "empty_key",
            MetaKeyError::EmptyLabel { .. } => "empty_label",
            MetaKeyError::LabelStart { .. } => "label_start",
            MetaKeyError::LabelEnd { .. } => "label_end",
            MetaKeyError::LabelChar { .. } => "label_char",
            MetaKeyError::NameStart { .. } => "name_start",
            MetaKeyError::NameEnd { .. } => "name_end",
            MetaKeyError::NameSlash { .. } => "name_slash",
            MetaKeyError::NameChar { .. } => "name_char",
        }
    }

    /// The rule: `META-1` (the grammar; the empty key is its AMB-5 reading).
    pub fn rule(&self) -> &'static str {
        id::META_1
    }

    /// The key that was checked.
    pub fn key(&self) -> &str {
        match self {
            MetaKeyError::Empty => "",
            MetaKeyError::EmptyLabel { key }
            | MetaKeyError::LabelStart { key, .. }
            | MetaKeyError::LabelEnd { key, .. }
            | MetaKeyError::LabelChar { key, .. }
            | MetaKeyError::NameStart { key, .. }
            | MetaKeyError::NameEnd { key, .. }
            | MetaKeyError::NameSlash { key, .. }
            | MetaKeyError::NameChar { key, .. } => key,
        }
    }
}

impl fmt::Display for MetaKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let MetaKeyError::Empty = self {
            return f.write_str("empty `_meta` key (AMB-5: rejected although the grammar's optional parts allow it)");
        }
        write!(f, "invalid `_meta` key `{}`: ", self.key())?;
        match self {
            MetaKeyError::Empty => Ok(()),
            MetaKeyError::EmptyLabel { .. } => {
                f.write_str("empty label (two dots, or a dot at either end of the prefix)")
            }
            MetaKeyError::LabelStart { label, .. } => write!(f, "prefix label `{label}` must start with a letter"),
            MetaKeyError::LabelEnd { label, .. } => write!(f, "prefix label `{label}` must end with a letter or digit"),
            MetaKeyError::LabelChar { label, found, .. } => {
                write!(f, "prefix label `{label}` contains `{found}`; only letters, digits and `-` are allowed")
            }
            MetaKeyError::NameStart { name, .. } => write!(f, "name `{name}` must start with a letter or digit"),
            MetaKeyError::NameEnd { name, .. } => write!(f, "name `{name}` must end with a letter or digit"),
            MetaKeyError::NameSlash { name, .. } => {
                write!(f, "name `{name}` contains `/`; a key has at most one prefix separator")
            }
            MetaKeyError::NameChar { name, found, .. } => {
                write!(f, "name `{name}` contains `{found}`; only letters, digits, `.`, `_` and `-` are allowed")
            }
        }
    }
}

impl std::error::Error for MetaKeyError {}

/// META-1 label: starts with a letter, ends with a letter or digit, letters/digits/`-` inside.
fn check_label(key: &str, label: &str) -> Result<(), MetaKeyError> {
    let b = label.as_bytes();
    let owned = || (key.to_owned(), label.to_owned());
    match (b.first(), b.last()) {
        (None, _) | (_, None) => Err(MetaKeyError::EmptyLabel { key: key.to_owned() }),
        (Some(f), _) if !f.is_ascii_alphabetic() => {
            let (key, label) = owned();
            Err(MetaKeyError::LabelStart { key, label })
        }
        (_, Some(l)) if !l.is_ascii_alphanumeric() => {
            let (key, label) = owned();
            Err(MetaKeyError::LabelEnd { key, label })
        }
        _ => match label.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-')) {
            Some(found) => {
                let (key, label) = owned();
                Err(MetaKeyError::LabelChar { key, label, found })
            }
            None => Ok(()),
        },
    }
}

/// META-1 name: empty, or alphanumeric at both ends with `[A-Za-z0-9._-]` inside.
fn check_name(key: &str, name: &str) -> Result<(), MetaKeyError> {
    let b = name.as_bytes();
    let (Some(f), Some(l)) = (b.first(), b.last()) else { return Ok(()) };
    let owned = || (key.to_owned(), name.to_owned());
    if !f.is_ascii_alphanumeric() {
        let (key, name) = owned();
        return Err(MetaKeyError::NameStart { key, name });
    }
    if !l.is_ascii_alphanumeric() {
        let (key, name) = owned();
        return Err(MetaKeyError::NameEnd { key, name });
    }
    match name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        Some('/') => {
            let (key, name) = owned();
            Err(MetaKeyError::NameSlash { key, name })
        }
        Some(found) => {
            let (key, name) = owned();
            Err(MetaKeyError::NameChar { key, name, found })
        }
        None => Ok(()),
    }
}

pub(super) fn check_meta_key(key: &str) -> Result<MetaKey, MetaKeyError> {
    let (prefix, name, reserved) = split_meta_key(key)?;
    Ok(MetaKey { prefix: prefix.map(str::to_owned), name: name.to_owned(), reserved })
}

/// [`check_meta_key`] without copies: (prefix, name, reserved), borrowed from `key`.
#[inline]
pub(super) fn split_meta_key(key: &str) -> Result<(Option<&str>, &str, bool), MetaKeyError> {
    match split_well_formed(key) {
        Some(parts) => Ok(parts),
        None => split_explained(key),
    }
}

/// The META-1 grammar in one pass over the bytes, for a key that keeps it (every message's
/// keys, nearly always); `None` sends the key to [`split_explained`], which says what is wrong.
/// The two must agree on every key (`the_one_pass_reading_agrees_with_the_explained_one`).
fn split_well_formed(key: &str) -> Option<(Option<&str>, &str, bool)> {
    let b = key.as_bytes();
    let slash = b.iter().position(|&c| c == b'/');
    let name_at = match slash {
        Some(end) => end + 1,
        None if b.is_empty() => return None,
        None => 0,
    };
    let mut reserved = false;
    if let Some(end) = slash {
        let (mut start, mut index) = (0, 0);
        for (i, &c) in b[..=end].iter().enumerate() {
            if i < end && c != b'.' {
                if !(c.is_ascii_alphanumeric() || c == b'-') {
                    return None;
                }
                continue;
            }
            let label = &b[start..i];
            match (label.first(), label.last()) {
                (Some(f), Some(l)) if f.is_ascii_alphabetic() && l.is_ascii_alphanumeric() => {}
                _ => return None,
            }
            reserved |= index == 1 && RESERVED_SECOND_LABELS.iter().any(|r| label.eq_ignore_ascii_case(r.as_bytes()));
            (start, index) = (i + 1, index + 1);
        }
    }
    let name = &b[name_at..];
    if let (Some(f), Some(l)) = (name.first(), name.last()) {
        let inner = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-');
        if !f.is_ascii_alphanumeric() || !l.is_ascii_alphanumeric() || !name.iter().all(inner) {
            return None;
        }
    }
    Some((slash.map(|end| &key[..end]), &key[name_at..], reserved))
}

/// [`split_meta_key`] label by label, with the first violation as the error.
fn split_explained(key: &str) -> Result<(Option<&str>, &str, bool), MetaKeyError> {
    if key.is_empty() {
        return Err(MetaKeyError::Empty);
    }
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let mut reserved = false;
    if let Some(p) = prefix {
        for (i, label) in p.split('.').enumerate() {
            check_label(key, label)?;
            if i == 1 && RESERVED_SECOND_LABELS.iter().any(|r| label.eq_ignore_ascii_case(r)) {
                reserved = true;
            }
        }
    }
    check_name(key, name)?;
    Ok((prefix, name, reserved))
}

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

/// Kind as [`MetaKeyError::kind`], rule META-1; one entry at `""` with keyword `propertyNames`
/// (the keyword that would express the grammar).
impl CoreError for MetaKeyError {
    fn kind(&self) -> &'static str {
        MetaKeyError::kind(self)
    }
    fn rule(&self) -> Option<&'static str> {
        Some(MetaKeyError::rule(self))
    }
    fn errors(&self) -> Cow<'_, [ValidationError]> {
        single("", "propertyNames", Some(MetaKeyError::rule(self)), self.to_string())
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

    /// Every key of up to five characters over the grammar's classes (and a multi-byte one), and
    /// longer keys around the reserved labels: the one-pass reading accepts exactly the keys the
    /// label-by-label reading accepts, with the same parts.
    #[test]
    fn the_one_pass_reading_agrees_with_the_explained_one() {
        let alphabet = ['a', 'Z', '0', '-', '.', '_', '/', 'é', ' '];
        let mut keys: Vec<String> = vec![String::new()];
        let mut level = keys.clone();
        for _ in 0..5 {
            level = level.iter().flat_map(|k| alphabet.iter().map(move |c| format!("{k}{c}"))).collect();
            keys.extend(level.iter().cloned());
        }
        for lead in ["io", "x.y", "a-b", "1a"] {
            for second in ["modelcontextprotocol", "mCp", "mcp-x", "mcp", ""] {
                for name in ["protocolVersion", "", "a_b.c-d", "-x", "x/y"] {
                    keys.push(format!("{lead}.{second}/{name}"));
                    keys.push(format!("{lead}.{second}.z/{name}"));
                }
            }
        }
        let mut accepted = 0;
        for key in &keys {
            let fast = split_well_formed(key);
            let explained = split_explained(key);
            assert_eq!(fast, explained.clone().ok(), "{key:?}: {explained:?}");
            accepted += usize::from(fast.is_some());
        }
        assert!(accepted > 1_000 && accepted < keys.len() / 2, "{accepted} of {}", keys.len());
        assert_eq!(
            split_well_formed("io.modelcontextprotocol/protocolVersion"),
            Some((Some("io.modelcontextprotocol"), "protocolVersion", true))
        );
        assert_eq!(split_well_formed("a.mcp.b/"), Some((Some("a.mcp.b"), "", true)));
        assert_eq!(split_well_formed("mcp.a/x"), Some((Some("mcp.a"), "x", false)));
    }

    #[test]
    fn meta_keys_vector_28_26() {
        let ok = |k: &str| check_meta_key(k).unwrap_or_else(|e| panic!("{k}: {e}"));
        let k = ok("com.example/foo");
        assert_eq!((k.prefix.as_deref(), k.name.as_str(), k.reserved), (Some("com.example"), "foo", false));
        let k = ok("example/");
        assert_eq!((k.prefix.as_deref(), k.name.as_str()), (Some("example"), ""));
        for bad in [
            "1abc/x",
            "com.-ex/x",
            "com.example/-x",
            "",
            "com..example/x",
            "com.ex-/x",
            "a/b/c",
            "com.example/x y",
            "/x",
        ] {
            assert!(check_meta_key(bad).is_err(), "{bad:?} must be invalid");
        }
        assert!(ok("io.mcp/x").reserved);
        assert!(ok("io.modelcontextprotocol/protocolVersion").reserved);
        assert!(ok("org.modelcontextprotocol.api/x").reserved);
        assert!(ok("IO.MCP/x").reserved, "reserved check is case-insensitive (AMB-5)");
        assert!(!ok("com.example.mcp/x").reserved);
        assert!(!ok("mcp/x").reserved, "single label: no second label (literal rule)");
        let k = ok("progressToken");
        assert_eq!((k.prefix, k.name.as_str(), k.reserved), (None, "progressToken", false));
        ok("a");
        ok("a.b_c-d");
    }

    #[test]
    fn meta_key_errors_are_typed() {
        let cases: [(&str, &str, &str); 10] = [
            ("", "empty_key", "empty `_meta` key (AMB-5: rejected although the grammar's optional parts allow it)"),
            (
                "com..example/x",
                "empty_label",
                "invalid `_meta` key `com..example/x`: empty label (two dots, or a dot at either end of the prefix)",
            ),
            ("1abc/x", "label_start", "invalid `_meta` key `1abc/x`: prefix label `1abc` must start with a letter"),
            ("com.ex-/x", "label_end", "invalid `_meta` key `com.ex-/x`: prefix label `ex-` must end with a letter or digit"),
            (
                "com.e_x/y",
                "label_char",
                "invalid `_meta` key `com.e_x/y`: prefix label `e_x` contains `_`; only letters, digits and `-` are allowed",
            ),
            (
                "com.eé1/y",
                "label_char",
                "invalid `_meta` key `com.eé1/y`: prefix label `eé1` contains `é`; only letters, digits and `-` are allowed",
            ),
            ("com.example/-x", "name_start", "invalid `_meta` key `com.example/-x`: name `-x` must start with a letter or digit"),
            ("x.", "name_end", "invalid `_meta` key `x.`: name `x.` must end with a letter or digit"),
            ("a/b/c", "name_slash", "invalid `_meta` key `a/b/c`: name `b/c` contains `/`; a key has at most one prefix separator"),
            (
                "com.example/x y",
                "name_char",
                "invalid `_meta` key `com.example/x y`: name `x y` contains ` `; only letters, digits, `.`, `_` and `-` are allowed",
            ),
        ];
        for (key, kind, message) in cases {
            let e = check_meta_key(key).unwrap_err();
            assert_eq!((e.kind(), e.rule(), e.key(), e.to_string().as_str()), (kind, "META-1", key, message));
        }
    }

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
