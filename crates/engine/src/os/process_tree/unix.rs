//! Process trees on Unix: process groups, `SIGSTOP` to freeze, `SIGKILL` to end.

use std::collections::HashSet;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::ExitStatus;

use rustix::process::{kill_process, kill_process_group, Pid, Signal};

use super::tree;

/// No process handle is needed on Unix.
pub type RawProcess = ();

pub(super) fn raw_process(_child: &std::process::Child) -> Option<RawProcess> {
    None
}

pub(super) fn raw_tokio_process(_child: &tokio::process::Child) -> Option<RawProcess> {
    None
}

pub(super) fn prepare(cmd: &mut std::process::Command) {
    cmd.process_group(0);
}

pub(super) fn prepare_server(cmd: &mut tokio::process::Command) {
    cmd.process_group(0);
    tree::tie_to_parent(cmd);
}

/// A process group, led by the root.
#[derive(Debug)]
pub(super) struct Tree {
    pgid: Option<Pid>,
}

impl Tree {
    pub(super) fn attach(pid: u32, _handle: Option<RawProcess>) -> Self {
        Self {
            pgid: i32::try_from(pid).ok().and_then(Pid::from_raw),
        }
    }

    pub(super) fn terminate(&self) {
        if let Some(g) = self.pgid {
            let _ = kill_process_group(g, Signal::TERM);
        }
    }

    pub(super) fn kill(&self) -> bool {
        let Some(g) = self.pgid else {
            return false;
        };
        kill_tree_of(g.as_raw_pid().unsigned_abs())
    }
}

/// Rounds of freeze-and-walk before the tree is killed (each round stops the processes it
/// found; a tree that still grows after this many rounds is killed as far as it was seen).
const TREE_ROUNDS: usize = 32;

fn signal(pid: u32, sig: Signal) {
    if let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = kill_process(p, sig);
    }
}

/// `SIGKILL`s `root`, every process below it and its process group: the tree is frozen with
/// `SIGSTOP` first, round by round until a walk finds nothing new, so that nothing forks away.
/// True when the group was signalled.
pub(super) fn kill_tree_of(root: u32) -> bool {
    let mut seen: HashSet<u32> = HashSet::new();
    signal(root, Signal::STOP);
    for _ in 0..TREE_ROUNDS {
        let fresh: Vec<u32> = tree::descendants(root)
            .into_iter()
            .filter(|p| seen.insert(*p))
            .collect();
        if fresh.is_empty() {
            break;
        }
        for p in &fresh {
            signal(*p, Signal::STOP);
        }
    }
    let group_signalled = i32::try_from(root)
        .ok()
        .and_then(Pid::from_raw)
        .is_some_and(|g| kill_process_group(g, Signal::KILL).is_ok());
    signal(root, Signal::KILL);
    for p in seen {
        signal(p, Signal::KILL);
    }
    group_signalled
}

pub(super) fn exit_code(st: ExitStatus) -> i32 {
    st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0))
}
