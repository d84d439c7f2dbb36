//! Where an extension plugs into the conversation checker: its step over each message (a
//! request, a notification, a result), with its own state slots — one per session
//! ([`ConversationHooks::Session`]) and one per request in flight
//! ([`ConversationHooks::Pending`]), kept as fields of the session and of the pending request,
//! not boxed. An extension implements [`ConversationHooks`] in its folder `ext/<name>/`; the
//! observe pass calls the registry ([`ConversationRegistry`] of `crate::ext::Registry`), which
//! loops over the extensions the session negotiated.

use std::fmt::Debug;

use crate::ext::{ExtensionHooks, Negotiated};
use crate::json::JsonView;
use crate::methods::MethodInfo;
use crate::Revision;

use super::facts::Facts;
use super::finding::Finding;
use super::keys::IdKey;
use super::options::ConversationOptions;

/// What one extension does over a conversation. Every step has a no-op default.
pub(crate) trait ConversationHooks: ExtensionHooks {
    /// What a conversation keeps of the extension per session.
    type Session: Clone + Debug;
    /// What a conversation keeps of the extension per request in flight.
    type Pending: Clone + Debug + Default;

    /// The session state of a new conversation.
    fn new_session(opts: &ConversationOptions) -> Self::Session;

    /// A request (its row, if the extension's, in `f.info`): what its answer needs is kept in
    /// the pending slot.
    fn on_request<'v, V: JsonView<'v>>(
        _f: &Facts<'v, V>,
        _method: &str,
        _s: &Self::Session,
        _out: &mut Vec<Finding>,
    ) -> Self::Pending {
        Self::Pending::default()
    }

    /// A notification.
    fn on_notification<'v, V: JsonView<'v>>(
        _f: &Facts<'v, V>,
        _opts: &ConversationOptions,
        _s: &mut Self::Session,
        _out: &mut Vec<Finding>,
    ) {
    }

    /// A result answering the request of `info` (`rev`: its revision, `declared`: the
    /// extensions it declared, `mine`: its slot). `None` when the core judges it; else whether
    /// it was valid (the extension judged it and moved its state).
    #[allow(clippy::too_many_arguments)]
    fn on_result<'v, V: JsonView<'v>>(
        _opts: &ConversationOptions,
        _info: &'static MethodInfo,
        _asked: (Revision, Negotiated),
        _mine: &Self::Pending,
        _id: &IdKey,
        _result: &V,
        _s: &mut Self::Session,
        _out: &mut Vec<Finding>,
    ) -> Option<bool> {
        None
    }

    /// Entries the session state holds (the bounded-memory tests).
    #[cfg(test)]
    fn tracked(_s: &Self::Session) -> usize {
        0
    }
}

/// The registry's loops (see `protocol/hook.rs`): `()` and `(E, Rest)`, each step only for an
/// extension the session negotiated (a result also for the extension whose `resultType` it
/// carries).
pub(crate) trait ConversationRegistry {
    type Session: Clone + Debug;
    type Pending: Clone + Debug + Default;

    fn new_session(opts: &ConversationOptions) -> Self::Session;
    fn on_request<'v, V: JsonView<'v>>(
        neg: Negotiated,
        f: &Facts<'v, V>,
        method: &str,
        s: &Self::Session,
        out: &mut Vec<Finding>,
    ) -> Self::Pending;
    fn on_notification<'v, V: JsonView<'v>>(
        neg: Negotiated,
        f: &Facts<'v, V>,
        opts: &ConversationOptions,
        s: &mut Self::Session,
        out: &mut Vec<Finding>,
    );
    #[allow(clippy::too_many_arguments)]
    fn on_result<'v, V: JsonView<'v>>(
        neg: Negotiated,
        opts: &ConversationOptions,
        info: &'static MethodInfo,
        asked: (Revision, Negotiated),
        mine: &Self::Pending,
        id: &IdKey,
        result: &V,
        s: &mut Self::Session,
        out: &mut Vec<Finding>,
    ) -> Option<bool>;
    #[cfg(test)]
    fn tracked(s: &Self::Session) -> usize;
}

impl ConversationRegistry for () {
    type Session = ();
    type Pending = ();

    fn new_session(_: &ConversationOptions) {}
    #[inline]
    fn on_request<'v, V: JsonView<'v>>(_: Negotiated, _: &Facts<'v, V>, _: &str, _: &(), _: &mut Vec<Finding>) {}
    #[inline]
    fn on_notification<'v, V: JsonView<'v>>(
        _: Negotiated,
        _: &Facts<'v, V>,
        _: &ConversationOptions,
        _: &mut (),
        _: &mut Vec<Finding>,
    ) {
    }
    #[inline]
    fn on_result<'v, V: JsonView<'v>>(
        _: Negotiated,
        _: &ConversationOptions,
        _: &'static MethodInfo,
        _: (Revision, Negotiated),
        _: &(),
        _: &IdKey,
        _: &V,
        _: &mut (),
        _: &mut Vec<Finding>,
    ) -> Option<bool> {
        None
    }
    #[cfg(test)]
    fn tracked(_: &()) -> usize {
        0
    }
}

impl<E: ConversationHooks, Rest: ConversationRegistry> ConversationRegistry for (E, Rest) {
    type Session = (E::Session, Rest::Session);
    type Pending = (E::Pending, Rest::Pending);

    fn new_session(opts: &ConversationOptions) -> Self::Session {
        (E::new_session(opts), Rest::new_session(opts))
    }
    #[inline]
    fn on_request<'v, V: JsonView<'v>>(
        neg: Negotiated,
        f: &Facts<'v, V>,
        method: &str,
        s: &Self::Session,
        out: &mut Vec<Finding>,
    ) -> Self::Pending {
        let mine = if neg.has(E::BIT) { E::on_request(f, method, &s.0, out) } else { E::Pending::default() };
        (mine, Rest::on_request(neg, f, method, &s.1, out))
    }
    #[inline]
    fn on_notification<'v, V: JsonView<'v>>(
        neg: Negotiated,
        f: &Facts<'v, V>,
        opts: &ConversationOptions,
        s: &mut Self::Session,
        out: &mut Vec<Finding>,
    ) {
        if neg.has(E::BIT) {
            E::on_notification(f, opts, &mut s.0, out);
        }
        Rest::on_notification(neg, f, opts, &mut s.1, out);
    }
    #[inline]
    fn on_result<'v, V: JsonView<'v>>(
        neg: Negotiated,
        opts: &ConversationOptions,
        info: &'static MethodInfo,
        asked: (Revision, Negotiated),
        mine: &Self::Pending,
        id: &IdKey,
        result: &V,
        s: &mut Self::Session,
        out: &mut Vec<Finding>,
    ) -> Option<bool> {
        if E::judges(neg, asked.0, result) {
            if let Some(valid) = E::on_result(opts, info, asked, &mine.0, id, result, &mut s.0, out) {
                return Some(valid);
            }
        }
        Rest::on_result(neg, opts, info, asked, &mine.1, id, result, &mut s.1, out)
    }
    #[cfg(test)]
    fn tracked(s: &Self::Session) -> usize {
        E::tracked(&s.0) + Rest::tracked(&s.1)
    }
}
