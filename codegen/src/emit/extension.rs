//! A lowered extension schema made into the extension's module: its method rows, their pinned
//! directions, and its definitions sorted into copies of the core revision's and differing ones.

use super::ExtInfo;
use crate::{ir, Diagnostics, ExtensionInput};

/// The directions `[extension.directions]` pins for the extension's own methods (its schema has
/// no direction unions): every method needs one, and every pinned name must be a method of the
/// extension, so a renamed or added method upstream is noticed.
fn pin_directions(module: &mut ir::Module, ext: &ExtensionInput, diags: &mut Diagnostics) {
    const WHERE: &str = "[extension.directions] in schema/sources.toml";
    for name in ext.client_to_server.iter().chain(&ext.server_to_client) {
        if !module.methods.iter().any(|m| &m.method == name) {
            diags.push(
                &module.revision,
                None,
                "",
                format!("{WHERE} names `{name}`, which is not a method the extension {} adds", ext.id),
            );
        }
    }
    for m in &mut module.methods {
        let pinned = match (ext.client_to_server.contains(&m.method), ext.server_to_client.contains(&m.method)) {
            (true, true) => ir::Direction::Both,
            (true, false) => ir::Direction::ClientToServer,
            (false, true) => ir::Direction::ServerToClient,
            (false, false) => ir::Direction::Unspecified,
        };
        match (m.direction, pinned) {
            (ir::Direction::Unspecified, ir::Direction::Unspecified) => diags.push(
                &module.revision,
                Some(&m.request_def),
                "",
                format!(
                    "method `{}` of extension {} has no direction: add it to client_to_server or server_to_client in \
                     {WHERE} (what the extension's text says)",
                    m.method, ext.id
                ),
            ),
            (ir::Direction::Unspecified, d) => m.direction = d,
            (schema, d) if d != ir::Direction::Unspecified && d != schema => diags.push(
                &module.revision,
                Some(&m.request_def),
                "",
                format!("{WHERE} says `{}` is {d:?}, its schema {schema:?}", m.method),
            ),
            _ => {}
        }
    }
}

/// Turns a lowered extension schema into the extension's module: keeps the method rows of the
/// methods the extension adds (the copies of core requests such as `sampling/createMessage`
/// stay types, not rows: the core revision owns those methods) and sorts the definitions that
/// share a core name into copies (same lowered shape) and differing ones.
pub(super) fn extension_module(
    mut module: ir::Module,
    core: &ir::Module,
    ext: &ExtensionInput,
    diags: &mut Diagnostics,
) -> (ir::Module, ExtInfo) {
    module.methods.retain(|m| !core.methods.iter().any(|c| c.method == m.method));
    pin_directions(&mut module, ext, diags);
    let mut core_copies = Vec::new();
    let mut core_differs = Vec::new();
    // The revision diff engine compares definitions by name, structurally: a copy is a core
    // definition with no change under its name.
    let changes = crate::diff::diff(core, &module).changes;
    for d in &module.defs {
        if core.def(&d.name).is_some() {
            let changed = changes
                .iter()
                .any(|c| matches!(&c.subject, crate::diff::Subject::Definition { name, .. } if name == &d.name));
            if !changed {
                core_copies.push(d.name.clone());
            } else {
                core_differs.push(d.name.clone());
            }
        }
    }
    let info = ExtInfo { id: ext.id.clone(), layers_on: ext.layers_on.clone(), core_copies, core_differs };
    (module, info)
}
