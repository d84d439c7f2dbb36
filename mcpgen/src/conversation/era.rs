//! The connection's era and revision: ONE state, here, that every rule family reads (through
//! the revision [`EraState::judge`] gives each message, which the facts carry) and that only the
//! observe pass changes, through the transitions below.
//!
//! Today the model is the first one the checker had: the first versioned modern request fixes
//! the modern era, a legacy `initialize` (request, then result) fixes the legacy era and its
//! revision, and the revision follows the last modern request. An explicit era state machine
//! (unknown → modern, or legacy at the revision an `initialize` negotiates after a refused
//! `server/discover`, or modern again after a -32022 answer and a retry at a listed version)
//! replaces the body of this file without touching the rule families: they see only the
//! revision and era each message is judged under.

use crate::protocol;
use crate::Revision;

/// Which era the session speaks, once known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    Unknown,
    /// An `initialize` handshake fixed the revision.
    Legacy,
    /// Requests carry version and capabilities in `_meta`.
    Modern,
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

/// The era and revision of one connection.
#[derive(Debug, Clone)]
pub(super) struct EraState {
    era: Era,
    revision: Option<Revision>,
}

/// [`protocol::is_modern`] (a scan of the method table) once per revision of the build.
pub(super) fn is_modern(rev: Revision) -> bool {
    static MODERN: std::sync::OnceLock<Vec<(Revision, bool)>> = std::sync::OnceLock::new();
    let table = MODERN.get_or_init(|| Revision::ALL.iter().map(|r| (*r, protocol::is_modern(*r))).collect());
    table.iter().find(|(r, _)| *r == rev).is_some_and(|(_, m)| *m)
}

fn latest_legacy() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|r| !is_modern(*r))
}

fn latest_modern() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|r| is_modern(*r))
}

impl EraState {
    pub fn new() -> Self {
        EraState { era: Era::Unknown, revision: None }
    }

    /// The revision the session negotiated (legacy) or last used (modern), once known.
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    pub fn era(&self) -> Era {
        self.era
    }

    fn default_revision(&self) -> Option<Revision> {
        self.revision.or_else(Revision::latest)
    }

    /// The revision a message is judged under; `None` only when no revision is compiled in.
    pub fn judge(&self, asked: &Asked) -> Option<Revision> {
        match asked {
            Asked { request: true, initialize: true, initialize_version, .. } if self.era != Era::Modern => {
                initialize_version.filter(|r| !is_modern(*r)).or_else(latest_legacy)
            }
            Asked { request: true, meta_version, .. } if self.era != Era::Legacy => match meta_version {
                Some(Some(r)) if is_modern(*r) => Some(*r),
                _ if self.era == Era::Modern => self.default_revision(),
                Some(_) => latest_modern().or_else(Revision::latest),
                None => self.default_revision(),
            },
            Asked { answering: Some(rev), .. } => rev.or_else(|| self.default_revision()),
            _ => self.default_revision(),
        }
    }

    /// A request judged under `rev`: a versioned modern request fixes the modern era, and the
    /// revision follows modern requests; a client's legacy `initialize` fixes the legacy era.
    pub fn on_request(&mut self, rev: Revision, versioned: bool, client_initialize: bool) {
        let modern = is_modern(rev);
        if modern && self.era == Era::Unknown && versioned {
            self.era = Era::Modern;
        }
        if modern && self.era == Era::Modern {
            self.revision = Some(rev);
        }
        if client_initialize && !modern {
            self.era = Era::Legacy;
            self.revision = Some(rev);
        }
    }

    /// The result of a legacy `initialize`: the legacy era at the revision it negotiated.
    pub fn on_initialize_result(&mut self, negotiated: Option<Revision>) {
        if let Some(r) = negotiated {
            self.revision = Some(r);
        }
        self.era = Era::Legacy;
    }
}
