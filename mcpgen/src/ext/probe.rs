//! A test extension in the registry of unit tests (`ext::Tail`): it records every hook the core
//! calls and judges nothing, so the tests below prove the hook is the only way an extension is
//! reached — every call point reaches it when negotiated, none when not.
//!
//! It is negotiated where a client declares `test.mcpgen/probe` in its capabilities, or, for the
//! caller-negotiated lists (`ServerConfig::extensions`, `MessageOptions::negotiated`,
//! `ResultOptions::negotiated`: lists of pinned extensions, which it is not), when the test
//! sets [`NAMED`]. It adds the request `probe/ping` and the `resultType` `probe`.

use std::cell::{Cell, RefCell};

use crate::conversation::ext_api::{ConversationHooks, ConversationOptions, Facts, Finding, IdKey};
use crate::decode::{DecodeError, DecodedResult};
use crate::json::{JsonView, Kind, Value};
use crate::methods::{Direction, MethodInfo, MethodKind};
use crate::protocol::hook::ProtocolHooks;
use crate::protocol::{AcceptedRequest, ProtocolError};
use crate::validate::{Options, Policy, ValidationError};
use crate::Revision;

use super::{Answering, Extension, ExtensionHooks, Negotiated};

thread_local! {
    /// The hooks called on this thread, in order.
    static CALLS: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    /// Whether a caller's negotiated list counts as naming the probe.
    pub(super) static NAMED: Cell<bool> = const { Cell::new(false) };
}

const ID: &str = "test.mcpgen/probe";

static ROW: MethodInfo = MethodInfo {
    method: "probe/ping",
    kind: MethodKind::Request,
    direction: Direction::ClientToServer,
    request_def: "JSONRPCRequest",
    params_type: None,
    params_required: false,
    result_defs: &["Result"],
    input_required: false,
    task_result: None,
};

fn record(call: &'static str) {
    CALLS.with(|c| c.borrow_mut().push(call));
}

/// The hooks called since the last `take`.
fn take() -> Vec<&'static str> {
    CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

pub(crate) struct Probe;

impl ExtensionHooks for Probe {
    const BIT: u8 = 7;
    const LAYERS_ON: &'static str = "2026-07-28";
    const RESULT_TYPES: &'static [&'static str] = &["probe"];

    fn named(_: &[Extension]) -> bool {
        NAMED.with(Cell::get)
    }
    fn declares<'v, V: JsonView<'v>>(capabilities: &V) -> bool {
        capabilities.get("extensions").and_then(|e| e.get(ID)).is_some_and(|x| x.kind() == Kind::Object)
    }
}

impl ProtocolHooks for Probe {
    fn gate<'v, V: JsonView<'v>>(
        _: Revision,
        _: &str,
        _: &V,
        _: &Value,
    ) -> Option<Result<AcceptedRequest, ProtocolError>> {
        record("gate");
        None
    }
    fn method_row(_: Revision, method: &str) -> Option<&'static MethodInfo> {
        record("method_row");
        (method == ROW.method).then_some(&ROW)
    }
    fn validate_message<'v, V: JsonView<'v>>(
        info: &MethodInfo,
        _: &V,
        _: Option<&V>,
        _: Options,
        _: &mut Vec<ValidationError>,
    ) -> bool {
        record("validate_message");
        std::ptr::eq(info, &ROW)
    }
    fn result_type<'v, V: JsonView<'v>>(
        _: Revision,
        rt: &V,
        _: &V,
        _: bool,
        _: Options,
        _: &mut Vec<ValidationError>,
    ) -> bool {
        record("result_type");
        rt.str_eq("probe")
    }
    fn decode_result<'v, V: JsonView<'v>>(
        _: Revision,
        _: &Answering<'_>,
        _: &V,
        _: Policy,
    ) -> Option<Result<DecodedResult, DecodeError>> {
        record("decode_result");
        None
    }
}

impl ConversationHooks for Probe {
    type Session = ();
    type Pending = ();

