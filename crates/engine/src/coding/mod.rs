//! Coding tools: read, write, edit and shell with hard output bounds (API.md section 10).
//!
//! Each operation is one engine call that the JS facade makes after [`arguments`] has checked
//! the call's arguments and the host's execution policy has allowed it; nothing here decides
//! *whether* to act.
//! - [`read`]: a streamed text page (offset/limit, line and byte caps, scan bound, `findText`)
//!   or a bounded image, sniffed by magic bytes ([`image`]).
//! - [`write`]: an atomic write (temp file in the same directory, then rename), `mkdir -p`.
//! - [`edit`]: several exact-then-fuzzy replacements in one call, BOM and CRLF kept, with a
//!   diff ([`diff`]) and the first changed line.
//! - [`shell`]: a command in its own process group, merged output into a bounded
//!   [`accumulator`], timeout and abort that kill the whole group; [`shell_jobs`]: the abort
//!   flags of running commands, by job id.
//! - [`sandbox_run`]: a sandbox backend's wrapper program (bubblewrap, the Landlock helper),
//!   its output streamed to the host; [`group_run`]: the one process-group runner both use.
//! - [`arguments`]: each tool's argument checks, before any policy or file is touched.
//! - [`size`], [`truncate`], [`fsio`]: shared helpers; [`error`]: the typed errors.

pub mod accumulator;
pub mod arguments;
pub mod confine;
pub mod diff;
pub mod edit;
pub mod error;
pub mod fsio;
pub mod group_run;
pub mod image;
pub mod read;
pub mod sandbox_run;
pub mod shell;
pub mod shell_jobs;
pub mod size;
pub mod truncate;
pub mod write;

pub use error::CodingError;
pub use size::{format_size, format_size_js};
