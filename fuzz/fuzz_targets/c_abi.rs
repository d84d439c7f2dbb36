//! The C library's exported functions (bindings/c, `libmcpgen`), called as the Rust functions
//! that define them (`mcpgen_c::abi`, so the signatures are the real ones) with fuzz-derived
//! (pointer, length) inputs, revision codes, definition ids, method indexes, NULL and non-NULL
//! outputs, contexts, tool checkers and icon policies; every returned object and string is
//! inspected through its getters and freed.
//!
//! Input: a 5-byte header, then `A [0x00 B]`:
//! - byte 0, flags: bit 0 pass `error_out`; bit 1 pass the optional outputs; bit 2 use a
//!   context (else NULL: the defaults); bits 3-4 its policy (3 is not a policy: refused);
//!   bit 5 strict formats; bit 6 client leniency and result discrimination; bit 7 tool checker
//!   format assertions and every icon option on;
//! - byte 1: revision code (`% 8`, so 0, 6 and 7 are unknown);
//! - bytes 2-3: definition index (`% (definitions + 3)`, so some are unknown) and, for the
//!   context, a subset of supported versions;
//! - byte 4: method index (`% (methods + 2)`);
//! - `A`: the JSON (message, tool, tools/list result), icon `src` or bytes, `_meta` key,
//!   version; `B` (optional): a definition name (when the revision has it, it replaces the
//!   index), a method, tool arguments / structured content, an icon MIME type or origin.
//!
//! Invariants, for every call:
//! - no status of 300 or more (`MCPGEN_PANIC`, `MCPGEN_INTERNAL`), no crash, no leak;
//! - the status is a known one; an error object is handed out exactly when the call failed
//!   (every status but `MCPGEN_OK` and, for `mcpgen_check_response`, `MCPGEN_REMOTE_ERROR`),
//!   and its status is the returned one;
//! - out-parameters are cleared on entry: after a failure every output is NULL / zero even if
//!   it held garbage before the call;
//! - a required NULL output or a NULL input with a length is `MCPGEN_NULL_ARGUMENT`, a length
//!   over `isize::MAX` is `MCPGEN_INVALID_ARGUMENT`, before any input is read;
//! - every borrowed string is UTF-8 followed by a NUL; JSON outputs parse;
//! - the fail-fast validation (no `error_out`) and the detailed one give the same status; by-id
//!   and by-name calls agree; lookups round-trip (revision name ↔ code, definition name ↔ id,
//!   method index ↔ name);
//! - a tool the tight checker accepts is accepted by the default one; accepted icon bytes have
//!   the sniffed type; `mcpgen_icon_same_origin` is symmetric.
#![no_main]

use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

use libfuzzer_sys::fuzz_target;
use mcpgen::json::Tape;
// The library's own exports and types (bindings/c/src, built as an rlib by fuzz/c-abi).
use mcpgen_c::abi::*;

/// A `mcpgen_method_info` full of values no call returns, to see every field overwritten.
const ZERO_INFO: MethodInfo = MethodInfo {
    method: McpgenStr::NULL,
    request_def: 7,
    result_def: 7,
    is_notification: true,
    input_required: true,
    direction: 9,
};

/// Garbage put in pointer out-parameters before a call: never dereferenced, and it must be
/// replaced (by NULL or an object) on every path.
fn garbage<T>() -> *mut T {
    0x5a5a_5a50 as *mut T
}

/// The tight limits the fuzzed checker gets (in `mcpgen_tool_limit` order), so every
/// validation stays fast.
const TIGHT: [u64; 9] = [24, 256, 64, 128, 64 << 10, 10_000, 2_000, 24, 8];

/// Fails on any status of the 300 range and on an unknown status.
fn known(status: Status, what: &str) -> Status {
    let code = status as u32;
    assert!(code < 300, "{what}: status {code} ({:?}): a bug inside mcpgen", status);
    assert_eq!(Status::from_u32(code), Some(status), "{what}: unknown status {code}");
    status
}

/// A borrowed string output: UTF-8 bytes followed by a NUL.
fn text<'a>(s: McpgenStr, what: &str) -> &'a str {
    assert!(!s.ptr.is_null(), "{what}: NULL string");
    // SAFETY: the library hands out `len` bytes plus a NUL, alive while the object lives.
    let bytes = unsafe { std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len + 1) };
    assert_eq!(bytes[s.len], 0, "{what}: string not NUL-terminated");
    std::str::from_utf8(&bytes[..s.len]).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"))
}

/// An owned `char *` output (with its length when the call gives one), checked and freed.
fn take_string(p: *mut c_char, len: Option<usize>, what: &str) -> String {
    assert!(!p.is_null(), "{what}: NULL string");
    let n = match len {
        Some(n) => n,
        // SAFETY: a NUL-terminated string from the library.
        None => unsafe { CStr::from_ptr(p) }.to_bytes().len(),
    };
    let s = text(McpgenStr { ptr: p, len: n }, what).to_owned();
    // SAFETY: from the library, freed once.
    unsafe { mcpgen_string_free(p) };
    s
}

fn static_cstr(p: *const c_char, what: &str) -> &'static str {
    assert!(!p.is_null(), "{what}: NULL");
    // SAFETY: static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn assert_json(s: &str, what: &str) {
    if let Err(e) = Tape::parse_bytes(s.as_bytes()) {
        panic!("{what}: not JSON ({e}): {s}");
    }
}

