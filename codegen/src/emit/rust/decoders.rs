//! `decode.rs`: `FromJson` and `Validate` for every declaration, and their encoders.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{ident, lit_str, type_ident, union_desc_ident, vfn, Ctx};
use crate::ir::{Decl, DeclKind, Ty, Unknown};

/// `decode.rs`: `FromJson` and `Validate` for every declaration.
pub fn decoders(cx: &Ctx) -> TokenStream {
    let mut out = TokenStream::new();
    let rev = lit_str(&cx.m.revision);
    for d in &cx.m.decls {
        if d.rust_override.is_some() {
            continue;
        }
        let name = type_ident(&d.name);
        let f = vfn(&d.name);
        let lname = lit_str(&d.name);
        out.extend(quote! {
            impl Validate for #name {
                const NAME: &'static str = #lname;
                const REVISION: &'static str = #rev;
                fn validate_view<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool {
                    #f(v, p, cx)
                }
            }
        });
        out.extend(decl_decoder(cx, d));
    }
    out
}

fn decl_decoder(cx: &Ctx, d: &Decl) -> TokenStream {
    let name = type_ident(&d.name);
    match &d.kind {
        DeclKind::Object(o) => {
            let lets = o.props.iter().filter(|p| !is_required_lit(cx, p)).map(|p| {
                let var = format_ident!("f_{}", p.field);
                let t = cx.rust_type(&p.schema, Some(&d.name));
                quote! { let mut #var: ::std::option::Option<#t> = None; }
            });
            let arms = o.props.iter().map(|p| {
                let key = lit_str(&p.key);
                if is_required_lit(cx, p) {
                    quote! { #key => {} }
                } else {
                    let var = format_ident!("f_{}", p.field);
                    quote! { #key => #var = Some(FromJson::from_json(&x, b)?) }
                }
            });
            let (extra_let, fallback, extra_field) = match &o.unknown {
                Unknown::Open => (
                    quote! { let mut extra = crate::json::Map::new(); },
                    quote! { crate::decode::keep_unknown(&mut extra, k, &x, b) },
                    quote! { extra, },
                ),
                // META-4: every `_meta` key survives a round trip, whatever the policy.
                Unknown::Extension => (
                    quote! { let mut extra = crate::json::Map::new(); },
                    quote! { extra.push(k.into_owned(), x.to_value()) },
                    quote! { extra, },
                ),
                Unknown::Map(_) => (
                    quote! { let mut additional = crate::json::ObjectMap::new(); },
                    quote! { additional.push(k.into_owned(), FromJson::from_json(&x, b)?) },
                    quote! { additional, },
                ),
                Unknown::Forbidden => (quote! {}, quote! { {} }, quote! {}),
            };
            let dispatch = if o.props.is_empty() {
                quote! { #fallback; }
            } else {
                quote! { match &*k { #(#arms,)* _ => #fallback, } }
            };
            let inits = o.props.iter().map(|p| {
                let f = ident(&p.field);
                let var = format_ident!("f_{}", p.field);
                if is_required_lit(cx, p) {
                    let t = cx.rust_type(&p.schema, None);
                    quote! { #f: #t }
                } else if p.required && !p.relaxable {
                    quote! { #f: #var? }
                } else {
                    quote! { #f: #var }
                }
            });
            let enc = encode_fields(o);
            quote! {
                impl FromJson for #name {
                    fn from_json<'v, V: JsonView<'v>>(v: &V, b: &Builder) -> ::std::option::Option<Self> {
                        if v.kind() != crate::json::Kind::Object { return None; }
                        #(#lets)*
                        #extra_let
                        for (k, x) in v.entries() {
                            #dispatch
                        }
                        Some(#name { #(#inits,)* #extra_field })
                    }
                }
                impl ToJson for #name {
                    fn write_json(&self, w: &mut JsonWriter) {
                        w.begin_object();
                        #enc
                        w.end_object();
                    }
                }
            }
        }
        DeclKind::Enum(e) => {
            let arms = e.values.iter().map(|(v, var)| {
                let var = type_ident(var);
                let v = lit_str(v);
                quote! { #v => Some(#name::#var) }
            });
            quote! {
                impl FromJson for #name {
                    fn from_json<'v, V: JsonView<'v>>(v: &V, _: &Builder) -> ::std::option::Option<Self> {
                        match &*v.as_str()? {
                            #(#arms,)*
                            _ => None,
                        }
                    }
                }
                impl ToJson for #name {
                    fn write_json(&self, w: &mut JsonWriter) {
                        w.string(self.as_str())
                    }
                }
            }
        }
        DeclKind::Union(u) => {
            let desc = union_desc_ident(&d.name);
            let arms_fn = format_ident!("arms_{}", d.name);
            let builds = u.arms.iter().enumerate().map(|(i, a)| {
                let var = type_ident(&a.variant);
                if matches!(a.schema.ty, Ty::Null) {
                    quote! { #i => Some(#name::#var) }
                } else {
                    quote! { #i => Some(#name::#var(FromJson::from_json(v, b)?)) }
                }
            });
            let writes = u.arms.iter().map(|a| {
                let var = type_ident(&a.variant);
                if matches!(a.schema.ty, Ty::Null) {
                    quote! { #name::#var => w.null() }
                } else {
                    quote! { #name::#var(x) => x.write_json(w) }
                }
            });
            quote! {
                impl FromJson for #name {
                    fn from_json<'v, V: JsonView<'v>>(v: &V, b: &Builder) -> ::std::option::Option<Self> {
                        match rt::select_arm(v, &#desc, &#arms_fn::<V>(), &b.opts)? {
                            #(#builds,)*
                            _ => None,
                        }
                    }
                }
                impl ToJson for #name {
                    fn write_json(&self, w: &mut JsonWriter) {
                        match self { #(#writes,)* }
                    }
                }
            }
        }
    }
}

fn is_required_lit(_: &Ctx, p: &crate::ir::Prop) -> bool {
    p.required && !p.relaxable && matches!(p.schema.ty, Ty::Lit(_))
}

fn encode_fields(o: &crate::ir::ObjectDecl) -> TokenStream {
    let mut out = TokenStream::new();
    for p in &o.props {
        let f = ident(&p.field);
        let key = lit_str(&p.key);
        if p.required && !p.relaxable {
            out.extend(quote! { w.key(#key); self.#f.write_json(w); });
        } else {
            out.extend(quote! { if let Some(x) = &self.#f { w.key(#key); x.write_json(w); } });
        }
    }
    match &o.unknown {
        Unknown::Open | Unknown::Extension => out.extend(quote! { self.extra.write_members(w); }),
        Unknown::Map(_) => out.extend(quote! { self.additional.write_members(w); }),
        Unknown::Forbidden => {}
    }
    out
}
