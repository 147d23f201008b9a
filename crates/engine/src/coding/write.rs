//! The write tool's file operation: an atomic replace of the whole file.

use std::path::Path;

use crate::coding::error::CodingError;
use crate::coding::fsio::write_atomic;

/// Writes `content` to `path` (creating parent directories) atomically.
///
/// # Errors
/// [`CodingError::Io`] naming the failing call; `path` is then unchanged.
pub fn write_file(path: &Path, content: &[u8]) -> Result<(), CodingError> {
    write_atomic(path, content)
}
