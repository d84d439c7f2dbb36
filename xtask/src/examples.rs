//! The official examples: `schema/examples.sha256` (committed manifest) and the git-ignored
//! cache `schema/<rev>/examples/<Def>/<name>.json` that the tests read.
//!
//! The manifest is `sha256sum` output (`<sha256>  <path>`, paths relative to `schema/`, so
//! `cd schema && sha256sum -c examples.sha256` checks a cache by hand) under a comment header.
//! An example `<rev>/examples/<Def>/<name>.json` is fetched from beside its revision's schema
//! pin: the pin's URL with `schema.json` replaced by `examples/<Def>/<name>.json`, so the
//! examples and the schema of a revision always come from one commit, and each revision keeps
//! its own commit. `cargo xtask schema manifest --from DIR` rebuilds the manifest from a mirror.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::pins::{curl, sha256_hex, write_atomically, Pin};
use crate::{read, Result};

/// The manifest, relative to the workspace root.
pub const MANIFEST_REL: &str = "schema/examples.sha256";
/// Errors listed in full before the rest are only counted.
const SHOWN_ERRORS: usize = 10;

/// `schema/examples.sha256`.
#[derive(Debug, PartialEq)]
pub struct Manifest {
    /// Sorted by path.
    pub entries: Vec<Entry>,
    /// Download prefix of each revision with examples (from its pin, ending in `/`): an entry
    /// of revision `rev` is fetched from `bases[rev]` + its path after `<rev>/`.
    pub bases: BTreeMap<String, String>,
}

/// One official example file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Lowercase hex sha256 of the exact bytes.
    pub sha256: String,
    /// `<rev>/examples/<Def>/<name>.json`, relative to `schema/` (and to a mirror's root).
    pub path: String,
}

impl Entry {
    /// The revision the example belongs to (the first path segment).
    pub fn revision(&self) -> &str {
        self.path.split('/').next().unwrap_or_default()
    }
}

impl Manifest {
    /// The entries of the given revisions (all when `revisions` is empty).
    pub fn select(&self, revisions: &[&str]) -> Vec<&Entry> {
        self.entries.iter().filter(|e| revisions.is_empty() || revisions.contains(&e.revision())).collect()
    }

    /// Where `entry` is downloaded from.
    pub fn url(&self, entry: &Entry) -> String {
        let rev = entry.revision();
        let base = self.bases.get(rev).map_or("", String::as_str);
        format!("{base}{}", entry.path.strip_prefix(&format!("{rev}/")).unwrap_or(&entry.path))
    }

    /// Revisions with at least one example, in manifest order.
    pub fn revisions(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for e in &self.entries {
            if !out.contains(&e.revision()) {
                out.push(e.revision());
            }
        }
        out
    }

    /// The manifest's text: header, then one `sha256sum` line per entry, sorted by path.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# Official examples of the MCP specification repository, pinned by content.\n");
        out.push_str("# Written by `cargo xtask schema manifest --from DIR`; `cargo xtask schema pull` fetches\n");
        out.push_str("# each <rev>/examples/<path> from beside the revision's schema pin in sources.toml (or from\n");
        out.push_str("# DIR/<rev>/examples/<path>) into schema/ and refuses any bytes whose sha256 differs.\n");
        out.push_str("# By hand: `cd schema && sha256sum -c examples.sha256`.\n");
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        for e in entries {
            out.push_str(&format!("{}  {}\n", e.sha256, e.path));
        }
        out
    }
}

/// Reads and checks `schema/examples.sha256` against the pins.
pub fn load(root: &Path, pins: &[Pin]) -> Result<Manifest> {
    let path = root.join(MANIFEST_REL);
    let text = String::from_utf8(read(&path)?).map_err(|e| format!("{MANIFEST_REL} is not UTF-8: {e}"))?;
    parse(&text, pins)
}

