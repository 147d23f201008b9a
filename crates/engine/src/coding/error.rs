//! The typed errors of the coding tools. Each carries the facts its message needs; the
//! messages are the reference's strings, and [`CodingError::code`] names each variant.

use crate::coding::size::{format_size, over_size_limit};

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
    #[error("{}", over_size_limit("imageFile", *size, *limit))]
    ImageTooLarge {
        /// Its size in bytes.
        size: u64,
        /// The configured limit.
        limit: u64,
    },
    /// A file for the host's document reader whose size on disk (or after reading) exceeds
    /// the reader's `maxInputBytes`.
    #[error("{}", over_size_limit("document", *size, *limit))]
    DocumentTooLarge {
        /// Its size in bytes.
        size: u64,
        /// The reader's limit.
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
    /// A shell output configuration whose bound is below its tail's byte cap.
    #[error("maxTotalOutputBytes must be at least maxBytes ({max_bytes})")]
    TotalBelowTail {
        /// The configured `maxBytes`.
        max_bytes: u64,
    },
    /// A spill-file prefix outside `[A-Za-z0-9._-]+` (it could name another directory).
    #[error("tempFilePrefix must match /^[A-Za-z0-9._-]+$/")]
    TempPrefix,
    /// A confined write or read (beneath the root the execution policy approved) would leave
    /// that root: a symlink or `..` points outside it, however late it appeared.
    #[error("path escapes its trusted root: {path}")]
    PathEscape {
        /// The path as the tool was given it.
        path: String,
    },
}

impl CodingError {
    /// A stable `ERR_PRISM_*` code for each variant (exhaustive, so a new variant needs its
    /// code); an edit's code names its case.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Io { .. } => "ERR_PRISM_CODING_IO",
            Self::ImageTooLarge { .. } => "ERR_PRISM_CODING_IMAGE_TOO_LARGE",
            Self::DocumentTooLarge { .. } => "ERR_PRISM_CODING_DOCUMENT_TOO_LARGE",
            Self::OffsetBeyondEnd { .. } => "ERR_PRISM_CODING_OFFSET_BEYOND_END",
            Self::ScanLimit { .. } => "ERR_PRISM_CODING_SCAN_LIMIT",
            Self::TextNotFound { .. } => "ERR_PRISM_CODING_TEXT_NOT_FOUND",
            Self::FindScanLimit { .. } => "ERR_PRISM_CODING_FIND_SCAN_LIMIT",
            Self::Backend { .. } => "ERR_PRISM_CODING_BACKEND",
            Self::NotRegularFile { .. } => "ERR_PRISM_CODING_NOT_REGULAR_FILE",
            Self::Edit { kind, .. } => match *kind {
                "not_found" => "ERR_PRISM_CODING_EDIT_NOT_FOUND",
                "ambiguous" => "ERR_PRISM_CODING_EDIT_AMBIGUOUS",
                "overlap" => "ERR_PRISM_CODING_EDIT_OVERLAP",
                "empty_old_text" => "ERR_PRISM_CODING_EDIT_EMPTY_OLD_TEXT",
                "no_change" => "ERR_PRISM_CODING_EDIT_NO_CHANGE",
                "access" => "ERR_PRISM_CODING_EDIT_ACCESS",
                "too_large" => "ERR_PRISM_CODING_EDIT_TOO_LARGE",
                _ => "ERR_PRISM_CODING_EDIT",
            },
            Self::Spawn { .. } => "ERR_PRISM_CODING_SPAWN",
            Self::PathEscape { .. } => "ERR_PRISM_PATH_ESCAPE",
            Self::TotalBelowTail { .. } | Self::TempPrefix => "ERR_PRISM_CODING_INVALID_OPTION",
        }
    }

    /// Whether the failure says the file does not exist (an `ENOENT` filesystem error): the
    /// read tool then reports the path as missing.
    #[must_use]
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Io { code, .. } if code == "ENOENT")
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
    let named = crate::os::files::errno_name(err);
    match named {
        Some((c, d)) => (c.to_owned(), d.to_owned()),
        None => ("EIO".to_owned(), err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_an_err_prism_code() {
        let edit = |kind| CodingError::Edit {
            kind,
            message: String::new(),
        };
        let errors = [
            CodingError::io(
                &std::io::Error::from_raw_os_error(libc::ENOENT),
                "open",
                std::path::Path::new("x"),
            ),
            CodingError::ImageTooLarge { size: 2, limit: 1 },
            CodingError::DocumentTooLarge { size: 2, limit: 1 },
            CodingError::OffsetBeyondEnd {
                offset: 2,
                total: 1,
            },
            CodingError::ScanLimit { limit: 1 },
            CodingError::FindScanLimit { limit: 1 },
            CodingError::Backend {
                message: String::new(),
            },
            CodingError::TextNotFound {
                find_json: String::new(),
                path: String::new(),
            },
            CodingError::Spawn {
                message: String::new(),
            },
            CodingError::PathEscape {
                path: String::new(),
            },
            edit("not_found"),
            edit("too_large"),
        ];
        for e in &errors {
            assert!(e.code().starts_with("ERR_PRISM_"), "{e:?}");
        }
        assert_eq!(errors[0].code(), "ERR_PRISM_CODING_IO");
        assert_eq!(edit("ambiguous").code(), "ERR_PRISM_CODING_EDIT_AMBIGUOUS");
        assert_eq!(edit("new_case").code(), "ERR_PRISM_CODING_EDIT");
    }

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
