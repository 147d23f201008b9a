//! Writing files beneath a root directory, immune to symlinks swapped in after a path check.
//!
//! Every step resolves from a directory handle of the root: `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` where the kernel has it (symlinks that stay inside
//! the root are followed, any escape fails with `EXDEV`), otherwise a walk that opens one
//! component at a time with `O_NOFOLLOW | O_DIRECTORY`. The file is written to a temporary
//! name in the final directory handle and renamed over the target there, so a symlink at the
//! leaf is replaced, never followed. The coding write and edit tools build on this.

use std::collections::hash_map::RandomState;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{self as rfs, Mode, OFlags, ResolveFlags, CWD};
use rustix::io::Errno;

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
}

fn io(op: &'static str, path: &Path, e: Errno) -> BeneathError {
    if e == Errno::XDEV {
        return BeneathError::Escape {
            path: path.display().to_string(),
        };
    }
    BeneathError::Io {
        op,
        path: path.display().to_string(),
        source: e.into(),
    }
}

/// The plain components of `rel`, or an escape error for an absolute path or `..`.
fn components(rel: &Path) -> Result<Vec<&std::ffi::OsStr>, BeneathError> {
    rel.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::Normal(s) => Ok(s),
            _ => Err(BeneathError::Escape {
                path: rel.display().to_string(),
            }),
        })
        .collect()
}

/// Opens the directory `dirs` beneath `root` (creating missing ones when `create`).
fn open_dir(
    root: &OwnedFd,
    dirs: &[&std::ffi::OsStr],
    create: bool,
    rel: &Path,
) -> Result<OwnedFd, BeneathError> {
    let dir_flags = OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::RDONLY;
    if !dirs.is_empty() {
        let joined: std::path::PathBuf = dirs.iter().collect();
        match rfs::openat2(
            root,
            &joined,
            dir_flags,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => return Ok(fd),
            Err(Errno::NOENT | Errno::NOSYS | Errno::PERM) => {}
            Err(e) => return Err(io("openat2", rel, e)),
        }
    }
    // The O_NOFOLLOW walk: one component at a time from the root handle.
    let mut dir =
        rfs::openat(root, ".", dir_flags, Mode::empty()).map_err(|e| io("open", rel, e))?;
    for name in dirs {
        if create {
            match rfs::mkdirat(&dir, *name, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(io("mkdir", rel, e)),
            }
        }
        dir = rfs::openat(&dir, *name, dir_flags | OFlags::NOFOLLOW, Mode::empty())
            .map_err(|e| io("open", rel, e))?;
    }
    Ok(dir)
}

/// The directory handle of `rel`'s parent beneath `root` (made when `create_dirs`), and the
/// final component's name.
fn open_parent(
    root: &Path,
    rel: &Path,
    create_dirs: bool,
) -> Result<(OwnedFd, std::ffi::OsString), BeneathError> {
    let parts = components(rel)?;
    let Some((leaf, dirs)) = parts.split_last() else {
        return Err(BeneathError::Escape {
            path: rel.display().to_string(),
        });
    };
    let root_fd = rfs::openat(
        CWD,
        root,
        OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::RDONLY,
        Mode::empty(),
    )
    .map_err(|e| io("open root", root, e))?;
    let dir = open_dir(&root_fd, dirs, create_dirs, rel)?;
    Ok((dir, (*leaf).to_os_string()))
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
    let (dir, leaf) = open_parent(root, rel, create_dirs)?;
    replace_in_dir(&dir, &leaf, data).map_err(|(op, e)| io(op, rel, e))
}

/// The one atomic writer of the project: writes `data` to a new temporary file
/// `.prism-write-<16 hex>` in the directory `dir` (mode `0o666` before the umask, or the
/// permission bits of the regular file it replaces), then renames it over `leaf` there; a
/// symlink at `leaf` is replaced, never followed. On any failure the temporary file is removed
/// and `leaf` is untouched.
///
/// # Errors
/// The step that failed (`create`, `write`, `rename`) and its error.
pub fn replace_in_dir(
    dir: &impl AsFd,
    leaf: &std::ffi::OsStr,
    data: &[u8],
) -> Result<(), (&'static str, Errno)> {
    let (tmp, fd) = create_temp(dir)?;
    // A replaced regular file keeps its permission bits (an edited script stays executable).
    if let Ok(st) = rfs::statat(dir, leaf, rfs::AtFlags::SYMLINK_NOFOLLOW) {
        if rfs::FileType::from_raw_mode(st.st_mode) == rfs::FileType::RegularFile {
            let _ = rfs::fchmod(&fd, Mode::from_raw_mode(st.st_mode & 0o7777));
        }
    }
    let mut file = File::from(fd);
    let written = file.write_all(data);
    drop(file);
    let renamed = written
        .map_err(|e| ("write", Errno::from_io_error(&e).unwrap_or(Errno::IO)))
        .and_then(|()| rfs::renameat(dir, &tmp, dir, leaf).map_err(|e| ("rename", e)));
    if renamed.is_err() {
        let _ = rfs::unlinkat(dir.as_fd(), &tmp, rfs::AtFlags::empty());
    }
    renamed
}

