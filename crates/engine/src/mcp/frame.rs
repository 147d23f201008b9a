//! Our own framing of a stdio server's newline-delimited JSON-RPC stream, ahead of rmcp.
//!
//! rmcp's own line reader drops an oversized line and its JSON parser drops a message nested
//! deeper than serde's recursion limit; either way the request it answered then waits for
//! `callTimeoutMs`. Here every line goes through [`LineFramer`] first, which never buffers more
//! than [`MCP_STDIO_MAX_MESSAGE_BYTES`] and tracks nesting with a counter (no recursion), and a
//! message that breaks a bound, or a response whose shape is wrong (a `result` that is not an
//! object, an `error` without an integer `code` and a string `message`), fails its request at
//! once with an error that names the bound.
//!
//! Which request fails: the framer reads the message's top-level `"id"` while it streams past
//! it, even in a line too long to keep. If that id belongs to a request still waiting, that
//! request fails and every other request is untouched. A rejected message with a top-level
//! `"method"` is the server's own request or notification and is dropped. A rejected message
//! whose id cannot be read (none, hidden behind an escape, not a number or string) could have
//! answered any request, so every waiting request fails with the error. In every case the
//! stream stays in sync (the rest of the line is skipped) and the session stays usable.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rmcp::model::{
    ClientRequest, CustomResult, ErrorCode, ErrorData, JsonRpcError, JsonRpcMessage,
    JsonRpcResponse, JsonRpcVersion2_0, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use super::direct::{DirectCalls, DirectWaiter, Ready};
use super::progress::{progress_token, Deadlines};
use super::McpError;
use crate::limits::{
    MCP_FRAME_TOKEN_BYTES as TOKEN_CAP, MCP_MAX_MESSAGE_DEPTH, MCP_MAX_STRAY_ANSWERS,
    MCP_STDIO_MAX_MESSAGE_BYTES,
};

/// What a [`LineFramer`] made of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A whole line within the bounds (without its `\n`), to be parsed.
    Line(Vec<u8>),
    /// A line that broke a bound; its bytes are gone.
    Rejected {
        /// Which bound.
        error: McpError,
        /// The raw top-level `"id"` token, when one was seen.
        id: Option<Vec<u8>>,
        /// Whether the message had a top-level `"method"` (a request or notification).
        has_method: bool,
    },
}

/// Where the scanner is inside the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Waiting for a key (after `{` or `,`).
    ExpectKey,
    /// Inside a key string.
    InKey,
    /// After a key, before its `:`.
    AfterKey,
    /// After `:`, before the value (of the `id` key when `id_value` is set).
    ExpectValue,
    /// Inside a value that is not of interest.
    InValue,
    /// Inside the scalar (or string) value of `"id"`.
    InIdValue,
}

/// A streaming, bounded splitter of newline-delimited JSON: it keeps a line only while the line
/// is within `max_bytes` and its nesting within `max_depth`, and notes the line's top-level
/// `"id"` and `"method"` keys as it goes. Memory is bounded by `max_bytes` plus a few small
/// tokens; time is linear in the input; nothing recurses.
#[derive(Debug)]
pub struct LineFramer {
    max_bytes: usize,
    max_depth: u32,
    buf: Vec<u8>,
    rejected: Option<McpError>,
    depth: u32,
    depth_exceeded: bool,
    in_string: bool,
    escape: bool,
    top_object: bool,
    top: Top,
    token: Vec<u8>,
    token_overflow: bool,
    key_is_id: bool,
    id: Option<Vec<u8>>,
    id_seen: bool,
    has_method: bool,
}

impl LineFramer {
    /// A framer with these bounds.
    #[must_use]
    pub fn new(max_bytes: usize, max_depth: u32) -> Self {
        Self {
            max_bytes,
            max_depth,
            buf: Vec::new(),
            rejected: None,
            depth: 0,
            depth_exceeded: false,
            in_string: false,
            escape: false,
            top_object: false,
            top: Top::ExpectKey,
            token: Vec::new(),
            token_overflow: false,
            key_is_id: false,
            id: None,
            id_seen: false,
            has_method: false,
        }
    }

    /// The framer of a stdio session ([`MCP_STDIO_MAX_MESSAGE_BYTES`],
    /// [`MCP_MAX_MESSAGE_DEPTH`]).
    #[must_use]
    pub fn stdio() -> Self {
        Self::new(MCP_STDIO_MAX_MESSAGE_BYTES, MCP_MAX_MESSAGE_DEPTH)
    }

    /// Consumes a prefix of `input`: returns how many bytes were used and, when a `\n` was
    /// reached, the finished line. Call again with the rest.
    pub fn feed(&mut self, input: &[u8]) -> (usize, Option<Frame>) {
        let newline = memchr::memchr(b'\n', input);
        let part = input.get(..newline.unwrap_or(input.len())).unwrap_or(&[]);
        self.scan(part);
        if self.rejected.is_none() {
            if self.depth_exceeded {
                self.reject(McpError::MessageTooDeep {
                    limit: u64::from(self.max_depth),
                });
            } else if self.buf.len().saturating_add(part.len()) > self.max_bytes {
                self.reject(McpError::MessageTooLarge {
                    limit: self.max_bytes as u64,
                });
            } else {
                self.buf.extend_from_slice(part);
            }
        }
        match newline {
            None => (input.len(), None),
            Some(at) => (at + 1, Some(self.finish())),
        }
    }