/// Checks a call's status and error object (`err` is what `error_out` received, or `None`
/// when the call got NULL), then frees the error. `ok_without_error`: statuses that succeed.
fn finish(status: Status, err: Option<*mut ErrorObject>, ok_without_error: &[Status], what: &str) -> Status {
    known(status, what);
    let Some(err) = err else { return status };
    let succeeded = status == Status::Ok || ok_without_error.contains(&status);
    if succeeded {
        assert!(err.is_null(), "{what}: {status:?} with an error object");
        return status;
    }
    assert!(!err.is_null() && err != garbage(), "{what}: {status:?} without an error object");
    check_error(err, status, what);
    // SAFETY: handed out by the call, freed once.
    unsafe { mcpgen_error_free(err) };
    status
}

/// Every getter of an error object.
fn check_error(err: *const ErrorObject, status: Status, what: &str) {
    // SAFETY (whole function): `err` is a live error object; outputs are valid locals.
    unsafe {
        let mut s = Status::Internal;
        assert_eq!(known(mcpgen_error_status(err, &mut s), what), Status::Ok);
        assert_eq!(s, status, "{what}: error status differs from the returned one");
        let mut t = McpgenStr::NULL;
        assert_eq!(known(mcpgen_error_text(err, &mut t), what), Status::Ok);
        let message = text(t, what);
        assert_eq!(mcpgen_error_text(err, null_mut()), Status::NullArgument);
        let mut count = usize::MAX;
        assert_eq!(known(mcpgen_error_count(err, &mut count), what), Status::Ok);
        assert!(count < 100_000, "{what}: {count} entries");
        type Getter = unsafe extern "C" fn(*const ErrorObject, usize, *mut McpgenStr) -> Status;
        let getters: [(Getter, &str); 7] = [
            (mcpgen_error_pointer, "pointer"),
            (mcpgen_error_schema_path, "schema_path"),
            (mcpgen_error_keyword, "keyword"),
            (mcpgen_error_rule, "rule"),
            (mcpgen_error_message, "message"),
            (mcpgen_error_kind, "kind"),
            (mcpgen_error_uri, "uri"),
        ];
        for i in (0..count.min(16)).chain([count]) {
            for (get, field) in getters {
                let mut out = McpgenStr { ptr: garbage(), len: 99 };
                let st = known(get(err, i, &mut out), what);
                if i == count {
                    assert_eq!(st, Status::IndexOutOfRange, "{what}: {field} of entry {i} of {count}");
                    assert!(out.ptr.is_null() && out.len == 0, "{what}: output not cleared");
                } else {
                    assert_eq!(st, Status::Ok, "{what}: {field} of entry {i}");
                    let v = text(out, field);
                    if field == "pointer" && !v.is_empty() {
                        assert!(v.starts_with('/'), "{what}: entry {i} pointer {v:?} ({message})");
                    }
                }
                assert_eq!(get(err, i, null_mut()), Status::NullArgument);
            }
            let (mut depth, mut arm) = (usize::MAX, McpgenStr::NULL);
            let st = known(mcpgen_error_arm(err, i, &mut depth, &mut arm), what);
            if i == count {
                assert_eq!(st, Status::IndexOutOfRange);
            } else {
                assert_eq!(st, Status::Ok);
                text(arm, "arm");
                assert!(depth < 1000);
            }
            assert_eq!(mcpgen_error_arm(err, i, null_mut(), null_mut()), Status::NullArgument);
        }
        let mut rule = McpgenStr::NULL;
        assert_eq!(known(mcpgen_error_protocol_rule(err, &mut rule), what), Status::Ok);
        text(rule, "protocol rule");
        let mut response = McpgenStr::NULL;
        assert_eq!(known(mcpgen_error_response_json(err, &mut response), what), Status::Ok);
        let response = text(response, "response json");
        let (mut code, mut http) = (1i64, 1u16);
        assert_eq!(known(mcpgen_error_jsonrpc_code(err, &mut code, &mut http), what), Status::Ok);
        assert_eq!(mcpgen_error_jsonrpc_code(err, null_mut(), null_mut()), Status::NullArgument);
        if !response.is_empty() {
            assert_json(response, "error response json");
            assert!((200..600).contains(&http), "{what}: HTTP status {http}");
            assert!(code != 0, "{what}: a response without a code");
        }
        let mut legacy = true;
        assert_eq!(known(mcpgen_error_legacy_initialize(err, &mut legacy), what), Status::Ok);
    }
}

/// A (pointer, length) view of optional bytes: NULL with 0 for `None`.
fn raw(b: Option<&[u8]>) -> (*const u8, usize) {
    b.map_or((null(), 0), |b| (b.as_ptr(), b.len()))
}

struct Input<'a> {
    flags: u8,
    rev: u32,
    def_index: u16,
    method_index: u8,
    a: &'a [u8],
    b: Option<&'a [u8]>,
}

impl Input<'_> {
    fn errors(&self) -> bool {
        self.flags & 1 != 0
    }
    fn optional(&self) -> bool {
        self.flags & 2 != 0
    }
}

/// `error_out` as the flags say: a slot holding garbage, or NULL.
struct ErrSlot {
    slot: *mut ErrorObject,
    on: bool,
}

