//! The baseline (`interop/baseline.toml`): the findings and failed operations the
//! interop run expects, each with the SDK it belongs to and the reason. A finding or failure
//! not listed fails the run; so does an entry that nothing matched (a stale entry hides
//! nothing and must go).
//!
//! A reference peer's own finding is never excused: no entry may name `reference-server` or
//! `reference-client`.
//!
//! Every `[[finding]]` and `[[probe]]` entry carries the clause that makes the finding the
//! peer's fault ([`ClauseRef`]), checked against the rules catalogue when the baseline loads:
//! the rule exists at that revision, the keyword is the catalogue's level there, the page is
//! where the catalogue's sentence is and the quoted text is in the catalogue's sentence. A
//! finding the spec does not support (mcpgen's false positive, or a level the clause does not
//! state) is never listed as a deviation: its entry carries `allowed_by`, the sentence that
//! allows the peer's answer, instead, until mcpgen is fixed.

use serde::Deserialize;

use crate::check::TraceFinding;
use crate::plan::{Pairing, PEERS, REFERENCE_PEERS};

/// A finding the run expects.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FindingEntry {
    /// The peer whose message carries the finding (`py-server`, `ts-v2-client`, …).
    pub sdk: String,
    /// The rule id (`schema` for a plain schema violation).
    pub rule: String,
    /// Only findings on messages of this method (a response: the method it answers).
    #[serde(default)]
    pub method: Option<String>,
    /// Only in these pairings (ids as the table prints them).
    #[serde(default)]
    pub pairings: Option<Vec<String>>,
    /// The clause that makes it the peer's fault (a deviation) …
    #[serde(default)]
    pub clause: Option<ClauseRef>,
    /// … or the sentence that shows the finding wrong (a false positive of mcpgen being fixed).
    #[serde(default)]
    pub allowed_by: Option<AllowedBy>,
    pub reason: String,
}

/// Where in the specification a finding's requirement is stated: checked against the rules
/// catalogue ([`check_clause`]) when the baseline loads.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClauseRef {
    /// The revision whose text applies (the one in play when the finding was made).
    pub revision: String,
    /// The page, as the catalogue names it (`basic`, `server/prompts`, `JSON-RPC 2.0`, …).
    pub page: String,
    /// The BCP 14 keyword of the sentence (`MUST`, `SHOULD`, …; `choice` for the schema).
    pub keyword: String,
    /// Words of the sentence, verbatim (whitespace may differ).
    pub text: String,
}

/// An operation the run expects to fail.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OperationEntry {
    pub pairing: String,
    pub op: String,
    #[serde(default)]
    pub target: Option<String>,
    pub reason: String,
}

/// A finding `mcpgen-interop probe` expects from `mcpgen probe` on one target.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProbeEntry {
    /// The target as the probe table prints it (`server-everything over stdio`).
    pub target: String,
    /// The rule id (`schema` for a plain schema violation).
    pub rule: String,
    /// Only findings of this probe check (`negative/unknown-method`, `tools/call echo`, …).
    #[serde(default)]
    pub check: Option<String>,
    /// The clause that makes it the peer's fault (a deviation) …
    #[serde(default)]
    pub clause: Option<ClauseRef>,
    /// … or the sentence that shows the finding wrong (a false positive of mcpgen being fixed).
    #[serde(default)]
    pub allowed_by: Option<AllowedBy>,
    /// With `clause`: the words of the clause's own exception that the peer may invoke, for
    /// which the probe reports the MUST as a warning (an `id: null` answering a malformed
    /// request: "except in error cases where the ID could not be read due a malformed
    /// request"). The finding is then expected as a warning; the words must be in the clause.
    #[serde(default)]
    pub warning_by: Option<String>,
    pub reason: String,
}

/// The sentence that shows a finding of mcpgen's wrong: the spec allows the peer's message, or
/// states a lower level than the finding has. Not checked against the catalogue (the
/// catalogue may be what is wrong); the entry stays until mcpgen is fixed, then goes stale.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AllowedBy {
    pub revision: String,
    pub page: String,
    /// The sentence, verbatim from the page.
    pub text: String,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    #[serde(default)]
    pub finding: Vec<FindingEntry>,
    #[serde(default)]
    pub operation: Vec<OperationEntry>,
    #[serde(default)]
    pub probe: Vec<ProbeEntry>,
}

