//! How a stdio session starts: the server process, the `server/discover` probe and the
//! handshake, all within the connect timeout.
//!
//! Pinned, one process runs rmcp's lifecycle for the pin. Unpinned, the bridge writes its own
//! `server/discover` probe and waits for the answer, however late it comes within the connect
//! timeout (a server started through a cold `npx` or `uvx`, or one that imports for seconds,
//! answers late), and then:
//! - a discover result offering a revision without `initialize` starts rmcp's `Discover`
//!   lifecycle on the same pipe;
//! - any other answer (a JSON-RPC error such as "method not found", a result that is not a
//!   discover result, one that broke a bound) shows a server that read the probe and does not
//!   speak the new lifecycle: `initialize` follows on the same pipe, never while the probe may
//!   still be answered;
//! - a modern rejection (a missing client capability, a header mismatch) fails the connect, as
//!   rmcp's own probe does.
//!
//! An older server may ignore a request it does not know before `initialize`, and never answer
//! the probe. So if nothing answers within [`MCP_DISCOVER_PROBE_MS`], a fresh process starts
//! beside the first with `initialize` alone. Whichever is ready first is the session and the
//! other ends with its whole tree; once the first process answers the probe, the fresh one
//! ends and the first goes on as above. A failed connect, a timeout and an abort end every
//! process started.

use std::time::{Duration, Instant};

use rmcp::model::{
    ClientConfig, ClientJsonRpcMessage, ClientRequest, DiscoverRequest, DiscoverRequestParams,
    DiscoverResult, ErrorCode, ProtocolVersion, RequestId, RequestMetaObject,
};
use rmcp::service::{serve_client_with_lifecycle_and_ct, ClientLifecycleMode, RunningService};
use rmcp::transport::Transport;
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;
use tokio::process::{ChildStdin, ChildStdout};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::frame::{FrameShared, FramedStdio};
use super::line_writer::LineWriter;
use super::negotiation::{Revision, SPOKEN_REVISIONS};
use super::progress::{Deadlines, ProgressBoard};
use super::stdio::{ServerProcess, StdioConfig};
use super::McpError;
use crate::limits::MCP_DISCOVER_PROBE_MS;

/// The request number of the bridge's own `server/discover` probe: below the session's direct
/// `tools/call` numbers and above every id rmcp gives (a `u32` counter).
pub(super) const PROBE_ID: i64 = (1 << 40) - 1;

/// A started stdio session: rmcp's service over the framed pipes, the server process, and
/// what the session keeps of the transport.
pub(super) struct Started<H: ClientHandler> {
    /// rmcp's client service, its handshake done.
    pub service: RunningService<RoleClient, H>,
    /// The server's process (tree).
    pub process: ServerProcess,
    /// The framer's request state.
    pub frames: FrameShared,
    /// The server's stdin, for the lines the session writes itself.
    pub writer: LineWriter,
    /// The requests sent through rmcp that restart their clock on progress.
    pub progress: ProgressBoard,
}

/// One server process's framed pipes, before the handshake.
struct Pipes {
    transport: FramedStdio<ChildStdout, ChildStdin>,
    frames: FrameShared,
    writer: LineWriter,
    /// Ends this process's writer and timer tasks (a child of the session's close token).
    close: CancellationToken,
}

/// What a process's handshake gives: rmcp's service and the pipes the session keeps, or the
/// failure's message (the bound the framer enforced, else rmcp's error).
type Handshake<H> = Result<(RunningService<RoleClient, H>, FrameShared, LineWriter), String>;

/// Spawns the server with its writer task and, through `start_timer`, the session's call
/// timer, both ended by a child of `close`.
fn launch(
    cfg: &StdioConfig,
    close: &CancellationToken,
    start_timer: &(dyn Fn(FrameShared, LineWriter, CancellationToken) + Sync),
) -> Result<(ServerProcess, Pipes), McpError> {
    let (process, stdout, stdin) = ServerProcess::spawn(cfg)?;
    let frames = FrameShared::default();
    let transport = FramedStdio::new(stdout, stdin, frames.clone());
    let close = close.child_token();
    let writer = LineWriter::spawn(transport.writer(), frames.clone(), close.clone());
    start_timer(frames.clone(), writer.clone(), close.clone());
    let pipes = Pipes {
        transport,
        frames,
        writer,
        close,
    };
    Ok((process, pipes))
}

