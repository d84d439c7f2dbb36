//! Tool schemas (`mcpgen_tool_checker`, `mcpgen_check_tool`, `mcpgen_validate_tool_arguments`,
//! `mcpgen_validate_structured_content`) and icons (`mcpgen_icon_policy`, `mcpgen_check_icon`,
//! …): the core's `tools` and `icons` modules behind the C conventions.

use std::ffi::{c_char, c_int, c_void};
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use core_api::icons::{self, IconPolicy, IconSource, ImageType};
use core_api::json::{JsonView, Tape};
use core_api::tools::{
    self, FetchError, FetchPolicy, FetchRequest, HostResolver, Limits, SchemaFetcher, SchemaOptions, ToolChecker,
};
use serde_json::Value;

use crate::protocol::StringsObject;
use crate::{
    boundary, clear, clear_ptr, give, input, input_str, object, put, required, ErrorObject, McpgenStr, OwnedStr, Status,
};

/// `mcpgen_tool_checker`: options plus the core's cache of compiled tools. The setters take
/// `*mut` (configure, then share); the checks take `*const` and may run on many threads.
pub struct ToolCheckerObject {
    options: SchemaOptions,
    fetch: FetchSettings,
    checker: ToolChecker,
}

impl ToolCheckerObject {
    fn new(options: SchemaOptions) -> ToolCheckerObject {
        ToolCheckerObject { checker: ToolChecker::new(options.clone()), options, fetch: FetchSettings::default() }
    }

    /// Applies changed options: a new fetch policy (and log) from the settings, an empty cache.
    fn rebuild(&mut self) {
        self.options.fetch = self.fetch.policy();
        self.checker = ToolChecker::new(self.options.clone());
    }
}

/// The opt-in resolver's settings (JSCHEMA-6), kept apart so they can be set in any order.
struct FetchSettings {
    callbacks: Option<Callbacks>,
    allow_hosts: Option<Vec<String>>,
    allow_http: bool,
    timeout: Duration,
    max_bytes: usize,
}

impl Default for FetchSettings {
    fn default() -> Self {
        // The core's defaults (`FetchPolicy::new`): https only, any public host.
        FetchSettings {
            callbacks: None,
            allow_hosts: None,
            allow_http: false,
            timeout: FetchPolicy::DEFAULT_TIMEOUT,
            max_bytes: FetchPolicy::DEFAULT_MAX_BYTES,
        }
    }
}

impl FetchSettings {
    fn policy(&self) -> Option<FetchPolicy> {
        let callbacks = self.callbacks?;
        // The callbacks resolve too: through `resolve`, else the system resolver.
        let mut policy = FetchPolicy::new(Arc::new(callbacks)).with_resolver(Arc::new(callbacks));
        policy.allow_hosts = self.allow_hosts.clone();
        policy.allow_http = self.allow_http;
        policy.timeout = self.timeout;
        policy.max_bytes = self.max_bytes;
        Some(policy)
    }
}

/// `mcpgen_fetch_fn`.
pub type FetchFn =
    unsafe extern "C" fn(user_data: *mut c_void, request: *const FetchRequestC, body: *mut BufferObject) -> c_int;
/// `mcpgen_resolve_fn`.
pub type ResolveFn = unsafe extern "C" fn(
    user_data: *mut c_void,
    host: *const c_char,
    host_len: usize,
    port: u16,
    addresses: *mut AddressesObject,
) -> c_int;

/// The caller's callbacks and their `user_data`.
#[derive(Clone, Copy)]
struct Callbacks {
    fetch: FetchFn,
    resolve: Option<ResolveFn>,
    user_data: *mut c_void,
}

// SAFETY: the header requires the callbacks and `user_data` to be usable from any thread
// (validation runs on the caller's threads); the library never dereferences `user_data`.
unsafe impl Send for Callbacks {}
// SAFETY: as above.
unsafe impl Sync for Callbacks {}

/// `mcpgen_fetch_request`: what the fetch callback may do, borrowed for the call.
#[repr(C)]
pub struct FetchRequestC {
    uri: McpgenStr,
    host: McpgenStr,
    port: u16,
    addrs: *const McpgenStr,
    addr_count: usize,
    timeout_ms: u32,
    max_bytes: usize,
}

/// `mcpgen_buffer`: the body a fetch callback appends to (at most `max_bytes + 1` are kept).
pub struct BufferObject {
    bytes: Vec<u8>,
    max_bytes: usize,
}

