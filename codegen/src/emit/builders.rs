//! Rust emitter, `builders.rs`: a builder per generated struct (`T::builder()…build()`), and
//! `Default` for structs whose every member may be absent.
//!
//! A setter per declared member, named like the Rust field and taking `impl Into<FieldType>`
//! (the inner type for an `Option` field); `const` members are filled in and have no setter;
//! open objects get `extra(key, value)` (and `additional(key, value)` where the schema declares
//! `additionalProperties`). `build()` names every missing required member by its wire name.

use proc_macro2::{Literal as PLit, TokenStream};
use quote::{format_ident, quote};

use super::rust::{ident, Ctx};
use crate::ir::{Decl, DeclKind, ObjectDecl, Prop, Ty, Unknown};

/// Method names a builder uses for itself; a declared member with one of these Rust names
/// would collide with it.
const RESERVED: &[&str] = &["build", "extra", "additional", "builder"];

/// How a member is filled by the builder.
enum Slot {
    /// A `const`: filled in, never set (`Some(..)` when the field is an `Option`).
    Const { optional: bool },
    /// Not an `Option` in the type: `build()` fails without it.
    Required,
    /// An `Option` in the type.
    Optional,
}

fn slot(p: &Prop) -> Slot {
    let optional = !p.required || p.relaxable;
    match (&p.schema.ty, optional) {
        (Ty::Lit(_), optional) => Slot::Const { optional },
        (_, false) => Slot::Required,
        (_, true) => Slot::Optional,
    }
}

/// Whether the struct implements `Default` (no required member, consts aside).
pub fn has_default(o: &ObjectDecl) -> bool {
    o.props.iter().all(|p| !matches!(slot(p), Slot::Required))
}

/// The builder type's name (`CallToolResultBuilder`).
pub fn builder_name(decl: &str) -> String {
    format!("{decl}Builder")
}

