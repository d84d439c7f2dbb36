//! Rust emitter, `serde_impls.rs` (behind cargo feature `serde`): `Serialize` and
//! `Deserialize` for every declaration and literal type.
//!
//! `Serialize` writes what `ToJson` writes (`encode_fields` in `rust/decoders.rs` is the other reading
//! of the same IR): declared members in schema order, optional ones only when present, consts
//! always, then `extra` / `additional`. `Deserialize` is one line per type: the runtime's glue
//! reads the input into a tape and runs the generated validator and builder on it, so there
//! is no second decoder to drift from the first.

use proc_macro2::{Literal as PLit, TokenStream};
use quote::{format_ident, quote};

use super::rust::{ident, Ctx};
use crate::ir::{DeclKind, LitValue, Ty, Unknown};

pub fn serde_impls(cx: &Ctx) -> TokenStream {
    let mut out = TokenStream::new();
    for l in &cx.m.literals {
        let name = format_ident!("{}", l.name);
        let (ser, de) = match &l.value {
            LitValue::Str(_) => (
                quote! { s.serialize_str(lit::#name::VALUE) },
                quote! { glue::deserialize_str_literal(d, lit::#name::VALUE) },
            ),
            LitValue::Int(_) => (
                quote! { s.serialize_i64(lit::#name::VALUE) },
                quote! { glue::deserialize_int_literal(d, lit::#name::VALUE) },
            ),
        };
        out.extend(quote! {
            impl _serde::Serialize for lit::#name {
                fn serialize<S: _serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> { #ser }
            }
            impl<'de> _serde::Deserialize<'de> for lit::#name {
                fn deserialize<D: _serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    #de.map(|()| lit::#name)
                }
            }
        });
    }
    for d in &cx.m.decls {
        if d.rust_override.is_some() {
            continue;
        }
        let name = format_ident!("{}", d.name);
        let body = match &d.kind {
            DeclKind::Object(o) => {
                let mut always = 0usize;
                let mut counted = Vec::new();
                let mut entries = Vec::new();
                for p in &o.props {
                    let f = ident(&p.field);
                    let key = PLit::string(&p.key);
                    if p.required && !p.relaxable {
                        always += 1;
                        entries.push(quote! { m.serialize_entry(#key, &self.#f)?; });
                    } else {
                        counted.push(quote! { usize::from(self.#f.is_some()) });
                        entries.push(quote! { if let ::std::option::Option::Some(x) = &self.#f { m.serialize_entry(#key, x)?; } });
                    }
                }
                match &o.unknown {
                    Unknown::Open | Unknown::Extension => {
                        counted.push(quote! { self.extra.len() });
                        entries.push(quote! { glue::members(&mut m, &self.extra)?; });
                    }
                    Unknown::Map(_) => {
                        counted.push(quote! { self.additional.len() });
                        entries.push(quote! { glue::members(&mut m, &self.additional)?; });
                    }
                    Unknown::Forbidden => {}
                }
                let mut terms: Vec<TokenStream> = Vec::new();
                if always > 0 || counted.is_empty() {
                    terms.push(quote! { #always });
                }
                terms.extend(counted);
                let len = quote! { #(#terms)+* };
                // A closed object without members (`{}` only) writes no entry.
                let m = if entries.is_empty() {
                    quote! { m }
                } else {
                    quote! { mut m }
                };
                quote! {
                    use _serde::ser::SerializeMap as _;
                    let len: usize = #len;
                    let #m = s.serialize_map(::std::option::Option::Some(len))?;
                    #(#entries)*
                    m.end()
                }
            }
            DeclKind::Enum(_) => quote! { s.serialize_str(self.as_str()) },
            DeclKind::Union(u) => {
                let arms = u.arms.iter().map(|a| {
                    let var = format_ident!("{}", a.variant);
                    if matches!(a.schema.ty, Ty::Null) {
                        quote! { #name::#var => s.serialize_unit() }
                    } else {
                        quote! { #name::#var(x) => _serde::Serialize::serialize(x, s) }
                    }
                });
                quote! { match self { #(#arms,)* } }
            }
        };
        out.extend(quote! {
            impl _serde::Serialize for #name {
                fn serialize<S: _serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> { #body }
            }
            impl<'de> _serde::Deserialize<'de> for #name {
                #[inline]
                fn deserialize<D: _serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    glue::deserialize(d)
                }
            }
        });
    }
    out.extend(definitions_macro(cx));
    out
}

/// `__serde_definitions_<rev>!($m)`: calls `$m!` with `"Name" => decoded path::Type` for every
/// definition whose type carries the generated decoder, and `"Name" => plain path::Type` for
/// aliases of plain strings, numbers, arrays and maps (serde's own impls of those), so tests can
/// go through serde by definition name without the library instantiating serde code per type.
fn definitions_macro(cx: &Ctx) -> TokenStream {
    let module = format_ident!("{}", super::module_name(&cx.m.revision));
    let macro_name = format_ident!("__serde_definitions_{}", super::module_name(&cx.m.revision));
    let pairs = cx.m.defs.iter().map(|def| {
        let name = PLit::string(&def.name);
        let ty = format_ident!("{}", def.name);
        match cx.m.resolve_decl(&def.schema) {
            Some(decl) if decl.rust_override.is_none() => quote! { #name => decoded $crate::#module::#ty },
            _ => quote! { #name => plain $crate::#module::#ty },
        }
    });
    quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #macro_name {
            ($m:ident) => { $m!( #(#pairs),* ); };
        }
    }
}
