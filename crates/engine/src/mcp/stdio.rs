//! The stdio transport's server process: spawned as the root of its own process tree
//! ([`crate::os::process_tree`]: a process group, on Windows a Job Object), tied to the host
//! (`PR_SET_PDEATHSIG` on Linux), and ended with everything it started on `close()`, on a
//! failed connect, on drop, and at host exit ([`kill_all_server_groups`]).
//!
//! On Linux the server is also made a child subreaper (`PR_SET_CHILD_SUBREAPER`, which
//! survives `execve`): a descendant whose parent exits is re-parented to the server instead of
//! init, so every process the server started stays in its process tree, even one that called
//! `setsid()` or double-forked. Ending a server freezes that tree with `SIGSTOP` (so nothing
//! forks while it is walked), then `SIGKILL`s every process in it and the process group.
//! Not covered on Linux: a process that leaves the tree after the server itself died (the host was
//! `SIGKILL`ed: the server dies by `PR_SET_PDEATHSIG`, but its descendants are re-parented to
//! init); a sandbox or cgroup is the answer there.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::McpError;
use crate::limits::{
    MCP_STDERR_READ_CHUNK_BYTES, MCP_STDERR_TAIL_BYTES, MCP_STDIO_EOF_GRACE_MS,
    MCP_STDIO_TERM_GRACE_MS,
};
use crate::os::process_tree::{ProcessTree, Recorded};

/// What to do with the server's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StderrMode {
    /// The host's stderr (default).
    #[default]
    Inherit,
    /// Captured; the last few KiB go into connect error messages.
    Pipe,
    /// Discarded.
    Ignore,
}

impl StderrMode {
    /// The mode a host names: `inherit` (or none), `pipe` (`overlapped` is read as `pipe`),
    /// `ignore`.
    ///
    /// # Errors
    /// [`McpError::InvalidTransport`] for any other name.
    pub fn from_name(name: Option<&str>) -> Result<Self, McpError> {
        match name {
            None | Some("inherit") => Ok(Self::Inherit),
            Some("pipe" | "overlapped") => Ok(Self::Pipe),
            Some("ignore") => Ok(Self::Ignore),
            Some(_) => Err(McpError::InvalidTransport {
                message: "stderr must be inherit, pipe, overlapped or ignore".to_owned(),
            }),
        }
    }
}

/// The host variables a server inherits (as the official SDK's `getDefaultEnvironment`):
/// nothing else of the host's environment reaches it unless `env` names it.
#[cfg(not(windows))]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] =
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
/// See the non-Windows list.
#[cfg(windows)]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// The inherited part of a server's environment: [`DEFAULT_INHERITED_ENV_VARS`] that are set,
/// except values starting with `()` (exported shell functions).
#[must_use]
pub fn default_environment() -> Vec<(String, String)> {
    DEFAULT_INHERITED_ENV_VARS
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .filter(|(_, v)| !v.starts_with("()"))
        .collect()
}

/// A stdio server's launch configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StdioConfig {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables, laid over [`default_environment`] (the rest of the host's
    /// environment is not inherited).
    pub env: HashMap<String, String>,
    /// The working directory (default: the host's).
    pub cwd: Option<String>,
    /// Where stderr goes (default inherit).
    pub stderr: StderrMode,
}

impl StdioConfig {
    /// A launch configuration from a host's options: `command` must be a non-empty program
    /// name, `stderr` a [`StderrMode::from_name`] name.
    ///
    /// # Errors
    /// [`McpError::InvalidTransport`] naming what is wrong.
    pub fn from_options(
        command: Option<String>,
        args: Vec<String>,
        env: HashMap<String, String>,
        cwd: Option<String>,
        stderr: Option<&str>,
    ) -> Result<Self, McpError> {
        let command =
            command
                .filter(|c| !c.is_empty())
                .ok_or_else(|| McpError::InvalidTransport {
                    message: "stdio transport needs a command".to_owned(),
                })?;
        Ok(Self {
            command,
            args,
            env,
            cwd,
            stderr: StderrMode::from_name(stderr)?,
        })
    }
}

/// Process trees of servers that are still running, by root pid, for
/// [`kill_all_server_groups`].
static LIVE_TREES: Mutex<Option<HashMap<u32, Arc<ProcessTree>>>> = Mutex::new(None);

fn live_trees<R>(f: impl FnOnce(&mut HashMap<u32, Arc<ProcessTree>>) -> R) -> R {
    let mut guard = LIVE_TREES.lock().unwrap_or_else(PoisonError::into_inner);
    f(guard.get_or_insert_with(HashMap::new))
}

/// Kills every server still running with its process tree and group (the host is exiting).
/// Returns how many servers were ended.
pub fn kill_all_server_groups() -> usize {
    let trees: Vec<Arc<ProcessTree>> = live_trees(|t| t.drain().map(|(_, t)| t).collect());
    for tree in &trees {
        tree.kill();
    }
    trees.len()
}

/// A running stdio server and its process group.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    tree: Option<Arc<ProcessTree>>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
}

