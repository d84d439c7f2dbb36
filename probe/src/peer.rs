//! What the probe talks to ([`Peer`]: one connection), how it opens more ([`Connect`]: a fresh
//! connection per legacy session), what a transport with headers carried ([`Carried`]), and who
//! watches the run go by ([`Observer`]: progress, a record of the traffic).

use std::fmt;

use serde_json::Value;

use mcpgen::conversation::{HttpFacts, Sender};

/// What the probe talks to: one MCP connection (stdio, or an HTTP client).
pub trait Peer {
    /// Sends one message (one line of JSON text). For a request (`id` is `Some`), returns what
    /// the server sent until the response with that id, that response last; for a
    /// notification, what the server sent meanwhile (possibly nothing).
    fn send(&mut self, message: &[u8], id: Option<&Value>) -> Result<Vec<Vec<u8>>, PeerError>;

    /// [`Peer::send`] with the transport's headers changed by `edits` (the probe's header
    /// negatives). A transport without headers (stdio) cannot: [`PeerError::NoHeaders`], the
    /// default.
    fn send_edited(
        &mut self,
        message: &[u8],
        id: Option<&Value>,
        edits: &[HeaderEdit],
    ) -> Result<Vec<Vec<u8>>, PeerError> {
        let _ = (message, id, edits);
        Err(PeerError::NoHeaders)
    }

    /// Whether the transport has headers ([`Peer::send_edited`] works, [`Peer::carried`]
    /// answers). `false` by default.
    fn has_headers(&self) -> bool {
        false
    }

    /// What the transport carried with the last message sent: its request headers and the
    /// response's status and `Content-Type`. `None` for a transport without headers.
    fn carried(&self) -> Option<&Carried> {
        None
    }

    /// The wait of the following sends: `Some` a shorter one (a check whose answer is
    /// immediate or never), `None` the peer's own timeout again. Ignored by default.
    fn set_wait(&mut self, wait: Option<std::time::Duration>) {
        let _ = wait;
    }

    /// Whether the server's messages are still read after a [`PeerError::Timeout`]: an answer
    /// that comes late then arrives with a later exchange (or from [`Peer::drain`]), and the
    /// engine attaches it to its request. `false` by default (HTTP: the POST's response is
    /// abandoned at the timeout).
    fn reads_late(&self) -> bool {
        false
    }

    /// What the server sends within `grace` (at the end of a run: late answers). Nothing by
    /// default.
    fn drain(&mut self, grace: std::time::Duration) -> Vec<Vec<u8>> {
        let _ = grace;
        Vec::new()
    }

    /// The host the transport's URL names (`127.0.0.1`, `localhost`, `[::1]`,
    /// `mcp.example.com`): whether a foreign `Origin` accepted is a DNS-rebinding hole
    /// ([`is_loopback_host`]). `None` for a transport without one (stdio), the default.
    fn target_host(&self) -> Option<String> {
        None
    }
}

/// Whether `host` (as a URL names it) is a loopback address or a `localhost` name: a server
/// there that accepts a foreign `Origin` is what DNS rebinding exploits.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(&host);
    bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether `got` (a message's `id`) answers the request whose id is `sent`, by value: equal, or
/// the same digits as a string on one side and a number on the other (`7` for `"7"`). Such an
/// answer is still the request's answer (not "no answer"), and the engine judges its type
/// (ID-3: the response's `id` is the request's, same JSON type).
pub fn answers_id(got: Option<&Value>, sent: &Value) -> bool {
    let Some(got) = got else { return false };
    got == sent || id_text(got).is_some_and(|g| id_text(sent).is_some_and(|s| g == s))
}

/// Whether `message` is the answer to the request with `id`: a response ([`answers_id`]), or
/// a batch (an array) holding one (a server answering the probe's one-request batch as a
/// batch: what came is judged, not waited past).
pub fn is_answer(message: &Value, id: &Value) -> bool {
    match message {
        Value::Array(items) => items.iter().any(|m| is_answer(m, id)),
        m => m.get("method").is_none() && answers_id(m.get("id"), id),
    }
}

/// A string or number id as text (`"7"` and `7` both `7`); `None` for anything else.
fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Opens a fresh connection to the same server: a new process for stdio, a new client (so a
/// new session) for HTTP. With one, the probe gives each legacy revision a session of its own.
pub trait Connect {
    fn connect(&mut self) -> Result<Box<dyn Peer>, PeerError>;
}

/// One change to the headers a transport would send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderEdit {
    /// Send this value instead (or besides, when the transport would not send the header).
    Set(String, String),
    /// Do not send this header.
    Remove(String),
}

/// The HTTP facts of one exchange, as the transport saw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    /// The POST's headers (name, value), in the order sent.
    pub request_headers: Vec<(String, String)>,
    /// The response's status (`None`: no response came).
    pub status: Option<u16>,
    /// … and its `Content-Type` (`None`: it had none).
    pub content_type: Option<String>,
}

