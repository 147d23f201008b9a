//! The server's own requests on a native session (`roots/list`, `sampling/createMessage`,
//! `elicitation/create`) answered by the host's callbacks under the rules of
//! [`super::capability`]: a request is bounded before the host sees it, and the host's answer
//! (roots `file:` only and at most 500, an accepted elicitation only with the host's mark,
//! which is removed) before the server does. What the host did not select is not declared in
//! `initialize` and not answered.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ClientCapabilities, ErrorCode, ErrorData};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::capability::{self, CapabilityError, Incoming};
use super::host_client::HostValueFault;
use crate::limits as l;

/// A request of the server that the host's callback answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRequest {
    /// `roots/list`: the host's `roots()`.
    Roots,
    /// `sampling/createMessage`: the host's `sampling({params, signal})`.
    Sampling,
    /// `elicitation/create`: the host's `elicitation({params, signal})`.
    Elicitation,
}

impl HostRequest {
    /// The name of the host's callback (and of the client capability).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Roots => "roots",
            Self::Sampling => "sampling",
            Self::Elicitation => "elicitation",
        }
    }
}

/// What the host's callback came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostAnswer {
    /// Its value as JSON text.
    Text(String),
    /// A value with no JSON text.
    Fault(HostValueFault),
    /// The message of what it threw (or why it never answered).
    Threw(String),
}

/// The future of one [`HostCallbacks::ask`].
pub type HostAnswerFuture = Pin<Box<dyn Future<Output = HostAnswer> + Send>>;

/// The host's callbacks, as the binding reaches them.
pub trait HostCallbacks: Send + Sync {
    /// Calls the host's callback for `request` with `params` (already bounded). Dropping the
    /// future before it resolves (the server cancelled the request, or the session closed)
    /// must abort the callback's `signal`.
    fn ask(&self, request: HostRequest, params: Value) -> HostAnswerFuture;

    /// Hands the host a `notifications/resources/updated` (its params, already bounded).
    fn resource_updated(&self, params: Value);

    /// Asks the host's OAuth client for the server's access token (`transport.auth`):
    /// `challenge` is `None` for the stored token, or the server's refusal (`status`, `scope`,
    /// `resourceMetadataUrl`, `error`) to authorize again for. The answer is JSON
    /// `{"token": string | null}`. A host without OAuth answers that it has none.
    fn authorize(&self, challenge: Option<Value>) -> HostAnswerFuture {
        let _ = challenge;
        Box::pin(async { HostAnswer::Threw(NO_OAUTH.to_owned()) })
    }

    /// Asks the host's `resolveHostname` for `hostname`'s addresses: JSON
    /// `[{ "address", "family" }]`, read by [`super::host_resolver::read_answer`]. A host
    /// without one answers that it has none.
    fn resolve_hostname(&self, hostname: &str) -> HostAnswerFuture {
        let _ = hostname;
        Box::pin(async { HostAnswer::Threw(NO_RESOLVER.to_owned()) })
    }
}

/// What a host without a resolver answers [`HostCallbacks::resolve_hostname`] with.
pub const NO_RESOLVER: &str = "the host has no resolveHostname";

/// What a host without an OAuth client answers [`HostCallbacks::authorize`] with.
pub const NO_OAUTH: &str = "the host has no OAuth client for this server";

/// The client's side of a session: which of the server's requests the host answers, and how.
#[derive(Clone)]
pub struct ClientSide {
    /// The host's callbacks (`None`: the server's requests are refused).
    pub host: Option<Arc<dyn HostCallbacks>>,
    /// Declare the MCP Apps extension.
    pub apps: bool,
    /// The host answers `roots/list`.
    pub roots: bool,
    /// The host answers `sampling/createMessage`.
    pub sampling: bool,
    /// The host answers `elicitation/create`.
    pub elicitation: bool,
    /// The host takes `notifications/resources/updated`.
    pub resource_updates: bool,
    /// The host's OAuth client authorizes the HTTP requests (`transport.auth`).
    pub oauth: bool,
    /// The host resolves the server's host name (`transport.resolveHostname`).
    pub resolve_hostname: bool,
    /// `maxCapabilityBytes`: the bound of every request and answer.
    pub max_bytes: u64,
}

impl Default for ClientSide {
    fn default() -> Self {
        Self {
            host: None,
            apps: false,
            roots: false,
            sampling: false,
            elicitation: false,
            resource_updates: false,
            oauth: false,
            resolve_hostname: false,
            max_bytes: l::MCP_MAX_CAPABILITY_BYTES.default,
        }
    }
}

impl std::fmt::Debug for ClientSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSide")
            .field("apps", &self.apps)
            .field("roots", &self.roots)
            .field("sampling", &self.sampling)
            .field("elicitation", &self.elicitation)
            .field("oauth", &self.oauth)
            .field("resolve_hostname", &self.resolve_hostname)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

