//! Process trees on Linux: the tree from `/proc`, and a server tied to its host.

/// The parent of every process, from `/proc/<pid>/stat`.
fn parents() -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        let rest = stat.get(stat.rfind(')')? + 1..)?;
        let ppid: u32 = rest.split_whitespace().nth(1)?.parse().ok()?;
        Some((pid, ppid))
    })
    .collect()
}

/// Every process below `root` in the process tree.
pub(super) fn descendants(root: u32) -> Vec<u32> {
    let all = parents();
    let mut found = vec![root];
    let mut i = 0;
    while let Some(&p) = found.get(i) {
        found.extend(all.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

/// The server dies with the host (`PR_SET_PDEATHSIG`, even when the host is `SIGKILL`ed) and
/// keeps its orphans in its tree (`PR_SET_CHILD_SUBREAPER`, which survives `execve`).
pub(super) fn tie_to_parent(cmd: &mut tokio::process::Command) {
    use rustix::process::{set_child_subreaper, set_parent_process_death_signal, Pid, Signal};
    // SAFETY: the closure makes two prctl system calls (async-signal-safe) and touches no
    // shared state.
    unsafe {
        cmd.pre_exec(|| {
            set_parent_process_death_signal(Some(Signal::KILL))?;
            // Any non-zero value enables it; rustix takes it as a pid.
            set_child_subreaper(Pid::from_raw(1))?;
            Ok(())
        });
    }
}
