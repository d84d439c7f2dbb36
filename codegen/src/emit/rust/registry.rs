//! `registry.rs`: every definition by name, with the short descriptions `mcpgen explain` shows.

use proc_macro2::TokenStream;
use quote::quote;

use super::{lit_str, vfn, Ctx};
use crate::ir::{Decl, DeclKind, LitValue, Schema, Ty};

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
