//! `validate.rs`: one generic validator per declaration and per alias definition, and the
//! check expression of a schema position.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{lit_str, union_desc_ident, vfn, Ctx};
use crate::ir::{Decl, DeclKind, JType, LitValue, Schema, Ty, Unknown};

impl Ctx<'_> {
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
