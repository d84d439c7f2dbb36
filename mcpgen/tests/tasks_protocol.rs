//! The Tasks extension where single messages are judged: `check_request` (negotiation,
//! -32021), `validate_message`, `check_response` and `decode_result`
//! (`resultType: "task"`, `tasks/*` results by status).

use mcpgen::ext::Extension;
use mcpgen::protocol::{check_request, check_response, validate_message, CheckedResponse, ServerConfig};
use mcpgen::{decode_result, MessageOptions, Options, ResultOptions, Revision};

fn rev() -> Revision {
    Revision::parse("2026-07-28").expect("built with 2026-07-28")
}

fn tasks() -> Extension {
    Extension::from_id("io.modelcontextprotocol/tasks").expect("built with the tasks extension")
}

const DECLARING: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
const PLAIN: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn request(id: u32, method: &str, meta: &str, rest: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{meta}{rest}}}}}"#)
}

const TASK: &str =
    r#""taskId":"t1","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000"#;

fn result(id: u32, members: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{{members}}}}}"#)
}

fn rules_of(e: &mcpgen::protocol::ResponseError) -> Vec<&'static str> {
    e.errors.iter().filter_map(|e| e.rule).collect()
}

#[test]
fn check_request_serves_tasks_only_where_configured_and_declared() {
    let config = ServerConfig::new(["2026-07-28"]).with_extensions([tasks()]);
    for method in ["tasks/get", "tasks/cancel"] {
        let ok = check_request(request(1, method, DECLARING, r#","taskId":"t1""#).as_bytes(), &config).unwrap();
        assert_eq!((ok.method.as_str(), ok.extension), (method, Some(tasks())));
        let e = check_request(request(2, method, PLAIN, r#","taskId":"t1""#).as_bytes(), &config).unwrap_err();
        assert_eq!((e.code, e.http_status, e.rule), (-32021, 400, "TASK-24"), "{method}");
        let data = mcpgen::json::to_json_string(e.data.as_ref().unwrap());
        assert_eq!(data, r#"{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#);
        // Not served: an unknown method, declared or not.
        let e = check_request(
            request(3, method, DECLARING, r#","taskId":"t1""#).as_bytes(),
            &ServerConfig::new(["2026-07-28"]),
        )
        .unwrap_err();
        assert_eq!((e.code, e.rule), (-32601, "MSG-9"));
    }
    let update = request(
        4,
        "tasks/update",
        DECLARING,
        r#","taskId":"t1","inputResponses":{"name":{"action":"accept","content":{"n":"x"}}}"#,
    );
    assert!(check_request(update.as_bytes(), &config).is_ok());
    // Params are judged by the extension's definition.
    let e = check_request(request(5, "tasks/get", DECLARING, "").as_bytes(), &config).unwrap_err();
    assert_eq!((e.code, e.http_status), (-32602, 200));
    assert!(e.errors.iter().any(|x| x.pointer == "/params" && x.message.contains("taskId")), "{e:?}");
    // META-6 comes first: no `_meta`, no declaration to judge.
    let e = check_request(br#"{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":"t1"}}"#, &config)
        .unwrap_err();
    assert_eq!(e.rule, "META-6");
    // Task notifications on a listen stream need the declaration too (TASK-23).
    let listen = |meta| request(7, "subscriptions/listen", meta, r#","notifications":{"taskIds":["t1"]}"#);
    assert_eq!(check_request(listen(PLAIN).as_bytes(), &config).unwrap_err().rule, "TASK-23");
    assert!(check_request(listen(DECLARING).as_bytes(), &config).is_ok());
    // A server that does not serve tasks does not judge the filter.
    assert!(check_request(listen(PLAIN).as_bytes(), &ServerConfig::new(["2026-07-28"])).is_ok());
}

/// TASK-19: an `inputResponses` entry is judged against the request its key names, which only
/// the server holding the task knows: entries that fail the schema are set aside, not refused;
/// anything else wrong with the params still is.
#[test]
fn check_request_sets_aside_malformed_input_responses_of_tasks_update() {
    let config = ServerConfig::new(["2026-07-28"]).with_extensions([tasks()]);
    let update = |responses: &str| {
        let rest = format!(r#","taskId":"t1","inputResponses":{responses}"#);
        request(8, "tasks/update", DECLARING, &rest)
    };
    let body = update(r#"{"unknown-key":{"ignored":true},"name":{"action":"accept","content":{"n":"x"}}}"#);
    let ok = check_request(body.as_bytes(), &config).unwrap();
    assert_eq!(ok.set_aside_input_responses, ["unknown-key"]);
    let body = update(r#"{"name":{"action":"accept"}}"#);
    assert!(check_request(body.as_bytes(), &config).unwrap().set_aside_input_responses.is_empty());
    let e = check_request(update("[]").as_bytes(), &config).unwrap_err();
    assert_eq!((e.code, e.http_status), (-32602, 200));
    let e = check_request(request(9, "tasks/update", DECLARING, r#","inputResponses":{"k":1}"#).as_bytes(), &config)
        .unwrap_err();
    assert_eq!(e.code, -32602, "a missing taskId is still refused");
}

#[test]
fn validate_message_knows_tasks_only_where_negotiated() {
    let opts = Options::default();
    let get = request(1, "tasks/get", DECLARING, r#","taskId":"t1""#);
    assert!(validate_message(rev(), get.as_bytes(), &MessageOptions::from(opts)).is_ok());
    let undeclared = request(1, "tasks/get", PLAIN, r#","taskId":"t1""#);
    let e = validate_message(rev(), undeclared.as_bytes(), &MessageOptions::from(opts)).unwrap_err();
    assert!(e.errors().iter().any(|e| e.rule == Some("MSG-9")), "{e}");
    assert!(validate_message(rev(), undeclared.as_bytes(), &MessageOptions::from(opts).negotiated(&[tasks()])).is_ok());
    let bad = request(1, "tasks/get", DECLARING, r#","taskId":5"#);
    let e = validate_message(rev(), bad.as_bytes(), &MessageOptions::from(opts)).unwrap_err();
    assert!(e.errors().iter().any(|e| e.pointer == "/params/taskId"), "{e}");

    let note = |status: &str, extra: &str| {
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{{TASK},"status":"{status}"{extra}}}}}"#)
    };
    assert!(validate_message(rev(), note("working", "").as_bytes(), &MessageOptions::from(opts)).is_err());
    assert!(validate_message(
        rev(),
        note("working", "").as_bytes(),
        &MessageOptions::from(opts).negotiated(&[tasks()])
    )
    .is_ok());
    for (status, rule) in [("input_required", "TASK-11"), ("completed", "TASK-13"), ("failed", "TASK-14")] {
        let e =
            validate_message(rev(), note(status, "").as_bytes(), &MessageOptions::from(opts).negotiated(&[tasks()]))
                .unwrap_err();
        assert!(e.errors().iter().any(|e| e.rule == Some(rule) && e.pointer == "/params"), "{status}: {e}");
    }
    let failed = note("failed", r#","error":{"code":-32603,"message":"boom"}"#);
    assert!(validate_message(rev(), failed.as_bytes(), &MessageOptions::from(opts).negotiated(&[tasks()])).is_ok());

    let handle = result(2, &format!(r#""resultType":"task","status":"working",{TASK}"#));
    assert!(validate_message(rev(), handle.as_bytes(), &MessageOptions::from(opts).negotiated(&[tasks()])).is_ok());
    let broken = result(2, r#""resultType":"task","status":"working""#);
    assert!(validate_message(rev(), broken.as_bytes(), &MessageOptions::from(opts).negotiated(&[tasks()])).is_err());
    // Not negotiated: an extension's `resultType` is reported in strict mode only (RESULT-3).
    assert!(validate_message(rev(), broken.as_bytes(), &MessageOptions::from(opts)).is_ok());
}

#[test]
fn a_task_handle_answers_only_a_declaring_supported_request() {
    let handle = result(1, &format!(r#""resultType":"task","status":"working",{TASK}"#));
    let negotiated = [tasks()];
    let call = ResultOptions::method("tools/call").negotiated(&negotiated);
    match check_response(rev(), handle.as_bytes(), &call).unwrap() {
        CheckedResponse::Result { result, .. } => {
            assert_eq!(result.variant, "CreateTaskResult");
            assert!(result.downcast_ref::<mcpgen::ext::tasks::CreateTaskResult>().is_some());
        }
        other => panic!("{other:?}"),
    }
    // `task` among the extension `resultType`s is the same declaration.
    assert!(
        check_response(rev(), handle.as_bytes(), &ResultOptions::method("tools/call").extensions(&["task"])).is_ok()
    );
    let e = check_response(rev(), handle.as_bytes(), &ResultOptions::method("tools/call")).unwrap_err();
    assert_eq!(e.rule, Some("TASK-1"));
    let e = check_response(rev(), handle.as_bytes(), &ResultOptions::method("prompts/get").negotiated(&negotiated))
        .unwrap_err();
    assert_eq!((e.rule, e.errors[0].pointer.as_str()), (Some("TASK-3"), "/result/resultType"));
    let e = check_response(rev(), handle.as_bytes(), &ResultOptions::method("tasks/get").negotiated(&negotiated))
        .unwrap_err();
    assert!(rules_of(&e).contains(&"TASK-6"), "{e:?}");
    let bad = result(1, r#""resultType":"task","taskId":"t1","status":"working""#);
    let e = check_response(rev(), bad.as_bytes(), &call).unwrap_err();
    assert!(e.errors.iter().any(|x| x.keyword == "required"), "{e:?}");
    // A plain result still answers a declaring request.
    let plain = result(1, r#""resultType":"complete","content":[]"#);
    assert!(check_response(rev(), plain.as_bytes(), &call).is_ok());
}

#[test]
fn task_results_are_judged_by_status() {
    let negotiated = [tasks()];
    let get = ResultOptions::method("tasks/get").negotiated(&negotiated);
    let check = |members: &str, opts: &ResultOptions<'_>| check_response(rev(), result(3, members).as_bytes(), opts);
    let working = format!(r#""resultType":"complete","status":"working",{TASK}"#);
    match check(&working, &get).unwrap() {
        CheckedResponse::Result { result, .. } => assert_eq!(result.variant, "GetTaskResult"),
        other => panic!("{other:?}"),
    }
    // Not declared: `tasks/get` is not a method of the revision.
    assert_eq!(check(&working, &ResultOptions::method("tasks/get")).unwrap_err().rule, Some("MSG-9"));
    // tasks.md's own error examples answer `tasks/get` with `resultType: "task"`.
    let e = check(&format!(r#""resultType":"task","status":"working",{TASK}"#), &get).unwrap_err();
    assert!(rules_of(&e).contains(&"TASK-6"), "{e:?}");
    let e = check(&format!(r#""resultType":"other","status":"working",{TASK}"#), &get).unwrap_err();
    assert!(rules_of(&e).contains(&"TASK-15"), "{e:?}");
    for (status, rule) in [("input_required", "TASK-11"), ("completed", "TASK-13"), ("failed", "TASK-14")] {
        let e = check(&format!(r#""resultType":"complete","status":"{status}",{TASK}"#), &get).unwrap_err();
        assert_eq!(e.rule, Some(rule), "{status}: {e:?}");
    }
    let e = check(&format!(r#""resultType":"complete","status":"failed","error":{{"message":5}},{TASK}"#), &get)
        .unwrap_err();
    assert!(
        e.errors.iter().all(|x| x.rule == Some("TASK-14"))
            && e.errors.iter().any(|x| x.pointer.starts_with("/result/error")),
        "{e:?}"
    );
    // A completed task's `result` is judged as the original request's result when known.
    let completed = |inner: &str| format!(r#""resultType":"complete","status":"completed","result":{inner},{TASK}"#);
    let of_call = get.task_of("tools/call");
    assert!(check(&completed(r#"{"content":[{"type":"text","text":"hi"}],"isError":false}"#), &of_call).is_ok());
    let e = check(&completed(r#"{"content":5}"#), &of_call).unwrap_err();
    assert!(e.errors.iter().any(|x| x.pointer == "/result/result/content" && x.rule == Some("TASK-13")), "{e:?}");
    assert!(check(&completed(r#"{"content":5}"#), &get).is_ok(), "without task_of the result is any object");
    let e = check(&completed(r#"{"resultType":"task","content":[]}"#), &of_call).unwrap_err();
    assert_eq!(e.rule, Some("TASK-13"));
    // Acknowledgements are empty and `complete`.
    for (method, rule) in [("tasks/update", "TASK-20"), ("tasks/cancel", "TASK-21")] {
        let opts = ResultOptions::method(method).negotiated(&negotiated);
        assert!(check(r#""resultType":"complete""#, &opts).is_ok(), "{method}");
        assert_eq!(check(r#""resultType":"complete","taskId":"t1""#, &opts).unwrap_err().rule, Some(rule));
        assert_eq!(check(r#""resultType":"input_required""#, &opts).unwrap_err().rule, Some(rule));
    }
    // decode_result gives the same verdicts and the extension's types.
    let d = decode_result(rev(), format!("{{{working}}}").as_str(), &get).unwrap();
    assert!(d.downcast_ref::<mcpgen::ext::tasks::GetTaskResult>().is_some());
    let e = decode_result(rev(), format!("{{{}}}", completed(r#"{"content":5}"#)).as_str(), &of_call).unwrap_err();
    assert!(e.errors().iter().any(|x| x.rule == Some("TASK-13")), "{e}");
}