impl ErrSlot {
    fn new(on: bool) -> ErrSlot {
        ErrSlot { slot: garbage(), on }
    }
    fn ptr(&mut self) -> *mut *mut ErrorObject {
        if self.on {
            self.slot = garbage();
            &mut self.slot
        } else {
            null_mut()
        }
    }
    fn got(&self) -> Option<*mut ErrorObject> {
        self.on.then_some(self.slot)
    }
}

/// An optional out-parameter: the local's address, or NULL.
fn opt<T>(on: bool, slot: &mut T) -> *mut T {
    if on {
        slot
    } else {
        null_mut()
    }
}

fuzz_target!(|data: &[u8]| {
    let mut header = [0u8; 5];
    let n = data.len().min(5);
    header[..n].copy_from_slice(&data[..n]);
    let payload = &data[n..];
    let (a, b) = match payload.iter().position(|&x| x == 0) {
        Some(i) => (&payload[..i], Some(&payload[i + 1..])),
        None => (payload, None),
    };
    let input = Input {
        flags: header[0],
        rev: u32::from(header[1] % 8),
        def_index: u16::from_le_bytes([header[2], header[3]]),
        method_index: header[4],
        a,
        b,
    };
    // SAFETY: every call below follows mcpgen.h: inputs are valid for their lengths, outputs
    // are valid locals or NULL, objects come from their `_new` and are freed once.
    unsafe { run(&input) };
});

unsafe fn run(input: &Input<'_>) {
    info();
    let ctx = context(input);
    let names = names(input);
    validation(input, ctx, &names);
    protocol(input, ctx, &names);
    tools(input);
    icons(input);
    boundaries(input);
    mcpgen_context_free(ctx);
}

/// Names and ids the other calls use, resolved through the id functions (which are checked).
struct Names {
    /// Definition name (from `B` when the revision has it, else from the index) and its id.
    def: Vec<u8>,
    def_id: u32,
    /// Method name (from the method table, else `B`).
    method: Vec<u8>,
}

unsafe fn info() {
    static_cstr(mcpgen_version(), "version");
    let _ = mcpgen_version_number();
    for s in (0..=12).chain(99..=101).chain(199..=206).chain(299..=302).chain([u32::MAX]) {
        static_cstr(mcpgen_status_str(s), "status_str");
        let name = static_cstr(mcpgen_status_name(s), "status_name");
        assert_eq!(Status::from_u32(s).is_some(), name != "MCPGEN_UNKNOWN_STATUS", "status {s}");
    }
}

unsafe fn names(input: &Input<'_>) -> Names {
    let rev = input.rev;
    let mut name = McpgenStr { ptr: garbage(), len: 7 };
    let revision = match known(mcpgen_revision_name(rev, &mut name), "revision_name") {
        Status::Ok => {
            let n = text(name, "revision name").to_owned();
            let mut code = 0;
            assert_eq!(mcpgen_revision_parse(n.as_ptr().cast(), n.len(), &mut code), Status::Ok);
            assert_eq!(code, rev, "revision name {n} does not parse back to its code");
            Some(n)
        }
        s => {
            assert_eq!(s, Status::UnknownRevision);
            assert!(name.ptr.is_null());
            None
        }
    };
    if let Some(b) = input.b {
        let mut code = 99;
        let s = known(mcpgen_revision_parse(b.as_ptr().cast(), b.len(), &mut code), "revision_parse");
        assert_eq!(s == Status::Ok, code != 0, "revision_parse output");
    }
    assert_eq!(mcpgen_revision_parse(null(), 3, &mut 0), Status::NullArgument);
    assert_eq!(mcpgen_revision_parse(b"x".as_ptr().cast(), 1, null_mut()), Status::NullArgument);

    // The definition: `B` when it names one of the revision, else the index.
    let count = revision.as_deref().and_then(mcpgen::Revision::parse).map_or(0, |r| r.definitions().len());
    let mut def_id = (rev << 16) | u32::from(input.def_index) % (count as u32 + 3);
    if let Some(b) = input.b {
        let mut id = 5;
        match known(mcpgen_def_lookup(rev, b.as_ptr().cast(), b.len(), &mut id), "def_lookup") {
            Status::Ok => {
                assert_eq!(id >> 16, rev);
                def_id = id;
            }
            s => {
                assert!(matches!(s, Status::UnknownRevision | Status::UnknownDefinition | Status::ArgumentNotUtf8));
                assert_eq!(id, 0);
            }
        }
    }
    let (mut dname, mut drev) = (McpgenStr { ptr: garbage(), len: 1 }, 77);
    let def = match known(mcpgen_def_name(def_id, &mut dname, &mut drev), "def_name") {
        Status::Ok => {
            let n = text(dname, "definition name");
            assert_eq!(drev, rev);
            let mut back = 0;
            assert_eq!(mcpgen_def_lookup(rev, n.as_ptr().cast(), n.len(), &mut back), Status::Ok);
            assert_eq!(back, def_id, "definition {n} does not look up to its id");
            n.as_bytes().to_vec()
        }
        s => {
            assert_eq!(s, Status::UnknownDefinition);
            assert!(dname.ptr.is_null() && drev == 0);
            input.b.unwrap_or_default().to_vec()
        }
    };
    assert_eq!(mcpgen_def_name(def_id, null_mut(), null_mut()), Status::NullArgument);

    // The method: row `method_index` of the table, else `B`.
    let mut methods = usize::MAX;
    match known(mcpgen_method_count(rev, &mut methods), "method_count") {
        Status::Ok => assert!(methods > 0 && methods < 1000),
        s => {
            assert_eq!(s, Status::UnknownRevision);
            assert_eq!(methods, 0);
        }
    }
    let index = usize::from(input.method_index) % (methods.saturating_add(2)).max(1);
    let mut info = ZERO_INFO;
    let method = match known(mcpgen_method_at(rev, index, &mut info), "method_at") {
        Status::Ok => {
            let m = text(info.method, "method").to_owned();
            assert!((1..=5).contains(&info.direction));
            for d in [info.request_def, info.result_def] {
                if d != 0 {
                    let mut n = McpgenStr::NULL;
                    assert_eq!(mcpgen_def_name(d, &mut n, &mut 0), Status::Ok, "method {m}: definition 0x{d:06X}");
                }
            }
            let mut again = ZERO_INFO;
            assert_eq!(mcpgen_method_lookup(rev, m.as_ptr().cast(), m.len(), &mut again), Status::Ok);
            assert_eq!(text(again.method, "method"), m);
            assert_eq!(
                (again.request_def, again.result_def, again.is_notification, again.input_required, again.direction),
                (info.request_def, info.result_def, info.is_notification, info.input_required, info.direction)
            );
            m.into_bytes()
        }
        s => {
            assert!(matches!(s, Status::UnknownRevision | Status::IndexOutOfRange));
            assert!(info.method.ptr.is_null() && info.direction == 0 && !info.is_notification);
            input.b.unwrap_or_default().to_vec()
        }
    };
    if let Some(b) = input.b {
        let mut info = ZERO_INFO;
        let s = known(mcpgen_method_lookup(rev, b.as_ptr().cast(), b.len(), &mut info), "method_lookup");
        if s != Status::Ok {
            assert!(info.method.ptr.is_null());
        }
    }
    assert_eq!(mcpgen_method_at(rev, 0, null_mut()), Status::NullArgument);
    Names { def, def_id, method }
}

