//! What a run found: [`Report`], its findings, checks, exchanges and outcomes.

use serde_json::Value;

use mcpgen::conversation::{Finding, Severity};
use mcpgen::rules::Clause;
use mcpgen::Revision;

use super::{modern_revision, EraSeen, PeerError};

/// One finding: a check that failed, with the rule it breaks, the clause that rule rests on at
/// the revision in play, and the exchange that shows it.
#[derive(Debug, Clone)]
pub struct ProbeFinding {
    /// The step that found it (`discover`, `inventory`, `negative/missing-meta`, `tool/NAME`,
    /// `legacy/2025-11-25`, …).
    pub check: String,
    pub rule: Option<&'static str>,
    /// The level of [`ProbeFinding::clause`] (an error for MUST / MUST NOT, else a warning);
    /// the probe's own limits (PROBE-1 to PROBE-3) and late answers are warnings.
    pub level: Severity,
    /// JSON pointer into the server's message (`""` the root).
    pub pointer: String,
    pub message: String,
    /// Index into [`Report::exchanges`] (`None` when that exchange was not kept).
    pub exchange: Option<usize>,
    /// The revision in play: 2026-07-28 in the modern era, the session's in a legacy one.
    pub revision: Option<Revision>,
    /// The clause of `rule` at `revision`: keyword, quoted sentence, page. `None` for a plain
    /// schema violation and a finding without a rule.
    pub clause: Option<Clause>,
    /// The answers the check's clause accepts, in words ([`oracle::Accepts::describe`](crate::oracle::Accepts::describe)), where
    /// the probe judged the answer itself.
    pub accepts: Option<String>,
}

impl ProbeFinding {
    /// Where to read the clause: its page at the finding's revision.
    pub fn clause_url(&self) -> Option<String> {
        let rev = self.revision.map_or(mcpgen::rules::CATALOGUE_REVISION, |r| r.as_str());
        self.clause?.url(rev)
    }

    /// A conversation checker's finding on the answer to `check`.
    pub(crate) fn of_checker(check: &str, f: Finding, exchange: Option<usize>) -> ProbeFinding {
        ProbeFinding {
            check: check.to_owned(),
            rule: f.rule,
            level: f.level,
            clause: f.clause(),
            revision: f.revision,
            pointer: f.pointer,
            message: f.message,
            exchange,
            accepts: None,
        }
    }
}

/// One check run: its name and the revision of the session it ran in (the same name runs in
/// each era).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    pub name: String,
    pub revision: String,
}

impl PartialEq<str> for CheckRun {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl PartialEq<&str> for CheckRun {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

/// How one check ended ([`Report::outcomes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Passed,
    /// Only warnings.
    Warned,
    /// At least one error.
    Failed,
    /// Not run, with why.
    Skipped(String),
}

/// One check of [`Report::outcomes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub name: String,
    pub revision: String,
    pub status: Status,
}

/// One request or notification the probe sent, and what came back.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub check: String,
    pub sent: Value,
    /// The server's messages, as received (text; the response last).
    pub received: Vec<String>,
    /// Set when the peer failed ([`PeerError`]).
    pub peer_error: Option<String>,
    /// The server's messages not kept in `received`: the report held
    /// [`ProbeOptions::max_kept_bytes`](crate::ProbeOptions::max_kept_bytes) already.
    pub unkept: usize,
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub findings: Vec<ProbeFinding>,
    pub exchanges: Vec<Exchange>,
    /// Exchanges beyond [`ProbeOptions::max_exchanges`](crate::ProbeOptions::max_exchanges), not kept.
    pub dropped_exchanges: usize,
    /// The checks run, in order (one per exchange: a check that sends several messages is
    /// there several times); [`Report::outcomes`] has each once.
    pub checks: Vec<CheckRun>,
    /// The eras the server served: `modern`, `legacy 2025-11-25`, …
    pub eras: Vec<String>,
    /// What a client of each era saw: one entry per era or revision tried, in order.
    pub era_summaries: Vec<EraSeen>,
    /// Checks not run, with why (a transport without headers has no header negatives, …).
    pub skipped: Vec<Skipped>,
    /// The budget ran out ([`ProbeOptions::budget`](crate::ProbeOptions::budget)): the steps after it were not run.
    pub out_of_time: bool,
    /// The seed the argument cases were drawn with ([`ProbeOptions::seed`](crate::ProbeOptions::seed)).
    pub seed: u64,
    /// The transport refused or could not carry the run's first exchange (PROBE-5): nothing
    /// was judged, and `mcpgen probe` ends with exit status 2.
    pub refused: Option<Refusal>,
}

/// Why a run could not talk to the server at all: its first exchange failed in the transport
/// ([`PeerError::is_refusal`]) before the server answered anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The check whose exchange was refused (`discover`, or `legacy/…/initialize`).
    pub check: String,
    pub error: PeerError,
}

/// A check the run did not do, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub check: String,
    pub reason: String,
    /// The revision of the session it was skipped in.
    pub revision: String,
}

impl Report {
    /// Whether any finding is an error (exit status 1 of `mcpgen probe`).
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.level == Severity::Error)
    }

    /// Every check once per session (by name and revision), in the order first run, then those
    /// only skipped: what the summary counts and the JUnit report lists, one test case each.
    pub fn outcomes(&self) -> Vec<Outcome> {
        let rev_of = |f: &ProbeFinding| f.revision.map_or(modern_revision(), |r| r.as_str());
        let mut out: Vec<Outcome> = Vec::new();
        let known =
            |out: &[Outcome], name: &str, revision: &str| out.iter().any(|o| o.name == name && o.revision == revision);
        for c in &self.checks {
            if known(&out, &c.name, &c.revision) {
                continue;
            }
            let found = self.findings.iter().filter(|f| f.check == c.name && rev_of(f) == c.revision);
            let (mut errors, mut any) = (false, false);
            for f in found {
                any = true;
                errors |= f.level == Severity::Error;
            }
            let status = match (errors, any) {
                (true, _) => Status::Failed,
                (false, true) => Status::Warned,
                _ => Status::Passed,
            };
            out.push(Outcome { name: c.name.clone(), revision: c.revision.clone(), status });
        }
        // Findings of a step that sent nothing of its own (the drain at the end, a connection
        // that could not be opened) count as checks too.
        for f in &self.findings {
            if !known(&out, &f.check, rev_of(f)) {
                let status = if self
                    .findings
                    .iter()
                    .any(|g| g.check == f.check && rev_of(g) == rev_of(f) && g.level == Severity::Error)
                {
                    Status::Failed
                } else {
                    Status::Warned
                };
                out.push(Outcome { name: f.check.clone(), revision: rev_of(f).to_owned(), status });
            }
        }
        for k in &self.skipped {
            if !known(&out, &k.check, &k.revision) {
                out.push(Outcome {
                    name: k.check.clone(),
                    revision: k.revision.clone(),
                    status: Status::Skipped(k.reason.clone()),
                });
            }
        }
        out
    }
}
