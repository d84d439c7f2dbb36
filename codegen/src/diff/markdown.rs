//! The report as Markdown (`cargo xtask diff`, and the committed `docs/revision-diff-*.md`):
//! the rules, a summary table, then the changes per method and per definition.

use std::fmt::Write as _;

use super::{Breaks, Change, ChangeKind, RevisionDiff, Subject, SEMANTICS};

impl RevisionDiff {
    /// The report as Markdown: the classification rules, a summary table, then the changes
    /// per method and per definition.
    pub fn to_markdown(&self) -> String {
        let (from, to) = (&self.from.revision, &self.to.revision);
        let mut s = String::new();
        writeln!(s, "# MCP schema changes: {from} → {to}\n").unwrap();
        writeln!(
            s,
            "What changed from revision `{from}` (schema sha256 `{}`) to revision `{to}` (sha256 `{}`), \
             computed by `cargo xtask diff {from} {to}` from the lowered models of both schemas \
             (a pinned revision with its errata applied), not from the raw JSON. `--format json` \
             prints the same changes for tools.\n",
            self.from.sha256, self.to.sha256
        )
        .unwrap();
        writeln!(s, "## How to read it\n\n{SEMANTICS}\n").unwrap();

        let (all, by_kind) = self.counts();
        writeln!(s, "## Summary\n").unwrap();
        writeln!(
            s,
            "{} changes: {} break old readers only, {} old writers only, {} both, {} no one.\n",
            all.total, all.readers, all.writers, all.both, all.none
        )
        .unwrap();
        s.push_str("| change | total | old readers | old writers | both | none |\n|---|--:|--:|--:|--:|--:|\n");
        for (k, c) in &by_kind {
            writeln!(s, "| {} | {} | {} | {} | {} | {} |", k.label(), c.total, c.readers, c.writers, c.both, c.none)
                .unwrap();
        }
        writeln!(s, "| **all** | {} | {} | {} | {} | {} |\n", all.total, all.readers, all.writers, all.both, all.none)
            .unwrap();

        let methods: Vec<&Change> =
            self.changes.iter().filter(|c| matches!(c.subject, Subject::Method { .. })).collect();
        let defs: Vec<&Change> =
            self.changes.iter().filter(|c| matches!(c.subject, Subject::Definition { .. })).collect();

        writeln!(s, "## Methods\n").unwrap();
        section(&mut s, &methods, ChangeKind::MethodAdded, ChangeKind::MethodRemoved, "methods");
        writeln!(s, "## Definitions\n").unwrap();
        section(&mut s, &defs, ChangeKind::DefinitionAdded, ChangeKind::DefinitionRemoved, "definitions");
        while s.ends_with("\n\n") {
            s.pop();
        }
        s
    }
}

fn section(s: &mut String, changes: &[&Change], added: ChangeKind, removed: ChangeKind, what: &str) {
    for (kind, title) in [(removed, "Removed"), (added, "Added")] {
        let list: Vec<&&Change> = changes.iter().filter(|c| c.kind == kind).collect();
        if list.is_empty() {
            continue;
        }
        writeln!(s, "### {title} {what} ({})\n", list.len()).unwrap();
        s.push_str("| name | what | breaks |\n|---|---|---|\n");
        for c in list {
            let what = c.old.as_deref().or(c.new.as_deref()).unwrap_or("");
            writeln!(s, "| `{}` | {} | {} |", c.subject.name(), cell(what), breaks_cell(c.breaks)).unwrap();
        }
        s.push('\n');
    }
    let mut groups: Vec<(&str, Vec<&Change>)> = Vec::new();
    for c in changes.iter().filter(|c| c.kind != added && c.kind != removed) {
        match groups.last_mut() {
            Some((name, list)) if *name == c.subject.name() => list.push(c),
            _ => groups.push((c.subject.name(), vec![c])),
        }
    }
    if groups.is_empty() {
        return;
    }
    writeln!(s, "### Changed {what} ({})\n", groups.len()).unwrap();
    for (name, list) in groups {
        writeln!(s, "#### `{name}`\n").unwrap();
        s.push_str("| at | change | old | new | breaks |\n|---|---|---|---|---|\n");
        for c in list {
            let at = if c.subject.path().is_empty() { "".to_owned() } else { format!("`{}`", c.subject.path()) };
            let v = |x: &Option<String>| x.as_deref().map(cell).unwrap_or_default();
            writeln!(s, "| {at} | {} | {} | {} | {} |", c.kind.label(), v(&c.old), v(&c.new), breaks_cell(c.breaks))
                .unwrap();
        }
        s.push('\n');
    }
}

fn breaks_cell(b: Breaks) -> &'static str {
    match (b.old_readers, b.old_writers) {
        (true, true) => "**old readers, old writers**",
        (true, false) => "**old readers**",
        (false, true) => "**old writers**",
        (false, false) => "–",
    }
}

/// A table cell: code-formatted, with `|` escaped.
fn cell(text: &str) -> String {
    format!("`{}`", text.replace('|', "\\|"))
}
