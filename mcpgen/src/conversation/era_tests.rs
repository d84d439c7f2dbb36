//! One test per transition of the era state machine.

use super::*;
use serde_json::Value;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn rev(s: &str) -> Revision {
    Revision::parse(s).expect("revision in the build")
}

fn asked(rev: Revision, versioned: bool, initialize: bool) -> Answered {
    Answered { client: true, initialize, versioned, rev }
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("a test value that parses")
}

/// Sends a client request (`versioned`: naming `r` in `_meta`); returns the transition
/// findings' rule ids.
fn send(e: &mut EraState, r: &str, versioned: bool, initialize: bool) -> Vec<&'static str> {
    let asked = Asked {
        request: true,
        initialize,
        initialize_version: initialize.then(|| rev(r)),
        meta_version: versioned.then(|| Some(rev(r))),
        answering: None,
    };
    let mut out = Vec::new();
    e.on_request(rev(r), &asked, &mut out);
    out.iter().filter_map(|f| f.rule).collect()
}

fn answer(e: &mut EraState, r: &str, versioned: bool, initialize: bool, result: Option<&str>, error: Option<&str>) {
    let (result, error) = (result.map(json), error.map(json));
    e.on_answer(asked(rev(r), versioned, initialize), result.as_ref().as_ref(), error.as_ref().as_ref());
}

fn legacy_result() -> Option<&'static str> {
    Some(r#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#)
}

#[test]
fn unknown_to_probing_on_a_versioned_request() {
    let mut e = EraState::new();
    assert_eq!(e.state(), State::Unknown);
    assert!(send(&mut e, MODERN, true, false).is_empty());
    assert_eq!(e.state(), State::Probing);
    assert_eq!(e.era(), Era::Unknown);
}

