//! [`PyView`]: the generated validators read Python objects directly through
//! [`mcpgen::JsonView`], so `validate(dict)` costs no JSON text round trip.
//!
//! Mapping (what `json.dumps` would write): `dict` (keys must be `str`) → object; `list` and
//! `tuple` → array; `str` → string; `bool` → boolean (checked before `int`, its base class);
//! `int` → number (an integer); `float` → number (`1.0` counts as an integer, as in JSON
//! Schema); `None` → null. Subclasses count as their base (`IntEnum`, `OrderedDict`, …).
//!
//! Reading never runs Python code, so the data cannot change under the validator. Each dict is
//! walked once, with `PyDict_Next`, when its view is made: its members (UTF-8 key, value) go
//! into the call's member table ([`ViewCx`]), and `get`/`entries` then read that table, so the
//! validator's repeated lookups (`required`, union arm scoring) cost no further C-API calls.
//!
//! A value that is not JSON data (a `set`, a `bytes`, a non-`str` key, `nan`, a lone
//! surrogate, nesting deeper than [`MAX_DEPTH`], a cycle) is recorded in the [`ViewCx`] when a
//! view of it (or of its container) is made, and turns into a `TypeError` / `ValueError` once
//! validation returns; it reads as `null` meanwhile.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::ptr::addr_of_mut;

use mcpgen::json::{Kind, Number};
use mcpgen::JsonView;
use pyo3::ffi;

/// Deepest nesting read (as deep as the JSON parser accepts); deeper data, including a
/// container that contains itself, is an error instead of a stack overflow.
pub const MAX_DEPTH: u32 = 512;

thread_local! {
    /// The member table's storage, reused from call to call on this thread.
    static MEMBER_BUF: Cell<Vec<Member>> = const { Cell::new(Vec::new()) };
}

/// Member-table capacity kept for the next call (larger tables are freed).
const KEEP_MEMBERS: usize = 1 << 16;

/// Per-call state shared by every view of one validation: the member table of the dicts read
/// so far, and the first non-JSON value met (reported after the validator returns).
pub struct ViewCx {
    members: RefCell<Vec<Member>>,
    /// UTF-8 copies of keys where the ABI cannot lend the str's own (Windows, Python 3.9).
    #[allow(dead_code)]
    owned_keys: RefCell<Vec<Box<str>>>,
    first: Cell<Option<Problem>>,
}

/// One dict member: its key's UTF-8 (borrowed from the key object, or from `owned_keys`) and
/// its value (borrowed from the dict).
#[derive(Clone, Copy)]
struct Member {
    key: *const u8,
    key_len: usize,
    value: *mut ffi::PyObject,
}

#[derive(Clone, Copy, Debug)]
pub enum Problem {
    /// A value of a type that has no JSON form (the object, alive as long as the data).
    Unsupported(*mut ffi::PyObject),
    /// A dictionary key that is not a `str`.
    NonStrKey(*mut ffi::PyObject),
    /// `nan`, `inf` or `-inf`.
    NonFinite(f64),
    /// A string that cannot be UTF-8 (lone surrogates).
    BadString,
    TooDeep,
}

impl Default for ViewCx {
    fn default() -> Self {
        ViewCx { members: RefCell::new(MEMBER_BUF.take()), owned_keys: RefCell::default(), first: Cell::new(None) }
    }
}

impl Drop for ViewCx {
    fn drop(&mut self) {
        let mut buf = std::mem::take(self.members.get_mut());
        if buf.capacity() <= KEEP_MEMBERS {
            buf.clear();
            MEMBER_BUF.set(buf);
        }
    }
}

impl ViewCx {
    fn note(&self, p: Problem) {
        if self.first.get().is_none() {
            self.first.set(Some(p));
        }
    }
    pub fn take_problem(&self) -> Option<Problem> {
        self.first.take()
    }

