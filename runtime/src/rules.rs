//! Types of the rules catalogue, and [`id`], every rule id as a constant. The table itself is
//! generated from `schema/rules.toml` into crate `mcpgen-schema`; use it through `mcpgen::rules`.

use std::fmt;

use crate::json::{Map, Value};

/// Generated from `schema/rules.toml` (`cargo xtask codegen`): the only generated file of this
/// crate.
#[rustfmt::skip]
pub mod id;

/// How binding a rule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    Must,
    MustNot,
    Should,
    ShouldNot,
    May,
    /// The spec states it without a BCP 14 keyword (lowercase or plain wording): not normative
    /// by the letter, treated as intended.
    Informal,
    /// mcpgen's own decision, where the spec is silent or ambiguous or its schema is wrong.
    Choice,
}

impl Level {
    /// Every level, strongest first.
    pub const ALL: [Level; 7] =
        [Level::Must, Level::MustNot, Level::Should, Level::ShouldNot, Level::May, Level::Informal, Level::Choice];

    /// `MUST`, `MUST NOT`, `SHOULD`, `SHOULD NOT`, `MAY`, `informal`, `choice`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::MustNot => "MUST NOT",
            Level::Should => "SHOULD",
            Level::ShouldNot => "SHOULD NOT",
            Level::May => "MAY",
            Level::Informal => "informal",
            Level::Choice => "choice",
        }
    }

    /// The inverse of [`Level::as_str`].
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What mcpgen does about a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Enforcement {
    /// Checked: by which check (paths in crate `mcpgen`, or a command).
    Enforced(&'static str),
    /// Left out, and why (transport, application behaviour, documentation, not written yet).
    NotEnforced(&'static str),
    /// One message cannot show it: it needs conversation state (which, and why).
    Stateful(&'static str),
}

impl Enforcement {
    /// True for [`Enforcement::Enforced`].
    pub fn is_enforced(self) -> bool {
        matches!(self, Enforcement::Enforced(_))
    }

    /// The text without its prefix.
    pub fn text(self) -> &'static str {
        match self {
            Enforcement::Enforced(s) | Enforcement::NotEnforced(s) | Enforcement::Stateful(s) => s,
        }
    }
}

/// The check itself, `not enforced: why`, or `not judgeable from one message: why`.
impl fmt::Display for Enforcement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Enforcement::Enforced(s) => f.write_str(s),
            Enforcement::NotEnforced(s) => write!(f, "not enforced: {s}"),
            Enforcement::Stateful(s) => write!(f, "not judgeable from one message: {s}"),
        }
    }
}

/// One rule of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    /// `META-6`, `AMB-10`, `SCHEMA`, `POLICY-STRICT`, …
    pub id: &'static str,
    pub level: Level,
    /// One line.
    pub summary: &'static str,
    /// Where it comes from: a page of the MCP 2026-07-28 specification as its URL path below
    /// `https://modelcontextprotocol.io/specification/2026-07-28/` (`basic/versioning`),
    /// `schema.json#/$defs/Name`, `JSON-RPC 2.0` or `mcpgen`; several are separated by `, `.
    pub source: &'static str,
    pub enforcement: Enforcement,
}

impl Rule {
    /// The family: the id up to its first `-` (`META` for `META-6`, `POLICY` for
    /// `POLICY-STRICT`), or the whole id (`SCHEMA`).
    pub fn family(&self) -> &'static str {
        self.id.split('-').next().unwrap_or(self.id)
    }

    /// `{"id", "level", "summary", "source", "enforced"}`, `enforced` as
    /// [`Enforcement`]'s `Display` renders it.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("id", Value::String(self.id.into()));
        m.push("level", Value::String(self.level.as_str().into()));
        m.push("summary", Value::String(self.summary.into()));
        m.push("source", Value::String(self.source.into()));
        m.push("enforced", Value::String(self.enforcement.to_string()));
        Value::Object(m)
    }
}

/// Several lines: the id and level, the summary, the source and what mcpgen does.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.id, self.level)?;
        writeln!(f, "{}", self.summary)?;
        writeln!(f, "source: {}", self.source)?;
        write!(f, "mcpgen: {}", self.enforcement)
    }
}
