//! `libmcpgen`: the mcpgen core behind a C ABI (`include/mcpgen.h`, hand-written, which
//! includes the generated `include/mcpgen_schema.h`).
//!
//! This crate only marshals: every decision is made by the `mcpgen` crate, so C, Rust, Python
//! and the CLI give the same verdicts. The conventions (documented at the top of `mcpgen.h`)
//! are enforced here in one place each:
//! - [`boundary`]: every export runs inside `catch_unwind`; a panic becomes `MCPGEN_PANIC`;
//!   out-parameters are cleared on entry and only written on success; failures become an
//!   [`ErrorObject`] handed to the caller's `error_out`;
//! - [`input`] / [`input_str`]: (pointer, length) inputs, NULL checked, never NUL-terminated;
//! - [`OwnedStr`] / [`c_string`]: strings handed out with a trailing NUL and a length;
//! - [`Status`]: the one table of status codes (`status.rs`), checked against `mcpgen.h`.
//!
//! The safety contract of each `unsafe extern "C"` function is its doc comment in `mcpgen.h`
//! (valid pointers for the given lengths, objects from the matching `_new`/producer, freed once).
#![allow(clippy::missing_safety_doc)]
// These docs are for maintainers, who read them with `cargo doc --document-private-items`
// (C users read mcpgen.h): the links above name the private helpers on purpose.
#![allow(rustdoc::private_intra_doc_links)]

mod context;
mod conversation;
mod error;
#[allow(dead_code)]
#[rustfmt::skip]
mod ids;
mod info;
mod lists;
mod protocol;
mod status;
mod tools;
mod validate;

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use core_api::ext::Extension;
use core_api::Revision;

pub use error::ErrorObject;
pub use status::Status;

/// Every export with the types its signatures name, for Rust callers of the rlib build of these
/// sources (`fuzz/c-abi`): the `c_abi` fuzz target calls the exports themselves, so a changed
/// signature breaks its build instead of going unnoticed.
#[doc(hidden)]
pub mod abi {
    pub use crate::context::*;
    pub use crate::conversation::*;
    pub use crate::error::*;
    pub use crate::info::*;
    pub use crate::lists::*;
    pub use crate::protocol::*;
    pub use crate::tools::*;
    pub use crate::validate::*;
    pub use crate::{McpgenStr, Status};
}

/// Runs an export's body: clears `error_out`, catches panics, and hands a failure's
/// [`ErrorObject`] to the caller (or drops it when `error_out` is NULL).
pub(crate) fn boundary(error_out: *mut *mut ErrorObject, body: impl FnOnce() -> Result<Status, ErrorObject>) -> Status {
    if !error_out.is_null() {
        // SAFETY: the caller passes NULL or a writable pointer (mcpgen.h conventions).
        unsafe { error_out.write(std::ptr::null_mut()) };
    }
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| Err(ErrorObject::panic(payload)));
    match outcome {
        Ok(status) => status,
        Err(e) => {
            let status = e.status;
            if !error_out.is_null() {
                // SAFETY: as above.
                unsafe { error_out.write(Box::into_raw(Box::new(e))) };
            }
            status
        }
    }
}

/// Sets a pointer out-parameter to NULL when the caller gave one.
pub(crate) fn clear_ptr<T>(out: *mut *mut T) {
    if !out.is_null() {
        // SAFETY: NULL or writable, per the conventions.
        unsafe { out.write(std::ptr::null_mut()) };
    }
}

/// Sets a plain out-parameter to its zero value when the caller gave one.
pub(crate) fn clear<T: Copy>(out: *mut T, zero: T) {
    if !out.is_null() {
        // SAFETY: NULL or writable, per the conventions.
        unsafe { out.write(zero) };
    }
}

/// Writes an out-parameter the caller gave (optional ones may be NULL).
pub(crate) fn put<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: NULL or writable, per the conventions.
        unsafe { out.write(value) };
    }
}

