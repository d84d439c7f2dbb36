//! Validation and decoding by definition (name or id), method-aware message validation, and
//! result decoding by method.

use std::ffi::c_char;

use core_api::json::Tape;
use core_api::protocol::{self, MessageKind};
use core_api::{MessageOptions, Options, Revision, Schema};

use crate::context::{context, Context};
use crate::{
    boundary, c_string, clear, clear_ptr, definition, extension, input, input_str, put, required, revision,
    revision_ids, unnul, ErrorObject, McpgenStr, Status,
};

/// Validation with the core. Without an error object to fill, only the core's fail-fast pass
/// runs (no error details are built); with one, the core collects every error.
fn validate_def(
    opts: Options,
    schema: Schema,
    name: &str,
    json: &[u8],
    want_details: bool,
) -> Result<Status, ErrorObject> {
    if want_details {
        return schema.validate(name, json, opts).map(|()| Status::Ok).map_err(ErrorObject::decode);
    }
    schema.definition(name).map_err(ErrorObject::decode)?;
    let verdict = Tape::with_parsed(json, |tape| schema.is_valid_view(name, &tape.root(), opts));
    match verdict.map_err(|e| ErrorObject::decode(e.into()))? {
        Some(true) => Ok(Status::Ok),
        Some(false) => Err(ErrorObject::verdict(Status::Invalid)),
        None => Err(ErrorObject::decode(core_api::DecodeError::unknown_definition(schema.label(), name))),
    }
}