/// A refusal as the JSON-RPC error the server gets (an internal error, as the reference's
/// SDK client answers a handler that threw).
fn refusal(e: &CapabilityError) -> ErrorData {
    ErrorData::internal_error(e.to_string(), None)
}

impl ClientSide {
    /// The capabilities declared in `initialize`: only what the host selected.
    #[must_use]
    pub fn capabilities(&self) -> ClientCapabilities {
        let caps =
            capability::client_capabilities(self.apps, self.roots, self.sampling, self.elicitation);
        // Built from rmcp's own capability names: it always reads back.
        serde_json::from_value(caps).unwrap_or_default()
    }

    /// The host's OAuth client, when it authorizes the session's HTTP requests.
    #[must_use]
    pub fn oauth_host(&self) -> Option<Arc<dyn HostCallbacks>> {
        self.host.clone().filter(|_| self.oauth)
    }

    /// The host's resolver, when it resolves the server's host name.
    #[must_use]
    pub fn resolver(&self) -> Option<Arc<dyn HostCallbacks>> {
        self.host.clone().filter(|_| self.resolve_hostname)
    }

    fn selected(&self, request: HostRequest) -> bool {
        match request {
            HostRequest::Roots => self.roots,
            HostRequest::Sampling => self.sampling,
            HostRequest::Elicitation => self.elicitation,
        }
    }

    /// Hands a `notifications/resources/updated` to the host when it takes them and the
    /// params are within the capability bounds (a notification has no answer: one past a
    /// bound is dropped).
    pub fn resource_updated(&self, params: impl serde::Serialize) {
        let Some(host) = self.host.as_ref().filter(|_| self.resource_updates) else {
            return;
        };
        let Ok(params) = serde_json::to_value(params) else {
            return;
        };
        if capability::bounded(&params, self.max_bytes, "MCP resource update").is_ok() {
            host.resource_updated(params);
        }
    }

    /// [`ClientSide::answer`] between rmcp's typed params and result.
    ///
    /// # Errors
    /// As [`ClientSide::answer`], or an answer not shaped as the protocol's result.
    pub async fn answer_typed<T: serde::de::DeserializeOwned>(
        &self,
        request: HostRequest,
        params: impl serde::Serialize,
        cancel: &CancellationToken,
    ) -> Result<T, ErrorData> {
        let params = serde_json::to_value(params)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let answer = self.answer(request, params, cancel).await?;
        serde_json::from_value(answer).map_err(|e| {
            ErrorData::internal_error(
                format!("MCP {} result is invalid: {e}", request.name()),
                None,
            )
        })
    }

