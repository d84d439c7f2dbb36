//! [`PyView`]: the generated validators read Python objects directly through
//! [`mcpgen::JsonView`], so `validate(dict)` costs no JSON text round trip.
//!
//! Mapping (what `json.dumps` would write): `dict` (keys must be `str`) → object; `list` and
//! `tuple` → array; `str` → string; `bool` → boolean (checked before `int`, its base class);
//! `int` → number (an integer); `float` → number (`1.0` counts as an integer, as in JSON
//! Schema); `None` → null. Subclasses count as their base (`IntEnum`, `OrderedDict`, …).
//!
//! [`ViewCx::read`] walks the whole data once, before any validator runs, as the parser reads
//! the whole text: every value, including those in parts the schema leaves open (tool
//! `arguments`, `_meta`), must have a JSON form, or the read fails with a [`NotJsonData`] (a
//! `set`, a `bytes`, a non-`str` key, `nan`/`inf`, a lone surrogate, nesting deeper than the
//! parser's limit, a container that contains itself). The walk leaves a table of every node
//! (kind, and for containers the range of their members or elements), so the validators'
//! reads, repeated ones included (`required`, union arm scoring), cost no C-API call but the
//! scalar reads.
//!
//! Reading never runs Python code, so the data cannot change under the validator.

use std::borrow::Cow;
use std::cell::Cell;
use std::ptr::addr_of_mut;

use mcpgen::json::{Kind, Number};
use mcpgen::JsonView;
use pyo3::ffi;

/// Deepest nesting read from Python data by default: the JSON parser's own limit, so data and
/// its text have one verdict (a container inside this many others is too deep).
pub const MAX_DEPTH: usize = mcpgen::json::tape::DEFAULT_MAX_DEPTH;

/// Deepest nesting read from a tool given as Python data: deeper than the parser's limit, so
/// that the tool checks report a `too_deep` tool (JSCHEMA-8) as they do for the text form.
pub const TOOL_MAX_DEPTH: usize = 512;

/// Table capacity (in entries) kept for the next call on this thread (larger tables are freed).
const KEEP_ENTRIES: usize = 1 << 16;

thread_local! {
    /// The tables' storage, reused from call to call on this thread.
    static SPARE: Cell<Tables> = Cell::new(Tables::default());
}

/// A value of the data that has no JSON form, and where it is.
#[derive(Debug)]
pub struct NotJsonData {
    pub problem: Problem,
    /// Path from the root to the value (its container for a key problem), innermost last once
    /// [`NotJsonData::pointer`] has read it.
    path: Vec<Step>,
}

#[derive(Clone, Copy, Debug)]
pub enum Problem {
    /// A value of a type that has no JSON form (the object, alive as long as the data).
    Unsupported(*mut ffi::PyObject),
    /// A dictionary key that is not a `str` (the key object).
    NonStrKey(*mut ffi::PyObject),
    /// `nan`, `inf` or `-inf`.
    NonFinite(f64),
    /// A string (or key) that cannot be UTF-8 (lone surrogates).
    BadString,
    /// A container nested deeper than the limit (the limit), or containing itself.
    TooDeep(usize),
    /// More values than the tables can index (2³² − 1), which only shared sub-objects reach.
    TooLarge,
}

#[derive(Debug)]
enum Step {
    Key(String),
    Index(usize),
}

impl From<Problem> for NotJsonData {
    fn from(problem: Problem) -> Self {
        NotJsonData { problem, path: Vec::new() }
    }
}

impl NotJsonData {
    /// Adds the step from a container to the child where the problem is (while unwinding).
    fn inside(mut self, step: Step) -> Self {
        self.path.push(step);
        self
    }