/// `mcpgen_addresses`: the addresses a resolve callback adds.
pub struct AddressesObject {
    ips: Vec<IpAddr>,
}

impl SchemaFetcher for Callbacks {
    fn fetch(&self, request: &FetchRequest<'_>) -> Result<Vec<u8>, FetchError> {
        let uri = OwnedStr::new(request.uri);
        let host = OwnedStr::new(request.host);
        let addrs: Vec<OwnedStr> = request.addrs.iter().map(|a| OwnedStr::new(a.ip().to_string())).collect();
        let views: Vec<McpgenStr> = addrs.iter().map(OwnedStr::as_c).collect();
        let c_request = FetchRequestC {
            uri: uri.as_c(),
            host: host.as_c(),
            port: request.port,
            addrs: views.as_ptr(),
            addr_count: views.len(),
            timeout_ms: u32::try_from(request.timeout.as_millis()).unwrap_or(u32::MAX),
            max_bytes: request.max_bytes,
        };
        let mut body = BufferObject { bytes: Vec::new(), max_bytes: request.max_bytes };
        // SAFETY: a callback the caller registered, given pointers valid for this call.
        let rc = unsafe { (self.fetch)(self.user_data, &c_request, &mut body) };
        if rc != 0 {
            return Err(FetchError::new(format!("the fetch callback returned {rc}")));
        }
        Ok(body.bytes)
    }
}

