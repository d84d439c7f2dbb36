//! A `tools/list` that repeats the last one byte for byte is not read again: these sessions
//! repeat lists, then change a definition in ways only its text shows, and check that every
//! change is still seen (TOOL-10) and calls are judged by the latest schema (TOOL-7).

use crate::conversation::{Conversation, Finding, Sender, Severity};
use crate::rules::id;

/// A legacy session whose server declared `tools.listChanged` (so a change without the
/// notification is TOOL-10).
fn session() -> Conversation {
    let mut c = Conversation::new();
    for (from, m) in [
        (
            Sender::Client,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        ),
        (
            Sender::Server,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}"#,
        ),
        (Sender::Client, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
    ] {
        let f = c.observe(from, m.as_bytes());
        assert!(f.is_empty(), "{f:?}");
    }
    c
}

fn list(c: &mut Conversation, id: u64, tools: &str) -> Vec<Finding> {
    let req = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
    assert!(c.observe(Sender::Client, req.as_bytes()).is_empty());
    c.observe(Sender::Server, format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{tools}]}}}}"#).as_bytes())
}

fn shown(f: &[Finding]) -> Vec<(Option<&'static str>, Severity, &str)> {
    f.iter().map(|f| (f.rule, f.level, f.pointer.as_str())).collect()
}

const OTHER: &str = r#"{"name":"other","inputSchema":{"type":"object"}}"#;

fn search(maximum: &str, required: &str) -> String {
    format!(
        r#"{{"name":"search","inputSchema":{{"type":"object","properties":{{"query":{{"type":"string"}},"q":{{"type":"string"}},"limit":{{"type":"integer","maximum":{maximum}}}}},"required":["{required}"]}}}}"#
    )
}

#[test]
fn a_repeated_list_then_a_number_written_otherwise_is_tool_10() {
    let mut c = session();
    let first = format!("{OTHER},{}", search("50", "query"));
    for id in 1..=3 {
        let f = list(&mut c, id, &first);
        assert!(f.is_empty(), "list {id}: {f:?}");
    }
    // `50.0` is another number text: the canonical form differs, so the definition changed.
    let f = list(&mut c, 4, &format!("{OTHER},{}", search("50.0", "query")));
    assert_eq!(shown(&f), [(Some(id::TOOL_10), Severity::Warning, "/result/tools/1")], "{f:?}");
    // The changed definition is the one held now: listed again, it is no change.
    let f = list(&mut c, 5, &format!("{OTHER},{}", search("50.0", "query")));
    assert!(f.is_empty(), "{f:?}");
    // And going back to the first is a change again.
    let f = list(&mut c, 6, &first);
    assert_eq!(shown(&f), [(Some(id::TOOL_10), Severity::Warning, "/result/tools/1")], "{f:?}");
}

#[test]
fn members_in_another_order_are_no_change_and_calls_follow_the_latest_schema() {
    let mut c = session();
    assert!(list(&mut c, 1, &search("50", "query")).is_empty());
    // The same definition with its members in another order and a `_meta`: not a change.
    let reordered = r#"{"inputSchema":{"required":["query"],"type":"object","properties":{"limit":{"maximum":50,"type":"integer"},"q":{"type":"string"},"query":{"type":"string"}}},"_meta":{"x":1},"name":"search"}"#;
    let f = list(&mut c, 2, reordered);
    assert!(f.is_empty(), "{f:?}");
    // Now `q` is required instead of `query`: a change, after which lists repeat it.
    let f = list(&mut c, 3, &search("50", "q"));
    assert_eq!(shown(&f), [(Some(id::TOOL_10), Severity::Warning, "/result/tools/0")], "{f:?}");
    assert!(list(&mut c, 4, &search("50", "q")).is_empty());
    let call =
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"query":"rain"}}}"#;
    let f = c.observe(Sender::Client, call.as_bytes());
    // TOOL-7 is a warning at 2025-11-25 (the catalogue's level for the revision).
    assert_eq!(shown(&f), [(Some(id::TOOL_7), Severity::Warning, "/params/arguments")], "{f:?}");
    assert!(f[0].message.contains(r#""q" is a required property"#), "{}", f[0].message);
}

/// The buffers reading a list uses are kept between lists only while small: a definition past
/// `SCRATCH_KEPT` bytes or a list past `IN_LIST_KEPT` names leaves nothing behind.
#[test]
fn a_large_definition_or_a_long_list_leaves_no_buffer_behind() {
    use super::{IN_LIST_KEPT, SCRATCH_KEPT};
    let mut c = session();
    assert!(list(&mut c, 1, OTHER).is_empty());
    let kept = c.session.tools.scratch.capacity();
    assert!(kept > 0 && kept <= SCRATCH_KEPT, "{kept}");
    assert!(c.session.tools.in_list.capacity() > 0);
    let long = format!(r#"{{"name":"long","description":"{}","inputSchema":{{"type":"object"}}}}"#, "x".repeat(20_000));
    assert!(list(&mut c, 2, &format!("{OTHER},{long}")).is_empty());
    assert_eq!(c.session.tools.scratch.capacity(), 0);
    let many: Vec<String> =
        (0..IN_LIST_KEPT + 44).map(|i| format!(r#"{{"name":"t{i}","inputSchema":{{"type":"object"}}}}"#)).collect();
    assert!(list(&mut c, 3, &many.join(",")).is_empty());
    assert_eq!(c.session.tools.in_list.capacity(), 0);
    // Both grow again, small, for the next list, and a change is still seen.
    let f = list(&mut c, 4, r#"{"name":"t0","description":"changed","inputSchema":{"type":"object"}}"#);
    assert_eq!(shown(&f), [(Some(id::TOOL_10), Severity::Warning, "/result/tools/0")], "{f:?}");
    assert!(c.session.tools.scratch.capacity() <= SCRATCH_KEPT);
    assert!(c.session.tools.in_list.capacity() > 0 && c.session.tools.in_list.capacity() <= IN_LIST_KEPT);
}
