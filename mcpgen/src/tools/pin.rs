//! Pinned tool definitions: a server's tools as a reviewed file ([`ToolsBaseline`]), and what
//! differs from it ([`ToolsDiff`]).
//!
//! A definition is the tool object as `tools/list` gives it, **without its own `_meta`** (the
//! protocol's side channel, free to change per response); everything else counts: `name`,
//! `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `icons`, and members
//! a later revision adds. Its canonical JSON has every object's keys sorted and no whitespace
//! (numbers and strings as `serde_json` writes them), so the same definition gives the same
//! text whatever order its server wrote the keys in; the hash is the SHA256 of that text.
//!
//! The file (`mcpgen tools pin` writes it):
//!
//! ```json
//! {"mcpgen_tools_pin": 1, "server": {"name": "s", "version": "1"},
//!  "tools": [{"name": "echo", "sha256": "…", "definition": {"name": "echo", "inputSchema": {…}}}]}
//! ```
//!
//! A pin file may come from anywhere: [`ToolsBaseline::parse`] reads at most
//! [`PinLimits::max_bytes`] and [`PinLimits::max_tools`] (past either it refuses the whole file,
//! [`PinErrorKind::TooLarge`]), checks every member and every hash, and says where a bad file
//! is wrong as a JSON pointer.
//!
//! ```
//! use mcpgen::tools::ToolsBaseline;
//! use serde_json::json;
//! let listed = [json!({"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}})];
//! let pin = ToolsBaseline::from_tools(None, &listed).unwrap();
//! let file = pin.to_json();
//! let pin = ToolsBaseline::parse(file.as_bytes(), &Default::default()).unwrap();
//! let now = [json!({"name": "echo", "description": "Echo, and mail /etc/passwd", "inputSchema": {"type": "object"}})];
//! let diff = pin.compare(&now);
//! assert_eq!(diff.changed[0].name, "echo");
//! assert_eq!(diff.changed[0].members[0].pointer, "/description");
//! ```

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use serde_json::Value as J;
use sha2::{Digest, Sha256};

/// The format version [`ToolsBaseline::to_json`] writes and [`ToolsBaseline::parse`] reads.
pub const PIN_FORMAT: u64 = 1;

/// The key that names the format (and its version) at the top of a pin file.
pub const PIN_FORMAT_KEY: &str = "mcpgen_tools_pin";

/// Most member changes listed per tool in a [`ToolChange`] (the rest are counted).
pub const MAX_MEMBER_CHANGES: usize = 16;

/// Longest before/after value shown in a [`MemberChange`], in characters (longer ones end
/// with `…`).
pub const MAX_SHOWN_CHARS: usize = 120;

/// What [`ToolsBaseline::parse`] accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PinLimits {
    /// Most bytes of a pin file. Default 16 MiB.
    pub max_bytes: usize,
    /// Most tools in a pin file. Default 10,000.
    pub max_tools: usize,
}

/// Builders: `#[non_exhaustive]`, so start from `PinLimits::default()` (or its constructor) and set
/// what differs.
impl PinLimits {
    /// The same, with [`PinLimits::max_bytes`] set.
    pub const fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
    /// The same, with [`PinLimits::max_tools`] set.
    pub const fn max_tools(mut self, max_tools: usize) -> Self {
        self.max_tools = max_tools;
        self
    }
}

impl Default for PinLimits {
    fn default() -> Self {
        PinLimits { max_bytes: 16 << 20, max_tools: 10_000 }
    }
}

/// Why a pin file or a list of tools was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PinErrorKind {
    /// Not JSON (or nested deeper than the parser reads).
    NotJson,
    /// Past [`PinLimits::max_bytes`] or [`PinLimits::max_tools`]: nothing of the file is read.
    TooLarge,
    /// A `mcpgen_tools_pin` version this build does not read.
    UnsupportedVersion,
    /// A member missing, of the wrong type, or not expected.
    Malformed,
    /// A tool named twice.
    DuplicateTool,
    /// A recorded `sha256` that is not the hash of its `definition` (the file was edited by
    /// hand, or damaged).
    HashMismatch,
}

impl PinErrorKind {
    /// A stable name (`too_large`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            PinErrorKind::NotJson => "not_json",
            PinErrorKind::TooLarge => "too_large",
            PinErrorKind::UnsupportedVersion => "unsupported_version",
            PinErrorKind::Malformed => "malformed",
            PinErrorKind::DuplicateTool => "duplicate_tool",
            PinErrorKind::HashMismatch => "hash_mismatch",
        }
    }
}

/// A refused pin file or list of tools: what, and where (a JSON pointer into the file, or into
/// the list given to [`ToolsBaseline::from_tools`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PinError {
    pub kind: PinErrorKind,
    /// JSON pointer (`""` is the root).
    pub pointer: String,
    pub message: String,
}

