//! `generated/src/revisions.rs` and `generated/src/extensions.rs`: the `Revision` and
//! `Extension` enums, dispatching over the revision and extension modules.

use proc_macro2::TokenStream;
use quote::quote;

use super::{ext_feature_name, ext_module_name, feature_name, module_name, ExtInfo};
use crate::{ir, ExtensionInput};

/// The `validate_view` / `build_view` dispatch methods of the `Revision` and `Extension` enums,
/// one signature for both (`mcpgen`'s by-name code reads either through one trait). `owner`
/// names what the definitions belong to in the docs; `api` is the public call to use instead.
fn view_dispatch(owner: &str, api: &str, vview: &TokenStream, bview: &TokenStream) -> TokenStream {
    let vdoc = [
        format!(" Validates any [`JsonView`](crate::json::JsonView) against definition `name` of the {owner};"),
        " `None` for an unknown name. Generic over the view, for bindings that bring their own.".to_owned(),
        format!(" Use {api}."),
    ];
    let bdoc = format!(" Builds definition `name` of the {owner} from a view its validator accepted.");
    quote! {
        #[doc(hidden)]
        #(#[doc = #vdoc])*
        pub fn validate_view<'v, V: crate::json::JsonView<'v>>(
            self,
            name: &str,
            v: &V,
            p: &crate::validate::Path<'_>,
            cx: &mut crate::validate::Cx,
        ) -> ::std::option::Option<bool> {
            match self { #vview }
        }
        #[doc(hidden)]
        #[doc = #bdoc]
        #[allow(clippy::type_complexity)]
        pub fn build_view<'v, V: crate::json::JsonView<'v>>(
            self,
            name: &str,
            v: &V,
            b: &crate::decode::Builder,
        ) -> ::std::option::Option<::std::option::Option<::std::boxed::Box<dyn crate::decode::AnyDecoded>>> {
            match self { #bview }
        }
    }
}

pub(super) fn revisions_index(revisions: &[ir::Module]) -> TokenStream {
    let mut variants = TokenStream::new();
    let mut pushes = TokenStream::new();
    let mut as_str = TokenStream::new();
    let mut defs = TokenStream::new();
    let mut def_by_name = TokenStream::new();
    let mut methods = TokenStream::new();
    let mut shas = TokenStream::new();
    let mut has_rt = TokenStream::new();
    let mut dec_res = TokenStream::new();
    let mut res_def = TokenStream::new();
    let mut vview = TokenStream::new();
    let mut bview = TokenStream::new();
    let mut shapes = TokenStream::new();
    let mut generic_shape = TokenStream::new();
    for rev in revisions {
        let feature = feature_name(&rev.revision);
        let module = syn::Ident::new(&module_name(&rev.revision), proc_macro2::Span::call_site());
        let variant =
            syn::Ident::new(&format!("R{}", rev.revision.replace(['-', '.'], "_")), proc_macro2::Span::call_site());
        let name = &rev.revision;
        let doc = format!(" MCP revision {name}.");
        variants.extend(quote! {
            #[cfg(feature = #feature)]
            #[doc = #doc]
            #variant,
        });
        pushes.extend(quote! {
            #[cfg(feature = #feature)]
            Revision::#variant,
        });
        as_str.extend(quote! { #[cfg(feature = #feature)] Revision::#variant => #name, });
        defs.extend(quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::DEFINITIONS, });
        def_by_name
            .extend(quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::definition(name), });
        methods.extend(quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::METHODS, });
        shas.extend(quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::SCHEMA_SHA256, });
        dec_res.extend(quote! {
            #[cfg(feature = #feature)]
            Revision::#variant => {
                let r = crate::#module::decode_result(req, v, policy)?;
                Ok(crate::decode::DecodedResult::new(r.variant_name(), ::std::boxed::Box::new(r)))
            }
        });
        res_def.extend(quote! {
            #[cfg(feature = #feature)] Revision::#variant => crate::#module::result_definition(req, v),
        });
        vview.extend(
            quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::validate_view(name, v, p, cx), },
        );
        bview.extend(
            quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::build_view(name, v, b), },
        );
        has_rt.extend(
            quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::RESULTS_HAVE_RESULT_TYPE, },
        );
        shapes.extend(quote! { #[cfg(feature = #feature)] Revision::#variant => crate::#module::RESULT_SHAPES, });
        generic_shape
            .extend(quote! { #[cfg(feature = #feature)] Revision::#variant => &crate::#module::GENERIC_RESULT_SHAPE, });
    }
    let view_dispatch = view_dispatch("revision", "`mcpgen::validate_view` / `mcpgen::decode_view`", &vview, &bview);
    quote! {
        /// A schema revision compiled into this build (each behind its cargo feature).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Revision {
            #variants
        }

        impl Revision {
            /// Every revision in this build, newest first: the one list of revisions that
            /// everything else derives from.
            pub const ALL: &'static [Revision] = &[#pushes];
            /// Every revision in this build, newest first ([`Revision::ALL`] as a vector).
            pub fn all() -> ::std::vec::Vec<Revision> {
                Revision::ALL.to_vec()
            }
            /// The newest revision in this build.
            pub fn latest() -> ::std::option::Option<Revision> {
                Revision::ALL.first().copied()
            }
            /// The revision's name (`2026-07-28`).
            pub fn as_str(self) -> &'static str {
                match self { #as_str }
            }
            /// Parses a revision name; `None` when this build does not have it.
            pub fn parse(name: &str) -> ::std::option::Option<Revision> {
                Revision::ALL.iter().copied().find(|r| r.as_str() == name)
            }
            /// Every definition of the revision.
            pub fn definitions(self) -> &'static [crate::decode::DefEntry] {
                match self { #defs }
            }
            /// The definition called `name`, if the revision has it.
            pub fn definition(self, name: &str) -> ::std::option::Option<&'static crate::decode::DefEntry> {
                match self { #def_by_name }
            }
            /// The method table.
            pub fn methods(self) -> &'static [crate::methods::MethodInfo] {
                match self { #methods }
            }
            /// sha256 of the schema the revision was generated from.
            pub fn schema_sha256(self) -> &'static str {
                match self { #shas }
            }
            #view_dispatch
            #[doc(hidden)]
            /// Decodes a result by the request it answers: `resultType` first, then the method
            /// and task augmentation ([`Revision::result_definition`]), on any JSON view. Use
            /// `mcpgen::decode_result` (options, bytes or views, skipping invalid list items).
            pub fn decode_result_view<'v, V: crate::json::JsonView<'v>>(
                self,
                req: &crate::methods::ResultFor<'_>,
                v: &V,
                policy: crate::validate::Policy,
            ) -> ::core::result::Result<crate::decode::DecodedResult, crate::decode::DecodeError> {
                match self { #dec_res }
            }
            /// The definition a result answering `req` is checked against
            /// ([`methods::result_definition`](crate::methods::result_definition) on this
            /// revision's table); `None` for a negotiated extension's `resultType`.
            pub fn result_definition<'v, V: crate::json::JsonView<'v>>(
                self,
                req: &crate::methods::ResultFor<'_>,
                v: &V,
            ) -> ::core::result::Result<::core::option::Option<&'static str>, crate::decode::DecodeError> {
                match self { #res_def }
            }
            /// Whether results of this revision carry `resultType` (2026-07-28 and later).
            pub fn results_have_result_type(self) -> bool {
                match self { #has_rt }
            }
            /// What each request method's complete result carries (`resultType`, declared
            /// `_meta` keys, the items of a paginated list).
            pub fn result_shapes(self) -> &'static [crate::methods::ResultShape] {
                match self { #shapes }
            }
            /// The result shape of request method `method`, if the revision has it.
            pub fn result_shape(self, method: &str) -> ::std::option::Option<&'static crate::methods::ResultShape> {
                self.result_shapes().iter().find(|s| s.method == method)
            }
            /// The shape of the generic `Result` definition: what a result of a method the
            /// revision does not define carries.
            pub fn generic_result_shape(self) -> &'static crate::methods::ResultShape {
                match self { #generic_shape }
            }
        }

        impl ::std::fmt::Display for Revision {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

/// `generated/src/extensions.rs`: the [`Extension`] enum dispatching over the extension modules,
/// the way `Revision` does over the revision modules.
pub(super) fn extensions_index(exts: &[(&ExtensionInput, &ExtInfo)]) -> TokenStream {
    let mut variants = TokenStream::new();
    let mut all = TokenStream::new();
    let mut arms = std::collections::BTreeMap::<&str, TokenStream>::new();
    for (ext, info) in exts {
        let cfg = {
            let a = ext_feature_name(&ext.name);
            let b = feature_name(&info.layers_on);
            quote! { #[cfg(all(feature = #a, feature = #b))] }
        };
        let module = syn::Ident::new(&ext_module_name(&ext.name), proc_macro2::Span::call_site());
        let variant = syn::Ident::new(&ir::variant_name(&ext.name), proc_macro2::Span::call_site());
        let rev_variant =
            syn::Ident::new(&format!("R{}", info.layers_on.replace(['-', '.'], "_")), proc_macro2::Span::call_site());
        let doc = format!(" Extension `{}` (module `{}`), layering on {}.", ext.id, module, info.layers_on);
        variants.extend(quote! { #cfg #[doc = #doc] #variant, });
        all.extend(quote! { #cfg Extension::#variant, });
        let name = &ext.name;
        let mut arm = |k: &'static str, body: TokenStream| {
            arms.entry(k).or_default().extend(quote! { #cfg Extension::#variant => #body, });
        };
        arm("id", quote! { crate::#module::EXTENSION_ID });
        arm("name", quote! { #name });
        arm("module", quote! { crate::#module::REVISION });
        arm("layers_on", quote! { crate::Revision::#rev_variant });
        arm("defs", quote! { crate::#module::DEFINITIONS });
        arm("def", quote! { crate::#module::definition(name) });
        arm("methods", quote! { crate::#module::METHODS });
        arm("ext_methods", quote! { crate::#module::EXTENSION_METHODS });
        arm("sha", quote! { crate::#module::SCHEMA_SHA256 });
        arm("vview", quote! { crate::#module::validate_view(name, v, p, cx) });
        arm("bview", quote! { crate::#module::build_view(name, v, b) });
        arm("res_def", quote! { crate::#module::result_definition(req, v) });
        arm("shapes", quote! { crate::#module::RESULT_SHAPES });
    }
    let a = |k: &str| arms.get(k).cloned().unwrap_or_default();
    let (id, name, module, layers_on, defs, def, methods, ext_methods, sha, vview, bview, res_def, shapes) = (
        a("id"),
        a("name"),
        a("module"),
        a("layers_on"),
        a("defs"),
        a("def"),
        a("methods"),
        a("ext_methods"),
        a("sha"),
        a("vview"),
        a("bview"),
        a("res_def"),
        a("shapes"),
    );
    let view_dispatch = view_dispatch(
        "extension's schema",
        "`mcpgen::ext::validate_view` / `mcpgen::ext::decode_view`",
        &vview,
        &bview,
    );
    quote! {
        /// A pinned MCP extension compiled into this build (each behind its cargo feature
        /// `ext-<name>` and the feature of the revision it layers on).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Extension {
            #variants
        }

        #[allow(unreachable_code, unused_variables, clippy::match_single_binding)]
        impl Extension {
            /// Every extension in this build, in `schema/sources.toml` order.
            pub const ALL: &'static [Extension] = &[#all];
            /// The extension identifier negotiated in `capabilities.extensions`
            /// (`io.modelcontextprotocol/tasks`).
            pub fn id(self) -> &'static str { match self { #id } }
            /// The short name (`tasks`): module `ext_<name>`, feature `ext-<name>`.
            pub fn name(self) -> &'static str { match self { #name } }
            /// The name in diagnostics and errata (`ext-tasks`).
            pub fn module_name(self) -> &'static str { match self { #module } }
            /// The core revision the extension layers on.
            pub fn layers_on(self) -> crate::Revision { match self { #layers_on } }
            /// The extension with identifier `id`; `None` when this build does not have it.
            pub fn from_id(id: &str) -> ::std::option::Option<Extension> {
                Extension::ALL.iter().copied().find(|e| e.id() == id)
            }
            /// The extension called `name` (`tasks` or `ext-tasks`) or with identifier `name`.
            pub fn parse(name: &str) -> ::std::option::Option<Extension> {
                Extension::ALL.iter().copied().find(|e| e.name() == name || e.module_name() == name || e.id() == name)
            }
            /// Every definition of the extension's schema (its copies of core definitions too).
            pub fn definitions(self) -> &'static [crate::decode::DefEntry] { match self { #defs } }
            /// The definition called `name`, if the extension's schema has it.
            pub fn definition(self, name: &str) -> ::std::option::Option<&'static crate::decode::DefEntry> {
                match self { #def }
            }
            /// The method rows of the methods and notifications the extension adds.
            pub fn methods(self) -> &'static [crate::methods::MethodInfo] { match self { #methods } }
            /// The row of method `name`, if the extension adds it.
            pub fn method(self, name: &str) -> ::std::option::Option<&'static crate::methods::MethodInfo> {
                self.methods().iter().find(|m| m.method == name)
            }
            /// The names of the methods and notifications the extension adds.
            pub fn method_names(self) -> &'static [&'static str] { match self { #ext_methods } }
            /// sha256 of the extension's `schema.json`.
            pub fn schema_sha256(self) -> &'static str { match self { #sha } }
            #view_dispatch
            /// The definition a result answering `req` (a request of the extension's methods)
            /// is checked against, by the extension's method table.
            pub fn result_definition<'v, V: crate::json::JsonView<'v>>(
                self,
                req: &crate::methods::ResultFor<'_>,
                v: &V,
            ) -> ::core::result::Result<::core::option::Option<&'static str>, crate::decode::DecodeError> {
                match self { #res_def }
            }
            /// What each of the extension's request methods' results carries.
            pub fn result_shapes(self) -> &'static [crate::methods::ResultShape] { match self { #shapes } }
        }

        impl ::std::fmt::Display for Extension {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.id())
            }
        }
    }
}
