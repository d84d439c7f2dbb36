//! Library information: version, status names, revision and definition ids.

use std::ffi::c_char;

use crate::{boundary, clear, definition, ids, input_str, put, required, revision, revision_ids, unnul, ErrorObject, McpgenStr, Status};

/// `"MAJOR.MINOR.PATCH\0"`.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

#[no_mangle]
pub extern "C" fn mcpgen_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// major * 1000000 + minor * 1000 + patch, as `MCPGEN_VERSION_NUMBER`.
pub fn version_number() -> u32 {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    part(env!("CARGO_PKG_VERSION_MAJOR")) * 1_000_000 + part(env!("CARGO_PKG_VERSION_MINOR")) * 1_000 + part(env!("CARGO_PKG_VERSION_PATCH"))
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
        let code = code.ok_or_else(|| ErrorObject::call(Status::UnknownRevision, format!("unknown revision `{name}`")))?;
        revision(code)?;
        put(revision_out, code);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_def_lookup(revision_code: u32, name: *const c_char, name_len: usize, id_out: *mut u32) -> Status {
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
