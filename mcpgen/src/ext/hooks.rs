//! The base of an extension's hooks ([`ExtensionHooks`]): who it is, how it is negotiated, and
//! the vocabulary it adds; and what every other hook is given, which extensions are negotiated
//! for the judgement at hand ([`Negotiated`], one bit per registered extension, from a caller's
//! list, a client's capabilities, or a request's extension `resultType`s). A leaf: the core's
//! call points (`protocol/hook.rs`, `conversation/hook.rs`), the options types and the HTTP
//! vocabulary use it without reaching the extensions.

use crate::json::{JsonView, Kind};

use super::Extension;

/// The extensions negotiated for one judgement: one bit per registered extension
/// ([`ExtensionHooks::BIT`]). What the caller says was negotiated (`negotiated` of
/// [`crate::MessageOptions`] and [`crate::ResultOptions`], the extensions a
/// [`crate::protocol::ServerConfig`] serves) and what a message declares itself, in one type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Negotiated(u8);

impl Negotiated {
    /// None negotiated.
    pub const NONE: Negotiated = Negotiated(0);

    /// The registered extensions among `extensions`.
    pub fn of(extensions: &[Extension]) -> Negotiated {
        <super::Registry as Registered>::named(extensions)
    }

    /// The registered extensions a capabilities object declares (`extensions["<id>"]`).
    #[inline]
    pub fn declared_in<'v, V: JsonView<'v>>(capabilities: &V) -> Negotiated {
        <super::Registry as Registered>::declared_in(capabilities)
    }

    /// The registered extensions among a request's extension `resultType`s.
    pub fn by_result_types(result_types: &[&str]) -> Negotiated {
        if result_types.is_empty() {
            return Negotiated::NONE;
        }
        <super::Registry as Registered>::by_result_types(result_types)
    }

    /// The `params` member `Mcp-Name` mirrors for a method of a registered extension, and the
    /// rule that requires it.
    pub fn name_header(method: &str) -> Option<(&'static str, &'static str)> {
        <super::Registry as Registered>::name_header(method)
    }

    /// Whether the extension of `bit` is in the set.
    #[inline]
    pub fn has(self, bit: u8) -> bool {
        self.0 & (1 << bit) != 0
    }

    /// The set with the extension of `bit`.
    #[inline]
    pub fn with(self, bit: u8) -> Negotiated {
        Negotiated(self.0 | (1 << bit))
    }

    /// Both sets.
    #[inline]
    pub fn union(self, other: Negotiated) -> Negotiated {
        Negotiated(self.0 | other.0)
    }

    /// Whether no extension is in the set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Who a result answers, for the extensions' result judgement.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answering<'a> {
    /// The request's method.
    pub method: &'a str,
    /// The extensions the request declared (or the caller says were negotiated for it).
    pub negotiated: Negotiated,
    /// For a result about earlier work (a `tasks/get` of the Tasks extension): the method of
    /// the request that work answers, when known ([`crate::ResultOptions::task_of`]).
    pub work_of: Option<&'a str>,
}

/// What every extension says about itself and its negotiation; the supertrait of its hooks
/// at the protocol checks (`ProtocolHooks`) and in the conversation checker
/// (`ConversationHooks`).
pub(crate) trait ExtensionHooks {
    /// Its bit in [`Negotiated`] (unique in the registry, below 8).
    const BIT: u8;
    /// The core revision it layers on (its methods and `resultType`s exist only there).
    const LAYERS_ON: &'static str;
    /// The `resultType`s the extension defines: a result of one reaches the extension's result
    /// judgement even where it was not negotiated (answering a request that did not declare
    /// the extension is the extension's rule to report).
    const RESULT_TYPES: &'static [&'static str] = &[];
    /// Message classification of the HTTP transport (HTTP-10): its methods whose `params`
    /// member `Mcp-Name` mirrors, as `(method, member, rule)`. Pinned, so looked up whether or
    /// not the extension is negotiated (a header is written and checked without a session).
    const NAME_HEADERS: &'static [(&'static str, &'static str, &'static str)] = &[];

    /// Whether `extensions` name this extension (a caller's negotiated list).
    fn named(extensions: &[Extension]) -> bool;
    /// Whether a capabilities object declares the extension.
    fn declares<'v, V: JsonView<'v>>(capabilities: &V) -> bool;

    /// Whether the hook is called for a result answering a request of revision `rev`: the
    /// extension is negotiated, or the result carries a `resultType` it defines in the revision
    /// it layers on.
    #[inline]
    fn judges<'v, V: JsonView<'v>>(neg: Negotiated, rev: crate::Revision, result: &V) -> bool {
        neg.has(Self::BIT)
            || (!Self::RESULT_TYPES.is_empty()
                && rev.as_str() == Self::LAYERS_ON
                && result.kind() == Kind::Object
                && result.get("resultType").is_some_and(|rt| Self::RESULT_TYPES.iter().any(|t| rt.str_eq(t))))
    }
}

/// The base hooks over the registry: implemented for `()` (no extension) and `(E, Rest)`
/// (extension `E`, then the rest), the type-level list [`super::Registry`] is.
pub(crate) trait Registered {
    fn name_header(method: &str) -> Option<(&'static str, &'static str)>;
    fn named(extensions: &[Extension]) -> Negotiated;
    fn declared_in<'v, V: JsonView<'v>>(capabilities: &V) -> Negotiated;
    fn by_result_types(result_types: &[&str]) -> Negotiated;
}

impl Registered for () {
    #[inline]
    fn name_header(_: &str) -> Option<(&'static str, &'static str)> {
        None
    }
    #[inline]
    fn named(_: &[Extension]) -> Negotiated {
        Negotiated::NONE
    }
    #[inline]
    fn declared_in<'v, V: JsonView<'v>>(_: &V) -> Negotiated {
        Negotiated::NONE
    }
    #[inline]
    fn by_result_types(_: &[&str]) -> Negotiated {
        Negotiated::NONE
    }
}

impl<E: ExtensionHooks, Rest: Registered> Registered for (E, Rest) {
    fn name_header(method: &str) -> Option<(&'static str, &'static str)> {
        match E::NAME_HEADERS.iter().find(|(m, _, _)| *m == method) {
            Some(&(_, member, rule)) => Some((member, rule)),
            None => Rest::name_header(method),
        }
    }
    fn named(extensions: &[Extension]) -> Negotiated {
        let rest = Rest::named(extensions);
        if E::named(extensions) {
            rest.with(E::BIT)
        } else {
            rest
        }
    }
    #[inline]
    fn declared_in<'v, V: JsonView<'v>>(capabilities: &V) -> Negotiated {
        let rest = Rest::declared_in(capabilities);
        if E::declares(capabilities) {
            rest.with(E::BIT)
        } else {
            rest
        }
    }
    fn by_result_types(result_types: &[&str]) -> Negotiated {
        let rest = Rest::by_result_types(result_types);
        if E::RESULT_TYPES.iter().any(|t| result_types.contains(t)) {
            rest.with(E::BIT)
        } else {
            rest
        }
    }
}