unsafe fn context(input: &Input<'_>) -> *mut Context {
    assert_eq!(mcpgen_context_new(null_mut()), Status::NullArgument);
    assert_eq!(mcpgen_context_set_policy(null_mut(), 0), Status::NullArgument);
    if input.flags & 4 == 0 {
        return null_mut();
    }
    let mut ctx: *mut Context = garbage();
    assert_eq!(mcpgen_context_new(&mut ctx), Status::Ok);
    assert!(!ctx.is_null());
    let policy = u32::from(input.flags >> 3) & 3;
    let s = known(mcpgen_context_set_policy(ctx, policy), "set_policy");
    assert_eq!(s == Status::Ok, policy < 3, "policy {policy}: {s:?}");
    assert_eq!(mcpgen_context_set_strict_formats(ctx, input.flags & 0x20 != 0), Status::Ok);
    assert_eq!(mcpgen_context_set_client_leniency(ctx, input.flags & 0x40 != 0), Status::Ok);
    assert_eq!(mcpgen_context_set_discriminate_results(ctx, input.flags & 0x40 != 0), Status::Ok);
    // Supported versions: a subset of the revisions (by the definition index's bits), plus `B`.
    const VERSIONS: [&str; 6] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"];
    let mut versions: Vec<McpgenStr> = VERSIONS
        .iter()
        .enumerate()
        .filter(|(i, _)| input.def_index & (1 << (8 + i)) != 0)
        .map(|(_, v)| McpgenStr { ptr: v.as_ptr().cast(), len: v.len() })
        .collect();
    if let (Some(b), true) = (input.b, input.def_index & 0x4000 != 0) {
        versions.push(McpgenStr { ptr: b.as_ptr().cast(), len: b.len() });
    }
    if !versions.is_empty() {
        let s = known(mcpgen_context_set_supported_versions(ctx, versions.as_ptr(), versions.len()), "versions");
        assert!(matches!(s, Status::Ok | Status::ArgumentNotUtf8), "set_supported_versions: {s:?}");
    }
    if let Some(b) = input.b {
        let types = [McpgenStr { ptr: b.as_ptr().cast(), len: b.len() }];
        let s = known(mcpgen_context_set_extension_result_types(ctx, types.as_ptr(), 1), "result types");
        assert!(matches!(s, Status::Ok | Status::ArgumentNotUtf8));
    }
    assert_eq!(mcpgen_context_set_extension_result_types(ctx, null(), 1), Status::NullArgument);
    assert_eq!(mcpgen_context_set_extension_result_types(ctx, null(), 0), Status::Ok);
    ctx
}

