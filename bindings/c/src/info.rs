//! Library information: version, status names, revision, extension and definition ids.

use std::ffi::c_char;

use core_api::methods::{Direction, MethodKind};
use core_api::Revision;

use crate::{
    boundary, clear, definition, extension, ids, input_str, put, required, revision, revision_ids, unnul, ErrorObject,
    McpgenStr, Status,
};

/// `"MAJOR.MINOR.PATCH\0"`.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

#[no_mangle]
pub extern "C" fn mcpgen_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// major * 1000000 + minor * 1000 + patch, as `MCPGEN_VERSION_NUMBER`.
pub fn version_number() -> u32 {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    part(env!("CARGO_PKG_VERSION_MAJOR")) * 1_000_000
        + part(env!("CARGO_PKG_VERSION_MINOR")) * 1_000
        + part(env!("CARGO_PKG_VERSION_PATCH"))
}

#[no_mangle]
pub extern "C" fn mcpgen_version_number() -> u32 {
    version_number()
}

#[no_mangle]
pub extern "C" fn mcpgen_status_str(status: u32) -> *const c_char {
    Status::from_u32(status).map_or("unknown status\0", Status::describe).as_ptr().cast()
}

#[no_mangle]
pub extern "C" fn mcpgen_status_name(status: u32) -> *const c_char {
    Status::from_u32(status).map_or("MCPGEN_UNKNOWN_STATUS\0", Status::name).as_ptr().cast()
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_revision_name(revision_code: u32, name_out: *mut McpgenStr) -> Status {
    clear(name_out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(name_out, "name_out")?;
        let rev = revision(revision_code)?;
        let ids = revision_ids(rev).ok_or_else(|| ErrorObject::call(Status::Internal, format!("{rev} lacks an id")))?;
        put(name_out, McpgenStr::from_static_nul(ids.name));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_revision_parse(name: *const c_char, name_len: usize, revision_out: *mut u32) -> Status {
    clear(revision_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(revision_out, "revision_out")?;
        let name = input_str(name, name_len, "name")?;
        let code = ids::REVISIONS.iter().find(|r| unnul(r.name) == name).map(|r| r.code);
        let code =
            code.ok_or_else(|| ErrorObject::call(Status::UnknownRevision, format!("unknown revision `{name}`")))?;
        revision(code)?;
        put(revision_out, code);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_extension_id(extension_code: u32, id_out: *mut McpgenStr) -> Status {
    clear(id_out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(id_out, "id_out")?;
        extension(extension_code)?;
        // `extension` found the code, so the table has it.
        let entry = &ids::EXTENSIONS[extension_code as usize - 1];
        put(id_out, McpgenStr::from_static_nul(entry.id));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_extension_parse(
    name: *const c_char,
    name_len: usize,
    extension_out: *mut u32,
) -> Status {
    clear(extension_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(extension_out, "extension_out")?;
        let name = input_str(name, name_len, "name")?;
        let ext = core_api::ext::Extension::parse(name)
            .ok_or_else(|| ErrorObject::call(Status::UnknownExtension, format!("unknown extension `{name}`")))?;
        let code = ids::EXTENSIONS.iter().find(|e| unnul(e.id) == ext.id()).map(|e| e.code).ok_or_else(|| {
            ErrorObject::call(Status::Internal, format!("extension {} has no mcpgen_extension code", ext.id()))
        })?;
        put(extension_out, code);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_def_lookup(
    revision_code: u32,
    name: *const c_char,
    name_len: usize,
    id_out: *mut u32,
) -> Status {
    clear(id_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(id_out, "id_out")?;
        let rev = revision(revision_code)?;
        let name = input_str(name, name_len, "name")?;
        let ids = &ids::REVISIONS[revision_code as usize - 1];
        match ids.definitions.iter().position(|d| unnul(d) == name) {
            Some(i) => {
                put(id_out, (revision_code << 16) | (i as u32 + 1));
                Ok(Status::Ok)
            }
            None => Err(ErrorObject::call(
                Status::UnknownDefinition,
                format!("revision {} has no definition named `{name}`", rev.as_str()),
            )),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_def_name(id: u32, name_out: *mut McpgenStr, revision_out: *mut u32) -> Status {
    clear(name_out, McpgenStr::NULL);
    clear(revision_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(name_out, "name_out")?;
        let (_, name) = definition(id)?;
        put(name_out, McpgenStr::from_static_nul(name));
        put(revision_out, id >> 16);
        Ok(Status::Ok)
    })
}

/// `mcpgen_method_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    pub method: McpgenStr,
    pub request_def: u32,
    pub result_def: u32,
    pub is_notification: bool,
    pub input_required: bool,
    pub direction: u32,
}

impl MethodInfo {
    const ZERO: MethodInfo = MethodInfo {
        method: McpgenStr::NULL,
        request_def: 0,
        result_def: 0,
        is_notification: false,
        input_required: false,
        direction: 0,
    };
}

/// The id of definition `name` of `rev` (0 when absent, which the id tables rule out).
fn def_id(rev: Revision, name: &str) -> u32 {
    revision_ids(rev)
        .and_then(|ids| {
            ids.definitions.iter().position(|d| unnul(d) == name).map(|i| (ids.code << 16) | (i as u32 + 1))
        })
        .unwrap_or(0)
}

/// Row `index` of the core's method table, with the C ids and the NUL-terminated name.
fn method_row(rev: Revision, index: usize) -> Result<MethodInfo, ErrorObject> {
    let table = rev.methods();
    let info = table.get(index).ok_or_else(|| {
        ErrorObject::call(Status::IndexOutOfRange, format!("method {index} of a table of {} in {rev}", table.len()))
    })?;
    let name =
        revision_ids(rev).and_then(|ids| ids.methods.get(index)).filter(|n| unnul(n) == info.method).ok_or_else(
            || ErrorObject::call(Status::Internal, format!("method table of {rev} and the id tables disagree")),
        )?;
    Ok(MethodInfo {
        method: McpgenStr::from_static_nul(name),
        request_def: def_id(rev, info.request_def),
        result_def: info.result_defs.first().map_or(0, |r| def_id(rev, r)),
        is_notification: info.kind == MethodKind::Notification,
        input_required: info.input_required,
        direction: match info.direction {
            Direction::ClientToServer => 1,
            Direction::ServerToClient => 2,
            Direction::Both => 3,
            Direction::EmbeddedInput => 4,
            Direction::Unspecified => 5,
        },
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_method_count(revision_code: u32, count_out: *mut usize) -> Status {
    clear(count_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(count_out, "count_out")?;
        put(count_out, revision(revision_code)?.methods().len());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_method_at(revision_code: u32, index: usize, info_out: *mut MethodInfo) -> Status {
    clear(info_out, MethodInfo::ZERO);
    boundary(std::ptr::null_mut(), || {
        required(info_out, "info_out")?;
        put(info_out, method_row(revision(revision_code)?, index)?);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_method_lookup(
    revision_code: u32,
    method: *const c_char,
    method_len: usize,
    info_out: *mut MethodInfo,
) -> Status {
    clear(info_out, MethodInfo::ZERO);
    boundary(std::ptr::null_mut(), || {
        required(info_out, "info_out")?;
        let rev = revision(revision_code)?;
        let method = input_str(method, method_len, "method")?;
        let index = rev.methods().iter().position(|m| m.method == method).ok_or_else(|| {
            ErrorObject::call(Status::InvalidArgument, format!("revision {rev} has no method `{method}`"))
        })?;
        put(info_out, method_row(rev, index)?);
        Ok(Status::Ok)
    })
}
