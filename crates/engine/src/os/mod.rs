//! The platform seams: everything that differs between Linux, macOS and Windows, one module
//! per concern, each with one file per platform and the `cfg` only here, at the seam. The rest
//! of the engine calls these and compiles unchanged everywhere.
//!
//! - [`beneath`]: opening and writing files beneath a root directory so that no symlink, even
//!   one swapped in after a path check, can redirect the write outside it.
//! - [`files`]: opening a file to read without blocking on a FIFO or a device, file-type
//!   names, private spill files, access checks and errno names as Node spells them.
//! - [`paths`]: real paths, and how one is spelled for a host (no `\\?\` on Windows where
//!   it is not needed); every `realpath` of the engine goes through it.
//! - [`pipes`]: waiting for a pipe to become readable and writing without blocking.
//! - [`process_tree`]: a child and everything it starts, killed as one (process groups and
//!   the parent-death signal on Unix, Job Objects on Windows).
//! - [`shell`]: which shell runs a command line when the host names none.
//! - [`landlock`]: restricting this process and what it starts with Landlock on Linux
//!   (elsewhere every restriction reports Landlock unavailable).

pub mod beneath;
pub mod files;
pub mod landlock;
pub mod paths;
pub mod pipes;
pub mod process_tree;
pub mod shell;
