//! Pipes on Windows: `PeekNamedPipe` polled until data, end of file or the wait is over.

use std::io::PipeReader;
use std::os::windows::io::AsRawHandle;
use std::time::{Duration, Instant};

use tokio::process::ChildStdin;
use windows_sys::Win32::System::Pipes::PeekNamedPipe;

/// How often an idle pipe is peeked at.
const PEEK_INTERVAL: Duration = Duration::from_millis(10);

pub(super) fn wait_readable(reader: &PipeReader, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        let mut available: u32 = 0;
        // SAFETY: the handle is the reader's own, open for the call; no buffer is passed, only
        // the count of available bytes is written.
        let ok = unsafe {
            PeekNamedPipe(
                reader.as_raw_handle(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                &mut available,
                std::ptr::null_mut(),
            )
        };
        // A failed peek is a closed pipe: the read that follows sees end of file.
        if ok == 0 || available > 0 {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        std::thread::sleep(PEEK_INTERVAL.min(deadline - now));
    }
}

pub(super) fn try_write(_stdin: &ChildStdin, _buf: &[u8]) -> std::io::Result<usize> {
    Ok(0)
}
