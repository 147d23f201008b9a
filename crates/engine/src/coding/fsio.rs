//! Filesystem helpers shared by the coding tools: random names, bounded reads and the atomic
//! write (temp file in the same directory, then rename).

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::coding::error::CodingError;

/// `bytes` random bytes as lowercase hex (`2 * bytes` characters), from the OS generator.
#[must_use]
pub fn random_hex(bytes: usize) -> String {
    let mut raw = vec![0u8; bytes];
    if getrandom::fill(&mut raw).is_err() {
        // The OS generator is unavailable: fall back to the std hasher's per-process random
        // keys. The name only has to be unguessable enough not to collide; `create_new`
        // (O_EXCL) guards the rest.
        use std::hash::{BuildHasher, Hasher};
        for chunk in raw.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            let v = h.finish().to_le_bytes();
            let n = chunk.len();
            chunk.copy_from_slice(&v[..n]);
        }
    }
    raw.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads at most `limit + 1` bytes from `file` (so a caller sees that it is over `limit`).
///
/// # Errors
/// [`CodingError::Io`] when a read fails.
pub fn read_bounded(file: &mut File, limit: u64, path: &Path) -> Result<Vec<u8>, CodingError> {
    let mut out = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| CodingError::io(&e, "read", path))?;
    Ok(out)
}

/// Writes `data` to `path` atomically: creates the parent directories, writes a temp file
/// `.prism-write-<16hex>` in the same directory (keeping the old file's permissions), then
/// renames it over `path` (over the target of `path` when it is a symlink to an existing
/// file). On any failure the temp file is removed and `path` is untouched.
///
/// # Errors
/// [`CodingError::Io`] naming the failing call.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), CodingError> {
    // A symlink to an existing file is written through (the link stays a link), as a plain
    // `writeFile` would; renaming over the link itself would replace it with a regular file.
    let real = fs::canonicalize(path).ok();
    let path = real.as_deref().unwrap_or(path);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(dir).map_err(|e| CodingError::io(&e, "mkdir", dir))?;
    let (tmp, mut file) = create_temp_beside(dir)?;
    let result = (|| {
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())
                .map_err(|e| CodingError::io(&e, "chmod", &tmp))?;
        }
        file.write_all(data)
            .map_err(|e| CodingError::io(&e, "write", &tmp))?;
        drop(file);
        fs::rename(&tmp, path).map_err(|e| CodingError::io(&e, "rename", path))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates a new, exclusive temp file `.prism-write-<16hex>` in `dir`.
fn create_temp_beside(dir: &Path) -> Result<(PathBuf, File), CodingError> {
    let mut last = None;
    for _ in 0..8 {
        let tmp = dir.join(format!(".prism-write-{}", random_hex(8)));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some((e, tmp)),
            Err(e) => return Err(CodingError::io(&e, "open", &tmp)),
        }
    }
    let (e, tmp) = last.unwrap_or_else(|| {
        (
            std::io::Error::from_raw_os_error(libc::EEXIST),
            dir.to_path_buf(),
        )
    });
    Err(CodingError::io(&e, "open", &tmp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("prism-fsio-{tag}-{}", random_hex(4)));
        let _ = fs::create_dir_all(&d);
        d
    }

    #[test]
    fn random_hex_has_the_asked_length() {
        assert_eq!(random_hex(8).len(), 16);
        assert_eq!(random_hex(16).len(), 32);
        assert_ne!(random_hex(16), random_hex(16));
    }

    #[test]
    fn temp_files_are_named_prism_write_16hex_beside_the_target() -> Result<(), CodingError> {
        let d = temp_dir("t");
        let (tmp, _file) = create_temp_beside(&d)?;
        let name = tmp
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert_eq!(tmp.parent(), Some(d.as_path()));
        assert!(
            name.starts_with(".prism-write-") && name.len() == 13 + 16,
            "{name}"
        );
        assert!(name[13..].chars().all(|c| c.is_ascii_hexdigit()));
        let _ = fs::remove_dir_all(&d);
        Ok(())
    }

    #[test]
    fn write_atomic_creates_parents_and_leaves_no_temp() -> Result<(), CodingError> {
        let d = temp_dir("w");
        let p = d.join("a/b/c.txt");
        write_atomic(&p, b"one")?;
        write_atomic(&p, b"two")?;
        assert_eq!(fs::read(&p).ok(), Some(b"two".to_vec()));
        let names: Vec<_> = fs::read_dir(d.join("a/b"))
            .map(|r| r.filter_map(Result::ok).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert_eq!(names.len(), 1);
        let _ = fs::remove_dir_all(&d);
        Ok(())
    }
}
