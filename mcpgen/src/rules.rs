//! The rules catalogue: every rule id mcpgen emits or documents (`META-6`, `AMB-10`, `SCHEMA`,
//! `POLICY-STRICT`, …), its level, a one-line summary, where it comes from and what mcpgen does
//! about it. Rendered as `docs/rules.md`; on the command line `mcpgen rules` and
//! `mcpgen explain RULE-ID`.
//!
//! The catalogue is generated from `schema/rules.toml` by `cargo xtask codegen`, so this table,
//! the document and the command always agree.
//!
//! ```
//! use mcpgen::rules::{lookup, Level};
//! let rule = lookup("META-6").unwrap();
//! assert_eq!(rule.level, Level::Must);
//! assert!(rule.enforcement.is_enforced());
//! assert_eq!(lookup("meta-6"), Some(rule)); // ids compare case-insensitively
//! assert!(lookup("tools/call").is_none());
//! ```
//!
//! [`id`] has every id as a constant (`id::META_6 == "META-6"`): code names rules through it,
//! so a mistyped id does not compile.

pub use mcpgen_runtime::rules::{id, AtRevisions, Clause, Enforcement, Level, Rule};

use crate::Revision;

/// The revision each rule's own entry (`Rule::level`, `Rule::clause`, `Rule::code`) is written
/// for: the newest pinned one; [`Rule::revisions`] names the others where they differ.
pub const CATALOGUE_REVISION: &str = mcpgen_schema::rule_table::REVISION;

/// Every rule, in catalogue order (families as in `docs/rules.md`, numbers ascending).
pub fn catalogue() -> &'static [Rule] {
    &mcpgen_schema::rule_table::RULES
}

/// The rule with this id, compared ASCII-case-insensitively.
pub fn lookup(id: &str) -> Option<&'static Rule> {
    catalogue().iter().find(|r| r.id.eq_ignore_ascii_case(id))
}

/// The clause rule `id` rests on at `revision`: its level there, the quoted sentence, the page
/// ([`Clause::url`]) and the error code it demands. `None` for an id the catalogue lacks and
/// where the rule does not exist at that revision.
///
/// ```
/// use mcpgen::rules::{at, Level};
/// use mcpgen::Revision;
/// # let (Some(modern), Some(legacy)) = (Revision::parse("2026-07-28"), Revision::parse("2025-11-25")) else { return };
/// let now = at("RES-1", modern).unwrap();
/// assert_eq!((now.level, now.code), (Level::Must, Some(-32602)));
/// let then = at("RES-1", legacy).unwrap();
/// assert_eq!((then.level, then.code), (Level::Should, Some(-32002)));
/// assert_eq!(then.url("2025-11-25").as_deref(), Some("https://modelcontextprotocol.io/specification/2025-11-25/server/resources"));
/// ```
pub fn at(id: &str, revision: Revision) -> Option<Clause> {
    lookup(id)?.at(revision.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ids_mcpgen_emits_itself_are_there() {
        for id in ["SCHEMA", "POLICY-STRICT", "META-6", "AMB-10", "ERA-8", "Q-17", "JSCHEMA-8"] {
            assert_eq!(lookup(id).map(|r| r.id), Some(id));
        }
    }

    #[test]
    fn ids_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in catalogue() {
            assert!(seen.insert(r.id.to_ascii_uppercase()), "{} twice", r.id);
        }
    }
}
