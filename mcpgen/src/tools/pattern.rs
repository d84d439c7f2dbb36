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
    let mut scan = Scan {
        chars: pattern.chars().collect(),
        i: 0,
        out: PatternShape::default(),
        stack: vec![Group::default()],
        last_group: None,
    };
    while let Some(&c) = scan.chars.get(scan.i) {
        match c {
            '\\' => scan.escape(),
            '[' => scan.class(),
            '(' => scan.open_group(),
            ')' => scan.close_group(),
            '|' => scan.alternation(),
            '*' | '+' | '{' => scan.quantifier(c),
            _ => {
                scan.last_group = None;
                scan.i += 1;
            }
        }
    }
    scan.out
}

/// The scanner of [`shape`]: each step reads the construct at `i` and moves past it.
struct Scan {
    chars: Vec<char>,
    i: usize,
    out: PatternShape,
    /// The open groups, the pattern itself at the bottom.
    stack: Vec<Group>,
    /// What the previous atom was: a closed group's summary, or a plain atom.
    last_group: Option<Group>,
}

impl Scan {
    /// An escape: a back-reference (`\1`, `\k<name>`) needs backtracking.
    fn escape(&mut self) {
        let i = self.i;
        if let Some(&n) = self.chars.get(i + 1) {
            if n.is_ascii_digit() && n != '0' || n == 'k' && self.chars.get(i + 2) == Some(&'<') {
                self.out.needs_backtracking = true;
            }
        }
        self.last_group = None;
        self.i += 2;
    }

    /// A character class: skipped to the closing bracket, honouring escapes.
    fn class(&mut self) {
        let chars = &self.chars;
        let mut i = self.i + 1;
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
        self.last_group = None;
        self.i = i + 1;
    }

    /// `(`: a group opens; a look-around needs backtracking.
    fn open_group(&mut self) {
        let i = self.i;
        let rest: String = self.chars[i + 1..self.chars.len().min(i + 4)].iter().collect();
        if rest.starts_with("?=") || rest.starts_with("?!") || rest.starts_with("?<=") || rest.starts_with("?<!") {
            self.out.needs_backtracking = true;
        }
        self.stack.push(Group::default());
        self.last_group = None;
        self.i += 1;
    }

    /// `)`: the group closes and becomes the previous atom (an unmatched one is a plain atom).
    fn close_group(&mut self) {
        if self.stack.len() > 1 {
            let g = self.stack.pop().unwrap_or_default();
            // A group's unbounded content also makes its parent contain one.
            if let Some(parent) = self.stack.last_mut() {
                parent.has_unbounded |= g.has_unbounded;
            }
            self.last_group = Some(g);
        } else {
            self.last_group = None;
        }
        self.i += 1;
    }

    /// `|`: the innermost open group alternates.
    fn alternation(&mut self) {
        if let Some(top) = self.stack.last_mut() {
            top.has_alternation = true;
        }
        self.last_group = None;
        self.i += 1;
    }

    /// `*`, `+` or `{…}` (`c`): an unbounded repetition of a group that repeats or alternates
    /// is nested repetition; a `{` that is no quantifier is a literal.
    fn quantifier(&mut self, c: char) {
        let (unbounded, consumed) = if c == '{' { brace_quantifier(&self.chars[self.i..]) } else { (true, 1) };
        if consumed == 0 {
            // A literal `{`.
            self.last_group = None;
            self.i += 1;
            return;
        }
        if unbounded {
            if let Some(g) = &self.last_group {
                if g.has_unbounded || g.has_alternation {
                    self.out.nested_repetition = true;
                }
            }
            if let Some(top) = self.stack.last_mut() {
                top.has_unbounded = true;
            }
        }
        self.last_group = None;
        self.i += consumed;
        // A lazy or possessive marker after a quantifier.
        if matches!(self.chars.get(self.i), Some('?') | Some('+')) {
            self.i += 1;
        }
    }
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
