//! The state of one session and the rules that span messages.
//!
//! Every message is read once: the caller's view (a tape for bytes) goes to per-message
//! validation ([`crate::protocol::validate_message_view`]) and then to the cross-message checks
//! here, which look at a handful of members (`id`, `method`, a few `_meta` keys) and hash
//! lookups. Values are copied out of a message only where a later message needs them
//! (capabilities, a listen filter, `inputRequests` keys), never for the common path.

use std::borrow::Cow;

use crate::json::{JsonView, Kind, Value};
use crate::methods::{Direction, MethodInfo, MethodKind, ResultFor};
use crate::protocol::{self, LISTEN_STREAM_NOTIFICATIONS};
use crate::validate::ValidationError;
use crate::Revision;

use super::ids::{Bounded, IdKey, Recent};
use super::{ConversationOptions, Finding, Level, Sender};

const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// How many answered request ids (per sender) and closed subscriptions are remembered, to tell
/// a second response or a late stream message from an unknown one.
const RECENT: usize = 1024;
/// Most `input_required` results awaiting their retry.
const MRTR_CAP: usize = 256;

/// Which era the session speaks, once known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Unknown,
    /// An `initialize` handshake fixed the revision.
    Legacy,
    /// Requests carry version and capabilities in `_meta`.
    Modern,
}

#[derive(Debug, Clone)]
struct Pending {
    info: Option<&'static MethodInfo>,
    rev: Revision,
    /// `params.task` was present (2025-11-25 task augmentation).
    task: bool,
    progress_token: Option<IdKey>,
    /// Modern: the request opted into log notifications (`logLevel`, LOG-1).
    log: bool,
    /// Modern: the request's `clientCapabilities`, kept for MRTR-6 where the method may answer
    /// `input_required`.
    caps: Option<Value>,
    cancelled: bool,
    /// A later page of a list (`params.cursor`): the `cacheScope` of the page that gave the
    /// cursor (CACHE-6).
    page_scope: Option<Option<String>>,
}

#[derive(Debug, Clone)]
struct Subscription {
    acked: bool,
    /// The listen request's `params.notifications`.
    filter: Option<Value>,
}

/// An `input_required` result awaiting its retry (MRTR-7..10).
#[derive(Debug, Clone)]
struct Awaiting {
    method: &'static str,
    id: IdKey,
    keys: Option<Vec<String>>,
    state: Option<String>,
}

#[derive(Debug, Clone)]
struct Progress {
    last: Option<f64>,
}

fn vbool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

fn ix(s: Sender) -> usize {
    match s {
        Sender::Client => 0,
        Sender::Server => 1,
    }
}

/// The level a rule's findings have: warnings for SHOULD / SHOULD NOT / MAY rules, errors for
/// MUST / MUST NOT, informal statements, mcpgen's choices and schema violations.
pub(crate) fn level_of(rule: Option<&str>) -> Level {
    use crate::rules::Level as L;
    match rule.and_then(crate::rules::lookup).map(|r| r.level) {
        Some(L::Should | L::ShouldNot | L::May) => Level::Warning,
        _ => Level::Error,
    }
}

pub(crate) fn rule_finding(
    rule: &'static str,
    pointer: impl Into<String>,
    keyword: &'static str,
    message: String,
) -> Finding {
    // Forgetting a request is mcpgen's limit, not the peer's fault; SUB-3 is informal wording
    // whose client side the spec gives as SHOULD.
    let level = if matches!(rule, "POLICY-PENDING" | "SUB-3") { Level::Warning } else { level_of(Some(rule)) };
    Finding { level, rule: Some(rule), pointer: pointer.into(), schema_path: String::new(), keyword, message }
}

pub(crate) fn validation_finding(e: ValidationError) -> Finding {
    Finding {
        level: level_of(e.rule),
        rule: e.rule,
        pointer: e.pointer,
        schema_path: e.schema_path,
        keyword: e.keyword,
        message: e.message,
    }
}

/// Appends a JSON pointer segment.
fn ptr(base: &str, key: &str) -> String {
    let mut p = base.to_owned();
    p.push('/');
    p.push_str(&key.replace('~', "~0").replace('/', "~1"));
    p
}

fn meta_of<'v, V: JsonView<'v>>(v: &V) -> Option<V> {
    v.get("params")?.get("_meta").filter(|m| m.kind() == Kind::Object)
}

fn latest_legacy() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|r| !protocol::is_modern(*r))
}

