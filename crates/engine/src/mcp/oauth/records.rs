//! The records a host persists: tokens and client information, in the MCP TypeScript SDK's
//! shapes. Their `Debug` output shows which fields are set, never a token or secret.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An RFC 6749 token response, as persisted (`OAuthTokens`).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    /// The bearer token.
    pub access_token: String,
    /// `Bearer` (compared without case).
    #[serde(default = "bearer")]
    pub token_type: String,
    /// Seconds the access token lives, from when it was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<f64>,
    /// The granted scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Every other field, kept as sent (`id_token`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn bearer() -> String {
    "Bearer".to_owned()
}

fn set<T>(v: Option<&T>) -> &'static str {
    if v.is_some() {
        "[set]"
    } else {
        "[unset]"
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"[redacted]")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .field("refresh_token", &set(self.refresh_token.as_ref()))
            .field("extra_fields", &self.extra.len())
            .finish()
    }
}

/// A client's registration (`OAuthClientInformationMixed`): a static client or what dynamic
/// registration returned.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientInformation {
    /// The client id.
    pub client_id: String,
    /// The client secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The token endpoint auth method the registration settled on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// Every other field, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl fmt::Debug for ClientInformation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientInformation")
            .field("client_id", &self.client_id)
            .field("client_secret", &set(self.client_secret.as_ref()))
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .field("extra_fields", &self.extra.len())
            .finish()
    }
}

/// The byte length of a record's JSON encoding (what `tokenRecordBytes` and `stateBytes`
/// bound).
#[must_use]
pub fn json_bytes<T: Serialize>(value: &T) -> u64 {
    serde_json::to_vec(value).map_or(u64::MAX, |v| v.len() as u64)
}
