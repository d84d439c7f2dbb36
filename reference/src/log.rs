//! Diagnostic lines on stderr, rate-limited: a peer that provokes a finding per message must not
//! be able to fill the disk behind stderr or slow the process down to the speed of its
//! terminal. At most [`LineLimiter::per_second`] lines are printed in each one-second window;
//! the others are counted, and the count is printed with the next line that gets through (or
//! by [`LineLimiter::finish`]).

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The default of the peers' `--max-log-lines-per-second`.
pub const DEFAULT_LINES_PER_SECOND: u32 = 20;

/// What to do with one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Print it; `dropped` lines were held back since the last one printed.
    Print { dropped: u64 },
    /// Drop it (counted).
    Drop,
}

#[derive(Debug)]
struct Window {
    start: Option<Instant>,
    printed: u32,
    dropped: u64,
}

/// Lines of one stream (the server's self-check findings, the client's findings).
#[derive(Debug)]
pub struct LineLimiter {
    prefix: &'static str,
    per_second: u32,
    window: Mutex<Window>,
}

impl LineLimiter {
    /// At most `per_second` lines a second, each printed after `prefix`.
    pub fn new(prefix: &'static str, per_second: u32) -> LineLimiter {
        LineLimiter { prefix, per_second, window: Mutex::new(Window { start: None, printed: 0, dropped: 0 }) }
    }

    pub fn per_second(&self) -> u32 {
        self.per_second
    }

    /// Whether a line at `now` is printed.
    pub fn admit(&self, now: Instant) -> Admit {
        let mut w = self.window.lock().unwrap();
        let fresh = w.start.is_none_or(|s| now.saturating_duration_since(s) >= Duration::from_secs(1));
        if fresh {
            w.start = Some(now);
            w.printed = 0;
        }
        if w.printed >= self.per_second {
            w.dropped += 1;
            return Admit::Drop;
        }
        w.printed += 1;
        Admit::Print { dropped: std::mem::take(&mut w.dropped) }
    }

    /// Prints `line` on stderr unless the window is full.
    pub fn line(&self, line: &str) {
        if let Admit::Print { dropped } = self.admit(Instant::now()) {
            if dropped > 0 {
                eprintln!("{}{dropped} line(s) dropped (more than {} a second)", self.prefix, self.per_second);
            }
            eprintln!("{}{line}", self.prefix);
        }
    }

    /// Prints the count of lines dropped since the last one printed, if any.
    pub fn finish(&self) {
        let dropped = std::mem::take(&mut self.window.lock().unwrap().dropped);
        if dropped > 0 {
            eprintln!("{}{dropped} line(s) dropped (more than {} a second)", self.prefix, self.per_second);
        }
    }
}

/// A run that ends early (a timeout, an error) still says how many lines it held back.
impl Drop for LineLimiter {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_beyond_the_rate_are_counted_and_the_count_comes_with_the_next_printed_line() {
        let l = LineLimiter::new("", 2);
        let t0 = Instant::now();
        assert_eq!(l.admit(t0), Admit::Print { dropped: 0 });
        assert_eq!(l.admit(t0 + Duration::from_millis(10)), Admit::Print { dropped: 0 });
        for i in 0..5 {
            assert_eq!(l.admit(t0 + Duration::from_millis(20 + i)), Admit::Drop);
        }
        assert_eq!(l.admit(t0 + Duration::from_millis(999)), Admit::Drop);
        assert_eq!(l.admit(t0 + Duration::from_millis(1000)), Admit::Print { dropped: 6 });
        assert_eq!(l.admit(t0 + Duration::from_millis(1001)), Admit::Print { dropped: 0 });
        assert_eq!(l.admit(t0 + Duration::from_millis(1002)), Admit::Drop);
    }
}
