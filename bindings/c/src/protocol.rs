//! The protocol rules: `check_request`, `check_response`, version negotiation, `_meta` keys and
//! era detection, plus the objects that carry their results to C.

use std::ffi::c_char;

use core_api::json::{to_json_string, Value};
use core_api::protocol::{self, CheckedResponse, DetectedEra};
use core_api::ResultOptions;

use crate::context::{context, string_list, Context};
use crate::{
    boundary, c_string, clear, clear_ptr, give, input, input_str, object, put, required, revision, revision_code,
    ErrorObject, McpgenStr, OwnedStr, Status,
};

/// `mcpgen_request`: an accepted request, with everything copied out of the core's value.
#[derive(Debug)]
pub struct RequestObject {
    revision: u32,
    method: OwnedStr,
    id_json: OwnedStr,
    legacy: bool,
    json: OwnedStr,
}

/// `mcpgen_response`: a result, or the peer's JSON-RPC error.
#[derive(Debug, Default)]
pub struct ResponseObject {
    is_error: bool,
    id_json: OwnedStr,
    variant: OwnedStr,
    result_json: OwnedStr,
    code: i64,
    message: OwnedStr,
    data_json: OwnedStr,
}

/// `mcpgen_strings`.
#[derive(Debug, Default)]
pub struct StringsObject {
    pub(crate) items: Vec<OwnedStr>,
}

