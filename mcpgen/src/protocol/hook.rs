//! Where an extension plugs into the protocol checks: the request gate (`check_request`),
//! message classification (`validate_message` and the conversation's per-message validation)
//! and result judgement (`check_response`, `decode_result`). An extension implements
//! [`ProtocolHooks`] (every method has a no-op default) in its folder `ext/<name>/`; the checks
//! call the registry ([`ProtocolRegistry`] of `crate::ext::Registry`), which loops over the
//! extensions negotiated for the judgement at hand and calls nothing for the others. Both
//! traits are written by `hook_registry!` (`ext/registry.rs`) from one list of hooks: a hook is
//! one entry, its signature and how the registry combines the extensions' answers.

use crate::decode::{DecodeError, DecodedResult};
use crate::ext::{hook_registry, Answering, ExtensionHooks, Registry};
use crate::json::{JsonView, Value};
use crate::methods::MethodInfo;
use crate::result_options::ResultOptions;
use crate::validate::{Options, Policy, ValidationError};
use crate::Revision;

use super::{AcceptedRequest, ProtocolError};

hook_registry! {
    /// What one extension adds to the protocol checks.
    pub(crate) trait ProtocolHooks: ExtensionHooks {
        /// Request gate (`check_request`, the extension served): `Some` when the request is the
        /// extension's to accept or refuse.
        fn gate<'v, V: JsonView<'v>>(rev: Revision, method: &str, v: &V, id: &Value)
            -> Option<Result<AcceptedRequest, ProtocolError>>
            => first_some if negotiated;

        /// Message classification: the extension's row of `method` under `rev`, where it adds one.
        fn method_row(rev: Revision, method: &str) -> Option<&'static MethodInfo>
            => first_some if negotiated;

        /// Message classification: validates a request or notification of one of the extension's
        /// rows (errors go to `errors`); `false` when `info` is not one of its rows.
        fn validate_message<'v, V: JsonView<'v>>(
            info: &MethodInfo,
            v: &V,
            params: Option<&V>,
            opts: Options,
            errors: &mut Vec<ValidationError>,
        ) -> bool
            => any if negotiated;

        /// Message classification: a result whose `resultType` (`rt`) the core does not define,
        /// where the request is unknown (`by_request`: the caller judges it by its request later).
        /// `false` when the extension does not define it.
        fn result_type<'v, V: JsonView<'v>>(
            rev: Revision,
            rt: &V,
            result: &V,
            by_request: bool,
            opts: Options,
            errors: &mut Vec<ValidationError>,
        ) -> bool
            => any if negotiated;

        /// Result judgement: `None` when the core judges the result; else the extension's verdict,
        /// decoded into its types.
        fn decode_result<'v, V: JsonView<'v>>(rev: Revision, req: &Answering<'_>, result: &V, policy: Policy)
            -> Option<Result<DecodedResult, DecodeError>>
            => first_some if judges(req.negotiated, rev, result);
    }

    /// The registry's loops: implemented for `()` (no extension) and `(E, Rest)` (extension `E`,
    /// then the rest), so `(A, (B, ()))` asks `A`, then `B`, each only where negotiated. The list
    /// is a type, so each loop is unrolled at compile time.
    pub(crate) trait ProtocolRegistry;
}

/// The extensions' result judgement of a result answering the request `options` describe:
/// `None` when the core decodes it.
pub(crate) fn decode_by_extension<'v, V: JsonView<'v>>(
    rev: Revision,
    options: &ResultOptions<'_>,
    result: &V,
) -> Option<Result<DecodedResult, DecodeError>> {
    Registry::decode_result(rev, &options.answering(), result, options.policy)
}
