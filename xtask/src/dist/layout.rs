//! File names by platform: the shared library, its ABI name (soname), the static library and
//! executables, as they are laid out in the C and CLI archives.

use std::path::Path;

use super::archive::TarGz;
use crate::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Os {
    Linux,
    Apple,
    Windows,
}

/// The platform of a target triple.
#[derive(Clone, Copy, Debug)]
pub struct Platform {
    os: Os,
}

impl Platform {
    /// From a triple such as `x86_64-unknown-linux-gnu`; anything neither Apple nor Windows is
    /// laid out as Linux (ELF, `.so`).
    pub fn of(target: &str) -> Platform {
        let os = if target.contains("-apple-") {
            Os::Apple
        } else if target.contains("-windows") {
            Os::Windows
        } else {
            Os::Linux
        };
        Platform { os }
    }

    pub fn is_linux(self) -> bool {
        self.os == Os::Linux
    }

    pub fn exe(self, name: &str) -> String {
        match self.os {
            Os::Windows => format!("{name}.exe"),
            _ => name.to_owned(),
        }
    }

    /// The name programs linked against libmcpgen record and load (ELF soname, Mach-O install
    /// name without the `@rpath/`); `None` on Windows, where the DLL name is the name.
    pub fn soname(self, version: &str) -> Option<String> {
        let abi = abi_version(version);
        match self.os {
            Os::Linux => Some(format!("libmcpgen.so.{abi}")),
            Os::Apple => Some(format!("libmcpgen.{abi}.dylib")),
            Os::Windows => None,
        }
    }
}

/// The ABI version in the soname: the major version, or `0.MINOR` before 1.0 (where a minor
/// release may break the ABI), as cargo-c names Rust C libraries.
pub fn abi_version(version: &str) -> String {
    let mut parts = version.split(['.', '-', '+']);
    let major = parts.next().unwrap_or("0");
    let minor = parts.next().unwrap_or("0");
    if major == "0" {
        format!("0.{minor}")
    } else {
        major.to_owned()
    }
}

/// One entry of the archive's library directories.
#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    /// A file cargo built (name in `target/release/`) and its path in the archive.
    Built { built: &'static str, path: String },
    /// A symbolic link (path, target relative to its directory).
    Link { path: String, target: String },
}

/// The libraries of the C archive.
pub struct CArchive {
    entries: Vec<Entry>,
}

impl CArchive {
    /// Linux: `lib/libmcpgen.so.X.Y.Z` with the soname `libmcpgen.so.ABI` and the two links
    /// to it (`.so.ABI` for the loader, `.so` for the linker), `lib/libmcpgen.a`. macOS: the
    /// same with `.dylib`. Windows: `bin/mcpgen.dll`, its import library and `mcpgen.lib`.
    pub fn new(platform: &Platform, version: &str) -> CArchive {
        let built = |built: &'static str, path: String| Entry::Built { built, path };
        let link = |path: String, target: String| Entry::Link { path, target };
        let soname = platform.soname(version);
        let entries = match (platform.os, soname) {
            (Os::Linux, Some(soname)) => vec![
                built("libmcpgen.so", format!("lib/libmcpgen.so.{version}")),
                link(format!("lib/{soname}"), format!("libmcpgen.so.{version}")),
                link("lib/libmcpgen.so".into(), soname),
                built("libmcpgen.a", "lib/libmcpgen.a".into()),
            ],
            (Os::Apple, Some(soname)) => vec![
                built("libmcpgen.dylib", format!("lib/{soname}")),
                link("lib/libmcpgen.dylib".into(), soname),
                built("libmcpgen.a", "lib/libmcpgen.a".into()),
            ],
            _ => vec![
                built("mcpgen.dll", "bin/mcpgen.dll".into()),
                built("mcpgen.dll.lib", "lib/mcpgen.dll.lib".into()),
                built("mcpgen.lib", "lib/mcpgen.lib".into()),
            ],
        };
        CArchive { entries }
    }

    pub fn add_libraries(&self, tar: &mut TarGz, release_dir: &Path) -> Result<()> {
        for entry in &self.entries {
            match entry {
                Entry::Built { built, path } => {
                    // Shared libraries and DLLs are mode 0755, archives 0644.
                    let executable = !(path.ends_with(".a") || path.ends_with(".lib"));
                    tar.file(path, &crate::read(&release_dir.join(built))?, executable)?
                }
                Entry::Link { path, target } => tar.symlink(path, target)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_abi_version_is_the_major_or_zero_minor() {
        assert_eq!(abi_version("0.1.0"), "0.1");
        assert_eq!(abi_version("0.12.3-rc.1"), "0.12");
        assert_eq!(abi_version("1.4.2"), "1");
        assert_eq!(abi_version("2.0.0+build"), "2");
    }

    #[test]
    fn linux_links_resolve_to_the_versioned_file() {
        let linux = Platform::of("x86_64-unknown-linux-gnu");
        assert_eq!(linux.soname("0.1.0").as_deref(), Some("libmcpgen.so.0.1"));
        let layout = CArchive::new(&linux, "0.1.0");
        assert_eq!(
            layout.entries[..3],
            [
                Entry::Built { built: "libmcpgen.so", path: "lib/libmcpgen.so.0.1.0".into() },
                Entry::Link { path: "lib/libmcpgen.so.0.1".into(), target: "libmcpgen.so.0.1.0".into() },
                Entry::Link { path: "lib/libmcpgen.so".into(), target: "libmcpgen.so.0.1".into() },
            ]
        );
    }

    #[test]
    fn other_platforms_have_their_own_names() {
        let mac = Platform::of("aarch64-apple-darwin");
        assert_eq!(mac.soname("1.2.0").as_deref(), Some("libmcpgen.1.dylib"));
        let windows = Platform::of("x86_64-pc-windows-msvc");
        assert_eq!(windows.soname("0.1.0"), None);
        assert_eq!(windows.exe("mcpgen"), "mcpgen.exe");
        assert!(CArchive::new(&windows, "0.1.0").entries.iter().all(|e| matches!(e, Entry::Built { .. })));
    }
}
