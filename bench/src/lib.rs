//! The benchmark behind `cargo xtask bench`: the message mix ([`mix`]) and the report that
//! prints every measured line side by side with the ratios and their goals ([`report`]).
//! The measured lines themselves are in `benches/mix.rs`.

pub mod mix;
pub mod report;
