//! The MCP client bridge on `rmcp`: remote tools as ordinary tool definitions.
//!
//! - [`session`]: one connected server (stdio or Streamable HTTP), listing and calls.
//! - [`frame`]: our bounded framing of the stdio stream ahead of rmcp.
//! - [`direct`]: the stdio `tools/call` requests the session writes itself, awaiting answers.
//! - [`line_writer`]: the session's own lines to a stdio server, whole and in order.
//! - [`stdio`]: the server process in its own process group, ended as a whole.
//! - [`http`]: URL, origin and address checks, DNS pinning, the bounded HTTP client.
//! - [`http_client`]: the framer's checks over rmcp's reqwest client.
//! - [`http_bearer`]: the access token from the host's OAuth client, renewed when refused.
//! - [`sdk_fetch`]: the fetch under a host's JS SDK transport, under the same HTTP rules.
//! - [`sse_resume`]: resuming an answer's SSE stream the server closed, a bounded number of times.
//! - [`tasks`]: tools called as tasks: create, poll, result, cancel.
//! - [`capability`]: resources, prompts, roots, sampling and elicitation, bounded.
//! - [`elicitation`]: an elicitation as the host's pending decision, and back.
//! - [`apps`]: MCP Apps: app tools, `ui://` HTML resources and their metadata.
//! - [`session_apps`]: MCP Apps' resource requests on a native session.
//! - [`catalogue`]: `tools/list` pages within every bound.
//! - [`host_resolver`]: the host's `resolveHostname` answer, bounded.
//! - [`host_client`]: pages and results from a host's own MCP client, under the same rules.
//! - [`call_result`]: a raw call result (or failure) as a prism `ToolResult`.
//! - [`content`]: MCP content blocks as prism content blocks within a byte budget.
//! - [`measure`]: bounded JSON measurement (bytes, depth, properties).
//! - [`negotiation`]: the protocol revision: discover probe, fallback, pin, `_meta` envelope.
//! - [`oauth`]: OAuth 2.1 for Streamable HTTP servers: discovery, PKCE, tokens, registration.
//! - [`options`]: the limits, resolved and validated; the server-id check.
//! - [`error`]: [`McpError`] with a stable `code()`.

pub mod apps;
pub mod arguments;
pub mod call_result;
pub mod capability;
pub mod catalogue;
pub mod content;
pub mod direct;
pub mod elicitation;
pub mod error;
pub mod frame;
pub mod host_client;
pub mod host_requests;
pub mod host_resolver;
pub mod http;
pub mod http_bearer;
pub mod http_client;
pub mod line_writer;
pub mod listen;
pub mod measure;
pub mod negotiation;
pub mod oauth;
pub mod options;
pub mod output_schema;
pub mod progress;
pub mod sdk_fetch;
pub mod session;
pub mod session_apps;
pub mod session_capabilities;
pub mod sse_resume;
pub mod stdio;
mod stdio_start;
pub mod tasks;

pub use error::McpError;
pub use options::{assert_valid_server_id, McpLimits, McpLimitsInput};
