//! [`JsonView`] for [`TapeView`]: strings borrowed from the input (escapes decoded only when
//! asked for), numbers read from their lexemes, and the source form of a value; the
//! iterators over an object's entries and an array's elements.

use std::borrow::Cow;

use super::{unescape, Tag, Tape, TapeView};
use crate::json::{JsonView, Kind, Number};

impl<'t, 'a> JsonView<'a> for TapeView<'t, 'a> {
    type Entries = TapeEntries<'t, 'a>;
    type Items = TapeItems<'t, 'a>;

    #[inline]
    fn kind(&self) -> Kind {
        TapeView::kind(self)
    }
    #[inline]
    fn as_bool(&self) -> Option<bool> {
        match self.node().tag {
            Tag::True => Some(true),
            Tag::False => Some(false),
            _ => None,
        }
    }
    #[inline]
    fn as_str(&self) -> Option<Cow<'a, str>> {
        match self.str_raw()? {
            (s, false) => Some(Cow::Borrowed(s)),
            (s, true) => Some(Cow::Owned(unescape(s))),
        }
    }
    #[inline]
    fn str_eq(&self, other: &str) -> bool {
        match self.str_raw() {
            Some((s, false)) => s == other,
            Some((s, true)) => unescape(s) == other,
            None => false,
        }
    }
    #[inline]
    fn is_integer(&self) -> bool {
        let n = self.node();
        match n.tag {
            Tag::Int => true,
            Tag::Num => crate::json::number::lexeme_is_integer(self.slice(n)),
            _ => false,
        }
    }
    #[inline]
    fn as_f64(&self) -> Option<f64> {
        let n = self.node();
        match n.tag {
            Tag::Int | Tag::Num => self.slice(n).parse().ok(),
            _ => None,
        }
    }
    fn to_number(&self) -> Option<Number> {
        let n = self.node();
        match n.tag {
            Tag::Int => Some(Number::from_checked_lexeme(self.slice(n), true)),
            Tag::Num => Some(Number::from_checked_lexeme(self.slice(n), false)),
            _ => None,
        }
    }
    #[inline]
    fn get(&self, key: &str) -> Option<Self> {
        let n = self.node();
        if n.tag != Tag::Object {
            return None;
        }
        let mut found = None;
        let mut idx = self.idx + 1;
        for _ in 0..n.a {
            let k = TapeView { tape: self.tape, idx };
            let v = TapeView { tape: self.tape, idx: idx + 1 };
            // Keys without escapes compare as slices; the last duplicate wins.
            if k.str_eq(key) {
                found = Some(v);
            }
            idx = v.next_idx();
        }
        found
    }
    /// Each node of the subtree in order, as its tag byte (containers: and their 4-byte count
    /// of entries or items), which gives the tree's shape; then the source text from the first
    /// scalar's lexeme to the end of the last one's, which gives every lexeme (its tokenising
    /// is fixed once the shape says what the first lexeme is).
    fn source_form(&self, out: &mut Vec<u8>) -> bool {
        let nodes = &self.tape.nodes[self.idx as usize..self.next_idx() as usize];
        let mut text: Option<(u32, u32)> = None;
        for n in nodes {
            out.push(n.tag as u8);
            match n.tag {
                Tag::Array | Tag::Object => out.extend_from_slice(&n.a.to_le_bytes()),
                _ => {
                    let end = n.a + n.b;
                    text = Some(text.map_or((n.a, end), |(start, _)| (start, end)));
                }
            }
        }
        if let Some((start, end)) = text {
            out.extend_from_slice(&self.tape.src.as_bytes()[start as usize..end as usize]);
        }
        true
    }
    #[inline]
    fn len(&self) -> usize {
        let n = self.node();
        match n.tag {
            Tag::Array | Tag::Object => n.a as usize,
            _ => 0,
        }
    }
    #[inline]
    fn entries(&self) -> Self::Entries {
        let n = self.node();
        let remaining = if n.tag == Tag::Object { n.a } else { 0 };
        TapeEntries { tape: self.tape, idx: self.idx + 1, remaining }
    }
    #[inline]
    fn items(&self) -> Self::Items {
        let n = self.node();
        let remaining = if n.tag == Tag::Array { n.a } else { 0 };
        TapeItems { tape: self.tape, idx: self.idx + 1, remaining }
    }
}

/// Iterator over object entries of a tape.
pub struct TapeEntries<'t, 'a> {
    tape: &'t Tape<'a>,
    idx: u32,
    remaining: u32,
}

impl<'t, 'a> Iterator for TapeEntries<'t, 'a> {
    type Item = (Cow<'a, str>, TapeView<'t, 'a>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let key = TapeView { tape: self.tape, idx: self.idx };
        let val = TapeView { tape: self.tape, idx: self.idx + 1 };
        self.idx = val.next_idx();
        let k = match key.str_raw() {
            Some((s, false)) => Cow::Borrowed(s),
            Some((s, true)) => Cow::Owned(unescape(s)),
            None => Cow::Borrowed(""),
        };
        Some((k, val))
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

/// Iterator over array elements of a tape.
pub struct TapeItems<'t, 'a> {
    tape: &'t Tape<'a>,
    idx: u32,
    remaining: u32,
}

impl<'t, 'a> Iterator for TapeItems<'t, 'a> {
    type Item = TapeView<'t, 'a>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let v = TapeView { tape: self.tape, idx: self.idx };
        self.idx = v.next_idx();
        Some(v)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}
