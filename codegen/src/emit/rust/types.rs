//! `lit.rs` and `types.rs`: a zero-sized type per `const` value, and the declarations with
//! their docs and `From` impls.

use std::collections::BTreeSet;

use proc_macro2::{Literal as PLit, TokenStream};
use quote::quote;

use super::{ident, lit_str, type_ident, Ctx};
use crate::ir::{Decl, DeclKind, LitValue, Ty, Unknown};

/// `lit.rs`: one zero-sized type per `const` value.
pub fn literals(cx: &Ctx) -> TokenStream {
    let items = cx.m.literals.iter().map(|l| {
        let name = type_ident(&l.name);
        match &l.value {
            LitValue::Str(s) => {
                let doc = format!(" The constant `{s:?}`.");
                let s = lit_str(s);
                quote! { ::mcpgen_runtime::__str_literal!(#[doc = #doc] #name = #s); }
            }
            LitValue::Int(n) => {
                let doc = format!(" The constant `{n}`.");
                let n = PLit::i64_unsuffixed(*n);
                quote! { ::mcpgen_runtime::__int_literal!(#[doc = #doc] #name = #n); }
            }
        }
    });
    quote! { #(#items)* }
}

/// `types.rs`: declarations with docs and `From` impls.
pub fn types(cx: &Ctx) -> TokenStream {
    let m = cx.m;
    let mut out = TokenStream::new();
    // Aliases for definitions that are not declarations of their own.
    for def in &m.defs {
        let is_own_decl = matches!(&def.schema.ty, Ty::Decl(i) if m.decls[*i].name == def.name);
        if is_own_decl {
            continue;
        }
        let name = type_ident(&def.name);
        let doc = cx.doc_attrs(def.schema.doc.as_deref());
        let ty = cx.rust_type(&def.schema, None);
        out.extend(quote! { #doc pub type #name = #ty; });
    }
    for d in &m.decls {
        out.extend(decl_type(cx, d));
    }
    out
}

fn decl_type(cx: &Ctx, d: &Decl) -> TokenStream {
    let name = type_ident(&d.name);
    let mut doc = cx.doc_attrs(d.doc.as_deref());
    let origin = format!(" Schema: `{}`.", d.sp);
    let sep = if d.doc.is_some() {
        quote! { #[doc = ""] }
    } else {
        quote! {}
    };
    if let Some(ov) = d.rust_override {
        let ty: TokenStream = ov.parse().unwrap_or_default();
        return quote! { #doc #sep #[doc = #origin] pub type #name = #ty; };
    }
    match &d.kind {
        DeclKind::Object(o) => {
            let fields = o.props.iter().map(|p| {
                let f = ident(&p.field);
                let t = cx.rust_type(&p.schema, Some(&d.name));
                let mut pdoc = cx.doc_attrs(p.schema.doc.as_deref());
                let wire = format!(" Wire name: `{}`.", p.key);
                if p.schema.doc.is_some() {
                    pdoc.extend(quote! { #[doc = ""] });
                }
                pdoc.extend(quote! { #[doc = #wire] });
                if p.relaxable {
                    let note = " Optional on the wire from earlier-revision servers (RESULT-2): absent reads as `complete` and is not invented on re-encode.";
                    pdoc.extend(quote! { #[doc = #note] });
                }
                if p.presence_significant {
                    let note = " Presence is kept: `Some` of an empty object re-encodes as `{}`.";
                    pdoc.extend(quote! { #[doc = #note] });
                }
                if p.required && !p.relaxable {
                    quote! { #pdoc pub #f: #t }
                } else {
                    quote! { #pdoc pub #f: ::std::option::Option<#t> }
                }
            });
            let extra = match &o.unknown {
                Unknown::Open | Unknown::Extension => {
                    let note = if matches!(o.unknown, Unknown::Extension) {
                        " Members the schema does not declare: this object is an extension point (`_meta`), so they are allowed and kept under every policy (META-4)."
                    } else {
                        " Members the schema does not declare: kept and re-emitted with the lossless policy, dropped with the lenient policy, rejected with the strict policy."
                    };
                    quote! { #[doc = #note] pub extra: crate::json::Map, }
                }
                Unknown::Map(v) => {
                    let t = cx.rust_type(v, Some(&d.name));
                    let note = " Members beyond the declared ones (`additionalProperties`).";
                    quote! { #[doc = #note] pub additional: crate::json::ObjectMap<#t>, }
                }
                Unknown::Forbidden => quote! {},
            };
            doc.extend(quote! { #sep #[doc = #origin] });
            quote! {
                #doc
                #[derive(Debug, Clone, PartialEq)]
                pub struct #name {
                    #(#fields,)*
                    #extra
                }
            }
        }
        DeclKind::Enum(e) => {
            let variants = e.values.iter().map(|(v, var)| {
                let var = type_ident(var);
                let vdoc = format!(" `{v:?}`");
                quote! { #[doc = #vdoc] #var }
            });
            let arms = e.values.iter().map(|(v, var)| {
                let var = type_ident(var);
                let v = lit_str(v);
                quote! { #name::#var => #v }
            });
            let all = e.values.iter().map(|(_, var)| {
                let var = type_ident(var);
                quote! { #name::#var }
            });
            doc.extend(quote! { #sep #[doc = #origin] });
            quote! {
                #doc
                #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
                pub enum #name { #(#variants,)* }
                impl #name {
                    /// Every value, in schema order.
                    pub const ALL: &'static [#name] = &[#(#all),*];
                    /// The wire spelling.
                    pub fn as_str(&self) -> &'static str {
                        match self { #(#arms,)* }
                    }
                }
                impl ::std::fmt::Display for #name {
                    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(self.as_str())
                    }
                }
            }
        }
        DeclKind::Union(u) => {
            let strategy = format!(" Decoding: {}.", u.info.strategy);
            doc.extend(quote! { #sep #[doc = #origin] #[doc = #strategy] });
            let variants = u.arms.iter().map(|a| {
                let var = type_ident(&a.variant);
                if matches!(a.schema.ty, Ty::Null) {
                    quote! { #var }
                } else {
                    let t = cx.rust_type(&a.schema, Some(&d.name));
                    quote! { #var(#t) }
                }
            });
            let mut seen = BTreeSet::new();
            let froms = u.arms.iter().filter_map(|a| {
                if matches!(a.schema.ty, Ty::Null) {
                    return None;
                }
                let t = cx.rust_type(&a.schema, Some(&d.name));
                if !seen.insert(t.to_string()) {
                    return None;
                }
                let var = type_ident(&a.variant);
                let boxed = t.to_string().starts_with(":: std :: boxed :: Box");
                let inner = cx.rust_type(&a.schema, None);
                Some(if boxed {
                    quote! {
                        impl ::std::convert::From<#inner> for #name {
                            fn from(v: #inner) -> Self { #name::#var(::std::boxed::Box::new(v)) }
                        }
                    }
                } else {
                    quote! {
                        impl ::std::convert::From<#t> for #name {
                            fn from(v: #t) -> Self { #name::#var(v) }
                        }
                    }
                })
            });
            // Literals convert too, so builders take `.id(7)` and `.id("abc")` (one arm per
            // Rust type: `seen` above already picked it).
            let mut conveniences = TokenStream::new();
            let mut taken = BTreeSet::new();
            for a in &u.arms {
                let var = type_ident(&a.variant);
                let sources: Vec<TokenStream> = match &a.schema.ty {
                    Ty::Str { .. } => vec![quote! { &str }],
                    Ty::Num { .. } => vec![quote! { i64 }, quote! { i32 }, quote! { u64 }, quote! { u32 }],
                    _ => continue,
                };
                for src in sources {
                    if !taken.insert(src.to_string()) {
                        continue;
                    }
                    let arg = if matches!(a.schema.ty, Ty::Str { .. }) {
                        quote! { ::std::string::String::from(v) }
                    } else {
                        quote! { crate::json::Number::from(v) }
                    };
                    conveniences.extend(quote! {
                        impl ::std::convert::From<#src> for #name {
                            fn from(v: #src) -> Self { #name::#var(#arg) }
                        }
                    });
                }
            }
            quote! {
                #doc
                #[derive(Debug, Clone, PartialEq)]
                pub enum #name { #(#variants,)* }
                #(#froms)*
                #conveniences
            }
        }
    }
}