/// Runs rmcp's `lifecycle` over `pipes`; a failure ends the pipes' tasks.
async fn handshake<H: ClientHandler>(
    pipes: Pipes,
    handler: H,
    lifecycle: ClientLifecycleMode,
) -> Handshake<H> {
    let Pipes {
        transport,
        frames,
        writer,
        close,
    } = pipes;
    match serve_client_with_lifecycle_and_ct(handler, transport, lifecycle, close.clone()).await {
        Ok(service) => Ok((service, frames, writer)),
        Err(e) => {
            close.cancel();
            Err(frames
                .last_error()
                .map_or_else(|| e.to_string(), |f| f.to_string()))
        }
    }
}

/// A process whose handshake ended: the session, or the connect error (the process ended,
/// with the tail of its stderr).
async fn settle<H: ClientHandler>(
    mut process: ServerProcess,
    done: Handshake<H>,
    progress: ProgressBoard,
) -> Result<Started<H>, McpError> {
    match done {
        Ok((service, frames, writer)) => Ok(Started {
            service,
            process,
            frames,
            writer,
            progress,
        }),
        Err(message) => Err(failed(&mut process, message).await),
    }
}

/// The connect error for a process that failed: ended, with the tail of its stderr.
async fn failed(process: &mut ServerProcess, mut message: String) -> McpError {
    process.kill_group();
    let tail = process.stderr_tail().await;
    if !tail.is_empty() {
        message = format!("{message}; server stderr: {}", tail.trim_end());
    }
    McpError::Connect { message }
}

