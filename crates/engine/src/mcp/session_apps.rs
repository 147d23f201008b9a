//! MCP Apps on a native session: the two requests an app bridge makes of its server
//! (`resources/list`, `resources/read`), sent raw and within `callTimeoutMs`. Their results
//! go to the app rules of [`super::apps`] (the same ones a host's client's results go to),
//! which bound and judge them.

use rmcp::model::{ClientRequest, CustomRequest};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::session::McpSession;
use super::McpError;

/// A request of the MCP Apps bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppRequest {
    /// `resources/list`: one page of the app resources.
    ListResources,
    /// `resources/read`: one `ui://` resource.
    ReadResource,
}

impl AppRequest {
    /// The request named by the binding (its method).
    #[must_use]
    pub fn from_method(method: &str) -> Option<Self> {
        match method {
            "resources/list" => Some(Self::ListResources),
            "resources/read" => Some(Self::ReadResource),
            _ => None,
        }
    }

    /// Its JSON-RPC method.
    #[must_use]
    pub fn method(self) -> &'static str {
        match self {
            Self::ListResources => "resources/list",
            Self::ReadResource => "resources/read",
        }
    }
}

impl McpSession {
    /// Sends `request` with `params` and returns its raw result (an object), for the app rules
    /// to bound and judge. As over a host's client, the server's `resources` capability is not
    /// required first.
    ///
    /// # Errors
    /// A timeout (`callTimeoutMs`), an abort, a closed session, the server's error, or a
    /// transport failure.
    pub async fn app_request(
        &self,
        request: AppRequest,
        params: Option<Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        let req = ClientRequest::CustomRequest(CustomRequest::new(request.method(), params));
        self.request(req, self.limits().call_timeout_ms, cancel)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_two_app_requests_are_named() {
        for r in [AppRequest::ListResources, AppRequest::ReadResource] {
            assert_eq!(AppRequest::from_method(r.method()), Some(r));
        }
        assert_eq!(AppRequest::from_method("tools/call"), None);
        assert_eq!(AppRequest::from_method("prompts/get"), None);
    }
}