/// Why a baseline file cannot be used.
#[derive(Debug)]
pub struct BaselineError(pub String);

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "baseline: {}", self.0)
    }
}
impl std::error::Error for BaselineError {}

impl Baseline {
    /// Reads and checks a baseline: known peers, a reason on every entry, and no excuse for a
    /// reference peer.
    pub fn parse(text: &str) -> Result<Baseline, BaselineError> {
        let b: Baseline = toml::from_str(text).map_err(|e| BaselineError(e.to_string()))?;
        for (i, e) in b.finding.iter().enumerate() {
            let at = format!("finding {} ({} {})", i + 1, e.sdk, e.rule);
            if !PEERS.contains(&e.sdk.as_str()) {
                return Err(BaselineError(format!("{at}: unknown sdk (one of {})", PEERS.join(", "))));
            }
            if e.reason.trim().is_empty() {
                return Err(BaselineError(format!("{at}: no reason")));
            }
            if REFERENCE_PEERS.contains(&e.sdk.as_str()) {
                return Err(BaselineError(format!("{at}: a reference peer's finding is never excused")));
            }
            check_grounds(&e.rule, e.clause.as_ref(), e.allowed_by.as_ref())
                .map_err(|m| BaselineError(format!("{at}: {m}")))?;
        }
        for (i, e) in b.operation.iter().enumerate() {
            if e.reason.trim().is_empty() {
                return Err(BaselineError(format!("operation {} ({} {}): no reason", i + 1, e.pairing, e.op)));
            }
        }
        for (i, e) in b.probe.iter().enumerate() {
            let at = format!("probe {} ({} {})", i + 1, e.target, e.rule);
            if e.reason.trim().is_empty() {
                return Err(BaselineError(format!("{at}: no reason")));
            }
            if REFERENCE_PEERS.iter().any(|p| e.target.starts_with(p)) {
                return Err(BaselineError(format!("{at}: a reference peer's finding is never excused")));
            }
            check_grounds(&e.rule, e.clause.as_ref(), e.allowed_by.as_ref())
                .map_err(|m| BaselineError(format!("{at}: {m}")))?;
            if let Some(words) = &e.warning_by {
                let words_of = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
                match &e.clause {
                    Some(c) if words_of(&c.text).contains(&words_of(words)) && !words.trim().is_empty() => {}
                    Some(_) => {
                        return Err(BaselineError(format!("{at}: warning_by {words:?} is not in the clause's text")))
                    }
                    None => return Err(BaselineError(format!("{at}: warning_by needs a clause"))),
                }
            }
        }
        Ok(b)
    }

    /// The `[[probe]]` entry that lists a finding of `rule` from `check` on `target`, if any.
    pub fn listed_probe_finding(&self, target: &str, rule: &str, check: &str) -> Option<usize> {
        self.probe
            .iter()
            .position(|e| e.target == target && e.rule == rule && e.check.as_deref().is_none_or(|c| c == check))
    }

    /// The entry that excuses `f` in `pairing`, if any.
    pub fn excuse(&self, pairing: &Pairing, f: &TraceFinding) -> Option<usize> {
        let peer = if f.from == "client" { pairing.client.peer() } else { pairing.server.peer() };
        self.finding.iter().position(|e| {
            e.sdk == peer
                && e.rule == f.rule
                && e.method.as_ref().is_none_or(|m| *m == f.method)
                && e.pairings.as_ref().is_none_or(|ps| ps.iter().any(|p| *p == pairing.id()))
        })
    }

    /// The entry that expects the failure of `op` on `target` in `pairing`, if any.
    pub fn expected_failure(&self, pairing: &str, op: &str, target: Option<&str>) -> Option<usize> {
        self.operation
            .iter()
            .position(|e| e.pairing == pairing && e.op == op && e.target.as_deref().is_none_or(|t| Some(t) == target))
    }
}

