//! An MCP server written with rmcp (the SDK the bridge's own client is built on), for the
//! bridge's interop matrix (`__test__/mcp-rmcp-interop.test.mjs`): one binary, every transport
//! rmcp serves, either protocol revision, and a tool for each behaviour the bridge must map.
//!
//! ```text
//! prism-mcp-test-server (--stdio | --http [PORT] | --http-stateless [PORT] | --http-json [PORT])
//!     [--revision 2025-11-25|2026-07-28] [--page-size N] [--start-delay-ms N]
//! ```
//!
//! - `--stdio`: newline-delimited JSON-RPC on stdin/stdout.
//! - `--http`: Streamable HTTP with sessions (legacy revisions; 2026-07-28 has none and is
//!   served statelessly by rmcp); `--http-stateless`: no sessions, SSE responses;
//!   `--http-json`: no sessions, JSON responses (SSE only when a notification precedes the
//!   answer). PORT 0 (the default) picks a free port; the first line on stdout is the URL.
//! - `--revision 2025-11-25`: a server of that revision: `initialize` only (2025-11-25 and
//!   older), `server/discover` is "Method not found". `--revision 2026-07-28`: discovery and
//!   per-request `_meta` only; `initialize` is refused (no version of it to agree on).
//!   `--revision 2025-11-25-narrowed`: rmcp's own way to narrow a server to 2025-11-25, whose
//!   `server/discover` answer is an "unsupported protocol version" error listing the older
//!   revisions. Without `--revision`, rmcp's default: both.
//! - `--page-size N`: `tools/list` pages of N tools (default: one page).
//! - `--start-delay-ms N`: sleep before reading stdin or binding the port.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, DiscoverRequestMethod, DiscoverResult,
    ErrorCode, Implementation, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::sync::broadcast;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A 1x1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Revision {
    /// rmcp's default: every revision it knows, both lifecycles.
    Any,
    /// 2025-11-25 and older: `initialize` only; `server/discover` is "Method not found", as
    /// from a server that predates it.
    Legacy,
    /// rmcp narrowed to 2025-11-25 and older (`supported_protocol_versions`): rmcp answers
    /// `server/discover` with "unsupported protocol version" listing them.
    LegacyNarrowed,
    /// 2026-07-28: `server/discover` and per-request `_meta` only.
    Modern,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Transport {
    Stdio,
    Http,
    HttpStateless,
    HttpJson,
}

struct Options {
    transport: Transport,
    port: u16,
    revision: Revision,
    page_size: usize,
    start_delay: Duration,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        transport: Transport::Stdio,
        port: 0,
        revision: Revision::Any,
        page_size: 0,
        start_delay: Duration::ZERO,
    };
    let mut args = std::env::args().skip(1).peekable();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--stdio" => options.transport = Transport::Stdio,
            "--http" | "--http-stateless" | "--http-json" => {
                options.transport = match arg.as_str() {
                    "--http" => Transport::Http,
                    "--http-stateless" => Transport::HttpStateless,
                    _ => Transport::HttpJson,
                };
                if let Some(port) = args.next_if(|a| !a.starts_with("--")) {
                    options.port = port.parse().map_err(|_| format!("bad port {port}"))?;
                }
            }
            "--revision" => {
                options.revision = match value("--revision")?.as_str() {
                    "2025-11-25" => Revision::Legacy,
                    "2025-11-25-narrowed" => Revision::LegacyNarrowed,
                    "2026-07-28" => Revision::Modern,
                    "any" => Revision::Any,
                    other => return Err(format!("unknown revision {other}")),
                }
            }
            "--page-size" => {
                options.page_size = value("--page-size")?
                    .parse()
                    .map_err(|_| "bad --page-size".to_owned())?;
            }
            "--start-delay-ms" => {
                let ms = value("--start-delay-ms")?
                    .parse()
                    .map_err(|_| "bad --start-delay-ms".to_owned())?;
                options.start_delay = Duration::from_millis(ms);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// What every connection (and, over stateless HTTP, every request) shares.
struct State {
    revision: Revision,
    page_size: usize,
    /// Whether `add-tool` has run (the tool `added` is listed from then on).
    added: AtomicBool,
    /// `notifications/cancelled` the server received.
    cancel_notifications: AtomicUsize,
    /// `wait-cancel` calls that ended because their request was cancelled.
    cancelled_calls: AtomicUsize,
    /// `wait-cancel` calls waiting now.
    waiting: AtomicUsize,
    /// `tools/list_changed` for every open `subscriptions/listen` (2026-07-28).
    list_changed: broadcast::Sender<()>,
}

#[derive(Clone)]
struct TestServer {
    state: Arc<State>,
}

fn tool(value: Value) -> Tool {
    // The tool table below is fixed: a tool that does not deserialize is a bug here.
    #[allow(clippy::expect_used)]
    serde_json::from_value(value).expect("a valid tool")
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

impl TestServer {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![
            tool(json!({
                "name": "echo",
                "description": "echoes its text",
                "inputSchema": { "type": "object", "properties": { "text": { "type": "string" }, "after": { "type": "number" } }, "required": ["text"] },
            })),
            tool(
                json!({ "name": "image", "description": "an image and a caption", "inputSchema": no_args() }),
            ),
            tool(
                json!({ "name": "resources", "description": "an embedded resource and a resource link", "inputSchema": no_args() }),
            ),
            tool(json!({
                "name": "structured-object",
                "description": "structuredContent as an object",
                "inputSchema": no_args(),
                "outputSchema": {
                    "type": "object",
                    "properties": { "zeta": { "type": "number" }, "alpha": { "type": "string" }, "mid": { "type": "object" } },
                    "required": ["zeta", "alpha", "mid"],
                },
            })),
            tool(json!({
                "name": "structured-array",
                "description": "structuredContent as an array (2026-07-28)",
                "inputSchema": no_args(),
                "outputSchema": { "type": "array", "items": { "type": "number" } },
            })),
            tool(json!({
                "name": "structured-mismatch",
                "description": "structuredContent that breaks its outputSchema",
                "inputSchema": no_args(),
                "outputSchema": {
                    "type": "object",
                    "properties": { "celsius": { "type": "number" } },
                    "required": ["celsius"],
                },
            })),
            tool(
                json!({ "name": "tool-error", "description": "a result with isError", "inputSchema": no_args() }),
            ),
            tool(
                json!({ "name": "protocol-error", "description": "a JSON-RPC error", "inputSchema": no_args() }),
            ),
            tool(json!({
                "name": "slow-progress",
                "description": "reports progress every intervalMs, steps times, then answers",
                "inputSchema": { "type": "object", "properties": { "steps": { "type": "integer" }, "intervalMs": { "type": "integer" } } },
            })),
            tool(
                json!({ "name": "wait-cancel", "description": "answers only when cancelled (or after 60 s)", "inputSchema": no_args() }),
            ),
            tool(
                json!({ "name": "cancelled-count", "description": "how many cancellations the server saw", "inputSchema": no_args() }),
            ),
            tool(
                json!({ "name": "add-tool", "description": "lists the tool `added` and says tools/list_changed", "inputSchema": no_args() }),
            ),
            tool(
                json!({ "name": "spawn-grandchild", "description": "starts `setsid sleep 300` and reports its pid", "inputSchema": no_args() }),
            ),
        ];
        for i in 1..=4 {
            tools.push(tool(json!({ "name": format!("filler-{i}"), "description": "pads the listing", "inputSchema": no_args() })));
        }
        if self.state.added.load(Ordering::SeqCst) {
            tools.push(tool(json!({ "name": "added", "description": "listed after add-tool", "inputSchema": no_args() })));
        }
        tools
    }

    fn is_modern(context: &RequestContext<RoleServer>) -> bool {
        context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
    }

    async fn call(
        &self,
        name: &str,
        args: &Map<String, Value>,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, McpError> {
        let state = &self.state;
        Ok(match name {
            "echo" => {
                json!({ "content": [{ "type": "text", "text": format!("echo: {}", args.get("text").and_then(Value::as_str).unwrap_or("")) }] })
            }
            "image" => {
                json!({ "content": [{ "type": "image", "data": PNG, "mimeType": "image/png" }, { "type": "text", "text": "a pixel" }] })
            }
            "resources" => json!({ "content": [
                { "type": "resource", "resource": { "uri": "file:///notes/readme.txt", "mimeType": "text/plain", "text": "embedded text" } },
                { "type": "resource_link", "uri": "file:///notes/big.bin", "name": "big.bin", "description": "a large file", "mimeType": "application/octet-stream", "size": 1024 },
            ] }),
            "structured-object" => {
                let value = json!({ "zeta": 1, "alpha": "two", "mid": { "y": true, "b": null } });
                json!({ "content": [{ "type": "text", "text": value.to_string() }], "structuredContent": value })
            }
            "structured-array" => {
                let value = json!([3, 1, 2]);
                json!({ "content": [{ "type": "text", "text": value.to_string() }], "structuredContent": value })
            }
            "structured-mismatch" => {
                json!({ "content": [{ "type": "text", "text": "warm" }], "structuredContent": { "celsius": "warm" } })
            }
            "tool-error" => {
                json!({ "content": [{ "type": "text", "text": "the tool failed on purpose" }], "isError": true })
            }
            "protocol-error" => {
                return Err(McpError::new(ErrorCode(-32001), "refused on purpose", None));
            }
            "slow-progress" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(10);
                let interval = args
                    .get("intervalMs")
                    .and_then(Value::as_u64)
                    .unwrap_or(250);
                let token = context.meta.get_progress_token();
                for step in 1..=steps {
                    tokio::select! {
                        () = context.ct.cancelled() => return Err(McpError::internal_error("cancelled", None)),
                        () = tokio::time::sleep(Duration::from_millis(interval)) => {}
                    }
                    if let Some(token) = &token {
                        let mut progress =
                            ProgressNotificationParam::new(token.clone(), step as f64);
                        progress.total = Some(steps as f64);
                        // A failed send (the client went away) ends nothing here.
                        let _ = context.peer.notify_progress(progress).await;
                    }
                }
                json!({ "content": [{ "type": "text", "text": format!("done after {steps} steps (progress token: {})", token.is_some()) }] })
            }
            "wait-cancel" => {
                state.waiting.fetch_add(1, Ordering::SeqCst);
                let cancelled = tokio::select! {
                    () = context.ct.cancelled() => true,
                    () = tokio::time::sleep(Duration::from_secs(60)) => false,
                };
                state.waiting.fetch_sub(1, Ordering::SeqCst);
                if cancelled {
                    state.cancelled_calls.fetch_add(1, Ordering::SeqCst);
                    return Err(McpError::internal_error("cancelled", None));
                }
                json!({ "content": [{ "type": "text", "text": "never cancelled" }] })
            }
            "cancelled-count" => {
                let value = json!({
                    "notifications": state.cancel_notifications.load(Ordering::SeqCst),
                    "calls": state.cancelled_calls.load(Ordering::SeqCst),
                    "waiting": state.waiting.load(Ordering::SeqCst),
                });
                json!({ "content": [{ "type": "text", "text": value.to_string() }], "structuredContent": value })
            }
            "add-tool" => {
                state.added.store(true, Ordering::SeqCst);
                // 2026-07-28: to every open subscriptions/listen stream; older revisions: on
                // the session (stdio, or the HTTP session's stream).
                let _ = state.list_changed.send(());
                if !Self::is_modern(&context) {
                    let _ = context.peer.notify_tool_list_changed().await;
                }
                json!({ "content": [{ "type": "text", "text": "added" }] })
            }
            "spawn-grandchild" => {
                let out = tokio::process::Command::new("sh")
                    .args([
                        "-c",
                        "setsid sleep 300 >/dev/null 2>&1 </dev/null & echo $!",
                    ])
                    .output()
                    .await
                    .map_err(|e| McpError::internal_error(format!("spawn: {e}"), None))?;
                let pid: u32 = String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse()
                    .map_err(|e| McpError::internal_error(format!("pid: {e}"), None))?;
                json!({
                    "content": [{ "type": "text", "text": pid.to_string() }],
                    "structuredContent": { "pid": pid, "serverPid": std::process::id() },
                })
            }
            "added" | "filler-1" | "filler-2" | "filler-3" | "filler-4" => {
                json!({ "content": [{ "type": "text", "text": name }] })
            }
            _ => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {name}"),
                    None,
                ))
            }
        })
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("prism-mcp-test-server", "0.0.0"));
        match self.state.revision {
            Revision::Legacy | Revision::LegacyNarrowed => {
                info.with_protocol_version(ProtocolVersion::V_2025_11_25)
            }
            Revision::Modern | Revision::Any => info,
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.state.revision {
            Revision::LegacyNarrowed => {
                Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
            }
            Revision::Modern => Cow::Owned(vec![ProtocolVersion::V_2026_07_28]),
            // Legacy too: rmcp checks a request's `_meta` version against this list before
            // `discover` runs, and a legacy server answers "Method not found" there, not
            // "unsupported version". `initialize` still agrees on 2025-11-25 at most: a
            // request for a revision without it falls back to `get_info`'s 2025-11-25.
            Revision::Legacy | Revision::Any => Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
        }
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        if self.state.revision == Revision::Legacy {
            // A 2025-11-25 server has no such method.
            return Err(McpError::method_not_found::<DiscoverRequestMethod>());
        }
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self.tools();
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix("page-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n <= tools.len())
                .ok_or_else(|| McpError::invalid_params("bad cursor", None))?,
        };
        let size = if self.state.page_size == 0 {
            tools.len()
        } else {
            self.state.page_size
        };
        let end = (start + size).min(tools.len());
        Ok(ListToolsResult {
            tools: tools
                .get(start..end)
                .map(<[Tool]>::to_vec)
                .unwrap_or_default(),
            next_cursor: (end < tools.len()).then(|| format!("page-{end}")),
            ..ListToolsResult::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        let value = self.call(&request.name, &args, context).await?;
        let result: CallToolResult = serde_json::from_value(value)
            .map_err(|e| McpError::internal_error(format!("result: {e}"), None))?;
        Ok(result.into())
    }

    async fn on_cancelled(
        &self,
        _notification: rmcp::model::CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        self.state
            .cancel_notifications
            .fetch_add(1, Ordering::SeqCst);
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let mut changes = self.state.list_changed.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                change = changes.recv() => match change {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        let _ = context.sink().notify_tool_list_changed().await;
                    }
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
            }
        }
    }
}

async fn serve_http(options: &Options, server: TestServer) -> Result<(), BoxError> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(options.transport == Transport::Http)
        .with_json_response(options.transport == Transport::HttpJson);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.port)).await?;
    let address = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "http://{address}/mcp")?;
        stdout.flush()?;
    }
    loop {
        let (stream, _) = listener.accept().await?;
        // Small SSE writes must not wait for the client's delayed ACK (Nagle): 40 ms a call.
        stream.set_nodelay(true)?;
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            // A connection that fails ends only itself.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), handler)
                .await;
        });
    }
}

async fn run(options: Options) -> Result<(), BoxError> {
    tokio::time::sleep(options.start_delay).await;
    let (list_changed, _) = broadcast::channel(16);
    let server = TestServer {
        state: Arc::new(State {
            revision: options.revision,
            page_size: options.page_size,
            added: AtomicBool::new(false),
            cancel_notifications: AtomicUsize::new(0),
            cancelled_calls: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            list_changed,
        }),
    };
    match options.transport {
        Transport::Stdio => {
            let running = server.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
            Ok(())
        }
        _ => serve_http(&options, server).await,
    }
}

fn main() -> std::process::ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("prism-mcp-test-server: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("prism-mcp-test-server: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("prism-mcp-test-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
