//! The C-API reads of the walk over Python data ([`super`]): an object's JSON kind, exact
//! types by one pointer comparison (subclasses by the type checks), an `int`'s value, a
//! `str`'s UTF-8. Each function is `unsafe`: `obj` must be a live object and the GIL held.

use std::borrow::Cow;
use std::ptr::addr_of_mut;

use mcpgen::json::Kind;
use pyo3::ffi;

/// The JSON kind of an object, `None` when it has none.
pub(super) unsafe fn classify(obj: *mut ffi::PyObject) -> Option<Kind> {
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
pub(super) unsafe fn is_str(obj: *mut ffi::PyObject) -> bool {
    unsafe { ffi::Py_TYPE(obj) == addr_of_mut!(ffi::PyUnicode_Type) || ffi::PyUnicode_Check(obj) != 0 }
}

/// An `int` as `i64` when it fits; else `None` and the overflow sign (-1, 0 on error, 1).
pub(super) unsafe fn long_value(obj: *mut ffi::PyObject) -> (Option<i64>, i32) {
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

pub(super) unsafe fn is_float(obj: *mut ffi::PyObject) -> bool {
    unsafe { ffi::Py_TYPE(obj) == addr_of_mut!(ffi::PyFloat_Type) || ffi::PyFloat_Check(obj) != 0 }
}

pub(super) unsafe fn is_list(obj: *mut ffi::PyObject) -> bool {
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
pub(super) unsafe fn str_of<'v>(obj: *mut ffi::PyObject) -> Option<Cow<'v, str>> {
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
pub(super) unsafe fn str_of<'v>(obj: *mut ffi::PyObject) -> Option<Cow<'v, str>> {
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
