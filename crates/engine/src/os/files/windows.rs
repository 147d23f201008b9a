//! Files on Windows: no FIFOs to block on, no mode bits; errors are named from their kind
//! (libuv names the same Win32 errors the same way).

use std::fs::{File, FileType, OpenOptions};
use std::io::ErrorKind;
use std::path::Path;

pub(super) fn open_read_nonblocking(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

pub(super) fn special_kind(_ft: &FileType) -> &'static str {
    "special file"
}

pub(super) fn owner_only(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts
}

pub(super) fn check_read_write(path: &Path) -> std::io::Result<()> {
    if std::fs::metadata(path)?.permissions().readonly() {
        return Err(ErrorKind::PermissionDenied.into());
    }
    Ok(())
}

pub(super) fn is_a_directory() -> std::io::Error {
    ErrorKind::IsADirectory.into()
}

pub(super) fn errno_code(err: &std::io::Error) -> Option<&'static str> {
    Some(match err.kind() {
        ErrorKind::NotFound => "ENOENT",
        ErrorKind::PermissionDenied => "EACCES",
        ErrorKind::IsADirectory => "EISDIR",
        ErrorKind::NotADirectory => "ENOTDIR",
        ErrorKind::AlreadyExists => "EEXIST",
        ErrorKind::StorageFull => "ENOSPC",
        ErrorKind::ReadOnlyFilesystem => "EROFS",
        ErrorKind::InvalidFilename => "ENAMETOOLONG",
        _ => return None,
    })
}
