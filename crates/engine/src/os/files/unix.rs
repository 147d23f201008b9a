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

pub(super) fn errno_code(err: &std::io::Error) -> Option<&'static str> {
    Some(match err.raw_os_error()? {
        libc::ENOENT => "ENOENT",
        libc::EACCES => "EACCES",
        libc::EPERM => "EPERM",
        libc::EISDIR => "EISDIR",
        libc::ENOTDIR => "ENOTDIR",
        libc::EEXIST => "EEXIST",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::ELOOP => "ELOOP",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::ENXIO => "ENXIO",
        _ => return None,
    })
}
