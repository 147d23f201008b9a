//! The session's own lines to a stdio server's stdin (its `tools/call` requests and their
//! `notifications/cancelled`), written whole and in order, shared with rmcp's writes.
//!
//! A line is written at once on the caller's thread when nothing is queued before it and the
//! pipe is free: one non-blocking `write`, no task woken (the JavaScript thread starting a
//! call pays a system call, not a wake-up of the runtime). Otherwise, or for what the pipe did
//! not take, it goes to one writer task, which sends every line queued by then in one write.
//! A line once started is always finished first: the remainder of a partial write travels to
//! the writer task together with the pipe's lock, so no other line (rmcp's included) can come
//! between its halves, and a call that times out or is aborted never leaves half a line.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::process::ChildStdin;
use tokio::sync::OwnedMutexGuard;
use tokio_util::sync::CancellationToken;

use super::frame::{write_held, write_line, FrameShared, SharedWriter};
use super::McpError;

/// What the writer task is handed.
enum Out {
    /// A whole line, nothing of it written yet.
    Line(Vec<u8>),
    /// The rest of a line written in part, with the pipe's lock held since.
    Rest(OwnedMutexGuard<Option<ChildStdin>>, Vec<u8>),
}

/// The sending end (cheap to clone); see the module documentation.
#[derive(Clone)]
pub struct LineWriter {
    pipe: SharedWriter<ChildStdin>,
    queue: tokio::sync::mpsc::UnboundedSender<Out>,
    /// Messages sent to the writer task and not yet written: a line may be written on the
    /// caller's thread only when this is 0 (nothing queued may be overtaken).
    queued: Arc<AtomicUsize>,
    /// Held while a line is written or queued, so that the check of `queued` and the write
    /// or the queueing that follows it happen as one step.
    order: Arc<Mutex<()>>,
}

impl std::fmt::Debug for LineWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineWriter")
            .field("queued", &self.queued.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl LineWriter {
    /// Starts the writer task for `pipe`. It ends when `close` fires or every sender is
    /// dropped; if the pipe fails, every direct call stops waiting (as when the server closes
    /// its stdout).
    #[must_use]
    pub fn spawn(
        pipe: SharedWriter<ChildStdin>,
        frames: FrameShared,
        close: CancellationToken,
    ) -> Self {
        let (queue, rx) = tokio::sync::mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        tokio::spawn(write_queued(
            Arc::clone(&pipe),
            rx,
            Arc::clone(&queued),
            frames,
            close,
        ));
        Self {
            pipe,
            queue,
            queued,
            order: Arc::new(Mutex::new(())),
        }
    }

    /// Writes `line` (ending in `\n`) now, or queues it; false once the writer stopped (the
    /// session closed or the pipe failed).
    pub fn send(&self, line: Vec<u8>) -> bool {
        let _order = self.order.lock().unwrap_or_else(PoisonError::into_inner);
        if self.queued.load(Ordering::Acquire) == 0 {
            if let Ok(pipe) = Arc::clone(&self.pipe).try_lock_owned() {
                let Some(stdin) = pipe.as_ref() else {
                    return false;
                };
                let Ok(written) = crate::os::pipes::try_write(stdin, &line) else {
                    return false;
                };
                if written >= line.len() {
                    return true;
                }
                let rest = line.get(written..).unwrap_or_default().to_vec();
                return self.enqueue(Out::Rest(pipe, rest));
            }
        }
        self.enqueue(Out::Line(line))
    }

    fn enqueue(&self, out: Out) -> bool {
        self.queued.fetch_add(1, Ordering::AcqRel);
        if self.queue.send(out).is_ok() {
            return true;
        }
        self.queued.fetch_sub(1, Ordering::AcqRel);
        false
    }
}

/// The writer task: everything queued by the time it wakes goes out in one write, through
/// the lock a partial line holds if one does (its remainder first), else under a fresh lock.
async fn write_queued(
    pipe: SharedWriter<ChildStdin>,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Out>,
    queued: Arc<AtomicUsize>,
    frames: FrameShared,
    close: CancellationToken,
) {
    loop {
        let first = tokio::select! {
            out = rx.recv() => match out {
                Some(out) => out,
                None => return,
            },
            () = close.cancelled() => return,
        };
        let mut held = None;
        let mut bytes = Vec::new();
        let mut count = 0;
        let mut take = |out: Out, bytes: &mut Vec<u8>| {
            count += 1;
            match out {
                Out::Line(line) => bytes.extend_from_slice(&line),
                Out::Rest(guard, rest) => {
                    // The pipe already holds this line's start: its rest goes next.
                    bytes.splice(0..0, rest);
                    held = Some(guard);
                }
            }
        };
        take(first, &mut bytes);
        while let Ok(more) = rx.try_recv() {
            take(more, &mut bytes);
        }
        let written = match held {
            Some(mut guard) => write_held(&mut guard, &bytes).await,
            None => write_line(&pipe, &bytes).await,
        };
        queued.fetch_sub(count, Ordering::AcqRel);
        if written.is_err() {
            frames.end_direct(&McpError::server_closed());
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;
    use std::time::Duration;
    use tokio::io::AsyncReadExt;

    fn line(tag: &str, i: usize) -> Vec<u8> {
        format!("{{\"{tag}\":{i},\"pad\":\"{}\"}}\n", "x".repeat(10_000)).into_bytes()
    }

    /// A reader that starts late, so the pipe fills and writes come back partial: every line
    /// still arrives whole, the session's own in the order sent, with other writers' lines
    /// (as rmcp's) only ever between whole lines.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lines_stay_whole_and_in_order_when_the_pipe_fills() {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "sleep 0.3; cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let pipe: SharedWriter<ChildStdin> = Arc::new(tokio::sync::Mutex::new(Some(stdin)));
        let writer = LineWriter::spawn(
            Arc::clone(&pipe),
            FrameShared::default(),
            CancellationToken::new(),
        );
        let reading = tokio::spawn(async move {
            let mut all = Vec::new();
            stdout.read_to_end(&mut all).await.map(|_| all)
        });
        // From a thread outside the runtime, as the JavaScript thread sends: the pipe fills
        // within the first 7 lines (longer than `PIPE_BUF`, so the line that meets it is
        // written in part).
        let ours = std::thread::spawn({
            let writer = writer.clone();
            move || (0..200).all(|i| writer.send(line("ours", i)))
        });
        assert!(tokio::task::spawn_blocking(move || ours.join())
            .await
            .expect("joins")
            .expect("no panic"));
        // rmcp's writes wait for the lock the partial line holds.
        for i in 0..50 {
            write_line(&pipe, &line("other", i))
                .await
                .expect("other line");
        }
        while writer.queued.load(Ordering::Acquire) > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        drop(pipe.lock().await.take());
        let all = reading.await.expect("joins").expect("reads");
        let mut ours = Vec::new();
        let mut others = 0;
        for l in all.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(l).expect("a whole line");
            match (v.get("ours"), v.get("other")) {
                (Some(i), None) => ours.push(i.as_u64().expect("index")),
                (None, Some(_)) => others += 1,
                _ => panic!("unexpected line"),
            }
        }
        assert_eq!(ours, (0..200).collect::<Vec<u64>>());
        assert_eq!(others, 50);
        let _ = child.wait().await;
    }
}
