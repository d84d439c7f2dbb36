//! The `mod.rs` of a revision's (or extension's) module: its docs (the schema's facts, the
//! errata applied, an extension's copies of core definitions), its submodules and re-exports,
//! and its constants.

use proc_macro2::TokenStream;
use quote::quote;

use super::{rust, ExtInfo};
use crate::load;

pub(super) fn module_root(cx: &rust::Ctx, ext: Option<&ExtInfo>) -> TokenStream {
    let m = cx.m;
    let title = match ext {
        Some(e) => format!(" MCP extension `{}` (layers on revision {}).", e.id, e.layers_on),
        None => format!(" MCP schema revision {}.", m.revision),
    };
    let dialect = match m.dialect {
        load::Dialect::Draft2020_12 => "JSON Schema 2020-12",
        load::Dialect::Draft07 => "JSON Schema draft-07",
    };
    let facts = format!(
        " Generated from `schema.json` (sha256 `{}`, {dialect}): {} definitions, {} declared types, {} methods.",
        m.sha256,
        m.defs.len(),
        m.decls.len(),
        m.methods.len()
    );
    let errata: Vec<String> =
        m.errata.iter().map(|e| format!(" - erratum {} at `{}`: {}", e.id, e.pointer, e.reason)).collect();
    let errata_doc = if errata.is_empty() {
        quote! {}
    } else {
        let intro = " Patched with the errata ledger before generation:";
        quote! { #![doc = ""] #![doc = #intro] #(#![doc = #errata])* }
    };
    let revision = &m.revision;
    let sha = &m.sha256;
    let (ext_doc, ext_items) = match ext {
        None => (quote! {}, quote! {}),
        Some(e) => {
            let id = &e.id;
            let layers = &e.layers_on;
            let copies = &e.core_copies;
            let differs = &e.core_differs;
            let methods: Vec<&str> = m.methods.iter().map(|x| x.method.as_str()).collect();
            let copies_doc = format!(
                " The schema carries its own copies of {} core definitions; {} of them lower to the same shape as in \
                 revision {layers}, {} differ ([`CORE_DIFFERS`]). All are generated here, so this module judges \
                 a message exactly as the extension's schema does.",
                copies.len() + differs.len(),
                copies.len(),
                differs.len()
            );
            let doc = quote! {
                #![doc = ""]
                #![doc = #copies_doc]
            };
            let items = quote! {
                /// The extension identifier, the key under `capabilities.extensions`.
                pub const EXTENSION_ID: &str = #id;
                /// The core revision the extension layers on.
                pub const LAYERS_ON: &str = #layers;
                /// Methods and notifications the extension adds (its rows in [`METHODS`]).
                pub const EXTENSION_METHODS: &[&str] = &[#(#methods),*];
                /// Definitions copied from the core revision with the same lowered shape.
                pub const CORE_COPIES: &[&str] = &[#(#copies),*];
                /// Definitions named like a core definition whose shape here differs.
                pub const CORE_DIFFERS: &[&str] = &[#(#differs),*];
            };
            (doc, items)
        }
    };
    quote! {
        #![doc = #title]
        #![doc = ""]
        #![doc = #facts]
        #errata_doc
        #ext_doc
        #![allow(non_snake_case, non_camel_case_types, non_upper_case_globals, unused_variables, clippy::upper_case_acronyms, clippy::large_enum_variant, clippy::module_inception)]

        mod builders;
        mod decode;
        pub mod lit;
        pub mod methods;
        mod registry;
        #[cfg(feature = "serde")]
        mod serde_impls;
        mod types;
        pub(crate) mod validate;

        pub use builders::*;
        pub use methods::*;
        pub use registry::{build_view, definition, validate_view, DEFINITIONS};
        pub use types::*;

        /// The revision name.
        pub const REVISION: &str = #revision;
        /// sha256 of the schema file this module was generated from.
        pub const SCHEMA_SHA256: &str = #sha;
        #ext_items
    }
}