fn latest_modern() -> Option<Revision> {
    Revision::ALL.iter().copied().find(|r| protocol::is_modern(*r))
}

fn find_method(rev: Revision, method: &str) -> Option<&'static MethodInfo> {
    rev.methods().iter().find(|m| m.method == method)
}

#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub revision: Option<Revision>,
    era: Era,
    /// Legacy: the client's `initialize` capabilities.
    client_caps: Option<Value>,
    /// The server's capabilities (legacy `InitializeResult`, modern `DiscoverResult`).
    server_caps: Option<Value>,
    /// Requests in flight, by the side that sent them.
    pending: [Bounded<IdKey, Pending>; 2],
    /// Requests answered lately, by the side that sent them.
    answered: [Recent<IdKey>; 2],
    /// Active progress tokens, by the side whose request carries them.
    progress: [Bounded<IdKey, Progress>; 2],
    /// Open `subscriptions/listen` streams, by the listen request's id.
    subs: Bounded<IdKey, Subscription>,
    /// Streams the server ended (a result, or its own `notifications/cancelled`).
    ended_subs: Recent<IdKey>,
    /// Streams the client ended (a late message may cross the cancellation).
    cancelled_subs: Recent<IdKey>,
    awaiting: Bounded<u64, Awaiting>,
    awaiting_seq: u64,
    /// Pending client requests that opted into log notifications (modern).
    log_opted: usize,
    /// Legacy `resources/subscribe` URIs.
    resource_subs: Bounded<String, ()>,
    /// `nextCursor`s given by list results, with the `cacheScope` of their page (CACHE-6).
    cursors: Bounded<(&'static str, String), Option<String>>,
    max_pending: usize,
}

impl Session {
    pub fn new(max_pending: usize) -> Self {
        Session {
            revision: None,
            era: Era::Unknown,
            client_caps: None,
            server_caps: None,
            pending: [Bounded::new(max_pending), Bounded::new(max_pending)],
            answered: [Recent::new(RECENT), Recent::new(RECENT)],
            progress: [Bounded::new(max_pending), Bounded::new(max_pending)],
            subs: Bounded::new(max_pending),
            ended_subs: Recent::new(RECENT),
            cancelled_subs: Recent::new(RECENT),
            awaiting: Bounded::new(MRTR_CAP),
            awaiting_seq: 0,
            log_opted: 0,
            resource_subs: Bounded::new(max_pending),
            cursors: Bounded::new(RECENT),
            max_pending,
        }
    }

    /// How many requests of `sender` are in flight (for the bounded-memory tests).
    #[cfg(test)]
    pub fn pending_len(&self, sender: Sender) -> usize {
        self.pending[ix(sender)].len()
    }

    #[cfg(test)]
    pub fn tracked(&self) -> usize {
        self.pending.iter().map(|p| p.len()).sum::<usize>()
            + self.progress.iter().map(|p| p.len()).sum::<usize>()
            + self.subs.len()
            + self.awaiting.len()
            + self.resource_subs.len()
    }

    fn default_revision(&self) -> Option<Revision> {
        self.revision.or_else(Revision::latest)
    }

    /// The revision a message is validated under.
    fn message_revision<'v, V: JsonView<'v>>(
        &self,
        from: Sender,
        v: &V,
        method: Option<&str>,
        id: Option<&IdKey>,
    ) -> Option<Revision> {
        match (method, id) {
            (Some("initialize"), Some(_)) if self.era != Era::Modern => {
                let asked = v.get("params").and_then(|p| p.get("protocolVersion"));
                asked
                    .and_then(|a| a.as_str().and_then(|s| Revision::parse(&s)))
                    .filter(|r| !protocol::is_modern(*r))
                    .or_else(latest_legacy)
            }
            (Some(_), Some(_)) if self.era != Era::Legacy => {
                let asked = meta_of(v).and_then(|m| m.get(PROTOCOL_VERSION));
                match asked.as_ref().and_then(|a| a.as_str().and_then(|s| Revision::parse(&s))) {
                    Some(r) if protocol::is_modern(r) => Some(r),
                    _ if self.era == Era::Modern => self.default_revision(),
                    _ if asked.is_some() => latest_modern().or_else(Revision::latest),
                    _ => self.default_revision(),
                }
            }
            (None, Some(id)) => {
                self.pending[ix(from.peer())].get(id).map(|p| p.rev).or_else(|| self.default_revision())
            }
            _ => self.default_revision(),
        }
    }

