//! One connected MCP server: the rmcp client service over a stdio or Streamable HTTP
//! transport, with bounded listing, cancellable calls and a close that ends everything (run on
//! drop too, for a session its owner lost without closing it).
//!
//! Requests go through `Peer::send_request_with_option` directly (not rmcp's helpers), so
//! that rmcp's response cache never answers a forced listing, and so that a timeout or an
//! abort sends `notifications/cancelled` and leaves the session usable. Over stdio, a
//! `tools/call` skips rmcp altogether: the session writes its line and the framer hands the
//! response to the call's waiter (see [`McpSession::start_call_result`] and
//! [`super::direct`]). Such a call has no task: its line is written at once when the pipe is
//! free (see [`super::line_writer`]; a writer task takes the rest), the reader settles the
//! calls, and one timer task per session fails those whose deadline passed.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientConfig, ClientNotification, ClientRequest, CustomRequest, CustomResult, Implementation,
    JsonRpcMessage, JsonRpcNotification, JsonRpcVersion2_0, ListToolsRequest,
    PaginatedRequestParams, ProtocolVersion, RequestId, ServerResult,
};
// Roots and sampling are deprecated by a later revision (SEP-2577), not by the ones spoken here.
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorData,
    ListRootsResult,
};
use rmcp::service::{
    serve_client_with_lifecycle_and_ct, NotificationContext, Peer, PeerRequestOptions,
    RequestContext, RunningService, ServiceError, TxJsonRpcMessage,
};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::arguments::ArgumentsJson;
use super::call_result::{
    checked_tool_result, failed_result, panicked_result, CallIdentity, OwnedCallIdentity,
    StructuredContent,
};
use super::catalogue::{CatalogueBuilder, ListedTool};
use super::direct::DirectWaiter;
use super::frame::FrameShared;
use super::host_requests::{ClientSide, HostRequest};
use super::http::{build_client, resolve_and_check, validate_url, HttpConfig};
use super::http_client::BoundedHttpClient;
use super::line_writer::LineWriter;
use super::listen;
use super::negotiation::{RequestEnvelope, Revision};
use super::output_schema::OutputSchemas;
use super::progress::{Deadlines, ProgressBoard};
use super::stdio::{ServerProcess, StdioConfig};
use super::stdio_start;
use super::tasks::{self, Created, TaskRequests, TaskTools};
use super::{McpError, McpLimits};
use crate::os::process_tree::Recorded;

/// The client name and version sent in `initialize` (the reference's).
pub const CLIENT_NAME: &str = "prism-mcp-bridge";
/// See [`CLIENT_NAME`].
pub const CLIENT_VERSION: &str = "0.0.12";
/// How long `close()` waits for the rmcp service (and an HTTP session delete) to end.
const SERVICE_CLOSE_TIMEOUT: Duration = Duration::from_millis(crate::limits::MCP_CLOSE_TIMEOUT_MS);
/// The first id of the `tools/call` requests a stdio session writes itself: rmcp numbers its
/// own requests with a `u32` counter, so ids from here on never meet one of rmcp's, and they
/// stay below 2^53, exact in every JSON reader.
const FIRST_DIRECT_ID: i64 = 1 << 40;

/// Which transport to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC.
    Stdio(StdioConfig),
    /// A Streamable HTTP endpoint.
    Http(HttpConfig),
}

impl TransportConfig {
    /// The refusal of a transport `type` that is neither `stdio` nor `streamable-http`.
    #[must_use]
    pub fn unsupported(kind: &str) -> McpError {
        McpError::InvalidTransport {
            message: format!("unsupported MCP transport type {kind}"),
        }
    }
}

pub use super::listen::ListChangedHook;

struct BridgeHandler {
    info: ClientConfig,
    /// Which of the server's own requests the host answers.
    client: ClientSide,
    on_list_changed: ListChangedHook,
    /// The requests sent through rmcp that restart their clock on progress.
    progress: ProgressBoard,
}

// Roots and sampling are deprecated by a later revision (SEP-2577), not by the ones spoken here.
#[allow(deprecated)]
impl ClientHandler for BridgeHandler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        (self.on_list_changed)();
        std::future::ready(())
    }

    fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        self.progress.ring(&params.progress_token);
        std::future::ready(())
    }

    fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        self.client.resource_updated(params);
        std::future::ready(())
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let params = serde_json::Map::new();
        self.client
            .answer_typed(HostRequest::Roots, params, &context.ct)
            .await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.client
            .answer_typed(HostRequest::Sampling, params, &context.ct)
            .await
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.client
            .answer_typed(HostRequest::Elicitation, request, &context.ct)
            .await
    }
}

