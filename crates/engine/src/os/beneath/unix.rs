//! Confined opens on every Unix: from the root's directory handle, one component at a time
//! with `O_NOFOLLOW | O_DIRECTORY` (Linux first tries `openat2`, [`super::linux`]), and the
//! atomic writer on the final directory's handle.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{self as rfs, Mode, OFlags, CWD};
use rustix::io::Errno;

use super::descriptor::{io, DIR_FLAGS};
use super::{split_leaf, temp_name, BeneathError, Resolve};

/// The kernel's own beneath-resolution, where there is one: `None` to fall back to the walk.
#[cfg(target_os = "linux")]
use super::linux::open_dir_in_kernel;
#[cfg(not(target_os = "linux"))]
fn open_dir_in_kernel(
    _root: &OwnedFd,
    _dirs: &[&OsStr],
    _rel: &Path,
) -> Result<Option<OwnedFd>, BeneathError> {
    Ok(None)
}

/// Opens the directory `dirs` beneath `root` (creating missing ones when `create`).
fn open_dir(
    root: &OwnedFd,
    dirs: &[&OsStr],
    create: bool,
    rel: &Path,
    resolve: Resolve,
) -> Result<OwnedFd, BeneathError> {
    if resolve == Resolve::Best && !dirs.is_empty() {
        if let Some(fd) = open_dir_in_kernel(root, dirs, rel)? {
            return Ok(fd);
        }
    }
    // The O_NOFOLLOW walk: one component at a time from the root handle.
    let mut dir =
        rfs::openat(root, ".", DIR_FLAGS, Mode::empty()).map_err(|e| io("open", rel, e))?;
    for name in dirs {
        if create {
            match rfs::mkdirat(&dir, *name, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(io("mkdir", rel, e)),
            }
        }
        dir = rfs::openat(&dir, *name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())
            .map_err(|e| io("open", rel, e))?;
    }
    Ok(dir)
}

/// The directory handle of `rel`'s parent beneath `root` (made when `create_dirs`), and the
/// final component's name.
fn open_parent<'a>(
    root: &Path,
    rel: &'a Path,
    create_dirs: bool,
    resolve: Resolve,
) -> Result<(OwnedFd, &'a OsStr), BeneathError> {
    let (dirs, leaf) = split_leaf(rel)?;
    let root_fd =
        rfs::openat(CWD, root, DIR_FLAGS, Mode::empty()).map_err(|e| io("open root", root, e))?;
    let dir = open_dir(&root_fd, &dirs, create_dirs, rel, resolve)?;
    Ok((dir, leaf))
}

pub(super) fn write_beneath(
    root: &Path,
    rel: &Path,
    data: &[u8],
    create_dirs: bool,
    resolve: Resolve,
) -> Result<(), BeneathError> {
    let (dir, leaf) = open_parent(root, rel, create_dirs, resolve)?;
    replace_at(&dir, leaf, data).map_err(|(op, e)| io(op, rel, e))
}

pub(super) fn open_beneath(
    root: &Path,
    rel: &Path,
    resolve: Resolve,
) -> Result<File, BeneathError> {
    let (dir, leaf) = open_parent(root, rel, false, resolve)?;
    let fd = rfs::openat(
        &dir,
        leaf,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
        Mode::empty(),
    )
    .map_err(|e| io("open", rel, e))?;
    Ok(File::from(fd))
}

pub(super) fn replace_in_dir(
    dir: &Path,
    leaf: &OsStr,
    data: &[u8],
) -> Result<(), (&'static str, std::io::Error)> {
    let handle = rfs::openat(CWD, dir, DIR_FLAGS, Mode::empty()).map_err(|e| ("open", e.into()))?;
    replace_at(&handle, leaf, data).map_err(|(op, e)| (op, e.into()))
}

/// [`super::replace_in_dir`] on a directory handle.
fn replace_at(dir: &impl AsFd, leaf: &OsStr, data: &[u8]) -> Result<(), (&'static str, Errno)> {
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
        let tmp = temp_name();
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
