//! Reading the documents commands check: a file or standard input (`-`), whole or as JSON Lines.

use std::io::Read;
use std::path::Path;

use crate::UsageError;

/// One input document: its display name and bytes.
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) bytes: Vec<u8>,
}

/// A file, or standard input for `-`, with the name messages give it.
pub(crate) fn read_named(path: &Path) -> Result<Input, UsageError> {
    let name = if path.as_os_str() == "-" { "<stdin>".to_owned() } else { path.display().to_string() };
    Ok(Input { name, bytes: read_input(path)? })
}

/// The bytes of a file, or of standard input for `-`.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, UsageError> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| UsageError(format!("cannot read standard input: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))
    }
}

/// The messages of a text: the whole text as line 1, or (JSON Lines) every non-blank line with
/// its 1-based number, a trailing `\r` stripped (AMB-22).
pub(crate) fn split_lines(bytes: &[u8], lines: bool) -> Vec<(usize, &[u8])> {
    if !lines {
        return vec![(1, bytes)];
    }
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
        .collect()
}
