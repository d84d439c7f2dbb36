//! The generated method table and result decoding by method.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::rust::Ctx;
use crate::ir::{DeclKind, Direction, MethodKind, Ty};

pub fn methods(cx: &Ctx) -> TokenStream {
    let m = cx.m;
    let entries = m.methods.iter().map(|x| {
        let method = &x.method;
        let kind = match x.kind {
            MethodKind::Request => quote! { crate::methods::MethodKind::Request },
            MethodKind::Notification => quote! { crate::methods::MethodKind::Notification },
        };
        let dir = match x.direction {
            Direction::ClientToServer => quote! { crate::methods::Direction::ClientToServer },
            Direction::ServerToClient => quote! { crate::methods::Direction::ServerToClient },
            Direction::Both => quote! { crate::methods::Direction::Both },
            Direction::EmbeddedInput => quote! { crate::methods::Direction::EmbeddedInput },
            Direction::Unspecified => quote! { crate::methods::Direction::Unspecified },
        };
        let req = &x.request_def;
        let params = match &x.params_type {
            Some(p) => quote! { Some(#p) },
            None => quote! { None },
        };
        let preq = x.params_required;
        let results = &x.result_defs;
        let irr = x.input_required;
        let task = match &x.task_result {
            Some(t) => quote! { Some(#t) },
            None => quote! { None },
        };
        quote! {
            crate::methods::MethodInfo {
                method: #method,
                kind: #kind,
                direction: #dir,
                request_def: #req,
                params_type: #params,
                params_required: #preq,
                result_defs: &[#(#results),*],
                input_required: #irr,
                task_result: #task,
            }
        }
    });
    // Distinct result definitions, for the decoded-result enum.
    let mut result_defs: Vec<String> = Vec::new();
    for x in &m.methods {
        for r in x.result_defs.iter().chain(&x.task_result) {
            if !result_defs.contains(r) {
                result_defs.push(r.clone());
            }
        }
    }
    let variants = result_defs.iter().map(|r| {
        let v = format_ident!("{}", r);
        let doc = format!(" A [`{r}`].");
        quote! { #[doc = #doc] #v(#v) }
    });
    let names = result_defs.iter().map(|r| {
        let v = format_ident!("{}", r);
        quote! { MethodResult::#v(_) => #r }
    });
    let writes = result_defs.iter().map(|r| {
        let v = format_ident!("{}", r);
        quote! { MethodResult::#v(x) => x.write_json(w) }
    });
    let def_arms = result_defs.iter().map(|r| {
        let v = format_ident!("{}", r);
        quote! { Some(#r) => MethodResult::#v(<#v as crate::decode::Decode>::decode_view(v, opts)?) }
    });
    let has_rt = m
        .def("Result")
        .and_then(|d| m.resolve_decl(&d.schema))
        .is_some_and(|d| matches!(&d.kind, DeclKind::Object(o) if o.props.iter().any(|p| p.key == "resultType")));
    let _ = Ty::Any;
    quote! {
        /// Every method of the revision: request and notification definitions, params and
        /// result types, direction.
        pub static METHODS: &[crate::methods::MethodInfo] = &[#(#entries),*];

        /// Looks a method up by name.
        pub fn method(name: &str) -> ::std::option::Option<&'static crate::methods::MethodInfo> {
            METHODS.iter().find(|m| m.method == name)
        }

        /// Whether results of this revision carry `resultType`.
        pub const RESULTS_HAVE_RESULT_TYPE: bool = #has_rt;

        /// A result decoded by the request it answers: what `mcpgen::decode_result` returns for
        /// this revision, behind `DecodedResult::downcast_ref`.
        #[derive(Debug, Clone, PartialEq)]
        pub enum MethodResult {
            #(#variants,)*
            /// A result with the `resultType` of a negotiated extension: kept as it was,
            /// never forced into a known type.
            Raw(crate::json::Value),
        }

        impl MethodResult {
            /// The variant's name (`CallToolResult`, `InputRequiredResult`, `Raw`).
            pub fn variant_name(&self) -> &'static str {
                match self {
                    #(#names,)*
                    MethodResult::Raw(_) => "Raw",
                }
            }
        }

        impl ToJson for MethodResult {
            fn write_json(&self, w: &mut JsonWriter) {
                match self {
                    #(#writes,)*
                    MethodResult::Raw(x) => x.write_json(w),
                }
            }
        }

        /// The definition a result is checked against
        /// ([`crate::methods::result_definition`] on this revision's table): `resultType`
        /// first (RESULT-1/3/5, MRTR-3), then the request (method, task augmentation);
        /// `None` for a negotiated extension's `resultType`.
        pub fn result_definition<'v, V: JsonView<'v>>(
            req: &crate::methods::ResultFor<'_>,
            v: &V,
        ) -> ::core::result::Result<::core::option::Option<&'static str>, crate::decode::DecodeError> {
            crate::methods::result_definition(v, req, method(req.method), super::REVISION, RESULTS_HAVE_RESULT_TYPE)
        }

        #[doc(hidden)]
        /// Decodes a result by the request it answers (what `mcpgen::decode_result` runs for this
        /// revision): the definition [`result_definition`] selects (an unknown method, an unknown
        /// `resultType`, or an `input_required` result that breaks MRTR-3 or RESULT-5 is an
        /// error); a negotiated extension's `resultType` is kept raw. Client leniency is on:
        /// absent `ttlMs`/`cacheScope` and negative `ttlMs` are tolerated (CACHE-3) and never
        /// invented on re-encode.
        pub fn decode_result<'v, V: JsonView<'v>>(
            req: &crate::methods::ResultFor<'_>,
            v: &V,
            policy: crate::validate::Policy,
        ) -> ::core::result::Result<MethodResult, crate::decode::DecodeError> {
            let mut opts = crate::validate::Options::decoding(policy);
            opts.client_leniency = true;
            Ok(match result_definition(req, v)? {
                None => MethodResult::Raw(v.to_value()),
                #(#def_arms,)*
                Some(other) => {
                    return Err(crate::decode::DecodeError::Internal(::std::format!(
                        "result definition `{other}` has no decoder"
                    )))
                }
            })
        }
    }
}
