//! `_meta` key grammar (META-1, META-3, AMB-5) and the W3C formats of the OpenTelemetry keys
//! (OTEL-1..3).

use super::MetaKey;

/// The second labels that make a prefix reserved for MCP (META-3), compared case-insensitively
/// (AMB-5).
const RESERVED_SECOND_LABELS: [&str; 2] = ["modelcontextprotocol", "mcp"];

/// META-1 label: starts with a letter, ends with a letter or digit, letters/digits/`-` inside.
fn check_label(label: &str) -> Result<(), String> {
    let b = label.as_bytes();
    match (b.first(), b.last()) {
        (None, _) | (_, None) => Err("empty label (two dots, or a dot at either end of the prefix)".into()),
        (Some(f), _) if !f.is_ascii_alphabetic() => Err(format!("prefix label `{label}` must start with a letter")),
        (_, Some(l)) if !l.is_ascii_alphanumeric() => {
            Err(format!("prefix label `{label}` must end with a letter or digit"))
        }
        _ => match b.iter().find(|c| !(c.is_ascii_alphanumeric() || **c == b'-')) {
            Some(c) => Err(format!(
                "prefix label `{label}` contains `{}`; only letters, digits and `-` are allowed",
                char::from(*c)
            )),
            None => Ok(()),
        },
    }
}

/// META-1 name: empty, or alphanumeric at both ends with `[A-Za-z0-9._-]` inside.
fn check_name(name: &str) -> Result<(), String> {
    let b = name.as_bytes();
    let (Some(f), Some(l)) = (b.first(), b.last()) else { return Ok(()) };
    if !f.is_ascii_alphanumeric() {
        return Err(format!("name `{name}` must start with a letter or digit"));
    }
    if !l.is_ascii_alphanumeric() {
        return Err(format!("name `{name}` must end with a letter or digit"));
    }
    match name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        Some('/') => Err(format!("name `{name}` contains `/`; a key has at most one prefix separator")),
        Some(c) => Err(format!("name `{name}` contains `{c}`; only letters, digits, `.`, `_` and `-` are allowed")),
        None => Ok(()),
    }
}

pub(super) fn check_meta_key(key: &str) -> Result<MetaKey, String> {
    let (prefix, name, reserved) = split_meta_key(key)?;
    Ok(MetaKey { prefix: prefix.map(str::to_owned), name: name.to_owned(), reserved })
}

