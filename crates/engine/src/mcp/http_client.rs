//! The Streamable HTTP client under rmcp's transport: reqwest (bounded body and SSE event
//! reads) with the bridge's own judgement laid over every reply to a request, so that a
//! hostile reply fails that request at once, with an error naming the bound or the fault,
//! instead of being dropped by rmcp (which then waits for `callTimeoutMs`); the session stays
//! usable.
//!
//! The bridge makes the POST of every request itself, and judges each reply, a JSON body or
//! each `message` event of the request's SSE stream, before anything parses it: size
//! (`maxResponseBytes`), nesting deeper than [`MCP_MAX_MESSAGE_DEPTH`] (counted without
//! recursion, the same bound and message as stdio, for every answer), then, parsed once
//! without serde's recursion limit, the JSON-RPC shape (an `error` without an integer `code`
//! and string `message`, a result that is not an object, a response without an `id`) and
//! the `id`: a response on a request's own POST must answer that request (an error with no
//! `id` is taken as its answer). rmcp never parses an answer as text it could not read
//! (serde_json's recursion limit stops at 127 levels): the answer to a `tools/call` is held
//! for the session (rmcp only carries a stand-in error to it); `server/discover` and
//! `initialize` answers reach rmcp parsed, as a JSON reply, also when they came on an SSE
//! stream (read here up to the answer); a `tools/list` answer reaches rmcp parsed in a JSON
//! body, as the event's text on a stream when rmcp can read it, and is held for the session
//! when it is deeper ([`Kind`]). The server's own requests and notifications on a stream
//! are only scanned. Event data that is not JSON is skipped, as the stdio framer skips such
//! lines; a stream that ends before the response, with no event id to resume from, fails
//! the request when it ends. Failures of the POST itself (status, content type, a redirect,
//! which is never followed, a broken connection) fail the request with a short message of
//! our own; a session the server no longer knows (404) is left to rmcp, which opens a new
//! session and retries the request once. For `server/discover`, whose failures decide
//! rmcp's fallback to `initialize`, a failure status is read as rmcp's own client reads it.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, WWW_AUTHENTICATE};
use reqwest::StatusCode;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, CustomResult, ErrorCode, ErrorData, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use serde::Deserialize;
use serde_json::Value;
use sse_stream::{Sse, SseStream};
use tokio_util::sync::CancellationToken;

use super::content::truncate_utf8;
use super::frame::{response_shape_error, FrameShared, LineFramer, Settled};
use super::http_bearer::Bearer;
use super::oauth::challenge::parse_bearer_challenge;
use super::oauth::step_up::{next_step, ChallengeMemory, ChallengeStep};
use super::sse_resume::{PendingResume, ResumeStep, Resumes};
use super::{negotiation, McpError};
use crate::limits::{MCP_ERROR_DETAIL_BYTES as DETAIL_BYTES, MCP_MAX_MESSAGE_DEPTH};

/// reqwest with the bridge's judgement on replies.
#[derive(Debug, Clone)]
pub struct BoundedHttpClient {
    inner: reqwest::Client,
    frames: FrameShared,
    shutdown: CancellationToken,
    /// Answer streams the server closed before the answer, waiting for rmcp's resuming `GET`.
    resumes: Resumes<Kind>,
    /// The access token of a session with OAuth (`transport.auth`), sent on every request.
    bearer: Option<Arc<Bearer>>,
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
            resumes: Resumes::default(),
            bearer: None,
        }
    }

    /// The client with the session's `bearer` (OAuth): its token goes on every request, and a
    /// request the server refuses (401, or 403 `insufficient_scope`) is authorized again and
    /// sent again under the rules of [`step_up`](super::oauth::step_up).
    #[must_use]
    pub fn with_bearer(mut self, bearer: Option<Bearer>) -> Self {
        self.bearer = bearer.map(Arc::new);
        self
    }

    /// `send` with the bearer's token (or rmcp's `auth_header` when there is no bearer),
    /// authorized again and sent again while the step-up rules say so. The outer error is the
    /// authorization's own failure; the inner result is the last send's.
    async fn with_bearer_token<T, F, Fut>(
        &self,
        auth_header: Option<String>,
        send: F,
    ) -> Result<Result<T, HttpError>, McpError>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<T, HttpError>>,
    {
        let Some(bearer) = &self.bearer else {
            return Ok(send(auth_header).await);
        };
        let mut memory = ChallengeMemory::default();
        loop {
            let token = bearer.token().await?;
            let sent = send(token.clone()).await;
            let (status, header) = match &sent {
                Err(StreamableHttpError::AuthRequired(e)) => (401, &e.www_authenticate_header),
                Err(StreamableHttpError::InsufficientScope(e)) => (403, &e.www_authenticate_header),
                _ => return Ok(sent),
            };
            match next_step(&mut memory, status, Some(header)) {
                ChallengeStep::Authorize(challenge) => {
                    bearer
                        .reauthorize(token.as_deref(), status, &challenge)
                        .await?;
                }
                ChallengeStep::Refused(message) => {
                    return Err(McpError::Transport {
                        message: message.to_owned(),
                    })
                }
                ChallengeStep::Pass => return Ok(sent),
            }
        }
    }

    /// [`with_bearer_token`](Self::with_bearer_token) for a request with nothing to judge in
    /// what comes back (a notification, the GET stream): the authorization's own failure is
    /// read as rmcp reads a failed request.
    async fn send_with_bearer<T, F, Fut>(
        &self,
        auth_header: Option<String>,
        send: F,
    ) -> Result<T, HttpError>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: std::future::Future<Output = Result<T, HttpError>>,
    {
        self.with_bearer_token(auth_header, send)
            .await
            .unwrap_or_else(|e| Err(unauthorized(&e)))
    }

    /// `stream`, ended when the session shuts down.
    fn until_shutdown<T: Send + 'static>(
        &self,
        stream: BoxStream<'static, T>,
    ) -> BoxStream<'static, T> {
        stream
            .take_until(self.shutdown.clone().cancelled_owned())
            .boxed()
    }

    /// `post`, ended when the session shuts down; an SSE reply's stream ends with it too.
    async fn until_shutdown_post(
        &self,
        post: impl std::future::Future<Output = Result<StreamableHttpPostResponse, HttpError>>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let response = tokio::select! {
            r = post => r,
            () = self.shutdown.cancelled() => Err(StreamableHttpError::TransportChannelClosed),
        };
        match response {
            Ok(StreamableHttpPostResponse::Sse(stream, sid)) => Ok(
                StreamableHttpPostResponse::Sse(self.until_shutdown(stream), sid),
            ),
            other => other,
        }
    }
}

