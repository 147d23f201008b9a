//! Confined opens on Windows, the weaker guarantee the seam documents: each component is
//! checked with `symlink_metadata` and a symlink, junction or any other reparse point is
//! refused as an escape; the leaf is opened without following a reparse point and checked on
//! the handle. The directories are used by path after their check, so one swapped for a
//! junction in between is not caught (Unix resolves from handles and has no such window).

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{split_leaf, temp_name, BeneathError, Resolve};

/// `FILE_ATTRIBUTE_REPARSE_POINT`: symlinks, junctions, mount points, cloud placeholders.
const REPARSE_POINT: u32 = 0x400;
/// `FILE_FLAG_OPEN_REPARSE_POINT`: open the reparse point itself, not what it points to.
const OPEN_REPARSE_POINT: u32 = 0x0020_0000;

fn io(op: &'static str, rel: &Path, source: std::io::Error) -> BeneathError {
    BeneathError::Io {
        op,
        path: rel.display().to_string(),
        source,
    }
}

fn is_reparse(meta: &std::fs::Metadata) -> bool {
    meta.file_attributes() & REPARSE_POINT != 0 || meta.file_type().is_symlink()
}

/// The directory `dirs` beneath `root`, each component checked (made when `create`).
fn open_parent(
    root: &Path,
    dirs: &[&OsStr],
    create: bool,
    rel: &Path,
) -> Result<PathBuf, BeneathError> {
    let mut dir = root.to_path_buf();
    for name in dirs {
        dir.push(name);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if is_reparse(&m) => return Err(BeneathError::escape(rel)),
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(io("open", rel, std::io::ErrorKind::NotADirectory.into())),
            Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(|e| io("mkdir", rel, e))?;
            }
            Err(e) => return Err(io("open", rel, e)),
        }
    }
    Ok(dir)
}

pub(super) fn write_beneath(
    root: &Path,
    rel: &Path,
    data: &[u8],
    create_dirs: bool,
    _resolve: Resolve,
) -> Result<(), BeneathError> {
    let (dirs, leaf) = split_leaf(rel)?;
    let dir = open_parent(root, &dirs, create_dirs, rel)?;
    replace_in_dir(&dir, leaf, data).map_err(|(op, e)| io(op, rel, e))
}

pub(super) fn open_beneath(
    root: &Path,
    rel: &Path,
    _resolve: Resolve,
) -> Result<File, BeneathError> {
    let (dirs, leaf) = split_leaf(rel)?;
    let dir = open_parent(root, &dirs, false, rel)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(OPEN_REPARSE_POINT)
        .open(dir.join(leaf))
        .map_err(|e| io("open", rel, e))?;
    let meta = file.metadata().map_err(|e| io("fstat", rel, e))?;
    if is_reparse(&meta) {
        return Err(io("open", rel, std::io::ErrorKind::InvalidInput.into()));
    }
    Ok(file)
}

pub(super) fn replace_in_dir(
    dir: &Path,
    leaf: &OsStr,
    data: &[u8],
) -> Result<(), (&'static str, std::io::Error)> {
    let target = dir.join(leaf);
    let mut last = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
    for _ in 0..8 {
        let tmp = dir.join(temp_name());
        let mut file = match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                last = e;
                continue;
            }
            Err(e) => return Err(("create", e)),
        };
        let written = file.write_all(data).map_err(|e| ("write", e));
        drop(file);
        let renamed =
            written.and_then(|()| std::fs::rename(&tmp, &target).map_err(|e| ("rename", e)));
        if renamed.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return renamed;
    }
    Err(("create", last))
}
