//! The tape parser as it was before the SSE2 string scan (issue 36, item 4), kept verbatim as the
//! oracle of the differential tests (`tape::differential`) and of the `parse_differential` fuzz
//! target: every input must give the same tape (tags, lexeme offsets and lengths, counts) or the
//! same [`ParseError`] (message, byte offset, line, column, MSG-8, depth flag) through both
//! parsers. Not part of the API; compiled for tests and with the `differential` feature only.
//! Do not "improve" this file: its worth is that it does not change.

use super::{error_at, Node, ParseError, ParseOptions, Tag};

/// What the old parser made of `bytes`: the tape's nodes and its count of skipped containers,
/// or its error.
pub(crate) fn parse(bytes: &[u8], opts: ParseOptions) -> Result<(Vec<Node>, usize), ParseError> {
    let src = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            return Err(ParseError {
                invalid_utf8: true,
                ..error_at(bytes, e.valid_up_to(), "invalid UTF-8 (messages must be UTF-8)".into())
            })
        }
    };
    if src.len() >= u32::MAX as usize {
        return Err(error_at(src.as_bytes(), 0, "input larger than 4 GiB".into()));
    }
    let mut p = Parser {
        b: src.as_bytes(),
        i: 0,
        nodes: Vec::new(),
        stack: Vec::new(),
        max_depth: opts.max_depth,
        skip_deeper: opts.skip_deeper,
        skipped: 0,
    };
    let result = p.run();
    let too_deep =
        result.is_err() && !p.skip_deeper && p.stack.len() >= p.max_depth && matches!(p.peek(), Some(b'{' | b'['));
    match result {
        Ok(()) => Ok((p.nodes, p.skipped)),
        Err(msg) => Err(ParseError { too_deep, ..error_at(src.as_bytes(), p.i, msg) }),
    }
}

struct Parser<'b> {
    b: &'b [u8],
    i: usize,
    nodes: Vec<Node>,
    /// Open containers: node index.
    stack: Vec<u32>,
    max_depth: usize,
    skip_deeper: bool,
    skipped: usize,
}