/// The catalogue id of a baseline rule: `schema` (a plain schema violation) is `SCHEMA`.
fn catalogue_id(rule: &str) -> &str {
    if rule == "schema" {
        "SCHEMA"
    } else {
        rule
    }
}

/// An entry's grounds: exactly one of `clause` (checked with [`check_clause`]) and
/// `allowed_by` (revision, page and text given).
fn check_grounds(rule: &str, clause: Option<&ClauseRef>, allowed_by: Option<&AllowedBy>) -> Result<(), String> {
    match (clause, allowed_by) {
        (Some(c), None) => check_clause(rule, c).map_err(|m| format!("clause: {m}")),
        (None, Some(a)) => {
            if [&a.revision, &a.page, &a.text].iter().any(|t| t.trim().is_empty()) {
                return Err("allowed_by needs its revision, page and text".into());
            }
            if mcpgen::Revision::parse(&a.revision).is_none() && a.page != "JSON-RPC 2.0" {
                return Err(format!("allowed_by: revision {:?} is not one this build knows", a.revision));
            }
            Ok(())
        }
        (None, None) => Err("no clause (the spec sentence the finding rests on) and no allowed_by".into()),
        (Some(_), Some(_)) => Err("both clause and allowed_by: a finding is a deviation or a false positive".into()),
    }
}

/// Whether `clause` is what the catalogue says of `rule` at `clause.revision`: the rule exists
/// there, `keyword` is its level there (`REQUIRED` for a MUST whose sentence says REQUIRED),
/// `page` is the page of its sentence and `text` occurs in its quoted sentence (whitespace
/// runs compare equal). The error says what differs and what the catalogue has.
pub fn check_clause(rule: &str, clause: &ClauseRef) -> Result<(), String> {
    use mcpgen::rules::Level;
    let revision = mcpgen::Revision::parse(&clause.revision)
        .ok_or_else(|| format!("revision {:?} is not one this build knows", clause.revision))?;
    let id = catalogue_id(rule);
    if mcpgen::rules::lookup(id).is_none() {
        return Err(format!("rule {rule} is not in the catalogue (mcpgen rules)"));
    }
    let at = mcpgen::rules::at(id, revision)
        .ok_or_else(|| format!("rule {id} does not exist at {} (mcpgen explain {id})", clause.revision))?;
    let keyword_ok = clause.keyword == at.level.as_str()
        || (clause.keyword == "REQUIRED"
            && at.level == Level::Must
            && at.quote.is_some_and(|q| q.contains("REQUIRED")));
    if !keyword_ok {
        return Err(format!(
            "keyword {:?}, but {id} is {} at {} (mcpgen explain {id})",
            clause.keyword,
            at.level.as_str(),
            clause.revision
        ));
    }
    if clause.page != at.source {
        return Err(format!("page {:?}, but {id}'s sentence at {} is on {}", clause.page, clause.revision, at.source));
    }
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = words(&clause.text);
    if text.is_empty() {
        return Err("no text quoted".into());
    }
    match at.quote {
        None => Err(format!("the catalogue quotes no sentence for {id} at {}: quote it there first", clause.revision)),
        Some(q) if words(q).contains(&text) => Ok(()),
        Some(q) => Err(format!("{:?} is not in {id}'s sentence at {}: {q:?}", clause.text, clause.revision)),
    }
}

