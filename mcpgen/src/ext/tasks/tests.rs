//! The Tasks extension over a conversation: what its state slot keeps.

use crate::conversation::ext_api::Text;
use crate::conversation::{Conversation, ConversationOptions, Finding, Sender};

use super::table::TaskTable;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn rules(f: &[Finding]) -> Vec<Option<&'static str>> {
    f.iter().map(|f| f.rule).collect()
}

/// The identifiers written out by hand agree with the pinned schema's.
#[test]
fn identifiers_match_the_pin() {
    let ext = super::extension().expect("built with the tasks extension");
    assert_eq!((ext.id(), ext.layers_on().as_str()), (super::EXTENSION_ID, super::LAYERS_ON));
}

/// The extension's state slot of the conversation's session.
fn tasks(c: &Conversation) -> &TaskTable {
    &c.session().ext.0
}

/// Tasks past `max_tasks`: the oldest is forgotten, reported once (POLICY-STATE); its later
/// states are not judged, a kept task's are (TASK-32). A task's `inputRequests` keys past
/// what `max_entry_bytes` allows are not kept, reported once.
#[test]
fn tasks_are_capped() {
    use crate::rules::id;
    let meta = META.replace(
        r#"clientCapabilities":{}"#,
        r#"clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
    );
    let times = r#""createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null"#;
    let create = |c: &mut Conversation, n: usize| {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{{meta},"name":"a","arguments":{{}}}}}}"#
        );
        assert!(c.observe(Sender::Client, call.as_bytes()).is_empty());
        let handle = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"result":{{"resultType":"task","taskId":"t{n}","status":"working",{times}}}}}"#
        );
        c.observe(Sender::Server, handle.as_bytes())
    };
    let status = |c: &mut Conversation, n: usize, status: &str, extra: &str| {
        let note = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"t{n}","status":"{status}",{times}{extra}}}}}"#
        );
        c.observe(Sender::Server, note.as_bytes())
    };
    let mut c = Conversation::with_options(ConversationOptions { max_tasks: 2, ..Default::default() });
    let mut capped = Vec::new();
    for n in 0..5 {
        capped.extend(create(&mut c, n));
    }
    assert_eq!(rules(&capped), vec![Some(id::POLICY_STATE)]);
    assert!(capped[0].message.contains("more than 2 tasks") && capped[0].message.contains("(t0)"), "{capped:?}");
    assert_eq!(tasks(&c).table.len(), 2);
    let cancelled = |c: &mut Conversation, n| status(c, n, "cancelled", "");
    for n in [0, 4] {
        assert!(cancelled(&mut c, n).is_empty());
    }
    assert!(status(&mut c, 0, "working", "").is_empty(), "forgotten: not judged");
    assert_eq!(rules(&status(&mut c, 4, "working", "")), vec![Some(id::TASK_32)]);

    let mut c = Conversation::with_options(ConversationOptions { max_entry_bytes: 512, ..Default::default() });
    create(&mut c, 1);
    let max = tasks(&c).max_keys;
    let keys: Vec<String> = (0..max + 3).map(|k| format!(r#""k{k}":{{"method":"roots/list"}}"#)).collect();
    let f = status(&mut c, 1, "input_required", &format!(r#","inputRequests":{{{}}}"#, keys.join(",")));
    assert_eq!(rules(&f), vec![Some(id::POLICY_STATE)]);
    assert!(f[0].message.contains(&format!("more than {max} `inputRequests` keys")), "{f:?}");
    assert_eq!(tasks(&c).table.get(&Text::new("t1")).map(|t| t.keys.len()), Some(max));
}