    pub fn observe<'v, V: JsonView<'v>>(&mut self, opts: &ConversationOptions, from: Sender, v: &V) -> Vec<Finding> {
        let mut out = Vec::new();
        let is_object = v.kind() == Kind::Object;
        let method_v = if is_object { v.get("method") } else { None };
        let method: Option<Cow<'v, str>> = method_v.as_ref().and_then(|m| m.as_str());
        let id_v = if is_object { v.get("id") } else { None };
        let id = id_v.as_ref().and_then(IdKey::of);
        let Some(rev) = self.message_revision(from, v, method.as_deref(), id.as_ref()) else {
            out.push(rule_finding("SCHEMA", "", "", "no revision is compiled into this build".into()));
            return out;
        };
        let structural = match protocol::validate_message_view(rev, v, opts.validation) {
            Ok(_) => true,
            Err(e) => {
                let mut structural = true;
                super::push_decode_error(e, &mut out, &mut structural);
                structural
            }
        };
        if !is_object || !structural {
            return out;
        }
        match (method, id_v.is_some()) {
            (Some(m), true) => self.request(from, v, rev, &m, id, &mut out),
            (Some(m), false) => self.notification(from, v, rev, &m, &mut out),
            (None, _) if method_v.is_some() => {}
            (None, _) => self.response(opts, from, v, id, &mut out),
        }
        out
    }

    fn direction(&self, from: Sender, info: &MethodInfo, out: &mut Vec<Finding>) {
        let wrong = match info.direction {
            Direction::ClientToServer => from == Sender::Server,
            Direction::ServerToClient => from == Sender::Client,
            _ => false,
        };
        if wrong {
            let (kind, by) = match info.kind {
                MethodKind::Request => ("request", from.peer().as_str()),
                MethodKind::Notification => ("notification", from.peer().as_str()),
            };
            out.push(rule_finding(
                "MSG-10",
                "/method",
                "enum",
                format!("`{}` is a {kind} only the {by} sends; here the {} sent it", info.method, from.as_str()),
            ));
        }
    }

    fn request<'v, V: JsonView<'v>>(
        &mut self,
        from: Sender,
        v: &V,
        rev: Revision,
        method: &str,
        id: Option<IdKey>,
        out: &mut Vec<Finding>,
    ) {
        let Some(id) = id else { return };
        let info = find_method(rev, method);
        let modern = protocol::is_modern(rev);
        if let Some(info) = info {
            self.direction(from, info, out);
        }
        if modern && self.era == Era::Unknown && meta_of(v).is_some_and(|m| m.get(PROTOCOL_VERSION).is_some()) {
            self.era = Era::Modern;
        }
        if modern && self.era == Era::Modern {
            self.revision = Some(rev);
        }
        if method == "initialize" && from == Sender::Client && !modern {
            self.era = Era::Legacy;
            self.revision = Some(rev);
            self.client_caps = v.get("params").and_then(|p| p.get("capabilities")).map(|c| c.to_value());
        }
        if !modern && from == Sender::Server && info.is_some() {
            self.legacy_client_capability(v, method, out);
        }
        let s = ix(from);
        if self.pending[s].contains(&id) {
            out.push(rule_finding(
                "ID-2",
                "/id",
                "uniqueItems",
                format!(
                    "id {id} is still pending among the {}'s requests; a new request needs a new id",
                    from.as_str()
                ),
            ));
            if let Some(old) = self.pending[s].remove(&id) {
                self.forget(from, &old);
            }
        }
        let params = v.get("params");
        let meta = meta_of(v);
        if modern && from == Sender::Client {
            if let Some(p) = &params {
                if p.get("inputResponses").is_some() || p.get("requestState").is_some() {
                    self.retry(method, &id, p, out);
                }
            }
        }
        let progress_token = meta.as_ref().and_then(|m| m.get("progressToken")).and_then(|t| IdKey::of(&t));
        if let Some(tok) = &progress_token {
            if self.progress[s].contains(tok) {
                out.push(rule_finding(
                    "PROG-1",
                    "/params/_meta/progressToken",
                    "uniqueItems",
                    format!("progress token {tok} is already used by another active request of the {}", from.as_str()),
                ));
            }
            self.progress[s].insert(tok.clone(), Progress { last: None });
        }
        let log = modern && from == Sender::Client && meta.as_ref().is_some_and(|m| m.get(LOG_LEVEL).is_some());
        if log {
            self.log_opted += 1;
        }
        let caps = match (modern, from, info) {
            (true, Sender::Client, Some(i)) if i.input_required => {
                meta.as_ref().and_then(|m| m.get(CLIENT_CAPABILITIES)).map(|c| c.to_value())
            }
            _ => None,
        };
        let task = !modern && params.as_ref().is_some_and(|p| p.get("task").is_some());
        if from == Sender::Client {
            match method {
                "subscriptions/listen" if modern => {
                    let filter = params.as_ref().and_then(|p| p.get("notifications")).map(|f| f.to_value());
                    self.ended_subs.remove(&id);
                    self.cancelled_subs.remove(&id);
                    self.subs.insert(id.clone(), Subscription { acked: false, filter });
                }
                "resources/subscribe" | "resources/unsubscribe" if !modern => {
                    if let Some(uri) = params.as_ref().and_then(|p| p.get("uri")).and_then(|u| u.as_str()) {
                        if method == "resources/subscribe" {
                            self.resource_subs.insert(uri.into_owned(), ());
                        } else {
                            self.resource_subs.remove(&uri.into_owned());
                        }
                    }
                }
                _ => {}
            }
        }
        self.answered[s].remove(&id);
        let page_scope = match (info, params.as_ref().and_then(|p| p.get("cursor")).and_then(|c| c.as_str())) {
            (Some(i), Some(c)) => self.cursors.remove(&(i.method, c.into_owned())),
            _ => None,
        };
        let entry = Pending { info, rev, task, progress_token, log, caps, cancelled: false, page_scope };
        if let Some((old_id, old)) = self.pending[s].insert(id, entry) {
            self.forget(from, &old);
            out.push(rule_finding(
                "POLICY-PENDING",
                "/id",
                "",
                format!(
                    "more than {} requests of the {} are pending; the oldest (id {old_id}) is forgotten, so a late response to it reads as unknown",
                    self.max_pending,
                    from.as_str()
                ),
            ));
        }
    }