unsafe fn validation(input: &Input<'_>, ctx: *const Context, names: &Names) {
    let (a, rev, e) = (input.a, input.rev, input.errors());
    let def = &names.def;
    let what = "validate";
    let mut err = ErrSlot::new(e);
    let detailed = finish(
        mcpgen_validate(ctx, rev, def.as_ptr().cast(), def.len(), a.as_ptr(), a.len(), err.ptr()),
        err.got(),
        &[],
        what,
    );
    let fast = known(mcpgen_validate(ctx, rev, def.as_ptr().cast(), def.len(), a.as_ptr(), a.len(), null_mut()), what);
    let mut full = ErrSlot::new(true);
    let full_status = finish(
        mcpgen_validate(ctx, rev, def.as_ptr().cast(), def.len(), a.as_ptr(), a.len(), full.ptr()),
        full.got(),
        &[],
        what,
    );
    assert_eq!(fast, full_status, "validate: fail-fast and detailed validation disagree");
    assert_eq!(detailed, full_status);

    let by_id_fast = known(mcpgen_validate_id(ctx, names.def_id, a.as_ptr(), a.len(), null_mut()), "validate_id");
    let mut err = ErrSlot::new(true);
    let by_id =
        finish(mcpgen_validate_id(ctx, names.def_id, a.as_ptr(), a.len(), err.ptr()), err.got(), &[], "validate_id");
    assert_eq!(by_id_fast, by_id, "validate_id: fail-fast and detailed validation disagree");
    let mut n = McpgenStr::NULL;
    let id_names_def =
        mcpgen_def_name(names.def_id, &mut n, &mut 0) == Status::Ok && text(n, "def").as_bytes() == def.as_slice();
    if id_names_def {
        assert_eq!(by_id, full_status, "validate by id and by name disagree");
    }
    // The id is resolved before the input is looked at.
    let id_known = mcpgen_def_name(names.def_id, &mut n, &mut 0) == Status::Ok;
    let expected = if id_known { Status::NullArgument } else { Status::UnknownDefinition };
    assert_eq!(mcpgen_validate_id(ctx, names.def_id, null(), 1, null_mut()), expected);

    // Method-aware validation.
    let o = input.optional();
    let (mut kind, mut method, mut method_len, mut code) = (9u32, garbage::<c_char>(), 9usize, 9i64);
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_validate_message(
            ctx,
            rev,
            a.as_ptr(),
            a.len(),
            opt(o, &mut kind),
            opt(o, &mut method),
            opt(o, &mut method_len),
            opt(o, &mut code),
            err.ptr(),
        ),
        err.got(),
        &[],
        "validate_message",
    );
    if o {
        if s == Status::Ok {
            assert!((1..=4).contains(&kind), "message kind {kind}");
            if kind <= 2 {
                take_string(method, Some(method_len), "validate_message method");
            } else {
                assert!(method.is_null() && method_len == 0);
            }
            if kind != 4 {
                assert_eq!(code, 0);
            }
        } else {
            assert!(
                kind == 0 && method.is_null() && method_len == 0 && code == 0,
                "validate_message: outputs set on failure"
            );
        }
    }

    // Decoding by name, by id and by method.
    let decode_name = decode_check(
        |json_out, len_out, err| {
            mcpgen_decode(ctx, rev, def.as_ptr().cast(), def.len(), a.as_ptr(), a.len(), json_out, len_out, err)
        },
        input,
        "decode",
    );
    let decode_id = decode_check(
        |json_out, len_out, err| mcpgen_decode_id(ctx, names.def_id, a.as_ptr(), a.len(), json_out, len_out, err),
        input,
        "decode_id",
    );
    if id_names_def {
        assert_eq!(decode_name, decode_id, "decode by id and by name disagree");
    }
    let m = &names.method;
    let mut variant = McpgenStr { ptr: garbage(), len: 3 };
    let variant_ptr = opt(o, &mut variant);
    let s = decode_check(
        |json_out, len_out, err| {
            mcpgen_decode_result(
                ctx,
                rev,
                m.as_ptr().cast(),
                m.len(),
                a.as_ptr(),
                a.len(),
                json_out,
                len_out,
                variant_ptr,
                err,
            )
        },
        input,
        "decode_result",
    );
    if o {
        if s == Status::Ok {
            text(variant, "variant");
        } else {
            assert!(variant.ptr.is_null() && variant.len == 0);
        }
    }
}

/// Runs a decoding call with garbage in its outputs, once with `json_out` NULL (refused), and
/// checks what it hands out.
unsafe fn decode_check(
    mut call: impl FnMut(*mut *mut c_char, *mut usize, *mut *mut ErrorObject) -> Status,
    input: &Input<'_>,
    what: &str,
) -> Status {
    let mut len_slot = 99usize;
    assert_eq!(call(null_mut(), &mut len_slot, null_mut()), Status::NullArgument, "{what}: json_out NULL");
    assert_eq!(len_slot, 0, "{what}: json_len_out not cleared");
    let (mut json, mut len) = (garbage::<c_char>(), 99usize);
    let o = input.optional();
    let mut err = ErrSlot::new(input.errors());
    let s = finish(call(&mut json, opt(o, &mut len), err.ptr()), err.got(), &[], what);
    if s == Status::Ok {
        let out = take_string(json, o.then_some(len), what);
        assert_json(&out, what);
    } else {
        assert!(json.is_null(), "{what}: json_out not cleared on failure");
        if o {
            assert_eq!(len, 0);
        }
    }
    s
}

