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

pub use mcpgen_runtime::rules::{id, Enforcement, Level, Rule};

/// Every rule, in catalogue order (families as in `docs/rules.md`, numbers ascending).
pub fn catalogue() -> &'static [Rule] {
    &mcpgen_schema::rule_table::RULES
}

/// The rule with this id, compared ASCII-case-insensitively.
pub fn lookup(id: &str) -> Option<&'static Rule> {
    catalogue().iter().find(|r| r.id.eq_ignore_ascii_case(id))
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
