//! Confined opens on Linux: `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` resolves a
//! whole directory path beneath the root's handle in the kernel.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, Mode, ResolveFlags};
use rustix::io::Errno;

use super::descriptor::{io, DIR_FLAGS};
use super::BeneathError;

/// The directory `dirs` beneath `root`, or `None` when the walk must decide (a component is
/// missing and may have to be created, or the kernel has no `openat2`).
///
/// # Errors
/// [`BeneathError::Escape`] when the path resolves outside the root; [`BeneathError::Io`].
pub(super) fn open_dir_in_kernel(
    root: &OwnedFd,
    dirs: &[&OsStr],
    rel: &Path,
) -> Result<Option<OwnedFd>, BeneathError> {
    let joined: PathBuf = dirs.iter().collect();
    match rfs::openat2(
        root,
        &joined,
        DIR_FLAGS,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
    ) {
        Ok(fd) => Ok(Some(fd)),
        Err(Errno::NOENT | Errno::NOSYS | Errno::PERM) => Ok(None),
        Err(e) => Err(io("openat2", rel, e)),
    }
}