    /// JSON pointer (RFC 6901) of the value with no JSON form (of its dict for a key).
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for step in self.path.iter().rev() {
            out.push('/');
            match step {
                Step::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Step::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }
}

/// One value of the data: its object and kind; containers: the range of their members
/// (objects) or elements (arrays) in the tables.
#[derive(Clone, Copy)]
struct Node {
    obj: *mut ffi::PyObject,
    kind: Kind,
    /// A `float` (not an `int`): read with `PyFloat_AsDouble`.
    float: bool,
    start: u32,
    len: u32,
}

/// One dict member: its key's UTF-8 (borrowed from the key object, or from `owned_keys`), its
/// value object and the value's node.
#[derive(Clone, Copy)]
struct Member {
    key: *const u8,
    key_len: usize,
    value: *mut ffi::PyObject,
    node: u32,
}

#[derive(Default)]
struct Tables {
    /// Deepest nesting read (set by [`ViewCx::read`]).
    max_depth: usize,
    nodes: Vec<Node>,
    members: Vec<Member>,
    /// Array elements: node indices.
    items: Vec<u32>,
    /// UTF-8 copies of keys where the ABI cannot lend the str's own (Windows, Python 3.9).
    owned_keys: Vec<Box<str>>,
}

/// A table position as the tables store it, or [`Problem::TooLarge`].
fn index(n: usize) -> Result<u32, Problem> {
    u32::try_from(n).ok().filter(|&i| i < u32::MAX).ok_or(Problem::TooLarge)
}

impl Tables {
    /// Records `obj` and everything in it; returns its node.
    ///
    /// # Safety
    /// `obj` is a live object, the GIL is held, and no Python code runs meanwhile.
    unsafe fn walk(&mut self, obj: *mut ffi::PyObject, depth: usize) -> Result<u32, NotJsonData> {
        let kind = unsafe { classify(obj) }.ok_or(Problem::Unsupported(obj))?;
        let mut node = Node { obj, kind, float: false, start: 0, len: 0 };
        match kind {
            Kind::Object | Kind::Array if depth >= self.max_depth => {
                return Err(Problem::TooDeep(self.max_depth).into())
            }
            Kind::Number if unsafe { is_float(obj) } => {
                node.float = true;
                let f = unsafe { ffi::PyFloat_AsDouble(obj) };
                if !f.is_finite() {
                    return Err(Problem::NonFinite(f).into());
                }
            }
            // Also caches the UTF-8 form the validator reads later (free for ASCII strings).
            Kind::String if unsafe { str_of(obj) }.is_none() => return Err(Problem::BadString.into()),
            _ => {}
        }
        let id = index(self.nodes.len())?;
        self.nodes.push(node);
        let (start, len) = match kind {
            Kind::Object => unsafe { self.walk_dict(obj, depth)? },
            Kind::Array => unsafe { self.walk_array(obj, depth)? },
            _ => return Ok(id),
        };
        let node = &mut self.nodes[id as usize];
        (node.start, node.len) = (start, len);
        Ok(id)
    }

    /// Records a dict's members (contiguous in the table), then walks their values.
    unsafe fn walk_dict(&mut self, dict: *mut ffi::PyObject, depth: usize) -> Result<(u32, u32), NotJsonData> {
        let start = self.members.len();
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        while unsafe { ffi::PyDict_Next(dict, &mut pos, &mut k, &mut v) } != 0 {
            if !unsafe { is_str(k) } {
                return Err(Problem::NonStrKey(k).into());
            }
            let (key, key_len) = match unsafe { str_of(k) } {
                Some(Cow::Borrowed(text)) => (text.as_ptr(), text.len()),
                Some(Cow::Owned(text)) => {
                    let text: Box<str> = text.into();
                    let borrowed = (text.as_ptr(), text.len());
                    // A Box's heap data does not move when the Vec holding it grows.
                    self.owned_keys.push(text);
                    borrowed
                }
                None => return Err(Problem::BadString.into()),
            };
            self.members.push(Member { key, key_len, value: v, node: 0 });
        }
        let end = self.members.len();
        for i in start..end {
            let m = self.members[i];
            let node =
                unsafe { self.walk(m.value, depth + 1) }.map_err(|e| e.inside(Step::Key(member_key(&m).to_owned())))?;
            self.members[i].node = node;
        }
        Ok((index(start)?, index(end - start)?))
    }