/// How long a failed connect waits for the stderr reader to drain what the server wrote.
const STDERR_DRAIN: Duration = Duration::from_millis(crate::limits::MCP_STDERR_DRAIN_MS);

impl ServerProcess {
    /// Spawns the server; returns it with its stdout (to read) and stdin (to write).
    ///
    /// # Errors
    /// [`McpError::Connect`] if the program cannot be started.
    pub fn spawn(cfg: &StdioConfig) -> Result<(Self, ChildStdout, ChildStdin), McpError> {
        let mut cmd = Command::new(&cfg.command);
        cmd.args(&cfg.args)
            .env_clear()
            .envs(default_environment())
            .envs(&cfg.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match cfg.stderr {
                StderrMode::Inherit => Stdio::inherit(),
                StderrMode::Pipe => Stdio::piped(),
                StderrMode::Ignore => Stdio::null(),
            })
            .kill_on_drop(true);
        if let Some(cwd) = &cfg.cwd {
            cmd.current_dir(cwd);
        }
        ProcessTree::prepare_server(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| McpError::Connect {
            message: format!("cannot start {}: {e}", cfg.command),
        })?;
        let tree = ProcessTree::of_tokio_child(&child).map(Arc::new);
        if let Some(tree) = &tree {
            live_trees(|t| t.insert(tree.pid(), Arc::clone(tree)));
        }
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let mut stderr_reader = None;
        if let Some(mut stderr) = child.stderr.take() {
            let tail = Arc::clone(&stderr_tail);
            stderr_reader = Some(tokio::spawn(async move {
                let mut buf = [0u8; MCP_STDERR_READ_CHUNK_BYTES];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                    t.extend_from_slice(buf.get(..n).unwrap_or(&[]));
                    let excess = t.len().saturating_sub(MCP_STDERR_TAIL_BYTES);
                    t.drain(..excess);
                }
            }));
        }
        let (stdout, stdin) = (child.stdout.take(), child.stdin.take());
        let mut process = Self {
            child,
            tree,
            stderr_tail,
            stderr_reader,
        };
        let (Some(stdout), Some(stdin)) = (stdout, stdin) else {
            process.kill_group();
            return Err(McpError::Connect {
                message: "server stdio was not piped".into(),
            });
        };
        Ok((process, stdout, stdin))
    }

    /// The process id of the server (and of its process group).
    #[must_use]
    pub fn pid(&self) -> Option<i32> {
        self.tree.as_ref().and_then(|t| i32::try_from(t.pid()).ok())
    }

    /// The last bytes the server wrote to stderr (with [`StderrMode::Pipe`]), after giving
    /// the reader a moment to drain the pipe (call it once the group is killed).
    pub async fn stderr_tail(&mut self) -> String {
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(STDERR_DRAIN, reader).await;
        }
        let t = self
            .stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&t).into_owned()
    }

    /// The processes now below the server, to end with it: recorded before its stdin closes,
    /// since a server may exit at end of input at once, and once it has exited its orphans
    /// (a `setsid()` child among them) are no longer below it.
    #[must_use]
    pub fn record_tree(&self) -> Recorded {
        self.tree.as_ref().map(|t| t.record()).unwrap_or_default()
    }

    /// Ends the server after its stdin was closed: a short wait for it to exit on EOF, then
    /// SIGTERM to the group, then SIGKILL; the tree and group are SIGKILLed at the end in any
    /// case, and so is every process in `before_eof` (the tree as [`ServerProcess::record_tree`]
    /// saw it before stdin closed), so that no grandchild survives. The tree is recorded again
    /// here, for what the server started while it was still reading.
    pub async fn shutdown(&mut self, before_eof: Recorded) {
        let recorded = self.record_tree();
        let eof = Duration::from_millis(MCP_STDIO_EOF_GRACE_MS);
        if tokio::time::timeout(eof, self.child.wait()).await.is_err() {
            if let Some(tree) = &self.tree {
                tree.terminate();
            }
            let term = Duration::from_millis(MCP_STDIO_TERM_GRACE_MS);
            if tokio::time::timeout(term, self.child.wait()).await.is_err() {
                self.kill_group();
                let _ = self.child.wait().await;
            }
        }
        self.kill_group();
        recorded.kill();
        before_eof.kill();
    }

    /// SIGKILLs the server, its process tree and its group now (idempotent).
    pub fn kill_group(&mut self) {
        if let Some(tree) = self.tree.take() {
            tree.kill();
            live_trees(|t| t.remove(&tree.pid()));
        }
        let _ = self.child.start_kill();
    }

    /// [`ServerProcess::kill_group`], then waits (briefly) until the server is reaped, so that
    /// when a failed connect returns the server is gone rather than a zombie.
    pub async fn kill_and_reap(&mut self) {
        self.kill_group();
        let _ = tokio::time::timeout(STDERR_DRAIN, self.child.wait()).await;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill_group();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, BufReader};

    #[test]
    fn launch_options_are_checked_before_anything_starts() {
        let cfg = |command: Option<&str>, stderr: Option<&str>| {
            StdioConfig::from_options(
                command.map(str::to_owned),
                vec![],
                HashMap::new(),
                None,
                stderr,
            )
            .map_err(|e| e.to_string())
        };
        assert_eq!(
            cfg(None, None),
            Err("stdio transport needs a command".to_owned())
        );
        assert_eq!(
            cfg(Some(""), None),
            Err("stdio transport needs a command".to_owned())
        );
        assert_eq!(
            cfg(Some("srv"), Some("loud")),
            Err("stderr must be inherit, pipe, overlapped or ignore".to_owned())
        );
        for (name, mode) in [
            (None, StderrMode::Inherit),
            (Some("overlapped"), StderrMode::Pipe),
            (Some("ignore"), StderrMode::Ignore),
        ] {
            assert_eq!(cfg(Some("srv"), name).map(|c| c.stderr), Ok(mode));
        }
    }

    /// `kill_all_server_groups` would end the other test's server: run them one at a time.
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

    /// Running (a zombie, dead but not yet reaped by this test process, counts as gone).
    fn alive(pid: i32) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next());
        matches!(state, Some(s) if s != "Z" && s != "X")
    }

    #[tokio::test]
    async fn setsid_and_double_forked_grandchildren_die_with_the_server() {
        let _serial = SERIAL.lock().await;
        // A grandchild in its own session, and one whose parent (a subshell) exited at once.
        let cfg = shell("setsid sleep 30 & echo $!; ( setsid sleep 30 & echo $! ); sleep 30");
        let Ok((mut process, stdout, stdin)) = ServerProcess::spawn(&cfg) else {
            panic!("sh did not start");
        };
        let mut reader = BufReader::new(stdout);
        let mut pids = vec![process.pid().unwrap_or(0)];
        for _ in 0..2 {
            let mut line = String::new();
            let _ = reader.read_line(&mut line).await;
            pids.push(line.trim().parse().unwrap_or(0));
        }
        assert!(pids.iter().all(|p| *p > 0 && alive(*p)), "{pids:?}");
        drop(stdin);
        process.shutdown(Recorded::default()).await;
        assert!(gone(&pids).await, "{pids:?}");
    }

    async fn gone(pids: &[i32]) -> bool {
        for _ in 0..200 {
            if pids.iter().all(|p| !alive(*p)) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    fn shell(script: &str) -> StdioConfig {
        StdioConfig {
            command: "sh".into(),
            args: vec!["-c".into(), script.into()],
            ..StdioConfig::default()
        }
    }

    #[tokio::test]
    async fn shutdown_ends_the_whole_group_including_grandchildren() {
        let _serial = SERIAL.lock().await;
        // The server ignores EOF and SIGTERM; its background child is a grandchild.
        let cfg = shell("trap '' TERM; sleep 30 & echo $!; sleep 30");
        let Ok((mut process, stdout, stdin)) = ServerProcess::spawn(&cfg) else {
            panic!("sh did not start");
        };
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line).await;
        let grandchild: i32 = line.trim().parse().unwrap_or(0);
        let server = process.pid().unwrap_or(0);
        assert!(grandchild > 0 && alive(grandchild) && alive(server));
        drop(stdin);
        process.shutdown(Recorded::default()).await;
        assert!(gone(&[server, grandchild]).await);
    }

    #[tokio::test]
    async fn a_tree_recorded_before_eof_ends_the_orphan_of_a_server_that_exited_at_eof() {
        let _serial = SERIAL.lock().await;
        // The server exits the moment its stdin closes; its setsid() child then belongs to
        // init, and only the tree recorded before stdin closed still names it.
        let cfg = shell("setsid sleep 30 & echo $!; cat >/dev/null");
        let Ok((mut process, stdout, stdin)) = ServerProcess::spawn(&cfg) else {
            panic!("sh did not start");
        };
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line).await;
        let orphan: i32 = line.trim().parse().unwrap_or(0);
        assert!(orphan > 0 && alive(orphan));
        let before_eof = process.record_tree();
        drop(stdin);
        let _ = tokio::time::timeout(Duration::from_secs(5), process.child.wait()).await;
        assert!(alive(orphan), "the orphan outlived its server");
        process.shutdown(before_eof).await;
        assert!(gone(&[orphan]).await, "{orphan} survived");
    }

    #[tokio::test]
    async fn drop_and_the_exit_hook_kill_the_group() {
        let _serial = SERIAL.lock().await;
        let Ok((process, _out, _in)) = ServerProcess::spawn(&shell("sleep 30 & sleep 30")) else {
            panic!("sh did not start");
        };
        let pid = process.pid().unwrap_or(0);
        drop(process);
        assert!(gone(&[pid]).await);
        let Ok((process, _out, _in)) = ServerProcess::spawn(&shell("sleep 30")) else {
            panic!("sh did not start");
        };
        let pid = process.pid().unwrap_or(0);
        assert!(kill_all_server_groups() >= 1);
        assert!(gone(&[pid]).await);
    }

    #[test]
    fn only_the_default_variables_are_inherited() {
        let names: Vec<String> = default_environment().into_iter().map(|(k, _)| k).collect();
        assert!(names
            .iter()
            .all(|n| DEFAULT_INHERITED_ENV_VARS.contains(&n.as_str())));
    }
}