/// The `server/discover` probe line, as rmcp writes its own: the newest revision's `_meta`
/// envelope with the client's identity and capabilities.
fn probe_line(client: &ClientConfig) -> Vec<u8> {
    let meta = RequestMetaObject::with_client_context(
        ProtocolVersion::V_2026_07_28,
        client.client_info.clone(),
        client.capabilities.clone(),
    );
    let mut discover = DiscoverRequest::new(DiscoverRequestParams {});
    discover.extensions.insert(meta);
    let message = ClientJsonRpcMessage::request(
        ClientRequest::DiscoverRequest(discover),
        RequestId::Number(PROBE_ID),
    );
    // A message of rmcp's own model types always serializes.
    let mut line = serde_json::to_vec(&message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// What the probe's answer says about the server.
#[derive(Debug)]
enum Verdict {
    /// It speaks these revisions without `initialize` (newest first).
    Modern(Vec<ProtocolVersion>),
    /// It read the probe and does not speak the new lifecycle.
    Legacy,
    /// It refused the client the new lifecycle's way.
    Refused(McpError),
    /// Its stdout ended (it exited) or the clock ran out: no answer.
    Gone(McpError),
}

/// Reads the probe's outcome.
fn verdict(answer: Result<Value, McpError>) -> Verdict {
    match answer {
        Ok(result) => match serde_json::from_value::<DiscoverResult>(result) {
            Ok(discovered) => {
                let offered: Vec<ProtocolVersion> = SPOKEN_REVISIONS
                    .iter()
                    .filter(|r| !r.has_initialize() && discovered.supported_versions.contains(r))
                    .cloned()
                    .collect();
                if offered.is_empty() {
                    Verdict::Legacy
                } else {
                    Verdict::Modern(offered)
                }
            }
            Err(_) => Verdict::Legacy,
        },
        Err(McpError::Remote { code, message })
            if code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0
                || code == ErrorCode::HEADER_MISMATCH.0 =>
        {
            Verdict::Refused(McpError::Connect {
                message: format!("server/discover was refused: {message} ({code})"),
            })
        }
        Err(
            e @ (McpError::Transport { .. }
            | McpError::CallTimeout { .. }
            | McpError::TotalTimeout { .. }),
        ) => Verdict::Gone(e),
        Err(_) => Verdict::Legacy,
    }
}

/// Starts a stdio session for `revision` (see the module's doc). `make_handler` gives rmcp's
/// client handler for each process tried, with its progress board; `start_timer` starts the
/// session's call timer for a process. The caller bounds the whole start with its connect
/// timeout and its abort: dropping this future ends every process it started (their drop
/// kills their trees).
///
/// # Errors
/// [`McpError::Connect`] naming what failed (on both processes, when a fresh one was tried).
pub(super) async fn start<H, F>(
    cfg: &StdioConfig,
    revision: &Revision,
    make_handler: F,
    start_timer: &(dyn Fn(FrameShared, LineWriter, CancellationToken) + Sync),
    close: &CancellationToken,
    connect_timeout: Duration,
) -> Result<Started<H>, McpError>
where
    H: ClientHandler,
    F: Fn(ProgressBoard) -> H,
{
    let (process, mut pipes) = launch(cfg, close, start_timer)?;
    let progress = ProgressBoard::default();
    let handler = make_handler(progress.clone());
    if !revision.may_fall_back() {
        let done = handshake(pipes, handler, revision.lifecycle()).await;
        return settle(process, done, progress).await;
    }
    // Ends the first process's tasks on every way out but its own handshake.
    let first_tasks = pipes.close.clone().drop_guard();
    let (tx, mut answer) = tokio::sync::oneshot::channel();
    let clock = Deadlines::new(Instant::now(), connect_timeout, connect_timeout);
    pipes.frames.track_direct(
        PROBE_ID,
        Box::new(move |outcome| {
            let _ = tx.send(outcome);
        }),
        clock,
    );
    if !pipes.writer.send(probe_line(&handler.get_info())) {
        pipes
            .frames
            .fail_direct(PROBE_ID, McpError::server_closed());
    }

    let window = tokio::time::sleep(Duration::from_millis(MCP_DISCOVER_PROBE_MS));
    tokio::pin!(window);
    let mut window_passed = false;
    let mut reading = true;
    // The fresh process tried with `initialize` alone, while its handshake runs.
    let mut fresh: Option<(ServerProcess, ProgressBoard, DropGuard)> = None;
    let mut fresh_done = None;
    let mut fresh_error: Option<McpError> = None;
    // The first process's probe outcome, once it ended without an answer.
    let mut first_gone: Option<McpError> = None;
    let outcome = loop {
        let start_fresh = tokio::select! {
            outcome = &mut answer, if first_gone.is_none() => {
                let outcome = outcome.unwrap_or_else(|_| Err(McpError::server_closed()));
                match verdict(outcome) {
                    Verdict::Gone(e) => {
                        // It ended without an answer (some older servers exit on a request
                        // they do not know): a fresh process with `initialize` may still do.
                        first_gone = Some(e);
                        fresh.is_none() && fresh_error.is_none()
                    }
                    other => break other,
                }
            }
            message = pipes.transport.receive(), if reading && first_gone.is_none() => {
                // Before the handshake nothing the server sends is for the bridge; the end of
                // its stdout settles the probe with the end's error.
                reading = message.is_some();
                false
            }
            () = &mut window, if !window_passed => {
                window_passed = true;
                fresh.is_none() && fresh_error.is_none()
            }
            done = async {
                match fresh_done.as_mut() {
                    Some(f) => f.await,
                    None => std::future::pending().await,
                }
            }, if fresh_done.is_some() => {
                fresh_done = None;
                let Some((fresh_process, fresh_progress, fresh_tasks)) = fresh.take() else {
                    continue;
                };
                match settle(fresh_process, done, fresh_progress).await {
                    Ok(started) => {
                        fresh_tasks.disarm();
                        drop(pipes);
                        let mut process = process;
                        process.kill_and_reap().await;
                        return Ok(started);
                    }
                    // With the first process gone too, the check below fails the connect.
                    Err(e) => {
                        fresh_error = Some(e);
                        false
                    }
                }
            }
        };
        if start_fresh {
            match launch(cfg, close, start_timer) {
                Ok((fresh_process, fresh_pipes)) => {
                    let fresh_progress = ProgressBoard::default();
                    let handler = make_handler(fresh_progress.clone());
                    let tasks = fresh_pipes.close.clone().drop_guard();
                    fresh = Some((fresh_process, fresh_progress, tasks));
                    fresh_done = Some(Box::pin(handshake(
                        fresh_pipes,
                        handler,
                        ClientLifecycleMode::Initialize,
                    )));
                }
                Err(e) => fresh_error = Some(e),
            }
        }
        if let (Some(first), None) = (&first_gone, &fresh_done) {
            let message = match fresh_error.take() {
                Some(fresh) => {
                    format!("{first}; a fresh process with initialize failed too: {fresh}")
                }
                None => first.to_string(),
            };
            let mut process = process;
            return Err(failed(&mut process, message).await);
        }
    };
    // The first process answered: the fresh one, if any, ends.
    drop(fresh_done);
    if let Some((mut fresh_process, _, fresh_tasks)) = fresh.take() {
        drop(fresh_tasks);
        fresh_process.kill_and_reap().await;
    }
    let lifecycle = match outcome {
        Verdict::Modern(offered) => ClientLifecycleMode::Discover {
            preferred_versions: offered,
        },
        Verdict::Legacy => ClientLifecycleMode::Initialize,
        Verdict::Refused(e) | Verdict::Gone(e) => {
            drop(first_tasks);
            let mut process = process;
            return Err(failed(&mut process, e.to_string()).await);
        }
    };
    first_tasks.disarm();
    let done = handshake(pipes, handler, lifecycle).await;
    settle(process, done, progress).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn discovered(versions: &[&str]) -> Value {
        json!({
            "resultType": "complete",
            "supportedVersions": versions,
            "capabilities": {},
            "ttlMs": 0,
            "cacheScope": "private",
        })
    }

    #[test]
    fn the_probe_answer_decides_the_lifecycle_on_the_same_pipe() {
        let modern = verdict(Ok(discovered(&["2026-07-28", "2025-11-25"])));
        assert!(
            matches!(&modern, Verdict::Modern(v) if v == &[ProtocolVersion::V_2026_07_28]),
            "{modern:?}"
        );
        // A discover result offering only revisions with initialize, or none: initialize.
        assert!(matches!(
            verdict(Ok(discovered(&["2025-11-25"]))),
            Verdict::Legacy
        ));
        // Anything that is not a discover result: an older server that read the probe.
        for answer in [json!({}), json!({"supportedVersions": "2026-07-28"})] {
            assert!(matches!(verdict(Ok(answer)), Verdict::Legacy));
        }
        for code in [-32601, -32602, -32022, -32603] {
            let remote = McpError::Remote {
                code,
                message: "no".into(),
            };
            assert!(matches!(verdict(Err(remote)), Verdict::Legacy), "{code}");
        }
        assert!(matches!(
            verdict(Err(McpError::MessageTooLarge { limit: 1 })),
            Verdict::Legacy
        ));
        // A modern rejection fails the connect, as rmcp's own probe does.
        let refused = McpError::Remote {
            code: ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY.0,
            message: "needs sampling".into(),
        };
        let Verdict::Refused(e) = verdict(Err(refused)) else {
            panic!("a modern rejection is final");
        };
        assert!(e.to_string().contains("needs sampling"), "{e}");
        // No answer: the pipe ended, or the clock ran out.
        assert!(matches!(
            verdict(Err(McpError::server_closed())),
            Verdict::Gone(_)
        ));
        assert!(matches!(
            verdict(Err(McpError::CallTimeout { timeout_ms: 5 })),
            Verdict::Gone(_)
        ));
    }

    #[test]
    fn the_probe_is_rmcps_own_discover_request_with_the_newest_envelope() {
        let client = ClientConfig::new(
            rmcp::model::ClientCapabilities::default(),
            rmcp::model::Implementation::new("c", "1"),
        );
        let line = probe_line(&client);
        assert_eq!(line.last(), Some(&b'\n'));
        let v: Value = serde_json::from_slice(&line).unwrap_or_default();
        assert_eq!(v["method"], "server/discover");
        assert_eq!(v["id"], PROBE_ID);
        assert!(PROBE_ID > i64::from(u32::MAX) && PROBE_ID < (1 << 40));
        let meta = &v["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "c");
    }
}
