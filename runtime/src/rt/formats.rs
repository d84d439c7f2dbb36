//! `format` checks used in strict-format mode (see [`crate::validate::Options::strict_formats`]).

/// RFC 3986 absolute URI: a scheme, `:`, and no characters that can never appear in a URI.
pub fn is_uri(s: &str) -> bool {
    let Some(colon) = s.find(':') else { return false };
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        return false;
    }
    let rest = &s[colon + 1..];
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'%' {
            if !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        let allowed = c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c);
        if !allowed {
            return false;
        }
        i += 1;
    }
    true
}

/// RFC 6570 URI template: balanced, non-nested `{…}` expressions with valid variable names,
/// and URI characters outside them.
pub fn is_uri_template(s: &str) -> bool {
    let mut in_expr = false;
    let mut expr = String::new();
    for c in s.chars() {
        match (in_expr, c) {
            (false, '{') => {
                in_expr = true;
                expr.clear();
            }
            (false, '}') => return false,
            (false, c) => {
                if c.is_ascii_control()
                    || c == ' '
                    || c == '"'
                    || c == '<'
                    || c == '>'
                    || c == '\\'
                    || c == '^'
                    || c == '`'
                    || c == '|'
                {
                    return false;
                }
            }
            (true, '}') => {
                if !valid_expression(&expr) {
                    return false;
                }
                in_expr = false;
            }
            (true, '{') => return false,
            (true, c) => expr.push(c),
        }
    }
    !in_expr
}

fn valid_expression(e: &str) -> bool {
    let body = e.strip_prefix(['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|']).unwrap_or(e);
    !body.is_empty()
        && body.split(',').all(|var| {
            let var = var.strip_suffix('*').unwrap_or(var);
            let name = match var.split_once(':') {
                Some((n, len)) => {
                    if len.is_empty() || len.len() > 4 || !len.bytes().all(|b| b.is_ascii_digit()) {
                        return false;
                    }
                    n
                }
                None => var,
            };
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%')
        })
}

/// Standard Base64 with padding (RFC 4648 §4), as `format: byte` means.
pub fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return false;
    }
    b[..b.len() - pad].iter().all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert!(is_uri("https://example.com/a?b=c#d"));
        assert!(is_uri("file:///tmp/x"));
        assert!(is_uri("urn:isbn:123"));
        assert!(!is_uri("no-scheme"));
        assert!(!is_uri("1http://x"));
        assert!(!is_uri("http://exa mple.com"));
        assert!(!is_uri("http://x/%zz"));
    }

    #[test]
    fn templates() {
        assert!(is_uri_template("file:///{path}"));
        assert!(is_uri_template("https://x/{+base}{?q,lang}"));
        assert!(!is_uri_template("file:///{path"));
        assert!(!is_uri_template("a}b"));
        assert!(!is_uri_template("{}"));
    }

    #[test]
    fn base64() {
        assert!(is_base64("aGVsbG8="));
        assert!(is_base64(""));
        assert!(!is_base64("aGVsbG8"));
        assert!(!is_base64("a==="));
        assert!(!is_base64("aGV$bG8="));
    }
}