/// A connected server.
pub struct McpSession {
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, BridgeHandler>>>,
    /// Taken by `close()`: the peer keeps the service's outgoing channel (and what the server
    /// sent at the handshake) alive, which a closed session that is still referenced must not.
    peer: std::sync::Mutex<Option<Peer<RoleClient>>>,
    process: tokio::sync::Mutex<Option<ServerProcess>>,
    /// The stdio server's process id: its tree is recorded the moment the session is marked
    /// closed, before anything can close its stdin (see [`McpSession::mark_closed`]).
    server_pid: Option<u32>,
    limits: McpLimits,
    closed: AtomicBool,
    close_token: CancellationToken,
    /// The stdio framer's request state (errors it raised for requests); default for HTTP.
    frames: FrameShared,
    /// The runtime the session was connected on: dropping an open session spawns its close
    /// there (a drop must not block, and may happen on a thread outside the runtime).
    runtime: Option<tokio::runtime::Handle>,
    /// A stdio server's stdin: `tools/call` requests are written here directly and their
    /// responses routed back by the framer, without rmcp's per-request machinery (its
    /// request channel, send task, response table and typed serialization). `None` for HTTP,
    /// and taken by `close()` (the channel is connection state a kept session must not hold).
    direct: std::sync::Mutex<Option<LineWriter>>,
    /// The next id of a directly written `tools/call`.
    next_direct_id: AtomicI64,
    /// Whether `tools/call` requests are written directly (stdio), for the session's life.
    writes_directly: bool,
    /// The `_meta` envelope the negotiated revision requires on the lines written directly.
    envelope: RequestEnvelope,
    /// The negotiated protocol revision.
    revision: ProtocolVersion,
    /// The output schemas of the last listing: calls' `structuredContent` is checked here.
    outputs: Arc<OutputSchemas>,
    /// The requests sent through rmcp that wait, by progress token.
    progress: ProgressBoard,
    /// The tools of the last listing that are called as tasks.
    task_tools: TaskTools,
    /// What the server said of itself at the handshake; let go by `close()`.
    server: std::sync::Mutex<Option<Box<ServerFacts>>>,
    /// The client declared MCP Apps: listings keep each tool's `_meta` for the app judgement.
    apps: bool,
}

/// What a server said of itself at the handshake.
struct ServerFacts {
    /// Its capabilities (an object).
    capabilities: Value,
    /// Its `serverInfo`, if it sent one.
    version: Option<Value>,
}

impl std::fmt::Debug for McpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSession")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

fn service_error(e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(data) => McpError::remote(data),
        // The transport's own error, without rmcp's wrapping (which names Rust types).
        ServiceError::TransportSend(e) => McpError::Transport {
            message: super::http_client::error_chain(&*e.error),
        },
        other => McpError::Transport {
            message: other.to_string(),
        },
    }
}

/// A result as the JSON object hosts see (every MCP result is an object: checked here for
/// every transport).
fn result_object(result: ServerResult) -> Result<Value, McpError> {
    match raw_result(result) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(McpError::InvalidResponse {
            reason: "its result is not an object".into(),
        }),
        Err(e) => Err(McpError::Transport {
            message: e.to_string(),
        }),
    }
}

/// A result as JSON: the stdio transport hands a `tools/call` result over as the JSON the
/// server sent ([`ServerResult::CustomResult`]); any other result is rmcp's typed value.
fn raw_result(result: ServerResult) -> Result<Value, serde_json::Error> {
    match result {
        ServerResult::CustomResult(CustomResult(v)) => Ok(v),
        other => serde_json::to_value(other),
    }
}

/// `notifications/cancelled` for request `id`, sent through rmcp or written as a line.
fn cancelled(id: RequestId, reason: &str) -> ClientNotification {
    ClientNotification::CancelledNotification(CancelledNotification::new(
        CancelledNotificationParam::new(Some(id), Some(reason.to_owned())),
    ))
}

