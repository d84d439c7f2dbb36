//! The one pass over a message that every rule family reads: who sent it, what it is, its
//! method and that method's row in the revision it is judged under, its id as a key, and the
//! `params` and `_meta` members the rules look at. Each member is read once: the top level by
//! [`Envelope::read`] (whose reading per-message validation shares, with the method row), then
//! one walk over `params` and one over `params._meta`; the families read the message again
//! only for what one of them alone needs (a listen filter, a result's members).

use std::borrow::Cow;

use crate::json::{JsonView, Kind};
use crate::methods::MethodInfo;
use crate::Revision;

use crate::protocol::{self, Envelope};

use super::era::{self, Asked, EraState};
use super::keys::IdKey;

pub(super) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(super) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub(super) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub(super) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Which side sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    Client,
    Server,
}

impl Sender {
    /// `"client"` or `"server"` (the conversation file's `from`).
    pub fn as_str(self) -> &'static str {
        match self {
            Sender::Client => "client",
            Sender::Server => "server",
        }
    }

    /// The other side.
    pub fn peer(self) -> Sender {
        match self {
            Sender::Client => Sender::Server,
            Sender::Server => Sender::Client,
        }
    }

    /// The index of per-sender tables.
    pub(super) fn ix(self) -> usize {
        match self {
            Sender::Client => 0,
            Sender::Server => 1,
        }
    }
}

impl std::str::FromStr for Sender {
    type Err = UnknownSender;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "client" => Ok(Sender::Client),
            "server" => Ok(Sender::Server),
            _ => Err(UnknownSender(s.to_owned())),
        }
    }
}

/// A sender name that is neither `client` nor `server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSender(pub String);

impl std::fmt::Display for UnknownSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown sender {:?} (expected \"client\" or \"server\")", self.0)
    }
}
impl std::error::Error for UnknownSender {}

/// What the envelope says a message is, for the cross-message rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A string `method` and an `id` member (of any value).
    Request,
    /// A string `method` and no `id`.
    Notification,
    /// An object without `method`.
    Response,
    /// Not an object, or a `method` that is not a string: per-message validation says why.
    Other,
}

/// The facts of one message.
pub(crate) struct Facts<'v, V> {
    pub from: Sender,
    pub shape: Shape,
    /// The message itself.
    pub msg: V,
    /// `method`, when it is a string.
    pub method: Option<Cow<'v, str>>,
    /// `id` as a key, when it is a string or an integer literal.
    pub id: Option<IdKey>,
    /// `params` (requests and notifications).
    pub params: Option<V>,
    /// `result` (responses).
    pub result: Option<V>,
    /// `error`, whatever the message is (the envelope's member).
    pub error: Option<V>,
    /// The message has a `result` or an `error` member, whatever else it has.
    pub answer_member: bool,
    /// The `id` member is absent or `null`.
    pub id_unread: bool,
    /// The revision the message is judged under, and its era.
    pub rev: Revision,
    pub modern: bool,
    /// The method's row in `rev`.
    pub info: Option<&'static MethodInfo>,
    // `_meta` members.
    /// `protocolVersion` is present.
    pub versioned: bool,
    /// A string `protocolVersion` and an object `clientCapabilities` (META-6 is satisfied).
    pub meta_complete: bool,
    /// The progress token: a request's `_meta.progressToken`, a notification's
    /// `params.progressToken` (`notifications/progress`).
    /// What the message says about its own revision (the era state reads it).
    pub(super) asked: Asked,
    pub progress_token: Option<IdKey>,
    /// `logLevel` is present (LOG-1).
    pub log_level: bool,
    pub client_caps: Option<V>,
    pub subscription_id: Option<V>,
    // `params` members of a request.
    /// `inputResponses` or `requestState`: an MRTR retry.
    pub retry: bool,
    /// `task` (2025-11-25 task augmentation).
    pub task: bool,
    pub cursor: Option<V>,
    // `params` members of a notification (and `uri` of a legacy subscribe).
    /// `params.progress`, as a number.
    pub progress: Option<f64>,
    /// `params.requestId` (`notifications/cancelled`).
    pub request_id: Option<IdKey>,
    /// `params.uri`.
    pub uri: Option<V>,
    /// The Streamable HTTP exchange the message belongs to, when ids are told apart per
    /// exchange (every id-like key above is already [`IdKey::in_exchange`]).
    pub exchange: Option<u64>,
}

