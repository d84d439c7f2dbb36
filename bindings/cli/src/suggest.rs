//! "Did you mean …?" for names given on the command line: definitions, methods, rule ids.

use crate::UsageError;

/// ` (did you mean `X`?)` when one of `candidates` is close to `name` (edit distance, case
/// ignored, at most a third of the name's length and at least 1), else the empty string.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let wanted = name.to_ascii_lowercase();
    let limit = (name.chars().count() / 3).max(1);
    let best = candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&wanted, &c.to_ascii_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d);
    match best {
        Some((_, c)) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

/// The definition names of a revision.
pub fn definitions(rev: mcpgen::Revision) -> impl Iterator<Item = &'static str> {
    rev.definitions().iter().map(|d| d.name)
}

/// The methods of a revision.
pub fn methods(rev: mcpgen::Revision) -> impl Iterator<Item = &'static str> {
    rev.methods().iter().map(|m| m.method)
}

/// The message for a definition name the revision lacks, with a suggestion.
pub(crate) fn unknown_definition(rev: mcpgen::Revision, name: &str) -> UsageError {
    UsageError(format!(
        "revision {rev} has no definition named `{name}`{} (see `mcpgen defs --revision {rev}`)",
        did_you_mean(name, definitions(rev))
    ))
}

/// The message for a definition name the extension's schema lacks.
pub(crate) fn unknown_extension_definition(ext: mcpgen::ext::Extension, name: &str) -> UsageError {
    let known: Vec<&str> = ext.definitions().iter().map(|d| d.name).collect();
    let hint = did_you_mean(name, known.iter().copied());
    UsageError(format!("extension {} has no definition named `{name}`{hint}", ext.id()))
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn close_names_are_suggested_and_far_ones_not() {
        let names = ["CallToolRequest", "ListToolsRequest", "tools/call"];
        assert_eq!(did_you_mean("CallToolReqest", names), " (did you mean `CallToolRequest`?)");
        assert_eq!(did_you_mean("tools/calll", names), " (did you mean `tools/call`?)");
        assert_eq!(did_you_mean("calltoolrequest", names), " (did you mean `CallToolRequest`?)");
        assert_eq!(did_you_mean("Nothing", names), "");
    }
}
