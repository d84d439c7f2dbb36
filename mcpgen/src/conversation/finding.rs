//! What the checker reports ([`Finding`], at a [`Level`]), and how a rule id or a per-message
//! validation error becomes one.

use crate::rules::id;
use crate::validate::ValidationError;

/// How bad a finding is: `Error` for MUST / MUST NOT and schema violations, `Warning` for SHOULD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
}

impl Level {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
        }
    }
}

/// The era a message was judged under ([`Finding::era`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// Per-request `_meta` (2026-07-28 and later).
    Modern,
    /// An `initialize` handshake (2025-11-25 and earlier).
    Legacy,
}

impl Era {
    /// `"modern"` or `"legacy"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }
}

/// One thing wrong with a message, in the message's own terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    /// Rule id from the catalogue (`docs/rules.md`); `None` for a plain schema violation.
    pub rule: Option<&'static str>,
    /// JSON pointer into the message (`""` is the root).
    pub pointer: String,
    /// The failing schema location for schema violations, `""` for rules.
    pub schema_path: String,
    /// The JSON Schema keyword that failed or would express the rule.
    pub keyword: &'static str,
    /// A sentence a person can act on.
    pub message: String,
    /// The era and revision the message was judged under (`None` only when no revision is
    /// compiled into the build).
    pub era: Option<Era>,
    pub revision: Option<crate::Revision>,
}

impl Finding {
    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() { "(root)" } else { self.pointer.as_str() };
        match self.rule {
            Some(r) => write!(f, "{} at {at} ({r}): {}", self.level.as_str(), self.message),
            None => write!(f, "{} at {at}: {}", self.level.as_str(), self.message),
        }
    }
}

/// The level a rule's findings have: warnings for SHOULD / SHOULD NOT / MAY rules, errors for
/// MUST / MUST NOT, informal statements, mcpgen's choices and schema violations.
pub(super) fn level_of(rule: Option<&str>) -> Level {
    use crate::rules::Level as L;
    match rule.and_then(crate::rules::lookup).map(|r| r.level) {
        Some(L::Should | L::ShouldNot | L::May) => Level::Warning,
        _ => Level::Error,
    }
}

// Findings are the rare path of a valid conversation: kept out of line, so the code that judges a
// valid message stays compact.
#[cold]
#[inline(never)]
pub(super) fn rule_finding(
    rule: &'static str,
    pointer: impl Into<String>,
    keyword: &'static str,
    message: String,
) -> Finding {
    // Forgetting a request or other state is mcpgen's limit, not the peer's fault; SUB-3 is informal wording
    // whose client side the spec gives as SHOULD.
    let level = if matches!(rule, id::POLICY_PENDING | id::POLICY_STATE | id::SUB_3) {
        Level::Warning
    } else {
        level_of(Some(rule))
    };
    Finding {
        level,
        rule: Some(rule),
        pointer: pointer.into(),
        schema_path: String::new(),
        keyword,
        message,
        era: None,
        revision: None,
    }
}

#[cold]
pub(super) fn validation_finding(e: ValidationError) -> Finding {
    Finding {
        level: level_of(e.rule),
        rule: e.rule,
        pointer: e.pointer,
        schema_path: e.schema_path,
        keyword: e.keyword,
        message: e.message,
        era: None,
        revision: None,
    }
}

/// MSG-8: text that is not JSON.
pub(super) fn not_json(e: impl std::fmt::Display) -> Finding {
    rule_finding(id::MSG_8, "", "type", format!("not JSON: {e}"))
}

/// Appends a JSON pointer segment.
pub(super) fn ptr(base: &str, key: &str) -> String {
    let mut p = base.to_owned();
    crate::json::pointer::push(&mut p, key);
    p
}

/// Per-message validation errors as findings. Returns false when the message could not be
/// classified (a batch, not an object, both `result` and `error`): then no state is touched.
pub(super) fn push_validation_errors(errors: Vec<ValidationError>, out: &mut Vec<Finding>) -> bool {
    let mut structural = true;
    for e in errors {
        if matches!(e.rule, Some(id::MSG_1 | id::MSG_2))
            || (e.rule == Some(id::CORE_2) && (e.pointer.is_empty() || e.pointer == "/method"))
        {
            structural = false;
        }
        out.push(validation_finding(e));
    }
    structural
}