type HttpError = StreamableHttpError<reqwest::Error>;

/// How the replies to a request are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `server/discover`, answered like [`Kind::Answered`]. A reply the bridge refuses (over
    /// a bound, of the wrong shape) gets a stand-in error, after which rmcp falls back to
    /// `initialize`; a failure status is read as rmcp's own client reads it, since that
    /// decides the fallback ([`BoundedHttpClient::discover_refused`]).
    Discover,
    /// A request rmcp waits for itself (`initialize`): the answer goes to rmcp as a parsed
    /// JSON reply; an SSE stream is read here up to the answer (what comes before it is
    /// dropped, as rmcp drops it for `initialize`).
    Answered,
    /// `tools/list`: a JSON body's answer goes to rmcp parsed. On an SSE stream, an answer
    /// within what rmcp's parser reads ([`RMCP_TEXT_MAX_DEPTH`]) goes to rmcp as it is (rmcp
    /// keeps listed schemas for its request headers); a deeper one is held for the session.
    Listing,
    /// Judged, and the answer held for the session (`tools/call`, and the bridge's raw
    /// requests: a `tools/call` with a task, `tasks/get`, `tasks/result`, `tasks/cancel`).
    Held,
    /// A long-lived request whose stream carries the server's notifications for it
    /// (`subscriptions/listen`): answered like [`Kind::Answered`], but an SSE stream goes to
    /// rmcp event by event, judged, rather than read here up to the answer.
    Streamed,
}

/// The deepest JSON text rmcp's own parser reads (serde_json's recursion limit): not a bound
/// of the bridge's, only which way a `tools/list` answer on an SSE stream goes
/// ([`Kind::Listing`]). Nothing within [`MCP_MAX_MESSAGE_DEPTH`] fails for it.
const RMCP_TEXT_MAX_DEPTH: u32 = 127;

/// The id of a request whose replies are judged, and how.
fn judged_request(message: &ClientJsonRpcMessage) -> Option<(RequestId, Kind)> {
    let ClientJsonRpcMessage::Request(r) = message else {
        return None;
    };
    let kind = match r.request {
        ClientRequest::DiscoverRequest(_) => Kind::Discover,
        // The bridge's raw requests (a `tools/call` with a task, `tasks/*`): their answers
        // are held raw like a `tools/call`'s, rmcp has no type for them.
        ClientRequest::CallToolRequest(_) | ClientRequest::CustomRequest(_) => Kind::Held,
        ClientRequest::ListToolsRequest(_) => Kind::Listing,
        ClientRequest::SubscriptionsListenRequest(_) => Kind::Streamed,
        _ => Kind::Answered,
    };
    Some((r.id.clone(), kind))
}

fn invalid(reason: impl Into<String>) -> McpError {
    McpError::InvalidResponse {
        reason: reason.into(),
    }
}

/// The reason for a JSON body that is not a JSON-RPC message.
const NOT_JSON_RPC: &str = "its body is not a JSON-RPC message";

/// What to do with one reply (a JSON body or an SSE event's data).
#[derive(Debug)]
enum Verdict {
    /// An SSE event: hand rmcp the event as it is (`answers`: it is the response).
    Pass {
        /// Whether the event is the request's response.
        answers: bool,
    },
    /// Hand rmcp this message (a JSON body, or an SSE event rewritten).
    Deliver(ServerJsonRpcMessage),
    /// The request is settled: its answer or the error that fails it.
    Settle(Settled),
    /// An SSE event answering no request of this stream (no id, another id): a stray, dropped
    /// (its event id still counts for resuming).
    Stray,
}

/// Whether rmcp's own parser reads `data` ([`RMCP_TEXT_MAX_DEPTH`]).
fn rmcp_reads(data: &[u8]) -> bool {
    LineFramer::new(usize::MAX, RMCP_TEXT_MAX_DEPTH)
        .check_whole(data)
        .is_ok()
}

/// The answer a held request is settled with (its shapes are checked already).
fn held_outcome(mut obj: serde_json::Map<String, Value>) -> Settled {
    match (obj.remove("result"), obj.remove("error")) {
        // Handed to the session as the JSON the server sent (no typed round trip).
        (Some(result), _) if result.is_object() => {
            Ok(ServerResult::CustomResult(CustomResult(result)))
        }
        (Some(_), _) => Err(invalid("its result is not an object")),
        (_, Some(error)) => Err(serde_json::from_value::<ErrorData>(error)
            .map_or_else(|_| invalid(NOT_JSON_RPC), McpError::remote)),
        (None, None) => Err(invalid(NOT_JSON_RPC)),
    }
}

/// Parses JSON text whose nesting [`LineFramer::check_whole`] has bounded already.
fn parse_bounded(data: &[u8]) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(data);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

