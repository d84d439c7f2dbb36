//! Request ids and progress tokens as hashable keys, and the bounded tables keyed by them.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use smol_str::SmolStr;

use crate::json::{JsonView, Kind};

/// What the allocator adds to each block, counted with the bytes of a kept copy.
pub(crate) const BLOCK: usize = 16;

/// Text a peer chose (an id, a URI, a cursor, a `requestState`) as the checker keeps it: verbatim
/// up to [`KEPT_TEXT`] bytes, longer text as a [`LongText`] (its length, a short prefix for
/// messages and a 128-bit keyed digest), so one tracked entry costs a bounded number of bytes
/// whatever the peer sent. Two texts are equal exactly when their bytes are (up to a digest
/// collision, which needs the process's random key to arrange).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Text {
    Kept(SmolStr),
    Long(Box<LongText>),
}

/// Text longer than [`KEPT_TEXT`] bytes is kept as a digest.
pub(crate) const KEPT_TEXT: usize = 64;
/// Bytes of a long text kept for messages (cut at a character boundary).
const PREFIX: usize = 20;

/// A text longer than [`KEPT_TEXT`], as kept: its digest, length and first characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct LongText {
    digest: [u64; 2],
    len: usize,
    prefix: SmolStr,
}

/// The process's two random keys for long-text digests (drawn once: the same text gets the same
/// digest in every session and table).
fn digest_keys() -> &'static [foldhash::quality::RandomState; 2] {
    static KEYS: std::sync::OnceLock<[foldhash::quality::RandomState; 2]> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| [foldhash::quality::RandomState::default(), foldhash::quality::RandomState::default()])
}

/// A 128-bit keyed digest of a JSON value as sent, so that two values have the same digest only
/// when they are the same value (up to a collision, which needs the process's random key to
/// arrange). It is how the checker tells a tool definition it already holds from a new one
/// before building anything: a different digest only means building it (the canonical form then
/// decides). From a parsed tape, the digest is of the value's source text and shape
/// ([`JsonView::source_form`]: no decoding, so the same value written otherwise digests
/// otherwise); from another view, of a walk of its kinds, member order, decoded strings and
/// number text, in a form a reader could decode back. The two forms start differently, so
/// they never meet. Either is written into `scratch` (cleared first, kept by the caller so that
/// digesting allocates nothing once it is large enough), then hashed in one go.
pub(super) fn view_digest<'v, V: JsonView<'v>>(v: &V, scratch: &mut Vec<u8>) -> [u64; 2] {
    use std::hash::BuildHasher;
    scratch.clear();
    scratch.push(SOURCE_FORM);
    if !v.source_form(scratch) {
        scratch.clear();
        flatten(v, scratch);
    }
    let [a, b] = digest_keys();
    [a.hash_one(scratch.as_slice()), b.hash_one(scratch.as_slice())]
}

/// The first byte of a digested source form: not a kind byte of [`flatten`]'s form.
const SOURCE_FORM: u8 = 0xfd;

/// A number's text into the flattened form (no allocation).
struct TextInto<'o>(&'o mut Vec<u8>);

impl std::fmt::Write for TextInto<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The value as a byte string a reader could decode back: a kind byte; a string's bytes ended by
/// `0xff` (a byte UTF-8 never has), an integer as 8 bytes, another number's text ended by
/// `0xff`; a container's items (an object's as key, `0xff`, value) ended by `0xfe` (neither a
/// kind byte nor a byte a key can start with).
fn flatten<'v, V: JsonView<'v>>(v: &V, out: &mut Vec<u8>) {
    let text = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(s.as_bytes());
        out.push(0xff);
    };
    match v.kind() {
        Kind::Null => out.push(0),
        Kind::Bool => out.push(if v.as_bool() == Some(true) { 2 } else { 1 }),
        // Numbers compare by their text (`1`, `1.0` and `1e0` differ): an integer the parser
        // kept as such by its value, any other by its lexeme.
        Kind::Number => match v.to_number() {
            Some(n) => {
                if let Some(u) = n.as_u64().filter(|&u| n == crate::json::Number::from(u)) {
                    out.push(3);
                    out.extend_from_slice(&u.to_le_bytes());
                } else if let Some(i) = n.as_i64().filter(|&i| n == crate::json::Number::from(i)) {
                    out.push(7);
                    out.extend_from_slice(&i.to_le_bytes());
                } else {
                    out.push(8);
                    let _ = std::fmt::Write::write_fmt(&mut TextInto(out), format_args!("{n}"));
                    out.push(0xff);
                }
            }
            None => out.push(9),
        },
        Kind::String => {
            out.push(4);
            text(out, &v.as_str().unwrap_or_default());
        }
        Kind::Array => {
            out.push(5);
            for x in v.items() {
                flatten(&x, out);
            }
            out.push(0xfe);
        }
        Kind::Object => {
            out.push(6);
            for (k, x) in v.entries() {
                text(out, &k);
                flatten(&x, out);
            }
            out.push(0xfe);
        }
    }
}

