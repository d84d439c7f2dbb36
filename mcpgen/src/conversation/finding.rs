//! What the checker reports ([`Finding`], at a [`Severity`]), and how a rule id or a per-message
//! validation error becomes one.

use crate::rules::{id, Clause};
use crate::validate::ValidationError;
use crate::Revision;

/// How bad a finding is: `Error` for MUST / MUST NOT and schema violations, `Warning` for
/// SHOULD, SHOULD NOT, MAY and informal wording: at the level of the rule's clause in the
/// revision the message was judged under ([`Finding::clause`]). The clause's own BCP 14
/// keyword is [`crate::rules::Level`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// The era a message was judged under ([`Finding::era`]); what a peer's answer shows of its
/// era, with the versions it named, is [`crate::protocol::DetectedEra`].
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
    pub level: Severity,
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
        self.level == Severity::Error
    }

    /// The clause the finding rests on, at the revision it was judged under (the rule's own
    /// clause when no revision is known): level, quoted sentence, page and error code. `None`
    /// for a plain schema violation.
    pub fn clause(&self) -> Option<Clause> {
        let rule = crate::rules::lookup(self.rule?)?;
        match self.revision {
            Some(rev) => rule.at(rev.as_str()),
            None => Some(rule.clause()),
        }
    }

    /// Where to read [`Finding::clause`]: its page at the finding's revision
    /// (`https://modelcontextprotocol.io/specification/<rev>/<page>`).
    pub fn clause_url(&self) -> Option<String> {
        let rev = self.revision.map_or(crate::rules::CATALOGUE_REVISION, |r| r.as_str());
        self.clause()?.url(rev)
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

/// The level of a finding on `rule` judged under `rev`, from the rule's clause there: errors for
/// MUST / MUST NOT, mcpgen's choices and schema violations (no rule); warnings for SHOULD /
/// SHOULD NOT / MAY and informal wording (no BCP 14 keyword), and for mcpgen's own limits
/// (forgetting a request or other state, or a tool schema it does not judge, is not the peer's fault),
/// and for a tool that differs from the user's pin (TOOL-12: the pin is the user's, not the spec's). `None`: the rule does not
/// exist at `rev`, so there is nothing to find.
pub(super) fn level_at(rule: Option<&str>, rev: Option<Revision>) -> Option<Severity> {
    use crate::rules::Level as L;
    let Some(rule) = rule else { return Some(Severity::Error) };
    if matches!(rule, id::POLICY_PENDING | id::POLICY_STATE | id::POLICY_TOOLS | id::POLICY_DEPTH | id::TOOL_12) {
        return Some(Severity::Warning);
    }
    let Some(entry) = crate::rules::lookup(rule) else { return Some(Severity::Error) };
    let clause = match rev {
        Some(rev) => entry.at(rev.as_str())?,
        None => entry.clause(),
    };
    Some(match clause.level {
        L::Should | L::ShouldNot | L::May | L::Informal => Severity::Warning,
        L::Must | L::MustNot | L::Choice => Severity::Error,
    })
}

/// Stamps `out` with the era and revision its message was judged under and the level of each
/// finding's clause there; drops the findings on a rule that revision does not have.
pub(super) fn judged_under(out: &mut Vec<Finding>, era: Option<Era>, rev: Option<Revision>) {
    out.retain_mut(|f| {
        (f.era, f.revision) = (era, rev);
        match level_at(f.rule, rev) {
            Some(level) => f.level = level,
            None => return false,
        }
        true
    });
}

// Findings are the rare path of a valid conversation: kept out of line, so the code that judges a
// valid message stays compact.
#[cold]
#[inline(never)]
pub(crate) fn rule_finding(
    rule: &'static str,
    pointer: impl Into<String>,
    keyword: &'static str,
    message: String,
) -> Finding {
    // The level until the finding is judged under its revision (`judged_under`).
    Finding {
        level: level_at(Some(rule), None).unwrap_or(Severity::Error),
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
pub(crate) fn validation_finding(e: ValidationError) -> Finding {
    Finding {
        level: level_at(e.rule, None).unwrap_or(Severity::Error),
        rule: e.rule,
        pointer: e.pointer,
        schema_path: e.schema_path,
        keyword: e.keyword,
        message: e.message,
        era: None,
        revision: None,
    }
}

/// MSG-8: text that is not JSON; POLICY-DEPTH (a warning) for text nested deeper than the
/// parser reads, which the spec does not forbid.
pub(super) fn not_json(e: &crate::json::ParseError) -> Finding {
    if e.is_too_deep() {
        let message = format!(
            "not checked: {} at line {} column {} (byte {}): mcpgen's parser limit, not a rule of the spec",
            e.message, e.line, e.column, e.offset
        );
        return rule_finding(id::POLICY_DEPTH, "", "maxDepth", message);
    }
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