unsafe fn protocol(input: &Input<'_>, ctx: *const Context, names: &Names) {
    let (a, rev, e, o) = (input.a, input.rev, input.errors(), input.optional());

    // check_request.
    assert_eq!(mcpgen_check_request(ctx, a.as_ptr(), a.len(), null_mut(), null_mut()), Status::NullArgument);
    let mut req: *mut RequestObject = garbage();
    let mut err = ErrSlot::new(e);
    let s =
        finish(mcpgen_check_request(ctx, a.as_ptr(), a.len(), &mut req, err.ptr()), err.got(), &[], "check_request");
    if s == Status::Ok {
        assert!(!req.is_null() && req != garbage());
        let mut code = 0;
        assert_eq!(mcpgen_request_revision(req, &mut code), Status::Ok);
        assert!((1..=5).contains(&code), "accepted request revision {code}");
        let mut out = McpgenStr::NULL;
        assert_eq!(mcpgen_request_method(req, &mut out), Status::Ok);
        assert!(!text(out, "request method").is_empty());
        assert_eq!(mcpgen_request_id_json(req, &mut out), Status::Ok);
        let id = text(out, "request id");
        if !id.is_empty() {
            assert_json(id, "request id");
        }
        let mut legacy = false;
        assert_eq!(mcpgen_request_is_legacy(req, &mut legacy), Status::Ok);
        assert_eq!(mcpgen_request_json(req, &mut out), Status::Ok);
        assert_json(text(out, "request json"), "request json");
        assert_eq!(mcpgen_request_json(req, null_mut()), Status::NullArgument);
        assert_eq!(mcpgen_request_json(null(), &mut out), Status::NullArgument);
        mcpgen_request_free(req);
    } else {
        assert!(req.is_null(), "check_request: request_out not cleared");
        assert!(matches!(s, Status::RequestRefused), "check_request: {s:?}");
    }

    // check_response, for the method of the table (or `B`).
    let m = &names.method;
    let mut resp: *mut ResponseObject = garbage();
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_check_response(ctx, rev, m.as_ptr().cast(), m.len(), a.as_ptr(), a.len(), &mut resp, err.ptr()),
        err.got(),
        &[Status::RemoteError],
        "check_response",
    );
    if matches!(s, Status::Ok | Status::RemoteError) {
        assert!(!resp.is_null() && resp != garbage());
        let mut is_error = false;
        assert_eq!(mcpgen_response_is_error(resp, &mut is_error), Status::Ok);
        assert_eq!(is_error, s == Status::RemoteError);
        let mut out = McpgenStr::NULL;
        assert_eq!(mcpgen_response_id_json(resp, &mut out), Status::Ok);
        let id = text(out, "response id");
        if !id.is_empty() {
            assert_json(id, "response id");
        }
        assert_eq!(mcpgen_response_variant(resp, &mut out), Status::Ok);
        let variant = text(out, "variant");
        assert_eq!(mcpgen_response_result_json(resp, &mut out), Status::Ok);
        let result = text(out, "result json");
        if !is_error {
            assert!(!variant.is_empty());
            assert_json(result, "result json");
        }
        let (mut code, mut message, mut data) = (0i64, McpgenStr::NULL, McpgenStr::NULL);
        assert_eq!(mcpgen_response_error(resp, &mut code, &mut message, &mut data), Status::Ok);
        text(message, "remote message");
        let data = text(data, "remote data");
        if !data.is_empty() {
            assert_json(data, "remote data");
        }
        assert_eq!(mcpgen_response_error(resp, null_mut(), null_mut(), null_mut()), Status::NullArgument);
        mcpgen_response_free(resp);
    } else {
        assert!(resp.is_null(), "check_response: response_out not cleared");
    }

    // negotiate_version.
    let mut version = garbage::<c_char>();
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_negotiate_version(ctx, a.as_ptr().cast(), a.len(), opt(o, &mut version), err.ptr()),
        err.got(),
        &[],
        "negotiate_version",
    );
    if o {
        if s == Status::Ok {
            take_string(version, None, "agreed version");
        } else {
            assert!(version.is_null());
        }
    }

    // check_meta_key.
    let (mut reserved, mut prefix, mut name) = (true, garbage::<c_char>(), garbage::<c_char>());
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_check_meta_key(
            a.as_ptr().cast(),
            a.len(),
            opt(o, &mut reserved),
            opt(o, &mut prefix),
            opt(o, &mut name),
            err.ptr(),
        ),
        err.got(),
        &[],
        "check_meta_key",
    );
    if o {
        if s == Status::Ok {
            if !prefix.is_null() {
                take_string(prefix, None, "meta prefix");
            }
            take_string(name, None, "meta name");
        } else {
            assert!(!reserved && prefix.is_null() && name.is_null(), "check_meta_key: outputs not cleared");
        }
    }

    // Era detection: the probe answer (or "no answer" when `A` is empty) and an HTTP 400 body.
    let probe = if a.is_empty() && input.flags & 0x80 != 0 { (null(), 0) } else { (a.as_ptr(), a.len()) };
    let era_calls: [(
        unsafe extern "C" fn(*const u8, usize, *mut u32, *mut *mut StringsObject) -> Status,
        (*const u8, usize),
        &str,
    ); 2] = [
        (mcpgen_detect_era_from_probe, probe, "detect_era_from_probe"),
        (mcpgen_detect_era_from_http_400, (a.as_ptr(), a.len()), "detect_era_from_http_400"),
    ];
    for (call, (ptr, len), what) in era_calls {
        let (mut era, mut supported) = (9u32, garbage::<StringsObject>());
        assert_eq!(known(call(ptr, len, &mut era, opt(o, &mut supported)), what), Status::Ok);
        assert!(era == 1 || era == 2, "{what}: era {era}");
        if o {
            if era == 1 {
                strings(supported, what);
            } else {
                assert!(supported.is_null());
            }
        }
        assert_eq!(call(ptr, len, null_mut(), null_mut()), Status::NullArgument);
    }
    assert_eq!(mcpgen_detect_era_from_probe(null(), 1, &mut 0, null_mut()), Status::NullArgument);
}