/// Fails with `MCPGEN_NULL_ARGUMENT` when a required pointer is NULL.
pub(crate) fn required<T>(p: *const T, what: &str) -> Result<(), ErrorObject> {
    if p.is_null() {
        Err(ErrorObject::call(Status::NullArgument, format!("`{what}` is NULL")))
    } else {
        Ok(())
    }
}

/// Borrows a (pointer, length) byte input.
pub(crate) fn input<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], ErrorObject> {
    required(ptr, what)?;
    if len > isize::MAX as usize {
        return Err(ErrorObject::call(Status::InvalidArgument, format!("`{what}` length {len} is too large")));
    }
    // SAFETY: the caller guarantees `len` readable bytes at a non-NULL `ptr` for the call.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows a (pointer, length) UTF-8 name input (definition, method, version, key).
pub(crate) fn input_str<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, ErrorObject> {
    let bytes = input(ptr.cast(), len, what)?;
    std::str::from_utf8(bytes)
        .map_err(|e| ErrorObject::call(Status::ArgumentNotUtf8, format!("`{what}` is not UTF-8: {e}")))
}

/// The revision behind a `mcpgen_revision` code.
pub(crate) fn revision(code: u32) -> Result<Revision, ErrorObject> {
    // Resolved once: `Revision::parse` builds a list per call, which would be a per-call
    // allocation on every C entry point.
    static BY_CODE: std::sync::OnceLock<Vec<Option<Revision>>> = std::sync::OnceLock::new();
    let table = BY_CODE.get_or_init(|| ids::REVISIONS.iter().map(|r| Revision::parse(unnul(r.name))).collect());
    match code.checked_sub(1).and_then(|i| table.get(i as usize)) {
        Some(Some(rev)) => Ok(*rev),
        Some(None) => Err(ErrorObject::call(
            Status::UnknownRevision,
            format!("revision {} is not compiled into this library", unnul(ids::REVISIONS[code as usize - 1].name)),
        )),
        None => Err(ErrorObject::call(Status::UnknownRevision, format!("{code} is not an mcpgen_revision value"))),
    }
}

/// The extension behind a `mcpgen_extension` code.
pub(crate) fn extension(code: u32) -> Result<Extension, ErrorObject> {
    match code.checked_sub(1).and_then(|i| ids::EXTENSIONS.get(i as usize)) {
        Some(e) => Extension::from_id(unnul(e.id)).ok_or_else(|| {
            ErrorObject::call(
                Status::UnknownExtension,
                format!("extension {} is not compiled into this library", unnul(e.id)),
            )
        }),
        None => Err(ErrorObject::call(Status::UnknownExtension, format!("{code} is not an mcpgen_extension value"))),
    }
}

/// A name from the id tables without its trailing NUL.
pub(crate) fn unnul(s: &'static str) -> &'static str {
    s.strip_suffix('\0').unwrap_or(s)
}

/// The id-table entry of a revision.
pub(crate) fn revision_ids(rev: Revision) -> Option<&'static ids::RevisionIds> {
    ids::REVISIONS.iter().find(|r| unnul(r.name) == rev.as_str())
}

/// The `mcpgen_revision` code of a revision.
pub(crate) fn revision_code(rev: Revision) -> u32 {
    revision_ids(rev).map_or(0, |r| r.code)
}

/// The revision and definition name behind a `mcpgen_def_id`.
/// The definition name keeps its NUL (for `mcpgen_str` outputs); [`unnul`] it for the core.
pub(crate) fn definition(id: u32) -> Result<(Revision, &'static str), ErrorObject> {
    let rev = revision(id >> 16).map_err(|_| {
        ErrorObject::call(Status::UnknownDefinition, format!("0x{id:06X} is not a definition id of this library"))
    })?;
    let ids = &ids::REVISIONS[(id >> 16) as usize - 1];
    let index = (id & 0xFFFF) as usize;
    match index.checked_sub(1).and_then(|i| ids.definitions.get(i)) {
        Some(name) => Ok((rev, name)),
        None => Err(ErrorObject::call(
            Status::UnknownDefinition,
            format!("0x{id:06X} is not a definition id of revision {}", unnul(ids.name)),
        )),
    }
}

/// `mcpgen_str`: a borrowed string handed to C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct McpgenStr {
    pub ptr: *const c_char,
    pub len: usize,
}