/// A new, exclusive temporary file in `dir` (a few names are tried if one is taken).
fn create_temp(dir: &impl AsFd) -> Result<(String, OwnedFd), (&'static str, Errno)> {
    let mut last = Errno::EXIST;
    for _ in 0..8 {
        let tmp = format!(
            ".prism-write-{:016x}",
            RandomState::new().build_hasher().finish()
        );
        match rfs::openat(
            dir,
            &tmp,
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => return Ok((tmp, fd)),
            Err(Errno::EXIST) => last = Errno::EXIST,
            Err(e) => return Err(("create", e)),
        }
    }
    Err(("create", last))
}

/// Opens `rel` beneath the directory `root` for reading, resolving every component from the
/// root's handle (a symlink swapped in after a path check cannot send the open elsewhere; a
/// symlink at the leaf is refused). The file is opened with `O_NONBLOCK` (and `O_NOCTTY`), so
/// opening a FIFO does not wait for a writer: check the handle's file type before reading.
///
/// # Errors
/// [`BeneathError::Escape`] when `rel` is absolute, has `..`, or resolves outside `root`;
/// [`BeneathError::Io`] for any other failure (a missing file, a symlink leaf).
pub fn open_beneath(root: &Path, rel: &Path) -> Result<File, BeneathError> {
    let (dir, leaf) = open_parent(root, rel, false)?;
    let leaf = leaf.as_os_str();
    let fd = rfs::openat(
        &dir,
        leaf,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
        Mode::empty(),
    )
    .map_err(|e| io("open", rel, e))?;
    Ok(File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let dir = File::open(&t.0).map(OwnedFd::from);
        let Ok(dir) = dir else { return };
        assert!(replace_in_dir(&dir, std::ffi::OsStr::new("run.sh"), b"new").is_ok());
        assert_eq!(
            std::fs::read_to_string(&script).ok().as_deref(),
            Some("new")
        );
        let mode = std::fs::metadata(&script).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o755));
        // Renaming over a directory fails: the name is untouched and no temp file is left.
        std::fs::create_dir_all(t.0.join("d/inner")).ok();
        let failed = replace_in_dir(&dir, std::ffi::OsStr::new("d"), b"x");
        assert_eq!(failed.map_err(|(op, _)| op), Err("rename"));
        let names: Vec<_> = std::fs::read_dir(&t.0)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn writes_inside_and_refuses_escapes() {
        let t = TempDir::new("basic");
        let root = t.0.join("root");
        let outside = t.0.join("outside");
        std::fs::create_dir_all(&root).ok();
        std::fs::create_dir_all(&outside).ok();
        assert!(write_beneath(&root, Path::new("a/b/c.txt"), b"hi", true).is_ok());
        assert_eq!(
            std::fs::read(root.join("a/b/c.txt")).ok().as_deref(),
            Some(&b"hi"[..])
        );
        assert!(matches!(
            write_beneath(&root, Path::new("../x"), b"", true),
            Err(BeneathError::Escape { .. })
        ));
        assert!(matches!(
            write_beneath(&root, Path::new("/etc/x"), b"", true),
            Err(BeneathError::Escape { .. })
        ));
        // an ancestor symlink leading outside
        std::os::unix::fs::symlink(&outside, root.join("link")).ok();
        assert!(write_beneath(&root, Path::new("link/x.txt"), b"", false).is_err());
        // a leaf symlink is replaced, not followed
        std::os::unix::fs::symlink(outside.join("leaf.txt"), root.join("leaf.txt")).ok();
        assert!(write_beneath(&root, Path::new("leaf.txt"), b"in", false).is_ok());
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
            match write_beneath(&root, Path::new("sub/f.txt"), b"x", false) {
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
