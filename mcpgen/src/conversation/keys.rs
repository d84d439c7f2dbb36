//! Request ids and progress tokens as hashable keys, and the bounded tables keyed by them.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use smol_str::SmolStr;

use crate::json::{JsonView, Kind};

/// A request id (or progress token, or subscription id) as sent: a string or an integer
/// literal. `"1"` and `1` are different keys (ID-3). Strings up to 23 bytes are held inline, so
/// making, cloning and dropping the key of a usual id allocates nothing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum IdKey {
    Int(i64),
    /// An integer literal outside `i64`, by its text.
    BigInt(SmolStr),
    Str(SmolStr),
}

impl IdKey {
    /// The key of a string or integer-literal value; `None` for anything else (the schema and
    /// ID-1 report those).
    pub fn of<'v, V: JsonView<'v>>(v: &V) -> Option<IdKey> {
        match v.kind() {
            Kind::String => v.as_str().map(|s| IdKey::Str(SmolStr::new(s))),
            Kind::Number => {
                let n = v.to_number()?;
                if !n.is_integer_literal() {
                    return None;
                }
                Some(match n.as_i64() {
                    Some(i) => IdKey::Int(i),
                    None => IdKey::BigInt(SmolStr::new(n.to_string())),
                })
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for IdKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdKey::Int(i) => write!(f, "{i}"),
            IdKey::BigInt(s) => f.write_str(s),
            IdKey::Str(s) => write!(f, "{:?}", s.as_str()),
        }
    }
}

/// A small multiplicative hasher (the keys are ids a peer chose, so the tables are also capped;
/// SipHash's flood resistance would cost more than the rest of the bookkeeping).
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64)
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64)
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64)
    }
}

type Fast = BuildHasherDefault<FastHasher>;

/// A map that remembers insertion order and holds at most `cap` entries: inserting past the
/// cap evicts the oldest entry and returns it. Removal is O(1); the order queue is compacted
/// when stale slots outnumber live ones, so memory stays proportional to `cap`.
#[derive(Debug, Clone)]
pub(crate) struct Bounded<K, V> {
    map: HashMap<K, (u64, V), Fast>,
    order: VecDeque<(u64, K)>,
    seq: u64,
    cap: usize,
}

impl<K: Hash + Eq + Clone, V> Bounded<K, V> {
    pub fn new(cap: usize) -> Self {
        Bounded { map: HashMap::default(), order: VecDeque::new(), seq: 0, cap: cap.max(1) }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        self.map.get(k).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.map.get_mut(k).map(|(_, v)| v)
    }

    pub fn contains(&self, k: &K) -> bool {
        self.map.contains_key(k)
    }

    pub fn remove(&mut self, k: &K) -> Option<V> {
        let v = self.map.remove(k).map(|(_, v)| v);
        if self.map.is_empty() {
            // The usual state of a table of requests in flight: nothing to look up to compact.
            self.order.clear();
        } else if self.order.len() > 2 * self.map.len() + 16 {
            self.compact();
        }
        v
    }

    // The rare paths are kept out of line: every table type has its own copy of this code, and
    // the observe pass runs several of them per message, so the common path stays small.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        let map = &self.map;
        self.order.retain(|(s, k)| map.get(k).is_some_and(|(live, _)| live == s));
    }

    /// Inserts (replacing an entry with the same key); returns the evicted oldest entry when
    /// the table was full.
    pub fn insert(&mut self, k: K, v: V) -> Option<(K, V)> {
        self.seq += 1;
        let replaced = self.map.insert(k.clone(), (self.seq, v)).is_some();
        self.order.push_back((self.seq, k));
        if replaced || self.map.len() <= self.cap {
            return None;
        }
        self.evict_oldest()
    }

    #[cold]
    #[inline(never)]
    fn evict_oldest(&mut self) -> Option<(K, V)> {
        while let Some((s, k)) = self.order.pop_front() {
            if self.map.get(&k).is_some_and(|(live, _)| *live == s) {
                return self.map.remove(&k).map(|(_, v)| (k, v));
            }
        }
        None
    }

    /// Entries oldest first.
    pub fn iter_ordered(&self) -> impl Iterator<Item = (&K, &V)> {
        self.order.iter().filter_map(|(s, k)| match self.map.get_key_value(k) {
            Some((k, (live, v))) if live == s => Some((k, v)),
            _ => None,
        })
    }

    /// Memory held by the order queue (for the bounded-memory tests).
    #[cfg(test)]
    pub fn slots(&self) -> usize {
        self.order.len()
    }
}

/// The last `cap` keys seen, for "already answered" and "already closed" questions; removal
/// is O(1) (a [`Bounded`] map without values).
#[derive(Debug, Clone)]
pub(crate) struct Recent<K>(Bounded<K, ()>);

impl<K: Hash + Eq + Clone> Recent<K> {
    pub fn new(cap: usize) -> Self {
        Recent(Bounded::new(cap))
    }

    pub fn insert(&mut self, k: K) {
        self.0.insert(k, ());
    }

    pub fn contains(&self, k: &K) -> bool {
        self.0.contains(k)
    }

    pub fn remove(&mut self, k: &K) {
        self.0.remove(k);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_evicts_the_oldest_and_stays_small() {
        let mut b = Bounded::new(3);
        assert!(b.insert(1, "a").is_none());
        assert!(b.insert(2, "b").is_none());
        assert!(b.insert(3, "c").is_none());
        assert_eq!(b.insert(4, "d"), Some((1, "a")));
        assert_eq!(b.len(), 3);
        assert_eq!(b.remove(&3), Some("c"));
        assert_eq!(b.iter_ordered().map(|(k, _)| *k).collect::<Vec<_>>(), vec![2, 4]);
        // Many short-lived entries: the order queue does not grow with them.
        for i in 100..100_000 {
            b.insert(i, "x");
            b.remove(&i);
        }
        assert!(b.slots() < 64, "order queue holds {} slots", b.slots());
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn recent_keeps_the_last_cap() {
        let mut r = Recent::new(2);
        r.insert(1);
        r.insert(2);
        r.insert(3);
        assert!(!r.contains(&1));
        assert!(r.contains(&2) && r.contains(&3));
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn id_keys_keep_the_json_type() {
        let t = crate::json::Tape::parse(r#"[1, "1", 1.0, 18446744073709551616, null]"#).unwrap();
        let keys: Vec<_> = t.root().items().map(|v| IdKey::of(&v)).collect();
        assert_eq!(keys[0], Some(IdKey::Int(1)));
        assert_eq!(keys[1], Some(IdKey::Str("1".into())));
        assert_eq!(keys[2], None);
        assert_eq!(keys[3], Some(IdKey::BigInt("18446744073709551616".into())));
        assert_eq!(keys[4], None);
    }
}
