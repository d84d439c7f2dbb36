//! Turning schema `description` text into rustdoc that builds without warnings.
//!
//! `{@link X}` becomes an intra-doc link when `X` is a type of the module (plain code
//! otherwise); bare URLs become autolinks; brackets and angle brackets outside code are
//! escaped so rustdoc does not read them as links or HTML; fenced blocks without a language are
//! marked `text` so they are not compiled as doctests; indented lines are de-indented for the
//! same reason.

use std::collections::BTreeSet;

/// Converts a description into rustdoc lines.
pub fn rustdoc(desc: &str, known: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in desc.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if !in_fence && trimmed.trim() == "```" {
                out.push("```text".to_owned());
            } else {
                out.push(trimmed.to_owned());
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            out.push(line.to_owned());
            continue;
        }
        // Four leading spaces would start an (untested but compiled) indented code block.
        let line = if line.starts_with("    ") { trimmed } else { line };
        out.push(inline(line, known));
    }
    if in_fence {
        out.push("```".to_owned());
    }
    out
}

/// The first paragraph, flattened to one line of plain text (for summaries).
pub fn summary(desc: &str, known: &BTreeSet<String>) -> String {
    let para = desc.split("\n\n").next().unwrap_or("");
    let mut out = String::new();
    let mut rest = para;
    while let Some(start) = rest.find("{@link ") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 7..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&link_parts(&after[..end], known).1);
                rest = &after[end + 1..];
            }
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits a `{@link …}` target into the type it links to (if the module has it) and the text
/// to show. Accepts `X`, `X.field`, `X | label`, `X label`, and the upstream generator's
/// mangled `Xlabel` (`CallToolRequesttools/call`: the `|` and spaces were dropped), which is
/// repaired by taking the longest known type name that prefixes the target.
fn link_parts(target: &str, known: &BTreeSet<String>) -> (Option<String>, String) {
    let target = target.trim();
    if let Some((t, l)) = target.split_once(['|', ' ']) {
        let t = t.trim();
        let base = t.split(['.', '#']).next().unwrap_or(t);
        let label = l.trim().trim_start_matches('|').trim().to_owned();
        return (known.contains(base).then(|| base.to_owned()), label);
    }
    let base = target.split(['.', '#']).next().unwrap_or(target);
    if known.contains(base) {
        return (Some(base.to_owned()), target.to_owned());
    }
    let prefix =
        known.iter().filter(|k| target.starts_with(k.as_str()) && target.len() > k.len()).max_by_key(|k| k.len());
    match prefix {
        Some(k) => (Some(k.clone()), target[k.len()..].to_owned()),
        None => (None, target.to_owned()),
    }
}

fn inline(line: &str, known: &BTreeSet<String>) -> String {
    let mut out = String::new();
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`') {
            // Code span: copy through the closing backtick untouched.
            match after.find('`') {
                Some(end) => {
                    out.push('`');
                    out.push_str(&after[..=end]);
                    rest = &after[end + 1..];
                }
                None => {
                    out.push_str("\\`");
                    rest = after;
                }
            }
            continue;
        }
        if let Some(after) = rest.strip_prefix("{@link ") {
            if let Some(end) = after.find('}') {
                let (base, label) = link_parts(&after[..end], known);
                match base {
                    Some(base) if label == base => out.push_str(&format!("[`{base}`]")),
                    Some(base) if label.contains('`') => out.push_str(&format!("[{label}]({base})")),
                    Some(base) => out.push_str(&format!("[`{label}`]({base})")),
                    None if label.contains('`') => out.push_str(&label),
                    None => out.push_str(&format!("`{label}`")),
                }
                rest = &after[end + 1..];
                continue;
            }
        }
        if rest.starts_with("https://") || rest.starts_with("http://") {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ')' || c == '>' || c == '"' || c == '`')
                .unwrap_or(rest.len());
            let mut url = &rest[..end];
            while url.ends_with(['.', ',', ';', ':']) {
                url = &url[..url.len() - 1];
            }
            out.push('<');
            out.push_str(url);
            out.push('>');
            rest = &rest[url.len()..];
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        match c {
            '[' | ']' | '<' | '>' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_escapes() {
        let known: BTreeSet<String> = ["Tool".to_owned()].into();
        let lines = rustdoc(
            "See {@link Tool} and {@link Missing}; [x] <b> https://a.b/c.\n    indented\n```\ncode\n```",
            &known,
        );
        assert_eq!(lines[0], "See [`Tool`] and `Missing`; \\[x\\] \\<b\\> <https://a.b/c>.");
        // The upstream generator drops the `|` of `{@link X | label}`: repaired by prefix.
        assert_eq!(rustdoc("a {@link Tooltools/call} b", &known)[0], "a [`tools/call`](Tool) b");
        assert_eq!(rustdoc("{@link Tool.inputSchema}", &known)[0], "[`Tool.inputSchema`](Tool)");
        assert_eq!(summary("For {@link Tooltools/list}.\n\nMore.", &known), "For tools/list.");
        assert_eq!(lines[1], "indented");
        assert_eq!(lines[2], "```text");
        assert_eq!(lines[4], "```");
    }

    #[test]
    fn code_spans_untouched() {
        let known = BTreeSet::new();
        assert_eq!(rustdoc("`a_b<c>`", &known)[0], "`a_b<c>`");
    }
}
