//! The checker's report lines: a message's findings, a count of hidden repeats, a transport
//! note — JSON Lines in `--report`, else lines on stderr.
//!
//! Each line is written straight into a reused buffer with the runtime's [`JsonWriter`] (the
//! escaping every other JSON output of mcpgen uses), not built as a `Value` tree first: the
//! same bytes as `finding_json(f).to_json_string()` and the like, without a tree per message.

use std::io::Write;

use mcpgen::conversation::{Finding, Sender, Severity};
use mcpgen::json::{JsonWriter, Number};

use super::{FindingKind, Output};
use crate::checker::repeats::Summary;

impl Output {
    /// One JSON line into the report (when there is one), written by `write`.
    fn line(&mut self, write: impl FnOnce(&mut JsonWriter)) -> bool {
        let Some(report) = self.report.as_mut() else { return false };
        let mut w = JsonWriter::with_buffer(std::mem::take(&mut self.scratch));
        write(&mut w);
        let mut bytes = w.into_bytes();
        bytes.push(b'\n');
        let _ = report.write_all(&bytes);
        self.scratch = bytes;
        true
    }
}

/// A string, or `null`.
fn string_or_null(w: &mut JsonWriter, s: Option<&str>) {
    match s {
        Some(s) => w.string(s),
        None => w.null(),
    }
}

/// One finding as the report's object: the bytes of `crate::conversation::finding_json(f)`
/// written out.
pub(super) fn write_finding(w: &mut JsonWriter, f: &Finding) {
    w.begin_object();
    w.key("pointer");
    w.string(&f.pointer);
    w.key("schemaPath");
    w.string(&f.schema_path);
    w.key("keyword");
    w.string(f.keyword);
    w.key("rule");
    string_or_null(w, f.rule);
    w.key("level");
    w.string(f.level.as_str());
    w.key("message");
    w.string(&f.message);
    w.key("era");
    string_or_null(w, f.era.map(|e| e.as_str()));
    w.key("revision");
    string_or_null(w, f.revision.map(|r| r.as_str()));
    w.end_object();
}

/// One message's report object: `{"source", "from", "valid", "errors"}`. `valid` speaks for
/// every finding; `shown` are those `--max-repeats` lets through.
pub(super) fn write_report(w: &mut JsonWriter, source: &str, from: Sender, findings: &[Finding], shown: &[&Finding]) {
    w.begin_object();
    w.key("source");
    w.string(source);
    w.key("from");
    w.string(from.as_str());
    w.key("valid");
    w.bool(!findings.iter().any(Finding::is_error));
    w.key("errors");
    w.begin_array();
    for f in shown {
        w.element();
        write_finding(w, f);
    }
    w.end_array();
    w.end_object();
}

/// Transport trouble: `{"source", "transport", "message"}` in the report, else a line on
/// stderr.
pub(super) fn note(out: &mut Output, source: &str, what: &'static str, text: &str) {
    let written = out.line(|w| {
        w.begin_object();
        w.key("source");
        w.string(source);
        w.key("transport");
        w.string(what);
        w.key("message");
        w.string(text);
        w.end_object();
    });
    if !written {
        eprintln!("mcpgen proxy: {source}: note ({what}): {text}");
    }
}

/// One message's findings: a JSON Lines object in the report ([`write_report`]), else lines on
/// stderr.
pub(super) fn report(out: &mut Output, source: &str, from: Sender, findings: &[Finding], shown: &[&Finding]) {
    if out.line(|w| write_report(w, source, from, findings, shown)) {
        return;
    }
    let mut err = std::io::stderr().lock();
    for f in shown {
        let _ = writeln!(err, "mcpgen proxy: {source} ({} message): {}", from.as_str(), one_line(f));
    }
}

/// A count of findings of one kind beyond `--max-repeats`: a `{"repeated": …}` object in the
/// report, else a line on stderr (refusals, which are never in the report: always stderr).
pub(super) fn summarise(out: &mut Output, s: &Summary<FindingKind>) {
    let hidden = s.count - s.shown;
    let limit = out.limits.max_repeats;
    let (from, rule, keyword, schema_path, level) = match &s.kind {
        FindingKind::Finding { from, rule, keyword, schema_path, level } => {
            (Some(*from), *rule, *keyword, schema_path.as_str(), Some(*level))
        }
        FindingKind::Refused { rule } => (Some(Sender::Client), Some(*rule), "--enforce", "", Some(Severity::Error)),
        FindingKind::Other { from, level } => (Some(*from), None, "", "", Some(*level)),
    };
    let refused = matches!(s.kind, FindingKind::Refused { .. });
    let written = !refused
        && out.line(|w| {
            w.begin_object();
            w.key("repeated");
            w.begin_object();
            w.key("from");
            string_or_null(w, from.map(Sender::as_str));
            w.key("rule");
            string_or_null(w, rule);
            w.key("keyword");
            w.string(keyword);
            w.key("schemaPath");
            w.string(schema_path);
            w.key("level");
            string_or_null(w, level.map(Severity::as_str));
            w.end_object();
            w.key("count");
            int(w, s.count);
            w.key("shown");
            int(w, s.shown);
            w.key("last");
            w.string(&s.last);
            w.end_object();
        });
    if written {
        return;
    }
    let what = match &s.kind {
        FindingKind::Refused { rule } => format!("--enforce refusals ({rule})"),
        FindingKind::Other { .. } => "findings of other kinds".to_owned(),
        FindingKind::Finding { .. } => format!(
            "{} findings{}{}",
            level.map_or("", Severity::as_str),
            rule.map_or(String::new(), |r| format!(" ({r})")),
            if rule.is_some() || keyword.is_empty() { String::new() } else { format!(" [{keyword}]") }
        ),
    };
    let who = from.map_or("", Sender::as_str);
    eprintln!(
        "mcpgen proxy: {hidden} more {what} in {who} messages not shown ({} in all, the last at {}; --max-repeats {limit})",
        s.count, s.last
    );
}

