//! What the codegen's workspace tests share.

/// The project's rules catalogue without its `[[rule.revision]]` entries: those name the pinned
/// revisions, and the test workspaces pin made-up ones (`2099-01-01`), so the codegen would
/// refuse every entry as naming an unknown revision.
pub fn rules_without_revisions() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schema/rules.toml");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut catalogue: toml::Table = text.parse().unwrap_or_else(|e| panic!("{path}: {e}"));
    if let Some(toml::Value::Array(rules)) = catalogue.get_mut("rule") {
        for rule in rules.iter_mut().filter_map(toml::Value::as_table_mut) {
            rule.remove("revision");
        }
    }
    toml::to_string(&catalogue).expect("a TOML table serialises")
}