    /// Checks one whole message that arrived framed by other means (an SSE event's data, an
    /// HTTP body), where a newline is only whitespace: `Ok` with whether the message has a
    /// top-level `"method"` (a request or notification, not a response) when it is within
    /// the bounds, else the bound it breaks.
    ///
    /// # Errors
    /// [`McpError::MessageTooDeep`] or [`McpError::MessageTooLarge`].
    pub fn check_whole(&mut self, message: &[u8]) -> Result<bool, McpError> {
        self.scan(message);
        let error = if self.depth_exceeded {
            McpError::MessageTooDeep {
                limit: u64::from(self.max_depth),
            }
        } else if message.len() > self.max_bytes {
            McpError::MessageTooLarge {
                limit: self.max_bytes as u64,
            }
        } else {
            let has_method = self.has_method;
            let _ = self.finish();
            return Ok(has_method);
        };
        let _ = self.finish();
        Err(error)
    }

    fn reject(&mut self, error: McpError) {
        self.rejected = Some(error);
        self.buf = Vec::new();
    }

    fn finish(&mut self) -> Frame {
        self.end_id_token();
        let frame = match self.rejected.take() {
            Some(error) => Frame::Rejected {
                error,
                id: self.id.take(),
                has_method: self.has_method,
            },
            None => Frame::Line(std::mem::take(&mut self.buf)),
        };
        let (max_bytes, max_depth) = (self.max_bytes, self.max_depth);
        *self = Self::new(max_bytes, max_depth);
        frame
    }

    fn push_token(&mut self, b: u8) {
        if self.token.len() < TOKEN_CAP {
            self.token.push(b);
        } else {
            self.token_overflow = true;
        }
    }

    fn end_id_token(&mut self) {
        if self.top == Top::InIdValue {
            self.top = Top::InValue;
            self.id_seen = true;
            if !self.token_overflow {
                self.id = Some(std::mem::take(&mut self.token));
            }
        }
    }

    fn scan(&mut self, part: &[u8]) {
        let mut i = 0;
        while let Some(&b) = part.get(i) {
            if self.in_string {
                let capturing = matches!(self.top, Top::InKey | Top::InIdValue) && self.depth == 1;
                if !capturing && !self.escape {
                    // Skip string content quickly up to the next quote or backslash.
                    match memchr::memchr2(b'"', b'\\', part.get(i..).unwrap_or(&[])) {
                        Some(off) => i += off,
                        None => return,
                    }
                }
                let Some(&b) = part.get(i) else { return };
                if capturing {
                    self.push_token(b);
                }
                if self.escape {
                    self.escape = false;
                    if capturing {
                        // An escaped key or id is not read (it is treated as unknown).
                        self.token_overflow = true;
                    }
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.depth == 1 {
                        match self.top {
                            Top::InKey => {
                                self.token.pop();
                                let key = (!self.token_overflow).then_some(self.token.as_slice());
                                self.key_is_id = key == Some(b"id");
                                if key == Some(b"method") {
                                    self.has_method = true;
                                }
                                self.top = Top::AfterKey;
                            }
                            Top::InIdValue => self.end_id_token(),
                            _ => {}
                        }
                    }
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 {
                        match self.top {
                            Top::ExpectKey => {
                                self.token.clear();
                                self.token_overflow = false;
                                self.top = Top::InKey;
                            }
                            Top::ExpectValue if self.key_is_id && !self.id_seen => {
                                self.token.clear();
                                self.token_overflow = false;
                                self.push_token(b);
                                self.top = Top::InIdValue;
                            }
                            Top::ExpectValue => self.top = Top::InValue,
                            _ => {}
                        }
                    }
                }
                b'{' | b'[' => {
                    if self.depth == 1 && self.top == Top::ExpectValue {
                        self.top = Top::InValue;
                        if self.key_is_id {
                            self.id_seen = true;
                        }
                    }
                    self.depth = self.depth.saturating_add(1);
                    if self.depth > self.max_depth {
                        self.depth_exceeded = true;
                    }
                    if self.depth == 1 && b == b'{' {
                        self.top_object = true;
                        self.top = Top::ExpectKey;
                    }
                }
                b'}' | b']' => {
                    if self.depth == 1 {
                        self.end_id_token();
                    }
                    self.depth = self.depth.saturating_sub(1);
                }
                b':' if self.depth == 1 && self.top == Top::AfterKey => {
                    self.top = Top::ExpectValue;
                }
                b',' if self.depth == 1 && self.top_object => {
                    self.end_id_token();
                    self.top = Top::ExpectKey;
                    self.key_is_id = false;
                }
                b' ' | b'\t' | b'\r' | b'\n' => {
                    if self.depth == 1 {
                        self.end_id_token();
                    }
                }
                _ => {
                    if self.depth == 1 {
                        match self.top {
                            Top::ExpectValue if self.key_is_id && !self.id_seen => {
                                self.token.clear();
                                self.token_overflow = false;
                                self.push_token(b);
                                self.top = Top::InIdValue;
                            }
                            Top::ExpectValue => self.top = Top::InValue,
                            Top::InIdValue => self.push_token(b),
                            _ => {}
                        }
                    }
                }
            }
            i += 1;
        }
    }
}

/// How a request was settled outside rmcp: the result the transport read for it, or the
/// error that failed it.
pub type Settled = Result<ServerResult, McpError>;

/// Requests sent and not yet answered, and how the transport settled those it answered
/// itself (a bound or shape error, or an HTTP result it parsed and held for the session).
#[derive(Debug, Default)]
pub struct FrameState {
    pending: HashSet<RequestId>,
    /// The `tools/call` requests among `pending`: their result reaches the session as the
    /// parsed JSON object itself ([`ServerResult::CustomResult`]), not converted to rmcp's
    /// types and back (the session reads it as JSON either way).
    raw: HashSet<RequestId>,
    settled: HashMap<RequestId, Settled>,
    /// The requests among `pending` (and `raw`) that the session wrote itself, bypassing rmcp:
    /// their outcome goes straight to their waiter, and rmcp never sees their responses.
    direct: DirectCalls,
    /// Direct waiters settled while judging a frame, run once the lock is released.
    ready: Ready,
    /// The last error raised while no request could be named (for a failed connect).
    last: Option<McpError>,
    /// Answers ignored since the last flood was reported: for requests never sent, already
    /// settled, or naming none ([`MCP_MAX_STRAY_ANSWERS`] bounds it).
    strays: u64,
    /// Every answer ignored over the session's life.
    strays_total: u64,
    /// Whether an unanswered `server/discover` probe over HTTP falls back to `initialize`
    /// (unpinned; a stdio session probes on its own, see `stdio_start`).
    probe_falls_back: bool,
}