    /// The answer to the server's `request` with `params`: the host's callback asked with the
    /// bounded params, its answer checked. `cancel` fires when the server cancels the request
    /// or the session closes: the callback's signal is aborted and the request fails.
    ///
    /// # Errors
    /// A request the host did not select, a broken bound or rule, or what the host threw, as
    /// the JSON-RPC error sent to the server.
    pub async fn answer(
        &self,
        request: HostRequest,
        params: Value,
        cancel: &CancellationToken,
    ) -> Result<Value, ErrorData> {
        let host = match &self.host {
            Some(host) if self.selected(request) => host,
            _ => {
                let e = CapabilityError::NotHandled {
                    request: request.name(),
                };
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    e.to_string(),
                    None,
                ));
            }
        };
        let request_label = match request {
            HostRequest::Roots => None,
            HostRequest::Sampling => Some("MCP sampling request"),
            HostRequest::Elicitation => Some("MCP elicitation request"),
        };
        if let Some(label) = request_label {
            capability::bounded(&params, self.max_bytes, label).map_err(|e| refusal(&e))?;
        }
        let answer = tokio::select! {
            a = host.ask(request, params.clone()) => a,
            () = cancel.cancelled() => {
                return Err(refusal(&CapabilityError::Cancelled { request: request.name() }));
            }
        };
        let incoming = match &answer {
            HostAnswer::Text(text) => Incoming::Text(text),
            HostAnswer::Fault(fault) => Incoming::Fault(*fault),
            HostAnswer::Threw(message) => {
                let kept =
                    super::content::truncate_utf8_to(message, l::MCP_ERROR_SUMMARY_BYTES as f64);
                return Err(ErrorData::internal_error(kept.to_owned(), None));
            }
        };
        let max = self.max_bytes;
        match request {
            HostRequest::Roots => capability::roots_answer(incoming, max),
            HostRequest::Sampling => {
                capability::parse_bounded(incoming, max, "MCP sampling result")
            }
            HostRequest::Elicitation => capability::elicitation_answer(incoming, &params, max),
        }
        .map_err(|e| refusal(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Mutex;

    /// A host that answers `text` and records what it was asked.
    struct Fixed {
        text: HostAnswer,
        asked: Mutex<Vec<(HostRequest, Value)>>,
    }

    impl HostCallbacks for Fixed {
        fn ask(&self, request: HostRequest, params: Value) -> HostAnswerFuture {
            self.asked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((request, params));
            let answer = self.text.clone();
            Box::pin(async move { answer })
        }

        fn resource_updated(&self, params: Value) {
            self.asked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((HostRequest::Roots, params));
        }
    }

    fn side(answer: HostAnswer, max_bytes: u64) -> (ClientSide, Arc<Fixed>) {
        let host = Arc::new(Fixed {
            text: answer,
            asked: Mutex::new(Vec::new()),
        });
        let side = ClientSide {
            host: Some(host.clone()),
            roots: true,
            sampling: true,
            elicitation: true,
            max_bytes,
            ..ClientSide::default()
        };
        (side, host)
    }

    fn run<T>(f: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn only_selected_capabilities_are_declared_and_answered() {
        let none = ClientSide::default();
        assert_eq!(
            serde_json::to_value(none.capabilities()).ok(),
            Some(json!({}))
        );
        let (all, _) = side(HostAnswer::Text("[]".into()), 1 << 20);
        assert_eq!(
            serde_json::to_value(all.capabilities()).ok(),
            Some(
                json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}, "url": {}}})
            )
        );
        let ct = CancellationToken::new();
        let e = run(none.answer(HostRequest::Roots, json!({}), &ct)).err();
        assert_eq!(
            e.map(|e| e.message.into_owned()),
            Some("MCP roots is not handled by this client".into())
        );
        let r = run(all.answer(HostRequest::Roots, json!({}), &ct));
        assert_eq!(r.ok(), Some(json!({"roots": []})));
    }

    #[test]
    fn requests_and_answers_are_bounded_at_their_edge() {
        let ct = CancellationToken::new();
        // {"m":"xx"} is 10 bytes
        let (s, host) = side(HostAnswer::Text(r#"{"m":"xx"}"#.into()), 10);
        assert_eq!(
            run(s.answer(HostRequest::Sampling, json!({"m": "yy"}), &ct)).ok(),
            Some(json!({"m": "xx"}))
        );
        let over = run(s.answer(HostRequest::Sampling, json!({"m": "yyy"}), &ct)).err();
        assert_eq!(
            over.map(|e| e.message.into_owned()),
            Some("MCP sampling request exceeds 10 bytes".into())
        );
        // The oversized request never reached the host.
        assert_eq!(host.asked.lock().map(|a| a.len()).unwrap_or(0), 1);
        let (s, _) = side(HostAnswer::Text(r#"{"m":"xxx"}"#.into()), 10);
        let over = run(s.answer(HostRequest::Sampling, json!({}), &ct)).err();
        assert_eq!(
            over.map(|e| e.message.into_owned()),
            Some("MCP sampling result exceeds 10 bytes".into())
        );
    }

    #[test]
    fn an_accept_needs_the_mark_and_what_the_host_threw_is_the_error() {
        let ct = CancellationToken::new();
        let (s, _) = side(
            HostAnswer::Text(r#"{"action":"accept","content":{}}"#.into()),
            1 << 20,
        );
        let e = run(s.answer(HostRequest::Elicitation, json!({"message": "m"}), &ct)).err();
        assert_eq!(
            e.map(|e| e.message.into_owned()),
            Some("Accepted MCP elicitation requires explicit human interaction".into())
        );
        let (s, _) = side(HostAnswer::Threw("no".into()), 1 << 20);
        let e = run(s.answer(HostRequest::Elicitation, json!({"message": "m"}), &ct)).err();
        assert_eq!(e.map(|e| e.message.into_owned()), Some("no".into()));
        let (s, _) = side(HostAnswer::Fault(HostValueFault::NotJson), 1 << 20);
        assert!(run(s.answer(HostRequest::Sampling, json!({}), &ct)).is_err());
    }

    #[test]
    fn a_resource_update_reaches_the_host_only_when_taken_and_within_the_bound() {
        // {"uri":"a://b"} is 15 bytes
        let update = json!({"uri": "a://b"});
        let (mut s, host) = side(HostAnswer::Text("{}".into()), 15);
        s.resource_updated(&update);
        assert_eq!(host.asked.lock().map(|a| a.len()).unwrap_or(9), 0);
        s.resource_updates = true;
        s.resource_updated(&update);
        assert_eq!(host.asked.lock().map(|a| a.len()).unwrap_or(9), 1);
        s.max_bytes = 14;
        s.resource_updated(&update);
        assert_eq!(host.asked.lock().map(|a| a.len()).unwrap_or(9), 1);
    }

    #[test]
    fn a_cancelled_request_fails_without_waiting_for_the_host() {
        struct Never;
        impl HostCallbacks for Never {
            fn ask(&self, _: HostRequest, _: Value) -> HostAnswerFuture {
                Box::pin(std::future::pending())
            }
            fn resource_updated(&self, _: Value) {}
        }
        let s = ClientSide {
            host: Some(Arc::new(Never)),
            sampling: true,
            ..ClientSide::default()
        };
        let ct = CancellationToken::new();
        ct.cancel();
        assert!(run(s.answer(HostRequest::Sampling, json!({}), &ct)).is_err());
    }
}
