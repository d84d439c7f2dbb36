//! Cross-revision tables the IR knows, as Rust constants of crate `mcpgen-schema` (the C header
//! gets the error codes from the same collection, [`error_codes`]):
//!
//! - `generated/src/error_codes.rs`: one `i64` per error definition whose `code` is a `const`
//!   (`PARSE_ERROR`, `HEADER_MISMATCH_ERROR`, …), and `ERROR_DEFS`, the definition each code
//!   selects (`mcpgen::protocol::validate_message` reads error responses by it);
//! - `generated/src/meta_keys.rs`: one `&str` per `_meta` key the schemas declare under MCP's
//!   prefix (`PROTOCOL_VERSION` = `io.modelcontextprotocol/protocolVersion`, …), and `ALL`.

use std::collections::BTreeMap;

use heck::ToShoutySnakeCase;
use quote::{format_ident, quote};

use crate::ir::{DeclKind, LitValue, Module, Ty};
use crate::workspace::header;
use crate::{Diagnostics, FileMap};

/// Path of the error-code constants.
pub const ERROR_CODES_PATH: &str = "generated/src/error_codes.rs";
/// Path of the `_meta` key constants.
pub const META_KEYS_PATH: &str = "generated/src/meta_keys.rs";
/// The prefix of the `_meta` keys MCP defines (META-5).
pub const MCP_META_PREFIX: &str = "io.modelcontextprotocol/";

/// An error definition that pins its `code` with a `const`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: i64,
    /// True when the definition is a whole error response (`{jsonrpc, id, error}`, the MCP
    /// codes); false for a bare `Error` object (the JSON-RPC codes).
    pub whole_response: bool,
    /// The revisions that define it, oldest first.
    pub revisions: Vec<String>,
}

/// Every error definition of `modules` (oldest first) whose `code` is a `const`, by name; a
/// definition whose code differs between revisions is a diagnostic.
pub fn error_codes(modules: &[&Module], diags: &mut Diagnostics) -> BTreeMap<String, ErrorCode> {
    let mut all: BTreeMap<String, ErrorCode> = BTreeMap::new();
    for m in modules {
        let mut in_rev: BTreeMap<&str, i64> = BTreeMap::new();
        for d in &m.decls {
            let DeclKind::Object(o) = &d.kind else { continue };
            for p in o.props.iter().filter(|p| p.key == "code") {
                if let Ty::Lit(l) = p.schema.ty {
                    if let LitValue::Int(code) = m.literals[l].value {
                        in_rev.insert(&d.def, code);
                    }
                }
            }
        }
        for (def, code) in in_rev {
            let whole_response = m
                .def(def)
                .and_then(|d| m.resolve_decl(&d.schema))
                .is_some_and(|d| matches!(&d.kind, DeclKind::Object(o) if o.props.iter().any(|p| p.key == "error")));
            let e = all.entry(def.to_owned()).or_insert(ErrorCode { code, whole_response, revisions: Vec::new() });
            if e.code != code || e.whole_response != whole_response {
                diags.push(
                    &m.revision,
                    Some(def),
                    "",
                    format!("error code {code} differs from {} in another revision", e.code),
                );
            }
            e.revisions.push(m.revision.clone());
        }
    }
    all
}

/// Every `_meta` key under [`MCP_META_PREFIX`] some definition declares: key → (definitions,
/// revisions), each list in first-seen order.
pub fn meta_keys(modules: &[&Module]) -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    let mut all: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for m in modules {
        for d in &m.decls {
            let DeclKind::Object(o) = &d.kind else { continue };
            for p in o.props.iter().filter(|p| p.key.starts_with(MCP_META_PREFIX)) {
                let (defs, revs) = all.entry(p.key.clone()).or_default();
                if !defs.contains(&d.def) {
                    defs.push(d.def.clone());
                }
                if !revs.contains(&m.revision) {
                    revs.push(m.revision.clone());
                }
            }
        }
    }
    all
}

/// Emits both files from every revision's lowered module.
pub fn emit(modules: &[Module]) -> Result<FileMap, Diagnostics> {
    let mut sorted: Vec<&Module> = modules.iter().collect();
    sorted.sort_by(|a, b| a.revision.cmp(&b.revision));
    let mut diags = Diagnostics::default();
    let mut files = FileMap::default();

    let codes = error_codes(&sorted, &mut diags);
    let mut consts = Vec::new();
    let mut rows = Vec::new();
    for (def, e) in &codes {
        let name = format_ident!("{}", def.to_shouty_snake_case());
        let doc = format!(" `{def}` ({}); revisions {}.", e.code, e.revisions.join(", "));
        let code = proc_macro2::Literal::i64_unsuffixed(e.code);
        consts.push(quote! { #[doc = #doc] pub const #name: i64 = #code; });
        let whole = e.whole_response;
        rows.push(quote! { crate::methods::ErrorDef { code: #name, def: #def, whole_response: #whole }, });
    }
    let tokens = quote! {
        //! JSON-RPC error codes, from the error definitions' `code` constants in every pinned
        //! revision (the C header's `MCPGEN_ERROR_CODE_*` come from the same table).
        #(#consts)*
        /// Every error definition some revision has, by code: what an `error.code` selects
        /// (keep the ones a revision defines: `Revision::definition`).
        pub const ERROR_DEFS: &[crate::methods::ErrorDef] = &[#(#rows)*];
    };
    let head = header("//", "", None, "JSON-RPC error codes from every revision's error definitions.");
    match super::render(&head, tokens, "error_codes.rs") {
        Ok(text) => files.insert(ERROR_CODES_PATH, text),
        Err(e) => diags.push("*", None, "", e),
    }

    let keys = meta_keys(&sorted);
    let mut consts = Vec::new();
    let mut names = Vec::new();
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for (key, (defs, revs)) in &keys {
        let short = key[MCP_META_PREFIX.len()..].to_shouty_snake_case();
        if let Some(other) = seen.insert(short.clone(), key) {
            diags.push("*", None, "", format!("`_meta` keys {other} and {key} both make the constant {short}"));
        }
        let name = format_ident!("{short}");
        let doc = format!(" `{key}`: declared by `{}`; revisions {}.", defs.join("`, `"), revs.join(", "));
        consts.push(quote! { #[doc = #doc] pub const #name: &str = #key; });
        names.push(name);
    }
    let tokens = quote! {
        //! The `_meta` keys the schemas declare under MCP's reserved prefix
        //! (`io.modelcontextprotocol/`), from every pinned revision.
        #(#consts)*
        /// Every key above, in name order.
        pub const ALL: &[&str] = &[#(#names),*];
    };
    let head = header("//", "", None, "the `_meta` keys every revision's schema declares.");
    match super::render(&head, tokens, "meta_keys.rs") {
        Ok(text) => files.insert(META_KEYS_PATH, text),
        Err(e) => diags.push("*", None, "", e),
    }
    diags.into_result(files)
}