impl Text {
    pub fn new(s: &str) -> Text {
        if s.len() <= KEPT_TEXT {
            return Text::Kept(SmolStr::new(s));
        }
        Text::long(s)
    }

    #[cold]
    #[inline(never)]
    fn long(s: &str) -> Text {
        use std::hash::BuildHasher;
        let [a, b] = digest_keys();
        let mut cut = PREFIX;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        Text::Long(Box::new(LongText {
            digest: [a.hash_one(s), b.hash_one(s)],
            len: s.len(),
            prefix: SmolStr::new(&s[..cut]),
        }))
    }

    /// Whether `s` is this text.
    pub fn is(&self, s: &str) -> bool {
        match self {
            Text::Kept(k) => k == s,
            Text::Long(_) => s.len() > KEPT_TEXT && *self == Text::long(s),
        }
    }

    /// The text as messages show it: verbatim, or (long) its first characters with an ellipsis.
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Text::Kept(k) => std::borrow::Cow::Borrowed(k.as_str()),
            Text::Long(l) => std::borrow::Cow::Owned(format!("{}…", l.prefix)),
        }
    }

    /// The bytes a kept text of `len` bytes takes, with one allocation's overhead (`block`)
    /// where it has one: inline up to 23 bytes, a shared string up to [`KEPT_TEXT`], a digest
    /// beyond.
    pub fn cost(len: usize, block: usize) -> usize {
        std::mem::size_of::<Text>()
            + match len {
                0..=23 => 0,
                24..=KEPT_TEXT => 2 * std::mem::size_of::<usize>() + len + block,
                _ => std::mem::size_of::<LongText>() + block,
            }
    }

    /// The length of the text in bytes.
    fn len(&self) -> usize {
        match self {
            Text::Kept(k) => k.len(),
            Text::Long(l) => l.len,
        }
    }
}

/// A request id (or progress token, or subscription id) as sent: a string or an integer
/// literal. `"1"` and `1` are different keys (ID-3). Strings up to 23 bytes are held inline, so
/// making, cloning and dropping the key of a usual id allocates nothing; past [`KEPT_TEXT`]
/// bytes the key is a digest ([`Text`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum IdKey {
    Int(i64),
    /// An integer literal outside `i64`, by its text.
    BigInt(Text),
    Str(Text),
    /// An id of one Streamable HTTP exchange (a POST and its answer, [`IdKey::in_exchange`]):
    /// the same id in another exchange is another key.
    InExchange(Box<(u64, IdKey)>),
}

impl IdKey {
    /// The key of this id within exchange `exchange` (`None`: the session's one id space).
    /// Requests outside a session that arrive on different POSTs may come from different
    /// clients, and each client numbers its own requests: ids are told apart per exchange.
    pub fn in_exchange(self, exchange: Option<u64>) -> IdKey {
        match exchange {
            Some(e) => IdKey::InExchange(Box::new((e, self))),
            None => self,
        }
    }

    /// The id as sent, without its exchange.
    pub fn as_sent(&self) -> &IdKey {
        match self {
            IdKey::InExchange(scoped) => scoped.1.as_sent(),
            key => key,
        }
    }

