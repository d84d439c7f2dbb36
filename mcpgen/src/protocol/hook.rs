//! Where an extension plugs into the protocol checks: the request gate (`check_request`),
//! message classification (`validate_message` and the conversation's per-message validation)
//! and result judgement (`check_response`, `decode_result`). An extension implements
//! [`ProtocolHooks`] (every method has a no-op default) in its folder `ext/<name>/`; the checks
//! call the registry ([`ProtocolRegistry`] of `crate::ext::Registry`), which loops over the
//! extensions negotiated for the judgement at hand and calls nothing for the others.

use crate::decode::{DecodeError, DecodedResult};
use crate::ext::{Answering, ExtensionHooks, Negotiated, Registry};
use crate::json::{JsonView, Value};
use crate::methods::MethodInfo;
use crate::result_options::ResultOptions;
use crate::validate::{Options, Policy, ValidationError};
use crate::Revision;

use super::{AcceptedRequest, ProtocolError};

/// What one extension adds to the protocol checks.
pub(crate) trait ProtocolHooks: ExtensionHooks {
    /// Request gate (`check_request`, the extension served): `Some` when the request is the
    /// extension's to accept or refuse.
    fn gate<'v, V: JsonView<'v>>(
        _rev: Revision,
        _method: &str,
        _v: &V,
        _id: &Value,
    ) -> Option<Result<AcceptedRequest, ProtocolError>> {
        None
    }

    /// Message classification: the extension's row of `method` under `rev`, where it adds one.
    fn method_row(_rev: Revision, _method: &str) -> Option<&'static MethodInfo> {
        None
    }

    /// Message classification: validates a request or notification of one of the extension's
    /// rows (errors go to `errors`); `false` when `info` is not one of its rows.
    fn validate_message<'v, V: JsonView<'v>>(
        _info: &MethodInfo,
        _v: &V,
        _params: Option<&V>,
        _opts: Options,
        _errors: &mut Vec<ValidationError>,
    ) -> bool {
        false
    }

    /// Message classification: a result whose `resultType` (`rt`) the core does not define,
    /// where the request is unknown (`by_request`: the caller judges it by its request later).
    /// `false` when the extension does not define it.
    fn result_type<'v, V: JsonView<'v>>(
        _rev: Revision,
        _rt: &V,
        _result: &V,
        _by_request: bool,
        _opts: Options,
        _errors: &mut Vec<ValidationError>,
    ) -> bool {
        false
    }

    /// Result judgement: `None` when the core judges the result; else the extension's verdict,
    /// decoded into its types.
    fn decode_result<'v, V: JsonView<'v>>(
        _rev: Revision,
        _req: &Answering<'_>,
        _result: &V,
        _policy: Policy,
    ) -> Option<Result<DecodedResult, DecodeError>> {
        None
    }
}

/// The registry's loops: implemented for `()` (no extension) and `(E, Rest)` (extension `E`,
/// then the rest), so `(A, (B, ()))` asks `A`, then `B`, each only where negotiated. The list
/// is a type, so each loop is unrolled at compile time.
pub(crate) trait ProtocolRegistry {
    fn gate<'v, V: JsonView<'v>>(
        neg: Negotiated,
        rev: Revision,
        method: &str,
        v: &V,
        id: &Value,
    ) -> Option<Result<AcceptedRequest, ProtocolError>>;
    fn method_row(neg: Negotiated, rev: Revision, method: &str) -> Option<&'static MethodInfo>;
    fn validate_message<'v, V: JsonView<'v>>(
        neg: Negotiated,
        info: &MethodInfo,
        v: &V,
        params: Option<&V>,
        opts: Options,
        errors: &mut Vec<ValidationError>,
    ) -> bool;
    #[allow(clippy::too_many_arguments)]
    fn result_type<'v, V: JsonView<'v>>(
        neg: Negotiated,
        rev: Revision,
        rt: &V,
        result: &V,
        by_request: bool,
        opts: Options,
        errors: &mut Vec<ValidationError>,
    ) -> bool;
    fn decode_result<'v, V: JsonView<'v>>(
        rev: Revision,
        req: &Answering<'_>,
        result: &V,
        policy: Policy,
    ) -> Option<Result<DecodedResult, DecodeError>>;
}

