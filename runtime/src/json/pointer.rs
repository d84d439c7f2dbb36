//! JSON Pointers (RFC 6901): the one place that escapes and unescapes reference tokens, used by
//! every crate of the project (validation errors, protocol rules, tool schemas, codegen's schema
//! paths, which include this file, the oracle).

use std::borrow::Cow;

/// `token` escaped for a pointer: `~` → `~0`, `/` → `~1` (borrowed when there is nothing to
/// escape).
pub fn escape(token: &str) -> Cow<'_, str> {
    if !token.contains(['~', '/']) {
        return Cow::Borrowed(token);
    }
    let mut out = String::with_capacity(token.len() + 2);
    push_escaped(&mut out, token);
    Cow::Owned(out)
}

/// Appends `/` and the escaped `token` to `pointer`.
pub fn push(pointer: &mut String, token: &str) {
    pointer.push('/');
    push_escaped(pointer, token);
}

/// A pointer from unescaped tokens: `["params", "a/b"]` → `/params/a~1b`; no tokens is `""`,
/// the root.
pub fn from_tokens<'t>(tokens: impl IntoIterator<Item = &'t str>) -> String {
    let mut p = String::new();
    for t in tokens {
        push(&mut p, t);
    }
    p
}

/// The inverse of [`escape`]: `~1` → `/`, `~0` → `~`, in one pass (so `~01` is `~1`). A `~`
/// followed by anything else is kept as it is.
pub fn unescape(token: &str) -> Cow<'_, str> {
    if !token.contains('~') {
        return Cow::Borrowed(token);
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('~', Some('0')) => {
                out.push('~');
                chars.next();
            }
            ('~', Some('1')) => {
                out.push('/');
                chars.next();
            }
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The escaping itself, copying the runs between escapes whole (`_meta` keys often hold a `/`).
fn push_escaped(out: &mut String, token: &str) {
    let mut rest = token;
    while let Some(i) = rest.find(['~', '/']) {
        out.push_str(&rest[..i]);
        out.push_str(if rest.as_bytes()[i] == b'~' { "~0" } else { "~1" });
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_round_trips() {
        for (raw, escaped) in [("", ""), ("a", "a"), ("a/b", "a~1b"), ("~", "~0"), ("~/~~//é", "~0~1~0~0~1~1é")] {
            assert_eq!(escape(raw), escaped);
            assert_eq!(unescape(escaped), raw);
        }
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        // One pass: `~01` is `~1`, never `/`; an unknown escape is kept.
        assert_eq!(unescape("~01"), "~1");
        assert_eq!(unescape("~2~"), "~2~");
        let mut p = String::new();
        push(&mut p, "a/b");
        push(&mut p, "");
        assert_eq!(p, "/a~1b/");
        assert_eq!(from_tokens([]), "");
    }
}
