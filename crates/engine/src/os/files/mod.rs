//! Files: what the coding tools need from the OS beyond `std::fs`.

use std::fs::{File, FileType, OpenOptions};
use std::path::Path;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

/// Opens `path` to read without waiting: on Unix with `O_NONBLOCK | O_NOCTTY`, so a FIFO
/// without a writer or a terminal neither blocks nor becomes the controlling terminal (check
/// the file type on the handle before reading).
///
/// # Errors
/// The OS error of the open.
pub fn open_read_nonblocking(path: &Path) -> std::io::Result<File> {
    platform::open_read_nonblocking(path)
}

/// How a file type that is neither a regular file nor a directory is named in messages
/// (`FIFO`, `socket`, `character device`, `block device`, else `special file`).
#[must_use]
pub fn special_kind(ft: &FileType) -> &'static str {
    platform::special_kind(ft)
}

/// Makes `opts` create the file readable and writable by its owner only (mode `0600` on
/// Unix; on Windows the file inherits its directory's ACL, the user's temporary directory).
pub fn owner_only(opts: &mut OpenOptions) -> &mut OpenOptions {
    platform::owner_only(opts)
}

/// Whether this process may read and write `path` (`access(R_OK | W_OK)` on Unix; on Windows
/// the file exists and is not read-only).
///
/// # Errors
/// The OS error saying why not.
pub fn check_read_write(path: &Path) -> std::io::Result<()> {
    platform::check_read_write(path)
}

/// The error a path that is a directory gives where a file was expected (`EISDIR`).
#[must_use]
pub fn is_a_directory() -> std::io::Error {
    platform::is_a_directory()
}

/// Node's description of each errno name the coding tools use (the platforms decide which
/// name an error has, this table what it says).
const NODE_ERRNO_DESCRIPTIONS: [(&str, &str); 11] = [
    ("ENOENT", "no such file or directory"),
    ("EACCES", "permission denied"),
    ("EPERM", "operation not permitted"),
    ("EISDIR", "illegal operation on a directory"),
    ("ENOTDIR", "not a directory"),
    ("EEXIST", "file already exists"),
    ("ENOSPC", "no space left on device"),
    ("EROFS", "read-only file system"),
    ("ELOOP", "too many symbolic links encountered"),
    ("ENAMETOOLONG", "name too long"),
    ("ENXIO", "no such device or address"),
];

/// The errno name and Node's description of `err`, for the errors the coding tools name
/// (`ENOENT`, `EACCES`, ...); `None` for any other.
#[must_use]
pub fn errno_name(err: &std::io::Error) -> Option<(&'static str, &'static str)> {
    let name = platform::errno_code(err)?;
    NODE_ERRNO_DESCRIPTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .copied()
}
