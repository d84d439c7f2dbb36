//! Rust emitter: types, decoders, encoders, validators and the definition registry.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Literal as PLit, Span, TokenStream};
use quote::{format_ident, quote};

use super::docs::Docs;
use crate::ir::{Decl, DeclKind, JType, LitValue, Module, Schema, Ty, Unknown};

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

    /// An expression checking `v` (a `&V`) at `p` (a `&Path`) against `s`; evaluates to `bool`.
    pub fn check_expr(&self, s: &Schema) -> TokenStream {
        let sp = |kw: &str| lit_str(&format!("{}/{kw}", s.sp));
        match &s.ty {
            Ty::Any => quote! { true },
            Ty::Bool => {
                let t = sp("type");
                quote! { rt::check_type(v, rt::JType::Boolean, p, #t, cx) }
            }
            Ty::Null => {
                let t = sp("type");
                quote! { rt::check_type(v, rt::JType::Null, p, #t, cx) }
            }
            Ty::Str { format } => {
                let t = sp("type");
                match format {
                    Some(f) => {
                        let fsp = sp("format");
                        let f = lit_str(f);
                        quote! { rt::check_type(v, rt::JType::String, p, #t, cx) && rt::check_format(v, #f, p, #fsp, cx) }
                    }
                    None => quote! { rt::check_type(v, rt::JType::String, p, #t, cx) },
                }
            }
            Ty::Num { integer, minimum, maximum } => {
                let t = sp("type");
                let jt = if *integer {
                    quote! { rt::JType::Integer }
                } else {
                    quote! { rt::JType::Number }
                };
                let mut bounds = Vec::new();
                if let Some(min) = minimum {
                    let msp = sp("minimum");
                    bounds.push(quote! { rt::check_minimum(v, #min, p, #msp, cx) });
                }
                if let Some(max) = maximum {
                    let msp = sp("maximum");
                    bounds.push(quote! { rt::check_maximum(v, #max, p, #msp, cx) });
                }
                if bounds.is_empty() {
                    quote! { rt::check_type(v, #jt, p, #t, cx) }
                } else {
                    quote! { rt::check_type(v, #jt, p, #t, cx) && (true #(& #bounds)*) }
                }
            }
            Ty::Array { items, max_items } if matches!(items.ty, Ty::Any) && max_items.is_none() => {
                let t = sp("type");
                quote! { rt::check_type(v, rt::JType::Array, p, #t, cx) }
            }
            Ty::Map(value) if matches!(value.ty, Ty::Any) => {
                let t = sp("type");
                quote! { rt::check_type(v, rt::JType::Object, p, #t, cx) }
            }
            Ty::Array { items, max_items } => {
                let t = sp("type");
                let item = self.check_expr(items);
                let max = match max_items {
                    Some(n) => {
                        let n = *n as usize;
                        let msp = sp("maxItems");
                        quote! { rt::check_max_items(v, #n, p, #msp, cx) }
                    }
                    None => quote! { true },
                };
                quote! {{
                    if rt::check_type(v, rt::JType::Array, p, #t, cx) {
                        let mut ok = #max;
                        for (i, x) in v.items().enumerate() {
                            let pi = p.index(i);
                            let (v, p) = (&x, &pi);
                            let r: bool = #item;
                            if !r {
                                ok = false;
                                if cx.stop_early() { break; }
                            }
                        }
                        ok
                    } else {
                        false
                    }
                }}
            }
            Ty::Map(value) => {
                let t = sp("type");
                let item = self.check_expr(value);
                quote! {{
                    if rt::check_type(v, rt::JType::Object, p, #t, cx) {
                        let mut ok = true;
                        for (k, x) in v.entries() {
                            let pk = p.key(&k);
                            let (v, p) = (&x, &pk);
                            let r: bool = #item;
                            if !r {
                                ok = false;
                                if cx.stop_early() { break; }
                            }
                        }
                        ok
                    } else {
                        false
                    }
                }}
            }
            Ty::Ref(name) => {
                let f = vfn(name);
                quote! { #f(v, p, cx) }
            }
            Ty::Decl(i) => {
                let f = vfn(&self.m.decls[*i].name);
                quote! { #f(v, p, cx) }
            }
            Ty::Lit(i) => {
                let c = sp("const");
                match &self.m.literals[*i].value {
                    LitValue::Str(s) => {
                        let s = lit_str(s);
                        quote! { rt::check_const_str(v, #s, p, #c, cx) }
                    }
                    LitValue::Int(n) => quote! { rt::check_const_int(v, #n, p, #c, cx) },
                }
            }
        }
    }
}

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

/// `validate.rs`: one generic validator per declaration and per alias definition.
pub fn validators(cx: &Ctx) -> TokenStream {
    let m = cx.m;
    let mut out = TokenStream::new();
    for def in &m.defs {
        let is_own_decl = matches!(&def.schema.ty, Ty::Decl(i) if m.decls[*i].name == def.name);
        if is_own_decl {
            continue;
        }
        let f = vfn(&def.name);
        let body = cx.check_expr(&def.schema);
        out.extend(quote! {
            pub(crate) fn #f<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool {
                #body
            }
        });
    }
    for d in &m.decls {
        out.extend(decl_validator(cx, d));
    }
    out
}

fn jtype(t: JType) -> TokenStream {
    match t {
        JType::Null => quote! { rt::JType::Null },
        JType::Boolean => quote! { rt::JType::Boolean },
        JType::Integer => quote! { rt::JType::Integer },
        JType::Number => quote! { rt::JType::Number },
        JType::String => quote! { rt::JType::String },
        JType::Array => quote! { rt::JType::Array },
        JType::Object => quote! { rt::JType::Object },
    }
}

fn str_slice(items: &[String]) -> TokenStream {
    let items = items.iter().map(|s| lit_str(s));
    quote! { &[#(#items),*] }
}

fn union_desc_ident(name: &str) -> Ident {
    format_ident!("U_{}", name)
}

fn decl_validator(cx: &Ctx, d: &Decl) -> TokenStream {
    let f = vfn(&d.name);
    let sp = &d.sp;
    match &d.kind {
        DeclKind::Object(o) => {
            let tsp = lit_str(&format!("{sp}/type"));
            let required: Vec<String> = o.props.iter().filter(|p| p.required).map(|p| p.key.clone()).collect();
            // Fail-fast passes do not look keys up for `required` (a lookup per key, linear on
            // a tape): the entry loop marks each required key it meets in a bit set, and only an
            // incomplete set falls back to `check_required` (which also applies client
            // leniency). Collecting passes check `required` first, so errors keep their order.
            let masked = !required.is_empty() && required.len() <= 64;
            let all_seen = if required.len() == 64 { u64::MAX } else { (1u64 << required.len()) - 1 };
            let rsp = lit_str(&format!("{sp}/required"));
            let keys = str_slice(&required);
            let req = if required.is_empty() {
                quote! { let mut ok = true; }
            } else if masked {
                quote! {
                    let mut ok = true;
                    if cx.is_collecting() {
                        ok = rt::check_required(v, #keys, p, #rsp, cx);
                    }
                    let mut seen: u64 = 0;
                }
            } else {
                quote! {
                    let mut ok = rt::check_required(v, #keys, p, #rsp, cx);
                    if !ok && cx.stop_early() { return false; }
                }
            };
            let req_end = if masked {
                quote! {
                    if seen != #all_seen && !cx.is_collecting() {
                        return rt::check_required(v, #keys, p, #rsp, cx);
                    }
                }
            } else {
                quote! {}
            };
            let arms = o.props.iter().map(|prop| {
                let key = lit_str(&prop.key);
                let check = cx.check_expr(&prop.schema);
                let bounded =
                    matches!(prop.schema.ty, Ty::Num { minimum: Some(_), .. } | Ty::Num { maximum: Some(_), .. });
                let body = if prop.relaxable && bounded {
                    // CACHE-3: a client reads a negative `ttlMs` as 0 instead of failing.
                    let mut loose = prop.schema.clone();
                    if let Ty::Num { minimum, maximum, .. } = &mut loose.ty {
                        *minimum = None;
                        *maximum = None;
                    }
                    let loose = cx.check_expr(&loose);
                    quote! { if cx.opts.client_leniency { #loose } else { #check } }
                } else {
                    check
                };
                match required.iter().position(|r| *r == prop.key) {
                    Some(bit) if masked => {
                        let bit = 1u64 << bit;
                        quote! { #key => { seen |= #bit; #body } }
                    }
                    _ => quote! { #key => #body },
                }
            });
            let osp = lit_str(sp);
            let fallback = match &o.unknown {
                Unknown::Open => quote! { rt::reject_unknown_key(&k, p, #osp, cx) },
                Unknown::Extension => quote! { true },
                Unknown::Map(value) => cx.check_expr(value),
                Unknown::Forbidden => {
                    let asp = lit_str(&format!("{sp}/additionalProperties"));
                    quote! {{ cx.fail(p, #asp, "additionalProperties", || format!("property `{}` is not allowed", k)); false }}
                }
            };
            let dispatch = if o.props.is_empty() {
                quote! { #fallback }
            } else {
                quote! { match &*k { #(#arms,)* _ => #fallback, } }
            };
            let trivially_open = o.props.is_empty() && matches!(o.unknown, Unknown::Extension);
            let loop_ = if trivially_open {
                quote! {}
            } else {
                quote! {
                    let parent = p;
                    for (k, x) in v.entries() {
                        let pk = parent.key(&k);
                        let (v, p) = (&x, &pk);
                        let r = #dispatch;
                        if !r {
                            ok = false;
                            if cx.stop_early() { return false; }
                        }
                    }
                }
            };
            if trivially_open && required.is_empty() {
                return quote! {
                    pub(crate) fn #f<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool {
                        rt::check_type(v, rt::JType::Object, p, #tsp, cx)
                    }
                };
            }
            quote! {
                pub(crate) fn #f<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool {
                    if !rt::check_type(v, rt::JType::Object, p, #tsp, cx) { return false; }
                    #req
                    #loop_
                    #req_end
                    ok
                }
            }
        }
        DeclKind::Enum(e) => {
            let esp = lit_str(&format!("{sp}/enum"));
            let values: Vec<String> = e.values.iter().map(|(v, _)| v.clone()).collect();
            let vals = str_slice(&values);
            quote! {
                pub(crate) fn #f<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool {
                    rt::check_enum_str(v, #vals, p, #esp, cx)
                }
            }
        }
        DeclKind::Union(u) => {
            let desc = union_desc_ident(&d.name);
            let name = lit_str(&d.name);
            let usp = lit_str(sp);
            let arm_descs = u.arms.iter().zip(&u.info.arms).map(|(a, info)| {
                let an = lit_str(&a.variant);
                let types = info.types.iter().map(|t| jtype(*t));
                let tv = str_slice(&info.tag_values);
                let tr = info.tag_required;
                let rq = str_slice(&info.required);
                let dc = str_slice(&info.declared);
                quote! { rt::ArmDesc { name: #an, types: &[#(#types),*], tag_values: #tv, tag_required: #tr, required: #rq, declared: #dc } }
            });
            let tag = match &u.info.tag {
                Some(t) => {
                    let t = lit_str(t);
                    quote! { Some(#t) }
                }
                None => quote! { None },
            };
            let rta = match u.info.result_type_arm {
                Some(i) => quote! { Some(#i) },
                None => quote! { None },
            };
            let tl = u.type_list;
            let n = u.arms.len();
            let mut arm_fns = Vec::new();
            let mut helpers = TokenStream::new();
            for (i, a) in u.arms.iter().enumerate() {
                match &a.schema.ty {
                    Ty::Ref(r) => {
                        let g = vfn(r);
                        arm_fns.push(quote! { #g });
                    }
                    Ty::Decl(j) => {
                        let g = vfn(&cx.m.decls[*j].name);
                        arm_fns.push(quote! { #g });
                    }
                    _ => {
                        let g = format_ident!("v_{}_arm{}", d.name, i);
                        let body = cx.check_expr(&a.schema);
                        helpers.extend(quote! {
                            fn #g<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool { #body }
                        });
                        arm_fns.push(quote! { #g });
                    }
                }
            }
            let arms_fn = format_ident!("arms_{}", d.name);
            let any_arm = arm_fns
                .iter()
                .enumerate()
                .map(|(i, g)| quote! { (filter.admits(v, &#desc, #i, &opts) && #g(v, p, cx)) })
                .reduce(|a, b| quote! { #a || #b })
                .unwrap_or_else(|| quote! { false });
            quote! {
                pub(crate) static #desc: rt::UnionDesc = rt::UnionDesc {
                    name: #name,
                    schema_path: #usp,
                    arms: &[#(#arm_descs),*],
                    tag: #tag,
                    result_type_arm: #rta,
                    type_list: #tl,
                };
                #helpers
                pub(crate) fn #arms_fn<'v, V: JsonView<'v>>() -> [rt::ArmFn<V>; #n] {
                    [#(#arm_fns),*]
                }
                pub(crate) fn #f<'v, V: JsonView<'v>>(v: &V, p: &Path<'_>, cx: &mut Cx) -> bool {
                    if !cx.is_collecting() {
                        // Yes/no: direct calls (inlinable), admitted arms in schema order.
                        let filter = rt::ArmFilter::new(v, &#desc);
                        let opts = cx.opts;
                        return #any_arm;
                    }
                    rt::check_union(v, &#desc, &#arms_fn::<V>(), p, cx)
                }
            }
        }
    }
}

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

/// A short type description for `mcpgen explain` (`string (uri)`, `array of Tool`,
/// `map of string`, `"tools/call"`), read from the IR.
fn describe_type(cx: &Ctx, s: &Schema) -> String {
    match &s.ty {
        Ty::Any => "any".into(),
        Ty::Bool => "boolean".into(),
        Ty::Null => "null".into(),
        Ty::Str { format: Some(f) } => format!("string ({f})"),
        Ty::Str { format: None } => "string".into(),
        Ty::Num { integer, minimum, maximum } => {
            let base = if *integer { "integer" } else { "number" };
            match (minimum, maximum) {
                (Some(lo), Some(hi)) => format!("{base} in {lo}..={hi}"),
                (Some(lo), None) => format!("{base} ≥ {lo}"),
                (None, Some(hi)) => format!("{base} ≤ {hi}"),
                (None, None) => base.into(),
            }
        }
        Ty::Array { items, .. } => format!("array of {}", describe_type(cx, items)),
        Ty::Map(v) => format!("map of {}", describe_type(cx, v)),
        Ty::Ref(name) => name.clone(),
        Ty::Decl(i) => {
            let d = &cx.m.decls[*i];
            if cx.m.def(&d.name).is_some() {
                return d.name.clone();
            }
            decl_shape(cx, d)
        }
        Ty::Lit(i) => match &cx.m.literals[*i].value {
            LitValue::Str(v) => format!("{v:?}"),
            LitValue::Int(n) => n.to_string(),
        },
    }
}

/// What a declaration is, spelled out (`object`, `TextContent | ImageContent`, `"a" | "b"`).
fn decl_shape(cx: &Ctx, d: &Decl) -> String {
    match &d.kind {
        DeclKind::Object(_) => "object".into(),
        DeclKind::Enum(e) => e.values.iter().map(|(w, _)| format!("{w:?}")).collect::<Vec<_>>().join(" | "),
        DeclKind::Union(u) => u.arms.iter().map(|a| describe_type(cx, &a.schema)).collect::<Vec<_>>().join(" | "),
    }
}

/// `registry.rs`: every definition by name, for run-time lookup.
pub fn registry(cx: &Ctx) -> TokenStream {
    let entries = cx.m.defs.iter().map(|def| {
        let name = lit_str(&def.name);
        let path = lit_str(&def.schema.sp);
        let summary = lit_str(&def.schema.doc.as_deref().map(|d| cx.docs.summary(d)).unwrap_or_default());
        let (fields, variants) = match cx.m.resolve_decl(&def.schema).map(|d| &d.kind) {
            Some(DeclKind::Object(o)) => (o.props.iter().collect::<Vec<_>>(), Vec::new()),
            Some(DeclKind::Union(u)) => (Vec::new(), u.arms.iter().map(|a| describe_type(cx, &a.schema)).collect()),
            Some(DeclKind::Enum(e)) => (Vec::new(), e.values.iter().map(|(w, _)| format!("{w:?}")).collect()),
            None => (Vec::new(), Vec::new()),
        };
        let fields = fields.iter().map(|p| {
            let key = lit_str(&p.key);
            let ty = lit_str(&describe_type(cx, &p.schema));
            let required = p.required;
            let doc = lit_str(&p.schema.doc.as_deref().map(|d| cx.docs.summary(d)).unwrap_or_default());
            quote! { crate::decode::FieldEntry { name: #key, type_desc: #ty, required: #required, summary: #doc } }
        });
        let variants = variants.iter().map(|v| lit_str(v));
        let type_desc = match &def.schema.ty {
            Ty::Decl(i) if cx.m.decls[*i].name == def.name => decl_shape(cx, &cx.m.decls[*i]),
            _ => describe_type(cx, &def.schema),
        };
        let type_desc = lit_str(&type_desc);
        quote! {
            crate::decode::DefEntry {
                name: #name, schema_path: #path, summary: #summary, type_desc: #type_desc,
                fields: &[#(#fields),*], variants: &[#(#variants),*],
            }
        }
    });
    let validate_arms = cx.m.defs.iter().enumerate().map(|(i, def)| {
        let f = vfn(&def.name);
        quote! { #i => #f }
    });
    let build_arms = cx.m.defs.iter().enumerate().map(|(i, def)| {
        let ty = cx.rust_type(&def.schema, None);
        quote! { #i => Some(<#ty as FromJson>::from_json(v, b).map(|x| ::std::boxed::Box::new(x) as ::std::boxed::Box<dyn crate::decode::AnyDecoded>)) }
    });
    // Name lookup (once per by-name call): the length picks a small bucket, then a `match`
    // over names of that length, instead of comparing against every definition in turn.
    let mut by_len: std::collections::BTreeMap<usize, Vec<(usize, &str)>> = std::collections::BTreeMap::new();
    for (i, def) in cx.m.defs.iter().enumerate() {
        by_len.entry(def.name.len()).or_default().push((i, def.name.as_str()));
    }
    let len_arms = by_len.iter().map(|(len, names)| {
        let arms = names.iter().map(|(i, n)| {
            let n = lit_str(n);
            quote! { #n => Some(#i) }
        });
        quote! { #len => match name { #(#arms,)* _ => None } }
    });
    quote! {
        /// Validates any JSON view against the definition `name`: `None` when the revision has
        /// no such definition. Generic, so bindings with their own view type (Python objects)
        /// reuse the generated validators.
        pub fn validate_view<'v, V: JsonView<'v>>(name: &str, v: &V, p: &Path<'_>, cx: &mut Cx) -> ::std::option::Option<bool> {
            // Pick a function pointer, then call it: a `match` of direct calls would let the
            // compiler inline every validator into one huge dispatcher, slow to enter.
            let f: rt::ArmFn<V> = match definition_index(name)? {
                #(#validate_arms,)*
                _ => return None,
            };
            Some(f(v, p, cx))
        }

        /// Builds the typed value of definition `name` from a view the validator accepted:
        /// `None` for an unknown name, `Some(None)` if validator and builder disagree (a bug).
        #[allow(clippy::type_complexity)]
        pub fn build_view<'v, V: JsonView<'v>>(name: &str, v: &V, b: &Builder) -> ::std::option::Option<::std::option::Option<::std::boxed::Box<dyn crate::decode::AnyDecoded>>> {
            match definition_index(name)? {
                #(#build_arms,)*
                _ => None,
            }
        }

        /// Every definition of this revision, in schema order.
        pub static DEFINITIONS: &[crate::decode::DefEntry] = &[#(#entries),*];

        /// Looks a definition up by its schema name.
        pub fn definition(name: &str) -> ::std::option::Option<&'static crate::decode::DefEntry> {
            DEFINITIONS.get(definition_index(name)?)
        }

        /// Index in [`DEFINITIONS`] of the definition called `name`.
        pub fn definition_index(name: &str) -> ::std::option::Option<usize> {
            match name.len() {
                #(#len_arms,)*
                _ => None,
            }
        }
    }
}