#[test]
fn probing_to_modern_when_answered() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(&mut e, MODERN, true, false, Some(r#"{"resultType":"complete"}"#), None);
    assert_eq!(e.state(), State::Modern(rev(MODERN)));
    assert_eq!(e.revision(), Some(rev(MODERN)));
}

#[test]
fn an_unversioned_request_moves_nothing() {
    let mut e = EraState::new();
    send(&mut e, MODERN, false, false);
    answer(&mut e, MODERN, false, false, Some("{}"), None);
    assert_eq!(e.state(), State::Unknown);
}

#[test]
fn probing_to_refused_on_any_other_error() {
    for code in ["-32601", "-32602", "-32000", "-32600"] {
        let mut e = EraState::new();
        send(&mut e, MODERN, true, false);
        answer(&mut e, MODERN, true, false, None, Some(&format!(r#"{{"code":{code},"message":"no"}}"#)));
        assert_eq!(e.state(), State::Refused, "code {code}");
    }
}

#[test]
fn refused_then_initialize_then_legacy_at_the_negotiated_revision() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(&mut e, MODERN, true, false, None, Some(r#"{"code":-32601,"message":"Method not found"}"#));
    assert!(send(&mut e, LEGACY, false, true).is_empty());
    assert_eq!(e.state(), State::Initializing { before: Before::Unknown });
    assert_eq!(e.era(), Era::Legacy);
    answer(&mut e, LEGACY, false, true, legacy_result(), None);
    assert_eq!(e.state(), State::Legacy);
    assert_eq!(e.revision(), Some(rev("2025-06-18")));
}

#[test]
fn a_probe_never_answered_then_initialize_is_legacy() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    assert!(send(&mut e, LEGACY, false, true).is_empty());
    assert_eq!(e.era(), Era::Legacy);
    // The late refusal of the probe moves nothing.
    answer(&mut e, MODERN, true, false, None, Some(r#"{"code":-32601,"message":"late"}"#));
    assert_eq!(e.state(), State::Initializing { before: Before::Unknown });
}

#[test]
fn a_legacy_client_initializes_straight_away() {
    let mut e = EraState::new();
    assert!(send(&mut e, LEGACY, false, true).is_empty());
    answer(&mut e, LEGACY, false, true, legacy_result(), None);
    assert_eq!(e.state(), State::Legacy);
}

#[test]
fn unsupported_version_to_retrying_and_a_listed_retry_stays_modern() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    let err = r#"{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"],"requested":"2099-01-01"}}"#;
    answer(&mut e, MODERN, true, false, None, Some(err));
    assert!(matches!(e.state(), State::Retrying(_)));
    assert_eq!(e.era(), Era::Modern);
    assert!(send(&mut e, MODERN, true, false).is_empty());
    answer(&mut e, MODERN, true, false, Some("{}"), None);
    assert_eq!(e.state(), State::Modern(rev(MODERN)));
}

#[test]
fn a_retry_at_an_unlisted_version_is_era_12() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    let err = r#"{"code":-32022,"message":"unsupported","data":{"supported":["2099-01-01"],"requested":"2026-07-28"}}"#;
    answer(&mut e, MODERN, true, false, None, Some(err));
    assert_eq!(send(&mut e, MODERN, true, false), vec![id::ERA_12]);
    assert_eq!(e.state(), State::Probing);
}

#[test]
fn initialize_after_a_modern_answer_is_era_11_and_a_refusal_returns_to_modern() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(&mut e, MODERN, true, false, Some("{}"), None);
    assert_eq!(send(&mut e, LEGACY, false, true), vec![id::ERA_11]);
    assert_eq!(e.state(), State::Initializing { before: Before::Modern(rev(MODERN)) });
    answer(
        &mut e,
        LEGACY,
        false,
        true,
        None,
        Some(r#"{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}"#),
    );
    assert_eq!(e.state(), State::Modern(rev(MODERN)));
}

#[test]
fn initialize_after_unsupported_version_naming_a_modern_one_is_era_11() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(
        &mut e,
        MODERN,
        true,
        false,
        None,
        Some(r#"{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}"#),
    );
    assert_eq!(send(&mut e, LEGACY, false, true), vec![id::ERA_11]);
    // Naming only legacy versions, the fallback is right.
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(
        &mut e,
        MODERN,
        true,
        false,
        None,
        Some(r#"{"code":-32022,"message":"no","data":{"supported":["2025-11-25"]}}"#),
    );
    assert!(send(&mut e, LEGACY, false, true).is_empty());
}

#[test]
fn a_refused_initialize_without_a_modern_past_returns_to_unknown() {
    let mut e = EraState::new();
    send(&mut e, LEGACY, false, true);
    answer(
        &mut e,
        LEGACY,
        false,
        true,
        None,
        Some(r#"{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}"#),
    );
    assert_eq!(e.state(), State::Unknown);
    assert_eq!(e.revision(), None);
}

#[test]
fn other_recognized_modern_errors_make_the_connection_modern() {
    for code in ["-32020", "-32021"] {
        let mut e = EraState::new();
        send(&mut e, MODERN, true, false);
        answer(&mut e, MODERN, true, false, None, Some(&format!(r#"{{"code":{code},"message":"fix it"}}"#)));
        assert_eq!(e.state(), State::Modern(rev(MODERN)), "code {code}");
    }
}

#[test]
fn modern_requests_beside_a_legacy_session_are_their_own_revision() {
    let mut e = EraState::new();
    send(&mut e, LEGACY, false, true);
    answer(&mut e, LEGACY, false, true, legacy_result(), None);
    assert!(send(&mut e, MODERN, true, false).is_empty());
    answer(&mut e, MODERN, true, false, Some("{}"), None);
    assert_eq!(e.state(), State::Legacy);
    let versioned = Asked { request: true, meta_version: Some(Some(rev(MODERN))), ..Asked::default() };
    assert_eq!(e.judge(&versioned), Some(rev(MODERN)));
    let plain = Asked { request: true, ..Asked::default() };
    assert_eq!(e.judge(&plain), Some(rev("2025-06-18")));
}

#[test]
fn modern_errors_in_a_modern_connection() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(&mut e, MODERN, true, false, Some("{}"), None);
    // An ordinary error does not move a modern connection.
    answer(&mut e, MODERN, true, false, None, Some(r#"{"code":-32601,"message":"no"}"#));
    assert_eq!(e.state(), State::Modern(rev(MODERN)));
    // A -32022 asks for a retry.
    answer(
        &mut e,
        MODERN,
        true,
        false,
        None,
        Some(r#"{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}"#),
    );
    assert!(matches!(e.state(), State::Retrying(_)));
}

#[test]
fn initialize_is_judged_legacy_in_every_state() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(&mut e, MODERN, true, false, Some("{}"), None);
    let init = Asked { request: true, initialize: true, initialize_version: Some(rev(LEGACY)), ..Asked::default() };
    assert_eq!(e.judge(&init), Some(rev(LEGACY)));
}

#[test]
fn a_retry_at_a_version_of_no_revision_of_the_build_is_era_12() {
    let mut e = EraState::new();
    send(&mut e, MODERN, true, false);
    answer(
        &mut e,
        MODERN,
        true,
        false,
        None,
        Some(r#"{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}"#),
    );
    let asked = Asked { request: true, meta_version: Some(None), ..Asked::default() };
    let mut out = Vec::new();
    e.on_request(rev(MODERN), &asked, &mut out);
    assert_eq!(out.iter().filter_map(|f| f.rule).collect::<Vec<_>>(), vec![id::ERA_12]);
}

#[test]
fn server_answers_to_server_requests_move_nothing() {
    let mut e = EraState::new();
    e.on_answer(Answered { client: false, ..asked(rev(MODERN), true, false) }, Some(&&json("{}")), None::<&&Value>);
    assert_eq!(e.state(), State::Unknown);
}
