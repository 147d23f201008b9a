//! The bearer of a Streamable HTTP session with OAuth (`transport.auth`): the host's OAuth
//! client (through [`HostCallbacks::authorize`]) gives the access token, which is kept here and
//! sent on every request to the server (only ever to the server's own origin: the HTTP client
//! talks to nothing else and follows no redirect). When the server refuses it, the request asks
//! the host to authorize again under the rules of [`oauth::step_up`](super::oauth::step_up);
//! requests refused together share one authorization.

use std::sync::{Arc, Mutex, PoisonError};

use reqwest::header::HeaderValue;
use serde_json::{json, Value};

use super::host_requests::{HostAnswer, HostCallbacks};
use super::oauth::challenge::BearerChallenge;
use super::oauth::step_up::{self, Reauthorize};
use super::McpError;
use crate::limits::MCP_OAUTH_TOKEN_RECORD_BYTES;

/// The token the host gave, and the one authorization at a time.
pub struct Bearer {
    host: Arc<dyn HostCallbacks>,
    /// `None` until the host was first asked; then the token it gave (if any).
    token: Mutex<Option<Option<String>>>,
    /// Held while the host authorizes, so that requests refused together wait for one flow.
    authorizing: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a secret: never shown.
        f.debug_struct("Bearer").finish_non_exhaustive()
    }
}

/// The failure of an authorization the host's OAuth client could not complete.
fn failed(message: &str) -> McpError {
    McpError::Transport {
        message: format!("authorization failed: {message}"),
    }
}

/// The access token in the host's answer (`{"token": string | null}`), checked as a header
/// value within the token record's hard bound.
fn token_of(answer: HostAnswer) -> Result<Option<String>, McpError> {
    let text = match answer {
        HostAnswer::Text(text) => text,
        HostAnswer::Fault(_) => return Err(failed("the host's OAuth client gave no token")),
        HostAnswer::Threw(message) => return Err(failed(&message)),
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|_| failed("the host's OAuth client gave no token"))?;
    let token = match value.get("token") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(token)) => token,
        Some(_) => return Err(failed("the host's OAuth client gave no token")),
    };
    let fits = token.len() as u64 <= MCP_OAUTH_TOKEN_RECORD_BYTES.hard
        && !token.is_empty()
        && HeaderValue::from_str(&format!("Bearer {token}")).is_ok();
    if !fits {
        return Err(failed("the access token is not a valid bearer token"));
    }
    Ok(Some(token.clone()))
}

impl Bearer {
    /// The bearer of a session whose host authorizes through `host`.
    #[must_use]
    pub fn new(host: Arc<dyn HostCallbacks>) -> Self {
        Self {
            host,
            token: Mutex::new(None),
            authorizing: tokio::sync::Mutex::new(()),
        }
    }

    fn kept(&self) -> Option<Option<String>> {
        self.token
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn keep(&self, token: Option<String>) {
        *self.token.lock().unwrap_or_else(PoisonError::into_inner) = Some(token);
    }

    /// The token to send: the one kept, or the host's stored one when first asked (none: the
    /// request goes without, and the server's challenge starts the flow).
    ///
    /// # Errors
    /// The host's OAuth client failed or gave something that is not a token.
    pub async fn token(&self) -> Result<Option<String>, McpError> {
        if let Some(token) = self.kept() {
            return Ok(token);
        }
        let _one = self.authorizing.lock().await;
        if let Some(token) = self.kept() {
            return Ok(token);
        }
        let token = token_of(self.host.authorize(None).await)?;
        self.keep(token.clone());
        Ok(token)
    }

    /// Authorizes again after the server refused `sent` with `status` and `challenge`; resolves
    /// with the token to send next. When another request already replaced `sent`, its token is
    /// used without a second flow ([`step_up::reauthorize`]).
    ///
    /// # Errors
    /// The host's OAuth client could not authorize (it needs the user, or a request failed).
    pub async fn reauthorize(
        &self,
        sent: Option<&str>,
        status: u16,
        challenge: &BearerChallenge,
    ) -> Result<Option<String>, McpError> {
        let _one = self.authorizing.lock().await;
        if let Some(current) = self.kept() {
            if step_up::reauthorize(sent, current.as_deref()) == Reauthorize::SendAgain {
                return Ok(current);
            }
        }
        let asked = json!({
            "status": status,
            "scope": challenge.scope,
            "resourceMetadataUrl": challenge.resource_metadata,
            "error": challenge.error,
        });
        let token = token_of(self.host.authorize(Some(asked)).await)?;
        self.keep(token.clone());
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::host_requests::{HostAnswerFuture, HostRequest};
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Host {
        asked: AtomicUsize,
        answer: HostAnswer,
    }

    impl HostCallbacks for Host {
        fn ask(&self, _: HostRequest, _: Value) -> HostAnswerFuture {
            Box::pin(async { HostAnswer::Threw(String::new()) })
        }
        fn resource_updated(&self, _: Value) {}
        fn authorize(&self, _: Option<Value>) -> HostAnswerFuture {
            self.asked.fetch_add(1, Ordering::SeqCst);
            let answer = self.answer.clone();
            Box::pin(async move { answer })
        }
    }

    fn bearer(answer: HostAnswer) -> (Bearer, Arc<Host>) {
        let host = Arc::new(Host {
            asked: AtomicUsize::new(0),
            answer,
        });
        (Bearer::new(host.clone()), host)
    }

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .map(|rt| rt.block_on(f))
            .unwrap_or_else(|e| panic!("runtime: {e}"))
    }

    #[test]
    fn the_host_is_asked_once_for_the_stored_token() {
        let (b, host) = bearer(HostAnswer::Text(r#"{"token":"at-1"}"#.into()));
        assert_eq!(run(b.token()).ok().flatten().as_deref(), Some("at-1"));
        assert_eq!(run(b.token()).ok().flatten().as_deref(), Some("at-1"));
        assert_eq!(host.asked.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_replaced_token_is_used_without_a_second_flow() {
        let (b, host) = bearer(HostAnswer::Text(r#"{"token":"at-2"}"#.into()));
        let c = BearerChallenge::default();
        assert_eq!(
            run(b.reauthorize(Some("at-1"), 401, &c))
                .ok()
                .flatten()
                .as_deref(),
            Some("at-2")
        );
        assert_eq!(
            run(b.reauthorize(Some("at-1"), 401, &c))
                .ok()
                .flatten()
                .as_deref(),
            Some("at-2")
        );
        assert_eq!(host.asked.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn what_is_not_a_token_fails_without_showing_it() {
        for text in [
            r#"{"token":"a\nb"}"#,
            r#"{"token":""}"#,
            r#"{"token":7}"#,
            "[]x",
        ] {
            let (b, _) = bearer(HostAnswer::Text(text.into()));
            let e = run(b.token()).err().map(|e| e.to_string());
            assert!(e.is_some_and(|m| m.starts_with("MCP transport error: authorization failed")));
        }
        let (b, _) = bearer(HostAnswer::Text(r#"{"token":null}"#.into()));
        assert_eq!(run(b.token()).ok(), Some(None));
        let (b, _) = bearer(HostAnswer::Threw(
            "interactive authorization required".into(),
        ));
        assert_eq!(
            run(b.token()).err().map(|e| e.to_string()).as_deref(),
            Some("MCP transport error: authorization failed: interactive authorization required")
        );
        assert!(!format!("{b:?}").contains("token:"));
    }
}