    fn new_session(_: &ConversationOptions) {}
    fn on_request<'v, V: JsonView<'v>>(_: &Facts<'v, V>, _: &str, _: &(), _: &mut Vec<Finding>) {
        record("on_request");
    }
    fn on_notification<'v, V: JsonView<'v>>(
        _: &Facts<'v, V>,
        _: &ConversationOptions,
        _: &mut (),
        _: &mut Vec<Finding>,
    ) {
        record("on_notification");
    }
    fn on_result<'v, V: JsonView<'v>>(
        _: &ConversationOptions,
        _: &'static MethodInfo,
        _: (Revision, Negotiated),
        _: &(),
        _: &IdKey,
        _: &V,
        _: &mut (),
        _: &mut Vec<Finding>,
    ) -> Option<bool> {
        record("on_result");
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{take, NAMED};
    use crate::conversation::{Conversation, Sender};
    use crate::protocol::{check_request, check_response, validate_message, ServerConfig};
    use crate::{MessageOptions, ResultOptions, Revision};

    /// A modern request's `_meta`, declaring the probe or not.
    fn meta(declared: bool) -> String {
        let caps = if declared { r#"{"extensions":{"test.mcpgen/probe":{}}}"# } else { "{}" };
        format!(
            r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}"#
        )
    }

    /// Every call point of the core, in one run: the request gate (`check_request`), message
    /// classification (`validate_message` of the probe's request and of its `resultType`),
    /// result judgement (`check_response`) and the conversation step (a request, a
    /// notification, a result). Returns the hooks called, per call point.
    fn run(negotiated: bool) -> Vec<(&'static str, Vec<&'static str>)> {
        NAMED.with(|n| n.set(negotiated));
        take();
        let rev = Revision::parse("2026-07-28").unwrap();
        let mut seen = Vec::new();
        let list = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{}}}}}"#, meta(negotiated));
        let _ = check_request(list.as_bytes(), &ServerConfig::new(["2026-07-28"]));
        seen.push(("gate", take()));
        let ping = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"probe/ping","params":{{{}}}}}"#, meta(false));
        let _ = validate_message(rev, ping.as_bytes(), &MessageOptions::new());
        seen.push(("classify request", take()));
        let typed = br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"probe"}}"#;
        let _ = validate_message(rev, typed, &MessageOptions::new());
        seen.push(("classify result", take()));
        let plain = br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[]}}"#;
        let _ = check_response(rev, plain, &ResultOptions::method("tools/list"));
        seen.push(("judge result", take()));
        let mut c = Conversation::new();
        let ping = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"probe/ping","params":{{{}}}}}"#, meta(negotiated));
        c.observe(Sender::Client, ping.as_bytes());
        seen.push(("conversation request", take()));
        c.observe(
            Sender::Server,
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
        );
        seen.push(("conversation notification", take()));
        c.observe(Sender::Server, br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete"}}"#);
        seen.push(("conversation result", take()));
        NAMED.with(|n| n.set(false));
        seen
    }

    /// Negotiated: every call point reaches the probe's hook.
    #[test]
    fn a_negotiated_extension_sees_every_call_point() {
        let expected: Vec<(&str, Vec<&str>)> = vec![
            ("gate", vec!["gate"]),
            ("classify request", vec!["method_row", "validate_message"]),
            ("classify result", vec!["result_type"]),
            ("judge result", vec!["decode_result"]),
            ("conversation request", vec!["method_row", "validate_message", "on_request"]),
            // A message of a core row: classification asks whether the row is the probe's.
            ("conversation notification", vec!["validate_message", "on_notification"]),
            ("conversation result", vec!["on_result"]),
        ];
        assert_eq!(run(true), expected);
    }

    /// Not negotiated: none does.
    #[test]
    fn an_extension_not_negotiated_sees_no_call_point() {
        let expected: Vec<(&str, Vec<&str>)> = vec![
            ("gate", vec![]),
            ("classify request", vec![]),
            ("classify result", vec![]),
            ("judge result", vec![]),
            ("conversation request", vec![]),
            ("conversation notification", vec![]),
            ("conversation result", vec![]),
        ];
        assert_eq!(run(false), expected);
    }

    /// Not negotiated, a result of the extension's own `resultType` still reaches its result
    /// judgement (it is the extension's rule that such a result answers only a request that
    /// declared it, as TASK-1 is for Tasks), and nothing else.
    #[test]
    fn a_result_of_its_type_reaches_its_judgement_only() {
        let rev = Revision::parse("2026-07-28").unwrap();
        take();
        let typed = br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"probe"}}"#;
        let _ = check_response(rev, typed, &ResultOptions::method("tools/list"));
        assert_eq!(take(), vec!["decode_result"]);
        let _ = validate_message(rev, typed, &MessageOptions::new());
        assert_eq!(take(), Vec::<&str>::new());
    }
}
