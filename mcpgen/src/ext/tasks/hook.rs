//! The Tasks extension behind the core's hook: each call point, to the module that judges it.

use crate::conversation::ext_api::{ConversationHooks, ConversationOptions, Facts, Finding, IdKey};
use crate::decode::{DecodeError, DecodedResult};
use crate::ext::{Answering, Extension, ExtensionHooks, Negotiated};
use crate::json::{JsonView, Value};
use crate::methods::MethodInfo;
use crate::protocol::hook::ProtocolHooks;
use crate::protocol::{AcceptedRequest, ProtocolError};
use crate::rules::id;
use crate::validate::{Options, Path, Policy, ValidationError};
use crate::Revision;

use super::{declares, extension, gate, negotiation, rules, session, table, STATUS_NOTIFICATION, TASK_RESULT_TYPE};

/// The Tasks extension's hooks.
pub(crate) struct Tasks;

impl Tasks {
    /// What the rules need of who a result answers.
    fn answering<'a>(req: &Answering<'a>) -> negotiation::Answering<'a> {
        negotiation::Answering { method: req.method, negotiated: req.negotiated.has(Self::BIT), task_of: req.work_of }
    }
}

impl ExtensionHooks for Tasks {
    const BIT: u8 = 0;
    const LAYERS_ON: &'static str = super::LAYERS_ON;
    const RESULT_TYPES: &'static [&'static str] = &[TASK_RESULT_TYPE];
    const NAME_HEADERS: &'static [(&'static str, &'static str, &'static str)] = &[
        ("tasks/get", "taskId", id::TASK_28),
        ("tasks/update", "taskId", id::TASK_28),
        ("tasks/cancel", "taskId", id::TASK_28),
    ];

    fn named(extensions: &[Extension]) -> bool {
        extension().is_some_and(|t| extensions.contains(&t))
    }

    #[inline]
    fn declares<'v, V: JsonView<'v>>(capabilities: &V) -> bool {
        declares(capabilities)
    }
}

impl ProtocolHooks for Tasks {
    fn gate<'v, V: JsonView<'v>>(
        rev: Revision,
        method: &str,
        v: &V,
        id: &Value,
    ) -> Option<Result<AcceptedRequest, ProtocolError>> {
        gate::gate(rev, method, v, id)
    }

    fn method_row(rev: Revision, method: &str) -> Option<&'static MethodInfo> {
        rules::row(rev, method)
    }

    fn validate_message<'v, V: JsonView<'v>>(
        info: &MethodInfo,
        v: &V,
        params: Option<&V>,
        opts: Options,
        errors: &mut Vec<ValidationError>,
    ) -> bool {
        if !rules::is_row(info) {
            return false;
        }
        rules::validate_message_of_row(info, v, params, opts, errors);
        true
    }

    fn result_type<'v, V: JsonView<'v>>(
        rev: Revision,
        rt: &V,
        result: &V,
        by_request: bool,
        opts: Options,
        errors: &mut Vec<ValidationError>,
    ) -> bool {
        let Some(ext) = extension().filter(|e| e.layers_on() == rev && rt.str_eq(TASK_RESULT_TYPE)) else {
            return false;
        };
        // The method is unknown here: a task handle is judged by its own shape, unless the
        // caller judges it by its request.
        if !by_request {
            let root = Path::Root;
            rules::validate_ext_at(ext, "CreateTaskResult", result, &root.key("result"), opts, errors);
        }
        true
    }

    fn decode_result<'v, V: JsonView<'v>>(
        rev: Revision,
        req: &Answering<'_>,
        result: &V,
        policy: Policy,
    ) -> Option<Result<DecodedResult, DecodeError>> {
        rules::decode_result_view(rev, &Self::answering(req), result, policy)
    }
}

impl ConversationHooks for Tasks {
    type Session = table::TaskTable;
    type Pending = Option<Box<table::TaskRequest>>;

    fn new_session(opts: &ConversationOptions) -> table::TaskTable {
        table::TaskTable::new(opts.max_tasks, opts.max_entry_bytes)
    }

    fn on_request<'v, V: JsonView<'v>>(
        f: &Facts<'v, V>,
        method: &str,
        s: &table::TaskTable,
        out: &mut Vec<Finding>,
    ) -> Self::Pending {
        session::request(f, method, s, out)
    }

    fn on_notification<'v, V: JsonView<'v>>(
        f: &Facts<'v, V>,
        opts: &ConversationOptions,
        s: &mut table::TaskTable,
        out: &mut Vec<Finding>,
    ) {
        match f.method.as_deref() {
            Some("notifications/cancelled") => session::cancelled(f, s, out),
            Some(STATUS_NOTIFICATION) if f.info.is_some_and(rules::is_row) => session::notification(f, opts, s, out),
            _ => {}
        }
    }

    fn on_result<'v, V: JsonView<'v>>(
        opts: &ConversationOptions,
        info: &'static MethodInfo,
        (rev, declared): (Revision, Negotiated),
        mine: &Self::Pending,
        id: &IdKey,
        result: &V,
        s: &mut table::TaskTable,
        out: &mut Vec<Finding>,
    ) -> Option<bool> {
        let declared = declared.has(Self::BIT);
        let valid = session::check_result(s, opts, info, rev, declared, mine, result, out)?;
        if valid {
            session::answered(info, mine, id, result, s, out);
        }
        Some(valid)
    }

    #[cfg(test)]
    fn tracked(s: &table::TaskTable) -> usize {
        s.table.len()
    }
}
