//! The one renderer of schema `description` text, used by every emitter.
//!
//! Descriptions are the TypeScript doc comments that the upstream generator copies into
//! `schema.json`: Markdown with TSDoc `{@link …}` tags. That copy drops the ` | ` of
//! `{@link X | label}`, so `{@link CallToolRequest | tools/call}` arrives as
//! `{@link CallToolRequesttools/call}`. [`Docs`] parses a description once into pieces (plain
//! text, code spans, links with their target repaired against the module's type names) and
//! renders those pieces for each output:
//!
//! - [`Docs::rustdoc`]: rustdoc lines that build without warnings: a link becomes an intra-doc
//!   link when its target is a type of the module (code otherwise); bare URLs become autolinks;
//!   brackets, angle brackets and stray backticks outside code are escaped so rustdoc does not
//!   read them as links or HTML; fenced blocks without a language are marked `text` and
//!   indented lines are de-indented, so nothing is compiled as a doctest;
//! - [`Docs::plain`]: text for Python docstrings: a link becomes its label as code;
//! - [`Docs::summary`]: the first paragraph on one line, a link as its bare label (definition
//!   registry summaries, C header comments).
//!
//! The `{@link}` forms understood: `X`, `X.field` / `X#field`, `X | label`, `X label` (TSDoc),
//! and the mangled `Xlabel`: when the target (or, for `X label`, its first word) is no type of
//! the module, the longest type name that prefixes it is taken as the target and the rest as the
//! label, unless the rest is a plain word (`tools/call` and `` `_meta` key naming rules `` are
//! labels; `{@link Tools}` is not misread as `Tool` labelled `s`).

use std::collections::BTreeSet;

use crate::ir::Module;

/// The renderer for one module's descriptions: links resolve against its type names.
pub struct Docs {
    known: BTreeSet<String>,
}

/// A `{@link}` after repair: the type it points to (when the module has it) and the text to
/// show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub target: Option<String>,
    pub label: String,
}

/// A run of a paragraph.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    /// A code span, backticks included.
    Code(&'a str),
    Link(Link),
}

