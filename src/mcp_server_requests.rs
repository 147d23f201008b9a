//! Node-API glue for the server's own requests on a native session (`roots/list`,
//! `sampling/createMessage`, `elicitation/create`): the engine asks through one threadsafe
//! function, `onServerRequest([key, kind, paramsJson])`, and the facade calls the host's
//! callback and hands its answer back with `answer(key, ...)`. A request the engine stops
//! waiting for (the server cancelled it, or the session closed) reaches the facade as kind
//! `"abort"`, which aborts the callback's `signal`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::Function;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use prism_engine::mcp::host_client::HostValueFault;
use prism_engine::mcp::host_requests::{HostAnswer, HostAnswerFuture, HostCallbacks, HostRequest};
use prism_engine::mcp::McpError;
use serde_json::Value;
use tokio::sync::oneshot;

/// The kind the facade gets when the engine stops waiting for a request.
const ABORT: &str = "abort";

type Notify =
    ThreadsafeFunction<(u32, String, String), (), (u32, String, String), napi::Status, false, true>;

/// The requests waiting for the host, by key.
type Waiting = Arc<Mutex<HashMap<u32, oneshot::Sender<HostAnswer>>>>;

/// The host's callbacks as the engine reaches them.
pub(crate) struct JsHost {
    notify: Arc<Notify>,
    waiting: Waiting,
    next: AtomicU32,
}

impl JsHost {
    /// Wraps the facade's `onServerRequest` (which does not keep the process alive).
    pub(crate) fn new(on_request: &Function<(u32, String, String), ()>) -> napi::Result<Self> {
        let notify = on_request
            .build_threadsafe_function::<(u32, String, String)>()
            .weak::<true>()
            .callee_handled::<false>()
            .build()?;
        Ok(Self {
            notify: Arc::new(notify),
            waiting: Arc::new(Mutex::new(HashMap::new())),
            next: AtomicU32::new(1),
        })
    }

    /// The host's answer to request `key`: its JSON text, the fault that kept it from being
    /// JSON, or the message of what it threw. A key no longer waiting is ignored.
    pub(crate) fn answer(
        &self,
        key: u32,
        json: Option<String>,
        fault: Option<String>,
        error: Option<String>,
    ) {
        let answer = match (json, fault, error) {
            (_, _, Some(message)) => HostAnswer::Threw(message),
            (_, Some(f), None) => HostAnswer::Fault(HostValueFault::from_name(&f)),
            (Some(text), None, None) => HostAnswer::Text(text),
            (None, None, None) => HostAnswer::Fault(HostValueFault::NotJson),
        };
        let waiter = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key);
        if let Some(tx) = waiter {
            let _ = tx.send(answer);
        }
    }
}

/// The host's answer to request `key` handed to `host` (if the object was given one): the one
/// body of the bridge's `answerServerRequest` and the SDK fetch's `answerHostRequest`.
pub(crate) fn answer_host(
    host: Option<&JsHost>,
    key: u32,
    json: Option<String>,
    fault: Option<String>,
    error: Option<String>,
) {
    if let Some(host) = host {
        host.answer(key, json, fault, error);
    }
}

/// One request waiting for the host; dropped unanswered, it tells the facade to abort.
struct Pending {
    key: u32,
    waiting: Waiting,
    notify: Arc<Notify>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let was_waiting = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.key)
            .is_some();
        if was_waiting {
            self.notify.call(
                (self.key, ABORT.to_owned(), String::new()),
                ThreadsafeFunctionCallMode::NonBlocking,
            );
        }
    }
}

/// The kind of a `notifications/resources/updated` handed to the facade (key 0: no answer).
pub(crate) const RESOURCE_UPDATED: &str = "resourceUpdated";

impl HostCallbacks for JsHost {
    fn resource_updated(&self, params: Value) {
        // A JSON value always serializes.
        let params = serde_json::to_string(&params).unwrap_or_default();
        self.notify.call(
            (0, RESOURCE_UPDATED.to_owned(), params),
            ThreadsafeFunctionCallMode::NonBlocking,
        );
    }

    fn ask(&self, request: HostRequest, params: Value) -> HostAnswerFuture {
        // A JSON value always serializes.
        let params = serde_json::to_string(&params).unwrap_or_default();
        self.request(request.name(), params)
    }

    fn resolve_hostname(&self, hostname: &str) -> HostAnswerFuture {
        // A JSON string always serializes.
        let params = serde_json::to_string(hostname).unwrap_or_default();
        self.request(RESOLVE_HOSTNAME, params)
    }

    fn authorize(&self, challenge: Option<Value>) -> HostAnswerFuture {
        // A JSON value always serializes (`null`: the stored token).
        let params = serde_json::to_string(&challenge).unwrap_or_default();
        self.request(AUTHORIZE, params)
    }
}

/// The kind of the engine's request for the server's access token (`transport.auth`).
pub(crate) const AUTHORIZE: &str = "authorize";

/// The kind of the engine's request for the server's addresses (`transport.resolveHostname`).
pub(crate) const RESOLVE_HOSTNAME: &str = "resolveHostname";

impl JsHost {
    /// Hands request `kind` with `params` (JSON text) to the facade under a fresh key and
    /// resolves with the host's answer.
    fn request(&self, kind: &str, params: String) -> HostAnswerFuture {
        let mut key = self.next.fetch_add(1, Ordering::Relaxed);
        if key == 0 {
            key = self.next.fetch_add(1, Ordering::Relaxed);
        }
        let (tx, rx) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, tx);
        let pending = Pending {
            key,
            waiting: Arc::clone(&self.waiting),
            notify: Arc::clone(&self.notify),
        };
        let status = self.notify.call(
            (key, kind.to_owned(), params),
            ThreadsafeFunctionCallMode::NonBlocking,
        );
        Box::pin(async move {
            if status != napi::Status::Ok {
                drop(pending);
                return HostAnswer::Threw(McpError::Closed.to_string());
            }
            let answer = rx.await;
            drop(pending);
            answer.unwrap_or_else(|_| HostAnswer::Threw(McpError::Closed.to_string()))
        })
    }
}
