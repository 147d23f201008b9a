//! The Streamable HTTP client under rmcp's transport: reqwest (bounded body and SSE event
//! reads, as rmcp does them) with the bridge's own judgement laid over every reply to a
//! request, so that a hostile reply fails that request at once, with an error naming the
//! bound or the fault, instead of being dropped by rmcp (which then waits for
//! `callTimeoutMs`); the session stays usable.
//!
//! What is judged, for a JSON body and for each `message` event of the request's SSE stream:
//! size (`maxResponseBytes`, rmcp's bounded reads), nesting deeper than
//! [`MCP_HTTP_MAX_MESSAGE_DEPTH`] (counted without recursion before anything parses the
//! event; a JSON body is parsed by rmcp under serde_json's recursion limit, which is the same
//! bound), the JSON-RPC shape (an `error` without an integer `code` and string `message`, a
//! response without an `id`), and the `id`: a response on a request's own POST must answer
//! that request (an error with no `id` is taken as its answer). Event data that is not JSON
//! is skipped, as the stdio framer skips such lines. Failures of the POST itself (status,
//! content type, a redirect, which is never followed, a broken connection) fail the request
//! with a short message of our own; a session the server no longer knows (404) is left to
//! rmcp, which opens a new session and retries the request once, and so are the failures of
//! `server/discover` (they decide rmcp's fallback to `initialize`), but for a bound.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::content::truncate_utf8;
use super::frame::{response_shape_error, Frame, FrameShared, LineFramer};
use super::McpError;
use crate::limits::MCP_HTTP_MAX_MESSAGE_DEPTH;

/// Bytes of a server-supplied text (a status reason, a content type, a parser message) kept
/// in an error message.
const DETAIL_BYTES: usize = 200;

/// reqwest with the bridge's judgement on replies.
#[derive(Debug, Clone)]
pub struct BoundedHttpClient {
    inner: reqwest::Client,
    frames: FrameShared,
    shutdown: CancellationToken,
}

impl BoundedHttpClient {
    /// Wraps `inner`; errors raised for requests are recorded in `frames` for the session.
    /// Once `shutdown` fires, every POST still waiting and every open SSE stream ends: rmcp
    /// does not cancel its handshake, so a failed connect would otherwise leave its worker
    /// waiting on a server that never answers.
    #[must_use]
    pub fn new(inner: reqwest::Client, frames: FrameShared, shutdown: CancellationToken) -> Self {
        Self {
            inner,
            frames,
            shutdown,
        }
    }

    /// `stream`, ended when the session shuts down.
    fn until_shutdown<T: Send + 'static>(
        &self,
        stream: futures::stream::BoxStream<'static, T>,
    ) -> futures::stream::BoxStream<'static, T> {
        stream
            .take_until(self.shutdown.clone().cancelled_owned())
            .boxed()
    }
}

type HttpError = StreamableHttpError<reqwest::Error>;

