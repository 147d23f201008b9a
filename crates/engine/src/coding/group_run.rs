//! One program in its own process tree, its stdout and stderr merged into one pipe and handed
//! out chunk by chunk; a timeout, an abort or the chunk consumer ends the whole tree. The
//! shell tool ([`crate::coding::shell`]) and the sandboxed shell path
//! ([`crate::coding::sandbox_run`]) both run their commands here, so they share one spawn,
//! one kill and one record of the trees still running (killed when the host exits,
//! [`kill_running_groups`]).
//!
//! After the program exits, reading goes on while output keeps coming, and stops once the
//! pipe has been idle for [`SHELL_STDIO_IDLE_GRACE`] (a background child that keeps the pipe
//! open does not hold the call).

use std::collections::HashMap;
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::limits::{SHELL_STDIO_IDLE_GRACE, STREAM_CHUNK_BYTES};
use crate::os::process_tree::ProcessTree;

/// How often a running program's abort flag and deadline are looked at.
const POLL: Duration = Duration::from_millis(50);

/// The bounds of one run.
#[derive(Debug, Clone, Copy)]
pub struct GroupBounds<'a> {
    /// How long the program may run before its tree is killed (`None`: no limit).
    pub timeout: Option<Duration>,
    /// Set by the caller to end the run; looked at every 50 ms at most, and before the
    /// spawn (an abort that came first starts nothing).
    pub abort: &'a AtomicBool,
    /// Kill what is left of the tree once the program exited and its output went quiet
    /// (background processes it started).
    pub kill_leftovers: bool,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupEnding<S> {
    /// The program exited (`None`: its status could not be read).
    Exited(Option<ExitStatus>),
    /// The timeout passed; the tree was killed.
    TimedOut,
    /// The abort flag was set; the tree was killed (or nothing started).
    Aborted,
    /// The chunk consumer asked to stop with this reason; the tree was killed.
    Stopped(S),
}

/// Runs `cmd` (its arguments, directory and environment already set) in a new process tree
/// with stdin closed and stdout and stderr merged, handing each chunk read to `on_chunk`
/// (which returns `Some(reason)` to stop the run).
///
/// # Errors
/// The OS error when the pipe cannot be made or the spawn fails.
pub fn run_group<S>(
    cmd: &mut Command,
    bounds: GroupBounds<'_>,
    on_chunk: &mut dyn FnMut(&[u8]) -> Option<S>,
) -> std::io::Result<GroupEnding<S>> {
    if bounds.abort.load(Ordering::Relaxed) {
        return Ok(GroupEnding::Aborted);
    }
    let (mut reader, writer) = std::io::pipe()?;
    cmd.stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    ProcessTree::prepare(cmd);
    let spawned = cmd.spawn();
    // `cmd` holds our copies of the write end: replace them, so that EOF can arrive.
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = spawned?;
    let tree = Arc::new(ProcessTree::of_child(&child));
    track_tree(&tree, true);
    let ending = pump(&mut child, &tree, &mut reader, bounds, on_chunk);
    if bounds.kill_leftovers && matches!(ending, GroupEnding::Exited(_)) {
        tree.kill();
    }
    track_tree(&tree, false);
    Ok(ending)
}

/// Process trees of programs still running (for [`kill_running_groups`]), by root pid.
fn running_trees() -> &'static Mutex<HashMap<u32, Arc<ProcessTree>>> {
    static TREES: OnceLock<Mutex<HashMap<u32, Arc<ProcessTree>>>> = OnceLock::new();
    TREES.get_or_init(|| Mutex::new(HashMap::new()))
}

fn track_tree(tree: &Arc<ProcessTree>, running: bool) {
    if let Ok(mut trees) = running_trees().lock() {
        if running {
            trees.insert(tree.pid(), Arc::clone(tree));
        } else {
            trees.remove(&tree.pid());
        }
    }
}

/// Kills the process tree of every program still running (shell commands and sandboxed
/// commands; call when the host exits, so that none outlives it). Returns how many trees
/// were signalled.
pub fn kill_running_groups() -> usize {
    let Ok(trees) = running_trees().lock() else {
        return 0;
    };
    trees.values().filter(|t| t.kill()).count()
}

