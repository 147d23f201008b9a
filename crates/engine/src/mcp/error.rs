//! The MCP bridge's error enum: one variant per failure, carrying the numbers, with a stable
//! `code()` and the reference's message text. The JavaScript class of each code is picked in
//! one place, the facade's `fromNative`.

/// Everything that can go wrong while connecting, listing or calling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A configured limit is not a whole number from 1 to its hard cap.
    #[error("{}", crate::limits::limit_message(crate::limits::LimitDialect::Mcp, name, *hard))]
    InvalidLimit {
        /// The option's name.
        name: &'static str,
        /// Its hard cap.
        hard: u64,
    },
    /// `serverId` does not match `/^[A-Za-z0-9][A-Za-z0-9._-]*$/`.
    #[error("serverId must be a non-empty identifier (letters, digits, ., _, -; must not start with . or -)")]
    InvalidServerId,
    /// The transport configuration is unusable (bad URL, origin not allowed, ...).
    #[error("{message}")]
    InvalidTransport {
        /// What is wrong, for the host.
        message: String,
    },
    /// A Streamable HTTP server address is private (and not an allowed loopback).
    #[error("MCP server address {address} is not public")]
    NotPublic {
        /// The address that was refused.
        address: String,
    },
    /// Spawning the server or the initialize handshake failed.
    #[error("MCP connect failed: {message}")]
    Connect {
        /// The cause.
        message: String,
    },
    /// The connect handshake did not finish within `callTimeoutMs`.
    #[error("MCP connect timed out after {timeout_ms}ms")]
    ConnectTimeout {
        /// The timeout that elapsed.
        timeout_ms: u64,
    },
    /// `tools/list` kept paging past `maxListPages`.
    #[error("MCP tools/list exceeds {limit} pages")]
    TooManyPages {
        /// `maxListPages`.
        limit: u64,
    },
    /// `tools/list` returned more than `maxTools` tools.
    #[error("MCP tools/list exceeds {limit} tools")]
    TooManyTools {
        /// `maxTools`.
        limit: u64,
    },
    /// A name, description or cursor is longer than its limit.
    #[error("{label} exceeds {limit} bytes")]
    TooManyBytes {
        /// What was measured.
        label: String,
        /// The limit.
        limit: u64,
    },
    /// A JSON value (schema or call result) broke a bound; the message is complete.
    #[error("{label} {bound}")]
    JsonBound {
        /// What was measured.
        label: String,
        /// Which bound broke.
        bound: super::measure::JsonBound,
    },
    /// The schemas of one listing exceed `maxTotalToolSchemaBytes`.
    #[error("MCP tool schemas exceed {limit} aggregate bytes")]
    AggregateSchemaBytes {
        /// `maxTotalToolSchemaBytes`.
        limit: u64,
    },
    /// The server sent a cursor it had sent before.
    #[error("MCP tools/list repeated a pagination cursor")]
    RepeatedCursor,
    /// A `tools/list` page is not shaped as the protocol says.
    #[error("MCP tools/list returned an invalid page: {reason}")]
    InvalidPage {
        /// What is wrong.
        reason: String,
    },
    /// A `tools/call` took longer than `callTimeoutMs`.
    #[error("MCP tool call timed out after {timeout_ms}ms")]
    CallTimeout {
        /// `callTimeoutMs`.
        timeout_ms: u64,
    },
    /// A `tools/call` whose progress kept restarting its timeout ran for `maxTotalTimeoutMs`.
    #[error("MCP tool call timed out after {total_ms}ms in all (maxTotalTimeoutMs), though it reported progress")]
    TotalTimeout {
        /// `maxTotalTimeoutMs`.
        total_ms: u64,
    },
    /// The host aborted the call (its `AbortSignal`).
    #[error("MCP tool call was aborted")]
    Aborted,
    /// The server answered with a JSON-RPC error.
    #[error("MCP error {code}: {message}")]
    Remote {
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The connection broke (the server exited, the HTTP session failed, ...).
    #[error("MCP transport error: {message}")]
    Transport {
        /// The cause.
        message: String,
    },
    /// A message from the server is longer than the transport's message bound.
    #[error("MCP message exceeds {limit} bytes")]
    MessageTooLarge {
        /// The bound.
        limit: u64,
    },
    /// A message from the server nests deeper than the transport's depth bound.
    #[error("MCP message nests deeper than {limit} levels")]
    MessageTooDeep {
        /// The bound.
        limit: u64,
    },
    /// The answer to one request nests deeper than the transport's depth bound, so its result
    /// nests deeper than any `maxJsonDepth`: a call reports it as that bound.
    #[error("MCP message nests deeper than {limit} levels")]
    AnswerTooDeep {
        /// The bound.
        limit: u64,
    },
    /// A tool called as a task whose task ended without a result: the server reported it
    /// `failed` (with no error result) or `cancelled`, or it needs input the bridge does not
    /// give (`input_required`).
    #[error("MCP tool call task {reason}")]
    TaskEnded {
        /// What became of the task, with the server's status message if any.
        reason: String,
    },
    /// A response is not shaped as JSON-RPC says (a result that is not an object, ...).
    #[error("MCP server sent an invalid response: {reason}")]
    InvalidResponse {
        /// What is wrong.
        reason: String,
    },
    /// The bridge was closed.
    #[error("MCP bridge is closed")]
    Closed,
    /// A capability rule (resources, prompts) refused a request or a result.
    #[error(transparent)]
    Capability(#[from] super::capability::CapabilityError),
}

/// What every [`McpError::code`] starts with (the facade's `McpBridgeError` family).
pub const CODE_PREFIX: &str = "ERR_PRISM_MCP_";

impl McpError {
    /// The stable error code (`err.code` in JavaScript).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidLimit { .. } => "ERR_PRISM_MCP_INVALID_LIMIT",
            Self::InvalidServerId => "ERR_PRISM_MCP_INVALID_SERVER_ID",
            Self::InvalidTransport { .. } => "ERR_PRISM_MCP_INVALID_TRANSPORT",
            Self::NotPublic { .. } => "ERR_PRISM_MCP_NOT_PUBLIC",
            Self::Connect { .. } => "ERR_PRISM_MCP_CONNECT",
            Self::ConnectTimeout { .. } => "ERR_PRISM_MCP_CONNECT_TIMEOUT",
            Self::TooManyPages { .. } => "ERR_PRISM_MCP_TOO_MANY_PAGES",
            Self::TooManyTools { .. } => "ERR_PRISM_MCP_TOO_MANY_TOOLS",
            Self::TooManyBytes { .. } => "ERR_PRISM_MCP_TOO_LARGE",
            Self::JsonBound { .. } => "ERR_PRISM_MCP_JSON_BOUND",
            Self::AggregateSchemaBytes { .. } => "ERR_PRISM_MCP_SCHEMAS_TOO_LARGE",
            Self::RepeatedCursor => "ERR_PRISM_MCP_REPEATED_CURSOR",
            Self::InvalidPage { .. } => "ERR_PRISM_MCP_INVALID_PAGE",
            Self::CallTimeout { .. } | Self::TotalTimeout { .. } => "ERR_PRISM_MCP_TIMEOUT",
            Self::Aborted => "ERR_PRISM_MCP_ABORTED",
            Self::Remote { .. } => "ERR_PRISM_MCP_REMOTE",
            Self::Transport { .. } => "ERR_PRISM_MCP_TRANSPORT",
            Self::MessageTooLarge { .. } => "ERR_PRISM_MCP_TOO_LARGE",
            Self::MessageTooDeep { .. } | Self::AnswerTooDeep { .. } => "ERR_PRISM_MCP_JSON_BOUND",
            Self::InvalidResponse { .. } => "ERR_PRISM_MCP_INVALID_RESPONSE",
            Self::TaskEnded { .. } => "ERR_PRISM_MCP_REMOTE",
            Self::Closed => "ERR_PRISM_MCP_CLOSED",
            Self::Capability(e) => e.code(),
        }
    }
}