/// [`check_meta_key`] without copies: (prefix, name, reserved), borrowed from `key`.
pub(super) fn split_meta_key(key: &str) -> Result<(Option<&str>, &str, bool), String> {
    if key.is_empty() {
        return Err("empty `_meta` key (AMB-5: rejected although the grammar's optional parts allow it)".into());
    }
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let mut reserved = false;
    if let Some(p) = prefix {
        for (i, label) in p.split('.').enumerate() {
            check_label(label).map_err(|e| format!("invalid `_meta` key `{key}`: {e}"))?;
            if i == 1 && RESERVED_SECOND_LABELS.iter().any(|r| label.eq_ignore_ascii_case(r)) {
                reserved = true;
            }
        }
    }
    check_name(name).map_err(|e| format!("invalid `_meta` key `{key}`: {e}"))?;
    Ok((prefix, name, reserved))
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// OTEL-1: W3C Trace Context `traceparent` (`version-traceid-parentid-flags`, lowercase hex).
pub fn check_traceparent(s: &str) -> Result<(), String> {
    if s.len() < 55 || !s.is_ascii() {
        return Err(format!(
            "`traceparent` must be at least 55 ASCII characters (`00-<32 hex>-<16 hex>-<2 hex>`), found {} characters",
            s.chars().count()
        ));
    }
    let (version, trace_id, parent_id, flags) = (&s[0..2], &s[3..35], &s[36..52], &s[53..55]);
    if [2usize, 35, 52].iter().any(|&i| s.as_bytes()[i] != b'-') {
        return Err("`traceparent` fields must be separated by `-` (`00-<32 hex>-<16 hex>-<2 hex>`)".into());
    }
    for (what, field) in
        [("version", version), ("trace-id", trace_id), ("parent-id", parent_id), ("trace-flags", flags)]
    {
        if !is_lower_hex(field) {
            return Err(format!("`traceparent` {what} `{field}` must be lowercase hexadecimal"));
        }
    }
    if version == "ff" {
        return Err("`traceparent` version `ff` is invalid".into());
    }
    if version == "00" && s.len() != 55 {
        return Err(format!("`traceparent` version 00 is exactly 55 characters, found {}", s.len()));
    }
    if s.len() > 55 && s.as_bytes()[55] != b'-' {
        return Err("`traceparent` of a later version may only append fields after a `-`".into());
    }
    if trace_id.bytes().all(|c| c == b'0') {
        return Err("`traceparent` trace-id must not be all zeros".into());
    }
    if parent_id.bytes().all(|c| c == b'0') {
        return Err("`traceparent` parent-id must not be all zeros".into());
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
pub fn check_tracestate(s: &str) -> Result<(), String> {
    let mut keys: Vec<&str> = Vec::new();
    for member in s.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            continue; // empty list members are allowed
        }
        let Some((key, value)) = member.split_once('=') else {
            return Err(format!("`tracestate` member `{member}` is not `key=value`"));
        };
        if !check_tracestate_key(key) {
            return Err(format!(
                "`tracestate` key `{key}` is invalid (lowercase letter first, then `a-z0-9_-*/`, or `tenant@system`)"
            ));
        }
        let vb = value.as_bytes();
        let value_ok = (1..=256).contains(&vb.len())
            && vb.iter().all(|&c| (0x20..=0x7e).contains(&c) && c != b',' && c != b'=')
            && vb.last() != Some(&b' ');
        if !value_ok {
            return Err(format!("`tracestate` value for `{key}` is invalid (1-256 printable ASCII characters, no `,` or `=`, not ending in a space)"));
        }
        if keys.contains(&key) {
            return Err(format!("`tracestate` key `{key}` appears twice"));
        }
        keys.push(key);
    }
    if keys.len() > 32 {
        return Err(format!("`tracestate` has {} members; at most 32 are allowed", keys.len()));
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
pub fn check_baggage(s: &str) -> Result<(), String> {
    if s.len() > 8192 {
        return Err(format!("`baggage` is {} bytes; the propagation limit is 8192", s.len()));
    }
    let mut count = 0;
    for member in s.split(',') {
        count += 1;
        let mut parts = member.split(';');
        let kv = parts.next().unwrap_or_default();
        let Some((key, value)) = kv.split_once('=') else {
            return Err(format!("`baggage` member `{}` is not `key=value`", member.trim()));
        };
        let (key, value) = (key.trim_matches([' ', '\t']), value.trim_matches([' ', '\t']));
        if key.is_empty() || !key.bytes().all(is_tchar) {
            return Err(format!("`baggage` key `{key}` is not an HTTP token"));
        }
        if !value.bytes().all(is_baggage_octet) {
            return Err(format!("`baggage` value for `{key}` has characters that must be percent-encoded"));
        }
        for prop in parts {
            let (pk, pv) = match prop.split_once('=') {
                Some((k, v)) => (k.trim_matches([' ', '\t']), Some(v.trim_matches([' ', '\t']))),
                None => (prop.trim_matches([' ', '\t']), None),
            };
            if pk.is_empty() || !pk.bytes().all(is_tchar) || pv.is_some_and(|v| !v.bytes().all(is_baggage_octet)) {
                return Err(format!("`baggage` property `{}` of `{key}` is invalid", prop.trim()));
            }
        }
    }
    if count > 64 {
        return Err(format!("`baggage` has {count} members; the propagation limit is 64"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
