//! The HTML report of `mcpgen report SESSION --html FILE` and `mcpgen probe --html FILE`: one
//! self-contained page (inline CSS, no script, no external resource; a Content-Security-Policy
//! that forbids both), the messages as a timeline per session, each finding marked at its
//! message with its rule and clause in a `<details>`, totals by rule and level.
//!
//! Everything a peer sent (bodies, session ids, check names, messages quoting the peer) is
//! hostile: it is written only through [`escape`], never into an attribute without it, never into
//! a script (there is none). The page is bounded by [`Budget`]: bodies are cut at
//! `--body-bytes`, elided past `--page-bytes` in total, and past `--max-messages` only the
//! messages with findings are listed; the page says what was left out.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use mcpgen::conversation::Severity;
use mcpgen::rules::Clause;

use crate::UsageError;

/// `--body-bytes` by default: the most of one message's body shown.
pub(crate) const BODY_BYTES: usize = 16 << 10;
/// `--page-bytes` by default: the most body bytes on one page.
pub(crate) const PAGE_BYTES: usize = 16 << 20;
/// `--max-messages` by default: messages listed before only those with findings are.
pub(crate) const MAX_MESSAGES: usize = 20_000;

/// A finding marked at its message.
pub(crate) struct Mark {
    pub rule: Option<&'static str>,
    pub level: Severity,
    pub pointer: String,
    pub message: String,
    /// The clause at the finding's revision, and that revision's name.
    pub clause: Option<(Clause, String)>,
}

/// What of a message's body the page shows.
pub(crate) enum Body {
    /// The text, and the body's full length when it was cut.
    Shown(String, Option<usize>),
    /// Left out (the page's budget was spent): the body's length.
    Elided(usize),
}

/// One message (or exchange) of a timeline.
pub(crate) struct Item {
    /// `line 12`, a check's name.
    pub label: String,
    /// `client`, `server`, `exchange`.
    pub from: &'static str,
    pub body: Body,
    pub marks: Vec<Mark>,
}

/// A session's (or a probe era's) timeline.
pub(crate) struct Group {
    pub name: String,
    pub items: Vec<Item>,
}

/// The page.
pub(crate) struct Page {
    /// What the report is of: the file, the probed server.
    pub source: String,
    pub groups: Vec<Group>,
    pub budget: Budget,
}

/// The page's limits, and what they left out.
pub(crate) struct Budget {
    pub body_bytes: usize,
    pub page_bytes: usize,
    pub max_messages: usize,
    used: usize,
    listed: usize,
    cut: usize,
    elided: usize,
    omitted: usize,
}

impl Budget {
    pub(crate) fn new(body_bytes: usize, page_bytes: usize, max_messages: usize) -> Budget {
        Budget { body_bytes, page_bytes, max_messages, used: 0, listed: 0, cut: 0, elided: 0, omitted: 0 }
    }

    /// Whether a message with `findings` findings gets an entry: always with findings, else
    /// while fewer than `max_messages` are listed (the others are counted).
    pub(crate) fn admit(&mut self, findings: usize) -> bool {
        if findings == 0 && self.listed >= self.max_messages {
            self.omitted += 1;
            return false;
        }
        self.listed += 1;
        true
    }

    /// What of `text` the page shows: at most `body_bytes`, and nothing once `page_bytes` are
    /// spent.
    pub(crate) fn body(&mut self, text: &str) -> Body {
        let room = self.page_bytes.saturating_sub(self.used).min(self.body_bytes);
        if room == 0 && !text.is_empty() {
            self.elided += 1;
            return Body::Elided(text.len());
        }
        if text.len() <= room {
            self.used += text.len();
            return Body::Shown(text.to_owned(), None);
        }
        let cut = (0..=room).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        self.used += cut;
        self.cut += 1;
        Body::Shown(text[..cut].to_owned(), Some(text.len()))
    }
}

