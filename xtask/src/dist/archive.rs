//! The `.tar.gz` archives and `SHA256SUMS`. Archives are reproducible: entries in the order
//! written, owner 0, modes 0644/0755, every mtime `SOURCE_DATE_EPOCH` (default 0).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

use super::{file_name, fresh_dir, list_dir};
use crate::pins::sha256_hex;
use crate::Result;

pub const SUMS: &str = "SHA256SUMS";

/// A `.tar.gz` being written; every entry sits below one top directory.
pub struct TarGz {
    path: PathBuf,
    top: String,
    mtime: u64,
    builder: tar::Builder<GzEncoder<BufWriter<File>>>,
}

impl TarGz {
    pub fn create(path: &Path, top: &str) -> Result<TarGz> {
        let file = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mtime = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
        let builder = tar::Builder::new(GzEncoder::new(BufWriter::new(file), Compression::best()));
        Ok(TarGz { path: path.to_path_buf(), top: top.to_owned(), mtime, builder })
    }

    fn header(&self, kind: tar::EntryType, mode: u32, size: u64) -> tar::Header {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(size);
        header.set_mtime(self.mtime);
        header.set_uid(0);
        header.set_gid(0);
        header
    }

    /// `TOP/rel` with these bytes, mode 0755 when `executable`.
    pub fn file(&mut self, rel: &str, bytes: &[u8], executable: bool) -> Result<()> {
        let mode = if executable { 0o755 } else { 0o644 };
        let mut header = self.header(tar::EntryType::Regular, mode, bytes.len() as u64);
        let path = format!("{}/{rel}", self.top);
        self.builder.append_data(&mut header, &path, bytes).map_err(|e| self.error(&path, e))
    }

    /// `TOP/rel`, a symbolic link to `target` (relative to its own directory).
    pub fn symlink(&mut self, rel: &str, target: &str) -> Result<()> {
        let mut header = self.header(tar::EntryType::Symlink, 0o777, 0);
        let path = format!("{}/{rel}", self.top);
        self.builder.append_link(&mut header, &path, target).map_err(|e| self.error(&path, e))
    }

    pub fn finish(self) -> Result<PathBuf> {
        let path = self.path;
        let gz = self.builder.into_inner().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut file = gz.finish().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        std::io::Write::flush(&mut file).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }

    fn error(&self, entry: &str, e: std::io::Error) -> String {
        format!("cannot add {entry} to {}: {e}", self.path.display())
    }
}

/// Unpacks a `.tar.gz` into `into` (emptied first); returns its one top directory.
pub fn unpack(archive: &Path, into: &Path) -> Result<PathBuf> {
    fresh_dir(into.to_path_buf())?;
    let file = File::open(archive).map_err(|e| format!("cannot open {}: {e}", archive.display()))?;
    tar::Archive::new(flate2::read::GzDecoder::new(file))
        .unpack(into)
        .map_err(|e| format!("cannot unpack {} into {}: {e}", archive.display(), into.display()))?;
    let tops: Vec<PathBuf> = fs::read_dir(into)
        .map_err(|e| format!("cannot list {}: {e}", into.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    match tops.as_slice() {
        [top] if top.is_dir() => Ok(top.clone()),
        _ => Err(format!("{} must hold exactly one top directory, found {tops:?}", archive.display())),
    }
}

/// Writes `dir/SHA256SUMS` (`sha256sum` format, sorted by name) over every other file of `dir`.
pub fn write_sums(dir: &Path) -> Result<PathBuf> {
    let mut text = String::new();
    for file in list_dir(dir)? {
        if file_name(&file) != SUMS {
            text.push_str(&format!("{}  {}\n", sha256_hex(&crate::read(&file)?), file_name(&file)));
        }
    }
    let path = dir.join(SUMS);
    fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Checks `dir/SHA256SUMS`: each listed file has its sum, and it lists every file of `dir`.
/// Returns how many files it covers.
pub fn check_sums(dir: &Path) -> Result<usize> {
    let path = dir.join(SUMS);
    let text = String::from_utf8_lossy(&crate::read(&path)?).into_owned();
    let mut problems = Vec::new();
    let mut listed = BTreeSet::new();
    for line in text.lines() {
        let Some((sum, name)) = line.split_once("  ") else {
            problems.push(format!("malformed line {line:?}"));
            continue;
        };
        listed.insert(name.to_owned());
        match crate::read(&dir.join(name)) {
            Ok(bytes) if sha256_hex(&bytes) == sum => {}
            Ok(bytes) => problems.push(format!("{name}: sha256 {} but SHA256SUMS says {sum}", sha256_hex(&bytes))),
            Err(e) => problems.push(e),
        }
    }
    for file in list_dir(dir)? {
        let name = file_name(&file);
        if name != SUMS && !listed.contains(&name) {
            problems.push(format!("{name} is not listed"));
        }
    }
    if problems.is_empty() {
        Ok(listed.len())
    } else {
        Err(format!("{}: {}", path.display(), problems.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        fresh_dir(std::env::temp_dir().join(format!("mcpgen-xtask-archive-{name}-{}", std::process::id()))).unwrap()
    }

    #[test]
    fn an_archive_unpacks_to_what_was_written_and_is_reproducible() {
        let dir = scratch("tar");
        let write = |name: &str| {
            let mut tar = TarGz::create(&dir.join(name), "pkg-1.0").unwrap();
            tar.file("lib/libx.so.1.0.0", b"\x7fELF", true).unwrap();
            tar.symlink("lib/libx.so", "libx.so.1.0.0").unwrap();
            tar.file("README.md", b"hello\n", false).unwrap();
            tar.finish().unwrap()
        };
        let (a, b) = (write("a.tar.gz"), write("b.tar.gz"));
        assert_eq!(fs::read(&a).unwrap(), fs::read(&b).unwrap(), "same entries, same bytes");
        let top = unpack(&a, &dir.join("out")).unwrap();
        assert_eq!(file_name(&top), "pkg-1.0");
        assert_eq!(fs::read(top.join("README.md")).unwrap(), b"hello\n");
        assert_eq!(fs::read(top.join("lib/libx.so")).unwrap(), b"\x7fELF", "the link resolves");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(top.join("lib/libx.so.1.0.0")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sums_catch_a_changed_a_missing_and_an_unlisted_file() {
        let dir = scratch("sums");
        fs::write(dir.join("a.whl"), b"wheel").unwrap();
        fs::write(dir.join("b.crate"), b"crate").unwrap();
        write_sums(&dir).unwrap();
        assert_eq!(check_sums(&dir).unwrap(), 2);

        fs::write(dir.join("a.whl"), b"other wheel").unwrap();
        let err = check_sums(&dir).unwrap_err();
        assert!(err.contains("a.whl: sha256"), "{err}");

        write_sums(&dir).unwrap();
        fs::write(dir.join("c.tar.gz"), b"late").unwrap();
        assert!(check_sums(&dir).unwrap_err().contains("c.tar.gz is not listed"));

        fs::remove_file(dir.join("c.tar.gz")).unwrap();
        fs::remove_file(dir.join("b.crate")).unwrap();
        assert!(check_sums(&dir).unwrap_err().contains("b.crate"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