impl HostResolver for Callbacks {
    fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<IpAddr>> {
        let Some(resolve) = self.resolve else { return tools::SystemResolver.resolve(host, port) };
        let host = OwnedStr::new(host);
        let name = host.as_c();
        let mut out = AddressesObject { ips: Vec::new() };
        // SAFETY: a callback the caller registered, given pointers valid for this call.
        let rc = unsafe { resolve(self.user_data, name.ptr, name.len, port, &mut out) };
        if rc != 0 {
            return Err(std::io::Error::other(format!("the resolve callback returned {rc}")));
        }
        Ok(out.ips)
    }
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_buffer_append(buffer: *mut BufferObject, bytes: *const u8, len: usize) -> Status {
    boundary(std::ptr::null_mut(), || {
        required(buffer, "buffer")?;
        let bytes = input(bytes, len, "bytes")?;
        // SAFETY: non-NULL, the buffer of the running fetch callback (per the contract).
        let b = unsafe { &mut *buffer };
        let room = (b.max_bytes + 1).saturating_sub(b.bytes.len());
        b.bytes.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if b.bytes.len() > b.max_bytes {
            return Err(ErrorObject::call(
                Status::LimitExceeded,
                format!("the body is over the {}-byte cap", b.max_bytes),
            ));
        }
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_addresses_add(
    addresses: *mut AddressesObject,
    ip: *const c_char,
    ip_len: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        required(addresses, "addresses")?;
        let text = input_str(ip, ip_len, "ip")?;
        let parsed: IpAddr = text.trim_start_matches('[').trim_end_matches(']').parse().map_err(|_| {
            ErrorObject::call(Status::InvalidArgument, format!("`{text}` is not an IPv4 or IPv6 address"))
        })?;
        // SAFETY: non-NULL, the list of the running resolve callback (per the contract).
        unsafe { (*addresses).ips.push(parsed) };
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_set_fetcher(
    checker: *mut ToolCheckerObject,
    fetch: Option<FetchFn>,
    resolve: Option<ResolveFn>,
    user_data: *mut c_void,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let c = checker_mut(checker)?;
        c.fetch.callbacks = fetch.map(|fetch| Callbacks { fetch, resolve, user_data });
        c.rebuild();
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_allow_host(
    checker: *mut ToolCheckerObject,
    host: *const c_char,
    host_len: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let c = checker_mut(checker)?;
        let host = input_str(host, host_len, "host")?;
        c.fetch.allow_hosts.get_or_insert_with(Vec::new).push(host.to_owned());
        c.rebuild();
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_set_fetch_options(
    checker: *mut ToolCheckerObject,
    allow_http: bool,
    timeout_ms: u32,
    max_bytes: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let c = checker_mut(checker)?;
        if timeout_ms == 0 {
            return Err(ErrorObject::call(Status::InvalidArgument, "timeout_ms must be positive".into()));
        }
        c.fetch.allow_http = allow_http;
        c.fetch.timeout = Duration::from_millis(u64::from(timeout_ms));
        c.fetch.max_bytes = max_bytes;
        c.rebuild();
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_fetched(
    checker: *const ToolCheckerObject,
    uris_out: *mut *mut StringsObject,
) -> Status {
    clear_ptr(uris_out);
    boundary(std::ptr::null_mut(), || {
        required(uris_out, "uris_out")?;
        let c = object(checker, "checker")?;
        let uris = c.options.fetch.as_ref().map(FetchPolicy::fetched).unwrap_or_default();
        give(uris_out, StringsObject { items: uris.iter().map(OwnedStr::new).collect() });
        Ok(Status::Ok)
    })
}

/// The checker behind a possibly NULL pointer (NULL: default options, one process-wide cache).
fn checker<'a>(p: *const ToolCheckerObject) -> &'a ToolCheckerObject {
    static DEFAULT: OnceLock<ToolCheckerObject> = OnceLock::new();
    if p.is_null() {
        DEFAULT.get_or_init(|| ToolCheckerObject::new(SchemaOptions::default()))
    } else {
        // SAFETY: a live checker from `mcpgen_tool_checker_new`, per the contract.
        unsafe { &*p }
    }
}

fn checker_mut<'a>(p: *mut ToolCheckerObject) -> Result<&'a mut ToolCheckerObject, ErrorObject> {
    required(p, "checker")?;
    // SAFETY: non-NULL, live, and (per the contract) not used by another thread meanwhile.
    Ok(unsafe { &mut *p })
}

/// Reads an instance (arguments, structured content) with the core's parser (as every other
/// C call and the Python package do, so all surfaces accept the same texts) into the
/// `serde_json::Value` the core's tool functions take: a parse failure is `MCPGEN_PARSE_ERROR`.
fn json(ptr: *const u8, len: usize, what: &str) -> Result<Value, ErrorObject> {
    let bytes = input(ptr, len, what)?;
    let tape = Tape::parse_bytes(bytes).map_err(|e| ErrorObject::parse(&e))?;
    Ok(Value::from(&tape.root().to_value()))
}

/// Reads a tool as the core reads tool text ([`tools::tool_from_json`]): only text that is not
/// JSON is `MCPGEN_PARSE_ERROR`; a tool nested past the parser's limit is then refused by the
/// checker as `too_deep` (`MCPGEN_TOOL_SCHEMA_INVALID`).
fn tool_json(ptr: *const u8, len: usize) -> Result<Value, ErrorObject> {
    let bytes = input(ptr, len, "tool")?;
    tools::tool_from_json(bytes).map_err(|e| ErrorObject::parse(&e))
}

/// The name of a `mcpgen_tool_limit` value: the header's enum follows [`Limits::NAMES`], 1-based.
fn limit_name(limit: u32) -> Result<&'static str, ErrorObject> {
    limit
        .checked_sub(1)
        .and_then(|i| Limits::NAMES.get(i as usize).copied())
        .ok_or_else(|| ErrorObject::call(Status::InvalidArgument, format!("{limit} is not an mcpgen_tool_limit value")))
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_new(checker_out: *mut *mut ToolCheckerObject) -> Status {
    clear_ptr(checker_out);
    boundary(std::ptr::null_mut(), || {
        required(checker_out, "checker_out")?;
        give(checker_out, ToolCheckerObject::new(SchemaOptions::default()));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_free(checker: *mut ToolCheckerObject) {
    crate::free_object(checker)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_set_limit(
    checker: *mut ToolCheckerObject,
    limit: u32,
    value: u64,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let c = checker_mut(checker)?;
        let mut options = c.options.clone();
        options.limits.set(limit_name(limit)?, value).map_err(ErrorObject::limit)?;
        c.options = options;
        c.rebuild();
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_set_limit_by_name(
    checker: *mut ToolCheckerObject,
    name: *const c_char,
    name_len: usize,
    value: u64,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let c = checker_mut(checker)?;
        let name = input_str(name, name_len, "name")?;
        let mut options = c.options.clone();
        options.limits.set(name, value).map_err(ErrorObject::limit)?;
        c.options = options;
        c.rebuild();
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_get_limit(
    checker: *const ToolCheckerObject,
    limit: u32,
    value_out: *mut u64,
) -> Status {
    clear(value_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(value_out, "value_out")?;
        let limits = &crate::tools::checker(checker).options.limits;
        let value = limits
            .get(limit_name(limit)?)
            .ok_or_else(|| ErrorObject::call(Status::Internal, format!("limit {limit} has no value")))?;
        put(value_out, value);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_set_validate_formats(checker: *mut ToolCheckerObject, on: bool) -> Status {
    boundary(std::ptr::null_mut(), || {
        let c = checker_mut(checker)?;
        c.options.validate_formats = on;
        c.rebuild();
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_tool_checker_cached(
    checker: *const ToolCheckerObject,
    count_out: *mut usize,
) -> Status {
    clear(count_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(count_out, "count_out")?;
        put(count_out, object(checker, "checker")?.checker.cached());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_tool(
    checker: *const ToolCheckerObject,
    tool: *const u8,
    tool_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let tool = tool_json(tool, tool_len)?;
        crate::tools::checker(checker)
            .checker
            .compile(&tool)
            .map_err(|e| ErrorObject::tool_schema(e.errors().iter().map(|e| ("", e))))?;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_tools(
    checker: *const ToolCheckerObject,
    json: *const u8,
    json_len: usize,
    tool_count_out: *mut usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear(tool_count_out, 0);
    boundary(error_out, || {
        let bytes = input(json, json_len, "json")?;
        let reports =
            tools::check_tools_json(bytes, &crate::tools::checker(checker).options).map_err(ErrorObject::tools_json)?;
        put(tool_count_out, reports.len());
        if reports.iter().all(|r| r.errors().is_empty()) {
            return Ok(Status::Ok);
        }
        Err(ErrorObject::tool_schema(reports.iter().flat_map(|r| r.errors().iter().map(|e| (r.pointer(), e)))))
    })
}

/// Shared body of the two instance checks. `instance` NULL with length 0 is `{}` (a
/// `tools/call` without `arguments`).
fn validate_instance(
    checker: *const ToolCheckerObject,
    tool: (*const u8, usize),
    (instance, instance_len): (*const u8, usize),
    structured: bool,
    error_out: *mut *mut ErrorObject,
) -> Status {
    let what = if structured { "value" } else { "arguments" };
    boundary(error_out, || {
        let (tool, tool_len) = tool;
        let tool = tool_json(tool, tool_len)?;
        let value = if instance.is_null() && instance_len == 0 {
            Value::Object(Default::default())
        } else {
            json(instance, instance_len, what)?
        };
        let c = &crate::tools::checker(checker).checker;
        let verdict =
            if structured { c.validate_structured_content(&tool, &value) } else { c.validate_arguments(&tool, &value) };
        verdict.map_err(ErrorObject::tool_call)?;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_validate_tool_arguments(
    checker: *const ToolCheckerObject,
    tool: *const u8,
    tool_len: usize,
    arguments: *const u8,
    arguments_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    validate_instance(checker, (tool, tool_len), (arguments, arguments_len), false, error_out)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_validate_structured_content(
    checker: *const ToolCheckerObject,
    tool: *const u8,
    tool_len: usize,
    value: *const u8,
    value_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    validate_instance(checker, (tool, tool_len), (value, value_len), true, error_out)
}

/* ---- Icons ---------------------------------------------------------------------------------- */

/// `mcpgen_icon_policy`.
#[derive(Debug, Clone, Default)]
pub struct IconPolicyObject(IconPolicy);

fn policy<'a>(p: *const IconPolicyObject) -> &'a IconPolicy {
    static DEFAULT: OnceLock<IconPolicy> = OnceLock::new();
    if p.is_null() {
        DEFAULT.get_or_init(IconPolicy::default)
    } else {
        // SAFETY: a live policy from `mcpgen_icon_policy_new`, per the contract.
        unsafe { &(*p).0 }
    }
}

fn policy_mut<'a>(p: *mut IconPolicyObject) -> Result<&'a mut IconPolicy, ErrorObject> {
    required(p, "policy")?;
    // SAFETY: non-NULL, live, not shared meanwhile (per the contract).
    Ok(unsafe { &mut (*p).0 })
}

/// `mcpgen_image_type` of an image type (0 is `MCPGEN_IMAGE_NONE`).
fn image_code(t: ImageType) -> u32 {
    match t {
        ImageType::Png => 1,
        ImageType::Jpeg => 2,
        ImageType::Gif => 3,
        ImageType::Webp => 4,
        ImageType::Svg => 5,
    }
}

/// An optional (pointer, length) string: NULL is "absent".
fn optional_str<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<Option<&'a str>, ErrorObject> {
    if ptr.is_null() {
        Ok(None)
    } else {
        input_str(ptr, len, what).map(Some)
    }
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_icon_policy_new(policy_out: *mut *mut IconPolicyObject) -> Status {
    clear_ptr(policy_out);
    boundary(std::ptr::null_mut(), || {
        required(policy_out, "policy_out")?;
        give(policy_out, IconPolicyObject::default());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_icon_policy_free(policy: *mut IconPolicyObject) {
    crate::free_object(policy)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_icon_policy_set(policy: *mut IconPolicyObject, option: u32, on: bool) -> Status {
    boundary(std::ptr::null_mut(), || {
        let p = policy_mut(policy)?;
        let slot = match option {
            1 => &mut p.allow_http,
            2 => &mut p.allow_svg,
            3 => &mut p.allow_webp,
            4 => &mut p.allow_gif,
            other => {
                return Err(ErrorObject::call(
                    Status::InvalidArgument,
                    format!("{other} is not an mcpgen_icon_option value"),
                ))
            }
        };
        *slot = on;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_icon_policy_set_max_bytes(policy: *mut IconPolicyObject, max_bytes: usize) -> Status {
    boundary(std::ptr::null_mut(), || {
        policy_mut(policy)?.max_bytes = max_bytes;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_icon_policy_add_trusted_origin(
    policy: *mut IconPolicyObject,
    origin: *const c_char,
    origin_len: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let p = policy_mut(policy)?;
        let origin = input_str(origin, origin_len, "origin")?;
        p.trusted_origins.push(origin.to_owned());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_icon(
    policy: *const IconPolicyObject,
    src: *const c_char,
    src_len: usize,
    mime_type: *const c_char,
    mime_type_len: usize,
    image_out: *mut u32,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear(image_out, 0);
    boundary(error_out, || {
        let src = input_str(src, src_len, "src")?;
        let mime = optional_str(mime_type, mime_type_len, "mime_type")?;
        match crate::tools::policy(policy).check_icon(src, mime).map_err(ErrorObject::icon)? {
            IconSource::Data { image, .. } => put(image_out, image_code(image)),
            IconSource::Remote { .. } => put(image_out, 0),
        }
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_icon_bytes(
    policy: *const IconPolicyObject,
    bytes: *const u8,
    bytes_len: usize,
    mime_type: *const c_char,
    mime_type_len: usize,
    image_out: *mut u32,
    error_out: *mut *mut ErrorObject,
) -> Status {
    clear(image_out, 0);
    boundary(error_out, || {
        let bytes = input(bytes, bytes_len, "bytes")?;
        let mime = optional_str(mime_type, mime_type_len, "mime_type")?;
        let image = crate::tools::policy(policy).check_bytes(bytes, mime).map_err(ErrorObject::icon)?;
        put(image_out, image_code(image));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_check_icon_origin(
    policy: *const IconPolicyObject,
    src: *const c_char,
    src_len: usize,
    server: *const c_char,
    server_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let src = input_str(src, src_len, "src")?;
        let server = input_str(server, server_len, "server")?;
        crate::tools::policy(policy).check_origin(src, server).map_err(ErrorObject::icon)?;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_icon_same_origin(
    a: *const c_char,
    a_len: usize,
    b: *const c_char,
    b_len: usize,
    same_out: *mut bool,
) -> Status {
    clear(same_out, false);
    boundary(std::ptr::null_mut(), || {
        required(same_out, "same_out")?;
        let a = input_str(a, a_len, "a")?;
        let b = input_str(b, b_len, "b")?;
        put(same_out, icons::same_origin(a, b));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_image_sniff(bytes: *const u8, bytes_len: usize, image_out: *mut u32) -> Status {
    clear(image_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(image_out, "image_out")?;
        let bytes = input(bytes, bytes_len, "bytes")?;
        put(image_out, icons::sniff(bytes).map_or(0, image_code));
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_image_mime(image: u32, mime_out: *mut McpgenStr) -> Status {
    clear(mime_out, McpgenStr::NULL);
    boundary(std::ptr::null_mut(), || {
        required(mime_out, "mime_out")?;
        let mime = match image {
            1 => "image/png\0",
            2 => "image/jpeg\0",
            3 => "image/gif\0",
            4 => "image/webp\0",
            5 => "image/svg+xml\0",
            other => {
                return Err(ErrorObject::call(
                    Status::InvalidArgument,
                    format!("{other} is not an image mcpgen_image_type value"),
                ))
            }
        };
        put(mime_out, McpgenStr::from_static_nul(mime));
        Ok(Status::Ok)
    })
}
