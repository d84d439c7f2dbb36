//! Server-sent events on top of `sse-stream`: what a client keeps across reconnections.
//!
//! The parser hands over every event, also those without `data` (a priming event carries only
//! `id` and `retry`); this module keeps the WHATWG state a reconnecting client needs — the last
//! event id (sent back as `Last-Event-ID`) and the reconnection time (`retry`) — and tells the
//! JSON-RPC messages apart from priming and keep-alive events.

use std::time::Duration;

use sse_stream::Sse;

/// How long to wait before reconnecting when the server never sent `retry`.
pub const DEFAULT_RECONNECT_DELAY: Duration = Duration::from_millis(1000);

/// Reconnection state of one logical SSE stream (kept across its reconnections).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumeState {
    /// The last `id` the server sent (WHATWG: an empty `id` clears it).
    pub last_event_id: Option<String>,
    /// The last `retry` the server sent.
    pub retry: Option<Duration>,
}

impl ResumeState {
    /// Records an event's `id` and `retry`, and returns its data when it carries a message
    /// (events without data or with blank data — priming events, keep-alives — carry none).
    pub fn observe<'e>(&mut self, event: &'e Sse) -> Option<&'e str> {
        if let Some(id) = &event.id {
            self.last_event_id = if id.is_empty() { None } else { Some(id.clone()) };
        }
        if let Some(ms) = event.retry {
            self.retry = Some(Duration::from_millis(ms));
        }
        event.data.as_deref().filter(|d| !d.trim().is_empty())
    }

    /// How long to wait before reconnecting: the server's `retry`, else the default.
    pub fn reconnect_delay(&self) -> Duration {
        self.retry.unwrap_or(DEFAULT_RECONNECT_DELAY)
    }
}

/// Counts the bytes of the SSE event being received, from the raw stream, so that an event that
/// never ends (one endless `data:` line, or data lines without the blank line that ends an
/// event) is refused once it passes the cap, before the parser has buffered more than that.
///
/// An event ends at a blank line: a line end (`\n`, `\r\n` or `\r`) right after another.
/// Every byte since the last blank line counts, line ends and comments included.
#[derive(Debug, Clone)]
pub struct EventGuard {
    limit: usize,
    /// Bytes since the last blank line.
    held: usize,
    /// The last byte ended a line (or nothing came yet).
    at_line_start: bool,
    /// The last byte was `\r`: a `\n` now completes the same line end.
    after_cr: bool,
}

/// An SSE event passed [`EventGuard`]'s cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTooLarge {
    pub limit: usize,
}

impl EventGuard {
    pub fn new(limit: usize) -> EventGuard {
        EventGuard { limit, held: 0, at_line_start: true, after_cr: false }
    }

    /// Counts the next chunk of the stream; an error once the event being received holds more
    /// than the limit (and for every chunk after that).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), EventTooLarge> {
        if self.held > self.limit {
            return Err(EventTooLarge { limit: self.limit });
        }
        for &b in chunk {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.at_line_start {
                        self.held = 0;
                    }
                    self.at_line_start = true;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.at_line_start = false;
                    self.after_cr = false;
                }
            }
            self.held += 1;
            if self.held > self.limit {
                return Err(EventTooLarge { limit: self.limit });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_counts_one_event_at_a_time_and_refuses_past_the_cap() {
        // Events of 8 bytes each (\n\n, \r\n\r\n, \r\r endings) pass a cap of 10 in any chunking.
        let ok = b"data: 1\n\ndata:12\r\n\r\ndata: x\r\r: ping\n\n";
        for size in 1..ok.len() {
            let mut g = EventGuard::new(10);
            assert!(ok.chunks(size).all(|c| g.feed(c).is_ok()), "chunks of {size}");
        }
        // One endless data line: refused at byte 11, and from then on.
        let mut g = EventGuard::new(10);
        assert_eq!(g.feed(b"data: aaaa"), Ok(()));
        assert_eq!(g.feed(b"a"), Err(EventTooLarge { limit: 10 }));
        assert_eq!(g.feed(b"\n\n"), Err(EventTooLarge { limit: 10 }));
        // Many short data lines without the blank line that ends the event count together.
        let mut g = EventGuard::new(10);
        assert_eq!(g.feed(b"data:\ndata:\n"), Err(EventTooLarge { limit: 10 }));
    }
    use futures_util::StreamExt;
    use sse_stream::SseStream;

    async fn events(text: &'static str) -> Vec<Sse> {
        let chunks = futures_util::stream::iter(
            text.as_bytes().chunks(7).map(|c| Ok::<_, std::io::Error>(bytes_of(c))).collect::<Vec<_>>(),
        );
        SseStream::from_bytes_stream(chunks).map(|e| e.expect("valid SSE")).collect().await
    }

    fn bytes_of(c: &[u8]) -> std::io::Cursor<Vec<u8>> {
        std::io::Cursor::new(c.to_vec())
    }

    #[tokio::test]
    async fn a_priming_event_sets_id_and_retry_but_is_no_message() {
        let evs = events(
            "id: event-1\nretry: 500\ndata: \n\n: keep-alive\n\nevent: message\nid: event-2\ndata: {\"a\":1}\n\n",
        )
        .await;
        let mut state = ResumeState::default();
        let messages: Vec<&str> = evs.iter().filter_map(|e| state.observe(e)).collect();
        assert_eq!(messages, vec![r#"{"a":1}"#]);
        assert_eq!(state.last_event_id.as_deref(), Some("event-2"));
        assert_eq!(state.reconnect_delay(), Duration::from_millis(500));
    }

    #[tokio::test]
    async fn without_retry_the_default_delay_applies_and_an_empty_id_clears() {
        let evs = events("id: 7\ndata: x\n\nid:\ndata: y\n\n").await;
        let mut state = ResumeState::default();
        assert_eq!(state.observe(&evs[0]), Some("x"));
        assert_eq!(state.last_event_id.as_deref(), Some("7"));
        assert_eq!(state.observe(&evs[1]), Some("y"));
        assert_eq!(state.last_event_id, None);
        assert_eq!(state.reconnect_delay(), DEFAULT_RECONNECT_DELAY);
    }

    #[tokio::test]
    async fn an_id_only_event_still_counts_for_resumption() {
        let evs = events("id: only\nretry: 250\n\n").await;
        let mut state = ResumeState::default();
        assert_eq!(evs.len(), 1);
        assert_eq!(state.observe(&evs[0]), None);
        assert_eq!(state.last_event_id.as_deref(), Some("only"));
        assert_eq!(state.retry, Some(Duration::from_millis(250)));
    }
}
