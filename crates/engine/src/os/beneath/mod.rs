//! Writing files beneath a root directory, immune to symlinks swapped in after a path check.
//!
//! One seam, one file per platform:
//! - Linux ([`linux`]): directories are opened with `openat2(RESOLVE_BENEATH |
//!   RESOLVE_NO_MAGICLINKS)` from the root's handle (symlinks that stay inside the root are
//!   followed, any escape fails with `EXDEV`); where the kernel lacks `openat2`, the walk below.
//! - Every Unix ([`unix`]; macOS and the BSDs use it alone): a walk that opens one component
//!   at a time from the root's handle with `O_NOFOLLOW | O_DIRECTORY`, so a symlink anywhere
//!   in the path fails the open instead of being followed. The same race-proof contract; the
//!   tests below run against both resolvers on Linux.
//! - Windows (`windows`): a weaker, documented guarantee. Every component is checked with
//!   `symlink_metadata` and a symlink or other reparse point (junction, mount point) is refused,
//!   and the leaf is opened without following a reparse point and checked on the handle; but
//!   the directories are then opened by path, so a directory swapped for a junction between
//!   the check and the open is not caught.
//!
//! Everywhere the file is written to a temporary name in the final directory and renamed over
//! the target there, so a symlink at the leaf is replaced, never followed. The coding write and
//! edit tools build on this.

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Component, Path};

#[cfg(unix)]
mod descriptor;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

/// Why a write beneath a root failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BeneathError {
    /// The relative path is absolute, has `..`, or resolves outside the root.
    #[error("path escapes the root: {path}")]
    Escape {
        /// The path as given.
        path: String,
    },
    /// A filesystem call failed (a symlink component, a missing directory, permissions).
    #[error("{op} failed for {path}: {source}")]
    Io {
        /// The step that failed.
        op: &'static str,
        /// The path as given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

impl BeneathError {
    /// A stable code: `ERR_PRISM_PATH_ESCAPE` or `ERR_PRISM_IO`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Escape { .. } => "ERR_PRISM_PATH_ESCAPE",
            Self::Io { .. } => "ERR_PRISM_IO",
        }
    }

    fn escape(path: &Path) -> Self {
        Self::Escape {
            path: path.display().to_string(),
        }
    }
}

/// How directories beneath the root are resolved: the platform's best ([`Resolve::Best`]) or
/// the portable walk alone (so that Linux tests it too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolve {
    Best,
    #[cfg_attr(not(test), allow(dead_code))]
    Walk,
}

/// The plain components of `rel`, or an escape error for an absolute path or `..`.
fn components(rel: &Path) -> Result<Vec<&OsStr>, BeneathError> {
    rel.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::Normal(s) => Ok(s),
            _ => Err(BeneathError::escape(rel)),
        })
        .collect()
}

/// `rel`'s directories and its final component, or an escape error.
fn split_leaf(rel: &Path) -> Result<(Vec<&OsStr>, &OsStr), BeneathError> {
    let mut parts = components(rel)?;
    let leaf = parts.pop().ok_or_else(|| BeneathError::escape(rel))?;
    Ok((parts, leaf))
}

/// Writes `data` to `rel` beneath the directory `root`, atomically (a temporary file in the
/// same directory, then a rename). With `create_dirs`, missing parent directories are made.
///
/// # Errors
/// [`BeneathError::Escape`] when `rel` is absolute, has `..`, or resolves outside `root`
/// (through a symlink, however late it appeared); [`BeneathError::Io`] for any other failure.
pub fn write_beneath(
    root: &Path,
    rel: &Path,
    data: &[u8],
    create_dirs: bool,
) -> Result<(), BeneathError> {
    platform::write_beneath(root, rel, data, create_dirs, Resolve::Best)
}

/// Opens `rel` beneath the directory `root` for reading, resolving every component from the
/// root (a symlink swapped in after a path check cannot send the open elsewhere; a symlink at
/// the leaf is refused). On Unix the file is opened with `O_NONBLOCK` (and `O_NOCTTY`), so
/// opening a FIFO does not wait for a writer: check the handle's file type before reading.
///
/// # Errors
/// [`BeneathError::Escape`] when `rel` is absolute, has `..`, or resolves outside `root`;
/// [`BeneathError::Io`] for any other failure (a missing file, a symlink leaf).
pub fn open_beneath(root: &Path, rel: &Path) -> Result<File, BeneathError> {
    platform::open_beneath(root, rel, Resolve::Best)
}

/// The one atomic writer of the project: writes `data` to a new temporary file
/// `.prism-write-<16 hex>` in the directory `dir` (mode `0o666` before the umask, or the
/// permission bits of the regular file it replaces), then renames it over `leaf` there; a
/// symlink at `leaf` is replaced, never followed. On any failure the temporary file is removed
/// and `leaf` is untouched.
///
/// # Errors
/// The step that failed (`open`, `create`, `write`, `rename`) and its error.
pub fn replace_in_dir(
    dir: &Path,
    leaf: &OsStr,
    data: &[u8],
) -> Result<(), (&'static str, std::io::Error)> {
    platform::replace_in_dir(dir, leaf, data)
}