    /// Drops what a finished (or forgotten) request held.
    fn forget(&mut self, from: Sender, p: &Pending) {
        if let Some(tok) = &p.progress_token {
            self.progress[ix(from)].remove(tok);
        }
        if p.log {
            self.log_opted = self.log_opted.saturating_sub(1);
        }
    }

    /// Legacy: a server request that needs a client capability declared at `initialize`.
    fn legacy_client_capability<'v, V: JsonView<'v>>(&self, v: &V, method: &str, out: &mut Vec<Finding>) {
        if !matches!(method, "sampling/createMessage" | "elicitation/create" | "roots/list") {
            return;
        }
        let Some(declared) = &self.client_caps else { return };
        let required = protocol::required_capability(&v.to_value());
        let Some(missing) = protocol::missing_capabilities(declared, &required) else { return };
        let top_declared = match method {
            "sampling/createMessage" => declared.get("sampling").is_some(),
            "elicitation/create" => declared.get("elicitation").is_some(),
            _ => declared.get("roots").is_some(),
        };
        let rule = match method {
            "elicitation/create" if top_declared => "ELIC-1",
            "sampling/createMessage" if top_declared => "SAMP-1",
            _ => "CAP-5",
        };
        out.push(rule_finding(
            rule,
            "/method",
            "",
            format!(
                "`{method}` needs the client capability {} that the client did not declare at `initialize`",
                crate::json::to_json_string(&missing)
            ),
        ));
    }

