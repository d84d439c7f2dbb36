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
//! (kind; strings their UTF-8, floats their value; containers the range of their members or
//! elements), so the validators' reads, repeated ones included (`required`, union arm
//! scoring), cost no C-API call but the reads of `int`s.
//!
//! The walk is the cost of validating data (≈ 80% of a call on the benchmark's mix): it reads
//! every dict with `PyDict_Next` (borrowed references) and every `str` with
//! `PyUnicode_AsUTF8AndSize` (the str's own UTF-8 cache), tells the exact built-in types apart
//! by one pointer comparison each (subclasses take the general path, [`classify`]), walks each
//! value as its dict or list is read (a container's slots are reserved first, so its members
//! stay contiguous), and keeps what failed aside ([`Tables::error`]) so the `Result`s passed up
//! the recursion are one word. A bad key anywhere in a dict wins over a bad value in it, as
//! when the keys were read before the values: the keys are the dict's own.
//!
//! Reading never runs Python code, so the data cannot change under the validator.

use std::borrow::Cow;
use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::ptr::addr_of_mut;

use mcpgen::json::{Kind, Number};
use mcpgen::JsonView;
use pyo3::ffi;

mod objects;
use objects::{classify, is_float, is_list, is_str, long_value, str_of};

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
    static SPARE: Cell<Option<Box<Tables>>> = const { Cell::new(None) };
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

/// One value of the data: its object and kind; strings: their UTF-8 (read once, by the walk);
/// floats: their value; containers: the range of their members (objects) or elements (arrays)
/// in the tables.
#[derive(Clone, Copy)]
struct Node {
    obj: *mut ffi::PyObject,
    /// Strings: the UTF-8's address (the str's own cache, or `owned_keys`); floats: the
    /// value's bits; else 0.
    aux: u64,
    /// Strings: the UTF-8's length; containers: the number of members or elements.
    len: usize,
    /// Containers: the first member or element in the tables.
    start: u32,
    kind: Kind,
    /// A `float` (not an `int`): its value is in `aux`.
    float: bool,
}

impl Node {
    const fn new(obj: *mut ffi::PyObject, kind: Kind) -> Node {
        Node { obj, aux: 0, len: 0, start: 0, kind, float: false }
    }
}

/// One dict member: its key's UTF-8 (borrowed from the key object, or from `owned_keys`) and
/// the value's node.
#[derive(Clone, Copy)]
struct Member {
    key: *const u8,
    key_len: usize,
    node: u32,
}

const NO_MEMBER: Member = Member { key: std::ptr::null(), key_len: 0, node: 0 };

/// A failed walk; what failed and where is in [`Tables::error`].
struct Fail;

#[derive(Default)]
struct Tables {
    /// Deepest nesting read (set by [`ViewCx::read`]).
    max_depth: usize,
    nodes: Vec<Node>,
    members: Vec<Member>,
    /// Array elements: node indices.
    items: Vec<u32>,
    /// UTF-8 copies of strings where the ABI cannot lend the str's own (Windows, Python 3.9).
    owned_keys: Vec<Box<str>>,
    /// Why the walk failed (set with the failure, its path completed while unwinding).
    error: Option<NotJsonData>,
}

/// A table position as the tables store it, or [`Problem::TooLarge`].
fn index(n: usize) -> Result<u32, Problem> {
    u32::try_from(n).ok().filter(|&i| i < u32::MAX).ok_or(Problem::TooLarge)
}

impl Tables {
    #[cold]
    fn fail(&mut self, problem: Problem) -> Fail {
        self.error = Some(problem.into());
        Fail
    }

    /// Adds the step from a container to the child where the problem is (while unwinding).
    #[cold]
    fn fail_inside(&mut self, step: Step) -> Fail {
        if let Some(e) = self.error.as_mut() {
            e.path.push(step);
        }
        Fail
    }

    /// Appends a node; its index.
    #[inline(always)]
    fn push(&mut self, node: Node) -> Result<u32, Fail> {
        let id = self.nodes.len();
        // Also keeps `u32::MAX` free: no index reaches it.
        if id >= u32::MAX as usize {
            return Err(self.fail(Problem::TooLarge));
        }
        self.nodes.push(node);
        Ok(id as u32)
    }

    /// The UTF-8 of a str (address, length), or [`Problem::BadString`].
    ///
    /// # Safety
    /// `obj` is a live `str` (or subclass) of the data; the GIL is held.
    #[inline(always)]
    unsafe fn utf8(&mut self, obj: *mut ffi::PyObject) -> Result<(*const u8, usize), Fail> {
        match unsafe { str_of(obj) } {
            Some(Cow::Borrowed(text)) => Ok((text.as_ptr(), text.len())),
            Some(Cow::Owned(text)) => {
                let text: Box<str> = text.into();
                let borrowed = (text.as_ptr(), text.len());
                // A Box's heap data does not move when the Vec holding it grows.
                self.owned_keys.push(text);
                Ok(borrowed)
            }
            None => Err(self.fail(Problem::BadString)),
        }
    }

