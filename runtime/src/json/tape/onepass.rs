//! The one-pass parser: bytes to tape nodes in a single loop, with the exact error of every
//! input; [`super::parse_nodes`] runs it.

use super::scan::scan_string;
use super::{Node, Tag};

pub(super) struct Parser<'b> {
    pub(super) b: &'b [u8],
    pub(super) i: usize,
    pub(super) nodes: Vec<Node>,
    /// Open containers: node index.
    pub(super) stack: Vec<u32>,
    pub(super) max_depth: usize,
    pub(super) skip_deeper: bool,
    pub(super) skipped: usize,
}

impl<'b> Parser<'b> {
    #[inline]
    fn skip_ws(&mut self) {
        // One test per byte (a bit of a mask), not four: compact JSON, where the next byte is
        // never whitespace, then takes one well-predicted branch.
        const WS: u64 = 1 << b' ' | 1 << b'\n' | 1 << b'\r' | 1 << b'\t';
        while let Some(&c) = self.b.get(self.i) {
            if c <= b' ' && WS >> c & 1 == 1 {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(super) fn run(&mut self) -> Result<(), String> {
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
    #[inline(always)]
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

    /// A string at the cursor (on its opening quote). The common case, ASCII without escapes,
    /// is inline: one scan to the closing quote; anything else (escapes, non-ASCII, errors) is
    /// [`Parser::string_rest`], which also checks the UTF-8 of a body holding a byte of `0x80`
    /// or more (see [`Tape::parse_bytes`] for why that covers the input).
    #[inline(always)]
    fn string(&mut self) -> Result<(), String> {
        let start = self.i + 1;
        let (j, high) = scan_string(self.b, start);
        if !high && self.b.get(j) == Some(&b'"') {
            self.nodes.push(Node { tag: Tag::Str, a: start as u32, b: (j - start) as u32 });
            self.i = j + 1;
            return Ok(());
        }
        self.string_rest(start, j, high)
    }

    /// The rest of a string whose body starts at `start` and whose fast scan stopped at `j`,
    /// on something other than the closing quote or after a non-ASCII byte (`high`).
    #[inline(never)]
    fn string_rest(&mut self, start: usize, mut j: usize, mut high: bool) -> Result<(), String> {
        let mut escaped = false;
        let b = self.b;
        loop {
            let (stop, more) = scan_string(b, j);
            j = stop;
            high |= more;
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
        if high && std::str::from_utf8(&b[start..j]).is_err() {
            // The caller reports the input's first invalid byte instead (`utf8_error`).
            self.i = start;
            return Err("invalid UTF-8 in a string".into());
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

pub(super) fn hex4(b: &[u8], at: usize) -> Option<u32> {
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