/// A description's lines: fenced code blocks and the paragraphs between them.
enum Block<'a> {
    /// The fence lines, opening and closing ones included (the closing one may be missing).
    Fence(Vec<&'a str>),
    /// Consecutive non-blank lines.
    Para(Vec<&'a str>),
    Blank,
}

impl Docs {
    /// Links resolve against every definition and declared type of `m`.
    pub fn new(m: &Module) -> Docs {
        Docs::with_names(m.defs.iter().map(|d| d.name.as_str()).chain(m.decls.iter().map(|d| d.name.as_str())))
    }

    /// Links resolve against `names`.
    pub fn with_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Docs {
        Docs { known: names.into_iter().map(str::to_owned).collect() }
    }

    /// Rustdoc lines (without the leading space of `///`).
    pub fn rustdoc(&self, desc: &str) -> Vec<String> {
        let mut out = Vec::new();
        for block in blocks(desc) {
            match block {
                Block::Fence(lines) => {
                    for (i, line) in lines.iter().enumerate() {
                        let trimmed = line.trim_start();
                        if i == 0 {
                            out.push(if trimmed.trim() == "```" { "```text".to_owned() } else { trimmed.to_owned() });
                        } else if i == lines.len() - 1 && trimmed.starts_with("```") {
                            out.push(trimmed.to_owned());
                        } else {
                            out.push((*line).to_owned());
                        }
                    }
                    if lines.len() == 1 || !lines[lines.len() - 1].trim_start().starts_with("```") {
                        out.push("```".to_owned());
                    }
                }
                Block::Para(lines) => {
                    // Four leading spaces would start an (untested but compiled) indented code block.
                    let lines: Vec<&str> =
                        lines.iter().map(|l| if l.starts_with("    ") { l.trim_start() } else { l }).collect();
                    let mut text = String::new();
                    for piece in self.pieces(&lines.join("\n")) {
                        match piece {
                            Piece::Text(t) => rust_text(t, &mut text),
                            Piece::Code(c) => text.push_str(c),
                            Piece::Link(l) => text.push_str(&rust_link(&l)),
                        }
                    }
                    out.extend(text.split('\n').map(str::to_owned));
                }
                Block::Blank => out.push(String::new()),
            }
        }
        out
    }

    /// Docstring text: the description with every link as its label in code.
    pub fn plain(&self, desc: &str) -> String {
        let mut out: Vec<String> = Vec::new();
        for block in blocks(desc) {
            match block {
                Block::Fence(lines) => out.extend(lines.iter().map(|l| (*l).to_owned())),
                Block::Para(lines) => {
                    let mut text = String::new();
                    for piece in self.pieces(&lines.join("\n")) {
                        match piece {
                            Piece::Text(t) | Piece::Code(t) => text.push_str(t),
                            Piece::Link(l) => text.push_str(&code(&l.label)),
                        }
                    }
                    out.push(text);
                }
                Block::Blank => out.push(String::new()),
            }
        }
        out.join("\n")
    }

    /// The first paragraph, flattened to one line; links show their label.
    pub fn summary(&self, desc: &str) -> String {
        let para = desc.split("\n\n").next().unwrap_or("");
        let mut out = String::new();
        for piece in self.pieces(para) {
            match piece {
                Piece::Text(t) | Piece::Code(t) => out.push_str(t),
                Piece::Link(l) => out.push_str(&l.label),
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Reads a `{@link …}` target (the text between `{@link ` and `}`).
    pub fn link(&self, target: &str) -> Link {
        let target = target.split_whitespace().collect::<Vec<_>>().join(" ");
        let known = |t: &str| {
            let base = t.split(['.', '#']).next().unwrap_or(t);
            self.known.contains(base).then(|| base.to_owned())
        };
        // `X | label`.
        if let Some((t, l)) = target.split_once('|') {
            let (t, l) = (t.trim(), l.trim());
            return Link { target: known(t), label: if l.is_empty() { t } else { l }.to_owned() };
        }
        // `X`, `X.field`.
        if let Some(base) = known(&target).filter(|_| !target.contains(' ')) {
            return Link { target: Some(base), label: target };
        }
        // `X label` (TSDoc), when `X` is a type of the module.
        let tsdoc = target.split_once(' ').filter(|(t, _)| is_name_path(t));
        if let Some((t, l)) = tsdoc {
            if let Some(base) = known(t) {
                return Link { target: Some(base), label: l.to_owned() };
            }
        }
        // The mangled `Xlabel`.
        let prefix = self
            .known
            .iter()
            .filter(|k| target.len() > k.len() && target.starts_with(k.as_str()))
            .filter(|k| !target[k.len()..].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .max_by_key(|k| k.len());
        match (prefix, tsdoc) {
            (Some(k), _) => Link { target: Some(k.clone()), label: target[k.len()..].trim().to_owned() },
            // `X label` with an `X` the module does not have.
            (None, Some((_, l))) => Link { target: None, label: l.to_owned() },
            (None, None) => Link { target: None, label: target },
        }
    }

    /// Splits a paragraph into text, code spans and links. An unclosed backtick or `{@link` is
    /// text.
    fn pieces<'a>(&self, para: &'a str) -> Vec<Piece<'a>> {
        let mut out = Vec::new();
        let mut text_start = 0;
        let mut i = 0;
        while i < para.len() {
            let rest = &para[i..];
            let found = if let Some(after) = rest.strip_prefix('`') {
                after.find('`').map(|end| (end + 2, None))
            } else if let Some(after) = rest.strip_prefix("{@link").filter(|a| a.starts_with(char::is_whitespace)) {
                after.find('}').map(|end| (6 + end + 1, Some(self.link(&after[..end]))))
            } else {
                None
            };
            match found {
                Some((len, link)) => {
                    if text_start < i {
                        out.push(Piece::Text(&para[text_start..i]));
                    }
                    out.push(match link {
                        Some(l) => Piece::Link(l),
                        None => Piece::Code(&para[i..i + len]),
                    });
                    i += len;
                    text_start = i;
                }
                None => i += rest.chars().next().map_or(1, char::len_utf8),
            }
        }
        if text_start < para.len() {
            out.push(Piece::Text(&para[text_start..]));
        }
        out
    }
}

/// `Tool`, `Tool.inputSchema`, `Tool#name`.
fn is_name_path(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '#'))
}

/// A label as code: in backticks, unless it carries its own.
fn code(label: &str) -> String {
    if label.contains('`') {
        label.to_owned()
    } else {
        format!("`{label}`")
    }
}

fn rust_link(l: &Link) -> String {
    match &l.target {
        Some(t) if *t == l.label => format!("[`{t}`]"),
        Some(t) => format!("[{}]({t})", code(&l.label)),
        None => code(&l.label),
    }
}

/// Text outside code for rustdoc: URLs as autolinks, the rest escaped.
fn rust_text(mut rest: &str, out: &mut String) {
    while !rest.is_empty() {
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
        if matches!(c, '[' | ']' | '<' | '>' | '`') {
            out.push('\\');
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
}

fn blocks(desc: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut lines = desc.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("```") {
            let mut fence = vec![line];
            for l in lines.by_ref() {
                fence.push(l);
                if l.trim_start().starts_with("```") {
                    break;
                }
            }
            out.push(Block::Fence(fence));
        } else if line.trim().is_empty() {
            out.push(Block::Blank);
        } else {
            let mut para = vec![line];
            while let Some(l) = lines.peek() {
                if l.trim().is_empty() || l.trim_start().starts_with("```") {
                    break;
                }
                para.push(l);
                lines.next();
            }
            out.push(Block::Para(para));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Docs {
        Docs::with_names(["Tool", "ToolAnnotations", "CallToolRequest", "MetaObject"])
    }

    /// Every `{@link}` form through all three renderings: (description, rustdoc, docstring,
    /// summary).
    #[test]
    fn links_in_every_rendering() {
        let cases = [
            ("{@link Tool}", "[`Tool`]", "`Tool`", "Tool"),
            ("{@link Missing}", "`Missing`", "`Missing`", "Missing"),
            ("{@link Tool.inputSchema}", "[`Tool.inputSchema`](Tool)", "`Tool.inputSchema`", "Tool.inputSchema"),
            ("{@link Tool#name}", "[`Tool#name`](Tool)", "`Tool#name`", "Tool#name"),
            ("{@link CallToolRequest | tools/call}", "[`tools/call`](CallToolRequest)", "`tools/call`", "tools/call"),
            ("{@link Tool the tool}", "[`the tool`](Tool)", "`the tool`", "the tool"),
            ("{@link Tool.name its name}", "[`its name`](Tool)", "`its name`", "its name"),
            ("{@link Missing | x}", "`x`", "`x`", "x"),
            // The upstream generator's mangling of `{@link X | label}`, repaired by prefix.
            ("{@link CallToolRequesttools/call}", "[`tools/call`](CallToolRequest)", "`tools/call`", "tools/call"),
            ("{@link ToolAnnotationsthe/hints}", "[`the/hints`](ToolAnnotations)", "`the/hints`", "the/hints"),
            (
                "{@link MetaObject`_meta` key naming rules}",
                "[`_meta` key naming rules](MetaObject)",
                "`_meta` key naming rules",
                "`_meta` key naming rules",
            ),
            // A plain word after a type name is not a mangled label.
            ("{@link Tools}", "`Tools`", "`Tools`", "Tools"),
            ("{@link Missing the thing}", "`the thing`", "`the thing`", "the thing"),
            // Mangled, with spaces in the label.
            (
                "{@link CallToolRequestthe tools/call request}",
                "[`the tools/call request`](CallToolRequest)",
                "`the tools/call request`",
                "the tools/call request",
            ),
            ("{@link\tTool}", "[`Tool`]", "`Tool`", "Tool"),
            ("{@linkTool}", "{@linkTool}", "{@linkTool}", "{@linkTool}"),
            // Spanning a line break.
            ("{@link CallToolRequest\n| tools/call}", "[`tools/call`](CallToolRequest)", "`tools/call`", "tools/call"),
            // Not links.
            ("`{@link Tool}`", "`{@link Tool}`", "`{@link Tool}`", "`{@link Tool}`"),
            ("{@link Tool", "{@link Tool", "{@link Tool", "{@link Tool"),
        ];
        let d = docs();
        for (desc, rust, py, summary) in cases {
            assert_eq!(d.rustdoc(desc).join("\n"), rust, "rustdoc of {desc:?}");
            assert_eq!(d.plain(desc), py, "docstring of {desc:?}");
            assert_eq!(d.summary(desc), summary, "summary of {desc:?}");
        }
    }

    #[test]
    fn rustdoc_escapes_urls_fences_and_indentation() {
        let d = docs();
        let lines = d.rustdoc(
            "See {@link Tool} and {@link Missing}; [x] <b> https://a.b/c.\n    indented\n```\ncode [x]\n```\n\nA `a_b<c>` and a stray ` tick.",
        );
        assert_eq!(
            lines,
            [
                "See [`Tool`] and `Missing`; \\[x\\] \\<b\\> <https://a.b/c>.",
                "indented",
                "```text",
                "code [x]",
                "```",
                "",
                "A `a_b<c>` and a stray \\` tick.",
            ]
        );
        assert_eq!(d.rustdoc("```json\n{}\n```"), ["```json", "{}", "```"]);
        // An unclosed fence is closed.
        assert_eq!(d.rustdoc("```\nx"), ["```text", "x", "```"]);
    }

    #[test]
    fn docstrings_keep_text_and_fences() {
        let d = docs();
        assert_eq!(
            d.plain("For {@link CallToolRequesttools/call}:\n[x] <b>\n\n```\n{@link Tool}\n```"),
            "For `tools/call`:\n[x] <b>\n\n```\n{@link Tool}\n```"
        );
    }

    #[test]
    fn summary_is_the_first_paragraph_on_one_line() {
        assert_eq!(docs().summary("For {@link Tooltools/list}\nand more.\n\nMore."), "For tools/list and more.");
    }
}
