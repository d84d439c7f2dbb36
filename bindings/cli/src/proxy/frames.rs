//! Line framing for the relays: whole lines up to a limit, longer lines as a stream of chunks.
//!
//! A relay must forward every byte unchanged, but it may only hold so much: a line whose
//! message (the line without its `\n` or `\r\n`) is at most `max` bytes is handed over whole,
//! to be checked and forwarded; a longer one is handed over as it arrives, in the read buffer's
//! chunks, so no more than `max` bytes (plus the read buffer) are ever held for it.

use std::io::{BufRead, BufReader, ErrorKind, Read};

/// Read buffer of each relay: also the largest chunk of a long line.
pub const READ_BUFFER: usize = 64 * 1024;

/// What [`frames`] hands its sink.
pub enum Frame<'a> {
    /// One whole line whose message is at most the limit, its `\n` included when it has one
    /// (the last line of the input may have none). `more`: another whole line is already
    /// buffered, so the peer will get more without waiting (no flush needed yet).
    Line { line: Vec<u8>, more: bool },
    /// A line longer than the limit begins: its bytes follow as [`Frame::Chunk`]s.
    LongStart,
    /// The next bytes of a long line, in order.
    Chunk(&'a [u8]),
    /// The long line ended (with its `\n`, or with the input); `more` as for [`Frame::Line`].
    LongEnd { more: bool },
}

/// Reads `input` to its end (or a read error) and hands every line to `sink` as [`Frame`]s; stops
/// early when `sink` returns `false`.
pub fn frames<R: Read>(input: R, max: usize, mut sink: impl FnMut(Frame<'_>) -> bool) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, input);
    let mut line = Vec::new();
    let mut long = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok([]) => break,
            Ok(buf) => buf,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let end = buf.iter().position(|&b| b == b'\n');
        let piece = &buf[..end.map_or(buf.len(), |i| i + 1)];
        let taken = piece.len();
        if long {
            if !sink(Frame::Chunk(piece)) {
                return;
            }
        } else if too_long(&line, piece, end.is_some(), max) {
            long = true;
            let held = std::mem::take(&mut line);
            if !(sink(Frame::LongStart) && (held.is_empty() || sink(Frame::Chunk(&held))) && sink(Frame::Chunk(piece)))
            {
                return;
            }
        } else {
            line.extend_from_slice(piece);
        }
        reader.consume(taken);
        if end.is_some() {
            let more = reader.buffer().contains(&b'\n');
            let go = if long {
                long = false;
                sink(Frame::LongEnd { more })
            } else {
                sink(Frame::Line { line: std::mem::take(&mut line), more })
            };
            if !go {
                return;
            }
        }
    }
    if long {
        sink(Frame::LongEnd { more: false });
    } else if !line.is_empty() {
        sink(Frame::Line { line, more: false });
    }
}

/// Whether the line read so far (`held`, then `piece`) carries a message of more than `max`
/// bytes. The line end does not count: `\n` or `\r\n` when `complete`, else a final `\r` that
/// may be the start of one.
fn too_long(held: &[u8], piece: &[u8], complete: bool, max: usize) -> bool {
    let total = held.len() + piece.len();
    // The k-th byte from the end of held + piece (1-based).
    let from_end = |k: usize| match piece.len().checked_sub(k) {
        Some(i) => piece.get(i).copied(),
        None => held.len().checked_sub(k - piece.len()).and_then(|i| held.get(i).copied()),
    };
    let line_end = match (complete, from_end(1), from_end(2)) {
        (true, _, Some(b'\r')) => 2,
        (true, _, _) => 1,
        (false, Some(b'\r'), _) => 1,
        (false, _, _) => 0,
    };
    total - line_end > max
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs [`frames`] over `input` fed `chunk` bytes per read, as text: `L:<line>` for whole
    /// lines, `[` … `]` around a long line's chunks (joined).
    fn framed(input: &[u8], max: usize, chunk: usize) -> Vec<String> {
        struct Slow<'a>(&'a [u8], usize);
        impl Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        let mut long = String::new();
        frames(Slow(input, chunk), max, |f| {
            match f {
                Frame::Line { line, .. } => out.push(format!("L:{}", String::from_utf8_lossy(&line))),
                Frame::LongStart => long.clear(),
                Frame::Chunk(c) => long.push_str(&String::from_utf8_lossy(c)),
                Frame::LongEnd { .. } => out.push(format!("[{long}]")),
            }
            true
        });
        out
    }

    #[test]
    fn a_message_of_exactly_the_limit_is_whole_one_more_byte_is_long() {
        for chunk in [1, 2, 3, 64] {
            assert_eq!(framed(b"abcd\nabcde\n", 4, chunk), ["L:abcd\n", "[abcde\n]"], "chunk {chunk}");
            // The line end is not part of the message: `\r\n` and a last line without one.
            assert_eq!(framed(b"abcd\r\nabcd", 4, chunk), ["L:abcd\r\n", "L:abcd"], "chunk {chunk}");
            assert_eq!(framed(b"abc\rd\nab", 4, chunk), ["[abc\rd\n]", "L:ab"], "chunk {chunk}");
            assert_eq!(framed(b"abcdefgh", 4, chunk), ["[abcdefgh]"], "chunk {chunk}");
        }
    }

    #[test]
    fn a_long_line_is_relayed_whole_and_the_next_lines_are_whole_again() {
        let long = "x".repeat(10 * READ_BUFFER + 7);
        let input = format!("a\n{long}\nb\n");
        assert_eq!(
            framed(input.as_bytes(), 100, READ_BUFFER),
            ["L:a\n".to_owned(), format!("[{long}\n]"), "L:b\n".to_owned()]
        );
    }

    #[test]
    fn the_sink_can_stop_the_reading() {
        let mut seen = 0;
        frames(&b"a\nb\nc\n"[..], 10, |_| {
            seen += 1;
            seen < 2
        });
        assert_eq!(seen, 2);
    }
}