/// Parses a manifest; every defect is reported with its line number. Each revision with
/// examples must be pinned, with a URL ending in `/schema.json` (its examples sit beside it).
pub fn parse(text: &str, pins: &[Pin]) -> Result<Manifest> {
    let mut errors = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let at = format!("{MANIFEST_REL}:{}", i + 1);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((sha256, path)) = line.split_once("  ") else {
            errors.push(format!("{at}: expected `<sha256>  <path>` (two spaces), got {line:?}"));
            continue;
        };
        if !is_sha256(sha256) {
            errors.push(format!("{at}: sha256 must be 64 lowercase hex digits, got {sha256:?}"));
            continue;
        }
        if let Err(e) = check_path(path, pins) {
            errors.push(format!("{at}: {e}"));
            continue;
        }
        if !seen.insert(path.to_owned()) {
            errors.push(format!("{at}: {path} is listed twice"));
            continue;
        }
        entries.push(Entry { sha256: sha256.to_owned(), path: path.to_owned() });
    }
    if entries.is_empty() && errors.is_empty() {
        errors.push(format!("{MANIFEST_REL} lists no example"));
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let mut manifest = Manifest { entries, bases: BTreeMap::new() };
    if errors.is_empty() {
        let revisions: Vec<String> = manifest.revisions().into_iter().map(str::to_owned).collect();
        for rev in &revisions {
            let pin = pins.iter().find(|p| &p.name == rev).expect("check_path admits pinned revisions only");
            match pin.url.strip_suffix("schema.json").filter(|base| base.ends_with('/')) {
                Some(base) => {
                    manifest.bases.insert(rev.clone(), base.to_owned());
                }
                None => errors.push(format!(
                    "{MANIFEST_REL}: revision {rev} has examples, but its pin in schema/sources.toml ({}) does not end \
                     in /schema.json: its examples are fetched from beside the schema, at the same commit",
                    pin.url
                )),
            }
        }
    }
    if errors.is_empty() {
        Ok(manifest)
    } else {
        Err(errors.join("\n"))
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `<rev>/examples/<Def>/<name>.json` with a pinned `<rev>` and plain names: the path becomes a
/// file under `schema/` and a URL, so nothing that could climb out (`..`, `/x`, `a\b`).
fn check_path(path: &str, pins: &[Pin]) -> Result<()> {
    let segments: Vec<&str> = path.split('/').collect();
    let [rev, examples, def, name] = segments[..] else {
        return Err(format!("path {path:?} is not <revision>/examples/<Definition>/<name>.json"));
    };
    if examples != "examples" || !name.ends_with(".json") {
        return Err(format!("path {path:?} is not <revision>/examples/<Definition>/<name>.json"));
    }
    if !pins.iter().any(|p| p.name == rev) {
        return Err(format!("path {path:?}: revision {rev:?} is not pinned in schema/sources.toml"));
    }
    for segment in [def, name] {
        let mut chars = segment.chars();
        let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
        if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
            return Err(format!(
                "path {path:?}: {segment:?} must start with a letter or digit and contain only letters, digits, '-', '_' and '.'"
            ));
        }
    }
    Ok(())
}

/// Where `pull` reads example bytes from.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// A mirror laid out as `<mirror>/<path>`.
    Mirror(&'a Path),
    /// From beside each revision's schema pin ([`Manifest::url`]), with curl.
    Upstream,
}

/// What a pull did, for the summary line and the tests.
#[derive(Debug, Default, PartialEq)]
pub struct Pulled {
    /// Entries written (fetched and verified).
    pub written: usize,
    /// Entries already present with the pinned sha256, left alone.
    pub present: usize,
    /// Cache files not in the manifest, deleted (relative to the workspace root).
    pub removed: Vec<String>,
    /// Mirror files not in the manifest, not copied.
    pub ignored: Vec<String>,
}

/// Fills `schema/<path>` for every entry of `revisions` (all when empty), verifying each
/// sha256, and deletes cache files the manifest does not list (the tests read the whole cache
/// directory). Every entry is tried, except that a failed download stops the downloads (the
/// commit is pinned, so one failure means upstream is unreachable); failures are reported
/// together, and only bytes with the pinned sha256 are ever written.
pub fn pull(root: &Path, manifest: &Manifest, revisions: &[&str], source: Source) -> Result<Pulled> {
    let entries = manifest.select(revisions);
    let total = entries.len();
    let mut done = Pulled::default();
    let mut errors = Vec::new();
    let mut stopped = None;
    let from_where = match source {
        Source::Mirror(dir) => dir.display().to_string(),
        Source::Upstream => {
            let bases: Vec<&str> = manifest.bases.values().map(String::as_str).collect();
            bases.join(", ")
        }
    };
    println!(
        "examples: {total} files of revision(s) {}, from {from_where}",
        selected_revisions(manifest, revisions).join(", ")
    );
    for (i, entry) in entries.iter().enumerate() {
        let dest_rel = format!("schema/{}", entry.path);
        let dest = root.join(&dest_rel);
        match fs::read(&dest) {
            Ok(bytes) if sha256_hex(&bytes) == entry.sha256 => {
                done.present += 1;
                continue;
            }
            Ok(bytes) => println!(
                "[{}/{total}] {dest_rel} has sha256 {}, not the pinned {}; fetching it again",
                i + 1,
                sha256_hex(&bytes),
                entry.sha256
            ),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => {
                errors.push(format!("cannot read {}: {e}", dest.display()));
                continue;
            }
        }
        let (fetched, from) = match source {
            Source::Mirror(dir) => {
                let path = dir.join(&entry.path);
                (read(&path), path.display().to_string())
            }
            Source::Upstream => {
                let url = manifest.url(entry);
                (curl(&url), url)
            }
        };
        let bytes = match fetched {
            Ok(bytes) => bytes,
            Err(e) => {
                errors.push(format!("{}: {e}", entry.path));
                if let Source::Upstream = source {
                    stopped = Some(total - i - 1);
                    break;
                }
                continue;
            }
        };
        let actual = sha256_hex(&bytes);
        if actual != entry.sha256 {
            errors.push(format!(
                "sha256 mismatch for {} from {from}\n  expected {} ({MANIFEST_REL})\n  actual   {actual}\n  {dest_rel} not written",
                entry.path, entry.sha256
            ));
            continue;
        }
        match write_atomically(&dest, &bytes) {
            Ok(()) => {
                done.written += 1;
                println!("[{}/{total}] wrote {dest_rel} (sha256 ok)", i + 1);
            }
            Err(e) => errors.push(e),
        }
    }

    let listed: BTreeSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    for rev in selected_revisions(manifest, revisions) {
        for rel in files_under(&root.join("schema"), &format!("{rev}/examples"))? {
            if !listed.contains(rel.as_str()) {
                let stale = root.join("schema").join(&rel);
                fs::remove_file(&stale).map_err(|e| format!("cannot delete {}: {e}", stale.display()))?;
                println!("deleted schema/{rel}: not in {MANIFEST_REL}");
                done.removed.push(format!("schema/{rel}"));
            }
        }
        remove_empty_dirs(&root.join("schema").join(rev).join("examples"));
        if let Source::Mirror(dir) = source {
            for rel in files_under(dir, &format!("{rev}/examples"))? {
                if !listed.contains(rel.as_str()) {
                    println!("note: {} is not in {MANIFEST_REL}; ignored", dir.join(&rel).display());
                    done.ignored.push(rel);
                }
            }
        }
    }

    if errors.is_empty() {
        println!(
            "examples: {total} of {total} ok ({} written, {} already present with the pinned sha256)",
            done.written, done.present
        );
        return Ok(done);
    }
    let failed = errors.len();
    let mut message = vec![format!(
        "{failed} of {total} official example file(s) could not be pulled ({} written, {} already present):",
        done.written, done.present
    )];
    message.extend(errors.iter().take(SHOWN_ERRORS).cloned());
    if failed > SHOWN_ERRORS {
        message.push(format!("... and {} more", failed - SHOWN_ERRORS));
    }
    if let Some(left) = stopped.filter(|&n| n > 0) {
        message.push(format!("stopped after the failed download: {left} more file(s) not tried"));
    }
    Err(message.join("\n"))
}

/// The revisions a selection covers: `revisions` itself, or every revision of the manifest.
fn selected_revisions<'a>(manifest: &'a Manifest, revisions: &[&'a str]) -> Vec<&'a str> {
    if revisions.is_empty() {
        manifest.revisions()
    } else {
        revisions.to_vec()
    }
}

/// Every file below `base/sub`, as `/`-separated paths relative to `base`, sorted; none when
/// `base/sub` does not exist.
fn files_under(base: &Path, sub: &str) -> Result<Vec<String>> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) -> Result<()> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
        };
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let child = format!("{rel}/{name}");
            if path.is_dir() {
                walk(&path, &child, out)?;
            } else {
                out.push(child);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(&base.join(sub), sub, &mut out)?;
    out.sort();
    Ok(out)
}