/// The `notifications/cancelled` line for direct request `n`, serialized as rmcp's
/// transport serializes its own messages.
fn cancelled_line(n: i64, reason: &str) -> Vec<u8> {
    let message: TxJsonRpcMessage<RoleClient> = JsonRpcMessage::Notification(JsonRpcNotification {
        jsonrpc: JsonRpcVersion2_0,
        notification: cancelled(RequestId::Number(n), reason),
    });
    // A notification of rmcp's own model types always serializes.
    let mut line = serde_json::to_vec(&message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// One `tools/call` request line (ending in `\n`), the checked arguments copied in as they
/// are, with `_meta`: the call's progress token (its request number) and the negotiated
/// revision's envelope when it needs one; with `task: {ttl}` when `task_ttl` is given (a
/// call made as a task).
/// A direct `tools/call` ready to write: its number, line, clock and waiter.
struct DirectStart {
    n: i64,
    line: Vec<u8>,
    clock: Deadlines,
    waiter: DirectWaiter,
}

/// One call of [`McpSession::start_call_results`]: its number (from
/// [`McpSession::next_call_number`]), identity, arguments and what receives its `ToolResult`.
pub struct DirectCall {
    /// The request number.
    pub n: i64,
    /// Whose call it is.
    pub id: OwnedCallIdentity,
    /// The arguments.
    pub arguments: ArgumentsJson,
    /// Receives the call's `ToolResult`, as [`McpSession::start_call_result`]'s `done`.
    pub done: Box<dyn FnOnce(Value) + Send>,
}

fn call_line(
    id: i64,
    remote_name: &str,
    arguments: &ArgumentsJson,
    envelope: &RequestEnvelope,
    task_ttl: Option<u64>,
) -> Vec<u8> {
    let args = arguments.as_str().as_bytes();
    let meta = envelope.member().unwrap_or("");
    let mut line = Vec::with_capacity(96 + remote_name.len() + args.len() + meta.len());
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    line.extend_from_slice(id.to_string().as_bytes());
    line.extend_from_slice(b",\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":");
    line.extend_from_slice(id.to_string().as_bytes());
    // The envelope is one JSON object: its members follow the token's.
    match meta.strip_prefix('{') {
        Some(members) if members != "}" => {
            line.push(b',');
            line.extend_from_slice(members.as_bytes());
        }
        _ => line.push(b'}'),
    }
    line.push(b',');
    if let Some(ttl) = task_ttl {
        line.extend_from_slice(b"\"task\":{\"ttl\":");
        line.extend_from_slice(ttl.to_string().as_bytes());
        line.extend_from_slice(b"},");
    }
    line.extend_from_slice(b"\"name\":");
    // A string serializes into a Vec without fail.
    let _ = serde_json::to_writer(&mut line, remote_name);
    line.extend_from_slice(b",\"arguments\":");
    line.extend_from_slice(args);
    line.extend_from_slice(b"}}\n");
    line
}

/// One `tasks/*` request line (ending in `\n`) for task `task_id`. Tasks are only used on
/// a revision with `initialize`, whose requests need no `_meta` envelope.
fn task_line(id: i64, method: &str, task_id: &str) -> Vec<u8> {
    let message = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        "params": {"taskId": task_id},
    });
    // A JSON value serializes into a Vec without fail.
    let mut line = serde_json::to_vec(&message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// The task that fails the direct calls whose deadline passed (with
/// [`McpError::CallTimeout`], or [`McpError::TotalTimeout`] when progress kept one going that
/// long, telling the server with `notifications/cancelled`). It sleeps until the earliest
/// deadline (a deadline progress moved on is found still waiting, and slept for again), or
/// until a call arrives while none waits. It ends when the session closes.
fn spawn_call_timer(frames: FrameShared, writer: LineWriter, close: CancellationToken) {
    tokio::spawn(async move {
        loop {
            let Some(deadline) = frames.first_direct_deadline() else {
                tokio::select! {
                    () = frames.direct_added() => continue,
                    () = close.cancelled() => return,
                }
            };
            tokio::select! {
                () = tokio::time::sleep_until(deadline.into()) => {}
                () = close.cancelled() => return,
            }
            for n in frames.expire_direct(Instant::now()) {
                writer.send(cancelled_line(n, "request timeout"));
            }
        }
    });
}

impl McpSession {
    /// Starts the transport and runs the handshake within `limits.call_timeout_ms`, or until
    /// `cancel` fires. On any failure the server's process group is killed. `client` says
    /// which capabilities `initialize` declares and answers the server's own requests.
    ///
    /// # Errors
    /// [`McpError::Connect`], [`McpError::ConnectTimeout`], [`McpError::Aborted`], or a
    /// transport check ([`McpError::InvalidTransport`], [`McpError::NotPublic`]).
    pub async fn connect(
        transport: &TransportConfig,
        limits: McpLimits,
        revision: &Revision,
        on_list_changed: ListChangedHook,
        client: ClientSide,
        cancel: CancellationToken,
    ) -> Result<Self, McpError> {
        let declared = client.capabilities();
        let mut info = ClientConfig::new(
            declared.clone(),
            Implementation::new(CLIENT_NAME, CLIENT_VERSION),
        );
        info.protocol_version = revision.initialize_offer();
        let make_handler = |progress: ProgressBoard| BridgeHandler {
            info: info.clone(),
            client: client.clone(),
            on_list_changed: Arc::clone(&on_list_changed),
            progress,
        };
        let lifecycle = || revision.lifecycle();
        let timeout = Duration::from_millis(limits.call_timeout_ms);
        let ct = CancellationToken::new();
        // Fired by close() and by a failed connect; ends the HTTP client's waiting I/O and the
        // stdio writer and timer tasks.
        let close_token = CancellationToken::new();
        // A connect that fails ends the tasks it started (the stdio writer and timer) too.
        let failed_connect = close_token.clone().drop_guard();
        let mut frames = FrameShared::default();
        let mut progress = ProgressBoard::default();
        let mut direct = None;
        let (service, process) = match transport {
            TransportConfig::Stdio(cfg) => {
                let starting = stdio_start::start(
                    cfg,
                    revision,
                    make_handler,
                    &spawn_call_timer,
                    &close_token,
                    timeout,
                );
                let started = tokio::select! {
                    r = tokio::time::timeout(timeout, starting) => r,
                    () = cancel.cancelled() => return Err(McpError::Aborted),
                };
                match started {
                    Ok(Ok(started)) => {
                        frames = started.frames;
                        progress = started.progress;
                        direct = Some(started.writer);
                        (started.service, Some(started.process))
                    }
                    Ok(Err(e)) => return Err(e),
                    Err(_) => {
                        return Err(McpError::ConnectTimeout {
                            timeout_ms: limits.call_timeout_ms,
                        });
                    }
                }
            }
            TransportConfig::Http(cfg) => {
                let url = validate_url(cfg)?;
                let resolver = client.resolver();
                let resolving = resolve_and_check(&url, cfg, resolver.as_deref());
                let pinned = tokio::select! {
                    r = tokio::time::timeout(timeout, resolving) => r.map_err(|_| McpError::ConnectTimeout {
                        timeout_ms: limits.call_timeout_ms,
                    })??,
                    () = cancel.cancelled() => return Err(McpError::Aborted),
                };
                let bearer = client.oauth_host().map(super::http_bearer::Bearer::new);
                let client = build_client(&url, &pinned, cfg)?;
                let bytes = usize::try_from(cfg.max_response_bytes).unwrap_or(usize::MAX);
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .max_sse_event_size(bytes)
                    .max_json_response_size(bytes);
                config.retry_config = Arc::new(super::sse_resume::reconnect_policy());
                if revision.may_fall_back() {
                    frames.allow_probe_fallback();
                }
                let client = BoundedHttpClient::new(client, frames.clone(), close_token.clone())
                    .with_bearer(bearer);
                let t = StreamableHttpClientTransport::with_client(client, config);
                let handler = make_handler(progress.clone());
                let started = tokio::select! {
                    r = tokio::time::timeout(timeout, serve_client_with_lifecycle_and_ct(handler, t, lifecycle(), ct.clone())) => r,
                    () = cancel.cancelled() => { ct.cancel(); close_token.cancel(); return Err(McpError::Aborted) }
                };
                match started {
                    Ok(Ok(s)) => (s, None),
                    Ok(Err(e)) => {
                        close_token.cancel();
                        let message = frames
                            .last_error()
                            .map_or_else(|| e.to_string(), |f| f.to_string());
                        return Err(McpError::Connect { message });
                    }
                    Err(_) => {
                        ct.cancel();
                        close_token.cancel();
                        return Err(McpError::ConnectTimeout {
                            timeout_ms: limits.call_timeout_ms,
                        });
                    }
                }
            }
        };
        failed_connect.disarm();
        if service
            .peer()
            .peer_info()
            .is_some_and(|p| listen::needs_stream(&p))
        {
            let (opened, first_opened) = tokio::sync::oneshot::channel();
            listen::spawn_tool_list_listener(
                service.peer().clone(),
                Arc::clone(&on_list_changed),
                close_token.clone(),
                opened,
            );
            // A change made once connect resolves must reach the bridge: wait (bounded) for the
            // server to acknowledge the stream; without it, connect goes on as before.
            let wait = timeout.min(Duration::from_millis(crate::limits::MCP_LISTEN_ACK_WAIT_MS));
            let _ = tokio::time::timeout(wait, first_opened).await;
        }
        let writes_directly = direct.is_some();
        let spoken = service.peer().peer_info().map_or_else(
            || revision.initialize_offer(),
            |p| p.protocol_version.clone(),
        );
        let envelope = RequestEnvelope::for_revision(
            &spoken,
            &Implementation::new(CLIENT_NAME, CLIENT_VERSION),
            &declared,
        );
        let server = service.peer().peer_info();
        let server_capabilities = server
            .as_ref()
            .and_then(|p| serde_json::to_value(&p.capabilities).ok())
            .filter(Value::is_object)
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        let server_version = server
            .as_ref()
            .and_then(|p| serde_json::to_value(&p.server_info).ok());
        Ok(Self {
            server: std::sync::Mutex::new(Some(Box::new(ServerFacts {
                capabilities: server_capabilities,
                version: server_version,
            }))),
            envelope,
            revision: spoken,
            writes_directly,
            peer: std::sync::Mutex::new(Some(service.peer().clone())),
            service: tokio::sync::Mutex::new(Some(service)),
            server_pid: process
                .as_ref()
                .and_then(ServerProcess::pid)
                .and_then(|p| u32::try_from(p).ok()),
            process: tokio::sync::Mutex::new(process),
            limits,
            closed: AtomicBool::new(false),
            close_token,
            frames,
            runtime: tokio::runtime::Handle::try_current().ok(),
            direct: std::sync::Mutex::new(direct),
            next_direct_id: AtomicI64::new(FIRST_DIRECT_ID),
            outputs: Arc::new(OutputSchemas::new()),
            progress,
            task_tools: TaskTools::default(),
            apps: client.apps,
        })
    }

    /// The limits this session enforces.
    #[must_use]
    pub fn limits(&self) -> &McpLimits {
        &self.limits
    }

    /// The protocol revision negotiated with the server.
    #[must_use]
    pub fn revision(&self) -> &str {
        self.revision.as_str()
    }

    /// The server's capabilities from the handshake (an object).
    ///
    /// # Errors
    /// [`McpError::Closed`] once the session is closed.
    pub fn server_capabilities(&self) -> Result<Value, McpError> {
        self.server
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|s| s.capabilities.clone())
            .ok_or(McpError::Closed)
    }

    /// The server's `serverInfo` from the handshake (`None` without one, or once closed).
    #[must_use]
    pub fn server_version(&self) -> Option<Value> {
        self.server
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(|s| s.version.clone())
    }

    /// How many answers the session ignored: for requests never sent, already settled, or
    /// naming none.
    #[must_use]
    pub fn strays(&self) -> u64 {
        self.frames.strays()
    }

    /// The stdio server's process id (its process group id), if any.
    pub async fn server_pid(&self) -> Option<i32> {
        self.process
            .lock()
            .await
            .as_ref()
            .and_then(ServerProcess::pid)
    }

    /// The peer while the session is open.
    fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn send_cancelled(&self, id: RequestId, reason: &str) {
        let Some(peer) = self.peer() else { return };
        let n = cancelled(id, reason);
        tokio::spawn(async move {
            let _ = peer.send_notification(n).await;
        });
    }

    /// Sends one request and waits for its raw result, at most `timeout_ms`, until `cancel`
    /// fires, or until the session closes.
    pub(super) async fn request(
        &self,
        req: ClientRequest,
        timeout_ms: u64,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let limits = McpLimits {
            call_timeout_ms: timeout_ms,
            ..self.limits
        };
        self.request_on_clock(req, limits.call_deadlines(Instant::now()), cancel)
            .await
    }

    /// [`McpSession::request`] on a clock of the caller's.
    async fn request_on_clock(
        &self,
        req: ClientRequest,
        mut clock: Deadlines,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let peer = match self.peer() {
            Some(p) if !self.closed.load(Ordering::Acquire) => p,
            _ => return Err(McpError::Closed),
        };
        let mut handle = peer
            .send_request_with_option(req, PeerRequestOptions::no_options())
            .await
            .map_err(service_error)?;
        let watch = self.progress.watch(&handle.progress_token);
        let outcome = loop {
            break tokio::select! {
                r = &mut handle.rx => match r {
                    Ok(Ok(result)) => result_object(result),
                    // The transport settled the request itself (a bound or shape error, or an
                    // HTTP reply it parsed and held): rmcp got a stand-in error.
                    Ok(Err(e)) => match self.frames.take_settled(&handle.id) {
                        Some(Ok(result)) => result_object(result),
                        Some(Err(error)) => Err(error),
                        None => Err(service_error(e)),
                    },
                    Err(_) => Err(McpError::server_closed()),
                },
                () = watch.progressed() => {
                    clock.progressed(Instant::now());
                    continue;
                }
                () = tokio::time::sleep_until(clock.due.into()) => {
                    self.send_cancelled(handle.id.clone(), "request timeout");
                    Err(clock.timeout_error())
                }
                () = cancel.cancelled() => {
                    self.send_cancelled(handle.id.clone(), "aborted");
                    Err(McpError::Aborted)
                }
                () = self.close_token.cancelled() => Err(McpError::Closed),
            };
        };
        drop(watch);
        self.frames.forget(&handle.id);
        outcome
    }

    /// Every `tools/list` page, checked against the limits.
    ///
    /// # Errors
    /// The first bound broken, a timeout (`callTimeoutMs` per page), an abort, or a
    /// transport failure.
    pub async fn list_tools(
        &self,
        cancel: &CancellationToken,
    ) -> Result<Vec<ListedTool>, McpError> {
        let mut catalogue = CatalogueBuilder::new(self.limits).keeping_meta(self.apps);
        let mut cursor: Option<String> = None;
        loop {
            let req = if self.revision == ProtocolVersion::V_2025_11_25 {
                // Raw, so that the listing keeps `execution` (which tools are called as
                // tasks), a member rmcp's tool type drops.
                let params = cursor.take().map(|c| serde_json::json!({ "cursor": c }));
                ClientRequest::CustomRequest(CustomRequest::new("tools/list", params))
            } else {
                let params = PaginatedRequestParams::default().with_cursor(cursor.take());
                ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params))
            };
            let page = self
                .request(req, self.limits.call_timeout_ms, cancel)
                .await?;
            match catalogue.add_page(&page)? {
                Some(next) => cursor = Some(next),
                None => {
                    let tools = catalogue.finish();
                    self.outputs.replace(&tools);
                    self.task_tools.replace(&tools);
                    return Ok(tools);
                }
            }
        }
    }

    /// Calls `remote_name` and returns the raw result (not yet measured or mapped).
    ///
    /// # Errors
    /// [`McpError::CallTimeout`] after `timeout_ms`, [`McpError::Aborted`], [`McpError::Closed`],
    /// [`McpError::Remote`] or [`McpError::Transport`].
    pub async fn call_tool(
        &self,
        remote_name: &str,
        arguments: &ArgumentsJson,
        timeout_ms: u64,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        if self.calls_as_task(remote_name) {
            return self
                .call_as_task(remote_name, arguments, timeout_ms, cancel)
                .await;
        }
        if self.writes_directly {
            return self
                .call_direct(remote_name, arguments, timeout_ms, cancel)
                .await;
        }
        let params =
            CallToolRequestParams::new(remote_name.to_owned()).with_arguments(arguments.to_map()?);
        let req = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        self.request(req, timeout_ms, cancel).await
    }

    /// [`McpSession::call_tool`] over stdio: a direct call awaited here, failed by the
    /// session's timer after `timeout_ms` (restarted by progress, up to `maxTotalTimeoutMs`)
    /// or when `cancel` fires.
    async fn call_direct(
        &self,
        remote_name: &str,
        arguments: &ArgumentsJson,
        timeout_ms: u64,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let n = self.next_call_number();
        let limits = McpLimits {
            call_timeout_ms: timeout_ms,
            ..self.limits
        };
        let line = call_line(n, remote_name, arguments, &self.envelope, None);
        self.direct_request(n, line, limits.call_deadlines(Instant::now()), cancel)
            .await
    }

    /// Writes request `line`, number `n`, and waits for its result until `clock` runs out
    /// (the session's timer fails it), `cancel` fires, or the session closes.
    async fn direct_request(
        &self,
        n: i64,
        line: Vec<u8>,
        clock: Deadlines,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.start_direct(
            n,
            line,
            clock,
            Box::new(move |outcome| {
                let _ = tx.send(outcome);
            }),
        );
        tokio::select! {
            r = rx => r.unwrap_or_else(|_| Err(McpError::server_closed())),
            () = cancel.cancelled() => {
                self.give_up(n, "aborted", McpError::Aborted);
                Err(McpError::Aborted)
            }
        }
    }

    /// Whether calls of `remote_name` are made as tasks: its last listing requires it
    /// (`execution.taskSupport: "required"`) and the negotiated revision has these tasks
    /// (2025-11-25; the 2026-07-28 revision's tasks are another protocol).
    #[must_use]
    pub fn calls_as_task(&self, remote_name: &str) -> bool {
        self.revision == ProtocolVersion::V_2025_11_25 && self.task_tools.contains(remote_name)
    }

    /// [`McpSession::call_tool`] as a task: `tools/call` with `params.task`, then the task
    /// followed to its result ([`tasks::follow`]) on the call's clock.
    async fn call_as_task(
        &self,
        remote_name: &str,
        arguments: &ArgumentsJson,
        timeout_ms: u64,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let limits = McpLimits {
            call_timeout_ms: timeout_ms,
            ..self.limits
        };
        let clock = limits.call_deadlines(Instant::now());
        // The task need not outlive the call.
        let ttl = self.limits.max_total_timeout_ms;
        let answer = if self.writes_directly {
            let n = self.next_call_number();
            let line = call_line(n, remote_name, arguments, &self.envelope, Some(ttl));
            self.direct_request(n, line, clock, cancel).await?
        } else {
            let params = serde_json::json!({
                "name": remote_name,
                "arguments": Value::Object(arguments.to_map()?),
                "task": {"ttl": ttl},
            });
            let req = ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(params)));
            self.request_on_clock(req, clock, cancel).await?
        };
        match tasks::created(&answer)? {
            Created::Plain => Ok(answer),
            Created::Task(task) => tasks::follow(&SessionTasks(self), task, clock, cancel).await,
        }
    }

    /// Sends `tasks/cancel` for `task_id` and lets it be: its answer is ignored, and it is
    /// given up after [`crate::limits::MCP_TASK_CANCEL_TIMEOUT_MS`].
    fn cancel_task(&self, task_id: &str) {
        let bound = Duration::from_millis(crate::limits::MCP_TASK_CANCEL_TIMEOUT_MS);
        if self.writes_directly {
            let n = self.next_call_number();
            let clock = Deadlines::new(Instant::now(), bound, bound);
            self.start_direct(
                n,
                task_line(n, "tasks/cancel", task_id),
                clock,
                Box::new(drop),
            );
            return;
        }
        let Some(peer) = self.peer() else { return };
        let frames = self.frames.clone();
        let params = serde_json::json!({"taskId": task_id});
        let req = ClientRequest::CustomRequest(CustomRequest::new("tasks/cancel", Some(params)));
        tokio::spawn(async move {
            let Ok(handle) = peer
                .send_request_with_option(req, PeerRequestOptions::no_options())
                .await
            else {
                return;
            };
            let id = handle.id.clone();
            let _ = tokio::time::timeout(bound, handle.rx).await;
            frames.forget(&id);
        });
    }

    /// Whether `tools/call` requests are written directly (a stdio session): then
    /// [`McpSession::start_call_result`] starts a call without a task.
    #[must_use]
    pub fn writes_directly(&self) -> bool {
        self.writes_directly
    }

    /// A fresh request number for [`McpSession::start_call_result`] (reserved first, so the
    /// caller can record it before the call can end).
    pub fn next_call_number(&self) -> i64 {
        self.next_direct_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Writes `line`, `tools/call` number `n`, and returns at once; `waiter` gets its outcome.
    fn start_direct(&self, n: i64, line: Vec<u8>, clock: Deadlines, waiter: DirectWaiter) {
        self.start_directs(vec![DirectStart {
            n,
            line,
            clock,
            waiter,
        }]);
    }

    /// Writes the lines of `calls` in one write (one system call, one wake-up of the server
    /// for a turn's calls) and returns at once; each call's waiter gets its outcome.
    fn start_directs(&self, calls: Vec<DirectStart>) {
        if self.closed.load(Ordering::Acquire) {
            for call in calls {
                (call.waiter)(Err(McpError::Closed));
            }
            return;
        }
        let mut bytes = Vec::with_capacity(calls.iter().map(|c| c.line.len()).sum());
        let mut numbers = Vec::with_capacity(calls.len());
        // Tracked before they are written, so no response can come first.
        for call in calls {
            bytes.extend_from_slice(&call.line);
            numbers.push(call.n);
            self.frames.track_direct(call.n, call.waiter, call.clock);
        }
        let sent = self
            .direct
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|w| w.send(bytes));
        if !sent {
            // The writer stopped: the session closed, or the pipe failed.
            for n in numbers {
                let error = if self.closed.load(Ordering::Acquire) {
                    McpError::Closed
                } else {
                    McpError::server_closed()
                };
                self.frames.fail_direct(n, error);
            }
        }
    }

    /// Starts direct calls as [`McpSession::start_call_result`] does, every line in one write.
    pub fn start_call_results(&self, calls: Vec<DirectCall>) {
        let starts = calls
            .into_iter()
            .map(|c| self.direct_start(c.n, c.id, &c.arguments, c.done))
            .collect();
        self.start_directs(starts);
    }

    /// Starts a stdio `tools/call` (see [`McpSession::writes_directly`]) numbered `n` (from
    /// [`McpSession::next_call_number`]) without waiting: `done` receives its `ToolResult`,
    /// mapped as by [`McpSession::call_tool_result`], on whichever thread settles it (the
    /// reader, the timer, an abort or a close; this one if the session is closed already).
    /// It fails after the session's `callTimeoutMs`, a clock that progress the server reports
    /// for the call restarts, up to `maxTotalTimeoutMs`.
    pub fn start_call_result(
        &self,
        n: i64,
        id: OwnedCallIdentity,
        arguments: &ArgumentsJson,
        done: impl FnOnce(Value) + Send + 'static,
    ) {
        let start = self.direct_start(n, id, arguments, Box::new(done));
        self.start_directs(vec![start]);
    }

    /// The line, clock and waiter of direct call `n`.
    fn direct_start(
        &self,
        n: i64,
        id: OwnedCallIdentity,
        arguments: &ArgumentsJson,
        done: Box<dyn FnOnce(Value) + Send>,
    ) -> DirectStart {
        let limits = self.limits;
        let line = call_line(n, &id.remote_name, arguments, &self.envelope, None);
        let output = self.outputs.for_tool(&id.remote_name);
        let structured = StructuredContent::of_revision(&self.revision);
        let waiter: DirectWaiter = Box::new(move |outcome| {
            let mapped =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &outcome {
                    Ok(raw) => {
                        checked_tool_result(id.borrow(), raw, &limits, output.as_ref(), structured)
                    }
                    Err(e) => failed_result(id.borrow(), e, &limits),
                }));
            // A panic must still settle the call (its caller would wait forever).
            done(mapped.unwrap_or_else(|_| panicked_result(id.borrow(), &limits)));
        });
        DirectStart {
            n,
            line,
            clock: limits.call_deadlines(Instant::now()),
            waiter,
        }
    }

    /// Aborts direct call `n` if it still waits: it fails with [`McpError::Aborted`] and the
    /// server is told with `notifications/cancelled`.
    pub fn abort_call(&self, n: i64) {
        self.give_up(n, "aborted", McpError::Aborted);
    }

    /// Fails direct call `n` with `error` if it still waits, and tells the server why.
    fn give_up(&self, n: i64, reason: &str, error: McpError) {
        if !self.frames.fail_direct(n, error) {
            return;
        }
        if let Some(w) = self
            .direct
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            w.send(cancelled_line(n, reason));
        }
    }

    /// Calls a tool and maps the outcome to the prism `ToolResult` (as JSON): the raw result
    /// is measured and mapped, and any failure (timeout, abort, oversize, transport) becomes
    /// an error result. The session stays usable either way.
    pub async fn call_tool_result(
        &self,
        id: CallIdentity<'_>,
        arguments: &ArgumentsJson,
        timeout_ms: u64,
        cancel: &CancellationToken,
    ) -> Value {
        match self
            .call_tool(id.remote_name, arguments, timeout_ms, cancel)
            .await
        {
            Ok(raw) => {
                let output = self.outputs.for_tool(id.remote_name);
                let structured = StructuredContent::of_revision(&self.revision);
                checked_tool_result(id, &raw, &self.limits, output.as_ref(), structured)
            }
            Err(e) => failed_result(id, &e, &self.limits),
        }
    }

    /// Ends the session (idempotent): pending requests fail with [`McpError::Closed`], the
    /// rmcp service stops (closing stdin or the HTTP session), and a stdio server's whole
    /// process group is ended.
    pub async fn close(&self) {
        let Some(before_close) = self.mark_closed() else {
            return;
        };
        let service = self.service.lock().await.take();
        let process = self.process.lock().await.take();
        shut_down(service, process, before_close).await;
    }

    /// The first half of a close, shared by `close()` and the drop: marks the session closed
    /// (`None` if it already was), records the stdio server's process tree, fails what waits,
    /// and lets go of the connection state that needs no waiting (the peer and the
    /// direct-write channel). The tree is recorded first: cancelling the close token ends the
    /// writer task that holds the server's stdin, and a server that exits at end of input
    /// leaves its `setsid()` children to init at once, out of its tree.
    fn mark_closed(&self) -> Option<Recorded> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return None;
        }
        let before_close = self.server_pid.map(Recorded::below).unwrap_or_default();
        self.close_token.cancel();
        self.frames.end_direct(&McpError::Closed);
        self.outputs.clear();
        self.task_tools.clear();
        drop(
            self.server
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        drop(
            self.peer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        drop(
            self.direct
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        Some(before_close)
    }

    /// Whether [`McpSession::close`] ran.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}

/// The end of a session once it is marked closed: a stdio server's process tree is recorded
/// again, the rmcp service stops (closing stdin, or deleting the HTTP session), then the
/// server, its tree and everything recorded before stdin closed (`before_close`, taken when
/// the session was marked closed, and this second look) are ended and reaped.
async fn shut_down(
    service: Option<RunningService<RoleClient, BridgeHandler>>,
    process: Option<ServerProcess>,
    before_close: Recorded,
) {
    let mut before_eof = process
        .as_ref()
        .map(ServerProcess::record_tree)
        .unwrap_or_default();
    before_eof.extend(before_close);
    if let Some(mut service) = service {
        let _ = service.close_with_timeout(SERVICE_CLOSE_TIMEOUT).await;
    }
    if let Some(mut process) = process {
        process.shutdown(before_eof).await;
    }
}

/// A session dropped without [`McpSession::close`] (its host lost every reference to it) is
/// closed the same way, on the runtime it was connected on: the drop itself never waits. If
/// that runtime is gone, the service's drop cancels it and the process's drop kills its tree.
impl Drop for McpSession {
    fn drop(&mut self) {
        let Some(before_close) = self.mark_closed() else {
            return;
        };
        let work = shut_down(
            self.service.get_mut().take(),
            self.process.get_mut().take(),
            before_close,
        );
        match &self.runtime {
            Some(runtime) => drop(runtime.spawn(work)),
            None => drop(work),
        }
    }
}

/// A session's transport for [`tasks::follow`].
struct SessionTasks<'a>(&'a McpSession);

impl TaskRequests for SessionTasks<'_> {
    async fn request(
        &self,
        method: &'static str,
        task_id: &str,
        clock: Deadlines,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let session = self.0;
        if session.writes_directly {
            let n = session.next_call_number();
            let line = task_line(n, method, task_id);
            return session.direct_request(n, line, clock, cancel).await;
        }
        let params = serde_json::json!({"taskId": task_id});
        let req = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        session.request_on_clock(req, clock, cancel).await
    }

    fn cancel(&self, task_id: &str) {
        self.0.cancel_task(task_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ClientCapabilities;

    /// The `tools/call` line rmcp writes for the same call on a session of `revision`: the
    /// request with the client context rmcp's peer stamps on every request once a revision
    /// without `initialize` is negotiated, and its progress token (rmcp's own counter, here
    /// the request number as the direct line uses), serialized as rmcp's transports serialize.
    fn rmcp_line(n: i64, name: &str, args: &ArgumentsJson, revision: &ProtocolVersion) -> Value {
        use rmcp::model::GetMeta;
        let params = CallToolRequestParams::new(name.to_owned())
            .with_arguments(args.to_map().expect("an object"));
        let mut request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        if !revision.has_initialize() {
            let meta = request.get_meta_mut();
            meta.set_protocol_version(revision.clone());
            meta.set_client_info(Implementation::new(CLIENT_NAME, CLIENT_VERSION));
            meta.set_client_capabilities(ClientCapabilities::default());
        }
        request
            .get_meta_mut()
            .set_progress_token(rmcp::model::ProgressToken(
                rmcp::model::NumberOrString::Number(n),
            ));
        let message: TxJsonRpcMessage<RoleClient> =
            JsonRpcMessage::request(request, RequestId::Number(n));
        serde_json::to_value(&message).expect("JSON")
    }

    #[test]
    fn a_direct_call_line_is_the_one_rmcp_writes_in_every_revision() {
        let args = ArgumentsJson::parse(r#"{"message":"hi","n":[1,{"a":null}]}"#.to_owned())
            .expect("arguments");
        for revision in super::super::negotiation::SPOKEN_REVISIONS {
            let envelope = RequestEnvelope::for_revision(
                &revision,
                &Implementation::new(CLIENT_NAME, CLIENT_VERSION),
                &ClientCapabilities::default(),
            );
            let line = call_line(FIRST_DIRECT_ID, "echo \"x\"", &args, &envelope, None);
            assert_eq!(line.last(), Some(&b'\n'));
            let ours: Value = serde_json::from_slice(&line).expect("JSON");
            let theirs = rmcp_line(FIRST_DIRECT_ID, "echo \"x\"", &args, &revision);
            assert_eq!(ours, theirs, "{revision}");
        }
    }

    #[test]
    fn a_task_call_line_is_the_plain_line_with_params_task_and_task_lines_name_their_task() {
        let args = ArgumentsJson::parse(r#"{"q":"x"}"#.to_owned()).expect("arguments");
        let envelope = RequestEnvelope::default();
        let plain: Value =
            serde_json::from_slice(&call_line(7, "t", &args, &envelope, None)).expect("JSON");
        let mut task: Value =
            serde_json::from_slice(&call_line(7, "t", &args, &envelope, Some(60_000)))
                .expect("JSON");
        assert_eq!(task["params"]["task"], serde_json::json!({"ttl": 60_000}));
        if let Some(params) = task["params"].as_object_mut() {
            params.remove("task");
        }
        assert_eq!(task, plain);
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let line = task_line(9, method, "t-\"1\"");
            assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
            let v: Value = serde_json::from_slice(&line).expect("JSON");
            assert_eq!(
                v,
                serde_json::json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": {"taskId": "t-\"1\""}})
            );
        }
    }

    #[test]
    fn a_cancelled_line_is_one_json_rpc_notification_naming_the_request() {
        let line = cancelled_line(FIRST_DIRECT_ID + 3, "aborted");
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        let v: Value = serde_json::from_slice(&line).expect("JSON");
        assert_eq!(
            v,
            serde_json::json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": FIRST_DIRECT_ID + 3, "reason": "aborted"},
            })
        );
    }
}
