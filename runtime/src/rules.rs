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

/// The clause a rule rests on at one revision: its level there, the quoted sentence, the page
/// it is on and the error code it demands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Clause {
    pub level: Level,
    /// The sentence, verbatim from the page (short, enough to find it); `None` where the
    /// catalogue has not recorded it yet (`docs/rules.md` lists those rules).
    pub quote: Option<&'static str>,
    /// Where it is: a specification page path below the revision's address (`server/resources`),
    /// `schema.json#/$defs/Name`, an extension's text, `JSON-RPC 2.0` or `mcpgen`.
    pub source: &'static str,
    /// The JSON-RPC error code the rule demands at that revision, where it demands one.
    pub code: Option<i64>,
}

impl Clause {
    /// Where to read it at `revision`: `https://modelcontextprotocol.io/specification/<rev>/<page>`
    /// for a specification page; `None` for `mcpgen`'s own rules.
    pub fn url(&self, revision: &str) -> Option<String> {
        let page = self.source;
        if page == "mcpgen" {
            None
        } else if page == "JSON-RPC 2.0" {
            Some("https://www.jsonrpc.org/specification".to_owned())
        } else if let Some(rest) = page.strip_prefix("ext-") {
            let (dir, file) = rest.split_once('/').unwrap_or((rest, ""));
            Some(format!("https://github.com/modelcontextprotocol/ext-{dir}/blob/main/{file}"))
        } else if let Some(def) = page.strip_prefix("schema.json") {
            let anchor = def.strip_prefix("#/$defs/").map(|d| format!("#{}", d.to_ascii_lowercase()));
            Some(format!("{SPEC_BASE}{revision}/schema{}", anchor.unwrap_or_default()))
        } else {
            Some(format!("{SPEC_BASE}{revision}/{page}"))
        }
    }
}

const SPEC_BASE: &str = "https://modelcontextprotocol.io/specification/";

/// Where a rule differs from its own entry at some revisions (`[[rule.revision]]` in
/// `schema/rules.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AtRevisions {
    /// Revision names (`2025-11-25`).
    pub revisions: &'static [&'static str],
    /// The clause there; `None` where the rule does not exist at those revisions.
    pub clause: Option<Clause>,
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
    /// The sentence the rule rests on, verbatim from the first page of `source`, at every revision
    /// [`Rule::revisions`] does not name; `None` where the catalogue lacks it yet.
    pub clause: Option<&'static str>,
    /// The JSON-RPC error code the rule demands, where it demands one.
    pub code: Option<i64>,
    /// The revisions where level, clause, page or code differ, or the rule does not exist.
    pub revisions: &'static [AtRevisions],
    pub enforcement: Enforcement,
}

impl Rule {
    /// The family: the id up to its first `-` (`META` for `META-6`, `POLICY` for
    /// `POLICY-STRICT`), or the whole id (`SCHEMA`).
    pub fn family(&self) -> &'static str {
        self.id.split('-').next().unwrap_or(self.id)
    }

    /// The clause of the rule's own entry (the newest revision's, and every revision's that
    /// [`Rule::revisions`] does not name).
    pub fn clause(&self) -> Clause {
        let source = self.source.split(", ").next().unwrap_or(self.source);
        Clause { level: self.level, quote: self.clause, source, code: self.code }
    }

    /// The clause at `revision` (a revision name, `2025-11-25`): `None` where the rule does not
    /// exist at that revision.
    ///
    /// ```
    /// use mcpgen_runtime::rules::{AtRevisions, Clause, Enforcement, Level, Rule};
    /// const OLD: Clause = Clause { level: Level::Should, quote: Some("q"), source: "p", code: Some(-2) };
    /// let rule = Rule {
    ///     id: "RES-1", level: Level::Must, summary: "s.", source: "p, q", clause: Some("c"), code: None,
    ///     revisions: &[AtRevisions { revisions: &["2025-11-25"], clause: Some(OLD) }],
    ///     enforcement: Enforcement::Enforced("e"),
    /// };
    /// assert_eq!(rule.at("2025-11-25"), Some(OLD));
    /// assert_eq!(rule.at("2026-07-28").map(|c| (c.level, c.source)), Some((Level::Must, "p")));
    /// ```
    pub fn at(&self, revision: &str) -> Option<Clause> {
        match self.revisions.iter().find(|r| r.revisions.contains(&revision)) {
            Some(r) => r.clause,
            None => Some(self.clause()),
        }
    }

    /// `{"id", "level", "summary", "source", "clause", "code", "revisions", "enforced"}`,
    /// `enforced` as [`Enforcement`]'s `Display` renders it; `revisions` lists the entries that
    /// differ (`{"revisions", "level", "clause", "source", "code"}`, or `{"revisions", "absent": true}`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.push("id", Value::String(self.id.into()));
        m.push("level", Value::String(self.level.as_str().into()));
        m.push("summary", Value::String(self.summary.into()));
        m.push("source", Value::String(self.source.into()));
        m.push("clause", self.clause.map_or(Value::Null, |q| Value::String(q.into())));
        m.push("code", self.code.map_or(Value::Null, |c| Value::Number(c.into())));
        let revisions = self.revisions.iter().map(|r| r.to_value()).collect();
        m.push("revisions", Value::Array(revisions));
        m.push("enforced", Value::String(self.enforcement.to_string()));
        Value::Object(m)
    }
}

impl AtRevisions {
    fn to_value(self) -> Value {
        let mut m = Map::new();
        let names = self.revisions.iter().map(|r| Value::String((*r).into())).collect();
        m.push("revisions", Value::Array(names));
        match self.clause {
            None => m.push("absent", Value::Bool(true)),
            Some(c) => {
                m.push("level", Value::String(c.level.as_str().into()));
                m.push("clause", c.quote.map_or(Value::Null, |q| Value::String(q.into())));
                m.push("source", Value::String(c.source.into()));
                m.push("code", c.code.map_or(Value::Null, |c| Value::Number(c.into())));
            }
        }
        Value::Object(m)
    }
}

/// `LEVEL "quote" (page[, code N])`, or what is missing.
fn write_clause(f: &mut fmt::Formatter<'_>, c: &Clause) -> fmt::Result {
    write!(f, "{}", c.level)?;
    match c.quote {
        Some(q) => write!(f, " \"{q}\"")?,
        None => f.write_str(" (clause not recorded yet)")?,
    }
    write!(f, " ({}", c.source)?;
    if let Some(code) = c.code {
        write!(f, ", code {code}")?;
    }
    f.write_str(")")
}

/// Several lines: the id and level, the summary, the source, the clause at each revision and
/// what mcpgen does.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.id, self.level)?;
        writeln!(f, "{}", self.summary)?;
        writeln!(f, "source: {}", self.source)?;
        f.write_str(if self.revisions.is_empty() { "clause: " } else { "clause (other revisions): " })?;
        write_clause(f, &self.clause())?;
        f.write_str("\n")?;
        for r in self.revisions {
            write!(f, "clause at {}: ", r.revisions.join(", "))?;
            match &r.clause {
                Some(c) => write_clause(f, c)?,
                None => f.write_str("the rule does not exist at these revisions")?,
            }
            f.write_str("\n")?;
        }
        write!(f, "mcpgen: {}", self.enforcement)
    }
}