/// Deletes the empty directories below `dir` (and `dir` itself when it ends up empty).
fn remove_empty_dirs(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.path().is_dir() {
                remove_empty_dirs(&entry.path());
            }
        }
        let _ = fs::remove_dir(dir); // fails, as it should, when not empty
    }
}

/// What `verify` found in the cache.
#[derive(Debug, Default, PartialEq)]
pub struct Checked {
    pub ok: usize,
    pub missing: usize,
    /// `schema/<path> has sha256 …` lines.
    pub mismatched: Vec<String>,
    /// Cache files not in the manifest.
    pub extra: Vec<String>,
}

/// Checks the cache against the manifest, printing one line per revision. Missing files are
/// reported, not refused (as for the schemas); a mismatching or unlisted file is an error.
pub fn verify(root: &Path, manifest: &Manifest) -> Result<Checked> {
    let mut all = Checked::default();
    for rev in manifest.revisions() {
        let entries = manifest.select(&[rev]);
        let mut c = Checked::default();
        for entry in &entries {
            let path = root.join("schema").join(&entry.path);
            match fs::read(&path) {
                Ok(bytes) if sha256_hex(&bytes) == entry.sha256 => c.ok += 1,
                Ok(bytes) => c.mismatched.push(format!(
                    "schema/{} has sha256 {}, {MANIFEST_REL} pins {}",
                    entry.path,
                    sha256_hex(&bytes),
                    entry.sha256
                )),
                Err(e) if e.kind() == ErrorKind::NotFound => c.missing += 1,
                Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
            }
        }
        let listed: BTreeSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        for rel in files_under(&root.join("schema"), &format!("{rev}/examples"))? {
            if !listed.contains(rel.as_str()) {
                c.extra.push(format!("schema/{rel} is not in {MANIFEST_REL}"));
            }
        }
        let total = entries.len();
        let state = if c.ok == 0 && c.missing == total {
            format!("not pulled (schema/{rev}/examples/)")
        } else if c.missing == 0 {
            format!("{} of {total} ok", c.ok)
        } else {
            format!("{} of {total} ok, {} not pulled", c.ok, c.missing)
        };
        println!("{rev} examples: {state}");
        for line in c.mismatched.iter().chain(&c.extra) {
            println!("  MISMATCH: {line}");
        }
        all.ok += c.ok;
        all.missing += c.missing;
        all.mismatched.extend(c.mismatched);
        all.extra.extend(c.extra);
    }
    Ok(all)
}