/// Reads and frees a `mcpgen_strings`.
unsafe fn strings(list: *mut StringsObject, what: &str) -> usize {
    assert!(!list.is_null() && list != garbage(), "{what}: no list");
    let mut count = usize::MAX;
    assert_eq!(mcpgen_strings_count(list, &mut count), Status::Ok);
    assert!(count < 10_000);
    for i in 0..count.min(32) {
        let mut s = McpgenStr::NULL;
        assert_eq!(mcpgen_strings_get(list, i, &mut s), Status::Ok);
        text(s, what);
    }
    let mut s = McpgenStr { ptr: garbage(), len: 1 };
    assert_eq!(mcpgen_strings_get(list, count, &mut s), Status::IndexOutOfRange);
    assert!(s.ptr.is_null());
    mcpgen_strings_free(list);
    count
}

unsafe fn tools(input: &Input<'_>) {
    let (a, e) = (input.a, input.errors());
    let mut checker: *mut ToolCheckerObject = garbage();
    assert_eq!(mcpgen_tool_checker_new(&mut checker), Status::Ok);
    for (i, v) in TIGHT.iter().enumerate() {
        let id = i as u32 + 1;
        assert_eq!(mcpgen_tool_checker_set_limit(checker, id, *v), Status::Ok);
        let mut back = 0;
        assert_eq!(mcpgen_tool_checker_get_limit(checker, id, &mut back), Status::Ok);
        assert_eq!(back, *v, "limit {id} does not read back");
    }
    for id in [0, TIGHT.len() as u32 + 1] {
        assert_eq!(mcpgen_tool_checker_set_limit(checker, id, 1), Status::InvalidArgument);
        assert_eq!(mcpgen_tool_checker_get_limit(checker, id, &mut 0), Status::InvalidArgument);
    }
    let mut default_limit = 0;
    assert_eq!(mcpgen_tool_checker_get_limit(null(), 1, &mut default_limit), Status::Ok);
    assert_eq!(mcpgen_tool_checker_set_validate_formats(checker, input.flags & 0x80 != 0), Status::Ok);

    let mut err = ErrSlot::new(e);
    let tight = finish(mcpgen_check_tool(checker, a.as_ptr(), a.len(), err.ptr()), err.got(), &[], "check_tool");
    assert!(matches!(tight, Status::Ok | Status::ParseError | Status::ToolSchemaInvalid), "check_tool: {tight:?}");
    let mut err = ErrSlot::new(e);
    let default =
        finish(mcpgen_check_tool(null(), a.as_ptr(), a.len(), err.ptr()), err.got(), &[], "check_tool default");
    if tight == Status::Ok {
        assert_eq!(default, Status::Ok, "a tool the tight checker accepts is refused with the default limits");
    }
    let mut count = 99usize;
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_check_tools(checker, a.as_ptr(), a.len(), opt(input.optional(), &mut count), err.ptr()),
        err.got(),
        &[],
        "check_tools",
    );
    if input.optional() && !matches!(s, Status::Ok | Status::ToolSchemaInvalid) {
        assert_eq!(count, 0);
    }
    // Arguments and structured content: `B`, or NULL with length 0 (`{}`).
    let (vp, vl) = raw(input.b);
    type Instance = unsafe extern "C" fn(
        *const ToolCheckerObject,
        *const u8,
        usize,
        *const u8,
        usize,
        *mut *mut ErrorObject,
    ) -> Status;
    let calls: [(Instance, &str); 2] = [
        (mcpgen_validate_tool_arguments, "validate_tool_arguments"),
        (mcpgen_validate_structured_content, "validate_structured_content"),
    ];
    for (call, what) in calls {
        let mut err = ErrSlot::new(e);
        let s = finish(call(checker, a.as_ptr(), a.len(), vp, vl, err.ptr()), err.got(), &[], what);
        assert!(
            matches!(
                s,
                Status::Ok | Status::ParseError | Status::ToolSchemaInvalid | Status::Invalid | Status::LimitExceeded
            ),
            "{what}: {s:?}"
        );
        if tight == Status::Ok {
            assert_ne!(s, Status::ToolSchemaInvalid, "{what}: the tool compiled a moment ago");
        }
        // The tool is read before the value.
        let expected = if tight == Status::ParseError { Status::ParseError } else { Status::NullArgument };
        assert_eq!(call(checker, a.as_ptr(), a.len(), null(), 1, null_mut()), expected, "{what}: NULL value");
    }
    let mut cached = usize::MAX;
    assert_eq!(mcpgen_tool_checker_cached(checker, &mut cached), Status::Ok);
    assert!(cached <= 1, "cached {cached} tools, compiled one");
    let mut fetched: *mut StringsObject = garbage();
    assert_eq!(mcpgen_tool_checker_fetched(checker, &mut fetched), Status::Ok);
    assert_eq!(strings(fetched, "fetched"), 0, "fetched URIs without a fetcher");
    assert_eq!(mcpgen_tool_checker_cached(null(), &mut cached), Status::NullArgument);
    mcpgen_tool_checker_free(checker);
}

