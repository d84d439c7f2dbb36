//! The generated result-shape table: per request method, what its complete result carries
//! (`resultType`, the declared `_meta` keys) and whether it is a paginated list (the array a
//! lenient decode may thin out). Read by the peer helpers and the per-item list decoding of
//! `mcpgen`; derived from the IR, never a hand list.

use proc_macro2::TokenStream;
use quote::quote;

use super::rust::Ctx;
use crate::ir::{DeclKind, MethodKind, Module, ObjectDecl, Ty};

/// The object declaration a definition ends at, if it is one.
fn object<'m>(m: &'m Module, def: &str) -> Option<&'m ObjectDecl> {
    match &m.resolve_decl(&m.def(def)?.schema)?.kind {
        DeclKind::Object(o) => Some(o),
        _ => None,
    }
}

/// A paginated list result: it declares `nextCursor` and exactly one required array whose
/// items are a named definition (`tools: Tool[]`). Arrays whose items belong together —
/// `CallToolResult.content`, `GetPromptResult.messages` — have no `nextCursor` and stay whole.
fn list_items(o: &ObjectDecl) -> Option<(String, String)> {
    o.props.iter().find(|p| p.key == "nextCursor")?;
    let mut lists = o.props.iter().filter(|p| p.required).filter_map(|p| match &p.schema.ty {
        Ty::Array { items, .. } => match &items.ty {
            Ty::Ref(def) => Some((p.key.clone(), def.clone())),
            _ => None,
        },
        _ => None,
    });
    let first = lists.next()?;
    lists.next().is_none().then_some(first)
}

pub fn result_shapes(cx: &Ctx) -> TokenStream {
    let m = cx.m;
    let entries = m.methods.iter().filter(|x| x.kind == MethodKind::Request).filter_map(|x| {
        let def = x.result_defs.iter().find(|r| r.as_str() != "InputRequiredResult")?;
        shape(m, &x.method, def)
    });
    let generic = shape(m, "", "Result").unwrap_or_else(|| {
        quote! { crate::methods::ResultShape { method: "", result_def: "Result", result_type: false, meta_keys: &[], list: None } }
    });
    quote! {
        /// What each request method's complete result carries: `resultType`, the `_meta` keys
        /// its definition declares, and for paginated lists the array of items.
        pub static RESULT_SHAPES: &[crate::methods::ResultShape] = &[#(#entries),*];

        /// The shape of the generic `Result` definition (`method` empty): what a result of a
        /// method this revision does not define (an extension's) carries.
        pub static GENERIC_RESULT_SHAPE: crate::methods::ResultShape = #generic;

        /// The result shape of a request method, if the revision has it.
        pub fn result_shape(name: &str) -> ::std::option::Option<&'static crate::methods::ResultShape> {
            RESULT_SHAPES.iter().find(|s| s.method == name)
        }
    }
}

fn shape(m: &Module, method: &str, def: &str) -> Option<TokenStream> {
    let o = object(m, def)?;
    let result_type = o.props.iter().any(|p| p.key == "resultType");
    let meta_keys: Vec<&str> = o
        .props
        .iter()
        .find(|p| p.key == "_meta")
        .and_then(|p| m.resolve_decl(&p.schema))
        .map(|d| match &d.kind {
            DeclKind::Object(meta) => meta.props.iter().map(|p| p.key.as_str()).collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    let list = match list_items(o) {
        Some((key, item)) => quote! { Some(crate::methods::ListItems { key: #key, item_def: #item }) },
        None => quote! { None },
    };
    Some(quote! {
        crate::methods::ResultShape {
            method: #method,
            result_def: #def,
            result_type: #result_type,
            meta_keys: &[#(#meta_keys),*],
            list: #list,
        }
    })
}
