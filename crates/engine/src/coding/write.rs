//! The write tool's file operation: an atomic replace of the whole file.

use std::path::Path;

use crate::coding::confine::Confined;
use crate::coding::error::CodingError;
use crate::coding::fsio::write_atomic;

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