fn json_text(v: Option<&Value>) -> OwnedStr {
    v.map(|v| OwnedStr::new(to_json_string(v))).unwrap_or_default()
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_request(
    ctx: *const Context,
    json: *const u8,
    json_len: usize,
    request_out: *mut *mut RequestObject,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(request_out);
    boundary(error_out, || {
        required(request_out, "request_out")?;
        let json = input(json, json_len, "json")?;
        let accepted = protocol::check_request(json, &context(ctx).server)
            .map_err(|e| ErrorObject::protocol(Status::RequestRefused, e))?;
        give(
            request_out,
            RequestObject {
                revision: revision_code(accepted.revision),
                method: OwnedStr::new(&accepted.method),
                id_json: json_text(accepted.id.as_ref()),
                legacy: accepted.legacy,
                json: OwnedStr::new(accepted.request.to_json_string()),
            },
        );
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_http_headers(
    names: *const McpgenStr,
    values: *const McpgenStr,
    count: usize,
    json: *const u8,
    json_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let names = string_list(names, count, "names")?;
        let values = string_list(values, count, "values")?;
        let json = input(json, json_len, "json")?;
        let headers = names.iter().map(String::as_str).zip(values.iter().map(String::as_str));
        protocol::check_http_headers(headers, json).map_err(|e| ErrorObject::protocol(Status::RequestRefused, e))?;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_response(
    ctx: *const Context,
    revision_code: u32,
    method: *const c_char,
    method_len: usize,
    json: *const u8,
    json_len: usize,
    response_out: *mut *mut ResponseObject,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(response_out);
    boundary(error_out, || {
        required(response_out, "response_out")?;
        let rev = revision(revision_code)?;
        let method = input_str(method, method_len, "method")?;
        let json = input(json, json_len, "json")?;
        let extensions: Vec<&str> = context(ctx).extension_result_types.iter().map(String::as_str).collect();
        let checked = protocol::check_response(rev, json, &ResultOptions::method(method).extensions(&extensions))
            .map_err(ErrorObject::response)?;
        let (status, object) = match checked {
            CheckedResponse::Result { id, result } => (
                Status::Ok,
                ResponseObject {
                    id_json: json_text(Some(&id)),
                    variant: OwnedStr::new(result.variant),
                    result_json: OwnedStr::new(result.value.to_json_string()),
                    ..ResponseObject::default()
                },
            ),
            CheckedResponse::Error { id, code, message, data } => (
                Status::RemoteError,
                ResponseObject {
                    is_error: true,
                    id_json: json_text(id.as_ref()),
                    code,
                    message: OwnedStr::new(message),
                    data_json: json_text(data.as_ref()),
                    ..ResponseObject::default()
                },
            ),
        };
        give(response_out, object);
        Ok(status)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_negotiate_version(
    ctx: *const Context,
    requested: *const c_char,
    requested_len: usize,
    version_out: *mut *mut c_char,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear_ptr(version_out);
    boundary(error_out, || {
        let requested = input_str(requested, requested_len, "requested")?;
        let supported: Vec<&str> = context(ctx).server.supported_versions.iter().map(String::as_str).collect();
        let agreed = protocol::negotiate_version(requested, &supported)
            .map_err(|e| ErrorObject::protocol(Status::VersionUnsupported, e))?;
        if !version_out.is_null() {
            put(version_out, c_string(agreed.as_bytes()));
        }
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_meta_key(
    key: *const c_char,
    key_len: usize,
    reserved_out: *mut bool,
    prefix_out: *mut *mut c_char,
    name_out: *mut *mut c_char,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear(reserved_out, false);
    clear_ptr(prefix_out);
    clear_ptr(name_out);
    boundary(error_out, || {
        let key = input_str(key, key_len, "key")?;
        let parsed = protocol::check_meta_key(key).map_err(ErrorObject::meta_key)?;
        put(reserved_out, parsed.reserved);
        if let (false, Some(prefix)) = (prefix_out.is_null(), &parsed.prefix) {
            put(prefix_out, c_string(prefix.as_bytes()));
        }
        if !name_out.is_null() {
            put(name_out, c_string(parsed.name.as_bytes()));
        }
        Ok(Status::Ok)
    })
}

/// `mcpgen_era` values.
const ERA_MODERN: u32 = 1;
const ERA_LEGACY: u32 = 2;

fn give_era(era: DetectedEra, era_out: *mut u32, supported_out: *mut *mut StringsObject) {
    match era {
        DetectedEra::Modern { supported } => {
            put(era_out, ERA_MODERN);
            if !supported_out.is_null() {
                give(supported_out, StringsObject { items: supported.iter().map(OwnedStr::new).collect() });
            }
        }
        DetectedEra::Legacy => put(era_out, ERA_LEGACY),
    }
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_detect_era_from_probe(
    response: *const u8,
    response_len: usize,
    era_out: *mut u32,
    supported_out: *mut *mut StringsObject,
) -> Status {
    clear(era_out, 0);
    clear_ptr(supported_out);
    boundary(std::ptr::null_mut(), || {
        required(era_out, "era_out")?;
        // NULL with length 0 is "no answer" (documented); NULL with a length is a mistake.
        let answer = if response.is_null() && response_len == 0 {
            None
        } else {
            Some(input(response, response_len, "response")?)
        };
        give_era(protocol::detect_era_from_probe(answer), era_out, supported_out);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_detect_era_from_http_400(
    body: *const u8,
    body_len: usize,
    era_out: *mut u32,
    supported_out: *mut *mut StringsObject,
) -> Status {
    clear(era_out, 0);
    clear_ptr(supported_out);
    boundary(std::ptr::null_mut(), || {
        required(era_out, "era_out")?;
        let body = input(body, body_len, "body")?;
        give_era(protocol::detect_era_from_http_400(body), era_out, supported_out);
        Ok(Status::Ok)
    })
}

// ---- getters -----------------------------------------------------------------------------------

/// Shared body of the string getters: `out` required, cleared first.
fn get_str<T>(obj: *const T, what: &str, out: *mut McpgenStr, field: fn(&T) -> &OwnedStr) -> Status {
    clear(out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(out, "out")?;
        put(out, field(object(obj, what)?).as_c());
        Ok(Status::Ok)
    })
}

/// Shared body of the scalar getters.
fn get<T, V: Copy>(obj: *const T, what: &str, out: *mut V, zero: V, field: fn(&T) -> V) -> Status {
    clear(out, zero);
    boundary(std::ptr::null_mut(), || {
        required(out, "out")?;
        put(out, field(object(obj, what)?));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_request_free(request: *mut RequestObject) {
    crate::free_object(request)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_request_revision(request: *const RequestObject, revision_out: *mut u32) -> Status {
    get(request, "request", revision_out, 0, |r| r.revision)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_request_method(request: *const RequestObject, out: *mut McpgenStr) -> Status {
    get_str(request, "request", out, |r| &r.method)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_request_id_json(request: *const RequestObject, out: *mut McpgenStr) -> Status {
    get_str(request, "request", out, |r| &r.id_json)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_request_is_legacy(request: *const RequestObject, legacy_out: *mut bool) -> Status {
    get(request, "request", legacy_out, false, |r| r.legacy)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_request_json(request: *const RequestObject, out: *mut McpgenStr) -> Status {
    get_str(request, "request", out, |r| &r.json)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_response_free(response: *mut ResponseObject) {
    crate::free_object(response)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_response_is_error(response: *const ResponseObject, is_error_out: *mut bool) -> Status {
    get(response, "response", is_error_out, false, |r| r.is_error)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_response_id_json(response: *const ResponseObject, out: *mut McpgenStr) -> Status {
    get_str(response, "response", out, |r| &r.id_json)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_response_variant(response: *const ResponseObject, out: *mut McpgenStr) -> Status {
    get_str(response, "response", out, |r| &r.variant)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_response_result_json(response: *const ResponseObject, out: *mut McpgenStr) -> Status {
    get_str(response, "response", out, |r| &r.result_json)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_response_error(
    response: *const ResponseObject,
    code_out: *mut i64,
    message_out: *mut McpgenStr,
    data_json_out: *mut McpgenStr,
) -> Status {
    clear(code_out, 0);
    clear(message_out, McpgenStr::NULL);
    clear(data_json_out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(code_out, "code_out")?;
        let r = object(response, "response")?;
        put(code_out, r.code);
        put(message_out, r.message.as_c());
        put(data_json_out, r.data_json.as_c());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_strings_free(list: *mut StringsObject) {
    crate::free_object(list)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_strings_count(list: *const StringsObject, count_out: *mut usize) -> Status {
    get(list, "list", count_out, 0, |l| l.items.len())
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_strings_get(list: *const StringsObject, index: usize, out: *mut McpgenStr) -> Status {
    clear(out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(out, "out")?;
        let l = object(list, "list")?;
        let item = l.items.get(index).ok_or_else(|| {
            ErrorObject::call(Status::IndexOutOfRange, format!("index {index} of a list of {}", l.items.len()))
        })?;
        put(out, item.as_c());
        Ok(Status::Ok)
    })
}
