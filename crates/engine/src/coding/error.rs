//! The typed errors of the coding tools. Each carries the facts its message needs; the
//! messages are the reference's strings, and [`CodingError::code`] names each variant.

use crate::coding::size::format_size;

/// Why a coding operation failed. The `Display` text is the tool result's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodingError {
    /// A filesystem call failed; the message reads like Node's (`ENOENT: no such file or
    /// directory, open '<path>'`).
    #[error("{code}: {description}, {syscall} '{path}'")]
    Io {
        /// The errno name (`ENOENT`, `EACCES`, ...).
        code: String,
        /// The errno's description.
        description: String,
        /// The failing call (`open`, `access`, `rename`, ...).
        syscall: &'static str,
        /// The path it was called on.
        path: String,
    },
    /// An image whose size on disk (or after reading) exceeds `maxImageBytes`.
    #[error("Image file is {}, exceeds {} limit.", format_size(*size), format_size(*limit))]
    ImageTooLarge {
        /// Its size in bytes.
        size: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The requested offset lies past the last line.
    #[error("Offset {offset} is beyond end of file ({total} lines total)")]
    OffsetBeyondEnd {
        /// The 1-based line requested.
        offset: u64,
        /// Lines in the file.
        total: u64,
    },
    /// The scan bound was reached before the requested page.
    #[error("Text read exceeded {} scan limit before reaching the requested page", format_size(*limit))]
    ScanLimit {
        /// The configured `maxScanBytes`.
        limit: u64,
    },
    /// `findText` was not found before the scan bound.
    #[error("findText did not match within {} scan limit", format_size(*limit))]
    FindScanLimit {
        /// The configured `maxScanBytes`.
        limit: u64,
    },
    /// A host backend's page (`ReadOperations.readText`) broke the bounds it was asked for, or
    /// `findText` paging could not advance through it.
    #[error("{message}")]
    Backend {
        /// What was wrong.
        message: String,
    },
    /// The path names a FIFO, socket or device: reading it could block or never end, so it is
    /// refused before any read.
    #[error("Refusing to {op} {path}: not a regular file ({kind}).")]
    NotRegularFile {
        /// `read` or `edit`.
        op: &'static str,
        /// The path as the caller gave it.
        path: String,
        /// `FIFO`, `socket`, `character device`, `block device` or `special file`.
        kind: &'static str,
    },
    /// `findText` does not occur in the file.
    #[error("Could not find {find_json} in {path}.")]
    TextNotFound {
        /// The searched text as `JSON.stringify` prints it.
        find_json: String,
        /// The path as the caller gave it.
        path: String,
    },
    /// An edit could not proceed; the message is the reference's text for the case.
    #[error("{message}")]
    Edit {
        /// Which case (`not_found`, `ambiguous`, `overlap`, `empty_old_text`, `no_change`,
        /// `access`, `too_large`).
        kind: &'static str,
        /// The reference's message.
        message: String,
    },
    /// The shell, or the working directory, could not be used.
    #[error("{message}")]
    Spawn {
        /// The reference's message.
        message: String,
    },
    /// A confined write or read (beneath the root the execution policy approved) would leave
    /// that root: a symlink or `..` points outside it, however late it appeared.
    #[error("path escapes its trusted root: {path}")]
    PathEscape {
        /// The path as the tool was given it.
        path: String,
    },
}

impl CodingError {
    /// A stable code for each variant (exhaustive, so a new variant needs its code).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Io { .. } => "io",
            Self::ImageTooLarge { .. } => "image_too_large",
            Self::OffsetBeyondEnd { .. } => "offset_beyond_end",
            Self::ScanLimit { .. } => "scan_limit",
            Self::TextNotFound { .. } => "text_not_found",
            Self::FindScanLimit { .. } => "find_scan_limit",
            Self::Backend { .. } => "backend",
            Self::NotRegularFile { .. } => "not_regular_file",
            Self::Edit { kind, .. } => kind,
            Self::Spawn { .. } => "spawn",
            Self::PathEscape { .. } => "path_escape",
        }
    }

    /// An [`CodingError::Io`] from a `std::io::Error` of `syscall` on `path`.
    #[must_use]
    pub fn io(err: &std::io::Error, syscall: &'static str, path: &std::path::Path) -> Self {
        let (code, description) = errno_name(err);
        Self::Io {
            code,
            description,
            syscall,
            path: path.to_string_lossy().into_owned(),
        }
    }
}

/// The errno name and description of `err`, as Node spells them.
fn errno_name(err: &std::io::Error) -> (String, String) {
    let named = match err.raw_os_error() {
        Some(libc::ENOENT) => Some(("ENOENT", "no such file or directory")),
        Some(libc::EACCES) => Some(("EACCES", "permission denied")),
        Some(libc::EPERM) => Some(("EPERM", "operation not permitted")),
        Some(libc::EISDIR) => Some(("EISDIR", "illegal operation on a directory")),
        Some(libc::ENOTDIR) => Some(("ENOTDIR", "not a directory")),
        Some(libc::EEXIST) => Some(("EEXIST", "file already exists")),
        Some(libc::ENOSPC) => Some(("ENOSPC", "no space left on device")),
        Some(libc::EROFS) => Some(("EROFS", "read-only file system")),
        Some(libc::ELOOP) => Some(("ELOOP", "too many symbolic links encountered")),
        Some(libc::ENAMETOOLONG) => Some(("ENAMETOOLONG", "name too long")),
        Some(libc::ENXIO) => Some(("ENXIO", "no such device or address")),
        _ => None,
    };
    match named {
        Some((c, d)) => (c.to_owned(), d.to_owned()),
        None => ("EIO".to_owned(), err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_the_reference() {
        assert_eq!(
            CodingError::ImageTooLarge {
                size: 10_000_001,
                limit: 10_000_000
            }
            .to_string(),
            "Image file is 9.5MB, exceeds 9.5MB limit."
        );
        assert_eq!(
            CodingError::OffsetBeyondEnd {
                offset: 5,
                total: 3
            }
            .to_string(),
            "Offset 5 is beyond end of file (3 lines total)"
        );
        assert_eq!(
            CodingError::ScanLimit { limit: 64 << 20 }.to_string(),
            "Text read exceeded 64.0MB scan limit before reaching the requested page"
        );
        assert_eq!(
            CodingError::FindScanLimit { limit: 50 }.to_string(),
            "findText did not match within 50B scan limit"
        );
        assert_eq!(
            CodingError::NotRegularFile {
                op: "read",
                path: "p".into(),
                kind: "FIFO"
            }
            .to_string(),
            "Refusing to read p: not a regular file (FIFO)."
        );
        let e = std::io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(
            CodingError::io(&e, "open", std::path::Path::new("/x")).to_string(),
            "ENOENT: no such file or directory, open '/x'"
        );
    }
}