/// A count as a JSON number.
fn int(w: &mut JsonWriter, n: u64) {
    match Number::from_lexeme(&n.to_string()) {
        Some(n) => w.number(&n),
        None => w.null(),
    }
}

fn one_line(f: &Finding) -> String {
    f.to_string().replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use mcpgen::conversation::{Era, Finding, Sender, Severity};
    use mcpgen::json::{JsonWriter, Map, Value};

    use super::{write_finding, write_report};
    use crate::conversation::finding_json;

    fn finding(level: Severity, rule: Option<&'static str>, text: &str) -> Finding {
        Finding {
            level,
            rule,
            pointer: format!("/params/{text}"),
            schema_path: format!("#/$defs/{text}"),
            keyword: "pattern",
            message: format!("said {text}"),
            era: (level == Severity::Error).then_some(Era::Modern),
            revision: mcpgen::Revision::latest(),
        }
    }

    /// Quotes, backslashes, every control character, `/`, non-ASCII (2, 3 and 4 bytes), a
    /// lone DEL.
    fn hostile() -> String {
        let mut s = String::from("a \"quoted\" \\ back/slash é € 𝄞 \u{7f} \u{2028}");
        s.extend((0u8..0x20).map(char::from));
        s
    }

    /// The old way: the line built as a `Value` tree, then written.
    fn as_tree(source: &str, from: Sender, findings: &[Finding], shown: &[&Finding]) -> String {
        let mut m = Map::new();
        m.push("source", Value::String(source.to_owned()));
        m.push("from", Value::String(from.as_str().to_owned()));
        m.push("valid", Value::Bool(!findings.iter().any(Finding::is_error)));
        m.push("errors", Value::Array(shown.iter().map(|f| finding_json(f)).collect()));
        Value::Object(m).to_json_string()
    }

    #[test]
    fn a_finding_is_written_as_its_value_tree_is() {
        let text = hostile();
        for f in [finding(Severity::Error, Some("MSG-1"), &text), finding(Severity::Warning, None, "plain")] {
            let mut w = JsonWriter::new();
            write_finding(&mut w, &f);
            assert_eq!(String::from_utf8(w.into_bytes()).unwrap(), finding_json(&f).to_json_string());
        }
    }

    #[test]
    fn a_report_line_is_written_as_its_value_tree_is() {
        let text = hostile();
        let findings = vec![
            finding(Severity::Warning, None, "x"),
            finding(Severity::Error, Some("ID-2"), &text),
            finding(Severity::Warning, None, ""),
        ];
        let shown: Vec<&Finding> = findings.iter().skip(1).collect();
        for (source, shown) in [(format!("rec \"{text}\".jsonl:3"), &shown[..]), ("proxy:1".to_owned(), &[][..])] {
            let mut w = JsonWriter::new();
            write_report(&mut w, &source, Sender::Server, &findings, shown);
            assert_eq!(String::from_utf8(w.into_bytes()).unwrap(), as_tree(&source, Sender::Server, &findings, shown));
        }
    }

    /// Written out by hand: the escapes JSON needs (RFC 8259 §7), and nothing else escaped.
    #[test]
    fn a_finding_escapes_what_json_needs_and_only_that() {
        let mut f = finding(Severity::Warning, None, "");
        f.pointer = "\"\\\n\r\t\u{8}\u{c}\u{1}\u{1f}/é𝄞\u{7f}".into();
        f.revision = None;
        let mut w = JsonWriter::new();
        write_finding(&mut w, &f);
        assert_eq!(
            String::from_utf8(w.into_bytes()).unwrap(),
            r#"{"pointer":"\"\\\n\r\t\b\f\u0001\u001f/é𝄞"#.to_owned()
                + "\u{7f}"
                + r##"","schemaPath":"#/$defs/","keyword":"pattern","rule":null,"level":"warning","message":"said ","era":null,"revision":null}"##
        );
    }
}