/// What [`build`] took from where.
#[derive(Debug, Default, PartialEq)]
pub struct Built {
    /// Revisions whose examples came from the mirror.
    pub taken: Vec<String>,
    /// Revisions whose entries were kept from the current manifest, with why.
    pub kept: Vec<(String, String)>,
    /// Mirror files that are not `<rev>/examples/<Def>/<name>.json`.
    pub ignored: Vec<String>,
}

/// Builds a manifest from a mirror: every `<rev>/examples/<Def>/<name>.json` of a pinned
/// revision whose `<rev>/schema.json` there is the pinned one. A revision the mirror does not
/// match (its schema is of another commit) or lacks keeps its entries from `current`, so each
/// revision can stay at its own commit; a mirror that matches no revision is refused.
pub fn build(mirror: &Path, pins: &[Pin], current: &[Entry]) -> Result<(Manifest, Built)> {
    let mut entries = Vec::new();
    let mut built = Built::default();
    let mut refused = Vec::new();
    for pin in pins {
        let files = files_under(mirror, &format!("{}/examples", pin.name))?;
        let schema = mirror.join(&pin.name).join("schema.json");
        let mismatch = fs::read(&schema).ok().map(|b| sha256_hex(&b)).filter(|actual| *actual != pin.sha256);
        let why = match (files.is_empty(), mismatch) {
            (true, _) => "the mirror has no examples of it".to_owned(),
            (false, Some(actual)) => {
                let why = format!(
                    "{} has sha256 {actual}, but schema/sources.toml pins {}: the mirror is not at its pinned commit",
                    schema.display(),
                    pin.sha256
                );
                refused.push(format!("revision {}: {why}", pin.name));
                why
            }
            (false, None) => {
                for rel in files {
                    if check_path(&rel, pins).is_err() {
                        built.ignored.push(rel);
                        continue;
                    }
                    let bytes = read(&mirror.join(&rel))?;
                    entries.push(Entry { sha256: sha256_hex(&bytes), path: rel });
                }
                built.taken.push(pin.name.clone());
                continue;
            }
        };
        let old: Vec<Entry> = current.iter().filter(|e| e.revision() == pin.name).cloned().collect();
        if !old.is_empty() {
            built.kept.push((pin.name.clone(), why));
            entries.extend(old);
        }
    }
    if built.taken.is_empty() {
        refused.push(format!(
            "no <revision>/examples/<Definition>/<name>.json of a pinned revision at its pinned commit under {}",
            mirror.display()
        ));
        return Err(refused.join("\n"));
    }
    // Through the parser: what is written is exactly what `load` accepts.
    let manifest = parse(&Manifest { entries, bases: BTreeMap::new() }.render(), pins)?;
    Ok((manifest, built))
}

