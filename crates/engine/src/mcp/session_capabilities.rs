//! Resources and prompts through a native session: listings page by page with the cursor
//! under [`CapabilityListing`]'s guards, reads and gets bounded by `maxCapabilityBytes`, each
//! refused with [`CapabilityError::Unsupported`] before any I/O when the server lacks it.

use rmcp::model::{ClientRequest, CustomRequest};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::capability::{bounded, require_capability, CapabilityListing, Incoming, ListKind};
use super::session::McpSession;
use super::McpError;

/// A single capability request: which capability, method and label name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapabilityRequest {
    /// `resources/read`.
    ReadResource,
    /// `prompts/get`.
    GetPrompt,
    /// `resources/subscribe` (the server must declare `resources.subscribe`).
    Subscribe,
    /// `resources/unsubscribe` (likewise).
    Unsubscribe,
}

impl CapabilityRequest {
    /// The request named by the binding (its method).
    #[must_use]
    pub fn from_method(method: &str) -> Option<Self> {
        match method {
            "resources/read" => Some(Self::ReadResource),
            "prompts/get" => Some(Self::GetPrompt),
            "resources/subscribe" => Some(Self::Subscribe),
            "resources/unsubscribe" => Some(Self::Unsubscribe),
            _ => None,
        }
    }

    fn method(self) -> &'static str {
        match self {
            Self::ReadResource => "resources/read",
            Self::GetPrompt => "prompts/get",
            Self::Subscribe => "resources/subscribe",
            Self::Unsubscribe => "resources/unsubscribe",
        }
    }

    fn capability(self) -> &'static str {
        match self {
            Self::ReadResource => "resources",
            Self::GetPrompt => "prompts",
            Self::Subscribe | Self::Unsubscribe => "resources.subscribe",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::ReadResource => "MCP resource result",
            Self::GetPrompt => "MCP prompt result",
            Self::Subscribe | Self::Unsubscribe => "MCP subscription result",
        }
    }
}

impl McpSession {
    /// Every item of a `kind` listing, page by page, each page within `max_bytes` and the
    /// listing within its page and item guards.
    ///
    /// # Errors
    /// [`CapabilityError::Unsupported`] when the server lacks the capability, a guard or
    /// bound, a timeout (`callTimeoutMs` per page), an abort, or a transport failure.
    pub async fn list_capability(
        &self,
        kind: ListKind,
        max_bytes: u64,
        cancel: &CancellationToken,
    ) -> Result<Vec<Value>, McpError> {
        require_capability(&self.server_capabilities()?, kind.capability())?;
        let mut listing = CapabilityListing::new(kind, max_bytes);
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.take().map(|c| serde_json::json!({ "cursor": c }));
            let req = ClientRequest::CustomRequest(CustomRequest::new(kind.method(), params));
            let page = self
                .request(req, self.limits().call_timeout_ms, cancel)
                .await?;
            let text = serde_json::to_string(&page).map_err(|e| McpError::InvalidResponse {
                reason: e.to_string(),
            })?;
            match listing.add_page(Incoming::Text(&text))? {
                Some(next) => cursor = Some(next),
                None => return Ok(listing.finish()),
            }
        }
    }

    /// One `request` with `params`, its result within `max_bytes`, depth and properties.
    ///
    /// # Errors
    /// As [`McpSession::list_capability`].
    pub async fn capability_request(
        &self,
        request: CapabilityRequest,
        params: Value,
        max_bytes: u64,
        cancel: &CancellationToken,
    ) -> Result<Value, McpError> {
        require_capability(&self.server_capabilities()?, request.capability())?;
        let req = ClientRequest::CustomRequest(CustomRequest::new(request.method(), Some(params)));
        let result = self
            .request(req, self.limits().call_timeout_ms, cancel)
            .await?;
        bounded(&result, max_bytes, request.label()).map_err(McpError::from)?;
        Ok(result)
    }
}