/// Judges one reply to request `id` (`body`: a JSON body, else an SSE event's data).
fn judge(data: &[u8], id: &RequestId, kind: Kind, body: bool) -> Verdict {
    let has_method = match LineFramer::new(usize::MAX, MCP_MAX_MESSAGE_DEPTH).check_whole(data) {
        Ok(has_method) => has_method,
        // A reply to this request's POST (a body, or an event on its stream) is its answer.
        Err(error) => return Verdict::Settle(Err(error.of_answer())),
    };
    // Not a response: on a stream, the server's own request or notification (rmcp reads it);
    // a body must be the response.
    let not_a_response = |reason: &str| {
        if body {
            Verdict::Settle(Err(invalid(reason)))
        } else {
            Verdict::Pass { answers: false }
        }
    };
    if has_method {
        return not_a_response("its body is not a response");
    }
    let Some(Value::Object(mut obj)) = parse_bounded(data) else {
        return not_a_response(NOT_JSON_RPC);
    };
    if obj.contains_key("method") {
        return not_a_response("its body is not a response");
    }
    if let Some(reason) = response_shape_error(&obj) {
        return Verdict::Settle(Err(invalid(reason)));
    }
    let readdressed = match obj.get("id") {
        // An error the server could not tie to a request answers the one it came back on.
        None | Some(Value::Null) if obj.contains_key("error") => true,
        // On a stream, an answer to no request or to another one is a stray.
        _ if !body && !answers(&obj, id) => return Verdict::Stray,
        None | Some(Value::Null) => return Verdict::Settle(Err(invalid(crate::mcp::frame::NO_ID))),
        Some(_) if !answers(&obj, id) => {
            return Verdict::Settle(Err(invalid("its id does not match the request")));
        }
        Some(_) => false,
    };
    if kind == Kind::Discover {
        let unusable = match (obj.get("result"), obj.get("error")) {
            (Some(result), _) if !negotiation::is_discover_result(result) => {
                Some(negotiation::NOT_A_DISCOVER_RESULT)
            }
            (_, Some(error)) if negotiation::offers_only_initialize(error) => {
                Some(negotiation::ONLY_INITIALIZE_OFFERED)
            }
            _ => None,
        };
        if let Some(reason) = unusable {
            let error = negotiation::fallback_error(reason);
            return Verdict::Deliver(ServerJsonRpcMessage::error(error, Some(id.clone())));
        }
    }
    // An event rmcp would read as text: a listing on a stream (any other answer goes to rmcp
    // parsed). One deeper than rmcp's parser reads is held instead.
    let to_rmcp_as_text = kind == Kind::Listing && !body;
    if kind == Kind::Held || (to_rmcp_as_text && !rmcp_reads(data)) {
        return Verdict::Settle(held_outcome(obj));
    }
    if to_rmcp_as_text && !readdressed {
        return Verdict::Pass { answers: true };
    }
    if readdressed {
        obj.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
    }
    match serde_json::from_value::<ServerJsonRpcMessage>(Value::Object(obj)) {
        Ok(message) => Verdict::Deliver(message),
        Err(_) => Verdict::Settle(Err(invalid(NOT_JSON_RPC))),
    }
}

/// Whether the response `obj` names request `id`.
fn answers(obj: &serde_json::Map<String, Value>, id: &RequestId) -> bool {
    obj.get("id")
        .and_then(|v| RequestId::deserialize(v).ok())
        .as_ref()
        == Some(id)
}

/// Settles request `id` outside rmcp: a held answer or error is kept for the session and
/// rmcp gets a stand-in error (the session replaces it); for the other kinds only an error
/// settles a request, and it is also what rmcp sees (the handshake reports it).
fn settle(
    frames: &FrameShared,
    id: RequestId,
    kind: Kind,
    outcome: Settled,
) -> ServerJsonRpcMessage {
    let text = match &outcome {
        Ok(_) => "the answer is held by the bridge".to_owned(),
        Err(error) => error.to_string(),
    };
    match (kind, outcome) {
        (Kind::Held | Kind::Listing, outcome) => frames.hold(id.clone(), outcome),
        (_, Err(error)) => frames.record(id.clone(), error),
        // Only held requests have their answer settled.
        (_, Ok(_)) => {}
    }
    ServerJsonRpcMessage::error(ErrorData::new(ErrorCode(-32603), text, None), Some(id))
}

/// The error for a POST the server answered with a failure status.
fn status_error(status: StatusCode) -> McpError {
    // Rate limits and server errors by their number (what rmcp reports); the rest with
    // their reason.
    let shown = if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        status.as_u16().to_string()
    } else {
        truncate_utf8(&status.to_string(), DETAIL_BYTES).to_owned()
    };
    let note = if status.is_redirection() {
        " (redirects are not followed)"
    } else {
        ""
    };
    McpError::Transport {
        message: format!("the server answered HTTP {shown}{note}"),
    }
}

/// The refusal of a session's bearer the step-up rules answer: any 401, and a 403 whose
/// `Bearer` challenge is `insufficient_scope` (a header that is not text reads as none).
fn challenge_of(status: StatusCode, headers: &HeaderMap) -> Option<HttpError> {
    let header = headers
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if status == StatusCode::UNAUTHORIZED {
        return Some(StreamableHttpError::AuthRequired(AuthRequiredError::new(
            header,
        )));
    }
    let step_up = status == StatusCode::FORBIDDEN
        && parse_bearer_challenge(&header).is_some_and(|c| c.is_insufficient_scope());
    step_up
        .then(|| StreamableHttpError::InsufficientScope(InsufficientScopeError::new(header, None)))
}

