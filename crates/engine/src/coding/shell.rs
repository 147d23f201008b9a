//! The shell tool's process work: one command in its own process group
//! ([`crate::coding::group_run`]), stdout and stderr merged and streamed into an
//! [`OutputAccumulator`]; timeout, abort and the output limit kill the whole group. A
//! background child that keeps the pipe open does not hold the call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::coding::accumulator::{AccumulatorConfig, OutputAccumulator, Push, Snapshot};
use crate::coding::error::CodingError;
use crate::coding::group_run::{run_group, GroupBounds, GroupEnding};
use crate::coding::size::format_size;
use crate::os::process_tree;

/// One command to run.
#[derive(Debug, Clone)]
pub struct ShellRequest {
    /// The command line (prefix already joined), passed to `<shell> -c`.
    pub command: String,
    /// Working directory.
    pub cwd: PathBuf,
    /// The whole environment of the child.
    pub env: HashMap<String, String>,
    /// The host's `shellPath`, if any.
    pub shell_path: Option<PathBuf>,
    /// The host's `$SHELL`, if any (tried when `shell_path` is unset).
    pub env_shell: Option<PathBuf>,
    /// Seconds before the group is killed.
    pub timeout_secs: u64,
    /// Tail and spill bounds.
    pub output: AccumulatorConfig,
}

/// How the command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellStatus {
    /// It exited (or was killed by a signal not ours: 128 + signal).
    Exited(i32),
    /// The timeout passed; the group was killed.
    TimedOut(u64),
    /// The caller aborted; the group was killed.
    Aborted,
    /// The output passed `maxTotalOutputBytes`; the group was killed.
    OutputLimit(u64),
    /// The spill file failed; the group was killed.
    SpillFailed,
    /// A host backend failed with this message.
    Failed(String),
}

impl ShellStatus {
    /// The failure message, `None` for an exit.
    #[must_use]
    pub fn failure(&self) -> Option<String> {
        match self {
            Self::Exited(_) => None,
            Self::TimedOut(s) => Some(format!("Command timed out after {s} seconds")),
            Self::Aborted => Some("Command aborted".to_owned()),
            Self::OutputLimit(l) => {
                Some(format!("Command output exceeded {} limit", format_size(*l)))
            }
            Self::SpillFailed => Some("Command output spill failed".to_owned()),
            Self::Failed(m) => Some(if m.is_empty() {
                "Command failed".to_owned()
            } else {
                m.clone()
            }),
        }
    }
}

/// The finished command: status, the text the model sees and the numbers.
#[derive(Debug, Clone)]
pub struct ShellOutcome {
    /// How it ended.
    pub status: ShellStatus,
    /// The tail, footer and exit or status note.
    pub text: String,
    /// The tail record.
    pub snapshot: Snapshot,
    /// The kept spill file (success with truncated output only).
    pub full_output_path: Option<String>,
    /// Bytes the command wrote.
    pub total_output_bytes: u64,
}

/// The shell binary: `shell_path`, else `$SHELL` if it exists, else
/// [`crate::os::shell::default_shell`] (`/bin/bash`, else `sh`; bash from `PATH` on Windows).
///
/// # Errors
/// `Custom shell path not found: <p>` when `shell_path` does not exist; on Windows, what to
/// install when no bash is found.
pub fn resolve_shell(
    shell_path: Option<&Path>,
    env_shell: Option<&Path>,
) -> Result<PathBuf, CodingError> {
    if let Some(p) = shell_path {
        if p.exists() {
            return Ok(p.to_path_buf());
        }
        return Err(CodingError::Spawn {
            message: format!("Custom shell path not found: {}", p.display()),
        });
    }
    if let Some(p) = env_shell.filter(|p| p.exists()) {
        return Ok(p.to_path_buf());
    }
    crate::os::shell::default_shell().map_err(|m| CodingError::Spawn {
        message: m.to_owned(),
    })
}

/// Runs `req` to the end; `abort` is polled (every 50 ms at most) while it runs.
///
/// # Errors
/// [`CodingError::TotalBelowTail`] or [`CodingError::TempPrefix`] for output options
/// [`AccumulatorConfig::check`] refuses; [`CodingError::Spawn`] when the shell or the working
/// directory is missing or the spawn fails. Every other ending is a [`ShellOutcome`].
pub fn run_shell(req: &ShellRequest, abort: &AtomicBool) -> Result<ShellOutcome, CodingError> {
    req.output.check()?;
    let shell = resolve_shell(req.shell_path.as_deref(), req.env_shell.as_deref())?;
    if !req.cwd.is_dir() {
        return Err(CodingError::Spawn {
            message: format!(
                "Working directory does not exist: {}\nCannot execute shell commands.",
                req.cwd.display()
            ),
        });
    }
    let mut cmd = Command::new(&shell);
    cmd.arg("-c")
        .arg(&req.command)
        .current_dir(&req.cwd)
        .env_clear()
        .envs(&req.env);
    let mut acc = OutputAccumulator::new(req.output.clone());
    let bounds = GroupBounds {
        timeout: Some(Duration::from_secs(req.timeout_secs)),
        abort,
        kill_leftovers: false,
    };
    let ending = run_group(&mut cmd, bounds, &mut |chunk| match acc.push(chunk) {
        Push::Stored => None,
        Push::LimitExceeded => Some(ShellStatus::OutputLimit(req.output.max_total_bytes)),
        Push::SpillFailed => Some(ShellStatus::SpillFailed),
    })
    .map_err(|e| CodingError::Spawn {
        message: e.to_string(),
    })?;
    let status = match ending {
        GroupEnding::Exited(st) => ShellStatus::Exited(st.map_or(1, process_tree::exit_code)),
        GroupEnding::TimedOut => ShellStatus::TimedOut(req.timeout_secs),
        GroupEnding::Aborted => ShellStatus::Aborted,
        GroupEnding::Stopped(status) => status,
    };
    Ok(finish_outcome(status, acc))
}

