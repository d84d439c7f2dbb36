//! The differential check of the tape parser against `tape/reference.rs`, the parser as it was
//! before the SSE2 string scan: for the tests below and the `parse_differential` fuzz target
//! (`differential` feature). Hidden; not part of the API.

use super::{reference, ParseOptions, Tape, TapeBuffer};

/// Parses `bytes` with both parsers (depth limit `max_depth`, [`ParseOptions::skip_deeper`] as
/// given) and describes the first difference: the nodes (tags, lexeme offsets and lengths,
/// counts, ends), the count of skipped containers, or the error (message, byte offset, line,
/// column, MSG-8, depth flag, so also the error's kind and pointer, which follow from them).
pub fn check(bytes: &[u8], max_depth: usize, skip_deeper: bool) -> Result<(), String> {
    let opts = ParseOptions { max_depth, skip_deeper };
    let old = reference::parse(bytes, opts);
    let new = Tape::parse_bytes_with(bytes, opts, TapeBuffer::default());
    let shown = || String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
    match (&old, &new) {
        (Ok((nodes, skipped)), Ok(tape)) => {
            if *nodes != tape.nodes {
                let at = nodes
                    .iter()
                    .zip(&tape.nodes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(nodes.len().min(tape.nodes.len()));
                return Err(format!(
                    "tapes differ at node {at} ({} vs {} nodes): old {:?}, new {:?}; input {:?}",
                    nodes.len(),
                    tape.nodes.len(),
                    nodes.get(at),
                    tape.nodes.get(at),
                    shown()
                ));
            }
            if *skipped != tape.skipped {
                return Err(format!("skipped {} vs {}; input {:?}", skipped, tape.skipped, shown()));
            }
        }
        (Err(a), Err(b)) => {
            if a != b || a.rule() != b.rule() || a.is_too_deep() != b.is_too_deep() {
                return Err(format!("errors differ: old {a:?}, new {b:?}; input {:?}", shown()));
            }
        }
        (Ok(_), Err(e)) => return Err(format!("old parses, new fails with {e:?}; input {:?}", shown())),
        (Err(e), Ok(_)) => return Err(format!("old fails with {e:?}, new parses; input {:?}", shown())),
    }
    // Text already known to be UTF-8 takes the `&str` entry point: the same answer.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let again = Tape::parse_with(text, opts, TapeBuffer::default());
        match (&new, &again) {
            (Ok(a), Ok(b)) if a.nodes == b.nodes && a.skipped == b.skipped => {}
            (Err(a), Err(b)) if a == b => {}
            _ => return Err(format!("parse_bytes and parse disagree; input {:?}", shown())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{force_portable_scan, DEFAULT_MAX_DEPTH};
    use super::check;

    /// Runs `f` on the SSE2 scan (on x86_64) and on the portable one.
    fn both_paths(f: impl Fn()) {
        force_portable_scan(false, &f);
        force_portable_scan(true, &f);
    }

    fn assert_same(bytes: &[u8]) {
        for (max_depth, skip) in [(DEFAULT_MAX_DEPTH, false), (3, false), (3, true)] {
            if let Err(e) = check(bytes, max_depth, skip) {
                panic!("max_depth {max_depth}, skip_deeper {skip}: {e}");
            }
        }
    }

    fn vector_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> =
            std::fs::read_dir(dir).expect("vectors/ is readable").flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                vector_files(&p, out);
            } else if p.extension().is_some_and(|e| e == "json" || e == "jsonl") {
                out.push(p);
            }
        }
    }

    #[test]
    fn vectors_parse_as_before() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors");
        let mut files = Vec::new();
        vector_files(&root, &mut files);
        assert!(files.len() > 300, "the vectors are there ({} files)", files.len());
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for f in &files {
            let bytes = std::fs::read(f).expect("readable vector");
            for line in bytes.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
                inputs.push(line.to_vec());
            }
            inputs.push(bytes);
        }
        both_paths(|| {
            for input in &inputs {
                assert_same(input);
                // Cut short at a few places: errors at every kind of position.
                for cut in (1..input.len().min(4096)).step_by(37) {
                    assert_same(&input[..cut]);
                }
            }
        });
    }

    /// What goes inside a string at a chosen position: escapes (valid and not), raw control
    /// bytes, multi-byte UTF-8 (whole, cut, invalid), the closing quote itself.
    const SPECIALS: &[&[u8]] = &[
        b"\\n",
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\u00e9",
        b"\\ud83d\\ude00",
        b"\\x",
        b"\\ud800",
        b"\\udc00x",
        b"\\u12",
        b"\\",
        b"\x00",
        b"\x01",
        b"\x1f",
        b"\x7f",
        b"\x20",
        "é".as_bytes(),
        "😀".as_bytes(),
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\"",
    ];

    #[test]
    fn specials_at_every_position_around_chunk_boundaries() {
        both_paths(|| {
            for lead in [0usize, 1, 3, 8, 15] {
                for len in 0..=66usize {
                    for at in 0..=len {
                        for special in SPECIALS {
                            for tail in [&b""[..], b"]", b",1]                                 "] {
                                let mut s = b" ".repeat(lead);
                                s.push(b'[');
                                s.push(b'"');
                                s.extend(std::iter::repeat_n(b'a', at));
                                s.extend_from_slice(special);
                                s.extend(std::iter::repeat_n(b'b', len - at));
                                s.push(b'"');
                                s.extend_from_slice(tail);
                                if let Err(e) = check(&s, DEFAULT_MAX_DEPTH, false) {
                                    panic!("{e}");
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    #[test]
    fn nesting_at_the_limit_and_one_over() {
        both_paths(|| {
            for max_depth in [0usize, 1, 2, 5, 31, 32, 33, DEFAULT_MAX_DEPTH] {
                for depth in [max_depth.saturating_sub(1), max_depth, max_depth + 1, max_depth + 2] {
                    for (open, inner, close) in
                        [("[", "1", "]"), ("{\"k\":", "\"v\"", "}"), ("[{\"a\":", "[]", "}]"), ("[", "", "]")]
                    {
                        let text = format!("{}{inner}{}", open.repeat(depth), close.repeat(depth));
                        for skip in [false, true] {
                            for t in [text.clone(), format!("{text} x"), text[..text.len() / 2].to_owned()] {
                                if let Err(e) = check(t.as_bytes(), max_depth, skip) {
                                    panic!("depth {depth}: {e}");
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    #[test]
    fn duplicate_keys_numbers_and_literals() {
        let texts = [
            r#"{"a":1,"a":2}"#,
            r#"{"a":{"b":1,"b":[1,2]},"a":"x","a":null}"#,
            r#"{"a\u0062":1,"ab":2,"a\\b":3}"#,
            "[0,-0,1,-1,1.5,-1.5e3,1E+2,1e-2,12345678901234567890123,1e400,-1e400,1e-400]",
            "[01]",
            "[1.]",
            "[.5]",
            "[-]",
            "[1e]",
            "[1e+]",
            "[+1]",
            "[true,false,null,tru,nul,fals]",
            "[truex]",
            "{\"a\" : 1 , \"b\"\t:\n2\r}",
            "{\"a\"1}",
            "{,}",
            "[,]",
            "{\"a\":1,}",
            "[1,]",
            "",
            " ",
            "\u{feff}{}",
            "{}}",
            "[]]",
        ];
        both_paths(|| {
            for t in texts {
                assert_same(t.as_bytes());
            }
        });
    }

    #[test]
    fn generated_token_soup() {
        // A bounded, deterministic generator (xorshift): sequences of JSON tokens and stray
        // bytes, so that most inputs are almost JSON and fail somewhere interesting.
        const PIECES: &[&[u8]] = &[
            b"{",
            b"}",
            b"[",
            b"]",
            b",",
            b":",
            b" ",
            b"\n",
            b"\"",
            b"\"k\"",
            b"\"a\\nb\"",
            b"\"x\\u0041\"",
            b"1",
            b"-2.5e3",
            b"0",
            b"true",
            b"null",
            b"\\",
            b"\x01",
            b"\xc3\xa9",
            b"\xff",
            b"aaaaaaaaaaaaaaaa",
            b"\"long string with words, 'quotes', and spaces in it\"",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut inputs = Vec::new();
        for _ in 0..20_000 {
            let n = (next() % 24) as usize;
            let mut s = Vec::new();
            for _ in 0..n {
                s.extend_from_slice(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            inputs.push(s);
        }
        both_paths(|| {
            for s in &inputs {
                assert_same(s);
            }
        });
    }
}
