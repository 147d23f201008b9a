//! The Unix pieces both the component walk ([`super::unix`]) and Linux's `openat2`
//! ([`super::linux`]) use: the flags a directory is opened with and how an errno reads.

use std::path::Path;

use rustix::fs::OFlags;
use rustix::io::Errno;

use super::BeneathError;

/// `e` from `op` on `path` as a [`BeneathError`] (`EXDEV`, a resolution that left the root,
/// is an escape).
pub(super) fn io(op: &'static str, path: &Path, e: Errno) -> BeneathError {
    if e == Errno::XDEV {
        return BeneathError::escape(path);
    }
    BeneathError::Io {
        op,
        path: path.display().to_string(),
        source: e.into(),
    }
}

/// How a directory on the way to a confined path is opened.
pub(super) const DIR_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::CLOEXEC)
    .union(OFlags::RDONLY);