/// Reads output until the pipe closes, the program exits and stays quiet, or a bound ends it.
fn pump<S>(
    child: &mut Child,
    tree: &ProcessTree,
    reader: &mut std::io::PipeReader,
    bounds: GroupBounds<'_>,
    on_chunk: &mut dyn FnMut(&[u8]) -> Option<S>,
) -> GroupEnding<S> {
    let deadline = bounds.timeout.map(|t| Instant::now() + t);
    let mut buf = vec![0u8; STREAM_CHUNK_BYTES];
    let mut exited: Option<ExitStatus> = None;
    let mut last_data = Instant::now();
    loop {
        if bounds.abort.load(Ordering::Relaxed) {
            return kill_tree(child, tree, GroupEnding::Aborted);
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return kill_tree(child, tree, GroupEnding::TimedOut);
        }
        if exited.is_none() {
            if let Ok(Some(st)) = child.try_wait() {
                exited = Some(st);
                last_data = now;
            }
        }
        let wait = match exited {
            Some(_) => {
                let idle = now.duration_since(last_data);
                if idle >= SHELL_STDIO_IDLE_GRACE {
                    break;
                }
                SHELL_STDIO_IDLE_GRACE - idle
            }
            None => deadline.map_or(POLL, |d| POLL.min(d - now)),
        };
        if !crate::os::pipes::wait_readable(reader, wait) {
            continue;
        }
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        if n == 0 {
            break;
        }
        last_data = Instant::now();
        if let Some(reason) = on_chunk(&buf[..n]) {
            return kill_tree(child, tree, GroupEnding::Stopped(reason));
        }
    }
    GroupEnding::Exited(match exited {
        Some(st) => Some(st),
        None => child.wait().ok(),
    })
}

/// Kills the child's whole process tree (falling back to the child), reaps it, and returns
/// `ending`.
fn kill_tree<S>(child: &mut Child, tree: &ProcessTree, ending: GroupEnding<S>) -> GroupEnding<S> {
    if !tree.kill() {
        let _ = child.kill();
    }
    let _ = child.wait();
    ending
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(command: &str) -> Command {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg(command);
        cmd
    }

    fn bounds(abort: &AtomicBool, timeout_ms: Option<u64>) -> GroupBounds<'_> {
        GroupBounds {
            timeout: timeout_ms.map(Duration::from_millis),
            abort,
            kill_leftovers: true,
        }
    }

    #[test]
    fn chunks_reach_the_consumer_and_the_exit_status_comes_back() -> std::io::Result<()> {
        let mut out = Vec::new();
        let ending = run_group::<()>(
            &mut sh("echo out; echo err 1>&2; exit 4"),
            bounds(&AtomicBool::new(false), None),
            &mut |c| {
                out.extend_from_slice(c);
                None
            },
        )?;
        assert!(matches!(ending, GroupEnding::Exited(Some(st)) if st.code() == Some(4)));
        assert_eq!(out, b"out\nerr\n");
        Ok(())
    }

    #[test]
    fn an_abort_set_before_the_run_starts_nothing() -> std::io::Result<()> {
        let marker = std::env::temp_dir().join(format!("prism-group-run-{}", std::process::id()));
        let ending = run_group::<()>(
            &mut sh(&format!("touch {}", marker.display())),
            bounds(&AtomicBool::new(true), None),
            &mut |_| None,
        )?;
        assert_eq!(ending, GroupEnding::Aborted);
        assert!(!marker.exists());
        Ok(())
    }

    #[test]
    fn the_consumer_stops_the_run_and_the_timeout_kills_the_tree() -> std::io::Result<()> {
        let started = Instant::now();
        let ending = run_group(
            &mut sh("echo x; sleep 30"),
            bounds(&AtomicBool::new(false), None),
            &mut |_| Some("enough"),
        )?;
        assert_eq!(ending, GroupEnding::Stopped("enough"));
        let ending = run_group::<()>(
            &mut sh("sleep 30 & sleep 30"),
            bounds(&AtomicBool::new(false), Some(300)),
            &mut |_| None,
        )?;
        assert_eq!(ending, GroupEnding::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(10));
        Ok(())
    }

    #[test]
    fn a_missing_program_is_the_spawn_error() {
        let result = run_group::<()>(
            &mut Command::new("/no/such/program"),
            bounds(&AtomicBool::new(false), None),
            &mut |_| None,
        );
        assert!(matches!(result, Err(e) if e.kind() == std::io::ErrorKind::NotFound));
    }
}
