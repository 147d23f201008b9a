//! Node-API glue for the shell tool's runs (`prism_engine::coding::shell`): a call starts a
//! job (the arguments checked, an id for abort), then one call runs it. With the engine's own
//! approval policy, that call checks the command first and runs it only when the check allows
//! it outright; otherwise it returns where the check stopped, and the facade finishes the
//! check (the host's `approve`, its `RegExp` rules) before it runs the job.

use std::collections::HashMap;
use std::path::PathBuf;

use napi::bindgen_prelude::{Either, PromiseRaw, Unknown};
use napi::Env;
use napi_derive::napi;
use prism_engine::coding::accumulator::{AccumulatorConfig, OutputAccumulator, Push};
use prism_engine::coding::shell::{
    finish_outcome, run_shell, ShellOutcome, ShellRequest, ShellStatus,
};
use prism_engine::coding::shell_jobs;

use crate::args::non_negative;
use crate::coding::{blocking, CodingTruncation};
use crate::coding_arguments::{shell_refusal, CodingRefusal};
use crate::errors::{spawn_coded, to_js};
use crate::policy::NativeApprovalPolicy;
use crate::policy_check::{NativeDecision, NativePolicyCheck};

// --- shell ---------------------------------------------------------------------------------

/// Starts a shell call: the engine's argument error (`command`, then `timeout`), or the id of
/// a new job (pass it to `codingShell` and `codingShellAbort`).
#[napi]
pub fn coding_shell_start(
    command: Unknown<'_>,
    timeout: Unknown<'_>,
) -> napi::Result<Either<u32, CodingRefusal>> {
    Ok(match shell_refusal(&command, &timeout)? {
        Some(refusal) => Either::B(refusal),
        None => Either::A(shell_jobs::register()),
    })
}

/// Registers a new shell job and returns its id (a run after the host finished a check).
#[napi]
pub fn coding_shell_job() -> u32 {
    shell_jobs::register()
}

/// Forgets job `id` without running it (its call ended before the run: a denial, a hook's
/// error).
#[napi]
pub fn coding_shell_forget(id: u32) {
    shell_jobs::end(id);
}

/// Aborts shell job `id`: its process group is killed within 50 ms.
#[napi]
pub fn coding_shell_abort(id: u32) {
    shell_jobs::abort(id);
}

/// Kills the process group of every shell command still running (the facade calls it when
/// the host process exits). Returns how many groups were signalled.
#[napi]
pub fn coding_shell_kill_all() -> u32 {
    u32::try_from(prism_engine::coding::group_run::kill_running_groups()).unwrap_or(u32::MAX)
}

/// One shell command.
#[napi(object)]
pub struct CodingShellRequest {
    /// The full command (prefix joined).
    pub command: String,
    /// Working directory.
    pub cwd: String,
    /// The child's whole environment.
    pub env: HashMap<String, String>,
    /// `shellPath`.
    pub shell_path: Option<String>,
    /// The host's `$SHELL`.
    pub env_shell: Option<String>,
    /// Timeout in seconds.
    pub timeout: f64,
    /// Tail line cap.
    pub max_lines: f64,
    /// Tail byte cap.
    pub max_bytes: f64,
    /// Output bound.
    pub max_total_output_bytes: f64,
    /// Spill file prefix.
    pub temp_file_prefix: String,
    /// Spill directory.
    pub temp_dir: String,
}

/// How the command ended and what it printed.
#[napi(object)]
pub struct CodingShellResult {
    /// A spawn failure (shell or cwd missing): the message.
    pub error: Option<String>,
    /// The spawn failure's `ERR_PRISM_CODING_*` code.
    pub error_code: Option<String>,
    /// A bounded failure (timeout, abort, output limit, spill): the message.
    pub failure: Option<String>,
    /// The text the model sees.
    pub text: String,
    /// The exit code (null on failure).
    pub exit_code: Option<i32>,
    /// The tail record.
    pub truncation: Option<CodingTruncation>,
    /// The kept spill file.
    pub full_output_path: Option<String>,
    /// Bytes the command wrote.
    pub total_output_bytes: f64,
    /// The output bound ended it.
    pub output_limit_exceeded: bool,
    /// The spill file failed.
    pub output_storage_failed: bool,
    /// When the engine's policy checked the command and did not allow it outright: where
    /// the check stopped (nothing ran).
    pub decision: Option<NativeDecision>,
}

