//! [`MessageOptions`]: what [`crate::protocol::validate_message`] knows beyond the message: the
//! validation options and the extensions negotiated on the session.

use crate::ext::Extension;
use crate::validate::{Options, Policy};

/// How [`validate_message`](crate::protocol::validate_message) judges a message: the
/// validation [`Options`] (unknown-key policy, `format` assertions; default lossless, formats as
/// annotations) and the extensions negotiated on the session (default none).
///
/// `#[non_exhaustive]`: start from [`MessageOptions::new`] (or `Default`, or an [`Options`]
/// through `From`) and set what differs.
///
/// ```
/// use mcpgen::ext::Extension;
/// use mcpgen::{MessageOptions, Policy};
///
/// let plain = MessageOptions::new();
/// let strict = MessageOptions::new().policy(Policy::Strict).strict_formats(true);
/// let tasks = [Extension::from_id("io.modelcontextprotocol/tasks").unwrap()];
/// let with_tasks = MessageOptions::new().negotiated(&tasks);
/// assert_eq!(with_tasks.negotiated, &tasks);
/// # let _ = (plain, strict);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageOptions<'a> {
    /// The validation options (policy, `format` assertions).
    pub validation: Options,
    /// The extensions negotiated on the session: with the Tasks extension, `notifications/tasks`
    /// and `resultType: "task"` results exist (see
    /// [`validate_message`](crate::protocol::validate_message)).
    pub negotiated: &'a [Extension],
}

impl<'a> MessageOptions<'a> {
    /// Lossless, formats as annotations, no extension negotiated.
    pub const fn new() -> Self {
        MessageOptions { validation: Options::new(), negotiated: &[] }
    }
    /// The same, with these validation options.
    pub const fn options(self, validation: Options) -> Self {
        MessageOptions { validation, ..self }
    }
    /// The same, with this unknown-key policy.
    pub const fn policy(self, policy: Policy) -> Self {
        MessageOptions { validation: self.validation.policy(policy), ..self }
    }
    /// The same, checking `format` as an assertion or not.
    pub const fn strict_formats(self, yes: bool) -> Self {
        MessageOptions { validation: self.validation.strict_formats(yes), ..self }
    }
    /// The same, with these extensions negotiated on the session.
    pub const fn negotiated(self, extensions: &'a [Extension]) -> Self {
        MessageOptions { negotiated: extensions, ..self }
    }
    /// The negotiated extensions, as the core's hooks take them.
    pub(crate) fn negotiated_set(&self) -> crate::ext::Negotiated {
        crate::ext::Negotiated::of(self.negotiated)
    }
}

impl From<Options> for MessageOptions<'_> {
    fn from(validation: Options) -> Self {
        MessageOptions::new().options(validation)
    }
}
