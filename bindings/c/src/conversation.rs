//! `mcpgen_conversation`: one MCP session, fed its messages in order (`mcpgen::conversation`).

use core_api::conversation::{Conversation, ConversationOptions, Finding, Sender};

use crate::context::{context, Context};
use crate::{boundary, clear, clear_ptr, give, input, object, put, required, revision_code, ErrorObject, Status};

/// `mcpgen_conversation`: the checker, plus a mark left by a call that did not finish (a
/// caught panic), after which the state is not trusted.
#[derive(Debug)]
pub struct ConversationObject {
    conversation: Conversation,
    broken: bool,
}

/// `mcpgen_sender` values.
const SENDER_CLIENT: u32 = 1;
const SENDER_SERVER: u32 = 2;

fn sender(value: u32) -> Result<Sender, ErrorObject> {
    match value {
        SENDER_CLIENT => Ok(Sender::Client),
        SENDER_SERVER => Ok(Sender::Server),
        other => Err(ErrorObject::call(
            Status::InvalidArgument,
            format!("{other} is not an mcpgen_sender value (MCPGEN_SENDER_CLIENT = 1, MCPGEN_SENDER_SERVER = 2)"),
        )),
    }
}

/// The status of a message's findings: `MCPGEN_OK` without error-level findings, else
/// `MCPGEN_INVALID` when one of them is a schema violation, else `MCPGEN_PROTOCOL_VIOLATION`.
fn verdict(findings: &[Finding]) -> Status {
    let mut errors = findings.iter().filter(|f| f.is_error()).peekable();
    if errors.peek().is_none() {
        Status::Ok
    } else if errors.any(|f| f.rule.is_none()) {
        Status::Invalid
    } else {
        Status::ProtocolViolation
    }
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_conversation_new(
    ctx: *const Context,
    conversation_out: *mut *mut ConversationObject,
) -> Status {
    clear_ptr(conversation_out);
    boundary(std::ptr::null_mut(), || {
        required(conversation_out, "conversation_out")?;
        let ctx = context(ctx);
        let options = ConversationOptions::default()
            .validation(ctx.opts)
            .extension_result_types(ctx.extension_result_types.clone())
            .tools_baseline(ctx.tools.baseline.clone())
            .max_tools(ctx.tools.max_tools)
            .max_tool_schema_bytes(ctx.tools.max_tool_schema_bytes);
        give(conversation_out, ConversationObject { conversation: Conversation::with_options(options), broken: false });
        Ok(Status::Ok)
    })
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_conversation_free(conversation: *mut ConversationObject) {
    crate::free_object(conversation)
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_conversation_observe(
    conversation: *mut ConversationObject,
    sender_value: u32,
    json: *const u8,
    json_len: usize,
    findings_out: *mut *mut ErrorObject,
) -> Status {
    // Call errors (and a caught panic) come back through `boundary` as usual; findings are
    // handed out after it, because they come with `MCPGEN_OK` too (warnings only).
    let mut found = None;
    let status = boundary(findings_out, || {
        required(conversation, "conversation")?;
        // SAFETY: non-NULL and, per the contract, a live conversation no other thread uses.
        let c = unsafe { &mut *conversation };
        let from = sender(sender_value)?;
        let json = input(json, json_len, "json")?;
        if c.broken {
            return Err(ErrorObject::call(
                Status::Internal,
                "this conversation stopped at an internal error; start a new one".into(),
            ));
        }
        c.broken = true;
        let findings = c.conversation.observe(from, json);
        c.broken = false;
        let status = verdict(&findings);
        if !findings.is_empty() && !findings_out.is_null() {
            found = Some(ErrorObject::findings(status, findings));
        }
        Ok(status)
    });
    if let Some(e) = found {
        give(findings_out, e);
    }
    status
}

#[no_mangle]
pub unsafe extern "C" fn mcpgen_conversation_revision(
    conversation: *const ConversationObject,
    revision_out: *mut u32,
) -> Status {
    clear(revision_out, 0);
    boundary(std::ptr::null_mut(), || {
        required(revision_out, "revision_out")?;
        let c = object(conversation, "conversation")?;
        put(revision_out, c.conversation.revision().map_or(0, revision_code));
        Ok(Status::Ok)
    })
}