/// [`FrameState`] shared by the transport and the session.
#[derive(Debug, Clone, Default)]
pub struct FrameShared(Arc<SharedState>);

#[derive(Debug, Default)]
struct SharedState {
    state: Mutex<FrameState>,
    /// Notified when a direct call is added to an empty table (the timer may be idle).
    first_direct: tokio::sync::Notify,
}

impl FrameShared {
    fn with<R>(&self, f: impl FnOnce(&mut FrameState) -> R) -> R {
        f(&mut self.0.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// How the transport settled request `id`, if it did (taken once).
    #[must_use]
    pub fn take_settled(&self, id: &RequestId) -> Option<Settled> {
        self.with(|s| {
            s.pending.remove(id);
            s.raw.remove(id);
            s.settled.remove(id)
        })
    }

    /// Forgets request `id` of rmcp's (it timed out or was aborted).
    pub fn forget(&self, id: &RequestId) {
        self.with(|s| {
            s.pending.remove(id);
            s.raw.remove(id);
            s.settled.remove(id);
        });
    }

    /// Records request number `n` as a `tools/call` the session writes itself: its
    /// response's `result` (or the error a bound or shape check raises for it) goes to
    /// `waiter`, unless its clock runs out first ([`FrameShared::expire_direct`]; progress the
    /// server reports for it restarts the clock). After the end ([`FrameShared::end_direct`])
    /// the waiter runs at once with the end's error.
    pub fn track_direct(&self, n: i64, waiter: DirectWaiter, clock: Deadlines) {
        let added = self.with(|s| {
            let first = s.direct.insert(n, waiter, clock)?;
            let id = RequestId::Number(n);
            s.pending.insert(id.clone());
            s.raw.insert(id);
            Ok(first)
        });
        match added {
            Ok(true) => self.0.first_direct.notify_one(),
            Ok(false) => {}
            Err((waiter, error)) => waiter(Err(error)),
        }
    }

    /// Settles direct call `n` with `error` if it still waits (an abort); whether it did.
    pub fn fail_direct(&self, n: i64, error: McpError) -> bool {
        let waiter = self.with(|s| {
            let waiter = s.direct.take_number(n)?;
            s.untrack(n);
            Some(waiter)
        });
        waiter.map(|w| w(Err(error))).is_some()
    }

    /// Settles every direct call whose deadline is at or before `now` with its timeout
    /// error, and returns their numbers.
    pub fn expire_direct(&self, now: Instant) -> Vec<i64> {
        let expired = self.with(|s| {
            let expired = s.direct.expired(now);
            expired.iter().for_each(|(n, _, _)| s.untrack(*n));
            expired
        });
        expired
            .into_iter()
            .map(|(n, waiter, error)| {
                waiter(Err(error));
                n
            })
            .collect()
    }

    /// The deadline of the oldest direct call still waiting.
    #[must_use]
    pub fn first_direct_deadline(&self) -> Option<Instant> {
        self.with(|s| s.direct.first_deadline())
    }

    /// Resolves once a direct call is added to an empty table (at once if one was since the
    /// last wait).
    pub async fn direct_added(&self) {
        self.0.first_direct.notified().await;
    }

    /// No response can come any more (the stream ended, or the session closed): every
    /// direct call fails with `error`, and so does every later one.
    pub fn end_direct(&self, error: &McpError) {
        let ended = self.with(|s| {
            let ended = s.direct.end(error);
            ended.iter().for_each(|(n, _)| s.untrack(*n));
            ended
        });
        for (_, waiter) in ended {
            waiter(Err(error.clone()));
        }
    }

    /// The last error the framer raised, if any (for a handshake that failed).
    #[must_use]
    pub fn last_error(&self) -> Option<McpError> {
        self.with(|s| s.last.clone())
    }

    /// Records that `error` failed request `id` (a transport other than stdio raised it).
    pub fn record(&self, id: RequestId, error: McpError) {
        self.with(|s| {
            s.pending.remove(&id);
            s.last = Some(error.clone());
            s.settled.insert(id, Err(error));
        });
    }

    /// Holds `outcome` for request `id` while it is still waiting (tracked and not forgotten);
    /// an outcome for a request nobody waits for any more is dropped.
    pub fn hold(&self, id: RequestId, outcome: Settled) {
        self.with(|s| {
            if let Err(e) = &outcome {
                s.last = Some(e.clone());
            }
            if s.pending.remove(&id) {
                s.settled.insert(id, outcome);
            }
        });
    }

    /// Records `id` as a request waiting for its response (the transport does this on send).
    pub fn track(&self, id: RequestId) {
        self.with(|s| s.pending.insert(id));
    }

    /// Judges one frame as the transport does: what to deliver to rmcp, which waiting requests
    /// fail (they are no longer waiting afterwards), or nothing. The direct calls it settles
    /// get their outcome here, after the lock is released.
    #[must_use]
    pub fn judge(&self, frame: Frame) -> Outcome {
        let (outcome, ready) = self.with(|s| {
            let outcome = s.judge(frame);
            (outcome, std::mem::take(&mut s.ready))
        });
        ready.run();
        outcome
    }

    /// Lets an unanswered `server/discover` probe fall back to `initialize` after
    /// [`super::negotiation::probe_timeout`] (an unpinned connect over HTTP).
    pub fn allow_probe_fallback(&self) {
        self.with(|s| s.probe_falls_back = true);
    }

    /// Whether an unanswered `server/discover` probe falls back (see
    /// [`FrameShared::allow_probe_fallback`]).
    #[must_use]
    pub fn probe_may_fall_back(&self) -> bool {
        self.with(|s| s.probe_falls_back)
    }

    /// Counts a stray answer another transport ignored: the error to fail the request with
    /// once they flood ([`MCP_MAX_STRAY_ANSWERS`]).
    pub fn count_stray(&self) -> Option<McpError> {
        self.with(FrameState::count_stray)
    }

    /// How many answers the session ignored (for requests never sent, already settled, or
    /// naming none).
    #[must_use]
    pub fn strays(&self) -> u64 {
        self.with(|s| s.strays_total)
    }

    /// How many requests are tracked (for tests: it must not grow without bound).
    #[must_use]
    pub fn tracked(&self) -> usize {
        self.with(|s| s.pending.len() + s.raw.len() + s.settled.len() + s.direct.len())
    }
}

fn parse_id(raw: &[u8]) -> Option<RequestId> {
    serde_json::from_slice::<RequestId>(raw).ok()
}

/// The bridge's JSON-RPC error code for a response the framer refused (the JSON-RPC
/// "internal error" code; the session replaces it by the framer's own error).
const FRAME_ERROR_CODE: ErrorCode = ErrorCode(-32603);

fn error_message(id: RequestId, error: &McpError) -> RxJsonRpcMessage<RoleClient> {
    JsonRpcMessage::Error(JsonRpcError {
        jsonrpc: JsonRpcVersion2_0,
        id: Some(id),
        error: ErrorData::new(FRAME_ERROR_CODE, error.to_string(), None),
    })
}

/// Why a response is not shaped as JSON-RPC says, if it is not.
pub(super) fn response_shape_error(obj: &serde_json::Map<String, Value>) -> Option<&'static str> {
    match (obj.get("result"), obj.get("error")) {
        (Some(Value::Object(_)), None) => None,
        (Some(_), None) => Some("its result is not an object"),
        (None, Some(Value::Object(e))) => {
            let code_ok = e
                .get("code")
                .and_then(Value::as_i64)
                .is_some_and(|c| i32::try_from(c).is_ok());
            let message_ok = e.get("message").is_some_and(Value::is_string);
            (!(code_ok && message_ok)).then_some("its error has no integer code and string message")
        }
        (None, Some(_)) => Some("its error is not an object"),
        (Some(_), Some(_)) => Some("it has both a result and an error"),
        (None, None) => Some("it has neither a result nor an error"),
    }
}

/// Why a response with a result but no usable `id` fails (stdio and HTTP).
pub(super) const NO_ID: &str = "it has no id";

/// A response already checked by [`response_shape_error`] as its request's outcome: the
/// `result` object, or the server's JSON-RPC error (never an empty success).
fn answer_outcome(value: Value) -> Result<Value, McpError> {
    let Value::Object(mut obj) = value else {
        return Err(McpError::InvalidResponse {
            reason: "it is not an object".into(),
        });
    };
    if let Some(result) = obj.remove("result") {
        return Ok(result);
    }
    obj.remove("error")
        .and_then(|e| serde_json::from_value::<ErrorData>(e).ok())
        .map_or_else(
            || {
                Err(McpError::InvalidResponse {
                    reason: "it has neither a result nor an error".into(),
                })
            },
            |data| Err(McpError::remote(data)),
        )
}

/// What the transport does with one frame.
#[derive(Debug)]
pub enum Outcome {
    /// Hand this message to rmcp.
    Deliver(Box<RxJsonRpcMessage<RoleClient>>),
    /// Fail these waiting requests with this error.
    Fail(Vec<RequestId>, McpError),
    /// Nothing to do.
    Skip,
}

impl FrameState {
    /// Forgets direct request number `n` as waiting (its waiter was taken).
    fn untrack(&mut self, n: i64) {
        let id = RequestId::Number(n);
        self.pending.remove(&id);
        self.raw.remove(&id);
    }

