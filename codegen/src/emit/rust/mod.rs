//! Rust emitter: types, decoders, encoders, validators and the definition registry.
//!
//! This file holds the [`Ctx`] every part reads (with the Rust type of a schema position) and
//! the identifier helpers; `types` writes `lit.rs` and `types.rs`, `validators` `validate.rs`,
//! `decoders` `decode.rs` and `registry` `registry.rs`.

mod decoders;
mod registry;
mod types;
mod validators;

pub use decoders::decoders;
pub use registry::registry;
pub use types::{literals, types};
pub use validators::validators;

use std::collections::BTreeSet;

use proc_macro2::{Ident, Literal as PLit, Span, TokenStream};
use quote::{format_ident, quote};

use super::docs::Docs;
use crate::ir::{DeclKind, Module, Schema, Ty};

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "super", "trait", "true",
    "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// A field or variable identifier, raw when it is a keyword.
pub fn ident(name: &str) -> Ident {
    if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

fn type_ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

fn vfn(name: &str) -> Ident {
    format_ident!("v_{}", name)
}

fn lit_str(s: &str) -> PLit {
    PLit::string(s)
}

pub struct Ctx<'m> {
    pub m: &'m Module,
    pub docs: Docs,
}

impl<'m> Ctx<'m> {
    pub fn new(m: &'m Module) -> Self {
        Ctx { m, docs: Docs::new(m) }
    }

    pub fn doc_attrs(&self, doc: Option<&str>) -> TokenStream {
        let Some(doc) = doc else { return TokenStream::new() };
        let lines = self.docs.rustdoc(doc);
        let attrs = lines.iter().map(|l| {
            let text = format!(" {l}");
            quote! { #[doc = #text] }
        });
        quote! { #(#attrs)* }
    }

    /// The Rust type for a schema position. `owner` is the declaration holding it, so that a
    /// by-value cycle gets a `Box`.
    pub fn rust_type(&self, s: &Schema, owner: Option<&str>) -> TokenStream {
        match &s.ty {
            Ty::Any => quote! { crate::json::Value },
            Ty::Bool => quote! { bool },
            Ty::Null => quote! { crate::json::Value },
            Ty::Str { .. } => quote! { ::std::string::String },
            Ty::Num { .. } => quote! { crate::json::Number },
            Ty::Array { items, .. } => {
                let t = self.rust_type(items, None);
                quote! { ::std::vec::Vec<#t> }
            }
            Ty::Map(v) => {
                let t = self.rust_type(v, None);
                quote! { crate::json::ObjectMap<#t> }
            }
            Ty::Ref(name) => self.named(name, owner),
            Ty::Decl(i) => {
                let d = &self.m.decls[*i];
                self.named(&d.name, owner)
            }
            Ty::Lit(i) => {
                let n = type_ident(&self.m.literals[*i].name);
                quote! { lit::#n }
            }
        }
    }

    fn named(&self, name: &str, owner: Option<&str>) -> TokenStream {
        let t = type_ident(name);
        match owner {
            Some(o) if self.reaches(name, o) => quote! { ::std::boxed::Box<#t> },
            _ => quote! { #t },
        }
    }

    /// True if a value of type `from` contains a value of type `to` without indirection.
    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if !seen.insert(n.clone()) {
                continue;
            }
            for child in self.by_value_children(&n) {
                stack.push(child);
            }
        }
        false
    }

    fn by_value_children(&self, name: &str) -> Vec<String> {
        let decl = self
            .m
            .decls
            .iter()
            .find(|d| d.name == name)
            .or_else(|| self.m.def(name).and_then(|d| self.m.resolve_decl(&d.schema)));
        let Some(decl) = decl else {
            return match self.m.def(name).map(|d| &d.schema.ty) {
                Some(Ty::Ref(r)) => vec![r.clone()],
                _ => Vec::new(),
            };
        };
        if decl.rust_override.is_some() {
            return Vec::new();
        }
        let direct = |s: &Schema| -> Option<String> {
            match &s.ty {
                Ty::Ref(r) => Some(r.clone()),
                Ty::Decl(i) => Some(self.m.decls[*i].name.clone()),
                _ => None,
            }
        };
        match &decl.kind {
            DeclKind::Object(o) => o.props.iter().filter_map(|p| direct(&p.schema)).collect(),
            DeclKind::Union(u) => u.arms.iter().filter_map(|a| direct(&a.schema)).collect(),
            DeclKind::Enum(_) => Vec::new(),
        }
    }
}

/// The `UnionDesc` static of a union (`U_<name>`): written with its validator, read by its decoder.
fn union_desc_ident(name: &str) -> Ident {
    format_ident!("U_{}", name)
}