/// Checks the shell tool's output options when the tool is created: `maxTotalOutputBytes` at
/// least `maxBytes`, and a `tempFilePrefix` of `[A-Za-z0-9._-]+`. Throws the engine's coded
/// error otherwise.
#[napi]
pub fn coding_check_shell_output(
    env: &Env,
    max_bytes: f64,
    max_total_output_bytes: f64,
    temp_file_prefix: String,
) -> napi::Result<()> {
    prism_engine::coding::accumulator::check_output_options(
        non_negative(max_bytes),
        non_negative(max_total_output_bytes),
        &temp_file_prefix,
    )
    .map_err(|e| to_js(env, e))
}

/// Runs shell job `id` off the JS thread (the command's own process group; timeout, abort and
/// the output bound kill the group). With the engine's approval `policy` and the action's
/// `check`, the command is checked first, in the same call: it runs only when the check
/// allows it outright; otherwise nothing runs, the job is closed and the result's `decision`
/// says where the check stopped (a run after the host's approval takes a new job).
#[napi(ts_return_type = "Promise<CodingShellResult>")]
pub fn coding_shell<'env>(
    env: &'env Env,
    id: u32,
    req: CodingShellRequest,
    policy: Option<&NativeApprovalPolicy>,
    check: Option<NativePolicyCheck>,
) -> napi::Result<PromiseRaw<'env, CodingShellResult>> {
    let decider = policy.map(NativeApprovalPolicy::decider);
    spawn_coded(env, async move {
        if let (Some(decider), Some(check)) = (decider, check) {
            let decision = blocking(move || decider.decide(&check, None)).await?;
            if !decision.allowed() {
                shell_jobs::end(id);
                return Ok(CodingShellResult {
                    decision: Some(decision),
                    ..not_run()
                });
            }
        }
        let flag = shell_jobs::flag(id);
        let max_lines = non_negative(req.max_lines);
        let max_bytes = non_negative(req.max_bytes);
        let engine_req = ShellRequest {
            command: req.command,
            cwd: PathBuf::from(req.cwd),
            env: req.env,
            shell_path: req.shell_path.map(PathBuf::from),
            env_shell: req.env_shell.map(PathBuf::from),
            timeout_secs: non_negative(req.timeout),
            output: AccumulatorConfig {
                max_lines,
                max_bytes,
                max_total_bytes: non_negative(req.max_total_output_bytes),
                temp_prefix: req.temp_file_prefix,
                temp_dir: PathBuf::from(req.temp_dir),
            },
        };
        let outcome = blocking(move || run_shell(&engine_req, &flag)).await?;
        shell_jobs::end(id);
        let o = match outcome {
            Err(e) => {
                return Ok(CodingShellResult {
                    error: Some(e.to_string()),
                    error_code: Some(e.code().to_owned()),
                    ..not_run()
                })
            }
            Ok(o) => o,
        };
        Ok(shell_result(o, max_lines, max_bytes))
    })
}

/// A result of a command that did not run.
fn not_run() -> CodingShellResult {
    CodingShellResult {
        error: None,
        error_code: None,
        failure: None,
        text: String::new(),
        exit_code: None,
        truncation: None,
        full_output_path: None,
        total_output_bytes: 0.0,
        output_limit_exceeded: false,
        output_storage_failed: false,
        decision: None,
    }
}

