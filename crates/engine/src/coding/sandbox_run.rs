//! The sandboxed shell path's process work: a sandbox backend's wrapper program (bubblewrap's
//! `bwrap <args> -- <shell> -c <command>`, the Landlock helper) run in its own process group
//! by [`crate::coding::group_run`], like the shell tool's commands, with its output handed to
//! the caller chunk by chunk (a host's `onData`). A timeout or an abort kills the whole group,
//! and so does the program's exit (what it left running in the background is ended with it).
//!
//! The endings are the sandbox contract's: `{exitCode}` (null for a program a signal ended),
//! or a rejection with the words `aborted` or `timeout:<seconds>` ([`SandboxEnding::rejection`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::coding::group_run::{run_group, GroupBounds, GroupEnding};
use crate::js_number::js_number;

/// The shell a sandbox backend runs `<shell> -c <command>` with when the host names none
/// (`shellPath`): `/bin/sh`, as the reference's sandboxes do, so that a command behaves the
/// same under either. (The plain shell tool's default is bash, see
/// [`crate::os::shell::default_shell`].)
pub const SANDBOX_DEFAULT_SHELL: &str = "/bin/sh";

/// The code of every failure of a sandboxed run (`SandboxExecutionError`'s code).
pub const SANDBOX_EXECUTION_CODE: &str = "ERR_PRISM_SANDBOX_EXECUTION";

/// The code of a sandbox the kernel cannot provide as asked (Landlock missing, or too old for
/// the network rules).
pub const SANDBOX_UNAVAILABLE_CODE: &str = "ERR_PRISM_SANDBOX_UNAVAILABLE";

/// Why a sandboxed program did not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxRunError {
    /// The spawn failed (the wrapper program or the working directory is missing, ...).
    #[error("{program}: {message}")]
    Spawn {
        /// The program that could not start.
        program: String,
        /// The OS error.
        message: String,
    },
}

impl SandboxRunError {
    /// [`SANDBOX_EXECUTION_CODE`].
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Spawn { .. } => SANDBOX_EXECUTION_CODE,
        }
    }
}

/// One program to run.
#[derive(Debug, Clone)]
pub struct SandboxRunRequest {
    /// The wrapper program (`bwrap`, the Node binary running the Landlock helper); a bare
    /// name is looked up on `PATH`.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory (`None`: the host's).
    pub cwd: Option<PathBuf>,
    /// The whole environment of the program.
    pub env: HashMap<String, String>,
    /// Seconds before the group is killed; `None`, zero, negative or not finite: no limit.
    pub timeout_secs: Option<f64>,
}

/// How a sandboxed program ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SandboxEnding {
    /// It exited with this code (`None`: a signal ended it).
    Exited(Option<i32>),
    /// The timeout (in seconds, as given) passed; the group was killed.
    TimedOut(f64),
    /// The caller aborted; the group was killed (or nothing started).
    Aborted,
}

impl SandboxEnding {
    /// The message the run rejects with: `aborted`, `timeout:<seconds>` (the seconds as
    /// JavaScript prints them), `None` for an exit.
    #[must_use]
    pub fn rejection(&self) -> Option<String> {
        match self {
            Self::Exited(_) => None,
            Self::TimedOut(secs) => Some(format!("timeout:{}", js_number(*secs))),
            Self::Aborted => Some("aborted".to_owned()),
        }
    }
}

/// The timeout of `timeout_secs`: positive and finite seconds, else none.
fn timeout_of(timeout_secs: Option<f64>) -> Option<Duration> {
    timeout_secs
        .filter(|s| *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

/// Runs `req` to the end, handing each chunk of its merged stdout and stderr to `on_chunk`;
/// `abort` is polled (every 50 ms at most) while it runs.
///
/// # Errors
/// [`SandboxRunError::Spawn`] when the program cannot start.
pub fn run_sandboxed(
    req: &SandboxRunRequest,
    abort: &AtomicBool,
    on_chunk: &mut dyn FnMut(&[u8]),
) -> Result<SandboxEnding, SandboxRunError> {
    let mut cmd = Command::new(&req.program);
    cmd.args(&req.args).env_clear().envs(&req.env);
    if let Some(cwd) = &req.cwd {
        cmd.current_dir(cwd);
    }
    let bounds = GroupBounds {
        timeout: timeout_of(req.timeout_secs),
        abort,
        kill_leftovers: true,
    };
    let ending = run_group::<()>(&mut cmd, bounds, &mut |chunk| {
        on_chunk(chunk);
        None
    })
    .map_err(|e| SandboxRunError::Spawn {
        program: req.program.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(match ending {
        GroupEnding::Exited(st) => SandboxEnding::Exited(st.and_then(|s| s.code())),
        GroupEnding::TimedOut => SandboxEnding::TimedOut(req.timeout_secs.unwrap_or(0.0)),
        GroupEnding::Aborted | GroupEnding::Stopped(()) => SandboxEnding::Aborted,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn req(command: &str, timeout_secs: Option<f64>) -> SandboxRunRequest {
        SandboxRunRequest {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), command.into()],
            cwd: None,
            env: std::env::vars().collect(),
            timeout_secs,
        }
    }

    #[test]
    fn streams_output_and_reports_the_exit_code() -> Result<(), SandboxRunError> {
        let mut out = Vec::new();
        let mut r = req("echo $PRISM_RUN_X; exit 7", None);
        r.env.insert("PRISM_RUN_X".into(), "passed".into());
        let ending = run_sandboxed(&r, &AtomicBool::new(false), &mut |c| {
            out.extend_from_slice(c)
        })?;
        assert_eq!(ending, SandboxEnding::Exited(Some(7)));
        assert_eq!(out, b"passed\n");
        let killed = run_sandboxed(
            &req("kill -9 $$", None),
            &AtomicBool::new(false),
            &mut |_| {},
        )?;
        assert_eq!(killed, SandboxEnding::Exited(None));
        Ok(())
    }

    #[test]
    fn a_timeout_rejects_with_the_seconds_as_given() -> Result<(), SandboxRunError> {
        let ending = run_sandboxed(
            &req("sleep 30", Some(0.2)),
            &AtomicBool::new(false),
            &mut |_| {},
        )?;
        assert_eq!(ending.rejection().as_deref(), Some("timeout:0.2"));
        assert_eq!(
            SandboxEnding::TimedOut(1.0).rejection().as_deref(),
            Some("timeout:1")
        );
        assert_eq!(
            SandboxEnding::Aborted.rejection().as_deref(),
            Some("aborted")
        );
        assert_eq!(SandboxEnding::Exited(Some(0)).rejection(), None);
        assert_eq!(timeout_of(Some(0.0)), None);
        assert_eq!(timeout_of(Some(f64::INFINITY)), None);
        Ok(())
    }

    #[test]
    fn a_missing_program_is_a_coded_error() {
        let mut r = req("true", None);
        r.program = "/no/such/bwrap".into();
        let e = run_sandboxed(&r, &AtomicBool::new(false), &mut |_| {}).err();
        assert_eq!(
            e.as_ref().map(SandboxRunError::code),
            Some(SANDBOX_EXECUTION_CODE)
        );
        assert!(e.is_some_and(|e| e.to_string().starts_with("/no/such/bwrap: ")));
    }
}
