//! The `data` of Server-Sent Events as they arrive (the event-stream format of the HTML
//! standard: lines end in CR, LF or CRLF; a blank line ends an event; `data:` lines are joined
//! with LF; an event without data — a priming event with only `id` and `retry` — carries no
//! message). It only reads the bytes it is fed, chunk by chunk as they arrive, so a proxy or a
//! tap can pass the stream on unchanged and still see each event before the chunk that
//! completes it goes on (`mcpgen proxy --listen` and the interop tap do).
//!
//! ```
//! use mcpgen::http::sse::{SseEvent, SseSplitter};
//!
//! let mut events = SseSplitter::new(1 << 20);
//! assert!(events.push(b"id: 1\ndata: {\"jsonrpc\":").is_empty());
//! assert_eq!(events.push(b"\"2.0\"}\n\n"), [SseEvent::Data("{\"jsonrpc\":\"2.0\"}".into())]);
//! ```

/// What one completed event carried.
#[derive(Debug, PartialEq, Eq)]
pub enum SseEvent {
    /// The event's data: one message.
    Data(String),
    /// Its data was longer than the limit: not kept (the bytes are relayed all the same).
    TooLarge,
}

/// Splits a stream into events, keeping at most `max` bytes of one event's data.
pub struct SseSplitter {
    max: usize,
    line: Vec<u8>,
    /// The current line is longer than `max`: its further bytes are dropped.
    line_overflow: bool,
    data: Option<Vec<u8>>,
    overflow: bool,
    /// The previous chunk ended in CR: a leading LF completes that line ending.
    after_cr: bool,
}

impl SseSplitter {
    /// A splitter keeping at most `max` bytes of one event's data.
    pub fn new(max: usize) -> SseSplitter {
        SseSplitter { max, line: Vec::new(), line_overflow: false, data: None, overflow: false, after_cr: false }
    }

    /// Feeds bytes; returns every event they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut done = Vec::new();
        let mut rest = bytes;
        while let Some((&b, tail)) = rest.split_first() {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                rest = tail;
                continue;
            }
            if b == b'\r' || b == b'\n' {
                self.after_cr = b == b'\r';
                self.end_line(&mut done);
                rest = tail;
                continue;
            }
            // Take the run of bytes up to the next line end at once.
            let run = rest.iter().position(|&c| c == b'\r' || c == b'\n').unwrap_or(rest.len());
            let room = (self.max + 8).saturating_sub(self.line.len());
            if run > room {
                self.line_overflow = true;
            }
            self.line.extend_from_slice(&rest[..run.min(room)]);
            rest = &rest[run..];
        }
        done
    }

    fn end_line(&mut self, done: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        let cut = std::mem::take(&mut self.line_overflow);
        if line.is_empty() && !cut {
            // A blank line: the event ends.
            if std::mem::take(&mut self.overflow) {
                self.data = None;
                done.push(SseEvent::TooLarge);
            } else if let Some(data) = self.data.take() {
                done.push(SseEvent::Data(String::from_utf8_lossy(&data).into_owned()));
            }
            return;
        }
        let (name, value) = match line.iter().position(|&c| c == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (&line[..], &b""[..]),
        };
        if name != b"data" {
            return;
        }
        if cut {
            self.overflow = true;
        }
        let data = self.data.get_or_insert_with(Vec::new);
        if !data.is_empty() || self.overflow {
            data.push(b'\n');
        }
        if data.len() + value.len() > self.max {
            self.overflow = true;
            data.clear();
        } else if !self.overflow {
            data.extend_from_slice(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(s: &str) -> SseEvent {
        SseEvent::Data(s.to_owned())
    }

    #[test]
    fn events_are_split_at_blank_lines_whatever_the_chunks_and_line_ends() {
        let stream = b": keep-alive\n\nid: 1\ndata: {\"a\":1}\n\nevent: message\r\ndata: x\r\ndata: y\r\n\r\nretry: 5\n\ndata:z\r\r";
        for size in [1, 2, 3, 7, stream.len()] {
            let mut s = SseSplitter::new(100);
            let got: Vec<SseEvent> = stream.chunks(size).flat_map(|c| s.push(c)).collect();
            assert_eq!(got, [data("{\"a\":1}"), data("x\ny"), data("z")], "chunks of {size}");
        }
    }

    #[test]
    fn an_event_longer_than_the_limit_is_reported_and_the_next_is_whole_again() {
        let long = "x".repeat(50);
        let stream = format!("data: {long}\n\ndata: ok\n\ndata: 1234\ndata: 5678\n\n");
        for size in [1, 4, stream.len()] {
            let mut s = SseSplitter::new(9);
            let got: Vec<SseEvent> = stream.as_bytes().chunks(size).flat_map(|c| s.push(c)).collect();
            // "1234\n5678" is 9 bytes: exactly the limit.
            assert_eq!(got, [SseEvent::TooLarge, data("ok"), data("1234\n5678")], "chunks of {size}");
        }
        let mut s = SseSplitter::new(8);
        assert_eq!(s.push(b"data: 1234\ndata: 5678\n\n"), [SseEvent::TooLarge]);
    }
}
