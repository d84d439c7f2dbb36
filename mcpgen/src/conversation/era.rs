//! The connection's era and revision: ONE state machine, here, that every rule family reads
//! (through the revision [`EraState::judge`] gives each message, which the facts carry) and
//! that only the observe pass moves, through [`EraState::on_request`] and
//! [`EraState::on_answer`].
//!
//! The states, from the versioning rules (ERA-1..5, VER-1/2; `docs/conversations.md` has the
//! table):
//!
//! - [`State::Unknown`]: nothing has shown the era yet.
//! - [`State::Probing`]: a client's versioned modern request (`server/discover` or any other,
//!   VER-4) awaits its answer.
//! - [`State::Refused`]: that request was refused with an error that is not a recognized modern
//!   one (any code, ERA-3; over HTTP the 4xx body): the server is legacy, an `initialize` is due.
//! - [`State::Retrying`]: a -32022 listed `data.supported`; the retry is due at a listed
//!   version (VER-2; another one is ERA-12).
//! - [`State::Modern`]: a versioned request was answered (a result, or a recognized modern
//!   error that is not -32022): the revision follows the client's versioned requests.
//! - [`State::Initializing`]: a client `initialize` awaits its result (straight away, after a
//!   refusal, or after a probe never answered); after a modern answer it is ERA-11.
//! - [`State::Legacy`]: the `initialize` result fixed the revision it negotiated. Versioned
//!   modern requests beside it (ERA-1: both eras on one endpoint) are judged under their own
//!   revision and do not move the era.
//!
//! Several legacy sessions and stateless modern requests on one HTTP endpoint are separate
//! conversations (the conversation format's `session` tag), each with its own state.

use crate::json::{JsonView, Kind};
pub(super) use crate::protocol::is_modern;
use crate::rules::id;
use crate::Revision;

use super::finding::{self, rule_finding, Finding};

/// Which era a message is judged under, once known (the internal view of [`State`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    Unknown,
    /// An `initialize` handshake fixes (or is fixing) the revision.
    Legacy,
    /// Requests carry version and capabilities in `_meta`.
    Modern,
}

/// The revisions of this build a -32022 listed in `data.supported` (bit `i` is
/// `Revision::ALL[i]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Listed(u32);

impl Listed {
    fn of<'v, V: JsonView<'v>>(supported: &V) -> Listed {
        let mut bits = 0;
        for v in supported.items() {
            if let Some(i) = v.as_str().and_then(|s| Revision::ALL.iter().position(|r| r.as_str() == s)) {
                bits |= 1 << i;
            }
        }
        Listed(bits)
    }

    fn has(self, rev: Option<Revision>) -> bool {
        rev.and_then(|r| Revision::ALL.iter().position(|x| *x == r)).is_some_and(|i| self.0 & (1 << i) != 0)
    }

    fn any_modern(self) -> bool {
        Revision::ALL.iter().any(|r| is_modern(*r) && self.has(Some(*r)))
    }
}

/// Where a refused `initialize` returns to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Before {
    Unknown,
    Modern(Revision),
}

/// The era state of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Unknown,
    Probing,
    Refused,
    Retrying(Listed),
    Modern(Revision),
    Initializing { before: Before },
    Legacy,
}