    /// The key of a string or integer-literal value; `None` for anything else (the schema and
    /// ID-1 report those).
    pub fn of<'v, V: JsonView<'v>>(v: &V) -> Option<IdKey> {
        match v.kind() {
            Kind::String => v.as_str().map(|s| IdKey::Str(Text::new(&s))),
            Kind::Number => {
                let n = v.to_number()?;
                if !n.is_integer_literal() {
                    return None;
                }
                Some(match n.as_i64() {
                    Some(i) => IdKey::Int(i),
                    None => IdKey::BigInt(Text::new(&n.to_string())),
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
            IdKey::BigInt(t @ Text::Kept(_)) => f.write_str(&t.shown()),
            IdKey::Str(t @ Text::Kept(_)) => write!(f, "{:?}", t.shown().as_ref()),
            IdKey::BigInt(t) => write!(f, "{} ({} digits)", t.shown(), t.len()),
            IdKey::Str(t) => write!(f, "{:?} ({} bytes)", t.shown().as_ref(), t.len()),
            IdKey::InExchange(scoped) => scoped.1.fmt(f),
        }
    }
}

/// The tables' hasher: foldhash, with a random key per table (ids are chosen by a peer, who
/// could otherwise send ids that all collide in one fixed hasher).
type Fast = foldhash::fast::RandomState;

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

    /// The most entries the table holds.
    pub fn cap(&self) -> usize {
        self.cap
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
    ///
    /// Replacing keeps the entry's place in the order (its age is that of its first insertion),
    /// so inserting one key again and again takes no memory.
    pub fn insert(&mut self, k: K, v: V) -> Option<(K, V)> {
        use std::collections::hash_map::Entry;
        match self.map.entry(k.clone()) {
            Entry::Occupied(mut e) => {
                e.get_mut().1 = v;
                return None;
            }
            Entry::Vacant(e) => {
                self.seq += 1;
                e.insert((self.seq, v));
            }
        }
        self.order.push_back((self.seq, k));
        if self.map.len() <= self.cap {
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

    /// The digest of a value as sent tells apart what the canonical form does (number text,
    /// nesting) and what it does not (member order), from a tape (by its source text) and from
    /// another view (by the walk, which reads a string by its decoded text).
    #[test]
    fn view_digest_tells_values_apart_by_their_text() {
        let tape = |s: &str| {
            let mut scratch = Vec::new();
            crate::json::Tape::with_parsed(s.as_bytes(), |t| view_digest(&t.root(), &mut scratch)).unwrap()
        };
        // The walk's form, read from a tape (a `serde_json::Value` has lost number text).
        let walked = |s: &str| {
            let mut form = Vec::new();
            crate::json::Tape::with_parsed(s.as_bytes(), |t| flatten(&t.root(), &mut form)).unwrap();
            form
        };
        let from_value = |s: &str| {
            let json: serde_json::Value = serde_json::from_str(s).unwrap();
            view_digest(&&json, &mut Vec::new())
        };
        let texts = [
            "1",
            "1.0",
            "1e0",
            "-0",
            "0",
            "-1",
            "18446744073709551616",
            "null",
            "true",
            "false",
            r#""1""#,
            r#"{"a":1,"b":2}"#,
            r#"{"b":2,"a":1}"#,
            r#"{"a":[1]}"#,
            r#"{"a":1}"#,
            "[1,[2]]",
            "[[1],2]",
            "[]",
            "{}",
            r#"[""]"#,
            r#"["",""]"#,
            r#"["a","b"]"#,
            r#"["ab"]"#,
            r#"{"a":"b"}"#,
            r#"{"ab":""}"#,
            r#"{"":"ab"}"#,
            "[[],[]]",
            "[[[]]]",
            r#"{"a":{}}"#,
            r#"{"a":[]}"#,
        ];
        fn distinct<T: PartialEq + std::fmt::Debug>(texts: &[&str], form: impl Fn(&str) -> T) {
            let forms: Vec<T> = texts.iter().map(|t| form(t)).collect();
            for (i, a) in forms.iter().enumerate() {
                for (j, b) in forms.iter().enumerate().skip(i + 1) {
                    assert_ne!(a, b, "{} and {} have one digest", texts[i], texts[j]);
                }
            }
        }
        distinct(&texts, tape);
        distinct(&texts, walked);
        // The same text, the same digest; the two forms never meet.
        for t in texts {
            assert_eq!(tape(t), tape(t));
            assert_ne!(tape(t), from_value(t), "{t}");
        }
        // From a tape, the text as sent: an escape or a space is another text (the canonical
        // form then finds the same definition); the walk reads decoded strings.
        assert_ne!(tape(r#"{"k":"\u0041b"}"#), tape(r#"{"k":"Ab"}"#));
        assert_ne!(tape(r#"{"k": "Ab"}"#), tape(r#"{"k":"Ab"}"#));
        assert_eq!(walked(r#"{"k":"\u0041b"}"#), walked(r#"{"k":"Ab"}"#));
        assert_eq!(from_value(r#"{"k":"\u0041b"}"#), from_value(r#"{"k": "Ab"}"#));
        // The walk reads the same whatever the view: members in sorted order (a `serde_json`
        // map may keep them sorted).
        let text = r#"{"inputSchema":{"maximum":1.5,"minimum":-3,"type":"object"},"name":"t"}"#;
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        flatten(&&json, &mut a);
        crate::json::Tape::with_parsed(text.as_bytes(), |t| flatten(&t.root(), &mut b)).unwrap();
        assert_eq!(a, b);
    }

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

    /// Inserting a key that is already there replaces its value in place: a million inserts of
    /// one key leave one slot in the order queue (it grew by one slot per insert before).
    #[test]
    fn replacing_a_key_takes_no_memory() {
        let mut b = Bounded::new(8);
        b.insert(0, 0);
        for i in 0..1_000_000 {
            assert!(b.insert(1, i).is_none());
        }
        assert_eq!((b.len(), b.slots()), (2, 2));
        assert_eq!(b.get(&1), Some(&999_999));
        // The replaced entry keeps its age: it is evicted before a newer one.
        for k in 2..8 {
            b.insert(k, 0);
        }
        assert_eq!(b.insert(8, 0), Some((0, 0)));
        assert_eq!(b.insert(9, 0).map(|(k, _)| k), Some(1));
    }

    /// Every table hashes with its own random key, so ids chosen to collide in one table do
    /// not collide in the next (a fixed hasher gives every table the same hashes).
    #[test]
    fn every_table_has_its_own_hash_key() {
        use std::hash::BuildHasher;
        let key = IdKey::Str(Text::new("request-1"));
        let hashes: std::collections::HashSet<u64> = (0..16).map(|_| Fast::default().hash_one(&key)).collect();
        assert_eq!(hashes.len(), 16, "16 tables, {} distinct hashes of one key", hashes.len());
    }

    /// Text past KEPT_TEXT bytes is kept as a digest: equal exactly when the text is, shown
    /// by its first characters and length.
    #[test]
    fn long_text_is_kept_as_a_digest() {
        let long = "x".repeat(100_000);
        let t = Text::new(&long);
        assert!(matches!(t, Text::Long(_)));
        assert!(t.is(&long) && !t.is(&format!("{long}y")) && !t.is("x"));
        assert_eq!(t, Text::new(&long));
        assert_ne!(t, Text::new(&"x".repeat(100_001)));
        let short = "y".repeat(KEPT_TEXT);
        assert_eq!(Text::new(&short), Text::Kept(short.as_str().into()));
        let id = IdKey::Str(t);
        assert_eq!(id.to_string(), format!("\"{}…\" (100000 bytes)", "x".repeat(PREFIX)));
        // A digest never equals the kept text of the same bytes' prefix, nor an integer.
        assert_ne!(IdKey::Str(Text::new(&long)), IdKey::BigInt(Text::new(&long)));
        // Multi-byte characters are cut at a boundary.
        let wide = "é".repeat(50);
        assert_eq!(Text::new(&wide).shown(), format!("{}…", "é".repeat(PREFIX / 2)));
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
        assert_eq!(keys[1], Some(IdKey::Str(Text::new("1"))));
        assert_eq!(keys[2], None);
        assert_eq!(keys[3], Some(IdKey::BigInt(Text::new("18446744073709551616"))));
        assert_eq!(keys[4], None);
    }
}