/// The outcome text and record for `status` (the spill file kept only on a truncated
/// success, removed otherwise).
pub fn finish_outcome(status: ShellStatus, mut acc: OutputAccumulator) -> ShellOutcome {
    let total_output_bytes = acc.total_bytes();
    match status.failure() {
        None => {
            let keep = acc.snapshot(None).truncated;
            let full_output_path = if keep {
                acc.keep_spill().map(|p| p.to_string_lossy().into_owned())
            } else {
                acc.discard_spill();
                None
            };
            let snapshot = acc.snapshot(full_output_path.as_deref());
            let mut text = if snapshot.content.is_empty() {
                "(no output)".to_owned()
            } else {
                snapshot.content.clone()
            };
            text.push_str(&snapshot.footer);
            if let ShellStatus::Exited(code) = status {
                if code != 0 {
                    text.push_str(&format!("\n\n[Command exited with code {code}]"));
                }
            }
            ShellOutcome {
                status,
                text,
                snapshot,
                full_output_path,
                total_output_bytes,
            }
        }
        Some(message) => {
            acc.discard_spill();
            let snapshot = acc.snapshot(None);
            let out = format!("{}{}", snapshot.content, snapshot.footer);
            let text = if out.is_empty() {
                format!("[{message}]")
            } else {
                format!("{out}\n\n[{message}]")
            };
            ShellOutcome {
                status,
                text,
                snapshot,
                full_output_path: None,
                total_output_bytes,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn req(command: &str, timeout_secs: u64) -> ShellRequest {
        ShellRequest {
            command: command.into(),
            cwd: std::env::temp_dir(),
            env: std::env::vars().collect(),
            shell_path: None,
            env_shell: None,
            timeout_secs,
            output: AccumulatorConfig {
                max_lines: 2000,
                max_bytes: 51_200,
                max_total_bytes: 64 << 20,
                temp_prefix: "prism-shell-test".into(),
                temp_dir: std::env::temp_dir(),
            },
        }
    }

    #[test]
    fn merges_stdout_and_stderr_and_reports_exit_code() -> Result<(), CodingError> {
        let out = run_shell(
            &req("echo out; echo err 1>&2; exit 3", 10),
            &AtomicBool::new(false),
        )?;
        assert_eq!(out.status, ShellStatus::Exited(3));
        assert_eq!(out.text, "out\nerr\n\n\n[Command exited with code 3]");
        Ok(())
    }

    #[test]
    fn empty_output_reads_no_output() -> Result<(), CodingError> {
        let out = run_shell(&req("true", 10), &AtomicBool::new(false))?;
        assert_eq!(out.text, "(no output)");
        Ok(())
    }

    #[test]
    fn times_out_and_kills_the_group() -> Result<(), CodingError> {
        let started = Instant::now();
        let out = run_shell(&req("sleep 30 & sleep 30", 1), &AtomicBool::new(false))?;
        assert_eq!(out.status, ShellStatus::TimedOut(1));
        assert_eq!(out.text, "[Command timed out after 1 seconds]");
        assert!(started.elapsed() < Duration::from_secs(10));
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn a_background_child_does_not_hold_the_call() -> Result<(), CodingError> {
        let started = Instant::now();
        let out = run_shell(
            &req("sleep 3 & echo $!; echo done", 10),
            &AtomicBool::new(false),
        )?;
        let pid: i32 = out
            .text
            .lines()
            .next()
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        if let Some(p) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
        assert!(out.text.ends_with("\ndone\n"), "{}", out.text);
        assert!(started.elapsed() < Duration::from_secs(2));
        Ok(())
    }

    #[test]
    fn missing_shell_and_cwd_are_errors() {
        let mut r = req("true", 1);
        r.shell_path = Some("/no/such/shell".into());
        assert_eq!(
            run_shell(&r, &AtomicBool::new(false))
                .err()
                .map(|e| e.to_string()),
            Some("Custom shell path not found: /no/such/shell".into())
        );
        let mut r = req("true", 1);
        r.cwd = "/no/such/dir".into();
        assert_eq!(
            run_shell(&r, &AtomicBool::new(false))
                .err()
                .map(|e| e.to_string()),
            Some(
                "Working directory does not exist: /no/such/dir\nCannot execute shell commands."
                    .into()
            )
        );
    }
}
