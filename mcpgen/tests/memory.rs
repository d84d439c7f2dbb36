//! The conversation checker's memory, measured by a counting allocator (bytes and blocks live
//! on the test's own thread): messages that only repeat an entry leave it flat, and a session
//! that fills every table to its cap stays under the bytes docs/conversations.md ("Memory")
//! states.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mcpgen::conversation::{Conversation, ConversationOptions, Sender};

struct Counting;

thread_local! {
    static BYTES: Cell<isize> = const { Cell::new(0) };
    static BLOCKS: Cell<isize> = const { Cell::new(0) };
}

fn count(bytes: isize, blocks: isize) {
    let _ = BYTES.try_with(|b| b.set(b.get() + bytes));
    let _ = BLOCKS.try_with(|b| b.set(b.get() + blocks));
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are plain thread-locals
// without destructors.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            count(l.size() as isize, 1);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            count(l.size() as isize, 1);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        count(-(l.size() as isize), -1);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, size) };
        if !q.is_null() {
            count(size as isize - l.size() as isize, 0);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// What the allocator adds to a block (docs/conversations.md counts it the same way).
const BLOCK: isize = 16;

/// Bytes live on this thread, each block with its overhead.
fn live() -> isize {
    BYTES.with(Cell::get) + BLOCK * BLOCKS.with(Cell::get)
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The bytes a session (made by `make`) holds once `repeat` has run `warm` times, and how many
/// more after `more` further runs.
fn growth(
    make: impl FnOnce() -> Conversation,
    mut repeat: impl FnMut(&mut Conversation, usize),
    warm: usize,
    more: usize,
) -> (isize, isize) {
    let before = live();
    let mut c = make();
    for i in 0..warm {
        repeat(&mut c, i);
    }
    let warmed = live();
    for i in warm..warm + more {
        repeat(&mut c, i);
    }
    let after = live();
    drop(c);
    (warmed - before, after - warmed)
}

fn legacy() -> Conversation {
    let mut c = Conversation::new();
    let init = br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let done = br#"{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true},"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
    assert!(c.observe(Sender::Client, init).is_empty());
    assert!(c.observe(Sender::Server, done).is_empty());
    c
}

/// The same URI subscribed, the same listen id reused, the same `nextCursor` given: once the
/// window of answered ids is full (1,024), 20,000 more add at most `SETTLE` bytes (before the
/// fix each added an order slot: 260 MB, 156 MB and 118 MB for a million, over 800 KB for these
/// 20,000; `mcpgen validate --conversation` shows the million in a release build,
/// docs/conversations.md).
///
/// Not zero: a table that keeps about 1,024 live entries while keys come and go fills with
/// hashbrown's tombstones, and when they run out it rehashes in place or, the first time, may
/// double its buckets once (about 84 KB for the answered-ids window). When that happens
/// depends on the tables' random hash keys, so the bound allows two such resizes and no more.
#[test]
fn repeated_entries_leave_memory_flat() {
    const WARM: usize = 1_100;
    const MORE: usize = 20_000;
    const SETTLE: isize = 256 << 10;
    let subscribe = |c: &mut Conversation, i: usize| {
        let m =
            format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"resources/subscribe","params":{{"uri":"file:///one"}}}}"#);
        c.observe(Sender::Client, m.as_bytes());
        c.observe(Sender::Server, format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#).as_bytes());
    };
    let listen = |c: &mut Conversation, _: usize| {
        let m = format!(
            r#"{{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":true}}}}}}"#
        );
        c.observe(Sender::Client, m.as_bytes());
    };
    let cursor = |c: &mut Conversation, i: usize| {
        c.observe(
            Sender::Client,
            format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list","params":{{{META}}}}}"#).as_bytes(),
        );
        let page = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"result":{{"resultType":"complete","tools":[],"nextCursor":"next","ttlMs":0,"cacheScope":"public"}}}}"#
        );
        c.observe(Sender::Server, page.as_bytes());
    };
    for (name, (held, grew)) in [
        ("resources/subscribe of one URI", growth(legacy, subscribe, WARM, MORE)),
        ("one listen id repeated", growth(Conversation::new, listen, WARM, MORE)),
        ("one nextCursor repeated", growth(Conversation::new, cursor, WARM, MORE)),
    ] {
        assert!(held < 512 << 10, "{name}: the session holds {held} bytes after {WARM}");
        assert!(grew <= SETTLE, "{name}: {MORE} more messages grew the session by {grew} bytes");
    }
}