    /// Requests to fail for a message that broke a bound: the one it names, or (when it names
    /// none and is not the server's own request) every waiting one.
    fn targets(&self, id: Option<RequestId>, has_method: bool) -> Vec<RequestId> {
        match id {
            Some(id) if self.pending.contains(&id) => vec![id],
            Some(_) => Vec::new(),
            None if has_method => Vec::new(),
            None => self.pending.iter().cloned().collect(),
        }
    }

    fn judge(&mut self, frame: Frame) -> Outcome {
        let (error, targets) = match frame {
            Frame::Rejected {
                error,
                id,
                has_method,
            } => {
                let id = id.as_deref().and_then(parse_id);
                let named = id.as_ref().is_some_and(|id| self.pending.contains(id));
                let targets = self.targets(id, has_method);
                // A message naming its request is that request's answer.
                (if named { error.of_answer() } else { error }, targets)
            }
            Frame::Line(line) => {
                let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.iter().all(u8::is_ascii_whitespace) {
                    return Outcome::Skip;
                }
                let mut de = serde_json::Deserializer::from_slice(line);
                // The framer has bounded the nesting already.
                de.disable_recursion_limit();
                let parsed = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
                let Ok(value) = parsed else {
                    // Not JSON: like the other SDKs, ignore it (answering could start an
                    // error storm); a request it was meant to answer keeps waiting.
                    return Outcome::Skip;
                };
                let Some(obj) = value.as_object() else {
                    return Outcome::Skip;
                };
                if let Some(token) = progress_token(obj) {
                    self.direct.progressed(token, Instant::now());
                }
                let is_response = !obj.contains_key("method");
                let id = obj
                    .get("id")
                    .filter(|v| !v.is_null())
                    .and_then(|v| RequestId::deserialize(v).ok());
                if is_response {
                    if let Some(reason) = response_shape_error(obj) {
                        let targets = self.targets(id, false);
                        (
                            McpError::InvalidResponse {
                                reason: reason.into(),
                            },
                            targets,
                        )
                    } else {
                        return self.answer(id, value);
                    }
                } else {
                    return match serde_json::from_value::<RxJsonRpcMessage<RoleClient>>(value) {
                        Ok(msg) => Outcome::Deliver(Box::new(msg)),
                        // A request or notification rmcp does not know: dropped.
                        Err(_) => Outcome::Skip,
                    };
                }
            }
        };
        self.fail(error, targets)
    }

