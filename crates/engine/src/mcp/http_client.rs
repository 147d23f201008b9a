//! The Streamable HTTP client under rmcp's transport: reqwest (bounded body and SSE event
//! reads, as rmcp does them) with the stdio framer's checks laid over every reply to a
//! request. A JSON body or SSE event that nests deeper than
//! [`MCP_STDIO_MAX_MESSAGE_DEPTH`](crate::limits::MCP_STDIO_MAX_MESSAGE_DEPTH), an
//! oversized body or event, or a body rmcp cannot read as JSON-RPC, becomes an error response
//! to the request that was posted, so that request fails at once with an error naming the
//! bound instead of waiting for `callTimeoutMs`; the session stays usable.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::frame::{Frame, FrameShared, LineFramer};
use super::McpError;
use crate::limits::MCP_STDIO_MAX_MESSAGE_DEPTH;

/// reqwest with the framer's checks on replies.
#[derive(Debug, Clone)]
pub struct BoundedHttpClient {
    inner: reqwest::Client,
    frames: FrameShared,
}

impl BoundedHttpClient {
    /// Wraps `inner`; errors raised for requests are recorded in `frames` for the session.
    #[must_use]
    pub fn new(inner: reqwest::Client, frames: FrameShared) -> Self {
        Self { inner, frames }
    }
}

type HttpError = StreamableHttpError<reqwest::Error>;

fn request_id(message: &ClientJsonRpcMessage) -> Option<RequestId> {
    match message {
        ClientJsonRpcMessage::Request(r) => Some(r.id.clone()),
        _ => None,
    }
}

/// The error response that fails request `id` with `error` (recorded for the session).
fn fail(frames: &FrameShared, id: RequestId, error: &McpError) -> ServerJsonRpcMessage {
    frames.record(id.clone(), error.clone());
    ServerJsonRpcMessage::error(
        ErrorData::new(ErrorCode(-32603), error.to_string(), None),
        Some(id),
    )
}

/// The bound a whole message breaks, if any.
fn check(message: &[u8], max_bytes: usize) -> Option<McpError> {
    match LineFramer::new(max_bytes, MCP_STDIO_MAX_MESSAGE_DEPTH).check_whole(message) {
        Some(Frame::Rejected { error, .. }) => Some(error),
        _ => None,
    }
}

impl StreamableHttpClient for BoundedHttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let id = request_id(&message);
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        let Some(id) = id else { return response };
        match response {
            Ok(StreamableHttpPostResponse::Sse(stream, sid)) => {
                let frames = self.frames.clone();
                let max = limits.max_sse_event_size;
                let id = id.clone();
                let mapped = stream.map(move |event| {
                    let error = match &event {
                        Ok(ev) => ev
                            .data
                            .as_deref()
                            .and_then(|d| check(d.as_bytes(), usize::MAX)),
                        Err(SseError::Body(_)) => {
                            Some(McpError::MessageTooLarge { limit: max as u64 })
                        }
                        Err(_) => None,
                    };
                    match (error, event) {
                        (None, event) => event,
                        (Some(error), event) => {
                            let reply = fail(&frames, id.clone(), &error);
                            let mut ev = event.unwrap_or_default();
                            ev.data = serde_json::to_string(&reply).ok();
                            Ok(ev)
                        }
                    }
                });
                Ok(StreamableHttpPostResponse::Sse(mapped.boxed(), sid))
            }
            Ok(other) => Ok(other),
            Err(StreamableHttpError::ResponseBodyTooLarge { max_size, .. }) => {
                let error = McpError::MessageTooLarge {
                    limit: max_size as u64,
                };
                Ok(StreamableHttpPostResponse::Json(
                    fail(&self.frames, id, &error),
                    None,
                ))
            }
            Err(StreamableHttpError::UnexpectedServerResponse(reason))
                if reason.contains("JSON") || reason.contains("json") =>
            {
                let error = if reason.contains("recursion limit") {
                    McpError::MessageTooDeep {
                        limit: u64::from(MCP_STDIO_MAX_MESSAGE_DEPTH),
                    }
                } else {
                    McpError::InvalidResponse {
                        reason: super::content::truncate_utf8(&reason, 200).to_owned(),
                    }
                };
                Ok(StreamableHttpPostResponse::Json(
                    fail(&self.frames, id, &error),
                    None,
                ))
            }
            Err(e) => Err(e),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<futures::stream::BoxStream<'static, Result<sse_stream::Sse, SseError>>, HttpError>
    {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<futures::stream::BoxStream<'static, Result<sse_stream::Sse, SseError>>, HttpError>
    {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}