impl<'v, V: JsonView<'v>> Facts<'v, V> {
    /// Reads the message once and judges its revision under `era` (`answering` gives the
    /// revision of the pending request a response's id names; `exchange` scopes the ids). `None`
    /// when no revision is compiled into this build.
    #[inline]
    pub(super) fn gather(
        from: Sender,
        v: &V,
        env: &Envelope<V>,
        (era, exchange): (&EraState, Option<u64>),
        answering: impl FnOnce(&IdKey) -> Option<Revision>,
    ) -> Option<Facts<'v, V>> {
        let method = env.method.as_ref().and_then(|m| m.as_str());
        let params = env.params.clone().filter(|_| method.is_some());
        let result = env.result.clone().filter(|_| method.is_none());
        let shape = Shape::of(env, method.is_some());
        let id = env.id.as_ref().and_then(|x| id_key(x, exchange));
        let mut asked = Asked {
            request: method.is_some() && id.is_some(),
            initialize: method.as_deref() == Some("initialize"),
            ..Asked::default()
        };
        let p = ParamsRead::read(params.as_ref(), exchange, &mut asked);
        let m = MetaRead::read(p.meta.as_ref(), exchange, &mut asked);
        asked.answering = id.as_ref().filter(|_| method.is_none()).map(answering);
        let rev = era.judge(&asked)?;
        let info = method.as_deref().and_then(|m| protocol::find_method(rev, m));
        Some(Facts {
            from,
            shape,
            msg: v.clone(),
            method,
            id,
            params,
            result,
            error: env.error.clone(),
            answer_member: env.result.is_some() || env.error.is_some(),
            id_unread: env.id.as_ref().is_none_or(|i| i.kind() == Kind::Null),
            rev,
            modern: era::is_modern(rev),
            info,
            versioned: m.versioned,
            meta_complete: m.version_string && m.caps_object,
            progress_token: if shape == Shape::Request { m.progress_token } else { p.progress_token },
            asked,
            log_level: m.log_level,
            client_caps: m.client_caps,
            subscription_id: m.subscription_id,
            retry: p.retry,
            task: p.task,
            cursor: p.cursor,
            progress: p.progress,
            request_id: p.request_id,
            uri: p.uri,
            exchange,
        })
    }

    /// A `params` member (notifications read their own).
    pub fn param(&self, key: &str) -> Option<V> {
        self.params.as_ref().and_then(|p| p.get(key))
    }

    /// `params.uri`, when it is a string.
    pub fn uri(&self) -> Option<Cow<'v, str>> {
        self.uri.as_ref().and_then(|u| u.as_str())
    }
}

impl Shape {
    /// What the envelope says a message is; `string_method`: its `method` is a string.
    #[inline]
    fn of<'v, V: JsonView<'v>>(env: &Envelope<V>, string_method: bool) -> Shape {
        match (string_method, env.method.is_some(), env.id.is_some()) {
            _ if env.kind != Kind::Object => Shape::Other,
            (true, _, true) => Shape::Request,
            (true, _, false) => Shape::Notification,
            (false, true, _) => Shape::Other,
            (false, false, _) => Shape::Response,
        }
    }
}

/// An id-like member as a key in `exchange`, when it is a string or an integer literal.
#[inline]
fn id_key<'v, V: JsonView<'v>>(x: &V, exchange: Option<u64>) -> Option<IdKey> {
    IdKey::of(x).map(|k| k.in_exchange(exchange))
}

/// The `params` members the rules read, from one walk over `params`.
struct ParamsRead<V> {
    /// `_meta`, when it is an object.
    meta: Option<V>,
    retry: bool,
    task: bool,
    cursor: Option<V>,
    /// `params.progressToken` (`notifications/progress`).
    progress_token: Option<IdKey>,
    progress: Option<f64>,
    request_id: Option<IdKey>,
    uri: Option<V>,
}

impl<'v, V: JsonView<'v>> ParamsRead<V> {
    /// Walks `params` once; a `protocolVersion` member (a legacy `initialize`'s) goes to
    /// `asked`.
    #[inline]
    fn read(params: Option<&V>, exchange: Option<u64>, asked: &mut Asked) -> Self {
        let mut read = ParamsRead {
            meta: None,
            retry: false,
            task: false,
            cursor: None,
            progress_token: None,
            progress: None,
            request_id: None,
            uri: None,
        };
        let Some(p) = params else { return read };
        for (k, x) in p.entries() {
            match k.as_ref() {
                "_meta" => read.meta = (x.kind() == Kind::Object).then_some(x),
                "inputResponses" | "requestState" => read.retry = true,
                "task" => read.task = true,
                "cursor" => read.cursor = Some(x),
                "protocolVersion" => asked.initialize_version = x.as_str().and_then(|s| Revision::parse(&s)),
                "progressToken" => read.progress_token = id_key(&x, exchange),
                "progress" => read.progress = x.as_f64(),
                "requestId" => read.request_id = id_key(&x, exchange),
                "uri" => read.uri = Some(x),
                _ => {}
            }
        }
        read
    }
}

/// The `params._meta` members the rules read, from one walk over `_meta`.
struct MetaRead<V> {
    /// `protocolVersion` is present.
    versioned: bool,
    /// `protocolVersion` is a string.
    version_string: bool,
    /// A request's `_meta.progressToken`.
    progress_token: Option<IdKey>,
    log_level: bool,
    client_caps: Option<V>,
    /// `clientCapabilities` is an object.
    caps_object: bool,
    subscription_id: Option<V>,
}

impl<'v, V: JsonView<'v>> MetaRead<V> {
    /// Walks `_meta` once; the revision its `protocolVersion` names goes to `asked`.
    #[inline]
    fn read(meta: Option<&V>, exchange: Option<u64>, asked: &mut Asked) -> Self {
        let mut read = MetaRead {
            versioned: false,
            version_string: false,
            progress_token: None,
            log_level: false,
            client_caps: None,
            caps_object: false,
            subscription_id: None,
        };
        let Some(m) = meta else { return read };
        for (k, x) in m.entries() {
            match k.as_ref() {
                PROTOCOL_VERSION => {
                    read.versioned = true;
                    let version = x.as_str();
                    read.version_string = version.is_some();
                    asked.meta_version = Some(version.and_then(|s| Revision::parse(&s)));
                }
                "progressToken" => read.progress_token = id_key(&x, exchange),
                LOG_LEVEL => read.log_level = true,
                CLIENT_CAPABILITIES => {
                    read.caps_object = x.kind() == Kind::Object;
                    read.client_caps = Some(x);
                }
                SUBSCRIPTION_ID => read.subscription_id = Some(x),
                _ => {}
            }
        }
        read
    }
}