    /// Reads a dict's members into the table; returns their range.
    unsafe fn read_dict(&self, dict: *mut ffi::PyObject) -> (u32, u32) {
        let mut members = self.members.borrow_mut();
        let start = members.len();
        let mut pos = 0;
        let mut k = std::ptr::null_mut();
        let mut v = std::ptr::null_mut();
        unsafe {
            while ffi::PyDict_Next(dict, &mut pos, &mut k, &mut v) != 0 {
                if !is_str(k) {
                    self.note(Problem::NonStrKey(k));
                    continue;
                }
                match str_of(k) {
                    Some(Cow::Borrowed(text)) => {
                        members.push(Member { key: text.as_ptr(), key_len: text.len(), value: v })
                    }
                    Some(Cow::Owned(text)) => {
                        let text: Box<str> = text.into();
                        members.push(Member { key: text.as_ptr(), key_len: text.len(), value: v });
                        // A Box's heap data does not move when the Vec holding it grows.
                        self.owned_keys.borrow_mut().push(text);
                    }
                    None => self.note(Problem::BadString),
                }
            }
        }
        (start as u32, (members.len() - start) as u32)
    }

    fn member(&self, i: u32) -> Option<Member> {
        self.members.borrow().get(i as usize).copied()
    }
}

/// A borrowed Python object read as JSON. `'v` is the lifetime of the data (the caller holds a
/// reference to the root and the GIL for the whole call; nothing runs Python code meanwhile).
#[derive(Clone, Copy)]
pub struct PyView<'v> {
    obj: *mut ffi::PyObject,
    kind: Kind,
    /// A `float` (not an `int`): read with `PyFloat_AsDouble`.
    float: bool,
    depth: u32,
    /// Objects: the range of their members in the table. Arrays: (0, length).
    start: u32,
    len: u32,
    cx: &'v ViewCx,
    _data: PhantomData<&'v ffi::PyObject>,
}

impl<'v> PyView<'v> {
    /// # Safety
    /// `obj` must be a live object that outlives `'v`, and the GIL must be held for `'v`.
    pub unsafe fn new(obj: *mut ffi::PyObject, cx: &'v ViewCx) -> PyView<'v> {
        unsafe { PyView::at(obj, 0, cx) }
    }

    unsafe fn at(obj: *mut ffi::PyObject, depth: u32, cx: &'v ViewCx) -> PyView<'v> {
        let mut kind = unsafe { classify(obj) };
        let (mut float, mut start, mut len) = (false, 0, 0);
        // Every value met is checked for a JSON form, whether or not its schema reads it.
        match kind {
            None => {
                cx.note(Problem::Unsupported(obj));
            }
            Some(Kind::Array | Kind::Object) if depth >= MAX_DEPTH => {
                cx.note(Problem::TooDeep);
                kind = None;
            }
            Some(Kind::Object) => (start, len) = unsafe { cx.read_dict(obj) },
            Some(Kind::Array) => {
                let n = unsafe {
                    if is_list(obj) {
                        ffi::PyList_Size(obj)
                    } else {
                        ffi::PyTuple_Size(obj)
                    }
                };
                len = n.max(0) as u32;
            }
            Some(Kind::Number) if unsafe { is_float(obj) } => {
                float = true;
                let f = unsafe { ffi::PyFloat_AsDouble(obj) };
                if !f.is_finite() {
                    cx.note(Problem::NonFinite(f));
                }
            }
            // Also caches the UTF-8 form the validator reads later (free for ASCII strings).
            Some(Kind::String) if unsafe { str_of(obj) }.is_none() => cx.note(Problem::BadString),
            _ => {}
        }
        PyView { obj, kind: kind.unwrap_or(Kind::Null), float, depth, start, len, cx, _data: PhantomData }
    }

    fn child(&self, obj: *mut ffi::PyObject) -> PyView<'v> {
        // SAFETY: children are borrowed from a container that lives as long as the root.
        unsafe { PyView::at(obj, self.depth + 1, self.cx) }
    }

    fn is_float(&self) -> bool {
        self.float
    }

    fn float(&self) -> f64 {
        unsafe { ffi::PyFloat_AsDouble(self.obj) }
    }

    /// Member `i` of this object: (key, value object).
    fn member(&self, i: u32) -> Option<(&'v str, *mut ffi::PyObject)> {
        let m = self.cx.member(self.start + i)?;
        // SAFETY: the key's UTF-8 lives as long as its str object (or `owned_keys`), both
        // alive for 'v, and is valid UTF-8.
        let key = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(m.key, m.key_len)) };
        Some((key, m.value))
    }
}