fn shell_result(o: ShellOutcome, max_lines: u64, max_bytes: u64) -> CodingShellResult {
    let s = &o.snapshot;
    let truncation = CodingTruncation {
        truncated: s.truncated,
        truncated_by: s.truncated_by.map(str::to_owned),
        total_lines: s.total_lines as f64,
        total_lines_known: true,
        total_bytes: s.total_bytes as f64,
        total_bytes_known: s.total_bytes_known,
        output_lines: s.output_lines as f64,
        output_bytes: s.output_bytes as f64,
        last_line_partial: s.last_line_partial,
        first_line_exceeds_limit: false,
        max_lines: max_lines as f64,
        max_bytes: max_bytes as f64,
    };
    CodingShellResult {
        error: None,
        error_code: None,
        failure: o.status.failure(),
        exit_code: match o.status {
            ShellStatus::Exited(c) => Some(c),
            _ => None,
        },
        output_limit_exceeded: matches!(o.status, ShellStatus::OutputLimit(_)),
        output_storage_failed: matches!(o.status, ShellStatus::SpillFailed),
        text: o.text,
        truncation: Some(truncation),
        full_output_path: o.full_output_path,
        total_output_bytes: o.total_output_bytes as f64,
        decision: None,
    }
}

/// The output accumulator for host `BashOperations` backends: the facade pushes each chunk
/// of `onData` here and finishes with how the command ended. Same bounds and spill file as
/// the native shell.
#[napi]
pub struct CodingOutputSink {
    acc: Option<OutputAccumulator>,
    max_lines: u64,
    max_bytes: u64,
    max_total: u64,
}

#[napi]
impl CodingOutputSink {
    /// A sink with the shell tool's bounds.
    #[napi(constructor)]
    pub fn new(
        max_lines: f64,
        max_bytes: f64,
        max_total_output_bytes: f64,
        temp_file_prefix: String,
        temp_dir: String,
    ) -> Self {
        let (max_lines, max_bytes, max_total) = (
            non_negative(max_lines),
            non_negative(max_bytes),
            non_negative(max_total_output_bytes),
        );
        Self {
            acc: Some(OutputAccumulator::new(AccumulatorConfig {
                max_lines,
                max_bytes,
                max_total_bytes: max_total,
                temp_prefix: temp_file_prefix,
                temp_dir: PathBuf::from(temp_dir),
            })),
            max_lines,
            max_bytes,
            max_total,
        }
    }

    /// Adds one chunk: `"stored"`, `"limit"` (abort the command) or `"spill_failed"` (abort).
    #[napi]
    pub fn push(&mut self, chunk: &[u8]) -> &'static str {
        match self.acc.as_mut().map(|a| a.push(chunk)) {
            Some(Push::Stored) => "stored",
            Some(Push::LimitExceeded) => "limit",
            Some(Push::SpillFailed) | None => "spill_failed",
        }
    }

    /// Ends the record. `ending` is `"exit"` (with `exitCode`), `"timeout"` (with
    /// `timeoutSecs`), `"aborted"`, `"limit"`, `"spill_failed"` or `"failed"` (with `message`).
    #[napi]
    pub fn finish(
        &mut self,
        ending: String,
        exit_code: Option<i32>,
        timeout_secs: Option<f64>,
        message: Option<String>,
    ) -> CodingShellResult {
        let status = match ending.as_str() {
            "exit" => ShellStatus::Exited(exit_code.unwrap_or(0)),
            "timeout" => ShellStatus::TimedOut(non_negative(timeout_secs.unwrap_or(0.0))),
            "aborted" => ShellStatus::Aborted,
            "limit" => ShellStatus::OutputLimit(self.max_total),
            "spill_failed" => ShellStatus::SpillFailed,
            _ => ShellStatus::Failed(message.unwrap_or_default()),
        };
        let acc = self.acc.take().unwrap_or_else(|| {
            OutputAccumulator::new(AccumulatorConfig {
                max_lines: self.max_lines,
                max_bytes: self.max_bytes,
                max_total_bytes: self.max_total,
                temp_prefix: "prism-shell".to_owned(),
                temp_dir: std::env::temp_dir(),
            })
        });
        shell_result(finish_outcome(status, acc), self.max_lines, self.max_bytes)
    }
}