    /// MRTR-7..10: a client request carrying `inputResponses` / `requestState`.
    fn retry<'v, V: JsonView<'v>>(&mut self, method: &str, id: &IdKey, params: &V, out: &mut Vec<Finding>) {
        let state = params.get("requestState").and_then(|s| s.as_str()).map(Cow::into_owned);
        let mut same_state = None;
        let mut same_method = None;
        let mut other_method = None;
        for (k, a) in self.awaiting.iter_ordered() {
            if a.method == method {
                same_method = Some(*k);
                if a.state.is_some() && a.state == state {
                    same_state = Some(*k);
                }
            } else if state.is_some() && a.state == state {
                other_method = Some(a.method);
            }
        }
        let Some(key) = same_state.or(same_method) else {
            if let Some(other) = other_method {
                out.push(rule_finding(
                    "MRTR-10",
                    "/params/requestState",
                    "",
                    format!("this `requestState` was given for a `{other}` request; it applies only to the retry of that request"),
                ));
            }
            return;
        };
        let Some(a) = self.awaiting.remove(&key) else { return };
        if &a.id == id {
            out.push(rule_finding(
                "MRTR-9",
                "/id",
                "not",
                format!("the retry reuses id {id} of the request it retries; a retry is a new request with a new id"),
            ));
        }
        if a.state != state {
            let msg = match &a.state {
                Some(_) if state.is_none() => "the retry must echo the `requestState` of the `input_required` result".to_owned(),
                Some(_) => "the retry's `requestState` differs from the one the `input_required` result gave; it must be echoed exactly".to_owned(),
                None => "the `input_required` result gave no `requestState`, so the retry carries none".to_owned(),
            };
            let at = if state.is_some() { "/params/requestState" } else { "/params" };
            out.push(rule_finding("MRTR-8", at, "const", msg));
        }
        let responses = params.get("inputResponses").filter(|r| r.kind() == Kind::Object);
        match (&a.keys, responses) {
            (Some(keys), None) if !keys.is_empty() => out.push(rule_finding(
                "MRTR-7",
                "/params",
                "required",
                format!(
                    "the retry answers none of the input requests ({}); the client fulfils them before retrying",
                    keys.join(", ")
                ),
            )),
            (keys, Some(r)) => {
                let empty = Vec::new();
                let keys = keys.as_ref().unwrap_or(&empty);
                let got: Vec<Cow<'_, str>> = r.entries().map(|(k, _)| k).collect();
                let missing: Vec<&str> =
                    keys.iter().filter(|k| !got.iter().any(|g| g == *k)).map(String::as_str).collect();
                let extra: Vec<&str> =
                    got.iter().filter(|g| !keys.iter().any(|k| k == g.as_ref())).map(|g| g.as_ref()).collect();
                if !missing.is_empty() || !extra.is_empty() {
                    let mut msg = String::from("`inputResponses` must be keyed like the `inputRequests` it answers");
                    if !missing.is_empty() {
                        msg.push_str(&format!("; missing: {}", missing.join(", ")));
                    }
                    if !extra.is_empty() {
                        msg.push_str(&format!("; not asked for: {}", extra.join(", ")));
                    }
                    out.push(rule_finding("MRTR-8", "/params/inputResponses", "propertyNames", msg));
                }
            }
            _ => {}
        }
    }

    fn notification<'v, V: JsonView<'v>>(
        &mut self,
        from: Sender,
        v: &V,
        rev: Revision,
        method: &str,
        out: &mut Vec<Finding>,
    ) {
        let modern = protocol::is_modern(rev);
        if let Some(info) = find_method(rev, method) {
            self.direction(from, info, out);
        }
        let params = v.get("params");
        let param = |k: &str| params.as_ref().and_then(|p| p.get(k));
        let sub_id = meta_of(v).and_then(|m| m.get(SUBSCRIPTION_ID));
        match method {
            "notifications/cancelled" => {
                let Some(target) = param("requestId").and_then(|r| IdKey::of(&r)) else { return };
                if modern && from == Sender::Server {
                    if self.subs.remove(&target).is_some() {
                        self.ended_subs.insert(target.clone());
                        if let Some(p) = self.pending[ix(Sender::Client)].get_mut(&target) {
                            p.cancelled = true;
                        }
                    } else if !self.ended_subs.contains(&target) {
                        out.push(rule_finding(
                            "CANCEL-7",
                            "/params/requestId",
                            "",
                            format!("a server sends `notifications/cancelled` only to end a subscriptions/listen stream, and {target} names no open one"),
                        ));
                    }
                    return;
                }
                let s = ix(from);
                if let Some(p) = self.pending[s].get_mut(&target) {
                    p.cancelled = true;
                    if from == Sender::Client && self.subs.remove(&target).is_some() {
                        self.cancelled_subs.insert(target);
                    }
                } else if !self.answered[s].contains(&target) {
                    out.push(rule_finding(
                        "CANCEL-2",
                        "/params/requestId",
                        "",
                        format!(
                            "the {} cancels request {target}, which it never issued or which is not in progress",
                            from.as_str()
                        ),
                    ));
                }
            }
            "notifications/progress" => {
                if sub_id.is_some() {
                    out.push(sub11(method));
                }
                let Some(tok) = param("progressToken").and_then(|t| IdKey::of(&t)) else { return };
                let value = param("progress").and_then(|p| p.as_f64());
                match self.progress[ix(from.peer())].get_mut(&tok) {
                    None => out.push(rule_finding(
                        "PROG-2",
                        "/params/progressToken",
                        "",
                        format!(
                            "progress token {tok} belongs to no request of the {} in progress",
                            from.peer().as_str()
                        ),
                    )),
                    Some(p) => {
                        if let (Some(last), Some(now)) = (p.last, value) {
                            if now <= last {
                                out.push(rule_finding(
                                    "PROG-3",
                                    "/params/progress",
                                    "exclusiveMinimum",
                                    format!("progress {now} does not grow past the previous {last} for token {tok}"),
                                ));
                            }
                        }
                        if value.is_some() {
                            p.last = value;
                        }
                    }
                }
            }
            "notifications/message" if from == Sender::Server => {
                if sub_id.is_some() {
                    out.push(sub11(method));
                }
                if let Some(caps) = &self.server_caps {
                    if caps.get("logging").is_none() {
                        out.push(rule_finding(
                            "LOG-5",
                            "/method",
                            "",
                            "the server sends log notifications but did not declare the `logging` capability".into(),
                        ));
                    }
                }
                if modern && self.log_opted == 0 {
                    out.push(rule_finding(
                        "LOG-1",
                        "",
                        "",
                        format!("no request in progress opted into log notifications with `_meta[\"{LOG_LEVEL}\"]`"),
                    ));
                }
            }
            _ => {}
        }
        if from != Sender::Server {
            return;
        }
        self.list_changed(method, &params, modern, out);
        if modern && LISTEN_STREAM_NOTIFICATIONS.contains(&method) {
            let Some(sid) = sub_id.as_ref().and_then(IdKey::of) else { return };
            self.stream_message(method, &params, &sid, out);
        }
    }