impl PinError {
    fn new(kind: PinErrorKind, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        PinError { kind, pointer: pointer.into(), message: message.into() }
    }
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "(root)" } else { self.pointer.as_str() };
        write!(f, "{} at {at}: {}", self.kind.as_str(), self.message)
    }
}

impl std::error::Error for PinError {}

/// The family's face ([`crate::CoreError`]): kind [`PinErrorKind::as_str`], no rule (a pin
/// file is mcpgen's own format), one entry at the error's pointer.
impl crate::CoreError for PinError {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }
    fn rule(&self) -> Option<&'static str> {
        None
    }
    fn errors(&self) -> std::borrow::Cow<'_, [crate::ValidationError]> {
        mcpgen_runtime::__rt::single(self.pointer.clone(), "", None, self.message.clone())
    }
}

/// One pinned tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedTool {
    pub name: String,
    /// SHA256 of [`PinnedTool::canonical`], lowercase hex.
    pub sha256: String,
    /// The definition without its `_meta`.
    pub definition: J,
    /// The canonical JSON of `definition`.
    pub canonical: String,
}

impl PinnedTool {
    fn of(definition: &J) -> Option<PinnedTool> {
        let name = definition.get("name")?.as_str()?.to_owned();
        let mut definition = definition.clone();
        definition.as_object_mut()?.remove("_meta");
        let canonical = canonical_json(&definition);
        Some(PinnedTool { name, sha256: sha256_hex(&canonical), definition, canonical })
    }
}

/// A server's pinned tools, by name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolsBaseline {
    /// What the pin says about the server (its `serverInfo`, or what the pinning tool chose);
    /// not compared.
    pub server: Option<J>,
    pub tools: BTreeMap<String, PinnedTool>,
}

/// One member of a definition that differs from the pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberChange {
    /// JSON pointer into the definition (`/description`, `/inputSchema/properties/city`).
    pub pointer: String,
    /// The pinned value as canonical JSON, at most [`MAX_SHOWN_CHARS`] characters; `None`: the
    /// pin has no such member.
    pub before: Option<String>,
    /// The listed value, likewise; `None`: the listed definition has no such member.
    pub after: Option<String>,
}

/// A tool whose listed definition differs from its pinned one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolChange {
    pub name: String,
    pub pinned_sha256: String,
    pub listed_sha256: String,
    /// The differing members, leaves first found in key order, at most [`MAX_MEMBER_CHANGES`].
    pub members: Vec<MemberChange>,
    /// How many more differ than `members` lists.
    pub more: usize,
}

impl fmt::Display for ToolChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, m) in self.members.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            let before = m.before.as_deref().unwrap_or("(absent)");
            let after = m.after.as_deref().unwrap_or("(absent)");
            write!(f, "{}: {before} -> {after}", if m.pointer.is_empty() { "(root)" } else { &m.pointer })?;
        }
        if self.more > 0 {
            write!(f, "; and {} more", self.more)?;
        }
        Ok(())
    }
}

/// What differs between a pin and a list of tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolsDiff {
    /// Listed, not pinned (in list order).
    pub added: Vec<String>,
    /// Pinned, not listed (in name order).
    pub removed: Vec<String>,
    /// Listed with a definition other than the pinned one (in list order).
    pub changed: Vec<ToolChange>,
}

impl ToolsDiff {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

impl ToolsBaseline {
    /// The pin of `tools` (tool objects as a `tools/list` result gives them, all pages).
    /// Refuses a tool that is not an object with a string `name` and a name given twice.
    pub fn from_tools(server: Option<J>, tools: &[J]) -> Result<ToolsBaseline, PinError> {
        let mut pin = ToolsBaseline { server, tools: BTreeMap::new() };
        for (i, tool) in tools.iter().enumerate() {
            let at = format!("/{i}");
            let Some(p) = PinnedTool::of(tool) else {
                return Err(PinError::new(PinErrorKind::Malformed, at, "a tool is an object with a string `name`"));
            };
            if pin.tools.contains_key(&p.name) {
                return Err(PinError::new(
                    PinErrorKind::DuplicateTool,
                    format!("{at}/name"),
                    format!("tool `{}` is listed twice", p.name),
                ));
            }
            pin.tools.insert(p.name.clone(), p);
        }
        Ok(pin)
    }