/// `text` safe in HTML text and in a quoted attribute; control characters but tab and line
/// feed become U+FFFD.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc}\
.note{background:#fff6d5;border:1px solid #e0c060;padding:.4em .8em}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}\
ol.timeline{list-style:none;padding:0}li.msg{border-left:4px solid #9ab;margin:.6em 0;padding:.2em .8em}\
li.msg.from-server{border-color:#b9a;margin-left:3em}li.msg.has-error{border-color:#c33}\
.head{color:#555;font-size:.9em}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;\
margin:.3em 0;padding:.4em;max-height:20em;overflow:auto}ul.findings{padding-left:1em}\
li.finding{margin:.2em 0}.level-error .lvl{color:#fff;background:#c33}.level-warning .lvl{background:#fc6}\
.lvl{padding:0 .4em;border-radius:3px;font-weight:bold}.clause{margin:.3em 1em;color:#333}\
.elided{color:#777;font-style:italic}";

/// The page's HTML.
pub(crate) fn render(page: &Page) -> String {
    let mut out = String::with_capacity(page.budget.used * 5 / 4 + 8192);
    let source = escape(&page.source);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>mcpgen report: {source}</title><style>{STYLE}</style></head>\n<body>\n\
         <h1>mcpgen report</h1>\n<p id=\"source\">{source} (mcpgen {})</p>\n",
        env!("CARGO_PKG_VERSION")
    );
    notes(&mut out, &page.budget);
    totals(&mut out, page);
    let mut n = 0usize;
    for (g, group) in page.groups.iter().enumerate() {
        let _ = write!(
            out,
            "<section class=\"session\" id=\"session-{}\"><h2>{}</h2>\n<ol class=\"timeline\">\n",
            g + 1,
            escape(&group.name)
        );
        for item in &group.items {
            item_html(&mut out, item, &mut n);
        }
        out.push_str("</ol></section>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// What the limits left out, said at the top.
fn notes(out: &mut String, b: &Budget) {
    let mut said = Vec::new();
    if b.cut > 0 {
        said.push(format!("{} message bodies are cut at {} bytes (--body-bytes)", b.cut, b.body_bytes));
    }
    if b.elided > 0 {
        said.push(format!(
            "{} message bodies are left out: the page holds at most {} bytes of bodies (--page-bytes)",
            b.elided, b.page_bytes
        ));
    }
    if b.omitted > 0 {
        said.push(format!(
            "{} messages without findings are not listed: past {} messages only those with findings are (--max-messages)",
            b.omitted, b.max_messages
        ));
    }
    for s in said {
        let _ = writeln!(out, "<p class=\"note\">{} (every finding is shown).</p>", escape(&s));
    }
}

/// Totals by level, then by rule and level.
fn totals(out: &mut String, page: &Page) {
    let mut by_rule: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let (mut errors, mut warnings) = (0usize, 0usize);
    for m in page.groups.iter().flat_map(|g| &g.items).flat_map(|i| &i.marks) {
        *by_rule.entry((m.rule.unwrap_or("SCHEMA"), m.level.as_str())).or_default() += 1;
        match m.level {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
        }
    }
    let _ = write!(
        out,
        "<section id=\"totals\"><h2>Totals</h2>\n<p><span id=\"total-errors\">{errors}</span> errors, \
         <span id=\"total-warnings\">{warnings}</span> warnings in {} messages listed</p>\n\
         <table><tr><th>rule</th><th>level</th><th>findings</th></tr>\n",
        page.budget.listed
    );
    for ((rule, level), count) in by_rule {
        let summary = mcpgen::rules::lookup(rule).map_or("", |r| r.summary);
        let _ = writeln!(
            out,
            "<tr class=\"level-{level}\"><td title=\"{}\">{}</td><td><span class=\"lvl\">{level}</span></td><td>{count}</td></tr>",
            escape(summary),
            escape(rule)
        );
    }
    out.push_str("</table></section>\n");
}

fn item_html(out: &mut String, item: &Item, n: &mut usize) {
    let error = item.marks.iter().any(|m| m.level == Severity::Error);
    let _ = write!(
        out,
        "<li class=\"msg from-{}{}\"><div class=\"head\">{} · {}</div>",
        item.from,
        if error { " has-error" } else { "" },
        escape(&item.label),
        item.from
    );
    match &item.body {
        Body::Shown(text, None) if text.is_empty() => {}
        Body::Shown(text, None) => {
            let _ = write!(out, "<pre>{}</pre>", escape(text));
        }
        Body::Shown(text, Some(full)) => {
            let _ = write!(out, "<pre>{}</pre><p class=\"elided\">(cut: {full} bytes in all)</p>", escape(text));
        }
        Body::Elided(len) => {
            let _ = write!(out, "<p class=\"elided\">(body of {len} bytes left out: --page-bytes)</p>");
        }
    }
    if !item.marks.is_empty() {
        out.push_str("<ul class=\"findings\">");
        for m in &item.marks {
            *n += 1;
            mark_html(out, m, *n);
        }
        out.push_str("</ul>");
    }
    out.push_str("</li>\n");
}

fn mark_html(out: &mut String, m: &Mark, n: usize) {
    let rule = m.rule.unwrap_or("SCHEMA");
    let at = if m.pointer.is_empty() { String::new() } else { format!(" at {}", m.pointer) };
    let _ = write!(
        out,
        "<li class=\"finding level-{level}\" id=\"finding-{n}\" data-rule=\"{r}\"><details><summary>\
         <span class=\"lvl\">{level}</span> {r}{at}: {msg}</summary>",
        level = m.level.as_str(),
        r = escape(rule),
        at = escape(&at),
        msg = escape(&m.message)
    );
    if let Some(r) = mcpgen::rules::lookup(rule) {
        let _ = write!(out, "<p class=\"rule\">{}: {}</p>", escape(r.id), escape(r.summary));
    }
    match &m.clause {
        Some((c, revision)) => {
            let quote = c.quote.map(|q| format!(": \u{201c}{q}\u{201d}")).unwrap_or_default();
            let _ = write!(out, "<p class=\"clause\">{} ({}){}", c.level.as_str(), escape(revision), escape(&quote));
            if let Some(url) = c.url(revision) {
                let _ = write!(out, " <a href=\"{u}\">{u}</a>", u = escape(&url));
            }
            out.push_str("</p>");
        }
        None => out.push_str("<p class=\"clause\">(a schema violation: the message's definition in the schema)</p>"),
    }
    out.push_str("</details></li>");
}

/// Writes `page` to `path`.
pub(crate) fn write(path: &Path, page: &Page) -> Result<(), UsageError> {
    std::fs::write(path, render(page)).map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))
}

/// The probe's page: one timeline of the exchanges kept, in order, each with the findings on
/// its answer; findings whose exchange was not kept at their check.
pub(crate) fn from_probe(report: &mcpgen_probe::Report, target: &str) -> Page {
    let mut budget = Budget::new(BODY_BYTES, PAGE_BYTES, MAX_MESSAGES);
    let mark = |f: &mcpgen_probe::ProbeFinding| Mark {
        rule: f.rule,
        level: f.level,
        pointer: f.pointer.clone(),
        message: f.message.clone(),
        clause: f.clause.map(|c| (c, f.revision.map_or(mcpgen::rules::CATALOGUE_REVISION, |r| r.as_str()).to_owned())),
    };
    let mut items = Vec::new();
    for (i, e) in report.exchanges.iter().enumerate() {
        let marks: Vec<Mark> = report.findings.iter().filter(|f| f.exchange == Some(i)).map(mark).collect();
        if !budget.admit(marks.len()) {
            continue;
        }
        let mut text = format!("sent:\n{}\n", serde_json::to_string(&e.sent).unwrap_or_default());
        for r in &e.received {
            let _ = writeln!(text, "received:\n{r}");
        }
        if let Some(err) = &e.peer_error {
            let _ = writeln!(text, "transport: {err}");
        }
        items.push(Item { label: e.check.clone(), from: "exchange", body: budget.body(&text), marks });
    }
    let mut groups = vec![Group { name: format!("exchanges with {target}"), items }];
    let loose: Vec<&mcpgen_probe::ProbeFinding> =
        report.findings.iter().filter(|f| f.exchange.is_none_or(|i| i >= report.exchanges.len())).collect();
    if !loose.is_empty() {
        let items = loose
            .into_iter()
            .map(|f| Item { label: f.check.clone(), from: "exchange", body: budget.body(""), marks: vec![mark(f)] })
            .collect();
        groups.push(Group { name: "findings whose exchange was not kept".into(), items });
    }
    Page { source: format!("mcpgen probe {target}"), groups, budget }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_controls() {
        assert_eq!(escape("</script><img src=x onerror='a'>"), "&lt;/script&gt;&lt;img src=x onerror=&#39;a&#39;&gt;");
        assert_eq!(escape("a\"&b\u{0}\n"), "a&quot;&amp;b\u{fffd}\n");
    }

    #[test]
    fn budget_cuts_then_elides() {
        let mut b = Budget::new(4, 6, 1);
        assert!(matches!(b.body("abcdef"), Body::Shown(ref s, Some(6)) if s == "abcd"));
        assert!(matches!(b.body("éé"), Body::Shown(ref s, Some(4)) if s == "é"));
        assert!(matches!(b.body("xyz"), Body::Elided(3)));
        assert!(b.admit(0));
        assert!(!b.admit(0));
        assert!(b.admit(2));
        assert_eq!((b.cut, b.elided, b.omitted), (2, 1, 1));
    }
}
