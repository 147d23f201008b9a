//! Pipes: waiting for output with a timeout, and writing without blocking.

use std::io::PipeReader;
use std::time::Duration;

use tokio::process::ChildStdin;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

/// Whether `reader` has data (or end of file) within `wait`.
#[must_use]
pub fn wait_readable(reader: &PipeReader, wait: Duration) -> bool {
    platform::wait_readable(reader, wait)
}

/// Writes what the pipe takes of `buf` now, without waiting: the bytes written, 0 when the
/// pipe is full (or, on Windows, always: its anonymous pipes have no non-blocking write, so
/// every line goes through the writer task).
///
/// # Errors
/// The OS error when the pipe is broken.
pub fn try_write(stdin: &ChildStdin, buf: &[u8]) -> std::io::Result<usize> {
    platform::try_write(stdin, buf)
}