// Bytes that end the fast scan inside a string: quote, backslash, control characters.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Index of the first byte at or after `j` that ends the fast scan inside a string (quote,
/// backslash, control character), or `b.len()`. Eight bytes at a time (SWAR): for each byte
/// lane, `x - 0x01..` borrows into the high bit exactly when the lane was below the bound, and
/// the lowest flagged lane is always exact, which is the only one used.
#[inline]
fn scan_string(b: &[u8], mut j: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    #[inline(always)]
    fn stops(w: u64) -> u64 {
        let q = w ^ (ONES * b'"' as u64);
        let s = w ^ (ONES * b'\\' as u64);
        let zero_q = q.wrapping_sub(ONES) & !q;
        let zero_s = s.wrapping_sub(ONES) & !s;
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        (zero_q | zero_s | control) & HIGH
    }
    // Two words per step while the input lasts (fewer bounds checks and branches), then one.
    while let Some(chunk) = b.get(j..j + 16) {
        let (lo, hi) = chunk.split_at(8);
        let m = stops(u64::from_le_bytes(lo.try_into().expect("8 bytes")));
        if m != 0 {
            return j + (m.trailing_zeros() / 8) as usize;
        }
        let m = stops(u64::from_le_bytes(hi.try_into().expect("8 bytes")));
        if m != 0 {
            return j + 8 + (m.trailing_zeros() / 8) as usize;
        }
        j += 16;
    }
    while let Some(chunk) = b.get(j..j + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let m = stops(w);
        if m != 0 {
            return j + (m.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    while j < b.len() && !STRING_STOP[b[j] as usize] {
        j += 1;
    }
    j
}

impl<'b> Parser<'b> {
    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b' ' || c == b'\n' || c == b'\r' || c == b'\t' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn run(&mut self) -> Result<(), String> {
        'value: loop {
            // Expecting a value.
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(if self.nodes.is_empty() {
                    "empty input".into()
                } else {
                    "unexpected end of input".into()
                });
            };
            match c {
                b'{' | b'[' if self.stack.len() >= self.max_depth => {
                    if !self.skip_deeper {
                        return Err(format!("nesting deeper than {} levels", self.max_depth));
                    }
                    let start = self.i;
                    self.skip_container()?;
                    self.nodes.push(Node { tag: Tag::Null, a: start as u32, b: (self.i - start) as u32 });
                    self.skipped += 1;
                }
                b'{' | b'[' => {
                    let tag = if c == b'{' { Tag::Object } else { Tag::Array };
                    let idx = self.nodes.len() as u32;
                    self.nodes.push(Node { tag, a: 0, b: 0 });
                    self.i += 1;
                    self.skip_ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.i += 1;
                        self.nodes[idx as usize].b = idx + 1;
                        // Empty container is a complete value: fall through to "after value".
                    } else {
                        self.stack.push(idx);
                        if c == b'{' {
                            self.key()?;
                        }
                        continue 'value;
                    }
                }
                b'"' => self.string()?,
                b't' => self.literal(b"true", Tag::True)?,
                b'f' => self.literal(b"false", Tag::False)?,
                b'n' => self.literal(b"null", Tag::Null)?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(format!("expected a JSON value, found {}", describe_byte(c))),
            }
            // After a complete value.
            loop {
                let Some(&top) = self.stack.last() else {
                    self.skip_ws();
                    if self.i != self.b.len() {
                        return Err("trailing characters after the JSON value".into());
                    }
                    return Ok(());
                };
                let top_u = top as usize;
                self.nodes[top_u].a += 1;
                self.skip_ws();
                let is_obj = self.nodes[top_u].tag == Tag::Object;
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        if is_obj {
                            self.skip_ws();
                            self.key()?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if is_obj => {}
                    Some(b']') if !is_obj => {}
                    Some(c) => return Err(expected_separator(is_obj, c)),
                    None => return Err(END_IN_CONTAINER.into()),
                }
                self.i += 1;
                self.nodes[top_u].b = self.nodes.len() as u32;
                self.stack.pop();
            }
        }
    }

    /// [`ParseOptions::skip_deeper`]: checks the syntax of the container at the cursor to its
    /// end, at any depth, recording nothing (one bit per open level: object or array); the
    /// cursor ends after it. The errors are the ones [`Parser::run`] would report.
    fn skip_container(&mut self) -> Result<(), String> {
        let mark = self.nodes.len();
        let result = self.skip_container_inner(mark);
        self.nodes.truncate(mark);
        result
    }

    fn skip_container_inner(&mut self, mark: usize) -> Result<(), String> {
        // Bit `d` of `open`: the container open at depth `d` (0: the skipped one) is an object.
        let mut open: Vec<u64> = Vec::new();
        let mut depth = 0usize;
        'value: loop {
            self.skip_ws();
            let Some(c) = self.peek() else { return Err("unexpected end of input".into()) };
            match c {
                b'{' | b'[' => {
                    let is_obj = c == b'{';
                    self.i += 1;
                    self.skip_ws();
                    if self.peek() != Some(if is_obj { b'}' } else { b']' }) {
                        if depth / 64 == open.len() {
                            open.push(0);
                        }
                        let (word, bit) = (depth / 64, depth % 64);
                        open[word] = (open[word] & !(1 << bit)) | (u64::from(is_obj) << bit);
                        depth += 1;
                        if is_obj {
                            self.key()?;
                            self.nodes.truncate(mark);
                        }
                        continue 'value;
                    }
                    self.i += 1;
                }
                b'"' => self.string()?,
                b't' => self.literal(b"true", Tag::True)?,
                b'f' => self.literal(b"false", Tag::False)?,
                b'n' => self.literal(b"null", Tag::Null)?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(format!("expected a JSON value, found {}", describe_byte(c))),
            }
            self.nodes.truncate(mark);
            // After a complete value.
            loop {
                let Some(top) = depth.checked_sub(1) else { return Ok(()) };
                let is_obj = open[top / 64] >> (top % 64) & 1 == 1;
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        if is_obj {
                            self.skip_ws();
                            self.key()?;
                            self.nodes.truncate(mark);
                        }
                        continue 'value;
                    }
                    Some(b'}') if is_obj => {}
                    Some(b']') if !is_obj => {}
                    Some(c) => return Err(expected_separator(is_obj, c)),
                    None => return Err(END_IN_CONTAINER.into()),
                }
                self.i += 1;
                depth = top;
            }
        }
    }

    /// Parses `"key"` then `:`; leaves the cursor before the value.
    fn key(&mut self) -> Result<(), String> {
        match self.peek() {
            Some(b'"') => self.string()?,
            Some(c) => return Err(format!("expected a string key, found {}", describe_byte(c))),
            None => return Err("unexpected end of input, expected a key".into()),
        }
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.i += 1;
                Ok(())
            }
            Some(c) => Err(format!("expected ':' after the key, found {}", describe_byte(c))),
            None => Err("unexpected end of input, expected ':'".into()),
        }
    }

    fn literal(&mut self, word: &[u8], tag: Tag) -> Result<(), String> {
        if self.b[self.i..].starts_with(word) {
            self.nodes.push(Node { tag, a: self.i as u32, b: word.len() as u32 });
            self.i += word.len();
            Ok(())
        } else {
            Err(format!("invalid literal; expected `{}`", std::str::from_utf8(word).unwrap_or("?")))
        }
    }

    fn string(&mut self) -> Result<(), String> {
        let start = self.i + 1;
        let mut j = start;
        let mut escaped = false;
        let b = self.b;
        loop {
            j = scan_string(b, j);
            match b.get(j) {
                None => {
                    self.i = j;
                    return Err("unterminated string".into());
                }
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    j += 1;
                    match b.get(j) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j += 1,
                        Some(b'u') => {
                            let cp = hex4(b, j + 1).ok_or_else(|| {
                                self.i = j;
                                "invalid \\u escape (needs four hex digits)".to_string()
                            })?;
                            j += 5;
                            if (0xD800..0xDC00).contains(&cp) {
                                // A high surrogate must be followed by an escaped low surrogate.
                                let low = if b.get(j) == Some(&b'\\') && b.get(j + 1) == Some(&b'u') {
                                    hex4(b, j + 2)
                                } else {
                                    None
                                };
                                match low {
                                    Some(lo) if (0xDC00..0xE000).contains(&lo) => j += 6,
                                    _ => {
                                        self.i = j;
                                        return Err("lone leading surrogate in \\u escape".into());
                                    }
                                }
                            } else if (0xDC00..0xE000).contains(&cp) {
                                self.i = j;
                                return Err("lone trailing surrogate in \\u escape".into());
                            }
                        }
                        _ => {
                            self.i = j;
                            return Err("invalid escape sequence".into());
                        }
                    }
                }
                Some(_) => {
                    self.i = j;
                    return Err("control character inside a string (must be escaped)".into());
                }
            }
        }
        let tag = if escaped { Tag::StrEsc } else { Tag::Str };
        self.nodes.push(Node { tag, a: start as u32, b: (j - start) as u32 });
        self.i = j + 1;
        Ok(())
    }

    fn number(&mut self) -> Result<(), String> {
        let b = self.b;
        let start = self.i;
        let mut j = start;
        if b[j] == b'-' {
            j += 1;
        }
        match b.get(j) {
            Some(b'0') => j += 1,
            Some(b'1'..=b'9') => {
                while matches!(b.get(j), Some(b'0'..=b'9')) {
                    j += 1;
                }
            }
            _ => {
                self.i = j;
                return Err("invalid number".into());
            }
        }
        let mut int = true;
        if b.get(j) == Some(&b'.') {
            int = false;
            j += 1;
            if !matches!(b.get(j), Some(b'0'..=b'9')) {
                self.i = j;
                return Err("invalid number: digit expected after '.'".into());
            }
            while matches!(b.get(j), Some(b'0'..=b'9')) {
                j += 1;
            }
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            int = false;
            j += 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if !matches!(b.get(j), Some(b'0'..=b'9')) {
                self.i = j;
                return Err("invalid number: digit expected in exponent".into());
            }
            while matches!(b.get(j), Some(b'0'..=b'9')) {
                j += 1;
            }
        }
        if !int {
            // Reject numbers that overflow f64 (`1e400`): no JSON consumer can represent them.
            let text = std::str::from_utf8(&b[start..j]).unwrap_or("");
            if !text.parse::<f64>().map(f64::is_finite).unwrap_or(false) {
                self.i = start;
                return Err("number out of range".into());
            }
        }
        self.nodes.push(Node { tag: if int { Tag::Int } else { Tag::Num }, a: start as u32, b: (j - start) as u32 });
        self.i = j;
        Ok(())
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

const END_IN_CONTAINER: &str = "unexpected end of input inside a container";

fn expected_separator(is_obj: bool, c: u8) -> String {
    format!("expected ',' or '{}' , found {}", if is_obj { '}' } else { ']' }, describe_byte(c))
}

fn describe_byte(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else {
        format!("byte 0x{c:02x}")
    }
}
