//! Arbitrary bytes → the tape parser and the parser it replaced (issue 36, item 4: the SSE2
//! string scan), kept as `json::tape::reference` behind the runtime's `differential` feature.
//! Invariant: both give the same tape (tags, lexeme offsets and lengths, counts) or the same
//! error (message, byte offset, line, column, MSG-8, depth flag), under the default depth limit,
//! a small one, and a small one with `skip_deeper`. The first byte picks the small limit (0–15)
//! so that the limit lands at every depth the input reaches; the whole input is parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::json::tape::differential::check;

fuzz_target!(|data: &[u8]| {
    let small = data.first().map_or(3, |b| usize::from(b & 0x0f));
    for (max_depth, skip_deeper) in [(128, false), (small, false), (small, true)] {
        if let Err(e) = check(data, max_depth, skip_deeper) {
            panic!("max_depth {max_depth}, skip_deeper {skip_deeper}: {e}");
        }
    }
});
