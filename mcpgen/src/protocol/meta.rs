//! `_meta` key grammar (META-1, META-3, AMB-5), with its typed error ([`MetaKeyError`]); the
//! W3C formats of the OpenTelemetry keys are in `otel.rs`.

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
}