/// A failure of the bearer's authorization, as rmcp reads a failed request.
fn unauthorized(error: &McpError) -> HttpError {
    StreamableHttpError::UnexpectedServerResponse(error.to_string().into())
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

/// Whether a `Content-Type` value names `expected` (its essence, case-insensitive, without
/// parameters).
fn media_type_is(value: &str, expected: &str) -> bool {
    value.split(';').next().is_some_and(|essence| {
        essence
            .trim_matches([' ', '\t'])
            .eq_ignore_ascii_case(expected)
    })
}

/// Why a body could not be read.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    /// Over the byte bound.
    #[error("the body exceeds {0} bytes")]
    TooLarge(usize),
    /// The connection failed.
    #[error(transparent)]
    Read(#[from] reqwest::Error),
}

impl BodyError {
    fn into_mcp(self) -> McpError {
        match self {
            Self::TooLarge(limit) => McpError::MessageTooLarge {
                limit: limit as u64,
            },
            Self::Read(e) => McpError::Transport {
                message: error_chain(&e),
            },
        }
    }
}

/// The whole body, at most `max` bytes (a `Content-Length` over it fails before reading).
async fn read_body(response: reqwest::Response, max: usize) -> Result<Vec<u8>, BodyError> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return Err(BodyError::TooLarge(max));
    }
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if chunk.len() > max.saturating_sub(body.len()) {
            return Err(BodyError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Counts the bytes of the SSE event being received (its non-comment lines, each with the
/// newline the parser joins them with), so that no event is buffered past `max`.
#[derive(Debug)]
struct EventBytes {
    max: usize,
    event: usize,
    line: usize,
    comment: bool,
    after_cr: bool,
}

impl EventBytes {
    fn new(max: usize) -> Self {
        Self {
            max,
            event: 0,
            line: 0,
            comment: false,
            after_cr: false,
        }
    }

    /// Whether the event still fits after `chunk`.
    fn observe(&mut self, mut chunk: &[u8]) -> bool {
        while !chunk.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if let Some(rest) = chunk.strip_prefix(b"\n") {
                    chunk = rest;
                    continue;
                }
            }
            let end = memchr::memchr2(b'\r', b'\n', chunk);
            let text = chunk.get(..end.unwrap_or(chunk.len())).unwrap_or_default();
            if self.line == 0 && !text.is_empty() {
                self.comment = text.first() == Some(&b':');
            }
            self.line = self.line.saturating_add(text.len());
            if self.event.saturating_add(self.line) > self.max {
                return false;
            }
            let Some(at) = end else { break };
            if self.line == 0 {
                self.event = 0;
            } else if !self.comment {
                self.event = self.event.saturating_add(self.line).saturating_add(1);
            }
            self.line = 0;
            self.comment = false;
            self.after_cr = chunk.get(at) == Some(&b'\r');
            chunk = chunk.get(at + 1..).unwrap_or_default();
            if self.event > self.max {
                return false;
            }
        }
        true
    }
}

/// Why an SSE body stopped.
#[derive(Debug, thiserror::Error)]
enum SseBodyError {
    /// An event over the byte bound.
    #[error("an SSE event exceeds {0} bytes")]
    TooLarge(usize),
    /// The connection failed.
    #[error(transparent)]
    Read(#[from] reqwest::Error),
}

/// The response's SSE events, each bounded to `max` bytes (the stream ends after the first
/// event over it, with [`SseBodyError::TooLarge`]).
fn bounded_events(
    response: reqwest::Response,
    max: usize,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let bytes = response.bytes_stream().scan(
        (EventBytes::new(max), false),
        move |(count, failed), chunk| {
            let item = if *failed {
                None
            } else {
                Some(match chunk {
                    Ok(c) if count.observe(&c) => Ok(c),
                    Ok(_) => Err(SseBodyError::TooLarge(max)),
                    Err(e) => Err(SseBodyError::Read(e)),
                })
            };
            *failed = item.as_ref().is_some_and(Result::is_err);
            futures::future::ready(item)
        },
    );
    SseStream::from_bytes_stream(bytes).boxed()
}

/// The judgement over one request's SSE stream.
struct EventJudge {
    events: BoxStream<'static, Result<Sse, SseError>>,
    id: RequestId,
    kind: Kind,
    frames: FrameShared,
    /// The response (or the error settling the request) has gone to rmcp.
    answered: bool,
    /// The id of the last event that carried one: rmcp can resume the stream after it.
    last_event_id: Option<String>,
    /// Resumes of this request's answer stream so far (0 for the POST's own stream).
    attempts: u32,
    /// Where a stream that ends resumably, unanswered, is kept for its resuming `GET`.
    resumes: Resumes<Kind>,
    ended: bool,
}

impl EventJudge {
    fn event_with(&self, message: &ServerJsonRpcMessage) -> Sse {
        Sse {
            data: serde_json::to_string(message).ok(),
            ..Sse::default()
        }
    }

    /// What to do with one event; a broken stream (not one over the bound) is
    /// [`Verdict::Pass`].
    fn verdict(&mut self, event: &Result<Sse, SseError>) -> Verdict {
        match event {
            Ok(ev) => {
                if let Some(id) = &ev.id {
                    self.last_event_id = Some(id.clone());
                }
                match (ev.event.as_deref(), ev.data.as_deref()) {
                    (None | Some("" | "message"), Some(data)) => {
                        judge(data.as_bytes(), &self.id, self.kind, false)
                    }
                    _ => Verdict::Pass { answers: false },
                }
            }
            Err(SseError::Body(e))
                if matches!(
                    e.downcast_ref::<SseBodyError>(),
                    Some(SseBodyError::TooLarge(_))
                ) =>
            {
                let limit = match e.downcast_ref::<SseBodyError>() {
                    Some(SseBodyError::TooLarge(n)) => *n as u64,
                    _ => 0,
                };
                Verdict::Settle(Err(McpError::MessageTooLarge { limit }))
            }
            // A broken stream: rmcp resumes it or fails the request.
            Err(_) => Verdict::Pass { answers: false },
        }
    }

    fn judge(&mut self, event: Result<Sse, SseError>) -> Result<Sse, SseError> {
        match self.verdict(&event) {
            Verdict::Stray => match self.frames.count_stray() {
                None => event.map(|ev| Sse { data: None, ..ev }),
                Some(flood) => {
                    self.answered = true;
                    let reply = settle(&self.frames, self.id.clone(), self.kind, Err(flood));
                    Ok(self.event_with(&reply))
                }
            },
            Verdict::Pass { answers } => {
                self.answered |= answers;
                event
            }
            Verdict::Deliver(message) => {
                self.answered = true;
                Ok(self.event_with(&message))
            }
            Verdict::Settle(outcome) => {
                self.answered = true;
                let reply = settle(&self.frames, self.id.clone(), self.kind, outcome);
                Ok(self.event_with(&reply))
            }
        }
    }

    /// The stream read here up to the request's answer, which is what rmcp gets as a JSON
    /// reply ([`Kind::Answered`], [`Kind::Discover`]); the server's own messages before it
    /// are dropped. A stream that breaks or ends before the answer fails the request.
    async fn into_answer(mut self) -> ServerJsonRpcMessage {
        while let Some(event) = self.events.next().await {
            let verdict = match (self.verdict(&event), event) {
                (Verdict::Pass { .. }, Err(_)) => Verdict::Settle(Err(McpError::server_closed())),
                (verdict, _) => verdict,
            };
            match verdict {
                Verdict::Pass { .. } => {}
                Verdict::Stray => {
                    if let Some(flood) = self.frames.count_stray() {
                        return settle(&self.frames, self.id, self.kind, Err(flood));
                    }
                }
                Verdict::Deliver(message) => return message,
                Verdict::Settle(outcome) => {
                    return settle(&self.frames, self.id, self.kind, outcome)
                }
            }
        }
        settle(
            &self.frames,
            self.id,
            self.kind,
            Err(McpError::server_closed()),
        )
    }

    /// The request's stream, judged; one that ends before the response (with no event id to
    /// resume from) fails the request as it ends.
    fn into_stream(self) -> BoxStream<'static, Result<Sse, SseError>> {
        futures::stream::unfold(self, |mut judge| async move {
            if judge.ended {
                return None;
            }
            match judge.events.next().await {
                Some(event) => {
                    let out = judge.judge(event);
                    Some((out, judge))
                }
                None => {
                    judge.ended = true;
                    if judge.answered {
                        return None;
                    }
                    if let Some(last) = judge.last_event_id.take() {
                        // rmcp resumes it with GET and Last-Event-ID; judged again there.
                        let pending = PendingResume {
                            id: judge.id.clone(),
                            kind: judge.kind,
                            attempts: judge.attempts,
                        };
                        judge.resumes.ended(last, pending);
                        return None;
                    }
                    judge.answered = true;
                    let reply = settle(
                        &judge.frames,
                        judge.id.clone(),
                        judge.kind,
                        Err(McpError::server_closed()),
                    );
                    Some((Ok(judge.event_with(&reply)), judge))
                }
            }
        })
        .boxed()
    }
}

impl BoundedHttpClient {
    /// The POST of a judged request, made here so that its reply is judged before anything
    /// parses it. What rmcp's own client does with the status is kept where rmcp relies on
    /// it (202 and 204 accept, a 404 on a session expires it); every other failure settles
    /// the request with our message.
    #[allow(clippy::too_many_arguments)]
    async fn post_judged(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
        id: RequestId,
        kind: Kind,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let fail = |error: McpError| self.failed(id.clone(), kind, error);
        let mut request = self.inner.post(uri.as_ref()).header(
            ACCEPT,
            format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
        );
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        // rmcp's protocol headers (the bridge adds none of its own here).
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let attached = session_id.is_some();
        if let Some(sid) = session_id {
            request = request.header(HEADER_SESSION_ID, sid.as_ref());
        }
        let response = match request.json(&message).send().await {
            Ok(r) => r,
            Err(e) => {
                return fail(McpError::Transport {
                    message: error_chain(&e),
                })
            }
        };
        let status = response.status();
        if self.bearer.is_some() {
            if let Some(challenge) = challenge_of(status, response.headers()) {
                return Err(challenge);
            }
        }
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let headers = response.headers();
        let content_type = headers
            .get(CONTENT_TYPE)
            .map(|ct| String::from_utf8_lossy(ct.as_bytes()).into_owned());
        let sid = headers
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let is = |expected| {
            content_type
                .as_deref()
                .is_some_and(|ct| media_type_is(ct, expected))
        };
        let json = is(JSON_MIME_TYPE);
        if !status.is_success() && kind == Kind::Discover {
            return self
                .discover_refused(response, status, json, limits, id, sid)
                .await;
        }
        if !status.is_success() {
            // A JSON-RPC error in a JSON body is the server's answer (as for a parse error with
            // HTTP 400, or a failure with HTTP 500); anything else fails with the status.
            let answers = json
                && !matches!(
                    status,
                    StatusCode::TOO_MANY_REQUESTS
                        | StatusCode::UNAUTHORIZED
                        | StatusCode::FORBIDDEN
                );
            if answers {
                if let Ok(body) = read_body(response, limits.max_json_response_size).await {
                    let is_error = parse_bounded_error(&body);
                    if is_error {
                        return Ok(self.body_reply(&body, id, kind, sid));
                    }
                }
            }
            return fail(status_error(status));
        }
        if is(EVENT_STREAM_MIME_TYPE) {
            let judge = EventJudge {
                events: bounded_events(response, limits.max_sse_event_size),
                id,
                kind,
                frames: self.frames.clone(),
                answered: false,
                last_event_id: None,
                attempts: 0,
                resumes: self.resumes.clone(),
                ended: false,
            };
            if matches!(kind, Kind::Listing | Kind::Held | Kind::Streamed) {
                return Ok(StreamableHttpPostResponse::Sse(judge.into_stream(), sid));
            }
            return Ok(StreamableHttpPostResponse::Json(
                judge.into_answer().await,
                sid,
            ));
        }
        if json {
            return match read_body(response, limits.max_json_response_size).await {
                Ok(body) => Ok(self.body_reply(&body, id, kind, sid)),
                // A body over the bound is a reply refused, not a failure to get one.
                Err(e @ BodyError::TooLarge(_)) => Ok(StreamableHttpPostResponse::Json(
                    settle(&self.frames, id, kind, Err(e.into_mcp())),
                    sid,
                )),
                Err(e) => fail(e.into_mcp()),
            };
        }
        fail(match content_type {
            Some(ct) => invalid(format!(
                "its content type {} is neither application/json nor text/event-stream",
                truncate_utf8(&ct, DETAIL_BYTES)
            )),
            None => invalid("it has no content type"),
        })
    }

    /// A request that failed before any reply could be judged. For `server/discover` that
    /// is an error (rmcp then fails the handshake, as for its own client's failures); every
    /// other request is settled with the error.
    fn failed(
        &self,
        id: RequestId,
        kind: Kind,
        error: McpError,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        if kind == Kind::Discover {
            let message = error.to_string();
            self.frames.record(id, error);
            return Err(StreamableHttpError::UnexpectedServerResponse(
                message.into(),
            ));
        }
        Ok(StreamableHttpPostResponse::Json(
            settle(&self.frames, id, kind, Err(error)),
            None,
        ))
    }

    /// A failure status answering `server/discover`, read as rmcp's own client reads it, since
    /// that decides rmcp's fallback to `initialize`: a client error other than 401, 403 and
    /// 429 is the server refusing the request, answered with the JSON-RPC error of its body
    /// or one naming the status (rmcp then falls back, unless the error's code says
    /// otherwise); a JSON-RPC error in the body of another failure is the server's answer as
    /// it stands; any other failure fails the handshake.
    async fn discover_refused(
        &self,
        response: reqwest::Response,
        status: StatusCode,
        json: bool,
        limits: StreamableHttpResponseLimits,
        id: RequestId,
        sid: Option<String>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let unread = matches!(
            status,
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::TOO_MANY_REQUESTS
        );
        let answer = if json && !unread {
            read_body(response, limits.max_json_response_size)
                .await
                .ok()
                .and_then(|body| bounded_error(&body))
        } else {
            None
        };
        let refused = status.is_client_error() && !unread;
        let reply = match (refused, answer) {
            (true, Some(ServerJsonRpcMessage::Error(e))) => {
                let narrowed = serde_json::to_value(&e.error)
                    .is_ok_and(|v| negotiation::offers_only_initialize(&v));
                let error = if narrowed {
                    negotiation::fallback_error(negotiation::ONLY_INITIALIZE_OFFERED)
                } else {
                    e.error
                };
                ServerJsonRpcMessage::error(error, Some(id))
            }
            (true, _) => ServerJsonRpcMessage::error(
                ErrorData::invalid_request(
                    format!("server/discover was refused with HTTP {}", status.as_u16()),
                    None,
                ),
                Some(id),
            ),
            (false, Some(answer)) => answer,
            (false, None) => return self.failed(id, Kind::Discover, status_error(status)),
        };
        Ok(StreamableHttpPostResponse::Json(reply, sid))
    }

    /// What rmcp gets for a JSON body answering request `id`.
    fn body_reply(
        &self,
        body: &[u8],
        id: RequestId,
        kind: Kind,
        sid: Option<String>,
    ) -> StreamableHttpPostResponse {
        let message = match judge(body, &id, kind, true) {
            Verdict::Deliver(message) => message,
            Verdict::Settle(outcome) => settle(&self.frames, id, kind, outcome),
            // A body is always delivered or settled.
            Verdict::Pass { .. } | Verdict::Stray => {
                settle(&self.frames, id, kind, Err(invalid(NOT_JSON_RPC)))
            }
        };
        StreamableHttpPostResponse::Json(message, sid)
    }
}

impl BoundedHttpClient {
    /// The stream that fails a request whose answer's stream could not be resumed: one event
    /// carrying its error (held for the session like any settled answer).
    fn gave_up(
        &self,
        pending: PendingResume<Kind>,
        error: McpError,
    ) -> BoxStream<'static, Result<Sse, SseError>> {
        let reply = settle(&self.frames, pending.id, pending.kind, Err(error));
        let event = Sse {
            data: serde_json::to_string(&reply).ok(),
            ..Sse::default()
        };
        futures::stream::iter([Ok(event)]).boxed()
    }
}

