//! The benchmark behind `cargo xtask bench`: the message mix ([`mix`]) and the report that
//! prints every measured line side by side with the ratios and their goals ([`report`]).
//! The measured lines themselves are in `benches/mix.rs`; the conversation checker's benchmark
//! ([`conversation`], `benches/conversation.rs`) runs after it.

pub mod clock;
pub mod conversation;
pub mod mix;
pub mod report;
