//! Process trees: a child and everything it starts, ended as one, so that close, timeout and
//! abort leave no survivor. The shell tool and the MCP stdio servers both use it.
//!
//! - Unix ([`unix`]): the child leads a new process group. Ending it freezes the child's tree
//!   with `SIGSTOP` round by round (so nothing forks away while it is walked), then `SIGKILL`s
//!   every process found and the group.
//! - Linux (`linux`): the tree is read from `/proc`; a stdio server also gets the parent-death
//!   signal (`PR_SET_PDEATHSIG`, it dies with the host even when the host is `SIGKILL`ed) and
//!   becomes a child subreaper (orphans it made stay in its tree, even after `setsid()` or a
//!   double fork).
//! - macOS and other Unix (`macos`): the process group alone (no tree walk, no death signal);
//!   groups still running are killed when the host exits (`kill_running_groups`,
//!   `kill_all_server_groups`). A process that leaves the group (`setsid`) escapes.
//! - Windows (`windows`): a Job Object with `KILL_ON_JOB_CLOSE`; every process the child
//!   starts joins it, and terminating or closing the job ends them all (also when the host
//!   dies, since its handle closes). The child is assigned just after it starts: a process it
//!   starts in that instant is not in the job.

use std::process::ExitStatus;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as tree;
#[cfg(all(unix, not(target_os = "linux")))]
mod macos;
#[cfg(all(unix, not(target_os = "linux")))]
use macos as tree;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;
#[cfg(windows)]
use windows as tree;

/// A started child's process tree, to end as one. Dropping it ends nothing on Unix; on
/// Windows closing the job kills what is still in it.
#[derive(Debug)]
pub struct ProcessTree {
    pid: u32,
    inner: platform::Tree,
}

/// Processes below a tree's root, recorded while the root still runs (once it exits, its
/// orphans are no longer below it). Empty where the platform cannot list them.
#[derive(Debug, Default)]
pub struct Recorded(Vec<u32>);

impl ProcessTree {
    /// Sets up `cmd` so that its child leads a new tree (a new process group on Unix).
    pub fn prepare(cmd: &mut std::process::Command) {
        platform::prepare(cmd);
    }

    /// [`ProcessTree::prepare`] for a long-lived server: on Linux also the parent-death
    /// signal and the child subreaper.
    pub fn prepare_server(cmd: &mut tokio::process::Command) {
        platform::prepare_server(cmd);
    }

    /// The tree of a started child (`pid`; on Windows `handle` is its process handle, which
    /// is assigned to a new Job Object).
    #[must_use]
    pub fn attach(pid: u32, handle: Option<platform::RawProcess>) -> Self {
        Self {
            pid,
            inner: platform::Tree::attach(pid, handle),
        }
    }

    /// The tree of a started `std` child.
    #[must_use]
    pub fn of_child(child: &std::process::Child) -> Self {
        Self::attach(child.id(), platform::raw_process(child))
    }

    /// The tree of a started tokio child (`None` once it was reaped).
    #[must_use]
    pub fn of_tokio_child(child: &tokio::process::Child) -> Option<Self> {
        let pid = child.id()?;
        Some(Self::attach(pid, platform::raw_tokio_process(child)))
    }

    /// The root's process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Asks the tree to end (`SIGTERM` to the group; nothing on Windows, which has no such
    /// request for console-less children).
    pub fn terminate(&self) {
        self.inner.terminate();
    }

    /// Kills the root, everything below it and its group now. False when nothing could be
    /// signalled (the group is gone, or on Windows there is no job): kill the child directly.
    pub fn kill(&self) -> bool {
        self.inner.kill()
    }

    /// The processes now below the root (see [`Recorded`]).
    #[must_use]
    pub fn record(&self) -> Recorded {
        Recorded(tree::descendants(self.pid))
    }
}

impl Recorded {
    /// The processes now below process `pid` (recorded by pid, for a holder that has no
    /// [`ProcessTree`] at hand).
    #[must_use]
    pub fn below(pid: u32) -> Self {
        Recorded(tree::descendants(pid))
    }

    /// Adds the processes `other` recorded (each is killed once per record that holds it).
    pub fn extend(&mut self, other: Recorded) {
        self.0.extend(other.0);
    }

    /// Kills each recorded process with its own tree.
    pub fn kill(self) {
        for pid in self.0 {
            let _ = platform::kill_tree_of(pid);
        }
    }
}

/// The exit code of `st`, or 128 + the signal for a process killed by one (Unix).
#[must_use]
pub fn exit_code(st: ExitStatus) -> i32 {
    platform::exit_code(st)
}