impl McpError {
    /// The server's JSON-RPC error.
    #[must_use]
    pub fn remote(data: rmcp::model::ErrorData) -> Self {
        Self::Remote {
            code: data.code.0,
            message: data.message.into_owned(),
        }
    }

    /// This error as the fault of one request's own answer (a message known to answer it):
    /// a message too deep is then an answer too deep.
    #[must_use]
    pub fn of_answer(self) -> Self {
        match self {
            Self::MessageTooDeep { limit } => Self::AnswerTooDeep { limit },
            other => other,
        }
    }

    /// The server ended what would have carried a request's answer before answering (the
    /// connection, or the answer's SSE stream).
    #[must_use]
    pub fn server_closed() -> Self {
        Self::Transport {
            message: "the server closed the connection".into(),
        }
    }
}

impl From<crate::limits::LimitError> for McpError {
    fn from(e: crate::limits::LimitError) -> Self {
        Self::InvalidLimit {
            name: e.name,
            hard: e.hard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_message_matches_the_reference() {
        let e = McpError::InvalidLimit {
            name: "maxTools",
            hard: 5000,
        };
        assert_eq!(
            e.to_string(),
            "maxTools must be a positive safe integer <= 5000"
        );
        assert_eq!(e.code(), "ERR_PRISM_MCP_INVALID_LIMIT");
    }
}
