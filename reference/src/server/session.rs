//! Legacy-era sessions (`initialize` → `Mcp-Session-Id`), the table that keeps them (capped,
//! idle ones expire), and the modern `subscriptions/listen` streams (capped, each with a
//! bounded queue).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, watch};

use super::wire::{Outbound, RpcError};

/// How long the server waits for the client to answer one of its requests.
const CLIENT_ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// One legacy session: what `initialize` negotiated, plus the session's mutable state.
#[derive(Debug)]
pub struct Session {
    pub id: String,
    pub revision: mcpgen::Revision,
    pub client_capabilities: Value,
    next_request_id: AtomicI64,
    pending: Mutex<HashMap<i64, oneshot::Sender<Value>>>,
    log_level: Mutex<Option<String>>,
    subscriptions: Mutex<HashSet<String>>,
    /// [`TableLimits::max_subscriptions`].
    max_subscriptions: usize,
    /// Set when the session ends (DELETE, eviction, expiry): its GET stream closes.
    ended: watch::Sender<bool>,
}

impl Session {
    pub fn new(
        id: String,
        revision: mcpgen::Revision,
        client_capabilities: Value,
        max_subscriptions: usize,
    ) -> Session {
        Session {
            max_subscriptions,
            id,
            revision,
            client_capabilities,
            next_request_id: AtomicI64::new(1),
            pending: Mutex::new(HashMap::new()),
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(HashSet::new()),
            ended: watch::Sender::new(false),
        }
    }

    /// Resolves when the session has ended (its GET stream waits on this).
    pub async fn closed(&self) {
        let mut ended = self.ended.subscribe();
        // An error means the sender is gone, which cannot happen while `self` lives.
        let _ = ended.wait_for(|&e| e).await;
    }

    /// Ends the session: its GET stream closes, and requests waiting for the client's answer
    /// are told the session ended.
    fn end(&self) {
        self.ended.send_replace(true);
        self.pending.lock().unwrap().clear();
    }

    pub fn log_level(&self) -> Option<String> {
        self.log_level.lock().unwrap().clone()
    }

    pub fn set_log_level(&self, level: &str) {
        *self.log_level.lock().unwrap() = Some(level.to_owned());
    }

    /// Subscribes to `uri` (`on`) or unsubscribes. A new URI beyond
    /// [`TableLimits::max_subscriptions`] is refused; subscribing again to one already held,
    /// and unsubscribing, always succeed.
    pub fn set_subscribed(&self, uri: &str, on: bool) -> Result<(), SubscriptionsFull> {
        let mut s = self.subscriptions.lock().unwrap();
        if !on {
            s.remove(uri);
        } else if !s.contains(uri) {
            if s.len() >= self.max_subscriptions {
                return Err(SubscriptionsFull { max: self.max_subscriptions });
            }
            s.insert(uri.to_owned());
        }
        Ok(())
    }

    /// How many resources the session is subscribed to.
    pub fn subscription_count(&self) -> usize {
        self.subscriptions.lock().unwrap().len()
    }

    /// Sends a request to the client on `out` (the stream of the request being served) and
    /// waits for its answer, which arrives as a separate message ([`Session::deliver`]).
    pub async fn request_client(&self, out: &Outbound, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        out.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = tokio::time::timeout(CLIENT_ANSWER_TIMEOUT, rx).await;
        self.pending.lock().unwrap().remove(&id);
        let response = match answer {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => {
                return Err(RpcError::new(-32603, format!("the session ended before the client answered {method}")))
            }
            Err(_) => return Err(RpcError::new(-32603, format!("the client did not answer {method} in time"))),
        };
        match (response.get("result"), response.get("error")) {
            (Some(r), _) => Ok(r.clone()),
            (None, Some(e)) => Err(RpcError::new(-32603, format!("the client refused {method}: {e}"))),
            _ => Err(RpcError::new(-32603, format!("the client's answer to {method} is neither result nor error"))),
        }
    }

