//! Realpath containment of the approval policy (API.md section 9 step 3, Decision 8): where a
//! path really is, and which root, if any, holds it.
//!
//! Paths come in absolute and lexically normalised (the facade resolves them with Node's
//! `path.resolve`, so relative paths and `..` read as they do for every Node API); roots may be
//! relative (to the working directory) and are resolved with `realpath`. Every failure to
//! resolve fails closed: the path is inside nothing.
//!
//! Real paths are compared in one spelling and reported in another (`os::paths`): on Windows
//! a root and a target come back as `C:\x`, never `\\?\C:\x`.

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::limits::POLICY_MAX_SYMLINKS;
use crate::os::paths;

/// `path` with `.` and `..` components folded lexically (`..` at the root stays at the root).
#[must_use]
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `target` is `root` or beneath it, comparing whole components of two absolute,
/// normalised paths (no filesystem access).
#[must_use]
pub fn is_inside(root: &Path, target: &Path) -> bool {
    target.starts_with(root)
}

/// Where `target` really is: its `realpath` when it exists; for a missing final component,
/// `realpath(parent)/name` (a missing parent is an error); for a dangling symlink, where its
/// target really is, following up to [`POLICY_MAX_SYMLINKS`] links. In the spelling paths are
/// compared in ([`paths::comparable`]); report it through [`paths::reported`].
///
/// # Errors
/// The path cannot be resolved (a missing parent, a link loop, too many links, no name).
pub fn real_location(target: &Path) -> io::Result<PathBuf> {
    let mut abs = normalize(target);
    for _ in 0..=POLICY_MAX_SYMLINKS {
        match paths::comparable(&abs) {
            Ok(real) => return Ok(real),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let (Some(parent), Some(name)) = (abs.parent(), abs.file_name()) else {
            return Err(unresolved(&abs));
        };
        let parent = paths::comparable(parent)?;
        match std::fs::symlink_metadata(&abs) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(parent.join(name)),
            Err(e) => return Err(e),
            Ok(meta) if !meta.file_type().is_symlink() => return Err(unresolved(&abs)),
            Ok(_) => abs = normalize(&parent.join(std::fs::read_link(&abs)?)),
        }
    }
    Err(unresolved(target))
}

fn unresolved(path: &Path) -> io::Error {
    io::Error::other(format!("cannot resolve {}", path.display()))
}

/// The real root among `roots` that holds where `target` really is, with that location, both
/// spelled as a host sees them ([`paths::reported`]).
#[must_use]
pub fn containing_root<S: AsRef<Path>>(roots: &[S], target: &Path) -> Option<(PathBuf, PathBuf)> {
    let real = real_location(target).ok()?;
    roots.iter().find_map(|root| {
        let root = paths::comparable(root.as_ref()).ok()?;
        is_inside(&root, &real).then(|| {
            (
                paths::reported(&root).to_path_buf(),
                paths::reported(&real).to_path_buf(),
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("prism-containment-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root/sub")).ok();
        std::fs::create_dir_all(dir.join("outside")).ok();
        paths::canonicalize(&dir).unwrap_or(dir)
    }

    #[test]
    fn normalize_folds_dots_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert!(is_inside(Path::new("/a"), Path::new("/a")));
        assert!(is_inside(Path::new("/a"), Path::new("/a/..b")));
        assert!(!is_inside(Path::new("/a"), Path::new("/ab")));
        assert!(is_inside(Path::new("/"), Path::new("/x")));
    }

    #[cfg(unix)]
    #[test]
    fn missing_names_and_dangling_links_resolve_where_they_would_land() {
        let dir = scratch("links");
        let root = dir.join("root");
        assert_eq!(
            real_location(&root.join("new.txt")).ok(),
            Some(root.join("new.txt"))
        );
        assert!(real_location(&root.join("missing/new.txt")).is_err());
        symlink(dir.join("outside/x"), root.join("dangling")).ok();
        assert_eq!(
            real_location(&root.join("dangling")).ok(),
            Some(dir.join("outside/x"))
        );
        assert_eq!(containing_root(&[&root], &root.join("dangling")), None);
        symlink("loop", root.join("loop")).ok();
        assert!(real_location(&root.join("loop")).is_err());
        let inside = containing_root(&[dir.join("outside"), root.clone()], &root.join("sub/f"));
        assert_eq!(inside, Some((root.clone(), root.join("sub/f"))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_chain_of_links_past_the_cap_resolves_to_nothing() {
        let dir = scratch("chain");
        let root = dir.join("root");
        for i in 0..=POLICY_MAX_SYMLINKS {
            symlink(format!("l{}", i + 1), root.join(format!("l{i}"))).ok();
        }
        assert!(real_location(&root.join("l0")).is_err());
        // Within the cap, the chain ends at the missing name it points to.
        assert_eq!(
            real_location(&root.join(format!("l{}", POLICY_MAX_SYMLINKS - 1))).ok(),
            Some(root.join(format!("l{}", POLICY_MAX_SYMLINKS + 1)))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A root and a target come back spelled as a host sees them: on Windows with their drive
    /// letter (std's `\\?\` dropped), so a decision's `root` and `path` read `C:\...`.
    #[test]
    fn the_root_and_the_target_are_reported_as_a_host_sees_them() {
        let dir = scratch("reported");
        let root = dir.join("root");
        let found = containing_root(&[&root], &root.join("sub/new.txt"));
        let Some((r, t)) = found else {
            panic!("{} holds its own sub/new.txt", root.display());
        };
        assert_eq!(r, paths::reported(&root));
        assert_eq!(t, paths::reported(&root.join("sub").join("new.txt")));
        #[cfg(windows)]
        {
            assert!(!r.to_string_lossy().starts_with(r"\\?\"), "{}", r.display());
            assert!(!t.to_string_lossy().starts_with(r"\\?\"), "{}", t.display());
            assert_eq!(r.to_string_lossy().as_bytes().get(1), Some(&b':'));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