/// Decodes and re-encodes into the caller's out-parameters.
fn decode_def(
    ctx: *const Context,
    schema: Schema,
    name: &str,
    json: &[u8],
    json_out: *mut *mut c_char,
    json_len_out: *mut usize,
) -> Result<Status, ErrorObject> {
    let decoded = schema.decode(name, json, context(ctx).opts.policy).map_err(ErrorObject::decode)?;
    give_json(decoded.to_json_string(), json_out, json_len_out);
    Ok(Status::Ok)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_validate(
    ctx: *const Context,
    revision_code: u32,
    def: *const c_char,
    def_len: usize,
    json: *const u8,
    json_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let rev = revision(revision_code)?;
        let name = input_str(def, def_len, "def")?;
        let json = input(json, json_len, "json")?;
        validate_def(context(ctx).opts, rev.into(), name, json, !error_out.is_null())
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_validate_id(
    ctx: *const Context,
    def: u32,
    json: *const u8,
    json_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let (rev, name) = definition(def)?;
        let json = input(json, json_len, "json")?;
        validate_def(context(ctx).opts, rev.into(), unnul(name), json, !error_out.is_null())
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_validate_extension(
    ctx: *const Context,
    extension_code: u32,
    def: *const c_char,
    def_len: usize,
    json: *const u8,
    json_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let ext = extension(extension_code)?;
        let name = input_str(def, def_len, "def")?;
        let json = input(json, json_len, "json")?;
        validate_def(context(ctx).opts, ext.into(), name, json, !error_out.is_null())
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_decode_extension(
    ctx: *const Context,
    extension_code: u32,
    def: *const c_char,
    def_len: usize,
    json: *const u8,
    json_len: usize,
    json_out: *mut *mut c_char,
    json_len_out: *mut usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(json_out);
    clear(json_len_out, 0);
    boundary(error_out, || {
        required(json_out, "json_out")?;
        let ext = extension(extension_code)?;
        let name = input_str(def, def_len, "def")?;
        let json = input(json, json_len, "json")?;
        decode_def(ctx, ext.into(), name, json, json_out, json_len_out)
    })
}

/// `mcpgen_message_kind` values.
const KIND_REQUEST: u32 = 1;
const KIND_NOTIFICATION: u32 = 2;
const KIND_RESULT: u32 = 3;
const KIND_ERROR: u32 = 4;

#[no_mangle]
pub unsafe extern "C" fn mcpgen_validate_message(
    ctx: *const Context,
    revision_code: u32,
    json: *const u8,
    json_len: usize,
    kind_out: *mut u32,
    method_out: *mut *mut c_char,
    method_len_out: *mut usize,
    error_code_out: *mut i64,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear(kind_out, 0);
    clear_ptr(method_out);
    clear(method_len_out, 0);
    clear(error_code_out, 0);
    boundary(error_out, || {
        let rev = revision(revision_code)?;
        let json = input(json, json_len, "json")?;
        let ctx = context(ctx);
        let kind =
            protocol::validate_message(rev, json, &MessageOptions::from(ctx.opts).negotiated(&ctx.server.extensions))
                .map_err(ErrorObject::decode)?;
        let (k, method, code) = match &kind {
            MessageKind::Request { method } => (KIND_REQUEST, Some(method), 0),
            MessageKind::Notification { method } => (KIND_NOTIFICATION, Some(method), 0),
            MessageKind::Result => (KIND_RESULT, None, 0),
            MessageKind::Error { code } => (KIND_ERROR, None, *code),
        };
        put(kind_out, k);
        put(error_code_out, code);
        if let Some(m) = method {
            put(method_len_out, m.len());
            if !method_out.is_null() {
                put(method_out, c_string(m.as_bytes()));
            }
        }
        Ok(Status::Ok)
    })
}

/// Hands re-encoded JSON to the caller.
pub(crate) fn give_json(text: String, json_out: *mut *mut c_char, json_len_out: *mut usize) {
    put(json_len_out, text.len());
    put(json_out, c_string(text.as_bytes()));
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_decode(
    ctx: *const Context,
    revision_code: u32,
    def: *const c_char,
    def_len: usize,
    json: *const u8,
    json_len: usize,
    json_out: *mut *mut c_char,
    json_len_out: *mut usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(json_out);
    clear(json_len_out, 0);
    boundary(error_out, || {
        required(json_out, "json_out")?;
        let rev = revision(revision_code)?;
        let name = input_str(def, def_len, "def")?;
        let json = input(json, json_len, "json")?;
        decode_def(ctx, rev.into(), name, json, json_out, json_len_out)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_decode_id(
    ctx: *const Context,
    def: u32,
    json: *const u8,
    json_len: usize,
    json_out: *mut *mut c_char,
    json_len_out: *mut usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(json_out);
    clear(json_len_out, 0);
    boundary(error_out, || {
        required(json_out, "json_out")?;
        let (rev, name) = definition(def)?;
        let json = input(json, json_len, "json")?;
        decode_def(ctx, rev.into(), unnul(name), json, json_out, json_len_out)
    })
}

/// A result variant name as a static NUL-terminated string: a definition of the revision
/// (from the id tables), or `Raw`.
pub(crate) fn variant_str(rev: Revision, variant: &str) -> Result<McpgenStr, ErrorObject> {
    if variant == "Raw" {
        return Ok(McpgenStr::from_static_nul("Raw\0"));
    }
    revision_ids(rev)
        .and_then(|ids| ids.definitions.iter().find(|d| unnul(d) == variant))
        .map(|d| McpgenStr::from_static_nul(d))
        .ok_or_else(|| {
            ErrorObject::call(Status::Internal, format!("result variant `{variant}` is not a definition of {rev}"))
        })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_decode_result(
    ctx: *const Context,
    revision_code: u32,
    method: *const c_char,
    method_len: usize,
    json: *const u8,
    json_len: usize,
    json_out: *mut *mut c_char,
    json_len_out: *mut usize,
    variant_out: *mut McpgenStr,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(json_out);
    clear(json_len_out, 0);
    clear(variant_out, McpgenStr::NULL);
    boundary(error_out, || {
        required(json_out, "json_out")?;
        let rev = revision(revision_code)?;
        let method = input_str(method, method_len, "method")?;
        let json = input(json, json_len, "json")?;
        let opts = core_api::ResultOptions::method(method).policy(context(ctx).opts.policy);
        let decoded = core_api::decode_result(rev, json, &opts).map_err(ErrorObject::decode)?;
        let variant = variant_str(rev, decoded.variant)?;
        give_json(decoded.value.to_json_string(), json_out, json_len_out);
        put(variant_out, variant);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_string_free(s: *mut c_char) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: NULL or a string from this library, freed once, per the contract.
        unsafe { crate::free_c_string(s) }
    });
}
