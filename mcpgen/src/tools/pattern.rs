//! Static checks on `pattern` / `patternProperties` regular expressions (JSCHEMA-8).
//!
//! `jsonschema` matches with `fancy-regex`, which hands a pattern without look-around or
//! back-references whole to the `regex` crate (linear time, whatever the pattern). Only patterns
//! that need the backtracking engine can be catastrophic; among those we refuse the classic
//! shapes: a group repeated without bound that itself contains an unbounded repetition or an
//! alternation (`(a+)+`, `(\w|\d)*`), which backtrack exponentially on a near-miss. What passes is
//! still bounded at match time by the engine's backtrack limit ([`Limits::backtrack_limit`](super::limits::Limits::backtrack_limit)).

/// What the scanner learned about a pattern.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PatternShape {
    /// Look-around (`(?=`, `(?!`, `(?<=`, `(?<!`) or back-references (`\1`, `\k<name>`):
    /// features only the backtracking engine has.
    pub needs_backtracking: bool,
    /// A group repeated without bound that contains an unbounded repetition or an alternation.
    pub nested_repetition: bool,
}

#[derive(Default)]
struct Group {
    has_unbounded: bool,
    has_alternation: bool,
}

/// Scans an ECMA-262-style pattern; tolerant of syntax it does not know (that is the regex
/// engine's job to reject).
pub(crate) fn shape(pattern: &str) -> PatternShape {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = PatternShape::default();
    let mut stack: Vec<Group> = vec![Group::default()];
    // What the previous atom was: a closed group's summary, or a plain atom.
    let mut last_group: Option<Group> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    if n.is_ascii_digit() && n != '0' || n == 'k' && chars.get(i + 2) == Some(&'<') {
                        out.needs_backtracking = true;
                    }
                }
                last_group = None;
                i += 2;
                continue;
            }
            '[' => {
                // Character class: skip to the closing bracket, honouring escapes.
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                last_group = None;
                i += 1;
                continue;
            }
            '(' => {
                let rest: String = chars[i + 1..chars.len().min(i + 4)].iter().collect();
                if rest.starts_with("?=")
                    || rest.starts_with("?!")
                    || rest.starts_with("?<=")
                    || rest.starts_with("?<!")
                {
                    out.needs_backtracking = true;
                }
                stack.push(Group::default());
                last_group = None;
            }
            ')' => {
                if stack.len() > 1 {
                    let g = stack.pop().unwrap_or_default();
                    // A group's unbounded content also makes its parent contain one.
                    if let Some(parent) = stack.last_mut() {
                        parent.has_unbounded |= g.has_unbounded;
                    }
                    last_group = Some(g);
                } else {
                    last_group = None;
                }
            }
            '|' => {
                if let Some(top) = stack.last_mut() {
                    top.has_alternation = true;
                }
                last_group = None;
            }
            '*' | '+' | '{' => {
                let (unbounded, consumed) = if c == '{' { brace_quantifier(&chars[i..]) } else { (true, 1) };
                if consumed == 0 {
                    // A literal `{`.
                    last_group = None;
                    i += 1;
                    continue;
                }
                if unbounded {
                    if let Some(g) = &last_group {
                        if g.has_unbounded || g.has_alternation {
                            out.nested_repetition = true;
                        }
                    }
                    if let Some(top) = stack.last_mut() {
                        top.has_unbounded = true;
                    }
                }
                last_group = None;
                i += consumed;
                // A lazy or possessive marker after a quantifier.
                if matches!(chars.get(i), Some('?') | Some('+')) {
                    i += 1;
                }
                continue;
            }
            _ => last_group = None,
        }
        i += 1;
    }
    out
}

/// `{n}`, `{n,}`, `{n,m}` at the start of `s`: (repeats without bound or more than once
/// over a wide range, characters consumed); `(false, 0)` when it is a literal brace.
fn brace_quantifier(s: &[char]) -> (bool, usize) {
    let Some(end) = s.iter().position(|&c| c == '}') else { return (false, 0) };
    let body: String = s[1..end].iter().collect();
    let mut parts = body.splitn(2, ',');
    let lo = parts.next().unwrap_or("");
    if lo.is_empty() || !lo.chars().all(|c| c.is_ascii_digit()) {
        return (false, 0);
    }
    match parts.next() {
        None => (false, end + 1),
        Some("") => (true, end + 1),
        Some(hi) if hi.chars().all(|c| c.is_ascii_digit()) => {
            // `{0,1000}` nests as badly as `*`; `{2,3}` does not.
            let hi: u64 = hi.parse().unwrap_or(u64::MAX);
            (hi > 16, end + 1)
        }
        Some(_) => (false, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::shape;

    #[test]
    fn plain_patterns_need_no_backtracking() {
        for p in ["^[a-z]+$", "^(a+)+$", "^\\d{4}-\\d{2}-\\d{2}$", "a{2,}", "[(]+"] {
            assert!(!shape(p).needs_backtracking, "{p}");
        }
        assert!(shape("^(a+)+$").nested_repetition);
    }

    #[test]
    fn lookaround_and_backreferences_need_backtracking() {
        for p in ["^(?=.*[A-Z]).{8,}$", "(?!foo)bar", "(?<=x)y", "(a)\\1", "(?<n>a)\\k<n>"] {
            assert!(shape(p).needs_backtracking, "{p}");
        }
    }

    #[test]
    fn nested_repetition_shapes() {
        for p in ["(a+)+", "(a*)*b", "(\\w|\\d)*", "((ab)*c)+", "(a+){2,}", "(x+x+)+y"] {
            assert!(shape(p).nested_repetition, "{p}");
        }
        for p in ["(ab)+", "(a|b)", "(a+)?", "(a+){2}", "[(a+)+]", "(a){1,3}"] {
            assert!(!shape(p).nested_repetition, "{p}");
        }
    }
}
