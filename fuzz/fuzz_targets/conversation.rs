//! Random message sequences → `mcpgen::conversation::Conversation`. The input is lines
//! (`\n`-separated); each line's first byte picks the sender by its bit 0x10 (clear: client, as
//! in `c`; set: server, as in `s`) and the rest is the message.
//! Two checkers run side by side: the default one and one with every cap at 2 (and
//! `max_entry_bytes = 64`), so eviction from every table is exercised too. Invariants:
//! - no panic, whatever the order, ids, eras and sessions;
//! - every finding names a rule of the catalogue (or none, for a schema violation) and has a
//!   message, and its pointer is `""` or starts with `/`;
//! - a message that is not JSON gets exactly one finding, MSG-8 (POLICY-DEPTH when it is
//!   nested past the parser's depth limit);
//! - feeding the same bytes through `observe_view` on the parsed tape gives the same findings.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::conversation::{Conversation, ConversationOptions, Finding, Sender};
use mcpgen::json::Tape;

fn check(f: &[Finding], bytes: &[u8]) {
    for x in f {
        if let Some(r) = x.rule {
            assert!(mcpgen::rules::lookup(r).is_some(), "rule {r} is not in the catalogue");
        }
        assert!(!x.message.is_empty(), "a finding without a message: {x:?}");
        assert!(x.pointer.is_empty() || x.pointer.starts_with('/'), "bad pointer {:?}", x.pointer);
    }
    if let Err(e) = Tape::parse_bytes(bytes) {
        assert_eq!(f.len(), 1, "text that is not JSON: {f:?}");
        // Nested past the parser's depth limit: mcpgen's policy finding, not a rule of the spec.
        let rule = if e.is_too_deep() { "POLICY-DEPTH" } else { "MSG-8" };
        assert_eq!(f[0].rule, Some(rule), "{f:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let mut a = Conversation::new();
    let mut b = Conversation::with_options(ConversationOptions::default().max_pending(2).max_listen_streams(2).max_resource_subscriptions(2).max_cursors(2).max_awaiting(2).max_entry_bytes(64));
    let mut twin = Conversation::new();
    for line in data.split(|&c| c == b'\n') {
        let Some((&who, msg)) = line.split_first() else { continue };
        // `c` is 0x63, `s` 0x73: bit 0x10 tells them apart.
        let from = if who & 0x10 == 0 { Sender::Client } else { Sender::Server };
        let fa = a.observe(from, msg);
        check(&fa, msg);
        check(&b.observe(from, msg), msg);
        if let Ok(tape) = Tape::parse_bytes(msg) {
            assert_eq!(twin.observe_view(from, &tape.root()), fa, "observe and observe_view disagree");
        } else {
            twin.observe(from, msg);
        }
    }
});