    /// Reserves a list's or tuple's element slots (contiguous), then walks the elements.
    unsafe fn walk_array(&mut self, obj: *mut ffi::PyObject, depth: usize) -> Result<(u32, u32), NotJsonData> {
        let list = unsafe { is_list(obj) };
        let n = unsafe {
            if list {
                ffi::PyList_Size(obj)
            } else {
                ffi::PyTuple_Size(obj)
            }
        }
        .max(0) as usize;
        let start = self.items.len();
        index(start + n)?;
        self.items.resize(start + n, 0);
        for i in 0..n {
            // SAFETY: i < len of a live list/tuple; a borrowed reference. A list cannot shrink
            // meanwhile: no Python code runs during the walk.
            let item = unsafe {
                if list {
                    ffi::PyList_GetItem(obj, i as ffi::Py_ssize_t)
                } else {
                    ffi::PyTuple_GetItem(obj, i as ffi::Py_ssize_t)
                }
            };
            if item.is_null() {
                unsafe { ffi::PyErr_Clear() };
                return Err(Problem::Unsupported(obj).into());
            }
            self.items[start + i] = unsafe { self.walk(item, depth + 1) }.map_err(|e| e.inside(Step::Index(i)))?;
        }
        Ok((index(start)?, index(n)?))
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.members.clear();
        self.items.clear();
        self.owned_keys.clear();
    }
}

/// A member's key text.
fn member_key(m: &Member) -> &str {
    // SAFETY: the key's UTF-8 lives as long as its str object (or `owned_keys`), both alive
    // while the tables are, and is valid UTF-8.
    unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(m.key, m.key_len)) }
}

/// The walked data of one call: every view of it reads these tables.
pub struct ViewCx {
    t: Tables,
}

impl ViewCx {
    /// Walks all of `root` (to `max_depth` levels); fails on the first value without a JSON
    /// form.
    ///
    /// # Safety
    /// `root` must be a live object that outlives the `ViewCx`, the GIL must be held for its
    /// whole life, and no Python code may run meanwhile (the data must not change).
    pub unsafe fn read(root: *mut ffi::PyObject, max_depth: usize) -> Result<ViewCx, NotJsonData> {
        // Dropping the `ViewCx` gives the tables back, failure or not.
        let mut cx = ViewCx { t: SPARE.take() };
        cx.t.max_depth = max_depth;
        unsafe { cx.t.walk(root, 0) }?;
        Ok(cx)
    }

    /// The view of the root value.
    pub fn root(&self) -> PyView<'_> {
        self.view(0)
    }

    fn view(&self, node: u32) -> PyView<'_> {
        PyView { node: self.t.nodes[node as usize], cx: self }
    }
}

impl Drop for ViewCx {
    fn drop(&mut self) {
        let mut t = std::mem::take(&mut self.t);
        let kept = [t.nodes.capacity(), t.members.capacity(), t.items.capacity()];
        if kept.iter().all(|&c| c <= KEEP_ENTRIES) {
            t.clear();
            SPARE.set(t);
        }
    }
}

/// A Python value read as JSON, borrowed from a [`ViewCx`] (which the caller keeps, with the
/// data and the GIL, for the whole call).
#[derive(Clone, Copy)]
pub struct PyView<'v> {
    node: Node,
    cx: &'v ViewCx,
}

impl<'v> PyView<'v> {
    fn float(&self) -> f64 {
        unsafe { ffi::PyFloat_AsDouble(self.node.obj) }
    }

    /// This object's members in the table.
    fn members(&self) -> &'v [Member] {
        if self.node.kind != Kind::Object {
            return &[];
        }
        let start = self.node.start as usize;
        &self.cx.t.members[start..start + self.node.len as usize]
    }

    /// This array's element nodes in the table.
    fn elements(&self) -> &'v [u32] {
        if self.node.kind != Kind::Array {
            return &[];
        }
        let start = self.node.start as usize;
        &self.cx.t.items[start..start + self.node.len as usize]
    }

    fn text(&self) -> Option<Cow<'v, str>> {
        // SAFETY: a live str of the data; the walk checked it has a UTF-8 form.
        unsafe { str_of(self.node.obj) }
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