    /// Records `obj` and everything in it; returns its node. Exact built-in types are told
    /// apart by one pointer comparison each; subclasses take [`classify`].
    ///
    /// # Safety
    /// `obj` is a live object, the GIL is held, and no Python code runs meanwhile.
    #[inline(always)]
    unsafe fn value(&mut self, obj: *mut ffi::PyObject, depth: usize) -> Result<u32, Fail> {
        let t = unsafe { ffi::Py_TYPE(obj) };
        // Exact types first, in the order of their frequency in MCP messages.
        let kind = if t == addr_of_mut!(ffi::PyUnicode_Type) {
            Kind::String
        } else if t == addr_of_mut!(ffi::PyDict_Type) {
            return unsafe { self.dict(obj, depth) };
        } else if t == addr_of_mut!(ffi::PyLong_Type) {
            return self.push(Node::new(obj, Kind::Number));
        } else if t == addr_of_mut!(ffi::PyList_Type) {
            return unsafe { self.array(obj, true, depth) };
        } else if t == addr_of_mut!(ffi::PyFloat_Type) {
            return unsafe { self.float(obj) };
        } else if t == addr_of_mut!(ffi::PyBool_Type) {
            // `bool` cannot be subclassed, and must win over its base `int`.
            return self.push(Node::new(obj, Kind::Bool));
        } else if obj == unsafe { ffi::Py_None() } {
            return self.push(Node::new(obj, Kind::Null));
        } else {
            match unsafe { classify(obj) } {
                Some(Kind::Object) => return unsafe { self.dict(obj, depth) },
                Some(Kind::Array) => return unsafe { self.array(obj, is_list(obj), depth) },
                Some(Kind::Number) if unsafe { is_float(obj) } => return unsafe { self.float(obj) },
                Some(kind) => kind,
                None => return Err(self.fail(Problem::Unsupported(obj))),
            }
        };
        match kind {
            Kind::String => {
                // Also caches the UTF-8 form the validator reads (free for ASCII strings).
                let (text, len) = unsafe { self.utf8(obj) }?;
                self.push(Node { obj, aux: text as u64, len, start: 0, kind, float: false })
            }
            _ => self.push(Node::new(obj, kind)),
        }
    }

    /// A `float` (or subclass): finite, or [`Problem::NonFinite`].
    #[inline(always)]
    unsafe fn float(&mut self, obj: *mut ffi::PyObject) -> Result<u32, Fail> {
        let f = unsafe { ffi::PyFloat_AsDouble(obj) };
        if !f.is_finite() {
            return Err(self.fail(Problem::NonFinite(f)));
        }
        self.push(Node { obj, aux: f.to_bits(), len: 0, start: 0, kind: Kind::Number, float: true })
    }

    /// Records a dict and its members (contiguous in the table, reserved first), walking each
    /// value as it comes. A key problem anywhere in the dict wins over a problem inside its
    /// values (the keys are the dict's own), so after a value fails the remaining keys are
    /// still checked.
    #[inline(never)]
    unsafe fn dict(&mut self, dict: *mut ffi::PyObject, depth: usize) -> Result<u32, Fail> {
        if depth >= self.max_depth {
            return Err(self.fail(Problem::TooDeep(self.max_depth)));
        }
        let id = self.push(Node::new(dict, Kind::Object))?;
        // SAFETY: a live dict (or subclass); the GIL is held.
        let n = unsafe { ffi::PyDict_Size(dict) }.max(0) as usize;
        let start = self.members.len();
        if index(start + n).is_err() {
            return Err(self.fail(Problem::TooLarge));
        }
        self.members.resize(start + n, NO_MEMBER);
        let (mut pos, mut k, mut v) = (0, std::ptr::null_mut(), std::ptr::null_mut());
        let mut i = 0;
        // SAFETY: borrowed references to the key and value, alive while the dict is; the dict
        // cannot change meanwhile (no Python code runs during the walk).
        while unsafe { ffi::PyDict_Next(dict, &mut pos, &mut k, &mut v) } != 0 {
            if i == n {
                // The dict grew under the walk, which runs no Python code: cannot happen.
                return Err(self.fail(Problem::Unsupported(dict)));
            }
            if !unsafe { is_str(k) } {
                return Err(self.fail(Problem::NonStrKey(k)));
            }
            let (key, key_len) = unsafe { self.utf8(k) }?;
            match unsafe { self.value(v, depth + 1) } {
                // SAFETY: i < n, and `members` holds start + n slots (resized above; the
                // walks below only append).
                Ok(node) => unsafe { *self.members.get_unchecked_mut(start + i) = Member { key, key_len, node } },
                Err(Fail) => {
                    let m = Member { key, key_len, node: 0 };
                    return Err(unsafe { self.value_failed(dict, pos, &m) });
                }
            }
            i += 1;
        }
        if i != n {
            return Err(self.fail(Problem::Unsupported(dict)));
        }
        let node = &mut self.nodes[id as usize];
        (node.start, node.len) = (start as u32, n);
        Ok(id)
    }

