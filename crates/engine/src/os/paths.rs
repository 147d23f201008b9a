//! Real paths: the one place the engine resolves a path with `realpath` and decides how a real
//! path is spelled for a host.
//!
//! On Windows `std::fs::canonicalize` returns the verbatim form (`\\?\C:\x`), which no host
//! expects back and which does not compare equal to `C:\x`. Hosts are given the form the
//! `dunce` crate chooses: the prefix is dropped where that names the same file (`C:\x`) and
//! kept where the path needs it (reserved names such as `NUL`, over-long paths). On every
//! other platform both functions here are plain `realpath`/identity.
//!
//! Containment compares in [`comparable`] form (std's verbatim form on Windows, for both the
//! root and the target, so an over-long target that keeps its prefix still compares with a
//! short root that loses it) and reports in [`reported`] form.

use std::io;
use std::path::{Path, PathBuf};

/// `path` resolved as a host sees it: `realpath`, then [`reported`].
///
/// # Errors
/// The path cannot be resolved (missing, a link loop, no permission).
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    dunce::canonicalize(path)
}

/// A real path (already resolved) spelled as a host sees it: on Windows without the verbatim
/// `\\?\` prefix wherever dropping it names the same file; unchanged elsewhere.
#[must_use]
pub fn reported(path: &Path) -> &Path {
    dunce::simplified(path)
}

/// `path` resolved to the one spelling two real paths are compared in (containment): std's
/// `realpath`, verbatim on Windows for every path alike. Never reported as is: pass the result
/// through [`reported`] first.
///
/// # Errors
/// The path cannot be resolved (missing, a link loop, no permission).
pub fn comparable(path: &Path) -> io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

/// `target` relative to `root`, whichever of the two spellings of [`reported`] and
/// [`comparable`] each came in (a reported root loses its `\\?\` while an over-long target
/// beneath it keeps it): `None` when `target` is not beneath `root`.
#[must_use]
pub fn beneath<'a>(root: &Path, target: &'a Path) -> Option<&'a Path> {
    if let Ok(rel) = target.strip_prefix(root) {
        return Some(rel);
    }
    if let Ok(rel) = reported(target).strip_prefix(reported(root)) {
        return Some(rel);
    }
    // A verbatim target beneath a root given in its short form: compare with the root in
    // its verbatim form (the root exists: it is a real directory).
    let root = comparable(root).ok()?;
    target.strip_prefix(&root).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decision itself, on a path that exists nowhere: a verbatim drive path is reported
    /// as the drive path on Windows and left as it is on every other platform.
    #[test]
    fn a_verbatim_drive_path_is_reported_without_its_prefix_on_windows_only() {
        let verbatim = Path::new(r"\\?\C:\x");
        let expected = if cfg!(windows) {
            Path::new(r"C:\x")
        } else {
            verbatim
        };
        assert_eq!(reported(verbatim), expected);
        // Where the prefix is needed it stays (a reserved device name).
        assert_eq!(
            reported(Path::new(r"\\?\C:\dir\NUL")),
            Path::new(r"\\?\C:\dir\NUL")
        );
    }

    #[test]
    fn beneath_takes_the_relative_path_in_either_spelling() {
        assert_eq!(
            beneath(Path::new("/a/b"), Path::new("/a/b/c/d")),
            Some(Path::new("c/d"))
        );
        assert_eq!(beneath(Path::new("/a/b"), Path::new("/a/bc")), None);
        if cfg!(windows) {
            assert_eq!(
                beneath(Path::new(r"C:\a"), Path::new(r"\\?\C:\a\c")),
                Some(Path::new("c"))
            );
            assert_eq!(
                beneath(Path::new(r"\\?\C:\a"), Path::new(r"C:\a\c")),
                Some(Path::new("c"))
            );
        }
    }

    #[test]
    fn canonicalize_resolves_to_a_path_without_the_verbatim_prefix() -> io::Result<()> {
        let dir = std::env::temp_dir();
        let real = canonicalize(&dir)?;
        assert!(real.is_absolute());
        assert!(!real.to_string_lossy().starts_with(r"\\?\"));
        assert_eq!(reported(&comparable(&dir)?), real.as_path());
        Ok(())
    }

    #[cfg(windows)]
    #[test]
    fn a_real_windows_path_comes_back_with_its_drive_letter() -> io::Result<()> {
        let dir = std::env::temp_dir();
        let real = canonicalize(&dir)?;
        let s = real.to_string_lossy();
        let b = s.as_bytes();
        assert!(
            b.len() > 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\',
            "{s}"
        );
        // std's own answer for the same directory is the verbatim form of it.
        assert_eq!(comparable(&dir)?.to_string_lossy(), format!(r"\\?\{s}"));
        Ok(())
    }
}