/// `cargo xtask schema manifest --from DIR`: writes `schema/examples.sha256` and says what
/// changed.
pub fn write_manifest(root: &Path, pins: &[Pin], mirror: &Path) -> Result<()> {
    let current: Vec<Entry> = match fs::read_to_string(root.join(MANIFEST_REL)) {
        Ok(text) => parse(&text, pins).map(|m| m.entries).unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let (manifest, built) = build(mirror, pins, &current)?;
    for rel in &built.ignored {
        println!("note: {} is not <revision>/examples/<Definition>/<name>.json; ignored", mirror.join(rel).display());
    }
    for (rev, why) in &built.kept {
        println!("note: revision {rev}: entries kept from the current {MANIFEST_REL} ({why})");
    }
    let old: BTreeMap<&str, &str> = current.iter().map(|e| (e.path.as_str(), e.sha256.as_str())).collect();
    let new: BTreeMap<&str, &str> = manifest.entries.iter().map(|e| (e.path.as_str(), e.sha256.as_str())).collect();
    let added = new.keys().filter(|p| !old.contains_key(*p)).count();
    let removed = old.keys().filter(|p| !new.contains_key(*p)).count();
    let changed = new.iter().filter(|(p, h)| old.get(*p).is_some_and(|o| o != *h)).count();
    let path: PathBuf = root.join(MANIFEST_REL);
    fs::write(&path, manifest.render()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "wrote {MANIFEST_REL}: {} files; revision(s) {} from {} ({added} added, {removed} removed, {changed} changed)",
        manifest.entries.len(),
        built.taken.join(", "),
        mirror.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "https://raw.example/org/repo/0123/schema/";

    fn pins() -> Vec<Pin> {
        ["2026-07-28", "2025-11-25"]
            .iter()
            .map(|rev| Pin {
                name: rev.to_string(),
                url: format!("{BASE}{rev}/schema.json"),
                sha256: sha256_hex(format!("schema {rev}").as_bytes()),
                dialect: "2020-12".into(),
                c_code: None,
                diff_report_from: None,
            })
            .collect()
    }

    /// A fresh, empty directory under the system temp dir, deleted when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("xtask-examples-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn write(&self, rel: &str, bytes: &[u8]) {
            let path = self.0.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn entry(path: &str, bytes: &[u8]) -> Entry {
        Entry { sha256: sha256_hex(bytes), path: path.into() }
    }

    fn manifest(entries: Vec<Entry>) -> Manifest {
        let mut bases = BTreeMap::new();
        for e in &entries {
            bases.insert(e.revision().to_owned(), format!("{BASE}{}/", e.revision()));
        }
        Manifest { entries, bases }
    }

    const A: &str = "2026-07-28/examples/Tool/a.json";
    const B: &str = "2026-07-28/examples/Tool/b.json";
    const C: &str = "2026-07-28/examples/CallToolRequest/c.json";

    /// A mirror holding A, B and C with their bytes, and the manifest of the three.
    fn mirror_and_manifest(name: &str) -> (TempDir, Manifest) {
        let mirror = TempDir::new(name);
        let mut entries = Vec::new();
        for path in [A, B, C] {
            mirror.write(path, path.as_bytes());
            entries.push(entry(path, path.as_bytes()));
        }
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        (mirror, manifest(entries))
    }

    #[test]
    fn parses_and_round_trips() {
        let text = format!("# a comment\n\n{}  {B}\n{}  {A}\n", sha256_hex(b"b"), sha256_hex(b"a"));
        let m = parse(&text, &pins()).unwrap();
        assert_eq!(m.entries, vec![entry(A, b"a"), entry(B, b"b")], "sorted by path");
        // Fetched from beside the revision's schema pin.
        assert_eq!(m.url(&m.entries[0]), format!("{BASE}2026-07-28/examples/Tool/a.json"));
        assert_eq!(m.revisions(), vec!["2026-07-28"]);
        assert_eq!(parse(&m.render(), &pins()).unwrap(), m);
    }

    #[test]
    fn the_committed_manifest_parses() {
        let root = crate::project_root();
        let pins = crate::pins::load_pins(&root).unwrap();
        let m = load(&root, &pins).unwrap();
        assert!(m.entries.len() >= 100, "{} entries", m.entries.len());
        assert_eq!(m.revisions(), vec!["2026-07-28"]);
        assert_eq!(fs::read_to_string(root.join(MANIFEST_REL)).unwrap(), m.render(), "not in canonical form");
    }

    #[test]
    fn each_revision_fetches_from_its_own_pin() {
        // Two revisions pinned at different commits: no single base URL, no re-pinning.
        let mut pins = pins();
        pins[1].url = "https://raw.example/org/repo/4567/schema/2025-11-25/schema.json".into();
        let old = "2025-11-25/examples/Tool/old.json";
        let text = format!("{}  {A}\n{}  {old}\n", sha256_hex(b"a"), sha256_hex(b"old"));
        let m = parse(&text, &pins).unwrap();
        let urls: Vec<String> = m.entries.iter().map(|e| m.url(e)).collect();
        assert_eq!(
            urls,
            [
                "https://raw.example/org/repo/4567/schema/2025-11-25/examples/Tool/old.json".to_string(),
                format!("{BASE}2026-07-28/examples/Tool/a.json"),
            ]
        );
        // A pin that is not a `…/schema.json` URL has no place for examples beside it.
        pins[1].url = "https://raw.example/org/repo/4567/2025-11-25.json".into();
        let err = parse(&text, &pins).unwrap_err();
        assert!(err.contains("revision 2025-11-25 has examples, but its pin"), "{err}");
    }

    #[test]
    fn refuses_bad_lines() {
        let h = sha256_hex(b"x");
        let head = "# header\n".to_owned();
        let cases: &[(String, &str)] = &[
            (format!("{head}{h} {A}\n"), "two spaces"),
            (format!("{head}{}  {A}\n", &h[..63]), "64 lowercase hex"),
            (format!("{head}{}  {A}\n", h.to_uppercase()), "64 lowercase hex"),
            (format!("{head}{h}  2026-07-28/examples/../../../etc/passwd.json\n"), "is not <revision>"),
            (format!("{head}{h}  2026-07-28/examples/Tool/.hidden.json\n"), "must start with a letter"),
            (format!("{head}{h}  2026-07-28/examples/Tool/a.txt\n"), "is not <revision>"),
            (format!("{head}{h}  2026-07-28/other/Tool/a.json\n"), "is not <revision>"),
            (format!("{head}{h}  1999-01-01/examples/Tool/a.json\n"), "not pinned"),
            (format!("{head}{h}  {A}\n{h}  {A}\n"), "listed twice"),
            (head.clone(), "lists no example"),
        ];
        for (text, want) in cases {
            let err = parse(text, &pins()).expect_err(text);
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn pulls_from_a_mirror_and_leaves_correct_files_alone() {
        let (mirror, m) = mirror_and_manifest("pull-mirror");
        mirror.write("2026-07-28/examples/Tool/extra.json", b"{}");
        mirror.write("2026-07-28/schema.json", b"not an example");
        let root = TempDir::new("pull-root");
        let done = pull(&root.0, &m, &[], Source::Mirror(&mirror.0)).unwrap();
        assert_eq!((done.written, done.present), (3, 0));
        assert_eq!(done.ignored, vec!["2026-07-28/examples/Tool/extra.json".to_string()]);
        for path in [A, B, C] {
            assert_eq!(fs::read(root.0.join("schema").join(path)).unwrap(), path.as_bytes());
        }
        assert!(!root.0.join("schema/2026-07-28/examples/Tool/extra.json").exists(), "unlisted file copied");

        // Second run: nothing fetched, even with the mirror gone.
        drop(mirror);
        let missing = root.0.join("no-such-mirror");
        let again = pull(&root.0, &m, &[], Source::Mirror(&missing)).unwrap();
        assert_eq!((again.written, again.present), (0, 3));

        // A changed cache file is fetched again; an unlisted one is deleted.
        root.write(&format!("schema/{B}"), b"tampered");
        root.write("schema/2026-07-28/examples/Old/stale.json", b"{}");
        let (mirror, _) = mirror_and_manifest("pull-mirror-2");
        let fixed = pull(&root.0, &m, &[], Source::Mirror(&mirror.0)).unwrap();
        assert_eq!((fixed.written, fixed.present), (1, 2));
        assert_eq!(fixed.removed, vec!["schema/2026-07-28/examples/Old/stale.json".to_string()]);
        assert_eq!(fs::read(root.0.join("schema").join(B)).unwrap(), B.as_bytes());
        assert!(!root.0.join("schema/2026-07-28/examples/Old").exists(), "empty directory left behind");
    }

    #[test]
    fn refuses_a_mismatch_and_writes_the_rest() {
        let (mirror, m) = mirror_and_manifest("mismatch-mirror");
        mirror.write(B, b"upstream changed this file");
        let root = TempDir::new("mismatch-root");
        let err = pull(&root.0, &m, &[], Source::Mirror(&mirror.0)).unwrap_err();
        assert!(err.contains(&format!("sha256 mismatch for {B} from {}", mirror.0.join(B).display())), "{err}");
        assert!(err.contains(&format!("expected {}", sha256_hex(B.as_bytes()))), "{err}");
        assert!(err.contains(&format!("actual   {}", sha256_hex(b"upstream changed this file"))), "{err}");
        assert!(err.contains("1 of 3 official example file(s) could not be pulled (2 written"), "{err}");
        assert!(!root.0.join("schema").join(B).exists(), "mismatching bytes written");
        assert!(!root.0.join("schema").join(format!("{B}.tmp")).exists());
        assert!(root.0.join("schema").join(A).exists() && root.0.join("schema").join(C).exists());
    }

    #[test]
    fn a_mirror_missing_a_file_fails_naming_it() {
        let (mirror, m) = mirror_and_manifest("missing-mirror");
        fs::remove_file(mirror.0.join(C)).unwrap();
        let root = TempDir::new("missing-root");
        let err = pull(&root.0, &m, &[], Source::Mirror(&mirror.0)).unwrap_err();
        assert!(err.contains(&format!("{C}: cannot read {}", mirror.0.join(C).display())), "{err}");
        assert!(root.0.join("schema").join(A).exists() && root.0.join("schema").join(B).exists());
        assert!(!root.0.join("schema").join(C).exists());
    }

    #[test]
    fn pulls_only_the_selected_revisions() {
        let (mirror, mut m) = mirror_and_manifest("select-mirror");
        let old = "2025-11-25/examples/Tool/old.json";
        mirror.write(old, b"old");
        m.entries.push(entry(old, b"old"));
        let root = TempDir::new("select-root");
        let done = pull(&root.0, &m, &["2025-11-25"], Source::Mirror(&mirror.0)).unwrap();
        assert_eq!(done.written, 1);
        assert!(root.0.join("schema").join(old).exists() && !root.0.join("schema").join(A).exists());
    }

    #[test]
    fn downloads_with_curl_and_stops_at_the_first_failed_download() {
        // curl reads file:// URLs too: the upstream path without a network.
        let (upstream, mut m) = mirror_and_manifest("curl-upstream");
        m.bases.insert("2026-07-28".into(), format!("file://{}/2026-07-28/", upstream.0.display()));
        let root = TempDir::new("curl-root");
        let done = pull(&root.0, &m, &[], Source::Upstream).unwrap();
        assert_eq!((done.written, done.present), (3, 0));
        assert_eq!(fs::read(root.0.join("schema").join(A)).unwrap(), A.as_bytes());

        fs::remove_dir_all(root.0.join("schema")).unwrap();
        fs::remove_file(upstream.0.join(C)).unwrap(); // C sorts first
        let err = pull(&root.0, &m, &[], Source::Upstream).unwrap_err();
        assert!(err.contains(&format!("{C}: `curl -fsSL file://{}/{C}` failed", upstream.0.display())), "{err}");
        assert!(err.contains("2 more file(s) not tried"), "{err}");
        assert!(!root.0.join("schema").join(A).exists());
    }

    #[test]
    fn verify_reports_missing_mismatching_and_extra_files() {
        let (_mirror, m) = mirror_and_manifest("verify-mirror");
        let root = TempDir::new("verify-root");
        assert_eq!(verify(&root.0, &m).unwrap(), Checked { missing: 3, ..Checked::default() });
        root.write(&format!("schema/{A}"), A.as_bytes());
        root.write(&format!("schema/{B}"), b"tampered");
        root.write("schema/2026-07-28/examples/Tool/extra.json", b"{}");
        let c = verify(&root.0, &m).unwrap();
        assert_eq!((c.ok, c.missing), (1, 1));
        assert_eq!(c.mismatched.len(), 1);
        assert!(c.mismatched[0].starts_with(&format!("schema/{B} has sha256 {}", sha256_hex(b"tampered"))));
        assert_eq!(c.extra, vec![format!("schema/2026-07-28/examples/Tool/extra.json is not in {MANIFEST_REL}")]);
    }

    #[test]
    fn builds_a_manifest_from_a_mirror() {
        let (mirror, m) = mirror_and_manifest("build-mirror");
        mirror.write("2026-07-28/examples/README.md", b"not an example");
        mirror.write("2026-07-28/examples/Tool/notes.txt", b"neither");
        mirror.write("1999-01-01/examples/Tool/unpinned.json", b"{}");
        let pins = pins();
        let (manifest, built) = build(&mirror.0, &pins, &[]).unwrap();
        assert_eq!(manifest, m);
        assert_eq!(built.ignored, vec!["2026-07-28/examples/README.md", "2026-07-28/examples/Tool/notes.txt"]);
        assert_eq!(built.taken, vec!["2026-07-28"]);

        // A mirror at another commit than the pins is refused.
        mirror.write("2026-07-28/schema.json", b"another schema");
        let err = build(&mirror.0, &pins, &[]).unwrap_err();
        assert!(
            err.contains("revision 2026-07-28:") && err.contains("the mirror is not at its pinned commit"),
            "{err}"
        );
        mirror.write("2026-07-28/schema.json", b"schema 2026-07-28");
        assert!(build(&mirror.0, &pins, &[]).is_ok());
    }

    #[test]
    fn a_revision_the_mirror_does_not_match_keeps_its_entries() {
        // 2025-11-25 stays at its own commit: the mirror (at 2026-07-28's) has another
        // 2025-11-25 schema, so that revision's current entries are kept, not replaced.
        let (mirror, m) = mirror_and_manifest("keep-mirror");
        mirror.write("2025-11-25/schema.json", b"2025-11-25 at a newer commit");
        mirror.write("2025-11-25/examples/Tool/new.json", b"new");
        let old = entry("2025-11-25/examples/Tool/old.json", b"old");
        let (manifest, built) = build(&mirror.0, &pins(), std::slice::from_ref(&old)).unwrap();
        assert_eq!(built.taken, vec!["2026-07-28"]);
        assert_eq!(built.kept.len(), 1);
        assert!(built.kept[0].0 == "2025-11-25" && built.kept[0].1.contains("not at its pinned commit"), "{built:?}");
        let mut want = m.entries.clone();
        want.insert(0, old);
        assert_eq!(manifest.entries, want);
    }
}