    /// After the value of member `m` failed: a key problem among the dict's remaining keys
    /// (from `pos`) wins; else the value's problem, one step deeper.
    #[cold]
    unsafe fn value_failed(&mut self, dict: *mut ffi::PyObject, mut pos: ffi::Py_ssize_t, m: &Member) -> Fail {
        let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: as in `dict`.
        while unsafe { ffi::PyDict_Next(dict, &mut pos, &mut k, &mut v) } != 0 {
            if !unsafe { is_str(k) } {
                return self.fail(Problem::NonStrKey(k));
            }
            if unsafe { self.utf8(k) }.is_err() {
                return Fail;
            }
        }
        self.fail_inside(Step::Key(member_key(m).to_owned()))
    }

    /// Records a list or tuple: its element slots (contiguous, reserved first), then each
    /// element.
    #[inline(never)]
    unsafe fn array(&mut self, obj: *mut ffi::PyObject, list: bool, depth: usize) -> Result<u32, Fail> {
        if depth >= self.max_depth {
            return Err(self.fail(Problem::TooDeep(self.max_depth)));
        }
        let id = self.push(Node::new(obj, Kind::Array))?;
        let n = unsafe {
            if list {
                ffi::PyList_Size(obj)
            } else {
                ffi::PyTuple_Size(obj)
            }
        }
        .max(0) as usize;
        let start = self.items.len();
        if index(start + n).is_err() {
            return Err(self.fail(Problem::TooLarge));
        }
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
                return Err(self.fail(Problem::Unsupported(obj)));
            }
            match unsafe { self.value(item, depth + 1) } {
                // SAFETY: i < n, and `items` holds start + n slots (resized above; the walks
                // below only append).
                Ok(node) => unsafe { *self.items.get_unchecked_mut(start + i) = node },
                Err(Fail) => return Err(self.fail_inside(Step::Index(i))),
            }
        }
        let node = &mut self.nodes[id as usize];
        (node.start, node.len) = (start as u32, n);
        Ok(id)
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.members.clear();
        self.items.clear();
        self.owned_keys.clear();
        self.error = None;
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
    /// Given back to [`SPARE`] (or freed) on drop, without allocating a replacement.
    t: ManuallyDrop<Box<Tables>>,
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
        let mut cx = ViewCx { t: ManuallyDrop::new(SPARE.take().unwrap_or_default()) };
        cx.t.max_depth = max_depth;
        match unsafe { cx.t.value(root, 0) } {
            Ok(_) => Ok(cx),
            Err(Fail) => Err(cx.t.error.take().unwrap_or_else(|| Problem::Unsupported(root).into())),
        }
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
        // SAFETY: `self.t` is not used again: this is the end of the `ViewCx`.
        let mut t = unsafe { ManuallyDrop::take(&mut self.t) };
        let kept = [t.nodes.capacity(), t.members.capacity(), t.items.capacity()];
        if kept.iter().all(|&c| c <= KEEP_ENTRIES) {
            t.clear();
            SPARE.set(Some(t));
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
    /// A float's value (read by the walk).
    fn float(&self) -> f64 {
        f64::from_bits(self.node.aux)
    }

    /// This object's members in the table.
    fn members(&self) -> &'v [Member] {
        if self.node.kind != Kind::Object {
            return &[];
        }
        let start = self.node.start as usize;
        &self.cx.t.members[start..start + self.node.len]
    }

    /// This array's element nodes in the table.
    fn elements(&self) -> &'v [u32] {
        if self.node.kind != Kind::Array {
            return &[];
        }
        let start = self.node.start as usize;
        &self.cx.t.items[start..start + self.node.len]
    }

    /// A string's UTF-8 (read by the walk).
    fn text(&self) -> &'v str {
        // SAFETY: the walk stored the address and length of the str's UTF-8, which lives as long
        // as the str (alive for the call) or in `owned_keys` (as long as the tables), and is
        // valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.node.aux as *const u8, self.node.len)) }
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
        Some(Cow::Borrowed(self.text()))
    }

    fn str_eq(&self, s: &str) -> bool {
        self.node.kind == Kind::String && self.text() == s
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
            Kind::Object | Kind::Array => self.node.len,
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