impl ProtocolRegistry for () {
    #[inline]
    fn gate<'v, V: JsonView<'v>>(
        _: Negotiated,
        _: Revision,
        _: &str,
        _: &V,
        _: &Value,
    ) -> Option<Result<AcceptedRequest, ProtocolError>> {
        None
    }
    #[inline]
    fn method_row(_: Negotiated, _: Revision, _: &str) -> Option<&'static MethodInfo> {
        None
    }
    #[inline]
    fn validate_message<'v, V: JsonView<'v>>(
        _: Negotiated,
        _: &MethodInfo,
        _: &V,
        _: Option<&V>,
        _: Options,
        _: &mut Vec<ValidationError>,
    ) -> bool {
        false
    }
    #[inline]
    fn result_type<'v, V: JsonView<'v>>(
        _: Negotiated,
        _: Revision,
        _: &V,
        _: &V,
        _: bool,
        _: Options,
        _: &mut Vec<ValidationError>,
    ) -> bool {
        false
    }
    #[inline]
    fn decode_result<'v, V: JsonView<'v>>(
        _: Revision,
        _: &Answering<'_>,
        _: &V,
        _: Policy,
    ) -> Option<Result<DecodedResult, DecodeError>> {
        None
    }
}

impl<E: ProtocolHooks, Rest: ProtocolRegistry> ProtocolRegistry for (E, Rest) {
    #[inline]
    fn gate<'v, V: JsonView<'v>>(
        neg: Negotiated,
        rev: Revision,
        method: &str,
        v: &V,
        id: &Value,
    ) -> Option<Result<AcceptedRequest, ProtocolError>> {
        if neg.has(E::BIT) {
            if let Some(verdict) = E::gate(rev, method, v, id) {
                return Some(verdict);
            }
        }
        Rest::gate(neg, rev, method, v, id)
    }
    #[inline]
    fn method_row(neg: Negotiated, rev: Revision, method: &str) -> Option<&'static MethodInfo> {
        if neg.has(E::BIT) {
            if let Some(row) = E::method_row(rev, method) {
                return Some(row);
            }
        }
        Rest::method_row(neg, rev, method)
    }
    #[inline]
    fn validate_message<'v, V: JsonView<'v>>(
        neg: Negotiated,
        info: &MethodInfo,
        v: &V,
        params: Option<&V>,
        opts: Options,
        errors: &mut Vec<ValidationError>,
    ) -> bool {
        (neg.has(E::BIT) && E::validate_message(info, v, params, opts, errors))
            || Rest::validate_message(neg, info, v, params, opts, errors)
    }
    #[inline]
    fn result_type<'v, V: JsonView<'v>>(
        neg: Negotiated,
        rev: Revision,
        rt: &V,
        result: &V,
        by_request: bool,
        opts: Options,
        errors: &mut Vec<ValidationError>,
    ) -> bool {
        (neg.has(E::BIT) && E::result_type(rev, rt, result, by_request, opts, errors))
            || Rest::result_type(neg, rev, rt, result, by_request, opts, errors)
    }
    #[inline]
    fn decode_result<'v, V: JsonView<'v>>(
        rev: Revision,
        req: &Answering<'_>,
        result: &V,
        policy: Policy,
    ) -> Option<Result<DecodedResult, DecodeError>> {
        if E::judges(req.negotiated, rev, result) {
            if let Some(decoded) = E::decode_result(rev, req, result, policy) {
                return Some(decoded);
            }
        }
        Rest::decode_result(rev, req, result, policy)
    }
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