    /// SUB-12: list-changed notifications need `listChanged`; legacy resource updates need a
    /// subscribed URI.
    fn list_changed<'v, V: JsonView<'v>>(
        &self,
        method: &str,
        params: &Option<V>,
        modern: bool,
        out: &mut Vec<Finding>,
    ) {
        let feature = match method {
            "notifications/tools/list_changed" => "tools",
            "notifications/prompts/list_changed" => "prompts",
            "notifications/resources/list_changed" => "resources",
            "notifications/resources/updated" if !modern => {
                let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(|u| u.as_str());
                if let Some(uri) = uri {
                    if !self.resource_subs.contains(&uri.clone().into_owned()) {
                        out.push(rule_finding(
                            "SUB-12",
                            "/params/uri",
                            "",
                            format!("`{uri}` was not subscribed with resources/subscribe"),
                        ));
                    }
                }
                return;
            }
            _ => return,
        };
        let Some(caps) = &self.server_caps else { return };
        let declared = caps.get(feature).and_then(|f| f.get("listChanged")).and_then(vbool) == Some(true);
        if !declared {
            out.push(rule_finding(
                "SUB-12",
                "/method",
                "",
                format!("`{method}` comes from a server that did not declare `{feature}.listChanged`"),
            ));
        }
    }

    /// SUB-1..4 for a notification tagged with a subscription id.
    fn stream_message<'v, V: JsonView<'v>>(
        &mut self,
        method: &str,
        params: &Option<V>,
        sid: &IdKey,
        out: &mut Vec<Finding>,
    ) {
        let at = "/params/_meta/io.modelcontextprotocol~1subscriptionId";
        let Some(sub) = self.subs.get_mut(sid) else {
            if self.ended_subs.contains(sid) {
                out.push(rule_finding(
                    "SUB-4",
                    at,
                    "",
                    format!("the server already ended subscription {sid}; nothing more travels on it"),
                ));
            } else if !self.cancelled_subs.contains(sid) {
                out.push(rule_finding(
                    "SUB-4",
                    at,
                    "",
                    format!("{sid} is not the id of an open subscriptions/listen request"),
                ));
            }
            return;
        };
        let requested = sub.filter.as_ref();
        if method == "notifications/subscriptions/acknowledged" {
            if sub.acked {
                out.push(rule_finding(
                    "SUB-2",
                    "/method",
                    "",
                    format!("subscription {sid} is already acknowledged; the acknowledgment comes once, first"),
                ));
                return;
            }
            sub.acked = true;
            // SUB-3: the acknowledged filter is a subset of the requested one.
            let Some(ack) = params.as_ref().and_then(|p| p.get("notifications")) else { return };
            for (k, x) in ack.entries() {
                let asked = requested.and_then(|r| r.get(&k));
                let ok = match x.kind() {
                    Kind::Bool => x.as_bool() != Some(true) || asked.and_then(vbool) == Some(true),
                    Kind::Array => x.items().all(|u| {
                        let u = u.as_str();
                        asked.and_then(Value::as_array).is_some_and(|a| a.iter().any(|y| y.as_str() == u.as_deref()))
                    }),
                    _ => true,
                };
                if !ok {
                    out.push(rule_finding(
                        "SUB-3",
                        ptr("/params/notifications", &k),
                        "",
                        format!("the acknowledgment grants `{k}` beyond what the listen request asked for"),
                    ));
                }
            }
            return;
        }
        if !sub.acked {
            out.push(rule_finding(
                "SUB-2",
                "/method",
                "",
                format!("`{method}` travels on subscription {sid} before its acknowledgment"),
            ));
        }
        let flag = |k: &str| requested.and_then(|r| r.get(k)).and_then(vbool) == Some(true);
        let asked = match method {
            "notifications/tools/list_changed" => flag("toolsListChanged"),
            "notifications/prompts/list_changed" => flag("promptsListChanged"),
            "notifications/resources/list_changed" => flag("resourcesListChanged"),
            "notifications/resources/updated" => {
                let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(|u| u.as_str());
                let list = requested.and_then(|r| r.get("resourceSubscriptions")).and_then(Value::as_array);
                match (uri, list) {
                    (Some(u), Some(l)) => l.iter().any(|x| x.as_str() == Some(u.as_ref())),
                    (None, _) => true,
                    _ => false,
                }
            }
            _ => true,
        };
        if !asked {
            out.push(rule_finding(
                "SUB-1",
                "/method",
                "",
                format!("subscription {sid} did not ask for `{method}` in its filter"),
            ));
        }
    }

