//! Per-item lenient list decoding: `mcpgen_decode_result_skipping_invalid_items` and the
//! `mcpgen_skipped` accessors.

use std::ffi::c_char;

use core_api::{DecodeError, ResultOptions};

use crate::context::{context, Context};
use crate::validate::{give_json, variant_str};
use crate::{
    boundary, clear, clear_ptr, give, input, input_str, object, put, required, revision, ErrorObject, McpgenStr,
    OwnedStr, Status,
};

/// One skipped item: its pointer and index, and its validation errors as an error object
/// (read with the `mcpgen_error_*` getters).
#[derive(Debug)]
struct Item {
    pointer: OwnedStr,
    index: usize,
    errors: ErrorObject,
}

/// `mcpgen_skipped`: the items a lenient list decode left out.
#[derive(Debug)]
pub struct Skipped {
    items: Vec<Item>,
}

impl Skipped {
    fn item(&self, index: usize) -> Result<&Item, ErrorObject> {
        self.items.get(index).ok_or_else(|| {
            ErrorObject::call(Status::IndexOutOfRange, format!("item {index} of {} skipped items", self.items.len()))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_decode_result_skipping_invalid_items(
    ctx: *const Context,
    revision_code: u32,
    method: *const c_char,
    method_len: usize,
    json: *const u8,
    json_len: usize,
    json_out: *mut *mut c_char,
    json_len_out: *mut usize,
    variant_out: *mut McpgenStr,
    skipped_out: *mut *mut Skipped,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(json_out);
    clear(json_len_out, 0);
    clear(variant_out, McpgenStr::NULL);
    clear_ptr(skipped_out);
    boundary(error_out, || {
        required(json_out, "json_out")?;
        required(skipped_out, "skipped_out")?;
        let rev = revision(revision_code)?;
        let method = input_str(method, method_len, "method")?;
        let json = input(json, json_len, "json")?;
        let opts = ResultOptions::method(method).policy(context(ctx).opts.policy).skip_invalid_items(true);
        let decoded = core_api::decode_result(rev, json, &opts).map_err(ErrorObject::decode)?;
        let variant = variant_str(rev, decoded.variant)?;
        let items = decoded
            .skipped
            .into_iter()
            .map(|s| Item {
                pointer: OwnedStr::new(&s.pointer),
                index: s.index,
                errors: ErrorObject::decode(DecodeError::Invalid(s.errors)),
            })
            .collect();
        give_json(decoded.value.to_json_string(), json_out, json_len_out);
        put(variant_out, variant);
        give(skipped_out, Skipped { items });
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_skipped_free(skipped: *mut Skipped) {
    crate::free_object(skipped)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_skipped_count(skipped: *const Skipped, count_out: *mut usize) -> Status {
    clear(count_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(count_out, "count_out")?;
        put(count_out, object(skipped, "skipped")?.items.len());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_skipped_pointer(
    skipped: *const Skipped,
    index: usize,
    pointer_out: *mut McpgenStr,
    index_out: *mut usize,
) -> Status {
    clear(pointer_out, McpgenStr::NULL);
    clear(index_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(pointer_out, "pointer_out")?;
        let item = object(skipped, "skipped")?.item(index)?;
        put(pointer_out, item.pointer.as_c());
        put(index_out, item.index);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_skipped_errors(
    skipped: *const Skipped,
    index: usize,
    errors_out: *mut *const ErrorObject,
) -> Status {
    clear(errors_out, std::ptr::null());
    boundary(std::ptr::null_mut(), || {
        required(errors_out, "errors_out")?;
        let item = object(skipped, "skipped")?.item(index)?;
        put(errors_out, &item.errors as *const ErrorObject);
        Ok(Status::Ok)
    })
}