    /// Routes a response from the client to the request waiting for it; false when no
    /// request of this session has that id.
    pub fn deliver(&self, response: Value) -> bool {
        let Some(id) = response.get("id").and_then(Value::as_i64) else { return false };
        match self.pending.lock().unwrap().remove(&id) {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }
}

/// The default of [`TableLimits::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 1024;
/// The default of [`TableLimits::session_idle_timeout`].
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// The default of [`TableLimits::max_subscriptions`].
pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 1024;
/// The default of [`TableLimits::max_listeners`].
pub const DEFAULT_MAX_LISTENERS: usize = 1024;
/// The notifications a listen stream holds for a client that does not read them; when one
/// more comes, the server ends the subscription (see [`Listeners::notify`]).
pub const LISTENER_QUEUE: usize = 32;

/// What the server keeps per peer: legacy sessions and listen streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableLimits {
    /// Legacy sessions kept at once. At the cap a new `initialize` evicts the least recently
    /// used session that is not in use, or is refused (HTTP 503) when every one is in use.
    pub max_sessions: usize,
    /// A legacy session not in use and unused for this long is ended (HTTP only: the HTTP
    /// transport sweeps the table; a stdio session lives as long as its connection).
    pub session_idle_timeout: Duration,
    /// Open `subscriptions/listen` streams at once; one more is refused (HTTP 503).
    pub max_listeners: usize,
    /// Resources one legacy session may be subscribed to (`resources/subscribe`); one more
    /// gets -32603 (the resources page's error for an internal failure).
    pub max_subscriptions: usize,
}

impl Default for TableLimits {
    fn default() -> TableLimits {
        TableLimits {
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max_listeners: DEFAULT_MAX_LISTENERS,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
        }
    }
}

/// The table of legacy sessions, at most `max` of them.
///
/// A session is *in use* while a request of it is being served or its GET stream is open: each
/// of those holds the session, so the table sees more than its own reference. A session in
/// use is never evicted or expired; the others are, least recently used first.
#[derive(Debug)]
pub struct Sessions {
    max: usize,
    table: Mutex<HashMap<String, Slot>>,
}

#[derive(Debug)]
struct Slot {
    session: Arc<Session>,
    last_used: Instant,
}

impl Slot {
    fn in_use(&self) -> bool {
        Arc::strong_count(&self.session) > 1
    }
}

/// A new session was refused: the table is full and every session in it is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionsFull {
    pub max: usize,
}

impl std::fmt::Display for SessionsFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the server already has {} sessions, all in use; try again later", self.max)
    }
}

impl Sessions {
    /// An empty table for at most `max` sessions (at least one).
    pub fn new(max: usize) -> Sessions {
        Sessions { max: max.max(1), table: Mutex::new(HashMap::new()) }
    }

    pub fn len(&self) -> usize {
        self.table.lock().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The session `id`, marked as used now.
    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        let mut table = self.table.lock().unwrap();
        let slot = table.get_mut(id)?;
        slot.last_used = Instant::now();
        Some(Arc::clone(&slot.session))
    }

    /// Adds `session`. At the cap it first evicts the least recently used session that is not
    /// in use and returns it, ended; when every session is in use, `session` is refused.
    pub fn open(&self, session: Arc<Session>) -> Result<Option<Arc<Session>>, SessionsFull> {
        let mut table = self.table.lock().unwrap();
        let mut evicted = None;
        if table.len() >= self.max {
            let lru = table.iter().filter(|(_, s)| !s.in_use()).min_by_key(|(_, s)| s.last_used);
            let Some(id) = lru.map(|(id, _)| id.clone()) else { return Err(SessionsFull { max: self.max }) };
            evicted = table.remove(&id).map(|s| s.session);
        }
        table.insert(session.id.clone(), Slot { session, last_used: Instant::now() });
        drop(table);
        if let Some(s) = &evicted {
            s.end();
        }
        Ok(evicted)
    }

    /// Removes the session `id` and returns it, ended.
    pub fn remove(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.table.lock().unwrap().remove(id)?.session;
        session.end();
        Some(session)
    }

    /// Removes the sessions not in use that were last used more than `idle` before `now` and
    /// returns them, ended. A session in use counts as used at `now`, so its idle time starts
    /// when it stops being used.
    pub fn expire(&self, idle: Duration, now: Instant) -> Vec<Arc<Session>> {
        let mut expired = Vec::new();
        self.table.lock().unwrap().retain(|_, slot| {
            if slot.in_use() {
                slot.last_used = now;
                return true;
            }
            let keep = now.saturating_duration_since(slot.last_used) <= idle;
            if !keep {
                expired.push(Arc::clone(&slot.session));
            }
            keep
        });
        for s in &expired {
            s.end();
        }
        expired
    }
}

