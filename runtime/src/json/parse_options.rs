//! The default and the builders of [`ParseOptions`] (`#[non_exhaustive]`: start from
//! `ParseOptions::default()`).

use super::tape::DEFAULT_MAX_DEPTH;
use super::ParseOptions;

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { max_depth: DEFAULT_MAX_DEPTH, skip_deeper: false }
    }
}

impl ParseOptions {
    /// The same, with [`ParseOptions::max_depth`] set.
    pub const fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }
    /// The same, with [`ParseOptions::skip_deeper`] set.
    pub const fn skip_deeper(mut self, skip_deeper: bool) -> Self {
        self.skip_deeper = skip_deeper;
        self
    }
}