/// Whether a finding's level agrees with the BCP 14 keyword of its clause: an error rests on a
/// MUST, MUST NOT or REQUIRED (or the schema, `choice`), a warning on a SHOULD, SHOULD NOT,
/// MAY or an informal statement.
pub fn level_agrees(level: &str, keyword: &str) -> bool {
    match level {
        "error" => matches!(keyword, "MUST" | "MUST NOT" | "REQUIRED" | "choice"),
        "warning" => matches!(keyword, "SHOULD" | "SHOULD NOT" | "MAY" | "informal"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LOG-5's clause at 2025-11-25, as written out in `schema/rules.toml`.
    const LOG5: &str = "clause = { revision = \"2025-11-25\", page = \"server/utilities/logging\", keyword = \"MUST\", \
                        text = \"Servers that emit log message notifications MUST declare the `logging` capability\" }\n";

    fn clause(revision: &str, page: &str, keyword: &str, text: &str) -> ClauseRef {
        ClauseRef { revision: revision.into(), page: page.into(), keyword: keyword.into(), text: text.into() }
    }

    #[test]
    fn reference_peers_are_never_excused() {
        let ok = format!(
            "[[finding]]\nsdk = \"py-server\"\nrule = \"LOG-5\"\nmethod = \"notifications/message\"\n{LOG5}reason = \"logs without logging\"\n"
        );
        assert_eq!(Baseline::parse(&ok).unwrap().finding.len(), 1);
        for peer in ["reference-server", "reference-client"] {
            let excused =
                format!("[[finding]]\nsdk = \"{peer}\"\nrule = \"LOG-5\"\n{LOG5}reason = \"pending: era model\"\n");
            assert!(Baseline::parse(&excused).unwrap_err().0.contains("never excused"), "{peer}");
        }
        assert!(Baseline::parse(&format!("[[finding]]\nsdk = \"nobody\"\nrule = \"LOG-5\"\n{LOG5}reason = \"r\"\n"))
            .is_err());
        assert!(Baseline::parse(&format!(
            "[[finding]]\nsdk = \"py-server\"\nrule = \"LOG-5\"\n{LOG5}reason = \" \"\n"
        ))
        .is_err());
        assert!(Baseline::parse(&format!("[[finding]]\nsdk = \"py-server\"\nrule = \"LOG-5\"\n{LOG5}why = \"r\"\n"))
            .is_err());
    }

    #[test]
    fn every_entry_needs_exactly_one_of_clause_and_allowed_by() {
        let allowed = "allowed_by = { revision = \"2026-07-28\", page = \"server/prompts\", text = \"Servers **SHOULD** return\" }\n";
        let entry = |grounds: &str| {
            format!("[[probe]]\ntarget = \"py-server:stdio over stdio\"\nrule = \"LOG-5\"\n{grounds}reason = \"r\"\n")
        };
        assert!(Baseline::parse(&entry(LOG5)).is_ok());
        assert!(Baseline::parse(&entry(allowed)).is_ok());
        let none = Baseline::parse(&entry("")).unwrap_err();
        assert!(none.0.contains("no clause"), "{none}");
        let both = Baseline::parse(&entry(&format!("{LOG5}{allowed}"))).unwrap_err();
        assert!(both.0.contains("both"), "{both}");
        let empty = "allowed_by = { revision = \"2026-07-28\", page = \"server/prompts\", text = \" \" }\n";
        assert!(Baseline::parse(&entry(empty)).unwrap_err().0.contains("allowed_by needs"));
        let finding = "[[finding]]\nsdk = \"py-server\"\nrule = \"LOG-5\"\nreason = \"r\"\n";
        assert!(Baseline::parse(finding).unwrap_err().0.contains("no clause"));
    }

    #[test]
    fn a_clause_is_checked_against_the_catalogue_at_its_revision() {
        // Right: the words of the catalogue's sentence, whitespace aside.
        let sentence = "Servers that emit log message notifications\n   MUST declare the `logging` capability";
        assert_eq!(check_clause("LOG-5", &clause("2025-11-25", "server/utilities/logging", "MUST", sentence)), Ok(()));
        assert_eq!(
            check_clause("LOG-5", &clause("2026-07-28", "server/utilities/logging", "MUST", "MUST declare")),
            Ok(())
        );
        // A rule with two sources: the page is the sentence's (the first), per revision.
        let id4 = "Error responses MUST include the same ID as the request";
        assert_eq!(check_clause("ID-4", &clause("2026-07-28", "basic", "MUST", id4)), Ok(()));
        let schema =
            check_clause("ID-4", &clause("2026-07-28", "schema.json#/$defs/JSONRPCErrorResponse", "MUST", id4));
        assert!(schema.unwrap_err().contains("ID-4's sentence at 2026-07-28 is on basic"));
        let old = "Responses MUST include the same ID as the request they correspond to.";
        assert_eq!(check_clause("ID-4", &clause("2024-11-05", "basic/messages", "MUST", old)), Ok(()));
        // Per revision: RES-1 is a SHOULD at 2025-11-25 and a MUST at 2026-07-28.
        assert!(check_clause("RES-1", &clause("2025-11-25", "server/resources", "SHOULD", "SHOULD")).is_ok());
        let level = check_clause("RES-1", &clause("2025-11-25", "server/resources", "MUST", "SHOULD")).unwrap_err();
        assert!(level.contains("keyword \"MUST\", but RES-1 is SHOULD at 2025-11-25"), "{level}");
        // Seeded faults, one field each.
        let keyword =
            check_clause("LOG-5", &clause("2025-11-25", "server/utilities/logging", "SHOULD", "MUST declare"));
        assert!(keyword.unwrap_err().contains("keyword \"SHOULD\", but LOG-5 is MUST"));
        let page = check_clause("LOG-5", &clause("2025-11-25", "server/prompts", "MUST", "MUST declare")).unwrap_err();
        assert!(
            page.contains("page \"server/prompts\", but LOG-5's sentence at 2025-11-25 is on server/utilities/logging"),
            "{page}"
        );
        let text =
            check_clause("LOG-5", &clause("2025-11-25", "server/utilities/logging", "MUST", "MUST declare `tools`"));
        assert!(text.unwrap_err().contains("is not in LOG-5's sentence at 2025-11-25"));
        let unknown = check_clause("LOG-99", &clause("2025-11-25", "server/utilities/logging", "MUST", "MUST"));
        assert!(unknown.unwrap_err().contains("not in the catalogue"));
        // HTTP-8 is new in 2026-07-28.
        let absent = check_clause("HTTP-8", &clause("2025-11-25", "basic/transports/streamable-http", "MUST", "MUST"));
        assert!(absent.unwrap_err().contains("does not exist at 2025-11-25"));
        let revision = check_clause("LOG-5", &clause("2025-13-01", "server/utilities/logging", "MUST", "MUST"));
        assert!(revision.unwrap_err().contains("not one this build knows"));
        // A plain schema violation rests on the schema entry (`choice`).
        assert!(check_clause(
            "schema",
            &clause("2026-07-28", "index", "choice", "authoritative protocol requirements")
        )
        .is_ok());
    }

    #[test]
    fn levels_agree_with_keywords_as_the_project_grades_them() {
        for (level, keyword, agrees) in [
            ("error", "MUST", true),
            ("error", "MUST NOT", true),
            ("error", "REQUIRED", true),
            ("error", "choice", true),
            ("error", "SHOULD", false),
            ("warning", "SHOULD", true),
            ("warning", "SHOULD NOT", true),
            ("warning", "MAY", true),
            ("warning", "MUST", false),
            ("info", "MUST", false),
        ] {
            assert_eq!(level_agrees(level, keyword), agrees, "{level} on {keyword}");
        }
    }

    #[test]
    fn probe_entries_need_a_reason_and_never_list_a_reference_server() {
        let entry = |target: &str, reason: &str| {
            format!("[[probe]]\ntarget = \"{target}\"\nrule = \"LOG-5\"\ncheck = \"c\"\n{LOG5}reason = \"{reason}\"\n")
        };
        let b = Baseline::parse(&entry("py-server:stdio over stdio", "drops bad envelopes")).unwrap();
        assert_eq!(b.listed_probe_finding("py-server:stdio over stdio", "LOG-5", "c"), Some(0));
        assert_eq!(b.listed_probe_finding("py-server:stdio over stdio", "LOG-5", "other check"), None);
        assert_eq!(b.listed_probe_finding("py-server:stateless over http", "LOG-5", "c"), None);
        let refused = Baseline::parse(&entry("reference-server over http", "r")).unwrap_err();
        assert!(refused.0.contains("never excused"), "{refused}");
        assert!(Baseline::parse(&entry("py-server:stdio over stdio", " ")).unwrap_err().0.contains("no reason"));
    }

    #[test]
    fn the_repository_baseline_parses() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let text = std::fs::read_to_string(crate::plan::default_baseline(root)).unwrap();
        let b = Baseline::parse(&text).unwrap();
        assert!(!b.finding.is_empty() && !b.probe.is_empty(), "{b:?}");
    }
}