/// The open `subscriptions/listen` streams and what each asked for, at most `max` of them.
/// Each stream's entry is removed when the stream ends, whichever side ends it.
#[derive(Debug)]
pub struct Listeners {
    max: usize,
    next: AtomicU64,
    streams: Mutex<HashMap<u64, Listener>>,
}

#[derive(Debug)]
struct Listener {
    subscription_id: Value,
    /// The filter keys the client opted in to (`toolsListChanged`, …).
    wants: HashSet<String>,
    /// The tasks whose status notifications the client asked for (Tasks extension).
    task_ids: HashSet<String>,
    /// The stream's queue ([`LISTENER_QUEUE`] notifications).
    tx: mpsc::Sender<super::Frame>,
}

/// A `resources/subscribe` was refused: the session holds [`TableLimits::max_subscriptions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionsFull {
    pub max: usize,
}

impl std::fmt::Display for SubscriptionsFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the session is already subscribed to {} resources; unsubscribe from one first", self.max)
    }
}

/// A new listen stream was refused: [`TableLimits::max_listeners`] streams are open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenersFull {
    pub max: usize,
}

impl std::fmt::Display for ListenersFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the server already has {} open listen streams; try again later", self.max)
    }
}

/// The `SubscriptionFilter` key that opts in to a list-changed notification.
pub fn filter_key(notification: &str) -> Option<&'static str> {
    match notification {
        "notifications/tools/list_changed" => Some("toolsListChanged"),
        "notifications/prompts/list_changed" => Some("promptsListChanged"),
        "notifications/resources/list_changed" => Some("resourcesListChanged"),
        _ => None,
    }
}

impl Listeners {
    /// No streams yet; at most `max` open at once.
    pub fn new(max: usize) -> Listeners {
        Listeners { max, next: AtomicU64::new(0), streams: Mutex::new(HashMap::new()) }
    }

    /// Registers a stream whose queue is `tx`; its number is what [`Listeners::close`] takes.
    pub fn open(
        &self,
        subscription_id: Value,
        wants: HashSet<String>,
        task_ids: HashSet<String>,
        tx: mpsc::Sender<super::Frame>,
    ) -> Result<u64, ListenersFull> {
        let mut streams = self.streams.lock().unwrap();
        if streams.len() >= self.max {
            return Err(ListenersFull { max: self.max });
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        streams.insert(n, Listener { subscription_id, wants, task_ids, tx });
        Ok(n)
    }

    /// Forgets stream `n` (its stream ended).
    pub fn close(&self, n: u64) {
        self.streams.lock().unwrap().remove(&n);
    }

    /// How many streams are open.
    pub fn len(&self) -> usize {
        self.streams.lock().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queues a list-changed notification on every open stream that asked for it (SUB-4:
    /// tagged with the stream's subscription id). A stream whose queue is full (its client
    /// has not read [`LISTENER_QUEUE`] notifications) is taken out of the table: no more is
    /// queued for it, and once its client has read what is queued the server ends the
    /// subscription with its closing result (SUB-7), so the client knows to listen again and
    /// fetch the lists, rather than silently missing a change.
    pub fn notify(&self, notification: &str) {
        let Some(key) = filter_key(notification) else { return };
        let mut streams = self.streams.lock().unwrap();
        streams.retain(|_, l| {
            if !l.wants.contains(key) {
                return true;
            }
            let message = json!({
                "jsonrpc": "2.0",
                "method": notification,
                "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": l.subscription_id } }
            });
            l.tx.try_send(super::Frame::Message(message)).is_ok()
        });
    }

    /// Queues `notifications/tasks` (the task's `DetailedTask`, tagged with the stream's
    /// subscription id) on every open stream that asked for `task_id`; a full queue ends the
    /// subscription as in [`Listeners::notify`].
    pub fn notify_task(&self, task_id: &str, detailed: &Value) {
        let mut streams = self.streams.lock().unwrap();
        streams.retain(|_, l| {
            if !l.task_ids.contains(task_id) {
                return true;
            }
            let mut params = detailed.clone();
            params["_meta"] = json!({ "io.modelcontextprotocol/subscriptionId": l.subscription_id });
            let message = json!({ "jsonrpc": "2.0", "method": "notifications/tasks", "params": params });
            l.tx.try_send(super::Frame::Message(message)).is_ok()
        });
    }
}
