//! Where an extension plugs into the conversation checker: its step over each message (a
//! request, a notification, a result), with its own state slots — one per session
//! ([`ConversationHooks::Session`]) and one per request in flight
//! ([`ConversationHooks::Pending`]), kept as fields of the session and of the pending request,
//! not boxed. An extension implements [`ConversationHooks`] in its folder `ext/<name>/`; the
//! observe pass calls the registry ([`ConversationRegistry`] of `crate::ext::Registry`), which
//! loops over the extensions the session negotiated. Both traits are written by
//! `hook_registry!` (`ext/registry.rs`) from the one list below.

use std::fmt::Debug;

use crate::ext::{hook_registry, ExtensionHooks, Negotiated};
use crate::json::JsonView;
use crate::methods::MethodInfo;
use crate::Revision;

use super::facts::Facts;
use super::finding::Finding;
use super::keys::IdKey;
use super::options::ConversationOptions;

hook_registry! {
    /// What one extension does over a conversation. Every step has a no-op default.
    pub(crate) trait ConversationHooks: ExtensionHooks {
        /// What a conversation keeps of the extension per session.
        type Session: Clone + Debug;
        /// What a conversation keeps of the extension per request in flight.
        type Pending: Clone + Debug + Default;

        /// The session state of a new conversation.
        fn new_session(opts: &ConversationOptions) -> Self::Session => slots;

        /// A request (its row, if the extension's, in `f.info`): what its answer needs is kept in
        /// the pending slot.
        fn on_request<'v, V: JsonView<'v>>(
            f: &Facts<'v, V>,
            method: &str,
            s: &Self::Session,
            out: &mut Vec<Finding>,
        ) -> Self::Pending
            => slots if negotiated;

        /// A notification.
        fn on_notification<'v, V: JsonView<'v>>(
            f: &Facts<'v, V>,
            opts: &ConversationOptions,
            s: &mut Self::Session,
            out: &mut Vec<Finding>,
        ) => each if negotiated;

        /// A result answering the request of `info` (`rev`: its revision, `declared`: the
        /// extensions it declared, `mine`: its slot). `None` when the core judges it; else whether
        /// it was valid (the extension judged it and moved its state).
        #[allow(clippy::too_many_arguments)]
        fn on_result<'v, V: JsonView<'v>>(
            opts: &ConversationOptions,
            info: &'static MethodInfo,
            asked: (Revision, Negotiated),
            mine: &Self::Pending,
            id: &IdKey,
            result: &V,
            s: &mut Self::Session,
            out: &mut Vec<Finding>,
        ) -> Option<bool>
            => first_some if judges(negotiated, asked.0, result);

        /// Entries the session state holds (the bounded-memory tests).
        #[cfg(test)]
        fn tracked(s: &Self::Session) -> usize => sum;
    }

    /// The registry's loops (see `protocol/hook.rs`): `()` and `(E, Rest)`, each step only for an
    /// extension the session negotiated (a result also for the extension whose `resultType` it
    /// carries).
    pub(crate) trait ConversationRegistry;
}