    /// The pin file: one tool per line, in name order, so a review diff shows each change.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "{{\"{PIN_FORMAT_KEY}\":{PIN_FORMAT}");
        if let Some(server) = &self.server {
            let _ = write!(out, ",\"server\":{}", canonical_json(server));
        }
        out.push_str(",\"tools\":[");
        for (i, t) in self.tools.values().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            let _ = write!(
                out,
                "{{\"name\":{},\"sha256\":\"{}\",\"definition\":{}}}",
                J::String(t.name.clone()),
                t.sha256,
                t.canonical
            );
        }
        out.push_str("\n]}\n");
        out
    }

    /// Reads a pin file, within `limits`.
    pub fn parse(bytes: &[u8], limits: &PinLimits) -> Result<ToolsBaseline, PinError> {
        use PinErrorKind::*;
        if bytes.len() > limits.max_bytes {
            return Err(PinError::new(
                TooLarge,
                "",
                format!("the file has {} bytes, more than the {} a pin file may have", bytes.len(), limits.max_bytes),
            ));
        }
        let doc: J = serde_json::from_slice(bytes).map_err(|e| PinError::new(NotJson, "", format!("not JSON: {e}")))?;
        let Some(top) = doc.as_object() else {
            return Err(PinError::new(Malformed, "", "a pin file is a JSON object"));
        };
        pin_header(top)?;
        let Some(tools) = top.get("tools").and_then(|t| t.as_array()) else {
            return Err(PinError::new(Malformed, "/tools", "`tools` is an array"));
        };
        if tools.len() > limits.max_tools {
            return Err(PinError::new(
                TooLarge,
                "/tools",
                format!("{} tools, more than the {} a pin file may have", tools.len(), limits.max_tools),
            ));
        }
        let mut pin = ToolsBaseline { server: top.get("server").cloned(), tools: BTreeMap::new() };
        for (i, entry) in tools.iter().enumerate() {
            let at = format!("/tools/{i}");
            let (name, p) = pinned_tool(&at, entry)?;
            if pin.tools.contains_key(name) {
                return Err(PinError::new(
                    DuplicateTool,
                    format!("{at}/name"),
                    format!("tool `{name}` is pinned twice"),
                ));
            }
            pin.tools.insert(name.to_owned(), p);
        }
        Ok(pin)
    }

    /// How one listed tool differs from the pin: `None` when its definition is the pinned one
    /// (or it has no string `name`), else [`ToolDrift::Added`] or [`ToolDrift::Changed`].
    pub fn compare_tool(&self, listed: &J) -> Option<ToolDrift> {
        let now = PinnedTool::of(listed)?;
        let Some(pinned) = self.tools.get(&now.name) else { return Some(ToolDrift::Added(now.name)) };
        if pinned.canonical == now.canonical {
            return None;
        }
        let mut members = Vec::new();
        let mut more = 0;
        diff_values("", Some(&pinned.definition), Some(&now.definition), &mut members, &mut more);
        Some(ToolDrift::Changed(ToolChange {
            name: now.name,
            pinned_sha256: pinned.sha256.clone(),
            listed_sha256: now.sha256,
            members,
            more,
        }))
    }

    /// What differs between the pin and a complete list of tools (all pages).
    pub fn compare(&self, listed: &[J]) -> ToolsDiff {
        let mut diff = ToolsDiff::default();
        let mut seen = std::collections::BTreeSet::new();
        for tool in listed {
            if let Some(name) = tool.get("name").and_then(|n| n.as_str()) {
                seen.insert(name);
            }
            match self.compare_tool(tool) {
                Some(ToolDrift::Added(name)) => diff.added.push(name),
                Some(ToolDrift::Changed(c)) => diff.changed.push(c),
                None => {}
            }
        }
        diff.removed = self.tools.keys().filter(|k| !seen.contains(k.as_str())).cloned().collect();
        diff
    }
}

/// A pin file's top level: the format this build reads, and only the members it has.
fn pin_header(top: &serde_json::Map<String, J>) -> Result<(), PinError> {
    use PinErrorKind::*;
    match top.get(PIN_FORMAT_KEY) {
        Some(v) if v.as_u64() == Some(PIN_FORMAT) => {}
        Some(v) => {
            return Err(PinError::new(
                UnsupportedVersion,
                format!("/{PIN_FORMAT_KEY}"),
                format!("pin format {v}; this build reads format {PIN_FORMAT}"),
            ))
        }
        None => {
            return Err(PinError::new(
                Malformed,
                "",
                format!("no `{PIN_FORMAT_KEY}` member: not a pin file (`mcpgen tools pin` writes them)"),
            ))
        }
    }
    if let Some(k) = top.keys().find(|k| !matches!(k.as_str(), PIN_FORMAT_KEY | "server" | "tools")) {
        return Err(PinError::new(
            Malformed,
            format!("/{}", escape(k)),
            format!("unknown member `{k}` (format {PIN_FORMAT} has `{PIN_FORMAT_KEY}`, `server`, `tools`)"),
        ));
    }
    Ok(())
}

