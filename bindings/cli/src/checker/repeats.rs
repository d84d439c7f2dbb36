//! Repeated findings, aggregated: the first `max` of each kind are shown, later ones only
//! counted, with a summary line when the count reaches `max` × 10, × 100, … and one at the end,
//! so a peer repeating one mistake cannot make the report many times the size of the traffic.

use std::collections::HashMap;
use std::hash::Hash;

/// Kinds tracked at most; findings of further kinds share one count per [`Repeats::overflow`]
/// key (the kinds of findings are few — rule, keyword, schema path — so this is a safety net).
pub const MAX_KINDS: usize = 4096;

/// A summary to print: `count` findings of this kind so far, `max` of them shown.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary<K> {
    pub kind: K,
    pub count: u64,
    pub shown: u64,
    /// Where the last one was (the message's source).
    pub last: String,
}

struct Count {
    count: u64,
    /// The count at which the next summary is due.
    next_summary: u64,
    /// The count the last summary reported (no final summary when nothing came since).
    summarised: u64,
    last: String,
}

pub struct Repeats<K> {
    max: u64,
    counts: HashMap<K, Count>,
    /// First-seen order, for the final summaries.
    order: Vec<K>,
}

/// What to do with one finding.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict<K> {
    Show,
    /// Counted only; `Some` when a periodic summary is due now.
    Hide(Option<Summary<K>>),
}

impl<K: Hash + Eq + Clone> Repeats<K> {
    pub fn new(max: usize) -> Self {
        Repeats { max: max as u64, counts: HashMap::new(), order: Vec::new() }
    }

    /// Counts one finding of `kind` at `source`; `overflow` is the kind to count it under when
    /// [`MAX_KINDS`] kinds are tracked already and `kind` is not one of them.
    pub fn see(&mut self, kind: K, overflow: impl FnOnce() -> K, source: &str) -> Verdict<K> {
        let kind = if self.counts.len() >= MAX_KINDS && !self.counts.contains_key(&kind) { overflow() } else { kind };
        let max = self.max;
        let entry = self.counts.entry(kind.clone()).or_insert_with(|| {
            self.order.push(kind.clone());
            Count { count: 0, next_summary: max.saturating_mul(10).max(1), summarised: 0, last: String::new() }
        });
        entry.count += 1;
        if entry.count <= max {
            return Verdict::Show;
        }
        entry.last.clear();
        entry.last.push_str(source);
        if entry.count < entry.next_summary {
            return Verdict::Hide(None);
        }
        entry.next_summary = entry.next_summary.saturating_mul(10);
        entry.summarised = entry.count;
        Verdict::Hide(Some(Summary { kind, count: entry.count, shown: max, last: entry.last.clone() }))
    }

    /// The summaries still due at the end: every kind with hidden findings since its last
    /// summary, in first-seen order.
    pub fn finish(&mut self) -> Vec<Summary<K>> {
        let max = self.max;
        let mut out = Vec::new();
        for kind in self.order.drain(..) {
            let Some(c) = self.counts.get(&kind) else { continue };
            if c.count > max && c.count != c.summarised {
                out.push(Summary { count: c.count, shown: max, last: c.last.clone(), kind });
            }
        }
        self.counts.clear();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_first_n_then_summarises_at_each_power_of_ten_and_at_the_end() {
        let mut r = Repeats::new(2);
        let mut shown = 0;
        let mut summaries = Vec::new();
        for i in 1..=250u32 {
            match r.see("a", || "other", &format!("s:{i}")) {
                Verdict::Show => shown += 1,
                Verdict::Hide(Some(s)) => summaries.push((s.count, s.last)),
                Verdict::Hide(None) => {}
            }
        }
        assert_eq!(r.see("b", || "other", "s:251"), Verdict::Show);
        assert_eq!(shown, 2);
        assert_eq!(summaries, [(20, "s:20".to_owned()), (200, "s:200".to_owned())]);
        let end = r.finish();
        assert_eq!(end, [Summary { kind: "a", count: 250, shown: 2, last: "s:250".into() }]);
    }

    #[test]
    fn no_final_summary_when_nothing_was_hidden_since_the_last() {
        let mut r = Repeats::new(1);
        for i in 0..10 {
            let _ = r.see(1, || 0, &i.to_string());
        }
        assert!(r.finish().is_empty(), "the summary at 10 said it all");
    }

    #[test]
    fn kinds_beyond_the_table_share_the_overflow_count() {
        let mut r = Repeats::new(1);
        for k in 0..MAX_KINDS + 5 {
            let _ = r.see(k + 1, || 0, "s");
        }
        // Kinds 4097.. went to 0: the first is shown, the others hidden.
        let end = r.finish();
        assert_eq!(end.len(), 1);
        assert_eq!((end[0].kind, end[0].count), (0, 5));
    }
}
