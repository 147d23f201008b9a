//! The authorization request (RFC 6749 section 4.1.1 with PKCE and RFC 8707's `resource`):
//! the URL the user's browser is sent to.

use reqwest::Url;

use super::fetch::check_endpoint;
use super::metadata::AuthServerMetadata;
use super::OAuthError;

/// What goes into an authorization URL.
#[derive(Debug, Clone, Copy)]
pub struct AuthorizationRequest<'a> {
    /// The client id.
    pub client_id: &'a str,
    /// The redirect URI the code comes back to.
    pub redirect_uri: &'a str,
    /// The PKCE `S256` challenge.
    pub code_challenge: &'a str,
    /// The OAuth `state`.
    pub state: &'a str,
    /// The scope, space separated.
    pub scope: Option<&'a str>,
    /// The resource indicator.
    pub resource: Option<&'a str>,
}

/// The authorization endpoint: from the metadata (which must support the `code` response type
/// and `S256` when it lists them), or `/authorize` on the authorization server (legacy).
///
/// # Errors
/// [`OAuthError::Discovery`] for an incompatible server or a bad URL; [`OAuthError::Ssrf`]
/// for an endpoint that is not https (the browser is sent there, so the same rule applies).
pub fn authorization_url(
    as_url: &Url,
    metadata: Option<&AuthServerMetadata>,
    req: &AuthorizationRequest<'_>,
    allow_loopback_http: bool,
) -> Result<Url, OAuthError> {
    let mut url = match metadata {
        Some(m) => {
            if !m.response_types_supported.is_empty()
                && !m.response_types_supported.iter().any(|t| t == "code")
            {
                return Err(OAuthError::discovery(
                    "Incompatible auth server: does not support response type code",
                ));
            }
            if m.code_challenge_methods_supported
                .as_ref()
                .is_some_and(|l| !l.iter().any(|t| t == "S256"))
            {
                return Err(OAuthError::discovery(
                    "Incompatible auth server: does not support code challenge method S256",
                ));
            }
            Url::parse(&m.authorization_endpoint)
        }
        None => as_url.join("/authorize"),
    }
    .map_err(|_| OAuthError::discovery("the authorization endpoint is not a URL"))?;
    check_endpoint(&url, allow_loopback_http)?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", req.client_id)
            .append_pair("code_challenge", req.code_challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("redirect_uri", req.redirect_uri)
            .append_pair("state", req.state);
        if let Some(s) = req.scope.filter(|s| !s.is_empty()) {
            q.append_pair("scope", s);
            if s.split(' ').any(|t| t == "offline_access") {
                q.append_pair("prompt", "consent");
            }
        }
        if let Some(r) = req.resource {
            q.append_pair("resource", r);
        }
    }
    Ok(url)
}
