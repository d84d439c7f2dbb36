//! The crate `mcpgen-schema` around the generated modules: `generated/src/lib.rs` and
//! `generated/Cargo.toml`, one cargo feature per revision and per extension.

use super::{ext_feature_name, ext_module_name, feature_name, module_name, ExtInfo};
use crate::workspace::header;
use crate::{ir, ExtensionInput};

/// `generated/src/lib.rs`, written as text already in `rustfmt` style, so `cargo fmt --check`
/// leaves it alone; the modules below it carry `#[rustfmt::skip]`.
pub(super) fn schema_crate_root(revisions: &[ir::Module], exts: &[(&ExtensionInput, &ExtInfo)]) -> String {
    let mut s = header("//", "", None, "the root of crate mcpgen-schema.");
    s.push_str(
        "\n//! # mcpgen-schema\n\
         //!\n\
         //! Generated code only: one module per MCP schema revision (types, validators, decoders,\n\
         //! definition registry, method table) and the [`Revision`] enum that dispatches over them.\n\
         //! Use it through the `mcpgen` crate, which re-exports every revision module.\n\
         \n\
         // Generated modules name the runtime as `crate::decode`, `crate::json`, … .\n\
         #[cfg(feature = \"serde\")]\n\
         use mcpgen_runtime::__rt::serde_glue;\n\
         use mcpgen_runtime::__rt::{build, decode, validate};\n\
         use mcpgen_runtime::{json, methods};\n\
         \n",
    );
    for rev in revisions {
        let feature = feature_name(&rev.revision);
        let module = module_name(&rev.revision);
        s.push_str(&format!(
            "/// MCP revision {}.\n#[cfg(feature = \"{feature}\")]\n#[rustfmt::skip]\npub mod {module};\n",
            rev.revision
        ));
    }
    for (ext, info) in exts {
        s.push_str(&format!(
            "/// MCP extension `{}` (layers on revision {}).\n#[cfg(all(feature = \"{}\", feature = \"{}\"))]\n#[rustfmt::skip]\npub mod {};\n",
            ext.id,
            info.layers_on,
            ext_feature_name(&ext.name),
            feature_name(&info.layers_on),
            ext_module_name(&ext.name)
        ));
    }
    s.push_str("\n#[rustfmt::skip]\nmod revisions;\npub use revisions::Revision;\n");
    s.push_str("#[rustfmt::skip]\nmod extensions;\npub use extensions::Extension;\n");
    s.push_str(
        "\n/// JSON-RPC error codes of the error definitions, and the definition each code selects.\n\
         #[rustfmt::skip]\npub mod error_codes;\n\
         /// The `_meta` keys the schemas declare under `io.modelcontextprotocol/`.\n\
         #[rustfmt::skip]\npub mod meta_keys;\n",
    );
    s.push_str(&format!(
        "\n/// The rules catalogue (from `schema/rules.toml`); read it through `mcpgen::rules`.\n#[doc(hidden)]\n#[rustfmt::skip]\npub mod {};\n",
        crate::rules::TABLE_MODULE
    ));
    s.push_str(
        "\n/// Calls `$m!` with every revision of the build as `\"feature\" => module` pairs, so crates\n\
         /// built on this one derive per-revision code from the one table (forward the features).\n\
         #[doc(hidden)]\n\
         #[macro_export]\n\
         macro_rules! for_each_revision {\n    ($m:ident) => {\n        $m!(\n",
    );
    let pairs: Vec<String> = revisions
        .iter()
        .map(|rev| format!("            \"{}\" => {}", feature_name(&rev.revision), module_name(&rev.revision)))
        .collect();
    s.push_str(&pairs.join(",\n"));
    s.push_str("\n        );\n    };\n}\n");
    s
}

/// `generated/Cargo.toml`: one cargo feature per revision, all on by default.
pub(super) fn schema_crate_manifest(revisions: &[ir::Module], exts: &[(&ExtensionInput, &ExtInfo)]) -> String {
    let mut s = header("#", "", None, "the manifest of crate mcpgen-schema.");
    let mut features: Vec<String> = revisions.iter().map(|r| format!("\"{}\"", feature_name(&r.revision))).collect();
    features.extend(exts.iter().map(|(e, _)| format!("\"{}\"", ext_feature_name(&e.name))));
    s.push_str(
        "\n[package]\n\
         name = \"mcpgen-schema\"\n\
         description = \"Generated types, validators and method tables for every pinned MCP schema revision (use them through the mcpgen crate)\"\n\
         version.workspace = true\n\
         edition.workspace = true\n\
         license.workspace = true\n\
         rust-version.workspace = true\n\
         \n\
         [features]\n",
    );
    s.push_str(&format!("default = [{}, \"serde\"]\n", features.join(", ")));
    for rev in revisions {
        s.push_str(&format!("{} = []\n", feature_name(&rev.revision)));
    }
    for (ext, info) in exts {
        s.push_str(&format!(
            "# extension {} (layers on {}).\n{} = [\"{}\"]\n",
            ext.id,
            info.layers_on,
            ext_feature_name(&ext.name),
            feature_name(&info.layers_on)
        ));
    }
    s.push_str("# serde `Serialize` / `Deserialize` for every generated type.\nserde = [\"mcpgen-runtime/serde\"]\n");
    s.push_str("\n[dependencies]\nmcpgen-runtime = { workspace = true }\n");
    s
}
