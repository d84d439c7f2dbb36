//! `mcpgen_context`: the core's per-call options and server settings, shared read-only.

use std::sync::Arc;

use core_api::conversation::ConversationOptions;
use core_api::protocol::ServerConfig;
use core_api::tools::{PinLimits, ToolsBaseline};
use core_api::{Options, Policy};

use crate::{boundary, clear_ptr, extension, give, input, input_str, required, ErrorObject, McpgenStr, Status};

/// `mcpgen_context`. Immutable while shared: the setters take `*mut`, every other call
/// `*const`, so C's type system carries the "configure, then share" rule.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub opts: Options,
    /// The server settings: supported versions, and the extensions this side negotiates
    /// (`mcpgen_context_set_extensions`: served by `check_request`, judged by `validate_message`).
    pub server: ServerConfig,
    /// Extra `resultType` values the client negotiated through extensions (`check_response`).
    pub extension_result_types: Vec<String>,
    /// What a conversation made from this context does with listed tools.
    pub tools: ConversationTools,
}

/// The tool options of the conversations a context makes (`mcpgen_context_set_tools_baseline`,
/// `mcpgen_context_set_max_tools`, `mcpgen_context_set_max_tool_schema_bytes`); the defaults
/// are [`ConversationOptions::default`]'s.
#[derive(Debug, Clone)]
pub struct ConversationTools {
    /// The user's pin (TOOL-12), shared by every conversation made from the context.
    pub baseline: Option<Arc<ToolsBaseline>>,
    pub max_tools: usize,
    pub max_tool_schema_bytes: usize,
}

impl Default for ConversationTools {
    fn default() -> Self {
        let defaults = ConversationOptions::default();
        ConversationTools {
            baseline: defaults.tools_baseline,
            max_tools: defaults.max_tools,
            max_tool_schema_bytes: defaults.max_tool_schema_bytes,
        }
    }
}

static DEFAULT: std::sync::OnceLock<Context> = std::sync::OnceLock::new();

/// The context behind a possibly NULL pointer (NULL: the defaults).
pub(crate) fn context<'a>(ctx: *const Context) -> &'a Context {
    if ctx.is_null() {
        DEFAULT.get_or_init(Context::default)
    } else {
        // SAFETY: a live context from `mcpgen_context_new`, per the contract.
        unsafe { &*ctx }
    }
}

fn context_mut<'a>(ctx: *mut Context) -> Result<&'a mut Context, ErrorObject> {
    required(ctx, "ctx")?;
    // SAFETY: non-NULL, a live context, and (per the contract) not used by another thread now.
    Ok(unsafe { &mut *ctx })
}

/// `mcpgen_policy` → [`Policy`].
pub(crate) fn policy(value: u32) -> Result<Policy, ErrorObject> {
    match value {
        0 => Ok(Policy::Lossless),
        1 => Ok(Policy::Lenient),
        2 => Ok(Policy::Strict),
        other => Err(ErrorObject::call(Status::InvalidArgument, format!("{other} is not an mcpgen_policy value"))),
    }
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_new(ctx_out: *mut *mut Context) -> Status {
    clear_ptr(ctx_out);
    boundary(std::ptr::null_mut(), || {
        required(ctx_out, "ctx_out")?;
        give(ctx_out, Context::default());
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_free(ctx: *mut Context) {
    crate::free_object(ctx)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_policy(ctx: *mut Context, value: u32) -> Status {
    boundary(std::ptr::null_mut(), || {
        let ctx = context_mut(ctx)?;
        ctx.opts.policy = policy(value)?;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_strict_formats(ctx: *mut Context, on: bool) -> Status {
    boundary(std::ptr::null_mut(), || {
        context_mut(ctx)?.opts.strict_formats = on;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_client_leniency(ctx: *mut Context, on: bool) -> Status {
    boundary(std::ptr::null_mut(), || {
        context_mut(ctx)?.opts.client_leniency = on;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_discriminate_results(ctx: *mut Context, on: bool) -> Status {
    boundary(std::ptr::null_mut(), || {
        context_mut(ctx)?.opts.discriminate_results = on;
        Ok(Status::Ok)
    })
}

/// Copies a C array of strings; any bad entry fails the whole call (nothing half-set).
pub(crate) fn string_list(items: *const McpgenStr, count: usize, what: &str) -> Result<Vec<String>, ErrorObject> {
    let list: &[McpgenStr] = if count == 0 {
        &[]
    } else {
        required(items, what)?;
        // SAFETY: `count` readable elements at a non-NULL pointer, per the contract.
        unsafe { std::slice::from_raw_parts(items, count) }
    };
    list.iter().enumerate().map(|(i, v)| Ok(input_str(v.ptr, v.len, &format!("{what}[{i}]"))?.to_owned())).collect()
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_supported_versions(
    ctx: *mut Context,
    versions: *const McpgenStr,
    count: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let ctx = context_mut(ctx)?;
        let versions = string_list(versions, count, "versions")?;
        let extensions = std::mem::take(&mut ctx.server.extensions);
        ctx.server = ServerConfig::new(versions).with_extensions(extensions);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_extension_result_types(
    ctx: *mut Context,
    result_types: *const McpgenStr,
    count: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let ctx = context_mut(ctx)?;
        ctx.extension_result_types = string_list(result_types, count, "result_types")?;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_extensions(
    ctx: *mut Context,
    extensions: *const u32,
    count: usize,
) -> Status {
    boundary(std::ptr::null_mut(), || {
        let ctx = context_mut(ctx)?;
        let codes: &[u32] = if count == 0 {
            &[]
        } else {
            required(extensions, "extensions")?;
            // SAFETY: `count` readable elements at a non-NULL pointer, per the contract.
            unsafe { std::slice::from_raw_parts(extensions, count) }
        };
        // Every code is resolved before anything changes: a bad one leaves the context as it was.
        let list = codes.iter().map(|&c| extension(c)).collect::<Result<Vec<_>, _>>()?;
        ctx.server.extensions.clear();
        ctx.server.extensions.extend(list);
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_tools_baseline(
    ctx: *mut Context,
    pin: *const u8,
    pin_len: usize,
    error_out: *mut *mut ErrorObject,
) -> Status {
    boundary(error_out, || {
        let ctx = context_mut(ctx)?;
        // NULL with length 0: no pin (as a tool call's absent `arguments`).
        let baseline = if pin.is_null() && pin_len == 0 {
            None
        } else {
            let bytes = input(pin, pin_len, "pin")?;
            // Read in full before anything changes: a refused file leaves the old pin in place.
            Some(Arc::new(ToolsBaseline::parse(bytes, &PinLimits::default()).map_err(ErrorObject::pin)?))
        };
        ctx.tools.baseline = baseline;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_max_tools(ctx: *mut Context, max_tools: usize) -> Status {
    boundary(std::ptr::null_mut(), || {
        context_mut(ctx)?.tools.max_tools = max_tools;
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_context_set_max_tool_schema_bytes(ctx: *mut Context, max_bytes: usize) -> Status {
    boundary(std::ptr::null_mut(), || {
        context_mut(ctx)?.tools.max_tool_schema_bytes = max_bytes;
        Ok(Status::Ok)
    })
}
