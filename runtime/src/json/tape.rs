//! A one-pass JSON parser into a flat tape of nodes that borrow from the input.
//!
//! Why not `serde_json::Value`: building a tree of maps allocates per key and per string and
//! loses number text. The tape is one `Vec` of small nodes; strings and numbers are slices of
//! the input (escapes are decoded only when asked for), so parsing is a single tight loop and
//! validating straight from bytes never builds a `Value`.
//!
//! Layout: an object node is followed by its entries as (key node, value subtree) pairs, an
//! array node by its element subtrees; container nodes record the index one past their last
//! descendant, so skipping a subtree is O(1).

use super::Kind;

// `JsonView` for `TapeView`, with the source form of a value, and the iterators over a
// container's members.
mod view;
pub use view::{TapeEntries, TapeItems};

// Where the plain bytes of a string end (SSE2, or eight bytes at a time).
mod scan;
#[cfg(test)]
pub(crate) use scan::force_portable_scan;
pub(crate) use scan::scan_string;

// The parser itself: bytes to nodes in one loop, with the exact error of every input.
mod onepass;
use onepass::{hex4, Parser};

// The parser before the SSE2 scan, the oracle of the differential tests and fuzz target.
#[cfg(any(test, feature = "differential"))]
mod reference;

// The old parser against the new one (tests, and the `parse_differential` fuzz target).
#[cfg(any(test, feature = "differential"))]
#[doc(hidden)]
pub mod differential;

/// Default maximum nesting depth of arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tag {
    Null,
    True,
    False,
    /// Number lexeme without fraction or exponent.
    Int,
    /// Any other number lexeme.
    Num,
    /// String without escapes: the slice is the content.
    Str,
    /// String with escapes: the slice is the raw text between the quotes.
    StrEsc,
    Array,
    Object,
}

/// One tape node. For scalars `a`/`b` are the byte offset and length of the lexeme (strings:
/// without quotes); for containers `a` is the element (entry) count and `b` the index one past
/// the last descendant node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    pub(crate) tag: Tag,
    pub(crate) a: u32,
    pub(crate) b: u32,
}

/// Parse failure with its byte offset, line and column (1-based).
///
/// As a [`CoreError`](crate::CoreError): kind `parse`, one entry at pointer `""` with keyword
/// `parse` (the same for every input, so surfaces and vectors can assert it), rule MSG-8 when
/// the bytes are not UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseError {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
    invalid_utf8: bool,
    too_deep: bool,
}

impl ParseError {
    /// MSG-8 when the input is not UTF-8; `None` for text that is not JSON.
    pub fn rule(&self) -> Option<&'static str> {
        self.invalid_utf8.then_some(crate::rules::id::MSG_8)
    }

    /// Whether the text stopped being read at the depth limit ([`ParseOptions::max_depth`]):
    /// well-formed or not, it nests deeper than the parser goes — a limit of the reader, not a
    /// fault the JSON grammar or MCP names.
    pub fn is_too_deep(&self) -> bool {
        self.too_deep
    }
}

impl crate::CoreError for ParseError {
    fn kind(&self) -> &'static str {
        "parse"
    }
    fn rule(&self) -> Option<&'static str> {
        ParseError::rule(self)
    }
    fn errors(&self) -> std::borrow::Cow<'_, [crate::ValidationError]> {
        crate::error::single("", "parse", ParseError::rule(self), self.to_string())
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid JSON at line {} column {} (byte {}): {}", self.line, self.column, self.offset, self.message)
    }
}
impl std::error::Error for ParseError {}

/// Parser settings.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Maximum nesting depth of arrays and objects (a container inside `max_depth` others is
    /// too deep); deeper input is an error, not a stack overflow.
    pub max_depth: usize,
    /// What a too-deep container is. `false` (the default): the parse fails with "nesting
    /// deeper than N levels". `true`: its syntax is still checked to its end (at any depth, one
    /// bit of memory per level), and it is kept as a `null` whose [`TapeView::scalar_text`] is
    /// its source text; [`Tape::skipped`] counts them. For readers that must tell "JSON that
    /// nests too deep" from "not JSON" (a text that is not JSON is a parse error either way).
    pub skip_deeper: bool,
}