    fn response<'v, V: JsonView<'v>>(
        &mut self,
        opts: &ConversationOptions,
        from: Sender,
        v: &V,
        id: Option<IdKey>,
        out: &mut Vec<Finding>,
    ) {
        let result = v.get("result");
        if self.era == Era::Modern && from == Sender::Client {
            out.push(rule_finding(
                "MSG-5",
                "",
                "",
                "in the per-request-metadata era servers send no requests, so a client sends no responses".into(),
            ));
            return;
        }
        let Some(id) = id else { return };
        let peer = ix(from.peer());
        let Some(p) = self.pending[peer].remove(&id) else {
            let (rule, msg) = if self.answered[peer].contains(&id) {
                (
                    "MSG-11",
                    format!(
                        "request {id} of the {} is already answered; a request gets exactly one response",
                        from.peer().as_str()
                    ),
                )
            } else {
                (
                    "ID-3",
                    format!(
                        "id {id} names no pending request of the {} (a notification is never answered)",
                        from.peer().as_str()
                    ),
                )
            };
            out.push(rule_finding(rule, "/id", "", msg));
            return;
        };
        self.answered[peer].insert(id.clone());
        self.forget(from.peer(), &p);
        let Some(info) = p.info else { return };
        let is_listen = info.method == "subscriptions/listen" && from == Sender::Server;
        let Some(result) = result.filter(|r| r.kind() == Kind::Object) else {
            if is_listen && self.subs.remove(&id).is_some() {
                self.ended_subs.insert(id);
            }
            return;
        };
        let ext: Vec<&str> = opts.extension_result_types.iter().map(String::as_str).collect();
        let req = ResultFor { method: info.method, task_augmented: p.task, extension_result_types: &ext };
        let errors = crate::protocol::check_result_view(p.rev, &req, &result, opts.validation);
        if !errors.is_empty() {
            for mut e in errors {
                e.pointer.insert_str(0, "/result");
                // Per-message validation already reports some (MRTR-3 of `input_required`).
                if !out.iter().any(|f| f.rule == e.rule && f.pointer == e.pointer && f.message == e.message) {
                    out.push(validation_finding(e));
                }
            }
            return;
        }
        let input_required =
            p.rev.results_have_result_type() && result.get("resultType").is_some_and(|r| r.str_eq("input_required"));
        if input_required {
            self.input_required(info, &p, id, &result, out);
            return;
        }
        let scope = result.get("cacheScope").and_then(|c| c.as_str()).map(Cow::into_owned);
        if let Some(expected) = &p.page_scope {
            if *expected != scope {
                out.push(rule_finding(
                    "CACHE-6",
                    "/result/cacheScope",
                    "const",
                    format!(
                        "this page's `cacheScope` ({}) differs from the page that gave its cursor ({}); all pages of one list use the same",
                        scope.as_deref().unwrap_or("absent"),
                        expected.as_deref().unwrap_or("absent")
                    ),
                ));
            }
        }
        if let Some(next) = result.get("nextCursor").and_then(|c| c.as_str()) {
            self.cursors.insert((info.method, next.into_owned()), scope);
        }
        match info.method {
            "initialize" => {
                if let Some(r) =
                    result.get("protocolVersion").and_then(|x| x.as_str()).and_then(|s| Revision::parse(&s))
                {
                    self.revision = Some(r);
                }
                self.era = Era::Legacy;
                self.server_caps = result.get("capabilities").map(|c| c.to_value());
            }
            "server/discover" => self.server_caps = result.get("capabilities").map(|c| c.to_value()),
            "subscriptions/listen" if is_listen => {
                let echoed = result.get("_meta").and_then(|m| m.get(SUBSCRIPTION_ID)).and_then(|s| IdKey::of(&s));
                if echoed.as_ref().is_some_and(|e| *e != id) {
                    out.push(rule_finding(
                        "SUB-4",
                        "/result/_meta/io.modelcontextprotocol~1subscriptionId",
                        "const",
                        format!(
                            "the closing result of subscription {id} must carry its id, not {}",
                            echoed.map(|e| e.to_string()).unwrap_or_default()
                        ),
                    ));
                }
                if let Some(sub) = self.subs.remove(&id) {
                    if !sub.acked {
                        out.push(rule_finding(
                            "SUB-2",
                            "/result",
                            "",
                            format!("subscription {id} ends before its acknowledgment"),
                        ));
                    }
                    self.ended_subs.insert(id);
                }
            }
            m => self.declared_feature(m, out),
        }
    }