unsafe fn icons(input: &Input<'_>) {
    let (a, e, o) = (input.a, input.errors(), input.optional());
    let mut policy: *mut IconPolicyObject = null_mut();
    if input.flags & 4 != 0 {
        assert_eq!(mcpgen_icon_policy_new(&mut policy), Status::Ok);
        for option in 1..=4 {
            let on = input.flags & 0x80 != 0 || input.def_index & (1 << option) != 0;
            assert_eq!(mcpgen_icon_policy_set(policy, option, on), Status::Ok);
        }
        assert_eq!(mcpgen_icon_policy_set(policy, 5, true), Status::InvalidArgument);
        assert_eq!(mcpgen_icon_policy_set(policy, 0, true), Status::InvalidArgument);
        if input.def_index & 1 != 0 {
            assert_eq!(mcpgen_icon_policy_set_max_bytes(policy, usize::from(input.method_index) * 16), Status::Ok);
        }
        if let Some(b) = input.b {
            let s = known(mcpgen_icon_policy_add_trusted_origin(policy, b.as_ptr().cast(), b.len()), "trusted origin");
            assert!(matches!(s, Status::Ok | Status::ArgumentNotUtf8));
        }
    }
    let (mp, ml) = match input.b {
        Some(b) => (b.as_ptr().cast::<c_char>(), b.len()),
        None => (null(), 0),
    };
    let mut image = 9u32;
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_check_icon(policy, a.as_ptr().cast(), a.len(), mp, ml, opt(o, &mut image), err.ptr()),
        err.got(),
        &[],
        "check_icon",
    );
    if o {
        assert!(image <= 5 && (s == Status::Ok || image == 0), "check_icon image {image} with {s:?}");
    }
    let mut sniffed = 9u32;
    assert_eq!(mcpgen_image_sniff(a.as_ptr(), a.len(), &mut sniffed), Status::Ok);
    assert!(sniffed <= 5);
    let mut mime = McpgenStr { ptr: garbage(), len: 1 };
    let s = mcpgen_image_mime(sniffed, &mut mime);
    if sniffed == 0 {
        assert_eq!(s, Status::InvalidArgument);
        assert!(mime.ptr.is_null());
    } else {
        assert_eq!(s, Status::Ok);
        assert!(text(mime, "mime").starts_with("image/"));
    }
    let mut image = 9u32;
    let mut err = ErrSlot::new(e);
    let s = finish(
        mcpgen_check_icon_bytes(policy, a.as_ptr(), a.len(), mp, ml, opt(o, &mut image), err.ptr()),
        err.got(),
        &[],
        "check_icon_bytes",
    );
    if o {
        if s == Status::Ok {
            assert_eq!(image, sniffed, "accepted icon bytes are not of the sniffed type");
        } else {
            assert_eq!(image, 0);
        }
    }
    let server = input.b.unwrap_or(b"https://example.com");
    let mut err = ErrSlot::new(e);
    finish(
        mcpgen_check_icon_origin(policy, a.as_ptr().cast(), a.len(), server.as_ptr().cast(), server.len(), err.ptr()),
        err.got(),
        &[],
        "check_icon_origin",
    );
    let (mut ab, mut ba) = (true, true);
    let sa = mcpgen_icon_same_origin(a.as_ptr().cast(), a.len(), server.as_ptr().cast(), server.len(), &mut ab);
    let sb = mcpgen_icon_same_origin(server.as_ptr().cast(), server.len(), a.as_ptr().cast(), a.len(), &mut ba);
    assert_eq!(known(sa, "same_origin"), known(sb, "same_origin"));
    assert_eq!(ab, ba, "same_origin is not symmetric");
    if sa != Status::Ok {
        assert!(!ab);
    }
    mcpgen_icon_policy_free(policy);
}

/// The argument checks every export makes before reading anything.
unsafe fn boundaries(input: &Input<'_>) {
    let a = input.a;
    let huge = isize::MAX as usize + 1;
    assert_eq!(mcpgen_check_request(null(), a.as_ptr(), huge, &mut null_mut(), null_mut()), Status::InvalidArgument);
    assert_eq!(mcpgen_validate_id(null(), 0x5_0001, a.as_ptr(), huge, null_mut()), Status::InvalidArgument);
    assert_eq!(mcpgen_check_tool(null(), null(), 0, null_mut()), Status::NullArgument);
    assert_eq!(mcpgen_check_icon(null(), null(), 0, null(), 0, null_mut(), null_mut()), Status::NullArgument);
    assert_eq!(mcpgen_buffer_append(null_mut(), a.as_ptr(), a.len()), Status::NullArgument);
    let mut err: *mut ErrorObject = garbage();
    assert_eq!(mcpgen_check_request(null(), null(), 0, &mut null_mut(), &mut err), Status::NullArgument);
    assert!(!err.is_null() && err != garbage());
    check_error(err, Status::NullArgument, "NULL json");
    mcpgen_error_free(err);
    let mut count = 0;
    assert_eq!(mcpgen_error_count(null(), &mut count), Status::NullArgument);
    // Every `_free` accepts NULL.
    mcpgen_error_free(null_mut());
    mcpgen_string_free(null_mut());
    mcpgen_request_free(null_mut());
    mcpgen_response_free(null_mut());
    mcpgen_strings_free(null_mut());
    mcpgen_tool_checker_free(null_mut());
    mcpgen_icon_policy_free(null_mut());
    mcpgen_context_free(null_mut());
}
