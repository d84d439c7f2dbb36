//! The server's self-check: every message in and out goes through a
//! `mcpgen::conversation::Conversation` (one per legacy session, one per modern request);
//! findings on messages the server sent are printed (rate-limited) and kept (capped).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use mcpgen::conversation::{Conversation, Finding, Sender};
use serde_json::Value;

use crate::log::LineLimiter;

/// The self-check key of a message outside any legacy session (one conversation each).
pub(super) const REQUEST_KEY_PREFIX: &str = "request-";

/// The findings [`SelfCheck`] keeps; later ones are counted ([`SelfCheck::dropped_findings`]).
pub const MAX_KEPT_FINDINGS: usize = 10_000;

/// Findings of the conversation checker on messages this server sent: kept (up to
/// [`MAX_KEPT_FINDINGS`]) and printed on stderr, rate-limited ([`crate::log::LineLimiter`]).
#[derive(Debug)]
pub struct SelfCheck {
    conversations: Mutex<HashMap<String, Conversation>>,
    /// A conversation that has seen this server's `server/discover` exchange; each modern
    /// request's conversation is a copy of it, so the request is judged against the
    /// capabilities the server declares in the modern era.
    modern_start: Mutex<Conversation>,
    findings: Mutex<Vec<(String, Finding)>>,
    dropped: AtomicU64,
    log: LineLimiter,
}

impl Default for SelfCheck {
    fn default() -> SelfCheck {
        SelfCheck {
            conversations: Mutex::default(),
            modern_start: Mutex::default(),
            findings: Mutex::default(),
            dropped: AtomicU64::new(0),
            log: LineLimiter::new("self-check: ", crate::log::DEFAULT_LINES_PER_SECOND),
        }
    }
}

impl SelfCheck {
    /// One message as it went over the wire (`text`).
    pub(super) fn observe(&self, key: &str, from: Sender, text: &str) {
        let found = {
            let mut all = self.conversations.lock().unwrap();
            let conversation = all.entry(key.to_owned()).or_insert_with(|| {
                if key.starts_with(REQUEST_KEY_PREFIX) {
                    self.modern_start.lock().unwrap().clone()
                } else {
                    Conversation::new()
                }
            });
            conversation.observe(from, text.as_bytes())
        };
        if from == Sender::Server {
            self.keep(key, text, found);
        }
    }

    fn keep(&self, key: &str, text: &str, found: Vec<Finding>) {
        let mut kept = self.findings.lock().unwrap();
        for f in found {
            self.log.line(&format!("{key}: {f} in {text}"));
            if kept.len() < MAX_KEPT_FINDINGS {
                kept.push((key.to_owned(), f));
            } else {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Prints at most `n` lines a second from now on.
    pub(super) fn set_lines_per_second(&mut self, n: u32) {
        self.log = LineLimiter::new("self-check: ", n);
    }

    /// Findings not kept because [`MAX_KEPT_FINDINGS`] were (they were still counted and,
    /// within the rate, printed).
    pub fn dropped_findings(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Prints how many lines the rate limit held back since the last one printed.
    pub fn finish(&self) {
        self.log.finish();
    }

    /// Checks the server's own discover exchange (its result is what every modern client
    /// learns the capabilities from) and makes it the start of every modern conversation.
    pub(super) fn start_modern(&self, request: &Value, response: &Value) {
        let mut c = Conversation::new();
        for f in c.observe(Sender::Client, request.to_string().as_bytes()) {
            self.log.line(&format!("the server's own discover request is faulted: {f}"));
        }
        let text = response.to_string();
        let found = c.observe(Sender::Server, text.as_bytes());
        self.keep("server/discover", &text, found);
        *self.modern_start.lock().unwrap() = c;
    }
    pub(super) fn forget(&self, key: &str) {
        self.conversations.lock().unwrap().remove(key);
    }
    /// How many conversations are being followed (one per legacy session and per modern
    /// request in flight, listen streams included).
    pub fn conversation_count(&self) -> usize {
        self.conversations.lock().unwrap().len()
    }
    /// Every finding so far: (conversation, finding).
    pub fn findings(&self) -> Vec<(String, Finding)> {
        self.findings.lock().unwrap().clone()
    }
}
