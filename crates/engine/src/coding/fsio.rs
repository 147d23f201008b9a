//! Filesystem helpers shared by the coding tools: random names, bounded reads and the atomic
//! write (temp file in the same directory, then rename).

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

use crate::coding::confine::Confined;
use crate::coding::error::CodingError;
use crate::os::files;

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

/// Opens `path` for reading (beneath its root when `confined`) and returns it with its size,
/// when it is a regular file. It is opened with `O_NONBLOCK` and checked on the handle, so a
/// FIFO without a writer, a socket or a device is refused before anything could block on it
/// (`op` and `display` name the tool and the path in the message); a directory is `EISDIR`.
///
/// # Errors
/// [`CodingError::Io`], [`CodingError::PathEscape`], [`CodingError::NotRegularFile`].
pub fn open_regular(
    path: &Path,
    confined: Option<&Confined>,
    op: &'static str,
    display: &str,
) -> Result<(File, u64), CodingError> {
    let opened = match confined {
        Some(c) => c.open(),
        None => files::open_read_nonblocking(path).map_err(|e| CodingError::io(&e, "open", path)),
    };
    let file = match opened {
        Ok(f) => f,
        // A socket (or a device without a driver) cannot be opened at all: say what it is.
        Err(CodingError::Io { code, .. }) if code == "ENXIO" => {
            let kind =
                fs::metadata(path).map_or("special file", |m| files::special_kind(&m.file_type()));
            return Err(CodingError::NotRegularFile {
                op,
                path: display.to_owned(),
                kind,
            });
        }
        Err(e) => return Err(e),
    };
    let meta = file
        .metadata()
        .map_err(|e| CodingError::io(&e, "fstat", path))?;
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok((file, meta.len()));
    }
    if ft.is_dir() {
        return Err(CodingError::io(&files::is_a_directory(), "read", path));
    }
    Err(CodingError::NotRegularFile {
        op,
        path: display.to_owned(),
        kind: files::special_kind(&ft),
    })
}

/// Reads at most `limit + 1` bytes from `file` (so a caller sees that it is over `limit`).
/// `expected` is how many bytes the caller expects (the size on the handle): room for them is
/// made first, so a small file takes one read and the read that finds its end, where a
/// growing buffer would start at 32 bytes and take nine reads for 4 KB.
///
/// # Errors
/// [`CodingError::Io`] when a read fails.
pub fn read_bounded(
    file: &mut File,
    limit: u64,
    expected: u64,
    path: &Path,
) -> Result<Vec<u8>, CodingError> {
    let room = usize::try_from(expected.min(limit).saturating_add(1)).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    // A hint only: a size the allocator refuses leaves the buffer to grow as it reads.
    let _ = out.try_reserve_exact(room);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| CodingError::io(&e, "read", path))?;
    Ok(out)
}

/// Writes `data` to `path` atomically: creates the parent directories, then replaces the file
/// through [`crate::os::beneath::replace_in_dir`] in its directory (the project's one atomic
/// writer: a temp file `.prism-write-<16hex>` keeping the old file's permissions, renamed over
/// the name). A symlink to an existing file is written through: its target is replaced. On any
/// failure the temp file is removed and `path` is untouched.
///
/// # Errors
/// [`CodingError::Io`] naming the failing call.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), CodingError> {
    // A symlink to an existing file is written through (the link stays a link), as a plain
    // `writeFile` would; renaming over the link itself would replace it with a regular file.
    let real = crate::os::paths::canonicalize(path).ok();
    let path = real.as_deref().unwrap_or(path);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Some(leaf) = path.file_name() else {
        return Err(CodingError::io(&files::is_a_directory(), "open", path));
    };
    fs::create_dir_all(dir).map_err(|e| CodingError::io(&e, "mkdir", dir))?;
    crate::os::beneath::replace_in_dir(dir, leaf, data).map_err(|(op, e)| {
        let at = if op == "open" { dir } else { path };
        CodingError::io(&e, op, at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("prism-fsio-{tag}-{}", random_hex(4)));
        let _ = fs::create_dir_all(&d);
        d
    }

    #[test]
    fn read_bounded_reads_at_most_one_byte_past_the_limit_whatever_the_expected_size() {
        let d = temp_dir("bounded");
        let p = d.join("f");
        let _ = fs::write(&p, b"0123456789");
        // (limit, expected): as expected, a file that grew, one that shrank, a huge hint.
        for (limit, expected, want) in [
            (100, 10, &b"0123456789"[..]),
            (100, 4, &b"0123456789"[..]),
            (100, 50, &b"0123456789"[..]),
            (4, 10, &b"01234"[..]),
            (4, u64::MAX, &b"01234"[..]),
        ] {
            let got = File::open(&p)
                .map_err(|e| CodingError::io(&e, "open", &p))
                .and_then(|mut f| read_bounded(&mut f, limit, expected, &p));
            assert_eq!(
                got.ok().as_deref(),
                Some(want),
                "limit {limit}, expected {expected}"
            );
        }
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn random_hex_has_the_asked_length() {
        assert_eq!(random_hex(8).len(), 16);
        assert_eq!(random_hex(16).len(), 32);
        assert_ne!(random_hex(16), random_hex(16));
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

    #[cfg(unix)]
    #[test]
    fn only_regular_files_open_for_reading() -> Result<(), CodingError> {
        let d = temp_dir("reg");
        let fifo = d.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let kind = |p: &Path| match open_regular(p, None, "read", "shown") {
            Err(CodingError::NotRegularFile { kind, path, op }) => {
                assert_eq!((path.as_str(), op), ("shown", "read"));
                kind
            }
            Err(e) => panic!("{e}"),
            Ok(_) => "regular",
        };
        // No writer ever opens the FIFO: a blocking open would hang here.
        assert_eq!(kind(&fifo), "FIFO");
        let sock = d.join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock)
            .map_err(|e| CodingError::io(&e, "bind", &sock))?;
        assert_eq!(kind(&sock), "socket");
        assert_eq!(kind(Path::new("/dev/null")), "character device");
        fs::write(d.join("f"), "x").map_err(|e| CodingError::io(&e, "write", &d))?;
        assert_eq!(kind(&d.join("f")), "regular");
        let dir = open_regular(&d, None, "read", "d")
            .err()
            .map(|e| e.to_string());
        assert!(dir.is_some_and(|m| m.starts_with("EISDIR")));
        let _ = fs::remove_dir_all(&d);
        Ok(())
    }
}