/// The id of a request whose replies are judged, and whether it is `server/discover` (whose
/// failed POSTs, other than a reply over a bound, are left to rmcp: they decide whether the
/// client falls back to `initialize`).
fn judged_request(message: &ClientJsonRpcMessage) -> Option<(RequestId, bool)> {
    match message {
        ClientJsonRpcMessage::Request(r) => Some((
            r.id.clone(),
            matches!(r.request, ClientRequest::DiscoverRequest(_)),
        )),
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

fn invalid(reason: impl Into<String>) -> McpError {
    McpError::InvalidResponse {
        reason: reason.into(),
    }
}

/// The bound a whole message breaks, if any.
fn check(message: &[u8]) -> Option<McpError> {
    match LineFramer::new(usize::MAX, MCP_HTTP_MAX_MESSAGE_DEPTH).check_whole(message) {
        Some(Frame::Rejected { error, .. }) => Some(error),
        _ => None,
    }
}

/// What to do with a parsed message that arrived on request `id`'s POST.
enum Judged {
    /// Hand it to rmcp as it is.
    Deliver,
    /// An error without an id: hand it to rmcp as the answer to the request.
    Readdress(ErrorData),
    /// Fail the request with this.
    Fail(McpError),
}

fn judge(message: &ServerJsonRpcMessage, id: &RequestId, body: bool) -> Judged {
    let mismatch = || Judged::Fail(invalid("its id does not match the request"));
    match message {
        JsonRpcMessage::Response(r) if r.id == *id => Judged::Deliver,
        JsonRpcMessage::Error(e) if e.id.as_ref() == Some(id) => Judged::Deliver,
        JsonRpcMessage::Error(e) if e.id.is_none() => Judged::Readdress(e.error.clone()),
        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => mismatch(),
        // A request's JSON body is its one response; its SSE stream may carry the server's
        // own requests and notifications first.
        JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) if body => {
            Judged::Fail(invalid("its body is not a response"))
        }
        JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => Judged::Deliver,
    }
}

/// The error for SSE event data within the bounds that rmcp could not parse, if it was meant
/// as a response (JSON objects with a `method` and data that is not JSON are skipped).
fn unparsed_event_error(data: &str) -> Option<McpError> {
    let mut de = serde_json::Deserializer::from_str(data);
    // `check` has bounded the nesting already.
    de.disable_recursion_limit();
    let value: Value = serde::Deserialize::deserialize(&mut de).ok()?;
    let obj = value.as_object()?;
    if obj.contains_key("method") {
        return None;
    }
    if let Some(reason) = response_shape_error(obj) {
        return Some(invalid(reason));
    }
    if obj.get("id").is_none_or(Value::is_null) && obj.contains_key("result") {
        return Some(invalid("it has no id"));
    }
    Some(invalid("it is not a JSON-RPC message"))
}

/// Judges one SSE event of request `id`'s stream: `Ok(None)` to pass it on, `Ok(Some(data))`
/// to pass it on with this data, `Err` to fail the request.
fn judge_event(data: &str, id: &RequestId) -> Result<Option<String>, McpError> {
    if let Some(error) = check(data.as_bytes()) {
        return Err(error);
    }
    match serde_json::from_str::<ServerJsonRpcMessage>(data) {
        Ok(message) => match judge(&message, id, false) {
            Judged::Deliver => Ok(None),
            Judged::Readdress(error) => {
                let reply = ServerJsonRpcMessage::error(error, Some(id.clone()));
                Ok(serde_json::to_string(&reply).ok())
            }
            Judged::Fail(error) => Err(error),
        },
        Err(_) => unparsed_event_error(data).map_or(Ok(None), Err),
    }
}

/// How rmcp's message for a JSON body it could not parse begins.
const RMCP_UNPARSABLE_BODY: &str = "could not parse JSON response";

/// Our error for a failed POST, or `None` to leave the failure to rmcp (with `bounds_only`,
/// every failure but a reply over a bound).
fn post_error(error: &HttpError, bounds_only: bool) -> Option<McpError> {
    let bound = matches!(error, StreamableHttpError::ResponseBodyTooLarge { .. })
        || matches!(error, StreamableHttpError::UnexpectedServerResponse(r) if r.starts_with(RMCP_UNPARSABLE_BODY));
    if bounds_only && !bound {
        return None;
    }
    Some(match error {
        StreamableHttpError::ResponseBodyTooLarge { max_size } => McpError::MessageTooLarge {
            limit: *max_size as u64,
        },
        StreamableHttpError::UnexpectedServerResponse(reason)
            if reason.starts_with(RMCP_UNPARSABLE_BODY) =>
        {
            if reason.contains("recursion limit exceeded") {
                McpError::MessageTooDeep {
                    limit: u64::from(MCP_HTTP_MAX_MESSAGE_DEPTH),
                }
            } else {
                invalid("its body is not a JSON-RPC message")
            }
        }
        StreamableHttpError::UnexpectedServerResponse(reason) => {
            // rmcp's "HTTP <status> <reason>: <body prefix>"; the body stays out.
            let status = reason.split(':').next().unwrap_or_default();
            let status = truncate_utf8(status, DETAIL_BYTES);
            let note = if status.starts_with("HTTP 3") {
                " (redirects are not followed)"
            } else {
                ""
            };
            McpError::Transport {
                message: format!("the server answered {status}{note}"),
            }
        }
        StreamableHttpError::HttpStatus(status) => McpError::Transport {
            message: format!("the server answered HTTP {}", status.status),
        },
        StreamableHttpError::UnexpectedContentType(Some(ct)) => invalid(format!(
            "its content type {} is neither application/json nor text/event-stream",
            truncate_utf8(ct, DETAIL_BYTES)
        )),
        StreamableHttpError::UnexpectedContentType(None) => invalid("it has no content type"),
        StreamableHttpError::Client(e) => McpError::Transport {
            message: error_chain(e),
        },
        // A session the server no longer knows: rmcp opens a new one and retries.
        _ => return None,
    })
}

/// An error with its sources ("error sending request: ...: header too large"), bounded.
pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let part = e.to_string();
        if !message.contains(&part) {
            message.push_str(": ");
            message.push_str(&part);
        }
        source = e.source();
    }
    truncate_utf8(&message, 4 * DETAIL_BYTES).to_owned()
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
        let judged = judged_request(&message);
        let post = self.inner.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        );
        let response = tokio::select! {
            r = post => r,
            () = self.shutdown.cancelled() => Err(StreamableHttpError::TransportChannelClosed),
        };
        let response = match response {
            Ok(StreamableHttpPostResponse::Sse(stream, sid)) => Ok(
                StreamableHttpPostResponse::Sse(self.until_shutdown(stream), sid),
            ),
            other => other,
        };
        let Some((id, discover)) = judged else {
            return response;
        };
        match response {
            Ok(StreamableHttpPostResponse::Sse(stream, sid)) => {
                let frames = self.frames.clone();
                let max = limits.max_sse_event_size;
                let mapped = stream.map(move |event| {
                    let verdict = match &event {
                        Ok(ev) if matches!(ev.event.as_deref(), None | Some("" | "message")) => {
                            ev.data.as_deref().map_or(Ok(None), |d| judge_event(d, &id))
                        }
                        Ok(_) => Ok(None),
                        // rmcp's event bound (its error type is private; its text says so).
                        Err(SseError::Body(e)) if e.to_string().contains("maximum size") => {
                            Err(McpError::MessageTooLarge { limit: max as u64 })
                        }
                        // A broken stream: rmcp resumes it or fails the request.
                        Err(_) => Ok(None),
                    };
                    match (verdict, event) {
                        (Ok(None), event) => event,
                        (Ok(Some(data)), event) => {
                            let mut ev = event.unwrap_or_default();
                            ev.data = Some(data);
                            Ok(ev)
                        }
                        (Err(error), event) => {
                            let reply = fail(&frames, id.clone(), &error);
                            let mut ev = event.unwrap_or_default();
                            ev.event = None;
                            ev.data = serde_json::to_string(&reply).ok();
                            Ok(ev)
                        }
                    }
                });
                Ok(StreamableHttpPostResponse::Sse(mapped.boxed(), sid))
            }
            Ok(StreamableHttpPostResponse::Json(message, sid)) => {
                let message = match judge(&message, &id, true) {
                    Judged::Deliver => message,
                    Judged::Readdress(error) => ServerJsonRpcMessage::error(error, Some(id)),
                    Judged::Fail(error) => fail(&self.frames, id, &error),
                };
                Ok(StreamableHttpPostResponse::Json(message, sid))
            }
            Ok(other) => Ok(other),
            Err(e) => match post_error(&e, discover) {
                Some(error) => Ok(StreamableHttpPostResponse::Json(
                    fail(&self.frames, id, &error),
                    None,
                )),
                None => Err(e),
            },
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
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            rmcp::transport::streamable_http_client::StreamableHttpResponseLimits::default()
                .max_sse_event_size,
        )
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
        let stream = self.inner.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        );
        tokio::select! {
            r = stream => r.map(|s| self.until_shutdown(s)),
            () = self.shutdown.cancelled() => Err(StreamableHttpError::TransportChannelClosed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}0{}", "[".repeat(n), "]".repeat(n))
    }

    /// A `tools/call`-style answer whose whole message nests `levels` deep.
    fn answer(id: u32, levels: usize) -> String {
        // root (1) -> result (2) -> structuredContent (3) -> arrays
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{}}}}}"#,
            nested(levels - 2)
        )
    }

    fn reason(r: Result<Option<String>, McpError>) -> String {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn sse_depth_is_judged_at_the_bound_rmcp_can_parse() {
        let id = RequestId::Number(7);
        assert_eq!(judge_event(&answer(7, 127), &id), Ok(None));
        // The bound is serde_json's own: what passes here, rmcp parses.
        assert!(serde_json::from_str::<ServerJsonRpcMessage>(&answer(7, 127)).is_ok());
        assert!(serde_json::from_str::<ServerJsonRpcMessage>(&answer(7, 128)).is_err());
        assert_eq!(
            reason(judge_event(&answer(7, 128), &id)),
            "MCP message nests deeper than 127 levels"
        );
        assert_eq!(
            reason(judge_event(&answer(7, 100_000), &id)),
            "MCP message nests deeper than 127 levels"
        );
    }

    #[test]
    fn sse_replies_must_answer_their_request_in_shape() {
        let id = RequestId::Number(7);
        let bad = |data: &str| reason(judge_event(data, &id));
        assert_eq!(
            bad(r#"{"jsonrpc":"2.0","id":8,"result":{}}"#),
            "MCP server sent an invalid response: its id does not match the request"
        );
        assert_eq!(
            bad(r#"{"jsonrpc":"2.0","result":{}}"#),
            "MCP server sent an invalid response: it has no id"
        );
        assert_eq!(
            bad(r#"{"jsonrpc":"2.0","id":7,"error":{"code":"x","message":"m"}}"#),
            "MCP server sent an invalid response: its error has no integer code and string message"
        );
        // Not JSON, and the server's own requests and notifications, pass on to rmcp.
        assert_eq!(judge_event("keepalive", &id), Ok(None));
        assert_eq!(
            judge_event(
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
                &id
            ),
            Ok(None)
        );
        assert_eq!(
            judge_event(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, &id),
            Ok(None)
        );
        // An error without an id answers the request it arrived for.
        let Ok(Some(data)) = judge_event(
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
            &id,
        ) else {
            panic!("an id-less error is readdressed");
        };
        let v: Value = serde_json::from_str(&data).unwrap_or_default();
        assert_eq!(v["id"], 7);
        assert_eq!(v["error"]["message"], "Parse error");
    }

    #[test]
    fn json_bodies_must_be_the_response_to_their_request() {
        let id = RequestId::Number(7);
        let parse = |s: &str| serde_json::from_str::<ServerJsonRpcMessage>(s).ok();
        let verdict = |s: &str| parse(s).map(|m| judge(&m, &id, true));
        assert!(matches!(
            verdict(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            Some(Judged::Deliver)
        ));
        assert!(matches!(
            verdict(r#"{"jsonrpc":"2.0","id":"7","result":{}}"#),
            Some(Judged::Fail(McpError::InvalidResponse { .. }))
        ));
        assert!(matches!(
            verdict(
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#
            ),
            Some(Judged::Fail(McpError::InvalidResponse { .. }))
        ));
        assert!(matches!(
            verdict(r#"{"jsonrpc":"2.0","error":{"code":-1,"message":"m"}}"#),
            Some(Judged::Readdress(_))
        ));
    }

    #[test]
    fn failed_posts_get_short_messages_of_our_own() {
        let msg = |e: HttpError| {
            post_error(&e, false)
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            msg(StreamableHttpError::ResponseBodyTooLarge { max_size: 10 }),
            "MCP message exceeds 10 bytes"
        );
        assert_eq!(
            msg(StreamableHttpError::UnexpectedServerResponse(
                "HTTP 307 Temporary Redirect: a body that stays out".into()
            )),
            "MCP transport error: the server answered HTTP 307 Temporary Redirect (redirects are not followed)"
        );
        assert_eq!(
            msg(StreamableHttpError::UnexpectedServerResponse(
                "could not parse JSON response as ServerJsonRpcMessage: recursion limit exceeded at line 1 column 130: [[[".into()
            )),
            "MCP message nests deeper than 127 levels"
        );
        assert_eq!(
            msg(StreamableHttpError::UnexpectedContentType(Some("text/html".into()))),
            "MCP server sent an invalid response: its content type text/html is neither application/json nor text/event-stream"
        );
        assert_eq!(
            msg(StreamableHttpError::HttpStatus(
                rmcp::transport::streamable_http_client::HttpStatusError::new(502, None)
            )),
            "MCP transport error: the server answered HTTP 502"
        );
        // rmcp's session recovery needs its own error; its fallback from `server/discover`
        // to `initialize` sees every failure but a bound.
        assert!(post_error(&StreamableHttpError::SessionExpired, false).is_none());
        let http_500 = || {
            StreamableHttpError::HttpStatus(
                rmcp::transport::streamable_http_client::HttpStatusError::new(500, None),
            )
        };
        assert!(post_error(&http_500(), true).is_none());
        assert!(post_error(&http_500(), false).is_some());
        assert!(post_error(
            &StreamableHttpError::ResponseBodyTooLarge { max_size: 1 },
            true
        )
        .is_some());
    }
}