/// The JSON kind of an object, `None` when it has none.
unsafe fn classify(obj: *mut ffi::PyObject) -> Option<Kind> {
    unsafe {
        let t = ffi::Py_TYPE(obj);
        // Exact types first: one pointer comparison each for the common case.
        if t == addr_of_mut!(ffi::PyUnicode_Type) {
            return Some(Kind::String);
        }
        if t == addr_of_mut!(ffi::PyDict_Type) {
            return Some(Kind::Object);
        }
        if t == addr_of_mut!(ffi::PyList_Type) {
            return Some(Kind::Array);
        }
        if t == addr_of_mut!(ffi::PyLong_Type) || t == addr_of_mut!(ffi::PyFloat_Type) {
            return Some(Kind::Number);
        }
        // `bool` cannot be subclassed, and must win over its base `int`.
        if t == addr_of_mut!(ffi::PyBool_Type) {
            return Some(Kind::Bool);
        }
        if obj == ffi::Py_None() {
            return Some(Kind::Null);
        }
        if t == addr_of_mut!(ffi::PyTuple_Type) {
            return Some(Kind::Array);
        }
        // Subclasses.
        if ffi::PyUnicode_Check(obj) != 0 {
            Some(Kind::String)
        } else if ffi::PyDict_Check(obj) != 0 {
            Some(Kind::Object)
        } else if ffi::PyList_Check(obj) != 0 || ffi::PyTuple_Check(obj) != 0 {
            Some(Kind::Array)
        } else if ffi::PyLong_Check(obj) != 0 || ffi::PyFloat_Check(obj) != 0 {
            Some(Kind::Number)
        } else {
            None
        }
    }
}

#[inline]
unsafe fn is_str(obj: *mut ffi::PyObject) -> bool {
    unsafe { ffi::Py_TYPE(obj) == addr_of_mut!(ffi::PyUnicode_Type) || ffi::PyUnicode_Check(obj) != 0 }
}

/// An `int` as `i64` when it fits; else `None` and the overflow sign (-1, 0 on error, 1).
unsafe fn long_value(obj: *mut ffi::PyObject) -> (Option<i64>, i32) {
    unsafe {
        let mut overflow = 0;
        let v = ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow);
        if overflow != 0 {
            return (None, overflow);
        }
        if v == -1 && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
            return (None, 0);
        }
        (Some(v), 0)
    }
}

unsafe fn is_float(obj: *mut ffi::PyObject) -> bool {
    unsafe { ffi::Py_TYPE(obj) == addr_of_mut!(ffi::PyFloat_Type) || ffi::PyFloat_Check(obj) != 0 }
}

unsafe fn is_list(obj: *mut ffi::PyObject) -> bool {
    unsafe { ffi::Py_TYPE(obj) == addr_of_mut!(ffi::PyList_Type) || ffi::PyList_Check(obj) != 0 }
}

