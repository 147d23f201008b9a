//! Pipes on Unix: `poll` and a write on the non-blocking descriptor tokio keeps.

use std::io::PipeReader;
use std::time::Duration;

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use tokio::process::ChildStdin;

pub(super) fn wait_readable(reader: &PipeReader, wait: Duration) -> bool {
    let mut fds = [PollFd::new(reader, PollFlags::IN)];
    let timeout = Timespec {
        tv_sec: i64::try_from(wait.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    matches!(poll(&mut fds, Some(&timeout)), Ok(n) if n > 0)
}

pub(super) fn try_write(stdin: &ChildStdin, buf: &[u8]) -> std::io::Result<usize> {
    match rustix::io::write(stdin, buf) {
        Ok(n) => Ok(n),
        Err(Errno::AGAIN | Errno::INTR) => Ok(0),
        Err(e) => Err(e.into()),
    }
}
