//! The baseline (`interop/baseline.toml`): the findings and failed operations the
//! interop run expects, each with the SDK it belongs to and the reason. A finding or failure
//! not listed fails the run; so does an entry that nothing matched (a stale entry hides
//! nothing and must go).
//!
//! A reference peer's own finding is never excused: no entry may name `reference-server` or
//! `reference-client`.

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
    pub reason: String,
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
    pub reason: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_peers_are_never_excused() {
        let ok = "[[finding]]\nsdk = \"py-server\"\nrule = \"LOG-5\"\nmethod = \"notifications/message\"\nreason = \"logs without logging\"\n";
        assert_eq!(Baseline::parse(ok).unwrap().finding.len(), 1);
        for peer in ["reference-server", "reference-client"] {
            let excused =
                format!("[[finding]]\nsdk = \"{peer}\"\nrule = \"META-6\"\nreason = \"pending: era model\"\n");
            assert!(Baseline::parse(&excused).unwrap_err().0.contains("never excused"), "{peer}");
        }
        assert!(Baseline::parse("[[finding]]\nsdk = \"nobody\"\nrule = \"X\"\nreason = \"r\"\n").is_err());
        assert!(Baseline::parse("[[finding]]\nsdk = \"py-server\"\nrule = \"X\"\nreason = \" \"\n").is_err());
        assert!(Baseline::parse("[[finding]]\nsdk = \"py-server\"\nrule = \"X\"\nwhy = \"r\"\n").is_err());
    }

    #[test]
    fn probe_entries_need_a_reason_and_never_list_a_reference_server() {
        let entry = |target: &str, reason: &str| {
            format!("[[probe]]\ntarget = \"{target}\"\nrule = \"MSG-11\"\ncheck = \"c\"\nreason = \"{reason}\"\n")
        };
        let b = Baseline::parse(&entry("py-server:stdio over stdio", "drops bad envelopes")).unwrap();
        assert_eq!(b.listed_probe_finding("py-server:stdio over stdio", "MSG-11", "c"), Some(0));
        assert_eq!(b.listed_probe_finding("py-server:stdio over stdio", "MSG-11", "other check"), None);
        assert_eq!(b.listed_probe_finding("py-server:stateless over http", "MSG-11", "c"), None);
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