/// `PyUnicode_AsUTF8AndSize` is in the limited API only from 3.10, but every CPython 3.x
/// exports it; on Windows the 3.9 stable-ABI DLL does not, so there the string is copied.
#[cfg(all(Py_LIMITED_API, not(Py_3_10), not(windows)))]
mod utf8 {
    unsafe extern "C" {
        pub fn PyUnicode_AsUTF8AndSize(
            unicode: *mut pyo3::ffi::PyObject,
            size: *mut pyo3::ffi::Py_ssize_t,
        ) -> *const std::ffi::c_char;
    }
}
#[cfg(any(Py_3_10, not(Py_LIMITED_API)))]
mod utf8 {
    pub use pyo3::ffi::PyUnicode_AsUTF8AndSize;
}

/// The UTF-8 text of a `str` object, borrowed from the object's UTF-8 cache (for ASCII strings
/// that is the object's own storage; no copy).
#[cfg(any(Py_3_10, not(Py_LIMITED_API), not(windows)))]
unsafe fn str_of<'v>(obj: *mut ffi::PyObject) -> Option<Cow<'v, str>> {
    unsafe {
        let mut len: ffi::Py_ssize_t = 0;
        let data = utf8::PyUnicode_AsUTF8AndSize(obj, &mut len);
        if data.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), len as usize);
        // SAFETY: CPython's UTF-8 encoding of a str is valid UTF-8.
        Some(Cow::Borrowed(std::str::from_utf8_unchecked(bytes)))
    }
}

#[cfg(all(Py_LIMITED_API, not(Py_3_10), windows))]
unsafe fn str_of<'v>(obj: *mut ffi::PyObject) -> Option<Cow<'v, str>> {
    unsafe {
        let b = ffi::PyUnicode_AsUTF8String(obj);
        if b.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        let data = ffi::PyBytes_AsString(b);
        let len = ffi::PyBytes_Size(b);
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), len as usize);
        let s = String::from_utf8_lossy(bytes).into_owned();
        ffi::Py_DecRef(b);
        Some(Cow::Owned(s))
    }
}

impl<'v> PyView<'v> {
    fn text(&self, obj: *mut ffi::PyObject) -> Option<Cow<'v, str>> {
        let s = unsafe { str_of(obj) };
        if s.is_none() {
            self.cx.note(Problem::BadString);
        }
        s
    }
}

/// Entries of a dict, in insertion order (from the member table).
pub struct PyEntries<'v> {
    parent: Option<PyView<'v>>,
    index: u32,
}

impl<'v> Iterator for PyEntries<'v> {
    type Item = (Cow<'v, str>, PyView<'v>);

    fn next(&mut self) -> Option<Self::Item> {
        let parent = self.parent?;
        if self.index >= parent.len {
            return None;
        }
        let (key, value) = parent.member(self.index)?;
        self.index += 1;
        Some((Cow::Borrowed(key), parent.child(value)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.parent.map_or(0, |p| p.len.saturating_sub(self.index)) as usize;
        (n, Some(n))
    }
}

/// Elements of a list or tuple.
pub struct PyItems<'v> {
    parent: Option<PyView<'v>>,
    list: bool,
    index: ffi::Py_ssize_t,
    len: ffi::Py_ssize_t,
}

impl<'v> Iterator for PyItems<'v> {
    type Item = PyView<'v>;

    fn next(&mut self) -> Option<PyView<'v>> {
        let parent = self.parent?;
        if self.index >= self.len {
            return None;
        }
        // SAFETY: index < len of a live list/tuple; the item is a borrowed reference. A list
        // cannot shrink meanwhile: no Python code runs during the call.
        let item = unsafe {
            if self.list {
                ffi::PyList_GetItem(parent.obj, self.index)
            } else {
                ffi::PyTuple_GetItem(parent.obj, self.index)
            }
        };
        self.index += 1;
        if item.is_null() {
            unsafe { ffi::PyErr_Clear() };
            self.parent = None;
            return None;
        }
        Some(parent.child(item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.len - self.index).max(0) as usize;
        (n, Some(n))
    }
}

impl<'v> JsonView<'v> for PyView<'v> {
    type Entries = PyEntries<'v>;
    type Items = PyItems<'v>;