    /// TOOL-1 / PROMPT-1 / CAP-2: a server that serves a feature declares it.
    fn declared_feature(&self, method: &str, out: &mut Vec<Finding>) {
        let Some(caps) = &self.server_caps else { return };
        let (feature, rule) = match method {
            m if m.starts_with("tools/") => ("tools", "TOOL-1"),
            m if m.starts_with("prompts/") => ("prompts", "PROMPT-1"),
            m if m.starts_with("resources/") => ("resources", "CAP-2"),
            "completion/complete" => ("completions", "CAP-2"),
            "logging/setLevel" => ("logging", "LOG-5"),
            _ => return,
        };
        if caps.get(feature).is_none() {
            out.push(rule_finding(
                rule,
                "/result",
                "",
                format!("the server answers `{method}` but did not declare the `{feature}` capability"),
            ));
        }
    }

    /// MRTR-6 and the bookkeeping for the retry.
    fn input_required<'v, V: JsonView<'v>>(
        &mut self,
        info: &'static MethodInfo,
        p: &Pending,
        id: IdKey,
        result: &V,
        out: &mut Vec<Finding>,
    ) {
        let requests = result.get("inputRequests").filter(|r| r.kind() == Kind::Object);
        let empty = Value::Object(Default::default());
        let declared = p.caps.as_ref().unwrap_or(&empty);
        let mut keys = None;
        if let Some(reqs) = &requests {
            let mut ks = Vec::with_capacity(reqs.len());
            for (k, r) in reqs.entries() {
                let needed = protocol::required_capability(&r.to_value());
                if let Some(missing) = protocol::missing_capabilities(declared, &needed) {
                    out.push(rule_finding(
                        "MRTR-6",
                        ptr("/result/inputRequests", &k),
                        "",
                        format!(
                            "input request `{k}` needs the client capability {}, which the request did not declare",
                            crate::json::to_json_string(&missing)
                        ),
                    ));
                }
                ks.push(k.into_owned());
            }
            keys = Some(ks);
        }
        let state = result.get("requestState").and_then(|s| s.as_str()).map(Cow::into_owned);
        self.awaiting_seq += 1;
        self.awaiting.insert(self.awaiting_seq, Awaiting { method: info.method, id, keys, state });
    }
}

fn sub11(method: &str) -> Finding {
    rule_finding(
        "SUB-11",
        "/params/_meta/io.modelcontextprotocol~1subscriptionId",
        "not",
        format!("`{method}` never travels on a subscriptions/listen stream, yet it carries a subscription id"),
    )
}
