//! Confined file access for the write and edit tools: once an execution policy has approved a
//! path beneath a trusted root, the file is opened and replaced through a handle of that root
//! (`os::beneath`), so a directory swapped for a symlink after the check cannot redirect
//! the read or the write.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::coding::error::CodingError;
use crate::os::beneath::{open_beneath, write_beneath, BeneathError};

/// A target path held beneath a real root directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    root: PathBuf,
    rel: PathBuf,
    display: String,
}

impl Confined {
    /// `target` (an absolute real path) held beneath `root` (an absolute real directory).
    ///
    /// # Errors
    /// [`CodingError::PathEscape`] when `target` is not beneath `root`.
    pub fn new(root: &Path, target: &Path) -> Result<Self, CodingError> {
        let display = target.to_string_lossy().into_owned();
        match crate::os::paths::beneath(root, target) {
            Some(rel) if !rel.as_os_str().is_empty() => Ok(Self {
                root: root.to_path_buf(),
                rel: rel.to_path_buf(),
                display,
            }),
            _ => Err(CodingError::PathEscape { path: display }),
        }
    }

    /// Opens the file for reading through the root's handle.
    ///
    /// # Errors
    /// [`CodingError::PathEscape`] on an escape, [`CodingError::Io`] otherwise.
    pub fn open(&self) -> Result<File, CodingError> {
        open_beneath(&self.root, &self.rel).map_err(|e| self.error(e))
    }

    /// Replaces the file atomically through the root's handle, creating missing directories.
    ///
    /// # Errors
    /// [`CodingError::PathEscape`] on an escape, [`CodingError::Io`] otherwise; the file is then
    /// unchanged.
    pub fn write(&self, data: &[u8]) -> Result<(), CodingError> {
        write_beneath(&self.root, &self.rel, data, true).map_err(|e| self.error(e))
    }

    fn error(&self, e: BeneathError) -> CodingError {
        match e {
            BeneathError::Io { op, source, .. } => {
                CodingError::io(&source, op, Path::new(&self.display))
            }
            _ => CodingError::PathEscape {
                path: self.display.clone(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn temp_root(tag: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!(
            "prism-confine-{tag}-{}-{}",
            std::process::id(),
            crate::coding::fsio::random_hex(4)
        ));
        let _ = std::fs::create_dir_all(&p);
        crate::os::paths::canonicalize(&p).unwrap_or(p)
    }

    #[test]
    fn writes_and_reads_beneath_the_root() -> Result<(), CodingError> {
        let root = temp_root("ok");
        let c = Confined::new(&root, &root.join("a/b.txt"))?;
        c.write(b"hello")?;
        let mut s = String::new();
        c.open()?
            .read_to_string(&mut s)
            .map_err(|e| CodingError::io(&e, "read", &root))?;
        assert_eq!(s, "hello");
        let _ = std::fs::remove_dir_all(&root);
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn refuses_targets_outside_and_symlinked_directories() -> Result<(), CodingError> {
        let root = temp_root("esc");
        let outside = temp_root("out");
        assert!(matches!(
            Confined::new(&root, &outside.join("x")),
            Err(CodingError::PathEscape { .. })
        ));
        assert!(matches!(
            Confined::new(&root, &root),
            Err(CodingError::PathEscape { .. })
        ));
        std::os::unix::fs::symlink(&outside, root.join("link"))
            .map_err(|e| CodingError::io(&e, "symlink", &root))?;
        let c = Confined::new(&root, &root.join("link/x.txt"))?;
        assert!(matches!(
            c.write(b"no"),
            Err(CodingError::PathEscape { .. })
        ));
        assert!(!outside.join("x.txt").exists());
        std::fs::write(outside.join("secret"), "s")
            .map_err(|e| CodingError::io(&e, "write", &outside))?;
        let r = Confined::new(&root, &root.join("link/secret"))?.open();
        assert!(matches!(r, Err(CodingError::PathEscape { .. })));
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&outside);
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn a_confined_open_refuses_a_fifo_without_blocking() -> Result<(), CodingError> {
        let root = temp_root("fifo");
        let fifo = root.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let confined = Confined::new(&root, &fifo)?;
        let r = crate::coding::fsio::open_regular(&fifo, Some(&confined), "edit", "pipe");
        assert_eq!(
            r.err().map(|e| e.to_string()),
            Some("Refusing to edit pipe: not a regular file (FIFO).".into())
        );
        let _ = std::fs::remove_dir_all(&root);
        Ok(())
    }
}