    /// Routes a well-shaped response: to the waiter of a direct call, to rmcp, or nowhere (a
    /// stray: an answer naming no request, one never sent, or one already settled).
    fn answer(&mut self, id: Option<RequestId>, value: Value) -> Outcome {
        let Some(id) = id.filter(|id| self.pending.contains(id)) else {
            return self.stray();
        };
        if self.raw.contains(&id) {
            let outcome = answer_outcome(value);
            self.pending.remove(&id);
            self.raw.remove(&id);
            if let Some(waiter) = self.direct.take(&id) {
                self.ready.push(waiter, outcome);
                return Outcome::Skip;
            }
            return match outcome {
                Ok(result) => {
                    Outcome::Deliver(Box::new(JsonRpcMessage::Response(JsonRpcResponse {
                        jsonrpc: JsonRpcVersion2_0,
                        id,
                        result: ServerResult::CustomResult(CustomResult(result)),
                    })))
                }
                Err(error) => {
                    self.settled.insert(id.clone(), Err(error.clone()));
                    Outcome::Fail(vec![id], error)
                }
            };
        }
        match serde_json::from_value::<RxJsonRpcMessage<RoleClient>>(value) {
            Ok(msg) => {
                self.pending.remove(&id);
                Outcome::Deliver(Box::new(msg))
            }
            Err(e) => {
                let reason = e.to_string();
                let reason = super::content::truncate_utf8(&reason, 200).to_owned();
                self.fail(McpError::InvalidResponse { reason }, vec![id])
            }
        }
    }

    /// Ignores one stray answer; past [`MCP_MAX_STRAY_ANSWERS`] of them every waiting request
    /// fails, naming the flood.
    fn stray(&mut self) -> Outcome {
        match self.count_stray() {
            None => Outcome::Skip,
            Some(error) => {
                let targets = self.pending.iter().cloned().collect();
                self.fail(error, targets)
            }
        }
    }

    /// Counts one stray answer: the error naming the flood once [`MCP_MAX_STRAY_ANSWERS`]
    /// of them came since the last (the count then starts again).
    fn count_stray(&mut self) -> Option<McpError> {
        self.strays_total = self.strays_total.saturating_add(1);
        self.strays += 1;
        if self.strays <= MCP_MAX_STRAY_ANSWERS {
            return None;
        }
        self.strays = 0;
        Some(McpError::InvalidResponse {
            reason: format!(
                "it sent more than {MCP_MAX_STRAY_ANSWERS} answers to requests the bridge never sent or had settled"
            ),
        })
    }

    /// Fails `targets` with `error`: direct calls through their waiters, rmcp's requests
    /// through stand-in errors.
    fn fail(&mut self, error: McpError, targets: Vec<RequestId>) -> Outcome {
        self.last = Some(error.clone());
        if targets.is_empty() {
            return Outcome::Skip;
        }
        let mut for_rmcp = Vec::with_capacity(targets.len());
        for id in targets {
            self.pending.remove(&id);
            self.raw.remove(&id);
            if let Some(waiter) = self.direct.take(&id) {
                self.ready.push(waiter, Err(error.clone()));
            } else {
                self.settled.insert(id.clone(), Err(error.clone()));
                for_rmcp.push(id);
            }
        }
        if for_rmcp.is_empty() {
            return Outcome::Skip;
        }
        Outcome::Fail(for_rmcp, error)
    }
}

/// A stdio server's stdin, shared by rmcp's sends and the session's own `tools/call` lines;
/// `None` once the transport closed.
pub type SharedWriter<W> = Arc<tokio::sync::Mutex<Option<W>>>;

/// Writes one whole line (already ending in `\n`) under the writer's lock, so lines from
/// rmcp and from the session never interleave.
///
/// # Errors
/// `NotConnected` once the transport closed, or the pipe's own error.
pub async fn write_line<W: AsyncWrite + Unpin>(
    writer: &SharedWriter<W>,
    line: &[u8],
) -> std::io::Result<()> {
    write_held(&mut *writer.lock().await, line).await
}

/// Writes `bytes` whole to the writer whose lock the caller holds (`None` once closed).
///
/// # Errors
/// `NotConnected` once the transport closed, or the pipe's own error.
pub async fn write_held<W: AsyncWrite + Unpin>(
    slot: &mut Option<W>,
    bytes: &[u8],
) -> std::io::Result<()> {
    let Some(w) = slot.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    w.write_all(bytes).await?;
    w.flush().await
}

/// The stdio transport: our [`LineFramer`] on the server's stdout, newline-delimited JSON on
/// its stdin.
pub struct FramedStdio<R, W> {
    read: BufReader<R>,
    framer: LineFramer,
    write: SharedWriter<W>,
    shared: FrameShared,
    queued: VecDeque<RxJsonRpcMessage<RoleClient>>,
}

impl<R, W> FramedStdio<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport over these pipes, sharing its request state with the session.
    pub fn new(read: R, write: W, shared: FrameShared) -> Self {
        Self {
            read: BufReader::with_capacity(crate::limits::MCP_STDIO_READ_BUFFER_BYTES, read),
            framer: LineFramer::stdio(),
            write: Arc::new(tokio::sync::Mutex::new(Some(write))),
            shared,
            queued: VecDeque::new(),
        }
    }

