//! Files on Unix.

use std::fs::{File, FileType, OpenOptions};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

pub(super) fn open_read_nonblocking(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

pub(super) fn special_kind(ft: &FileType) -> &'static str {
    if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

pub(super) fn owner_only(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts.mode(0o600)
}

pub(super) fn check_read_write(path: &Path) -> std::io::Result<()> {
    use rustix::fs::{access, Access};
    access(path, Access::READ_OK | Access::WRITE_OK).map_err(Into::into)
}

pub(super) fn is_a_directory() -> std::io::Error {
    std::io::Error::from_raw_os_error(libc::EISDIR)
}

pub(super) fn errno_name(err: &std::io::Error) -> Option<(&'static str, &'static str)> {
    Some(match err.raw_os_error()? {
        libc::ENOENT => ("ENOENT", "no such file or directory"),
        libc::EACCES => ("EACCES", "permission denied"),
        libc::EPERM => ("EPERM", "operation not permitted"),
        libc::EISDIR => ("EISDIR", "illegal operation on a directory"),
        libc::ENOTDIR => ("ENOTDIR", "not a directory"),
        libc::EEXIST => ("EEXIST", "file already exists"),
        libc::ENOSPC => ("ENOSPC", "no space left on device"),
        libc::EROFS => ("EROFS", "read-only file system"),
        libc::ELOOP => ("ELOOP", "too many symbolic links encountered"),
        libc::ENAMETOOLONG => ("ENAMETOOLONG", "name too long"),
        libc::ENXIO => ("ENXIO", "no such device or address"),
        _ => return None,
    })
}