/// Entries of a dict, in insertion order (from the member table).
pub struct PyEntries<'v> {
    members: std::slice::Iter<'v, Member>,
    cx: &'v ViewCx,
}

impl<'v> Iterator for PyEntries<'v> {
    type Item = (Cow<'v, str>, PyView<'v>);

    fn next(&mut self) -> Option<Self::Item> {
        let m = self.members.next()?;
        Some((Cow::Borrowed(member_key(m)), self.cx.view(m.node)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.members.size_hint()
    }
}

/// Elements of a list or tuple (from the element table).
pub struct PyItems<'v> {
    nodes: std::slice::Iter<'v, u32>,
    cx: &'v ViewCx,
}

impl<'v> Iterator for PyItems<'v> {
    type Item = PyView<'v>;

    fn next(&mut self) -> Option<PyView<'v>> {
        self.nodes.next().map(|&n| self.cx.view(n))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.nodes.size_hint()
    }
}

impl<'v> JsonView<'v> for PyView<'v> {
    type Entries = PyEntries<'v>;
    type Items = PyItems<'v>;

    #[inline]
    fn kind(&self) -> Kind {
        self.node.kind
    }

    fn as_bool(&self) -> Option<bool> {
        (self.node.kind == Kind::Bool).then(|| self.node.obj == unsafe { ffi::Py_True() })
    }

    fn as_str(&self) -> Option<Cow<'v, str>> {
        if self.node.kind != Kind::String {
            return None;
        }
        self.text()
    }

    fn str_eq(&self, s: &str) -> bool {
        self.node.kind == Kind::String && matches!(self.text(), Some(x) if x == s)
    }

    fn is_integer(&self) -> bool {
        match self.node.kind {
            Kind::Number if self.node.float => self.float().fract() == 0.0,
            Kind::Number => true,
            _ => false,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        if self.node.kind != Kind::Number {
            return None;
        }
        if self.node.float {
            return Some(self.float());
        }
        unsafe {
            let (v, overflow) = long_value(self.node.obj);
            if let Some(v) = v {
                return Some(v as f64);
            }
            // Beyond i64: as a double, ±inf beyond f64 (the comparisons stay right).
            let f = ffi::PyLong_AsDouble(self.node.obj);
            if f == -1.0 && !ffi::PyErr_Occurred().is_null() {
                ffi::PyErr_Clear();
                return Some(if overflow < 0 { f64::NEG_INFINITY } else { f64::INFINITY });
            }
            Some(f)
        }
    }

    fn to_number(&self) -> Option<Number> {
        if self.node.kind != Kind::Number {
            return None;
        }
        if self.node.float {
            // Finite: the walk refused the others.
            return Number::from_f64(self.float());
        }
        unsafe {
            if let (Some(v), _) = long_value(self.node.obj) {
                return Some(Number::from(v));
            }
            // A big integer: its decimal text.
            let s = ffi::PyObject_Str(self.node.obj);
            if s.is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            let n = str_of(s).and_then(|t| Number::from_lexeme(&t));
            ffi::Py_DecRef(s);
            n
        }
    }

    fn get(&self, key: &str) -> Option<PyView<'v>> {
        let m = self.members().iter().find(|m| m.key_len == key.len() && member_key(m) == key)?;
        Some(self.cx.view(m.node))
    }

    fn len(&self) -> usize {
        match self.node.kind {
            Kind::Object | Kind::Array => self.node.len as usize,
            _ => 0,
        }
    }

    fn entries(&self) -> PyEntries<'v> {
        PyEntries { members: self.members().iter(), cx: self.cx }
    }

    fn items(&self) -> PyItems<'v> {
        PyItems { nodes: self.elements().iter(), cx: self.cx }
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