    #[inline]
    fn kind(&self) -> Kind {
        self.kind
    }

    fn as_bool(&self) -> Option<bool> {
        (self.kind == Kind::Bool).then(|| self.obj == unsafe { ffi::Py_True() })
    }

    fn as_str(&self) -> Option<Cow<'v, str>> {
        if self.kind != Kind::String {
            return None;
        }
        self.text(self.obj)
    }

    fn str_eq(&self, s: &str) -> bool {
        self.kind == Kind::String && matches!(self.text(self.obj), Some(x) if x == s)
    }

    fn is_integer(&self) -> bool {
        match self.kind {
            Kind::Number if self.is_float() => {
                let f = self.float();
                f.is_finite() && f.fract() == 0.0
            }
            Kind::Number => true,
            _ => false,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        if self.kind != Kind::Number {
            return None;
        }
        if self.is_float() {
            return Some(self.float());
        }
        unsafe {
            let (v, overflow) = long_value(self.obj);
            if let Some(v) = v {
                return Some(v as f64);
            }
            // Beyond i64: as a double, ±inf beyond f64 (the comparisons stay right).
            let f = ffi::PyLong_AsDouble(self.obj);
            if f == -1.0 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return Some(if overflow < 0 { f64::NEG_INFINITY } else { f64::INFINITY });
            }
            Some(f)
        }
    }

    fn to_number(&self) -> Option<Number> {
        if self.kind != Kind::Number {
            return None;
        }
        if self.is_float() {
            return match Number::from_f64(self.float()) {
                Some(n) => Some(n),
                None => Some(Number::from(0i64)),
            };
        }
        unsafe {
            if let (Some(v), _) = long_value(self.obj) {
                return Some(Number::from(v));
            }
            // A big integer: its decimal text.
            let s = ffi::PyObject_Str(self.obj);
            if s.is_null() {
                ffi::PyErr_Clear();
                self.cx.note(Problem::Unsupported(self.obj));
                return None;
            }
            let n = str_of(s).and_then(|t| Number::from_lexeme(&t));
            ffi::Py_DecRef(s);
            n
        }
    }

    fn get(&self, key: &str) -> Option<PyView<'v>> {
        if self.kind != Kind::Object {
            return None;
        }
        let members = self.cx.members.borrow();
        let range = self.start as usize..(self.start + self.len) as usize;
        let found = members.get(range)?.iter().find(|m| {
            // SAFETY: see `PyView::member`.
            m.key_len == key.len() && unsafe { std::slice::from_raw_parts(m.key, m.key_len) } == key.as_bytes()
        });
        let value = found?.value;
        drop(members);
        Some(self.child(value))
    }

    fn len(&self) -> usize {
        match self.kind {
            Kind::Object | Kind::Array => self.len as usize,
            _ => 0,
        }
    }

    fn entries(&self) -> PyEntries<'v> {
        PyEntries { parent: (self.kind == Kind::Object).then_some(*self), index: 0 }
    }

    fn items(&self) -> PyItems<'v> {
        let list = self.kind == Kind::Array && unsafe { is_list(self.obj) };
        PyItems {
            parent: (self.kind == Kind::Array).then_some(*self),
            list,
            index: 0,
            len: self.len() as ffi::Py_ssize_t,
        }
    }
}

/// UTF-8 of a Python `str` (borrowed from its UTF-8 cache where the ABI allows).
pub fn str_text<'a>(s: &'a pyo3::Bound<'_, pyo3::types::PyString>) -> pyo3::PyResult<Cow<'a, str>> {
    // SAFETY: `s` is a live str borrowed for 'a; its UTF-8 form lives as long as it does.
    match unsafe { str_of(s.as_ptr()) } {
        Some(t) => Ok(t),
        None => Err(pyo3::exceptions::PyValueError::new_err(
            "the str is not valid Unicode (lone surrogate): it has no UTF-8 form",
        )),
    }
}