/// Every builder and `Default` impl of the module; `Err` names a member or type whose name
/// would collide with the builder's own.
pub fn builders(cx: &Ctx) -> Result<TokenStream, Vec<String>> {
    let mut out = TokenStream::new();
    let mut problems = Vec::new();
    for d in &cx.m.decls {
        let DeclKind::Object(o) = &d.kind else { continue };
        if d.rust_override.is_some() {
            continue;
        }
        let bname = builder_name(&d.name);
        if cx.m.decls.iter().any(|other| other.name == bname) || cx.m.def(&bname).is_some() {
            problems.push(format!("{}: the builder name {bname} is taken by a schema type", d.sp));
        }
        for p in &o.props {
            if RESERVED.contains(&p.field.as_str()) {
                problems.push(format!("{}/properties/{}: the field name collides with a builder method", d.sp, p.key));
            }
        }
        out.extend(object_builder(cx, d, o));
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn object_builder(cx: &Ctx, d: &Decl, o: &ObjectDecl) -> TokenStream {
    let name = format_ident!("{}", d.name);
    let bname = format_ident!("{}", builder_name(&d.name));
    let tname = PLit::string(&d.name);
    let mut slots = Vec::new(); // builder struct fields
    let mut setters = Vec::new();
    let mut inits = Vec::new(); // fields of the built value
    let mut defaults = Vec::new(); // fields of `Default::default()`
    let mut scrutinee = Vec::new();
    let mut pattern = Vec::new();
    let mut missing = Vec::new();
    for p in &o.props {
        let f = ident(&p.field);
        let wire = PLit::string(&p.key);
        match slot(p) {
            Slot::Const { optional } => {
                let t = cx.rust_type(&p.schema, None);
                let v = if optional {
                    quote! { ::std::option::Option::Some(#t) }
                } else {
                    quote! { #t }
                };
                inits.push(quote! { #f: #v });
                defaults.push(quote! { #f: #v });
            }
            kind => {
                let t = cx.rust_type(&p.schema, Some(&d.name));
                let doc = match kind {
                    Slot::Required => format!(" Sets `{}` (wire name `{}`; required).", p.field, p.key),
                    _ => format!(" Sets `{}` (wire name `{}`).", p.field, p.key),
                };
                slots.push(quote! { #f: ::std::option::Option<#t> });
                setters.push(quote! {
                    #[doc = #doc]
                    pub fn #f(mut self, value: impl ::std::convert::Into<#t>) -> Self {
                        self.#f = ::std::option::Option::Some(value.into());
                        self
                    }
                });
                if matches!(kind, Slot::Required) {
                    scrutinee.push(quote! { self.#f });
                    let bound = format_ident!("f_{}", p.field);
                    pattern.push(quote! { ::std::option::Option::Some(#bound) });
                    inits.push(quote! { #f: #bound });
                    missing.push((bound, wire));
                } else {
                    inits.push(quote! { #f: self.#f });
                    defaults.push(quote! { #f: ::std::option::Option::None });
                }
            }
        }
    }
    let declared: Vec<PLit> = o.props.iter().map(|p| PLit::string(&p.key)).collect();
    let (extra_check, extra_setter) = match &o.unknown {
        Unknown::Open | Unknown::Extension => {
            slots.push(quote! { extra: crate::json::Map });
            inits.push(quote! { extra: self.extra });
            defaults.push(quote! { extra: crate::json::Map::new() });
            (
                quote! { crate::build::declared_in_extra(&self.extra, &[#(#declared),*]) },
                quote! {
                    /// Adds a member the schema does not declare (kept on encode). A declared
                    /// member's key makes `build()` fail: use its own setter.
                    pub fn extra(mut self, key: impl ::std::convert::Into<::std::string::String>, value: impl ::std::convert::Into<crate::json::Value>) -> Self {
                        self.extra.insert(key, value.into());
                        self
                    }
                },
            )
        }
        Unknown::Map(v) => {
            let t = cx.rust_type(v, Some(&d.name));
            slots.push(quote! { additional: crate::json::ObjectMap<#t> });
            inits.push(quote! { additional: self.additional });
            defaults.push(quote! { additional: crate::json::ObjectMap::new() });
            (
                quote! { crate::build::declared_in_extra(&self.additional, &[#(#declared),*]) },
                quote! {
                    /// Adds an entry beyond the declared members (`additionalProperties`).
                    pub fn additional(mut self, key: impl ::std::convert::Into<::std::string::String>, value: impl ::std::convert::Into<#t>) -> Self {
                        self.additional.insert(key, value.into());
                        self
                    }
                },
            )
        }
        Unknown::Forbidden => (quote! { ::std::vec::Vec::new() }, quote! {}),
    };
    let missing_pairs = missing.iter().map(|(bound, wire)| quote! { (#bound.is_none(), #wire) });
    let missing_bound = missing.iter().map(|(bound, _)| quote! { #bound });
    let build_doc = if missing.is_empty() {
        " Builds the value; fails only if `extra` was given a declared member's key.".to_owned()
    } else {
        let names: Vec<String> = missing.iter().map(|(_, w)| w.to_string()).collect();
        format!(" Builds the value; fails naming every required member not set ({}).", names.join(", "))
    };
    let type_doc =
        format!(" Builder for [`{}`]: `{}::builder()`, one setter per member, then `build()`.", d.name, d.name);
    let builder_fn_doc = format!(" A builder for `{}` (`const` members are filled in).", d.name);
    let default_impl = if has_default(o) {
        quote! {
            // A closed object without members (`{}` only) would derive it; one rule for all.
            #[allow(clippy::derivable_impls)]
            impl ::std::default::Default for #name {
                fn default() -> Self {
                    #name { #(#defaults,)* }
                }
            }
        }
    } else {
        quote! {}
    };
    quote! {
        #[doc = #type_doc]
        #[derive(Debug, Clone, Default)]
        #[must_use]
        pub struct #bname { #(#slots,)* }
        impl #name {
            #[doc = #builder_fn_doc]
            pub fn builder() -> #bname {
                <#bname as ::std::default::Default>::default()
            }
        }
        impl #bname {
            #(#setters)*
            #extra_setter
            #[doc = #build_doc]
            pub fn build(self) -> ::core::result::Result<#name, crate::build::BuildError> {
                let declared_in_extra: ::std::vec::Vec<::std::string::String> = #extra_check;
                match (#(#scrutinee,)* declared_in_extra.is_empty(),) {
                    (#(#pattern,)* true,) => ::core::result::Result::Ok(#name { #(#inits,)* }),
                    (#(#missing_bound,)* _,) => ::core::result::Result::Err(crate::build::BuildError::new(
                        #tname,
                        [#(#missing_pairs),*],
                        declared_in_extra,
                    )),
                }
            }
        }
        #default_impl
    }
}
