//! Cross-app access (SEP-990, Enterprise-Managed Authorization), the IdP half: the user's ID
//! token from the enterprise identity provider is exchanged at that provider's token endpoint
//! (RFC 8693 token exchange) for an Identity Assertion JWT Authorization Grant (ID-JAG) whose
//! audience is the MCP server's authorization server and whose resource is the MCP server.
//! The flow then presents the ID-JAG there as an RFC 7523 JWT bearer grant
//! ([`super::token::Endpoints::jwt_bearer`]). The ID token and the ID-JAG live for one flow
//! only and never appear in an error or `Debug` output.

use std::fmt;

use reqwest::Url;
use serde_json::Value;

use super::client_auth::{apply, ClientAuthMethod};
use super::fetch::{Body, OAuthHttp};
use super::records::ClientInformation;
use super::token::success_json;
use super::OAuthError;

/// RFC 8693's grant type.
pub const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The subject token's type: an OpenID Connect ID token.
pub const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The requested token's type: an Identity Assertion JWT Authorization Grant.
pub const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// The message of a flow without a usable ID token.
const NO_ID_TOKEN: &str =
    "auth.strategy.idToken must be a non-empty string or a function resolving to one";

/// A client that authorizes by cross-app access.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossAppAccess {
    /// The client at the MCP server's authorization server (its id, and its secret when it
    /// authenticates with one), which presents the ID-JAG.
    pub client: ClientInformation,
    /// The enterprise identity provider's token endpoint.
    pub idp_token_endpoint: Url,
    /// The client at the identity provider, when it has one there (sent as
    /// `client_secret_post`, or as `client_id` alone).
    pub idp_client: Option<ClientInformation>,
}

/// A token text held for one flow (the user's ID token, the ID-JAG): its `Debug` output shows
/// only that it is set.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretText(String);

impl SecretText {
    /// Wraps `text`.
    #[must_use]
    pub fn new(text: String) -> Self {
        Self(text)
    }

    /// The text, to send.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// The flow's ID token: present, non-empty, at most `limit` bytes (`tokenRecordBytes`).
///
/// # Errors
/// [`OAuthError::State`] for a missing or empty one; [`OAuthError::TokenStore`] for one over
/// the bound.
pub fn flow_id_token(id_token: Option<&SecretText>, limit: u64) -> Result<&str, OAuthError> {
    let text = id_token
        .map(SecretText::expose)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| OAuthError::state(NO_ID_TOKEN))?;
    if text.len() as u64 > limit {
        return Err(OAuthError::token_store(format!(
            "auth.strategy.idToken exceeds tokenRecordBytes ({limit} bytes)"
        )));
    }
    Ok(text)
}

/// What the ID-JAG is for: the authorization server that takes it and the MCP server it
/// grants access to.
#[derive(Debug, Clone, Copy)]
pub struct GrantTarget<'a> {
    /// The authorization server's issuer (the ID-JAG's audience).
    pub audience: &'a str,
    /// The MCP server's resource identifier.
    pub resource: &'a str,
    /// The scope to request, if any.
    pub scope: Option<&'a str>,
}

/// Exchanges `id_token` at the identity provider's token endpoint for an ID-JAG for `target`.
///
/// # Errors
/// [`OAuthError::Rejected`] (`token exchange`) with the provider's OAuth error; a
/// [`OAuthError::Discovery`] for an answer that is not an ID-JAG; any transport error.
pub async fn request_id_jag(
    http: &OAuthHttp,
    xaa: &CrossAppAccess,
    id_token: &str,
    target: GrantTarget<'_>,
) -> Result<SecretText, OAuthError> {
    let mut form = vec![
        ("grant_type", TOKEN_EXCHANGE_GRANT),
        ("requested_token_type", ID_JAG_TYPE),
        ("audience", target.audience),
        ("resource", target.resource),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN_TYPE),
    ];
    if let Some(s) = target.scope {
        form.push(("scope", s));
    }
    if let Some(c) = &xaa.idp_client {
        let method = if c.client_secret.is_some() {
            ClientAuthMethod::Post
        } else {
            ClientAuthMethod::None
        };
        apply(method, c, &mut form)?;
    }
    let r = http
        .send(
            "token exchange",
            &xaa.idp_token_endpoint,
            Body::Form(&form),
            None,
        )
        .await?;
    let value = success_json("token exchange", &r)?;
    id_jag_of(&value)
}

/// The ID-JAG of a token exchange answer: `issued_token_type` the ID-JAG type and a non-empty
/// `access_token`.
fn id_jag_of(value: &Value) -> Result<SecretText, OAuthError> {
    if value.get("issued_token_type").and_then(Value::as_str) != Some(ID_JAG_TYPE) {
        return Err(OAuthError::discovery(
            "token exchange response is not an ID-JAG (issued_token_type)",
        ));
    }
    value
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(|t| SecretText::new(t.to_owned()))
        .ok_or_else(|| OAuthError::discovery("token exchange response has no access_token"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_answer_must_be_an_id_jag() {
        let ok = id_jag_of(
            &json!({ "access_token": "jag", "issued_token_type": ID_JAG_TYPE, "token_type": "N_A" }),
        );
        assert_eq!(ok.as_ref().map(SecretText::expose).ok(), Some("jag"));
        for bad in [
            json!({ "access_token": "jag" }),
            json!({ "access_token": "", "issued_token_type": ID_JAG_TYPE }),
            json!({ "access_token": "jag", "issued_token_type": ID_TOKEN_TYPE }),
        ] {
            let e = id_jag_of(&bad).err();
            assert_eq!(
                e.as_ref().map(OAuthError::code),
                Some("ERR_PRISM_MCP_OAUTH_DISCOVERY")
            );
            assert!(!e
                .map(|e| e.to_string())
                .unwrap_or_default()
                .contains("jag\""));
        }
    }

    #[test]
    fn the_id_token_is_required_bounded_and_never_shown() {
        let t = SecretText::new("eyJ.secret.sig".into());
        assert_eq!(format!("{t:?}"), "[redacted]");
        assert_eq!(flow_id_token(Some(&t), 100).ok(), Some("eyJ.secret.sig"));
        let none = flow_id_token(None, 100).err();
        assert_eq!(none.map(|e| e.code()), Some("ERR_PRISM_MCP_OAUTH_STATE"));
        let empty = SecretText::new(String::new());
        assert!(flow_id_token(Some(&empty), 100).is_err());
        let over = flow_id_token(Some(&t), 4).err();
        assert_eq!(
            over.as_ref().map(OAuthError::code),
            Some("ERR_PRISM_MCP_OAUTH_TOKEN_STORE")
        );
        assert!(!over
            .map(|e| e.to_string())
            .unwrap_or_default()
            .contains("secret"));
    }
}
