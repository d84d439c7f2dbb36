//! What the integration tests share: where the workspace and the official examples are.

use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The git-ignored cache that `cargo xtask schema pull` fills; a missing cache is an error that
/// says how to fill it, never a skip.
pub fn examples_dir() -> Result<PathBuf, String> {
    let examples = workspace().join("schema/2026-07-28/examples");
    if examples.is_dir() {
        Ok(examples)
    } else {
        Err(format!(
            "official examples not found at {}; run `cargo xtask schema pull` (add --from DIR for a mirror)",
            examples.display()
        ))
    }
}