/// A failure's JSON body as the JSON-RPC error it is (within the bounds), if it is one.
fn bounded_error(body: &[u8]) -> Option<ServerJsonRpcMessage> {
    if !parse_bounded_error(body) {
        return None;
    }
    match serde_json::from_value::<ServerJsonRpcMessage>(parse_bounded(body)?) {
        Ok(error @ ServerJsonRpcMessage::Error(_)) => Some(error),
        _ => None,
    }
}

/// Whether a failure's JSON body is a JSON-RPC error (within the bounds): the server's answer.
fn parse_bounded_error(body: &[u8]) -> bool {
    LineFramer::new(usize::MAX, MCP_MAX_MESSAGE_DEPTH)
        .check_whole(body)
        .is_ok_and(|has_method| !has_method)
        && parse_bounded(body)
            .is_some_and(|v| v.get("error").is_some() && v.get("result").is_none())
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
        if let Some((id, kind)) = judged_request(&message) {
            if matches!(kind, Kind::Held | Kind::Listing) {
                self.frames.track(id.clone());
            }
            let probe = kind == Kind::Discover && self.frames.probe_may_fall_back();
            let post = async {
                let sent = self
                    .with_bearer_token(auth_header, |token| {
                        self.post_judged(
                            uri.clone(),
                            message.clone(),
                            session_id.clone(),
                            token,
                            custom_headers.clone(),
                            limits,
                            id.clone(),
                            kind,
                        )
                    })
                    .await;
                match sent {
                    Ok(sent) => sent,
                    Err(error) => self.failed(id.clone(), kind, error),
                }
            };
            if probe {
                // A probe nobody answers in time falls back to `initialize`.
                let post = self.until_shutdown_post(post);
                return match tokio::time::timeout(negotiation::probe_timeout(), post).await {
                    Ok(reply) => reply,
                    Err(_) => Ok(StreamableHttpPostResponse::Json(
                        ServerJsonRpcMessage::error(
                            negotiation::fallback_error(&negotiation::unanswered()),
                            Some(id),
                        ),
                        None,
                    )),
                };
            }
            return self.until_shutdown_post(post).await;
        }
        // Notifications and the bridge's own replies: nothing to judge in what comes back.
        let post = async {
            self.send_with_bearer(auth_header, |token| {
                self.inner.post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    token,
                    custom_headers.clone(),
                    limits,
                )
            })
            .await
        };
        self.until_shutdown_post(post).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        // The session ends either way: the token is sent, a refusal is not answered.
        let token = match &self.bearer {
            Some(bearer) => bearer.token().await.ok().flatten(),
            None => auth_header,
        };
        self.inner
            .delete_session(uri, session_id, token, custom_headers)
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
        let step = last_event_id
            .as_deref()
            .map_or(ResumeStep::Unknown, |id| self.resumes.step(id));
        let pending = match step {
            ResumeStep::Unknown => None,
            ResumeStep::Resume(pending) => Some(pending),
            ResumeStep::GiveUp(pending, error) => return Ok(self.gave_up(pending, error)),
        };
        let stream = async {
            self.send_with_bearer(auth_header, |token| {
                self.inner.get_stream_with_max_sse_event_size(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    token,
                    custom_headers.clone(),
                    max_sse_event_size,
                )
            })
            .await
        };
        let got = tokio::select! {
            r = stream => r,
            () = self.shutdown.cancelled() => Err(StreamableHttpError::TransportChannelClosed),
        };
        let (Some(pending), Some(last)) = (pending, last_event_id) else {
            return got.map(|s| self.until_shutdown(s));
        };
        match got {
            // The resumed stream, judged as the request's first one was.
            Ok(events) => {
                let judge = EventJudge {
                    events: self.until_shutdown(events),
                    id: pending.id,
                    kind: pending.kind,
                    frames: self.frames.clone(),
                    answered: false,
                    last_event_id: Some(last),
                    attempts: pending.attempts,
                    resumes: self.resumes.clone(),
                    ended: false,
                };
                Ok(judge.into_stream())
            }
            Err(e) => {
                let cause = truncate_utf8(&e.to_string(), DETAIL_BYTES).to_owned();
                match self.resumes.failed(last, pending.clone(), &cause) {
                    Some(error) => Ok(self.gave_up(pending, error)),
                    None => Err(e),
                }
            }
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

    const ID: RequestId = RequestId::Number(7);

    /// The error a reply settles its request with ("" when it does not fail it).
    fn reason(data: &str, kind: Kind, body: bool) -> String {
        match judge(data.as_bytes(), &ID, kind, body) {
            Verdict::Settle(Err(e)) => e.to_string(),
            _ => String::new(),
        }
    }

    #[test]
    fn depth_is_judged_at_the_stdio_bound_in_bodies_and_events() {
        for (kind, body) in [
            (Kind::Held, true),
            (Kind::Held, false),
            (Kind::Listing, true),
            (Kind::Listing, false),
            (Kind::Answered, true),
            (Kind::Answered, false),
            (Kind::Discover, true),
            (Kind::Discover, false),
        ] {
            let at = judge(answer(7, 129).as_bytes(), &ID, kind, body);
            assert!(
                matches!(at, Verdict::Settle(Ok(_)) | Verdict::Deliver(_)),
                "{kind:?} {body}: 129 levels pass"
            );
            for levels in [130, 100_000] {
                assert_eq!(
                    reason(&answer(7, levels), kind, body),
                    "MCP message nests deeper than 129 levels",
                    "{kind:?} {body} {levels}"
                );
            }
        }
    }

    #[test]
    fn a_listing_on_a_stream_goes_to_rmcp_as_text_only_when_rmcp_can_read_it() {
        // rmcp's parser reads 127 levels and no more.
        assert!(serde_json::from_str::<ServerJsonRpcMessage>(&answer(7, 127)).is_ok());
        assert!(serde_json::from_str::<ServerJsonRpcMessage>(&answer(7, 128)).is_err());
        assert!(matches!(
            judge(answer(7, 127).as_bytes(), &ID, Kind::Listing, false),
            Verdict::Pass { answers: true }
        ));
        for levels in [128, 129] {
            assert!(
                matches!(
                    judge(answer(7, levels).as_bytes(), &ID, Kind::Listing, false),
                    Verdict::Settle(Ok(ServerResult::CustomResult(_)))
                ),
                "{levels} levels are held for the session"
            );
        }
        // Other answers reach rmcp parsed, never as text.
        assert!(matches!(
            judge(answer(7, 129).as_bytes(), &ID, Kind::Answered, false),
            Verdict::Deliver(ServerJsonRpcMessage::Response(_))
        ));
        // A discover answer that is no discover result becomes the error that falls back.
        for body in [true, false] {
            let Verdict::Deliver(ServerJsonRpcMessage::Error(e)) =
                judge(answer(7, 3).as_bytes(), &ID, Kind::Discover, body)
            else {
                panic!("an unusable discover answer falls back");
            };
            assert_eq!(e.id, Some(ID));
            assert_eq!(e.error.code, ErrorCode::METHOD_NOT_FOUND);
        }
    }

    #[test]
    fn replies_must_answer_their_request_in_shape() {
        let invalid = |r: &str| format!("MCP server sent an invalid response: {r}");
        // A body answers its POST's request or fails it; on a stream, an answer naming no
        // request or another one is a stray, dropped.
        let strays = [
            (
                r#"{"jsonrpc":"2.0","id":8,"result":{}}"#,
                "its id does not match the request",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"7","result":{}}"#,
                "its id does not match the request",
            ),
            (r#"{"jsonrpc":"2.0","result":{}}"#, crate::mcp::frame::NO_ID),
            (
                r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
                crate::mcp::frame::NO_ID,
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"m"}}"#,
                "its id does not match the request",
            ),
        ];
        for (data, why) in strays {
            assert_eq!(reason(data, Kind::Held, true), invalid(why), "{data}");
            assert!(
                matches!(
                    judge(data.as_bytes(), &ID, Kind::Held, false),
                    Verdict::Stray
                ),
                "{data}"
            );
        }
        for body in [true, false] {
            let bad = |data: &str| reason(data, Kind::Held, body);
            assert_eq!(
                bad(r#"{"jsonrpc":"2.0","id":7,"error":{"code":"x","message":"m"}}"#),
                invalid("its error has no integer code and string message")
            );
            assert_eq!(
                bad(r#"{"jsonrpc":"2.0","id":7,"result":"done"}"#),
                invalid("its result is not an object")
            );
            // An error without an id answers the request it arrived for.
            assert_eq!(
                bad(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#),
                "MCP error -32700: Parse error"
            );
        }
        assert_eq!(
            reason("not json {", Kind::Held, true),
            invalid("its body is not a JSON-RPC message")
        );
        assert_eq!(
            reason(
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
                Kind::Held,
                true
            ),
            invalid("its body is not a response")
        );
        // On a stream: data that is not JSON, and the server's own requests and
        // notifications, pass on to rmcp (and do not answer the request).
        for data in [
            "keepalive",
            "[1]",
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
        ] {
            assert!(
                matches!(
                    judge(data.as_bytes(), &ID, Kind::Held, false),
                    Verdict::Pass { answers: false }
                ),
                "{data}"
            );
        }
    }

    #[test]
    fn a_held_answer_settles_the_request_and_rmcp_gets_a_stand_in() {
        let frames = FrameShared::default();
        frames.track(ID);
        let Verdict::Settle(outcome) = judge(
            br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#,
            &ID,
            Kind::Held,
            false,
        ) else {
            panic!("a held answer settles its request");
        };
        let stand_in = settle(&frames, ID, Kind::Held, outcome);
        assert!(matches!(stand_in, ServerJsonRpcMessage::Error(_)));
        assert!(matches!(frames.take_settled(&ID), Some(Ok(_))));
        // An answer for a request nobody waits for any more is not kept.
        let _ = settle(&frames, ID, Kind::Held, Ok(ServerResult::empty(())));
        assert_eq!(frames.tracked(), 0);
    }

    #[test]
    fn an_id_less_error_on_a_listing_stream_is_readdressed() {
        let Verdict::Deliver(ServerJsonRpcMessage::Error(e)) = judge(
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#,
            &ID,
            Kind::Listing,
            false,
        ) else {
            panic!("an id-less error is readdressed");
        };
        assert_eq!(e.id, Some(ID));
        assert_eq!(e.error.message, "Parse error");
        // Too deep for rmcp to read as text, it is held for the session as the remote error.
        let deep = format!(
            r#"{{"jsonrpc":"2.0","error":{{"code":-1,"message":"m","data":{}}}}}"#,
            nested(126)
        );
        assert_eq!(reason(&deep, Kind::Listing, false), "MCP error -1: m");
        assert!(matches!(
            judge(deep.as_bytes(), &ID, Kind::Listing, true),
            Verdict::Deliver(_)
        ));
    }

    #[test]
    fn sse_events_are_counted_per_event_across_chunks() {
        let mut c = EventBytes::new(10);
        assert!(c.observe(b"data: 123\n"));
        assert!(c.observe(b"\n"));
        // A blank line ends the event; the next one starts from zero, split anywhere.
        assert!(c.observe(b"data:"));
        assert!(c.observe(b" 123\r"));
        assert!(c.observe(b"\n\r\n"));
        // Comment lines do not count towards the event (each is still bounded while read).
        assert!(c.observe(b": note\ndata: 123\n"));
        assert!(!c.observe(b"x"));
        let mut c = EventBytes::new(10);
        assert!(!c.observe(b": a comment longer than ten"));
    }

    #[test]
    fn failed_posts_get_short_messages_of_our_own() {
        assert_eq!(
            status_error(StatusCode::TEMPORARY_REDIRECT).to_string(),
            "MCP transport error: the server answered HTTP 307 Temporary Redirect (redirects are not followed)"
        );
        assert_eq!(
            status_error(StatusCode::BAD_GATEWAY).to_string(),
            "MCP transport error: the server answered HTTP 502"
        );
        assert_eq!(
            status_error(StatusCode::UNAUTHORIZED).to_string(),
            "MCP transport error: the server answered HTTP 401 Unauthorized"
        );
        assert!(media_type_is(
            "Application/JSON; charset=utf-8",
            JSON_MIME_TYPE
        ));
        assert!(!media_type_is("application/jsonx", JSON_MIME_TYPE));
    }
}
