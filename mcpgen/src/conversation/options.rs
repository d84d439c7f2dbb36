//! Checker settings.

use crate::Options;

/// Checker settings.
#[derive(Debug, Clone)]
pub struct ConversationOptions {
    /// Per-message validation options (policy, formats).
    pub validation: Options,
    /// Most requests tracked as pending per sender; past it the oldest is forgotten and a
    /// finding reports it.
    pub max_pending: usize,
    /// `resultType` values of negotiated extensions to accept (RESULT-3).
    pub extension_result_types: Vec<String>,
}

impl Default for ConversationOptions {
    fn default() -> Self {
        ConversationOptions { validation: Options::default(), max_pending: 4096, extension_result_types: Vec::new() }
    }
}