impl McpgenStr {
    pub const NULL: McpgenStr = McpgenStr { ptr: std::ptr::null(), len: 0 };

    /// A static string literal that ends with `\0` (the NUL is not counted).
    pub fn from_static_nul(s: &'static str) -> McpgenStr {
        debug_assert!(s.ends_with('\0'));
        McpgenStr { ptr: s.as_ptr().cast(), len: s.len() - 1 }
    }
}

/// A string owned by a result object: its bytes followed by a NUL.
#[derive(Debug, Clone, Default)]
pub struct OwnedStr(Box<[u8]>);

impl OwnedStr {
    pub fn new(s: impl AsRef<[u8]>) -> OwnedStr {
        let s = s.as_ref();
        let mut v = Vec::with_capacity(s.len() + 1);
        v.extend_from_slice(s);
        v.push(0);
        OwnedStr(v.into_boxed_slice())
    }
    /// Borrowed view, valid while `self` lives.
    pub fn as_c(&self) -> McpgenStr {
        if self.0.is_empty() {
            // Default (never constructed with `new`): the empty string.
            return McpgenStr::from_static_nul("\0");
        }
        McpgenStr { ptr: self.0.as_ptr().cast(), len: self.0.len() - 1 }
    }
}

/// The size header in front of every string returned through `char **` (so that
/// `mcpgen_string_free` can free it even when the text holds NUL bytes).
const HEADER: usize = std::mem::size_of::<usize>();

fn string_layout(total: usize) -> Layout {
    Layout::from_size_align(total, std::mem::align_of::<usize>()).expect("string size overflows a layout")
}

/// A new NUL-terminated copy of `bytes` for the caller, freed by `mcpgen_string_free`.
pub(crate) fn c_string(bytes: &[u8]) -> *mut c_char {
    let total = HEADER + bytes.len() + 1;
    let layout = string_layout(total);
    // SAFETY: the layout is non-zero sized; the writes stay inside the allocation.
    unsafe {
        let base = alloc(layout);
        if base.is_null() {
            handle_alloc_error(layout);
        }
        base.cast::<usize>().write(total);
        let text = base.add(HEADER);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), text, bytes.len());
        text.add(bytes.len()).write(0);
        text.cast()
    }
}

/// Frees a string made by [`c_string`].
///
/// # Safety
/// `s` is NULL or came from [`c_string`] and was not freed before.
pub(crate) unsafe fn free_c_string(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    let base = s.cast::<u8>().sub(HEADER);
    let total = base.cast::<usize>().read();
    dealloc(base, string_layout(total));
}

/// Hands a new object to the caller.
pub(crate) fn give<T>(out: *mut *mut T, value: T) {
    put(out, Box::into_raw(Box::new(value)));
}

/// Frees an object handed out by [`give`], behind its own panic boundary.
pub(crate) fn free_object<T>(p: *mut T) {
    if p.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `p` came from `give` (Box::into_raw) and is freed once, per the contract.
        drop(unsafe { Box::from_raw(p) });
    }));
}

/// Borrows an object passed back by the caller, or fails with `MCPGEN_NULL_ARGUMENT`.
pub(crate) fn object<'a, T>(p: *const T, what: &str) -> Result<&'a T, ErrorObject> {
    required(p, what)?;
    // SAFETY: non-NULL and, per the contract, a live object of this type.
    Ok(unsafe { &*p })
}

#[cfg(test)]
mod tests;
