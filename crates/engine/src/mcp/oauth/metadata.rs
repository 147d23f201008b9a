//! The metadata documents discovery reads, and the discovery state a host persists, in the
//! shapes the reference's state callbacks carry (the MCP TypeScript SDK's field names).
//! Unknown fields are kept, so a persisted record round-trips.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::OAuthError;

/// RFC 9728 protected-resource metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceMetadata {
    /// The resource identifier (RFC 8707), which must be on the MCP server's origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Authorization servers for the resource; the first is used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// Scopes the resource knows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// RFC 8414 (or OpenID Connect Discovery) authorization-server metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthServerMetadata {
    /// The issuer, whose origin must be the origin the metadata was discovered at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// Where the user's browser is sent.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// RFC 7591 dynamic client registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// RFC 7009 revocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    /// Response types; must include `code` when present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response_types_supported: Vec<String>,
    /// PKCE methods; must include `S256` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Token endpoint client authentication methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Scopes the server knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthServerMetadata {
    /// Whether the server takes a Client ID Metadata Document URL as a client id
    /// (`client_id_metadata_document_supported: true`).
    #[must_use]
    pub fn supports_client_id_metadata_documents(&self) -> bool {
        self.extra.get("client_id_metadata_document_supported") == Some(&Value::Bool(true))
    }
}

/// What discovery found: the reference's `OAuthDiscoveryState`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryState {
    /// The authorization server's URL (from the resource metadata, or the server's origin).
    pub authorization_server_url: String,
    /// Where the resource metadata was read, when a challenge named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata_url: Option<String>,
    /// The protected-resource metadata, if the server publishes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<ResourceMetadata>,
    /// The authorization-server metadata, if the server publishes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_server_metadata: Option<AuthServerMetadata>,
}

/// Parses a metadata document: a JSON object of type `T`; `what` names it in the error.
///
/// # Errors
/// [`OAuthError::Discovery`] if the body is not such an object.
pub fn parse_document<T: serde::de::DeserializeOwned>(
    what: &str,
    body: &[u8],
) -> Result<T, OAuthError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|_| OAuthError::discovery(format!("{what} is not JSON")))?;
    if !value.is_object() {
        return Err(OAuthError::discovery(format!(
            "{what} is not a JSON object"
        )));
    }
    serde_json::from_value(value).map_err(|e| {
        OAuthError::discovery(format!("{what} is invalid: {}", field_of(&e.to_string())))
    })
}

/// The field serde names in an error (`missing field `x``), without echoing any value.
fn field_of(message: &str) -> String {
    message
        .split('`')
        .nth(1)
        .filter(|f| f.len() <= 64 && message.starts_with("missing field"))
        .map_or_else(
            || "a field has the wrong type".to_owned(),
            |f| format!("missing {f}"),
        )
}
