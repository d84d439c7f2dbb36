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

/// The first paragraph, flattened to one line (for summaries and the method table).
pub fn summary(desc: &str) -> String {
    let para = desc.split("\n\n").next().unwrap_or("");
    para.split_whitespace().collect::<Vec<_>>().join(" ").replace("{@link ", "").replace('}', "")
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
                let target = after[..end].trim();
                let (target, label) = match target.split_once([' ', '|']) {
                    Some((t, l)) => (t.trim(), Some(l.trim())),
                    None => (target, None),
                };
                let base = target.split(['.', '#']).next().unwrap_or(target);
                let shown = label.unwrap_or(target);
                if known.contains(base) {
                    if shown == base {
                        out.push_str(&format!("[`{base}`]"));
                    } else {
                        out.push_str(&format!("[`{shown}`]({base})"));
                    }
                } else {
                    out.push_str(&format!("`{shown}`"));
                }
                rest = &after[end + 1..];
                continue;
            }
        }
        if rest.starts_with("https://") || rest.starts_with("http://") {
            let end = rest.find(|c: char| c.is_whitespace() || c == ')' || c == '>' || c == '"' || c == '`').unwrap_or(rest.len());
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
        let lines = rustdoc("See {@link Tool} and {@link Missing}; [x] <b> https://a.b/c.\n    indented\n```\ncode\n```", &known);
        assert_eq!(lines[0], "See [`Tool`] and `Missing`; \\[x\\] \\<b\\> <https://a.b/c>.");
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
