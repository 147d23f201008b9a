//! Node-API glue for the sandboxed shell path (`prism_engine::coding::sandbox_run`): the
//! engine runs a sandbox backend's wrapper program in its own process group, on a blocking
//! thread, and hands its output and then its ending to the facade through one threadsafe
//! function, in order (so every chunk reaches `onData` before the run settles). The queue
//! is bounded: a host slower than the command holds the command back instead of piling its
//! output up in memory. Abort goes through the shell's jobs (`codingShellJob`,
//! `codingShellAbort`).

use std::collections::HashMap;
use std::path::PathBuf;

use napi::bindgen_prelude::{Buffer, Function};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi_derive::napi;
use prism_engine::coding::sandbox_run::{run_sandboxed, SandboxRunRequest};
use prism_engine::coding::shell_jobs;
use prism_engine::limits::SANDBOX_STREAM_QUEUE_CHUNKS;

/// One sandboxed program.
#[napi(object)]
pub struct CodingSandboxRun {
    /// The wrapper program (a bare name is looked up on the environment's `PATH`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory (absent: the host's).
    pub cwd: Option<String>,
    /// The program's whole environment.
    pub env: HashMap<String, String>,
    /// Seconds before the whole group is killed (absent, zero or negative: no limit).
    pub timeout: Option<f64>,
}

/// How a sandboxed program ended: an exit code, or the message the run rejects with.
#[napi(object)]
pub struct CodingSandboxEnd {
    /// The exit code (null when a signal ended the program, or when the run rejects).
    pub exit_code: Option<i32>,
    /// `aborted`, `timeout:<seconds>`, or why the program could not start.
    pub rejection: Option<String>,
}

/// What the engine hands the facade.
enum Event {
    Chunk(Vec<u8>),
    End(CodingSandboxEnd),
}

/// Starts sandboxed program `run` as shell job `id` (from `codingShellJob`;
/// `codingShellAbort(id)` kills its group) and returns at once. `onEvent([chunk, null])` gets
/// each chunk of its merged stdout and stderr, then `onEvent([null, end])` its ending, once.
/// Until then the run keeps the process alive, like a child process.
#[napi(
    ts_args_type = "id: number, run: CodingSandboxRun, onEvent: (event: [chunk: Buffer | null, end: CodingSandboxEnd | null]) => void"
)]
pub fn coding_sandbox_run(
    id: u32,
    run: CodingSandboxRun,
    on_event: Function<(Option<Buffer>, Option<CodingSandboxEnd>), ()>,
) -> napi::Result<()> {
    let events = on_event
        .build_threadsafe_function::<Event>()
        .callee_handled::<false>()
        .max_queue_size::<SANDBOX_STREAM_QUEUE_CHUNKS>()
        .build_callback(|ctx| {
            Ok(match ctx.value {
                Event::Chunk(chunk) => (Some(Buffer::from(chunk)), None),
                Event::End(end) => (None, Some(end)),
            })
        })?;
    let req = SandboxRunRequest {
        program: PathBuf::from(run.program),
        args: run.args,
        cwd: run.cwd.map(PathBuf::from),
        env: run.env,
        timeout_secs: run.timeout,
    };
    let flag = shell_jobs::flag(id);
    // The thread that spawns the program stays until it ends: a parent-death signal the
    // wrapper sets (bubblewrap's `--die-with-parent`, the Landlock helper's) follows it.
    napi::bindgen_prelude::spawn_blocking(move || {
        let mut on_chunk = |chunk: &[u8]| {
            events.call(
                Event::Chunk(chunk.to_vec()),
                ThreadsafeFunctionCallMode::Blocking,
            );
        };
        let end = match run_sandboxed(&req, &flag, &mut on_chunk) {
            Ok(ending) => CodingSandboxEnd {
                rejection: ending.rejection(),
                exit_code: match ending {
                    prism_engine::coding::sandbox_run::SandboxEnding::Exited(code) => code,
                    _ => None,
                },
            },
            Err(e) => CodingSandboxEnd {
                exit_code: None,
                rejection: Some(e.to_string()),
            },
        };
        shell_jobs::end(id);
        events.call(Event::End(end), ThreadsafeFunctionCallMode::Blocking);
    });
    Ok(())
}