/// A fresh temporary file name `.prism-write-<16 hex>`.
fn temp_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    format!(
        ".prism-write-{:016x}",
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    )
}

// The tests make symlinks, so they are Unix-only; they run against both Unix resolvers.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> Self {
            let p = std::env::temp_dir().join(format!(
                "prism-beneath-{tag}-{}-{:x}",
                std::process::id(),
                RandomState::new().build_hasher().finish()
            ));
            let _ = std::fs::create_dir_all(&p);
            Self(p)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_atomic_writer_keeps_modes_and_leaves_no_temp_file() {
        use std::os::unix::fs::PermissionsExt;
        let t = TempDir::new("replace");
        let script = t.0.join("run.sh");
        std::fs::write(&script, "old").ok();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).ok();
        assert!(replace_in_dir(&t.0, OsStr::new("run.sh"), b"new").is_ok());
        assert_eq!(
            std::fs::read_to_string(&script).ok().as_deref(),
            Some("new")
        );
        let mode = std::fs::metadata(&script).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o755));
        // Renaming over a directory fails: the name is untouched and no temp file is left.
        std::fs::create_dir_all(t.0.join("d/inner")).ok();
        let failed = replace_in_dir(&t.0, OsStr::new("d"), b"x");
        assert_eq!(failed.map_err(|(op, _)| op), Err("rename"));
        let names: Vec<_> = std::fs::read_dir(&t.0)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    /// [`write_beneath`] through one resolver.
    fn write_via(
        resolve: Resolve,
        root: &Path,
        rel: &str,
        data: &[u8],
        create: bool,
    ) -> Result<(), BeneathError> {
        platform::write_beneath(root, Path::new(rel), data, create, resolve)
    }

    #[test]
    fn writes_inside_and_refuses_escapes() {
        for resolve in [Resolve::Best, Resolve::Walk] {
            writes_inside_and_refuses_escapes_via(resolve);
        }
    }

    fn writes_inside_and_refuses_escapes_via(resolve: Resolve) {
        let t = TempDir::new("basic");
        let root = t.0.join("root");
        let outside = t.0.join("outside");
        std::fs::create_dir_all(&root).ok();
        std::fs::create_dir_all(&outside).ok();
        assert!(write_via(resolve, &root, "a/b/c.txt", b"hi", true).is_ok());
        assert_eq!(
            std::fs::read(root.join("a/b/c.txt")).ok().as_deref(),
            Some(&b"hi"[..])
        );
        assert!(matches!(
            write_via(resolve, &root, "../x", b"", true),
            Err(BeneathError::Escape { .. })
        ));
        assert!(matches!(
            write_via(resolve, &root, "/etc/x", b"", true),
            Err(BeneathError::Escape { .. })
        ));
        // an ancestor symlink leading outside
        std::os::unix::fs::symlink(&outside, root.join("link")).ok();
        assert!(write_via(resolve, &root, "link/x.txt", b"", false).is_err());
        // a leaf symlink is replaced, not followed
        std::os::unix::fs::symlink(outside.join("leaf.txt"), root.join("leaf.txt")).ok();
        assert!(write_via(resolve, &root, "leaf.txt", b"in", false).is_ok());
        assert!(!outside.join("leaf.txt").exists());
        assert_eq!(std::fs::read_dir(&outside).map(|d| d.count()).ok(), Some(0));
        assert_eq!(
            BeneathError::Escape {
                path: String::new()
            }
            .code(),
            "ERR_PRISM_PATH_ESCAPE"
        );
    }

    /// A directory swapped for a symlink to outside the root 10,000 times while writes go on:
    /// no write may land outside.
    #[test]
    fn swapping_a_directory_for_a_symlink_never_escapes() {
        for resolve in [Resolve::Best, Resolve::Walk] {
            swapping_never_escapes_via(resolve);
        }
    }

    fn swapping_never_escapes_via(resolve: Resolve) {
        let t = TempDir::new("race");
        let root = t.0.join("root");
        let outside = t.0.join("outside");
        std::fs::create_dir_all(root.join("real")).ok();
        std::fs::create_dir_all(&outside).ok();
        std::os::unix::fs::symlink(&outside, root.join("link")).ok();
        let done = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (root, done) = (root.clone(), done.clone());
            std::thread::spawn(move || {
                let sub = root.join("sub");
                for _ in 0..10_000 {
                    let _ = std::fs::rename(root.join("real"), &sub);
                    let _ = std::fs::rename(&sub, root.join("real"));
                    let _ = std::fs::rename(root.join("link"), &sub);
                    let _ = std::fs::rename(&sub, root.join("link"));
                }
                done.store(true, Ordering::SeqCst);
            })
        };
        let (mut ok, mut failed) = (0u32, 0u32);
        while !done.load(Ordering::SeqCst) {
            match write_via(resolve, &root, "sub/f.txt", b"x", false) {
                Ok(()) => ok += 1,
                Err(_) => failed += 1,
            }
        }
        assert!(swapper.join().is_ok());
        let escaped = std::fs::read_dir(&outside)
            .map(|d| d.count())
            .unwrap_or(usize::MAX);
        assert_eq!(escaped, 0, "writes escaped ({ok} ok, {failed} failed)");
        assert!(ok + failed > 0);
    }
}