/// One entry of a pin file's `tools` (at `at`): its name and the pinned tool, whose definition
/// (named the same, without `_meta`) hashes to the recorded `sha256`.
fn pinned_tool<'e>(at: &str, entry: &'e J) -> Result<(&'e str, PinnedTool), PinError> {
    use PinErrorKind::*;
    let Some(entry) = entry.as_object() else {
        return Err(PinError::new(Malformed, at, "a pinned tool is an object"));
    };
    if let Some(k) = entry.keys().find(|k| !matches!(k.as_str(), "name" | "sha256" | "definition")) {
        return Err(PinError::new(
            Malformed,
            format!("{at}/{}", escape(k)),
            format!("unknown member `{k}` (a pinned tool has `name`, `sha256`, `definition`)"),
        ));
    }
    let Some(name) = entry.get("name").and_then(|n| n.as_str()) else {
        return Err(PinError::new(Malformed, format!("{at}/name"), "`name` is a string"));
    };
    let Some(sha) = entry.get("sha256").and_then(|n| n.as_str()) else {
        return Err(PinError::new(Malformed, format!("{at}/sha256"), "`sha256` is a string"));
    };
    let Some(definition) = entry.get("definition").filter(|d| d.is_object()) else {
        return Err(PinError::new(Malformed, format!("{at}/definition"), "`definition` is a tool object"));
    };
    if definition.get("name").and_then(|n| n.as_str()) != Some(name) {
        return Err(PinError::new(
            Malformed,
            format!("{at}/definition/name"),
            format!("the definition's `name` is not `{name}`"),
        ));
    }
    if definition.get("_meta").is_some() {
        return Err(PinError::new(
            Malformed,
            format!("{at}/definition/_meta"),
            "a pinned definition has no `_meta` (it is not pinned)",
        ));
    }
    let p = PinnedTool::of(definition).expect("an object with a string name");
    if !p.sha256.eq_ignore_ascii_case(sha) {
        return Err(PinError::new(
            HashMismatch,
            format!("{at}/sha256"),
            format!(
                "the recorded hash of tool `{name}` is {sha}, its definition hashes to {}: the file was changed after pinning",
                p.sha256
            ),
        ));
    }
    Ok((name, p))
}

/// How one listed tool differs from the pin ([`ToolsBaseline::compare_tool`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolDrift {
    /// Not pinned.
    Added(String),
    Changed(ToolChange),
}

/// Appends the changed leaves between `a` and `b` at `at` (objects member by member, arrays of
/// equal length item by item; anything else as a whole).
fn diff_values(at: &str, a: Option<&J>, b: Option<&J>, out: &mut Vec<MemberChange>, more: &mut usize) {
    match (a, b) {
        (Some(J::Object(x)), Some(J::Object(y))) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                diff_values(&format!("{at}/{}", escape(k)), x.get(k), y.get(k), out, more);
            }
        }
        (Some(J::Array(x)), Some(J::Array(y))) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff_values(&format!("{at}/{i}"), Some(p), Some(q), out, more);
            }
        }
        (a, b) if a != b => {
            if out.len() < MAX_MEMBER_CHANGES {
                out.push(MemberChange { pointer: at.to_owned(), before: a.map(shown), after: b.map(shown) });
            } else {
                *more += 1;
            }
        }
        _ => {}
    }
}

/// `v` as canonical JSON, cut to [`MAX_SHOWN_CHARS`] characters.
fn shown(v: &J) -> String {
    let text = canonical_json(v);
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A JSON pointer segment (RFC 6901: `~` as `~0`, `/` as `~1`).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Lowercase hex SHA256 of `text`.
fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// The canonical JSON of `v`: every object's keys sorted, no whitespace.
pub fn canonical_json(v: &J) -> String {
    let mut out = String::new();
    canonical_into(v, &[], &mut out);
    out
}

/// [`canonical_json`] into `out`, leaving the `skip` members of the top object out.
pub(crate) fn canonical_into(v: &J, skip: &[&str], out: &mut String) {
    canonical_noting(v, skip, [], out);
}

/// [`canonical_into`], also saying where in `out` the text of each top-level member named in
/// `noted` is (`None`: absent), so that a caller needing both the whole text and a member's
/// does not write the member twice.
pub(crate) fn canonical_noting<const N: usize>(
    v: &J,
    skip: &[&str],
    noted: [&str; N],
    out: &mut String,
) -> [Option<std::ops::Range<usize>>; N] {
    let mut at = std::array::from_fn(|_| None);
    match v {
        J::Object(map) => {
            let mut keys: Vec<&String> = map.keys().filter(|k| !skip.contains(&k.as_str())).collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}:", J::String(k.clone()));
                let start = out.len();
                canonical_into(&map[k], &[], out);
                if let Some(j) = noted.iter().position(|n| n == k) {
                    at[j] = Some(start..out.len());
                }
            }
            out.push('}');
        }
        J::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_into(x, &[], out);
            }
            out.push(']');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
    at
}

#[cfg(test)]
#[path = "pin_tests.rs"]
mod tests;