/// docs/conversations.md, "Memory": an empty session's bytes, and the most one tracked entry
/// (a pending request, a progress token, a remembered id, a stream, a subscription, a cursor,
/// an awaited retry) adds, its ids and texts included (64 bytes each at most, longer ones are
/// kept as a digest); a listen filter or the keys of an awaited retry add up to
/// `max_entry_bytes` more.
const SESSION_BYTES: isize = 4 << 10;
const ENTRY_BYTES: isize = 400;

/// Ids, tokens, URIs and cursors of the longest length kept verbatim.
fn long(tag: &str, i: usize) -> String {
    format!("{tag}{i:0>63}")[..64].to_owned()
}

/// The documented bound for `entries` tracked entries and `big` filters or key sets.
fn bound(entries: usize, big: usize, options: &ConversationOptions) -> isize {
    SESSION_BYTES + ENTRY_BYTES * entries as isize + (options.max_entry_bytes * big) as isize
}

/// A modern and a legacy session each driven to every cap of their era (pending requests with
/// progress tokens, the windows of answered ids and ended / cancelled streams, open listen
/// streams with filters at the size limit, cursors, awaited retries with their keys at the
/// limit, resource subscriptions) with ids and texts of the longest kept length: each stays
/// under the documented bytes, and a thousand messages more do not move it.
#[test]
fn a_session_at_every_cap_stays_under_the_documented_bytes() {
    const RECENT: usize = 1024;
    let options = ConversationOptions::default()
        .max_pending(64)
        .max_listen_streams(32)
        .max_resource_subscriptions(32)
        .max_cursors(32)
        .max_awaiting(32)
        .max_tasks(32);
    let (p, l, r, cur, a, t) = (64, 32, 32, 32, 32, 32);
    let call = |id: &str, token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"progressToken":"{token}"}},"name":"a","arguments":{{}}}}}}"#
        )
    };
    let complete =
        |id: &str| format!(r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"resultType":"complete","content":[]}}}}"#);
    let listen = |id: &str, uris: usize| {
        let list: Vec<String> = (0..uris).map(|u| format!("\"{}\"", long("file:///", u))).collect();
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"subscriptions/listen","params":{{{META},"notifications":{{"resourceSubscriptions":[{}]}}}}}}"#,
            list.join(",")
        )
    };
    // The largest filter still kept: the most URIs whose listen raises no POLICY-STATE.
    let uris = (1..200)
        .take_while(|&n| {
            Conversation::with_options(options.clone()).observe(Sender::Client, listen("x", n).as_bytes()).is_empty()
        })
        .last()
        .unwrap_or(0);
    assert!(uris > 10, "a filter of {uris} URIs");
    let keys = |n: usize| {
        (0..n).map(|k| format!(r#""{}":{{"method":"roots/list"}}"#, long("k", k))).collect::<Vec<_>>().join(",")
    };
    let input_required = |id: &str, n: usize, state: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"resultType":"input_required","inputRequests":{{{}}},"requestState":"{state}"}}}}"#,
            keys(n)
        )
    };
    let policy_state =
        |f: &[mcpgen::conversation::Finding]| f.iter().any(|f| f.rule == Some(mcpgen::rules::id::POLICY_STATE));
    let most_keys = (1..200)
        .take_while(|&n| {
            let mut c = Conversation::with_options(options.clone());
            c.observe(Sender::Client, call("x", "t").as_bytes());
            !policy_state(&c.observe(Sender::Server, input_required("x", n, "s").as_bytes()))
        })
        .last()
        .unwrap_or(0);
    assert!(most_keys > 10, "{most_keys} keys");

    let before = live();
    let mut c = Conversation::with_options(options.clone());
    let client = |c: &mut Conversation, m: String| c.observe(Sender::Client, m.as_bytes());
    let server = |c: &mut Conversation, m: String| c.observe(Sender::Server, m.as_bytes());
    for i in 0..RECENT + 50 {
        // Answered requests, ended streams, cancelled streams: the three windows full.
        client(&mut c, call(&long("a", i), &long("t", i)));
        server(&mut c, complete(&long("a", i)));
        client(&mut c, listen(&long("e", i), 1));
        server(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","result":{{"resultType":"complete","_meta":{{"io.modelcontextprotocol/subscriptionId":"{}"}}}}}}"#,
                long("e", i),
                long("e", i)
            ),
        );
        client(&mut c, listen(&long("c", i), 1));
        client(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"{}"}}}}"#,
                long("c", i)
            ),
        );
    }
    for i in 0..cur + 5 {
        client(
            &mut c,
            format!(r#"{{"jsonrpc":"2.0","id":"{}","method":"tools/list","params":{{{META}}}}}"#, long("l", i)),
        );
        server(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","result":{{"resultType":"complete","tools":[],"nextCursor":"{}","ttlMs":0,"cacheScope":"public"}}}}"#,
                long("l", i),
                long("n", i)
            ),
        );
    }
    for i in 0..a + 5 {
        client(&mut c, call(&long("r", i), &long("u", i)));
        server(&mut c, input_required(&long("r", i), most_keys, &long("s", i)));
    }
    // Tasks (the Tasks extension), each with as many `inputRequests` keys as it keeps.
    let declaring = META.replace(
        r#"clientCapabilities":{}"#,
        r#"clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
    );
    let task = r#""createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null"#;
    let task_keys = (0..200)
        .map(|k| format!(r#""{}":{{"method":"elicitation/create","params":{{"mode":"form","message":"{k}","requestedSchema":{{"type":"object","properties":{{}}}}}}}}"#, long("k", k)))
        .collect::<Vec<_>>()
        .join(",");
    let mut task_findings = Vec::new();
    for i in 0..t + 5 {
        client(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","method":"tools/call","params":{{{declaring},"name":"a","arguments":{{}}}}}}"#,
                long("v", i)
            ),
        );
        task_findings.extend(server(&mut c, format!(r#"{{"jsonrpc":"2.0","id":"{}","result":{{"resultType":"task","taskId":"{}","status":"working",{task}}}}}"#, long("v", i), long("j", i))));
        client(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","method":"tasks/get","params":{{{declaring},"taskId":"{}"}}}}"#,
                long("w", i),
                long("j", i)
            ),
        );
        let f = server(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","result":{{"resultType":"complete","taskId":"{}","status":"input_required","inputRequests":{{{task_keys}}},{task}}}}}"#,
                long("w", i),
                long("j", i)
            ),
        );
        task_findings.extend(f);
    }
    let messages: Vec<&str> = task_findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].contains("`inputRequests` keys") && messages[1].contains("more than 32 tasks"), "{messages:?}");
    for i in 0..l + 5 {
        client(&mut c, listen(&long("s", i), uris));
    }
    for i in 0..p + 5 {
        client(&mut c, call(&long("p", i), &long("q", i)));
    }
    let modern = live() - before;
    let entries = p + (p + 1) + 3 * RECENT + l + cur + a + t;
    let modern_bound = bound(entries, l + a + t, &options);
    eprintln!(
        "modern session at every cap: {modern} bytes, {entries} entries, bound {modern_bound}, {} per entry",
        modern / entries as isize
    );
    // Past every cap, requests keep coming: the session stays under the bound, and flat (up to
    // its order queues, which hold up to twice their table before they are compacted).
    let mut sizes = Vec::new();
    for round in 0..3 {
        for i in 0..1000 {
            client(&mut c, call(&long("z", round * 1000 + i), &long("y", round * 1000 + i)));
        }
        sizes.push(live() - before);
    }
    eprintln!("then {sizes:?}");
    for n in std::iter::once(modern).chain(sizes.iter().copied()) {
        assert!(n <= modern_bound, "the modern session holds {n} bytes, more than the documented {modern_bound}");
    }
    // Linear growth would add at least an order slot a request (40 bytes): 40,000 a round.
    assert!(sizes[2] - sizes[0] < 16 << 10, "two thousand more requests grew it: {sizes:?}");
    drop(c);

    let before = live();
    let mut c = legacy();
    let ping = |id: &str, token: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","params":{{"_meta":{{"progressToken":"{token}"}}}}}}"#)
    };
    for i in 0..RECENT + 50 {
        server(&mut c, ping(&long("a", i), &long("t", i)));
        client(&mut c, format!(r#"{{"jsonrpc":"2.0","id":"{}","result":{{}}}}"#, long("a", i)));
        client(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","method":"resources/subscribe","params":{{"uri":"{}"}}}}"#,
                long("b", i),
                long("file:///", i)
            ),
        );
        server(&mut c, format!(r#"{{"jsonrpc":"2.0","id":"{}","result":{{}}}}"#, long("b", i)));
    }
    for i in 0..p + 5 {
        server(&mut c, ping(&long("p", i), &long("q", i)));
        client(
            &mut c,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","method":"tools/call","params":{{"name":"a","arguments":{{}},"_meta":{{"progressToken":"{}"}}}}}}"#,
                long("p", i),
                long("q", i)
            ),
        );
    }
    let legacy_bytes = live() - before;
    let entries = 2 * p + 2 * (p + 1) + 2 * RECENT + r;
    let legacy_bound = bound(entries, 0, &options);
    eprintln!(
        "legacy session at every cap: {legacy_bytes} bytes, {entries} entries, bound {legacy_bound}, {} per entry",
        legacy_bytes / entries as isize
    );
    assert!(
        legacy_bytes <= legacy_bound,
        "the legacy session holds {legacy_bytes} bytes, more than the documented {legacy_bound}"
    );
}
