//! The write tool's file operation: an atomic replace of the whole file.

use std::path::Path;

use crate::coding::confine::Confined;
use crate::coding::error::CodingError;
use crate::coding::fsio::write_atomic;

/// Lines of a written text as the write tool reports them: none for empty content, else one
/// more than its line feeds.
#[must_use]
pub fn line_count(content: &str) -> u64 {
    if content.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', content.as_bytes()).count() as u64 + 1
    }
}

/// The text of a successful write: `Successfully wrote <bytes> bytes (<lines> lines) to <path>`.
#[must_use]
pub fn summary(bytes: u64, lines: u64, path: &str) -> String {
    format!("Successfully wrote {bytes} bytes ({lines} lines) to {path}")
}

/// Writes `content` to `path` (creating parent directories) atomically; with `confined`,
/// through the handle of the root the execution policy approved instead of by path.
///
/// # Errors
/// [`CodingError::Io`] naming the failing call, [`CodingError::PathEscape`] when a confined
/// write would leave its root; `path` is then unchanged.
pub fn write_file(
    path: &Path,
    content: &[u8],
    confined: Option<&Confined>,
) -> Result<(), CodingError> {
    match confined {
        Some(c) => c.write(content),
        None => write_atomic(path, content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_the_reference_splits_them() {
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("a"), 1);
        assert_eq!(line_count("a\n"), 2);
        assert_eq!(line_count("\n\n"), 3);
        assert_eq!(
            summary(3, 2, "/x"),
            "Successfully wrote 3 bytes (2 lines) to /x"
        );
    }
}