impl Carried {
    /// The facts of the client's message (its headers), as the conversation checker takes them.
    pub fn client_facts(&self) -> HttpFacts {
        HttpFacts { request_headers: Some(self.request_headers.clone()), ..HttpFacts::default() }
    }

    /// The facts of the server message that opens the response (status, `Content-Type`).
    pub fn response_facts(&self) -> Option<HttpFacts> {
        self.status.map(|status| HttpFacts {
            status: Some(status),
            content_type: self.content_type.clone(),
            ..HttpFacts::default()
        })
    }
}

/// Why a [`Peer`] could not deliver an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerError {
    /// No answer within the peer's time limit.
    Timeout { after_ms: u64 },
    /// The server closed the connection (exited, or closed its output).
    Closed,
    /// A message above the peer's size limit.
    TooLarge { limit: usize },
    /// More than `limit` of `what` (events, messages) in one answer.
    TooMany { limit: usize, what: &'static str },
    /// The transport has no headers to change ([`Peer::send_edited`] on stdio).
    NoHeaders,
    /// The server could not be reached (nothing listens at the address, the name does not
    /// resolve, the connection could not be made in time): no message was delivered, so this
    /// is no verdict on the server's protocol.
    Unreachable(String),
    /// The transport refused the request before the protocol saw it: HTTP 401 (authorization
    /// required), 403 (forbidden: a server's DNS-rebinding protection refusing the `Host` or
    /// `Origin`, or an authorization refusal) or 407. `detail` is what the refusal said (a
    /// `WWW-Authenticate` challenge, the start of the body), at most 512 bytes (`REFUSAL_DETAIL_BYTES`).
    Refused { status: u16, detail: String },
    /// Anything else the transport reports.
    Io(String),
}

/// The most bytes of a refusal's body kept in [`PeerError::Refused`] (the HTTP peer's).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub const REFUSAL_DETAIL_BYTES: usize = 512;

impl PeerError {
    /// Whether this is the transport refusing or failing to carry a message
    /// ([`PeerError::Unreachable`], [`PeerError::Refused`]) rather than the server not
    /// answering one it got: the probe then cannot judge the server's protocol.
    pub fn is_refusal(&self) -> bool {
        matches!(self, PeerError::Unreachable(_) | PeerError::Refused { .. })
    }

    /// The connection is gone (the server closed it or exited): nothing more comes on it.
    /// Transport trouble, no protocol verdict (PROBE-5).
    pub fn is_lost(&self) -> bool {
        matches!(self, PeerError::Closed)
    }
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::Timeout { after_ms } => write!(f, "no answer within {after_ms} ms"),
            PeerError::Closed => f.write_str("the server closed the connection"),
            PeerError::TooLarge { limit } => write!(f, "a message above the {limit}-byte limit"),
            PeerError::TooMany { limit, what } => write!(f, "more than {limit} {what} in one answer"),
            PeerError::NoHeaders => f.write_str("the transport has no headers"),
            PeerError::Unreachable(m) => write!(f, "cannot reach the server: {m}"),
            PeerError::Refused { status, detail } => {
                let reason = match status {
                    401 => " Unauthorized",
                    403 => " Forbidden",
                    407 => " Proxy Authentication Required",
                    _ => "",
                };
                write!(f, "the server refused the request: HTTP {status}{reason}")?;
                if detail.is_empty() {
                    Ok(())
                } else {
                    write!(f, " ({detail})")
                }
            }
            PeerError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PeerError {}

/// Watches a run: each step as it begins (progress), each message as it went (a record).
/// Both do nothing by default.
pub trait Observer {
    /// A step (`discover`, `inventory/tools/list`, `legacy/2025-11-25`, …) begins.
    fn step(&mut self, check: &str) {
        let _ = check;
    }

    /// A message went by, as sent: `conversation` names the conversation it belongs to (`None`
    /// the modern one, else the legacy session's `legacy/REVISION`), `http` what the transport
    /// carried with it.
    fn message(&mut self, from: Sender, conversation: Option<&str>, http: Option<&HttpFacts>, text: &[u8]) {
        let _ = (from, conversation, http, text);
    }
}

/// An [`Observer`] that watches nothing.
pub struct Unobserved;

impl Observer for Unobserved {}