/// The node storage of a tape, kept between parses so that parsing message after message
/// does not allocate: give [`Tape::into_buffer`]'s back to [`Tape::parse_bytes_with`]. Opaque.
#[derive(Clone, Debug, Default)]
pub struct TapeBuffer(Vec<Node>);

/// A parsed JSON document borrowing from its input text.
#[derive(Clone, Debug)]
pub struct Tape<'a> {
    src: &'a str,
    nodes: Vec<Node>,
    skipped: usize,
}

/// Largest buffer (in elements) the per-thread pool of [`Tape::with_parsed`] keeps.
pub const POOL_MAX_NODES: usize = 1 << 18;

thread_local! {
    static SPARE_NODES: std::cell::Cell<Vec<Node>> = const { std::cell::Cell::new(Vec::new()) };
    static SPARE_STACK: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Takes the pooled buffer of this thread (empty if none).
fn take_spare<T>(pool: &'static std::thread::LocalKey<std::cell::Cell<Vec<T>>>) -> Vec<T> {
    pool.try_with(std::cell::Cell::take).unwrap_or_default()
}

/// Gives a buffer back to this thread's pool, keeping the larger of the two.
fn give_spare<T>(pool: &'static std::thread::LocalKey<std::cell::Cell<Vec<T>>>, buf: Vec<T>) {
    if buf.capacity() == 0 || buf.capacity() > POOL_MAX_NODES {
        return;
    }
    let _ = pool.try_with(|cell| {
        let old = cell.take();
        cell.set(if old.capacity() >= buf.capacity() { old } else { buf });
    });
}

impl<'a> Tape<'a> {
    /// Parses UTF-8 bytes. Invalid UTF-8 is a parse error at the first bad byte (MSG-8),
    /// whatever else is wrong with the text. (The UTF-8 is checked in the same pass: bytes
    /// outside strings must be the grammar's ASCII anyway, and only string bodies holding a
    /// non-ASCII byte are checked; a failure checks the whole input before it is reported.)
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Tape<'a>, ParseError> {
        Self::bytes_into(bytes, ParseOptions::default(), Vec::new())
    }

    /// Like [`Tape::parse_bytes`], with options, reusing the node buffer of an earlier tape
    /// ([`Tape::into_buffer`]; `TapeBuffer::default()` for none) to avoid allocation in loops.
    pub fn parse_bytes_with(bytes: &'a [u8], opts: ParseOptions, buf: TapeBuffer) -> Result<Tape<'a>, ParseError> {
        Self::bytes_into(bytes, opts, buf.0)
    }

    fn bytes_into(bytes: &'a [u8], opts: ParseOptions, buf: Vec<Node>) -> Result<Tape<'a>, ParseError> {
        let (nodes, skipped) = parse_nodes(bytes, opts, buf)?;
        debug_assert!(std::str::from_utf8(bytes).is_ok(), "a parsed input is UTF-8");
        // SAFETY: `parse_nodes` succeeded, so `bytes` is UTF-8: outside strings every byte was
        // matched against the grammar's ASCII bytes (whitespace, punctuation, literals, number
        // characters), any other byte being a parse error; inside strings, every body that
        // holds a byte of 0x80 or more passed `str::from_utf8` (`Parser::string_rest`), and the
        // others are ASCII. Valid UTF-8 pieces joined by ASCII bytes are valid UTF-8.
        // `differential::check` (tests, the `parse_differential` fuzz target, whose builds keep
        // the `debug_assert!` above) compares every answer with the parser that validated the
        // whole input first.
        let src = unsafe { std::str::from_utf8_unchecked(bytes) };
        Ok(Tape { src, nodes, skipped })
    }

    /// Parses a string.
    #[allow(clippy::should_implement_trait)]
    pub fn parse(src: &'a str) -> Result<Tape<'a>, ParseError> {
        Self::parse_into(src, ParseOptions::default(), Vec::new())
    }

    /// [`Tape::parse`] with options and a reused buffer, as [`Tape::parse_bytes_with`].
    pub fn parse_with(src: &'a str, opts: ParseOptions, buf: TapeBuffer) -> Result<Tape<'a>, ParseError> {
        Self::parse_into(src, opts, buf.0)
    }

    fn parse_into(src: &'a str, opts: ParseOptions, buf: Vec<Node>) -> Result<Tape<'a>, ParseError> {
        let (nodes, skipped) = parse_nodes(src.as_bytes(), opts, buf)?;
        Ok(Tape { src, nodes, skipped })
    }

    /// Parses `bytes` and runs `f` on the tape, with a node buffer taken from (and given back
    /// to) a small per-thread pool, so validating message after message does not allocate.
    /// What the by-name entry points (`mcpgen::validate`, `mcpgen::decode`) and
    /// `Decode::decode_bytes` use.
    pub fn with_parsed<R>(bytes: &[u8], f: impl FnOnce(&Tape<'_>) -> R) -> Result<R, ParseError> {
        match Tape::bytes_into(bytes, ParseOptions::default(), take_spare(&SPARE_NODES)) {
            Ok(tape) => {
                let r = f(&tape);
                give_spare(&SPARE_NODES, tape.into_nodes());
                Ok(r)
            }
            Err(e) => Err(e),
        }
    }

    /// A tape built by another reader (the serde visitor): `nodes` must follow the tape layout
    /// over `src` (scalars: offset and length in `src`; strings: their decoded content).
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(src: &'a str, nodes: Vec<Node>) -> Tape<'a> {
        Tape { src, nodes, skipped: 0 }
    }

    /// Gives back the node buffer for reuse.
    pub fn into_buffer(self) -> TapeBuffer {
        TapeBuffer(self.nodes)
    }

    pub(crate) fn into_nodes(self) -> Vec<Node> {
        self.nodes
    }

    /// The root value.
    pub fn root(&self) -> TapeView<'_, 'a> {
        TapeView { tape: self, idx: 0 }
    }

    /// The input text.
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// How many too-deep containers were kept as `null` ([`ParseOptions::skip_deeper`]).
    pub fn skipped(&self) -> usize {
        self.skipped
    }
}

/// Parses `b` into `buf`'s nodes; the count of skipped containers besides. Errors are the ones
/// the parser always gave, which checked the whole input's UTF-8 first: bytes that are not UTF-8
/// are that error (MSG-8, at the first bad byte) whatever else is wrong, so any failure checks
/// the whole input before it is reported.
fn parse_nodes(b: &[u8], opts: ParseOptions, mut buf: Vec<Node>) -> Result<(Vec<Node>, usize), ParseError> {
    buf.clear();
    if b.len() >= u32::MAX as usize {
        return Err(utf8_error(b).unwrap_or_else(|| error_at(b, 0, "input larger than 4 GiB".into())));
    }
    // A guess that avoids most regrowth without reserving megabytes for one long string.
    buf.reserve((b.len() / 8).min(1 << 16) + 4);
    let mut stack = take_spare(&SPARE_STACK);
    stack.clear();
    let mut p =
        Parser { b, i: 0, nodes: buf, stack, max_depth: opts.max_depth, skip_deeper: opts.skip_deeper, skipped: 0 };
    let result = p.run();
    let too_deep =
        result.is_err() && !p.skip_deeper && p.stack.len() >= p.max_depth && matches!(p.peek(), Some(b'{' | b'['));
    give_spare(&SPARE_STACK, std::mem::take(&mut p.stack));
    match result {
        Ok(()) => Ok((p.nodes, p.skipped)),
        Err(msg) => Err(utf8_error(b).unwrap_or_else(|| ParseError { too_deep, ..error_at(b, p.i, msg) })),
    }
}

/// The error for input that is not UTF-8 (MSG-8, at the first bad byte); `None` for UTF-8.
#[cold]
fn utf8_error(b: &[u8]) -> Option<ParseError> {
    std::str::from_utf8(b).err().map(|e| ParseError {
        invalid_utf8: true,
        ..error_at(b, e.valid_up_to(), "invalid UTF-8 (messages must be UTF-8)".into())
    })
}

fn error_at(b: &[u8], offset: usize, message: String) -> ParseError {
    let offset = offset.min(b.len());
    let before = &b[..offset];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&b[line_start..offset]).chars().count() + 1;
    ParseError { offset, line, column, message, invalid_utf8: false, too_deep: false }
}

/// Decodes the escapes of a raw JSON string body that the parser already validated.
pub(crate) fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices();
    let b = raw.as_bytes();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else { break };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'u' => {
                let hi = hex4(b, i + 2).unwrap_or(0xFFFD);
                for _ in 0..4 {
                    chars.next();
                }
                let cp = if (0xD800..0xDC00).contains(&hi) {
                    let lo = hex4(b, i + 8).unwrap_or(0xDC00);
                    for _ in 0..6 {
                        chars.next();
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
            }
            other => out.push(other),
        }
    }
    out
}

/// A position in a [`Tape`]; cheap to copy.
#[derive(Clone, Copy)]
pub struct TapeView<'t, 'a> {
    tape: &'t Tape<'a>,
    idx: u32,
}

impl std::fmt::Debug for TapeView<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TapeView({:?} at {})", self.kind(), self.idx)
    }
}

impl<'t, 'a> TapeView<'t, 'a> {
    #[inline]
    fn node(&self) -> Node {
        self.tape.nodes[self.idx as usize]
    }
    #[inline]
    fn slice(&self, n: Node) -> &'a str {
        &self.tape.src[n.a as usize..(n.a + n.b) as usize]
    }
    /// Index of the node after this subtree.
    #[inline]
    fn next_idx(&self) -> u32 {
        let n = self.node();
        match n.tag {
            Tag::Array | Tag::Object => n.b,
            _ => self.idx + 1,
        }
    }
    #[inline]
    pub fn kind(&self) -> Kind {
        match self.node().tag {
            Tag::Null => Kind::Null,
            Tag::True | Tag::False => Kind::Bool,
            Tag::Int | Tag::Num => Kind::Number,
            Tag::Str | Tag::StrEsc => Kind::String,
            Tag::Array => Kind::Array,
            Tag::Object => Kind::Object,
        }
    }
    /// The exact source text of this value (for containers: from the opening bracket is not
    /// tracked, so only scalars are supported; containers return `None`).
    pub fn scalar_text(&self) -> Option<&'a str> {
        let n = self.node();
        match n.tag {
            Tag::Array | Tag::Object => None,
            _ => Some(self.slice(n)),
        }
    }
    #[inline]
    pub(crate) fn str_raw(&self) -> Option<(&'a str, bool)> {
        let n = self.node();
        match n.tag {
            Tag::Str => Some((self.slice(n), false)),
            Tag::StrEsc => Some((self.slice(n), true)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::JsonView;

    #[test]
    fn views() {
        let t = Tape::parse(r#"{"a":{"x":1},"b":[true,{"y":2}],"a":3}"#).unwrap();
        let r = t.root();
        assert_eq!(r.len(), 3);
        assert!(r.get("a").unwrap().is_integer()); // last duplicate wins
        let b = r.get("b").unwrap();
        assert_eq!(b.items().count(), 2);
        assert_eq!(b.items().nth(1).unwrap().get("y").unwrap().as_f64(), Some(2.0));
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "tru",
            "\"abc",
            "\"a\u{1}\"",
            "[1] x",
            "01",
            "1.",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "1e400",
            "{1:2}",
        ] {
            assert!(Tape::parse(bad).is_err(), "{bad:?} should fail");
        }
        let e = Tape::parse("{\n  \"a\": ?}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 8));
        assert!(Tape::parse_bytes(b"\"\xff\"").is_err());
    }

    /// Every implementation of the string scan on this target.
    type Scan = fn(&[u8], usize) -> (usize, bool);
    const SCANS: &[(&str, Scan)] = &[
        ("swar", scan::scan_string_swar),
        #[cfg(target_arch = "x86_64")]
        ("sse2", scan::scan_string_sse2),
    ];

    #[test]
    fn string_scan_matches_bytewise() {
        // Every stop byte at every offset (so each SIMD and SWAR lane and the tail loop are hit), after
        // bytes that must not stop the scan: high bytes, 0x7f, 0x20, '!' and '#' (next to '"').
        let fillers = [b'a', 0x20, b'!', b'#', b'[', b']', 0x7f, 0x80, 0xc3, 0xff];
        for stop in [b'"', b'\\', 0x00, 0x01, 0x1f] {
            for len in 0..72 {
                for &fill in &fillers {
                    let mut buf = vec![fill; len];
                    buf.push(stop);
                    buf.extend_from_slice(b"xyz");
                    for start in 0..=len {
                        for (path, scan) in SCANS {
                            let (at, high) = scan(&buf, start);
                            let what = format!("{path}: stop {stop:#x} fill {fill:#x} len {len} start {start}");
                            assert_eq!(at, len, "{what}");
                            // Non-ASCII before the stop must be seen; in ASCII text, none is.
                            if fill >= 0x80 && start < len {
                                assert!(high, "{what}: non-ASCII not seen");
                            }
                            if fill < 0x80 {
                                assert!(!high, "{what}: non-ASCII seen in ASCII text");
                            }
                        }
                    }
                }
            }
        }
        for (path, scan) in SCANS {
            assert_eq!(scan(b"abcdefghijklmnop", 0), (16, false), "{path}");
            assert_eq!(scan(b"", 0), (0, false), "{path}");
            assert_eq!(scan(&[b'a'; 100], 0), (100, false), "{path}");
            // One non-ASCII byte at every place of a long run is seen.
            for at in 0..100 {
                let mut buf = vec![b'a'; 100];
                buf[at] = 0xe9;
                assert_eq!(scan(&buf, 0), (100, true), "{path}: 0xe9 at {at}");
            }
        }
    }

    #[test]
    fn with_parsed_reuses_and_reports() {
        let a = Tape::with_parsed(br#"{"a":[1,2,{"b":"c"}]}"#, |t| t.root().len()).unwrap();
        assert_eq!(a, 1);
        let e = Tape::with_parsed(b"[1,", |t| t.root().len()).unwrap_err();
        assert!(e.message.contains("end of input"), "{e}");
        let b = Tape::with_parsed(b"[true,false,null]", |t| t.root().len()).unwrap();
        assert_eq!(b, 3);
    }

    #[test]
    fn source_form_tells_texts_apart() {
        let form = |s: &str| {
            let t = Tape::parse(s).unwrap();
            let mut out = Vec::new();
            assert!(t.root().source_form(&mut out));
            out
        };
        // Values that differ only in their shape, or in a lexeme, or in how it is written.
        let texts = [
            "[[],[]]",
            "[[[]]]",
            "[]",
            "{}",
            r#"{"a":1,"b":{}}"#,
            r#"{"a":1,"b":[]}"#,
            r#"{"a":1}"#,
            r#"{"a":"1"}"#,
            r#"["a",1]"#,
            r#"[["a"],1]"#,
            r#"["a",[1]]"#,
            "[1,2]",
            "[12]",
            "[1.0]",
            "[1]",
            r#"{"k":"\u0041b"}"#,
            r#"{"k":"Ab"}"#,
            r#"{"k": "Ab"}"#,
            "[true]",
            "[null]",
            r#"[""]"#,
            r#"["",""]"#,
        ];
        let forms: Vec<Vec<u8>> = texts.iter().map(|t| form(t)).collect();
        for (i, a) in forms.iter().enumerate() {
            for (j, b) in forms.iter().enumerate().skip(i + 1) {
                assert_ne!(a, b, "{} and {} have one form", texts[i], texts[j]);
            }
        }
        // The same text gives the same form, wherever the value is and whatever surrounds it.
        let t = Tape::parse(r#" {"x": [ {"a":1,"b":{}} ], "y": {"a":1,"b":{}}}"#).unwrap();
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let root = t.root();
        assert!(root.get("x").unwrap().items().next().unwrap().source_form(&mut x));
        assert!(root.get("y").unwrap().source_form(&mut y));
        assert_eq!(x, y);
        assert_eq!(x, form(r#"{"a":1,"b":{}}"#));
        // A view without source text appends nothing.
        let mut out = Vec::new();
        assert!(!(&serde_json::json!({"a": 1})).source_form(&mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn depth_limit() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        let e = Tape::parse(&deep).unwrap_err();
        assert!(e.message.contains("nesting"));
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(Tape::parse(&ok).is_ok());
        let limit = "[".repeat(DEFAULT_MAX_DEPTH) + &"]".repeat(DEFAULT_MAX_DEPTH);
        assert!(Tape::parse(&limit).is_ok(), "{DEFAULT_MAX_DEPTH} levels are allowed");
        let over = format!("[{limit}]");
        assert!(Tape::parse(&over).is_err(), "one more is not");
    }

    fn parse_opts(src: &str, max_depth: usize, skip_deeper: bool) -> Result<Tape<'_>, ParseError> {
        Tape::parse_with(src, ParseOptions { max_depth, skip_deeper }, TapeBuffer::default())
    }

    #[test]
    fn skip_deeper_keeps_a_null_in_place() {
        let deep = format!(r#"{{"a":[1,{}],"b":true}}"#, "[{\"k\":".repeat(300) + "0" + &"}]".repeat(300));
        let tape = parse_opts(&deep, 4, true).unwrap();
        assert_eq!(tape.skipped(), 1);
        let root = tape.root();
        assert_eq!(root.get("b").and_then(|b| b.as_bool()), Some(true));
        // Depth 1: the object; 2: `a`; 3, 4: kept; the container at depth 5 is skipped.
        let mut v = root.get("a").unwrap().items().nth(1).unwrap();
        v = v.items().next().unwrap();
        v = v.get("k").unwrap();
        assert_eq!(v.kind(), Kind::Null);
        let text = "[{\"k\":".repeat(299) + "0" + &"}]".repeat(299);
        assert_eq!(v.scalar_text(), Some(text.as_str()), "the skipped source text");
        assert_eq!(parse_opts(&deep, 1000, true).unwrap().skipped(), 0);
        // Without the option: an error, as before.
        assert!(parse_opts(&deep, 4, false).unwrap_err().message.contains("nesting deeper than 4 levels"));
        assert!(parse_opts(&deep, 4, false).unwrap_err().is_too_deep());
        // A syntax error at the deepest level is no depth error.
        assert!(!parse_opts("[[[[x]]]]", 4, false).unwrap_err().is_too_deep());
        assert!(!parse_opts("[[[[{]]]]", 5, false).unwrap_err().is_too_deep());
        // A too-deep root.
        let tape = parse_opts("[[[]]]", 0, true).unwrap();
        assert_eq!((tape.root().kind(), tape.skipped()), (Kind::Null, 1));
        // Very deep input: linear, one bit per level.
        let huge = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
        assert_eq!(parse_opts(&huge, 128, true).unwrap().skipped(), 1);
    }

    #[test]
    fn skip_deeper_reports_what_the_unlimited_parser_reports() {
        let mut texts: Vec<String> = Vec::new();
        let bodies = [
            "0",
            "\"s\"",
            "\"\\u00e9\\n\"",
            "-1.5e3",
            "true",
            "null",
            "[]",
            "{}",
            "[1, 2 ,3]",
            "{\"x\" : [ {} , [] ] }",
        ];
        let breaks = [
            "",
            "]",
            "}",
            ",",
            ",]",
            "x",
            "[",
            "{",
            "{\"a\"",
            "{\"a\":",
            "{1:2}",
            "\"\\x\"",
            "\"\u{1}\"",
            "01",
            "1.",
            "1e",
            "tru",
            "1e400",
            "[1 2]",
            "{\"a\":1 \"b\":2}",
            "\"\\ud800\"",
            " ",
        ];
        for depth in [1usize, 2, 5, 9] {
            for open in ["[", "{\"k\":", "[{\"a\":[]},"] {
                let close = match open {
                    "[" => "]",
                    "{\"k\":" => "}",
                    _ => "]",
                };
                for body in bodies {
                    for br in breaks {
                        texts.push(format!("{}{body}{br}{}", open.repeat(depth), close.repeat(depth)));
                        texts.push(format!("{}{body}{}{br}", open.repeat(depth), close.repeat(depth)));
                        texts.push(format!("{}{br}{body}", open.repeat(depth)));
                    }
                }
            }
        }
        let mut skipped = 0;
        for text in &texts {
            let unlimited = parse_opts(text, usize::MAX, false).map(|t| t.root().to_value());
            for max_depth in 0..12 {
                let cut = parse_opts(text, max_depth, true);
                match (&unlimited, &cut) {
                    (Err(a), Err(b)) => assert_eq!(a, b, "{text:?} at max_depth {max_depth}"),
                    (Ok(_), Ok(t)) => skipped += t.skipped(),
                    _ => panic!("{text:?} at max_depth {max_depth}: {unlimited:?} vs {:?}", cut.map(|_| ())),
                }
            }
        }
        assert!(skipped > 100, "the cases do skip ({skipped})");
    }
}