    /// The server's stdin, for the `tools/call` lines the session writes itself.
    #[must_use]
    pub fn writer(&self) -> SharedWriter<W> {
        Arc::clone(&self.write)
    }
}

impl<R, W> Transport<RoleClient> for FramedStdio<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item {
            let id = r.id.clone();
            // Answers handed over as the JSON the server sent: a `tools/call`'s, and those of
            // the session's raw requests (a `tools/list` keeping what rmcp's types drop,
            // `tasks/*`).
            let raw = matches!(
                r.request,
                ClientRequest::CallToolRequest(_) | ClientRequest::CustomRequest(_)
            );
            self.shared.with(|s| {
                if raw {
                    s.raw.insert(id.clone());
                }
                s.pending.insert(id)
            });
        }
        let line = serde_json::to_vec(&item).map(|mut v| {
            v.push(b'\n');
            v
        });
        let write = Arc::clone(&self.write);
        async move {
            let line = line.map_err(std::io::Error::other)?;
            write_line(&write, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        // Cancellation safety: rmcp polls this inside `select!`. Between `fill_buf` returning
        // and `consume` nothing awaits, and every partial state lives in `self`.
        loop {
            if let Some(msg) = self.queued.pop_front() {
                return Some(msg);
            }
            let (used, frame) = {
                let filled = self.read.fill_buf().await;
                let available = match filled {
                    Ok(a) if !a.is_empty() => a,
                    _ => {
                        self.shared.end_direct(&McpError::server_closed());
                        return None;
                    }
                };
                self.framer.feed(available)
            };
            self.read.consume(used);
            let Some(frame) = frame else { continue };
            match self.shared.judge(frame) {
                Outcome::Deliver(msg) => return Some(*msg),
                Outcome::Skip => {}
                Outcome::Fail(ids, error) => {
                    self.queued
                        .extend(ids.into_iter().map(|id| error_message(id, &error)));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(framer: &mut LineFramer, mut input: &[u8]) -> Vec<Frame> {
        let mut out = Vec::new();
        while !input.is_empty() {
            let (used, frame) = framer.feed(input);
            input = input.get(used..).unwrap_or(&[]);
            out.extend(frame);
        }
        out
    }

    fn rejected_id(f: &Frame) -> Option<(String, Option<String>, bool)> {
        match f {
            Frame::Rejected {
                error,
                id,
                has_method,
            } => Some((
                error.to_string(),
                id.as_ref().map(|i| String::from_utf8_lossy(i).into_owned()),
                *has_method,
            )),
            Frame::Line(_) => None,
        }
    }

    #[test]
    fn lines_split_and_bounds_hold_at_their_edges() {
        let mut f = LineFramer::new(10, 3);
        let got = frames(&mut f, b"0123456789\n01234567890\n[[[1]]]\n[[[[1]]]]\nok\n");
        assert_eq!(got.first(), Some(&Frame::Line(b"0123456789".to_vec())));
        assert_eq!(
            got.get(1).and_then(rejected_id).map(|r| r.0),
            Some("MCP message exceeds 10 bytes".into())
        );
        assert_eq!(got.get(2), Some(&Frame::Line(b"[[[1]]]".to_vec())));
        assert_eq!(
            got.get(3).and_then(rejected_id).map(|r| r.0),
            Some("MCP message nests deeper than 3 levels".into())
        );
        assert_eq!(got.get(4), Some(&Frame::Line(b"ok".to_vec())));
    }

    #[test]
    fn the_top_level_id_is_read_even_past_the_byte_bound() {
        let mut f = LineFramer::new(16, 200);
        let long = format!(
            r#"{{"jsonrpc":"2.0","result":{{"s":"{}","id":9}},"id" : 42 }}"#,
            "x".repeat(100)
        );
        let got = frames(&mut f, format!("{long}\n").as_bytes());
        assert_eq!(
            got.first().and_then(rejected_id),
            Some((
                "MCP message exceeds 16 bytes".into(),
                Some("42".into()),
                false
            ))
        );
        let s = r#"{"id":"a\"b","method":"x","params":{"id":1}}"#.to_owned() + &" ".repeat(20);
        let got = frames(&mut f, format!("{s}\n").as_bytes());
        // An escaped id is not read; the method key is seen.
        assert_eq!(
            got.first().and_then(rejected_id),
            Some(("MCP message exceeds 16 bytes".into(), None, true))
        );
        let s = format!(r#"{{"id":"abc","result":"{}"}}"#, "y".repeat(40));
        let got = frames(&mut f, format!("{s}\n").as_bytes());
        assert_eq!(
            got.first().and_then(rejected_id).and_then(|r| r.1),
            Some(r#""abc""#.into())
        );
    }

    #[test]
    fn input_split_anywhere_gives_the_same_frames() {
        let text = format!(
            "{}\n{{\"id\":7,\"result\":{}}}\n{{\"id\":8,\"result\":{{}}}}\n",
            "[".repeat(50),
            "[".repeat(300)
        );
        let whole = frames(&mut LineFramer::new(1000, 129), text.as_bytes());
        for step in [1, 2, 3, 7, 64] {
            let mut f = LineFramer::new(1000, 129);
            let mut got = Vec::new();
            for chunk in text.as_bytes().chunks(step) {
                got.extend(frames(&mut f, chunk));
            }
            assert_eq!(got, whole, "step {step}");
        }
        assert_eq!(
            whole.get(1).and_then(rejected_id),
            Some((
                "MCP message nests deeper than 129 levels".into(),
                Some("7".into()),
                false
            ))
        );
    }

    fn state_with(ids: &[i64]) -> FrameState {
        let mut s = FrameState::default();
        for i in ids {
            s.pending.insert(RequestId::Number(*i));
        }
        s
    }

    fn fails(o: &Outcome) -> Option<(Vec<RequestId>, String)> {
        match o {
            Outcome::Fail(ids, e) => {
                let mut ids = ids.clone();
                ids.sort_by_key(|i| format!("{i:?}"));
                Some((ids, e.to_string()))
            }
            _ => None,
        }
    }

    #[test]
    fn a_rejected_frame_fails_its_request_or_every_request() {
        let mut s = state_with(&[1, 2]);
        let named = s.judge(Frame::Rejected {
            error: McpError::MessageTooLarge { limit: 5 },
            id: Some(b"2".to_vec()),
            has_method: false,
        });
        assert_eq!(
            fails(&named),
            Some((
                vec![RequestId::Number(2)],
                "MCP message exceeds 5 bytes".into()
            ))
        );
        let unknown = s.judge(Frame::Rejected {
            error: McpError::MessageTooLarge { limit: 5 },
            id: None,
            has_method: false,
        });
        assert_eq!(
            fails(&unknown).map(|f| f.0),
            Some(vec![RequestId::Number(1)]),
            "no id: every request still waiting fails"
        );
        assert_eq!(s.settled.len(), 2);
        assert!(s.pending.is_empty());
        let notification = s.judge(Frame::Rejected {
            error: McpError::MessageTooLarge { limit: 5 },
            id: None,
            has_method: true,
        });
        assert!(matches!(notification, Outcome::Skip));
        let late = s.judge(Frame::Rejected {
            error: McpError::MessageTooLarge { limit: 5 },
            id: Some(b"99".to_vec()),
            has_method: false,
        });
        assert!(matches!(late, Outcome::Skip));
    }

    #[test]
    fn answers_to_no_request_are_strays_ignored_and_counted() {
        let lines = [
            br#"{"jsonrpc":"2.0","result":{}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":null,"result":{}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":99,"result":{}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":"1","result":{}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":98,"error":{"code":-1,"message":"m"}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}"#.as_slice(),
        ];
        let mut s = state_with(&[1, 2]);
        for line in lines {
            let outcome = s.judge(Frame::Line(line.to_vec()));
            assert!(
                matches!(outcome, Outcome::Skip),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(s.strays_total, lines.len() as u64);
        assert_eq!(s.pending.len(), 2);
        // The real answer still settles its request; a second answer for it is a stray.
        let answer = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec();
        assert!(matches!(
            s.judge(Frame::Line(answer.clone())),
            Outcome::Deliver(_)
        ));
        assert!(matches!(s.judge(Frame::Line(answer)), Outcome::Skip));
        assert_eq!(s.strays_total, lines.len() as u64 + 1);
    }

    #[test]
    fn a_flood_of_strays_fails_the_waiting_requests_naming_it_then_counts_again() {
        let mut s = state_with(&[1]);
        let stray = br#"{"jsonrpc":"2.0","id":77,"result":{}}"#;
        for _ in 0..MCP_MAX_STRAY_ANSWERS {
            assert!(matches!(
                s.judge(Frame::Line(stray.to_vec())),
                Outcome::Skip
            ));
        }
        let Outcome::Fail(targets, error) = s.judge(Frame::Line(stray.to_vec())) else {
            panic!("the flood fails the waiting request");
        };
        assert_eq!(targets, vec![RequestId::Number(1)]);
        assert!(
            error.to_string().contains("more than 1000 answers"),
            "{error}"
        );
        assert!(matches!(
            s.judge(Frame::Line(stray.to_vec())),
            Outcome::Skip
        ));
    }

    #[test]
    fn a_json_rpc_error_answering_a_direct_call_is_its_error_never_a_success() {
        let shared = FrameShared::default();
        let later = Deadlines::new(
            Instant::now(),
            std::time::Duration::from_secs(60),
            std::time::Duration::from_secs(600),
        );
        let (w, rx) = waiter();
        shared.track_direct(5, w, later);
        let line = br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"long failure"}}"#;
        assert!(matches!(
            shared.judge(Frame::Line(line.to_vec())),
            Outcome::Skip
        ));
        let Ok(Err(error)) = rx.try_recv() else {
            panic!("the call must fail");
        };
        assert_eq!(
            error,
            McpError::Remote {
                code: -32000,
                message: "long failure".into()
            }
        );
        assert_eq!(shared.tracked(), 0);
        // Over rmcp's path, the error reaches rmcp as the server's error.
        let mut s = state_with(&[3]);
        s.raw.insert(RequestId::Number(3));
        let line = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}"#;
        let Outcome::Fail(ids, error) = s.judge(Frame::Line(line.to_vec())) else {
            panic!("rmcp's call must fail");
        };
        assert_eq!(ids, vec![RequestId::Number(3)]);
        assert_eq!(error.to_string(), "MCP error -32602: bad");
    }

    #[test]
    fn a_tools_call_result_is_handed_over_as_the_json_the_server_sent() {
        let mut s = state_with(&[1, 2]);
        s.raw.insert(RequestId::Number(1));
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a","extra":1}],"x":[true]}}"#;
        let Outcome::Deliver(msg) = s.judge(Frame::Line(line.to_vec())) else {
            panic!("not delivered");
        };
        let JsonRpcMessage::Response(r) = *msg else {
            panic!("not a response");
        };
        assert_eq!(r.id, RequestId::Number(1));
        let ServerResult::CustomResult(CustomResult(v)) = r.result else {
            panic!("not handed over as JSON");
        };
        assert_eq!(
            v,
            serde_json::json!({"content":[{"type":"text","text":"a","extra":1}],"x":[true]})
        );
        assert!(s.raw.is_empty() && s.pending.len() == 1);
        // Any other request's result is still parsed by rmcp.
        let other = s.judge(Frame::Line(
            br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#.to_vec(),
        ));
        let Outcome::Deliver(msg) = other else {
            panic!("not delivered");
        };
        assert!(matches!(
            *msg,
            JsonRpcMessage::Response(JsonRpcResponse {
                result: ServerResult::ListToolsResult(_),
                ..
            })
        ));
    }

    #[test]
    fn response_shapes_are_checked() {
        for (line, reason) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"result":"done"}"#,
                "its result is not an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":[1]}"#,
                "its result is not an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
                "its result is not an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":"bad"}"#,
                "its error is not an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
                "its error has no integer code and string message",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"},"result":{}}"#,
                "it has both a result and an error",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1}"#,
                "it has neither a result nor an error",
            ),
        ] {
            let mut s = state_with(&[1]);
            let o = s.judge(Frame::Line(line.as_bytes().to_vec()));
            assert_eq!(
                fails(&o),
                Some((
                    vec![RequestId::Number(1)],
                    format!("MCP server sent an invalid response: {reason}")
                )),
                "{line}"
            );
        }
        let mut s = state_with(&[1]);
        let ok = s.judge(Frame::Line(
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#.to_vec(),
        ));
        assert!(matches!(ok, Outcome::Deliver(_)));
        assert_eq!(s.pending.len(), 0);
        for skip in [&b"not json"[..], b"  ", b"[1,2]", b"\"s\""] {
            assert!(matches!(s.judge(Frame::Line(skip.to_vec())), Outcome::Skip));
        }
    }

    fn waiter() -> (
        DirectWaiter,
        std::sync::mpsc::Receiver<Result<Value, McpError>>,
    ) {
        let (tx, rx) = std::sync::mpsc::channel();
        let w: DirectWaiter = Box::new(move |r| {
            let _ = tx.send(r);
        });
        (w, rx)
    }

    #[test]
    fn direct_requests_reach_their_waiter_and_never_rmcp() {
        let shared = FrameShared::default();
        let later = Deadlines::new(
            Instant::now(),
            std::time::Duration::from_secs(60),
            std::time::Duration::from_secs(600),
        );
        let (w, rx) = waiter();
        shared.track_direct(7, w, later);
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#.to_vec();
        assert!(matches!(shared.judge(Frame::Line(line)), Outcome::Skip));
        assert_eq!(
            rx.try_recv().ok().and_then(Result::ok),
            Some(serde_json::json!({"content": []}))
        );
        assert_eq!(shared.tracked(), 0);

        // A bound broken by its response fails it through the waiter; rmcp's requests still
        // get their error message.
        let (w, rx) = waiter();
        shared.track_direct(8, w, later);
        shared.track(RequestId::Number(1));
        let over = Frame::Rejected {
            error: McpError::MessageTooLarge { limit: 10 },
            id: None,
            has_method: false,
        };
        let Outcome::Fail(ids, _) = shared.judge(over) else {
            panic!("rmcp's request must fail")
        };
        assert_eq!(ids, vec![RequestId::Number(1)]);
        assert!(matches!(
            rx.try_recv(),
            Ok(Err(McpError::MessageTooLarge { limit: 10 }))
        ));

        // An abort settles a waiting call once; a late response is then nobody's.
        let (w, rx) = waiter();
        shared.track_direct(11, w, later);
        assert!(shared.fail_direct(11, McpError::Aborted));
        assert!(!shared.fail_direct(11, McpError::Aborted));
        assert!(matches!(rx.try_recv(), Ok(Err(McpError::Aborted))));
        let late = br#"{"jsonrpc":"2.0","id":11,"result":{"content":[]}}"#.to_vec();
        assert!(!matches!(
            shared.judge(Frame::Line(late)),
            Outcome::Fail(..)
        ));

        // A passed deadline fails the call with the timer's error; progress for it from the
        // server first restarts its clock.
        let (w, rx) = waiter();
        let now = Instant::now();
        let five = std::time::Duration::from_millis(5);
        shared.track_direct(12, w, Deadlines::new(now, five, 60 * five));
        assert_eq!(shared.first_direct_deadline(), Some(now + five));
        let progress =
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":12,"progress":1}}"#;
        assert!(matches!(
            shared.judge(Frame::Line(progress.to_vec())),
            Outcome::Deliver(_)
        ));
        assert!(shared.expire_direct(now + five).is_empty());
        let Some(moved) = shared.first_direct_deadline() else {
            panic!("the call is still waiting");
        };
        assert!(moved > now + five);
        assert_eq!(shared.expire_direct(moved), vec![12]);
        assert!(matches!(
            rx.try_recv(),
            Ok(Err(McpError::CallTimeout { timeout_ms: 5 }))
        ));

        // The stream's end fails every waiter with its error, and later ones at once.
        let (w, rx) = waiter();
        shared.track_direct(9, w, later);
        shared.end_direct(&McpError::server_closed());
        assert!(matches!(rx.try_recv(), Ok(Err(McpError::Transport { .. }))));
        let (w, rx) = waiter();
        shared.track_direct(10, w, later);
        assert!(matches!(rx.try_recv(), Ok(Err(McpError::Transport { .. }))));
        let _ = shared.take_settled(&RequestId::Number(1));
        assert_eq!(shared.tracked(), 0);
    }
}