/// What a message says about its own revision, read by the facts pass.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Asked {
    /// A request (`method` and an `id` that is a key).
    pub request: bool,
    /// The method is `initialize`.
    pub initialize: bool,
    /// `params.protocolVersion`, parsed (`initialize`).
    pub initialize_version: Option<Revision>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`: `None` when absent,
    /// `Some(None)` when present but not a revision of this build.
    pub meta_version: Option<Option<Revision>>,
    /// A response: the revision of the request it answers, when that request is pending.
    pub answering: Option<Option<Revision>>,
}

/// The request a response answers, as far as the era needs it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Answered {
    /// The client sent it (the server answers).
    pub client: bool,
    pub initialize: bool,
    /// It carried `_meta` `protocolVersion`.
    pub versioned: bool,
    /// The revision it was judged under.
    pub rev: Revision,
}

/// The era and revision of one connection.
#[derive(Debug, Clone)]
pub(super) struct EraState {
    state: State,
    revision: Option<Revision>,
}

/// The era of a revision, as findings name it.
pub(super) fn era_of(rev: Revision) -> finding::Era {
    if is_modern(rev) {
        finding::Era::Modern
    } else {
        finding::Era::Legacy
    }
}

fn latest_legacy() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|r| !is_modern(*r))
}

fn latest_modern() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|r| is_modern(*r))
}

/// The recognized modern errors (AMB-7): header mismatch, missing `_meta`, unsupported version.
const MODERN_ERRORS: [i64; 3] = [-32020, -32021, -32022];
const UNSUPPORTED_VERSION: i64 = -32022;

impl EraState {
    pub fn new() -> Self {
        EraState { state: State::Unknown, revision: None }
    }

    /// The revision the session negotiated (legacy) or last used (modern), once known.
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    #[cfg(test)]
    pub fn state(&self) -> State {
        self.state
    }

    pub fn era(&self) -> Era {
        match self.state {
            State::Unknown | State::Probing | State::Refused => Era::Unknown,
            State::Retrying(_) | State::Modern(_) => Era::Modern,
            State::Initializing { .. } | State::Legacy => Era::Legacy,
        }
    }

    fn default_revision(&self) -> Option<Revision> {
        self.revision.or_else(Revision::latest)
    }

    /// The revision a message that names none is judged under now (a notification, or text
    /// that is not JSON), with its era.
    pub fn current(&self) -> (Option<finding::Era>, Option<Revision>) {
        let rev = self.default_revision();
        (rev.map(era_of), rev)
    }

    /// The revision a message is judged under; `None` only when no revision is compiled in.
    pub fn judge(&self, asked: &Asked) -> Option<Revision> {
        let era = self.era();
        match asked {
            // `initialize` exists only in legacy revisions, whatever the state (ERA-11 judges
            // the fallback itself).
            Asked { request: true, initialize: true, initialize_version, .. } => {
                initialize_version.filter(|r| !is_modern(*r)).or_else(latest_legacy)
            }
            Asked { request: true, meta_version, .. } => match meta_version {
                Some(Some(r)) if is_modern(*r) => Some(*r),
                _ if era != Era::Unknown => self.default_revision(),
                Some(_) => latest_modern().or_else(Revision::latest),
                None => self.default_revision(),
            },
            Asked { answering: Some(rev), .. } => rev.or_else(|| self.default_revision()),
            _ => self.default_revision(),
        }
    }

    /// A client request judged under `rev`, with what it `asked`. Findings about the transition
    /// itself (ERA-11, ERA-12) go to `out`.
    pub fn on_request(&mut self, rev: Revision, asked: &Asked, out: &mut Vec<Finding>) {
        if asked.initialize && !is_modern(rev) {
            self.on_initialize(rev, out);
        } else if let Some(version) = asked.meta_version.filter(|_| is_modern(rev)) {
            self.on_versioned(rev, version, out);
        }
    }

    fn on_initialize(&mut self, rev: Revision, out: &mut Vec<Finding>) {
        let before = match self.state {
            // A legacy client; or the fallback after a refusal, or after a probe that was never
            // answered (a legacy server that ignores unknown requests).
            State::Unknown | State::Probing | State::Refused => Before::Unknown,
            State::Retrying(listed) => {
                if listed.any_modern() {
                    out.push(rule_finding(
                        id::ERA_11,
                        "/method",
                        "",
                        "falls back to `initialize` after -32022 named a modern version the client can retry with"
                            .into(),
                    ));
                }
                Before::Unknown
            }
            State::Modern(r) => {
                out.push(rule_finding(
                    id::ERA_11,
                    "/method",
                    "",
                    format!(
                        "falls back to `initialize` although the server answered a {} request: it is modern",
                        r.as_str()
                    ),
                ));
                Before::Modern(r)
            }
            // A second `initialize` while one is pending, or in a legacy session: lifecycle
            // rules, not an era transition.
            State::Initializing { .. } | State::Legacy => return,
        };
        self.state = State::Initializing { before };
        self.revision = Some(rev);
    }

    /// `version`: the one the request named, `None` when not a revision of this build.
    fn on_versioned(&mut self, rev: Revision, version: Option<Revision>, out: &mut Vec<Finding>) {
        match self.state {
            State::Unknown | State::Refused | State::Probing => {
                self.state = State::Probing;
                self.revision = Some(rev);
            }
            State::Retrying(listed) => {
                if !listed.has(version) {
                    let named = version.map_or("a version of no revision of this build", |v| v.as_str());
                    out.push(rule_finding(
                        id::ERA_12,
                        "/params/_meta/io.modelcontextprotocol~1protocolVersion",
                        "enum",
                        format!("retries at {named} after -32022, whose `data.supported` did not list it"),
                    ));
                }
                self.state = State::Probing;
                self.revision = Some(rev);
            }
            State::Modern(_) => {
                self.state = State::Modern(rev);
                self.revision = Some(rev);
            }
            // Stateless modern requests beside a legacy session (ERA-1): their own revision.
            State::Initializing { .. } | State::Legacy => {}
        }
    }

    /// A response to a request described by `asked`: its `result` (when an object) or its
    /// `error` object.
    pub fn on_answer<'v, V: JsonView<'v>>(&mut self, asked: Answered, result: Option<&V>, error: Option<&V>) {
        if !asked.client {
            return;
        }
        if asked.initialize {
            match (result, self.state) {
                (Some(r), _) => {
                    let negotiated =
                        r.get("protocolVersion").and_then(|x| x.as_str()).and_then(|s| Revision::parse(&s));
                    self.state = State::Legacy;
                    self.revision = negotiated.or(self.revision);
                }
                (None, State::Initializing { before }) => {
                    (self.state, self.revision) = match before {
                        Before::Unknown => (State::Unknown, None),
                        Before::Modern(r) => (State::Modern(r), Some(r)),
                    };
                }
                (None, _) => {}
            }
            return;
        }
        if !asked.versioned || !is_modern(asked.rev) {
            return;
        }
        let settling = matches!(self.state, State::Unknown | State::Probing | State::Refused | State::Retrying(_));
        if !settling && !matches!(self.state, State::Modern(_)) {
            return;
        }
        if result.is_some() {
            if settling {
                self.state = State::Modern(asked.rev);
                self.revision = Some(asked.rev);
            }
            return;
        }
        let Some(err) = error else { return };
        let code = err.get("code").filter(|c| c.is_integer()).and_then(|c| c.as_f64()).map(|c| c as i64);
        let supported = err.get("data").and_then(|d| d.get("supported")).filter(|s| s.kind() == Kind::Array);
        match (code, supported) {
            (Some(UNSUPPORTED_VERSION), Some(s)) => self.state = State::Retrying(Listed::of(&s)),
            (Some(c), _) if MODERN_ERRORS.contains(&c) && settling => self.state = State::Modern(asked.rev),
            (Some(c), _) if MODERN_ERRORS.contains(&c) => {}
            _ if settling => self.state = State::Refused,
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "era_tests.rs"]
mod tests;
