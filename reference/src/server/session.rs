//! Legacy-era sessions (`initialize` → `Mcp-Session-Id`) and the modern
//! `subscriptions/listen` streams.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

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
}

impl Session {
    pub fn new(id: String, revision: mcpgen::Revision, client_capabilities: Value) -> Session {
        Session {
            id,
            revision,
            client_capabilities,
            next_request_id: AtomicI64::new(1),
            pending: Mutex::new(HashMap::new()),
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(HashSet::new()),
        }
    }

    pub fn log_level(&self) -> Option<String> {
        self.log_level.lock().unwrap().clone()
    }

    pub fn set_log_level(&self, level: &str) {
        *self.log_level.lock().unwrap() = Some(level.to_owned());
    }

    pub fn set_subscribed(&self, uri: &str, on: bool) {
        let mut s = self.subscriptions.lock().unwrap();
        if on {
            s.insert(uri.to_owned());
        } else {
            s.remove(uri);
        }
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

/// The open `subscriptions/listen` streams and what each asked for.
#[derive(Debug, Default)]
pub struct Listeners {
    streams: Mutex<Vec<Listener>>,
}

#[derive(Debug)]
struct Listener {
    subscription_id: Value,
    /// The filter keys the client opted in to (`toolsListChanged`, …).
    wants: HashSet<String>,
    tx: mpsc::UnboundedSender<super::Frame>,
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
    pub fn add(&self, subscription_id: Value, wants: HashSet<String>, tx: mpsc::UnboundedSender<super::Frame>) {
        self.streams.lock().unwrap().push(Listener { subscription_id, wants, tx });
    }

    /// Sends a list-changed notification to every open stream that asked for it (SUB-4: tagged
    /// with the stream's subscription id); closed streams are forgotten.
    pub fn notify(&self, notification: &str) {
        let Some(key) = filter_key(notification) else { return };
        let mut streams = self.streams.lock().unwrap();
        streams.retain(|l| !l.tx.is_closed());
        for l in streams.iter().filter(|l| l.wants.contains(key)) {
            let message = json!({
                "jsonrpc": "2.0",
                "method": notification,
                "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": l.subscription_id } }
            });
            let _ = l.tx.send(super::Frame::Message(message));
        }
    }
}
