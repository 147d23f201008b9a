//! The token endpoint (authorization code, refresh, client credentials and JWT bearer grants),
//! dynamic client registration
//! (RFC 7591) and revocation (RFC 7009). Every request goes through [`OAuthHttp`]; every record
//! that comes back is bounded by `tokenRecordBytes`.

use reqwest::header::HeaderValue;
use reqwest::Url;
use serde_json::Value;

use super::client_assertion::JWT_BEARER_ASSERTION;
use super::client_auth::{apply, select_method};
use super::error::plain_error_code;
use super::fetch::{Body, OAuthHttp, OAuthResponse};
use super::metadata::AuthServerMetadata;
use super::records::{json_bytes, ClientInformation, Tokens};
use super::OAuthError;

/// RFC 7523's authorization grant type (an ID-JAG presented at the authorization server).
pub const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Where the token, registration and revocation requests go, and how the client authenticates.
#[derive(Debug, Clone, Copy)]
pub struct Endpoints<'a> {
    /// The authorization server's URL (legacy endpoints are relative to it).
    pub as_url: &'a Url,
    /// Its metadata, if it publishes any.
    pub metadata: Option<&'a AuthServerMetadata>,
    /// `tokenRecordBytes`.
    pub record_bytes: u64,
}

impl Endpoints<'_> {
    fn endpoint(&self, from_metadata: Option<&str>, legacy: &str) -> Result<Url, OAuthError> {
        match (self.metadata, from_metadata) {
            (Some(_), Some(u)) => Url::parse(u),
            _ => self.as_url.join(legacy),
        }
        .map_err(|_| OAuthError::discovery(format!("the {} endpoint is not a URL", &legacy[1..])))
    }

    fn supported_methods(&self) -> &[String] {
        self.metadata
            .and_then(|m| m.token_endpoint_auth_methods_supported.as_deref())
            .unwrap_or(&[])
    }

    fn check_record<T: serde::Serialize>(&self, record: &T, label: &str) -> Result<(), OAuthError> {
        if json_bytes(record) > self.record_bytes {
            return Err(OAuthError::token_store(format!(
                "{label} exceeds {} bytes",
                self.record_bytes
            )));
        }
        Ok(())
    }

    async fn token_request(
        &self,
        http: &OAuthHttp,
        client: &ClientInformation,
        mut form: Vec<(&'static str, &str)>,
    ) -> Result<Tokens, OAuthError> {
        let basic = apply(
            select_method(client, self.supported_methods()),
            client,
            &mut form,
        )?;
        self.post_token(http, &form, basic.as_ref()).await
    }

    /// Sends a token request already carrying its client authentication.
    async fn post_token(
        &self,
        http: &OAuthHttp,
        form: &[(&'static str, &str)],
        basic: Option<&HeaderValue>,
    ) -> Result<Tokens, OAuthError> {
        let url = self.endpoint(self.metadata.map(|m| m.token_endpoint.as_str()), "/token")?;
        let r = http
            .send("token request", &url, Body::Form(form), basic)
            .await?;
        let value = success_json("token request", &r)?;
        let tokens: Tokens = serde_json::from_value(value)
            .map_err(|_| OAuthError::discovery("token response is invalid"))?;
        if !tokens.token_type.eq_ignore_ascii_case("bearer") {
            return Err(OAuthError::discovery(
                "token response is not a Bearer token",
            ));
        }
        self.check_record(&tokens, "token record")?;
        Ok(tokens)
    }

    /// Exchanges an authorization code (with its PKCE verifier) for tokens.
    ///
    /// # Errors
    /// [`OAuthError::Rejected`] with the server's OAuth error; any transport error.
    pub async fn exchange_code(
        &self,
        http: &OAuthHttp,
        client: &ClientInformation,
        code: &str,
        verifier: &str,
        redirect_uri: &str,
        resource: Option<&str>,
    ) -> Result<Tokens, OAuthError> {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", verifier),
            ("redirect_uri", redirect_uri),
        ];
        if let Some(r) = resource {
            form.push(("resource", r));
        }
        self.token_request(http, client, form).await
    }

    /// Refreshes tokens; a response without a new refresh token keeps the old one.
    ///
    /// # Errors
    /// As [`Self::exchange_code`].
    pub async fn refresh(
        &self,
        http: &OAuthHttp,
        client: &ClientInformation,
        refresh_token: &str,
        resource: Option<&str>,
    ) -> Result<Tokens, OAuthError> {
        let mut form = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
        ];
        if let Some(r) = resource {
            form.push(("resource", r));
        }
        let mut tokens = self.token_request(http, client, form).await?;
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(refresh_token.to_owned());
        }
        Ok(tokens)
    }

    /// The audience of a client assertion: the authorization server's issuer (its URL when
    /// it publishes no metadata).
    #[must_use]
    pub fn assertion_audience(&self) -> String {
        self.metadata
            .and_then(|m| m.issuer.clone())
            .unwrap_or_else(|| self.as_url.to_string())
    }

    /// The client credentials grant (OAuth 2.1 section 4.2): with `assertion`, the client
    /// authenticates by `private_key_jwt` (RFC 7523), else as the server's methods allow.
    ///
    /// # Errors
    /// As [`Self::exchange_code`].
    pub async fn client_credentials(
        &self,
        http: &OAuthHttp,
        client: &ClientInformation,
        assertion: Option<&str>,
        scope: Option<&str>,
        resource: Option<&str>,
    ) -> Result<Tokens, OAuthError> {
        let mut form = vec![("grant_type", "client_credentials")];
        if let Some(s) = scope {
            form.push(("scope", s));
        }
        if let Some(r) = resource {
            form.push(("resource", r));
        }
        match assertion {
            Some(a) => {
                form.push(("client_id", &client.client_id));
                form.push(("client_assertion_type", JWT_BEARER_ASSERTION));
                form.push(("client_assertion", a));
                self.post_token(http, &form, None).await
            }
            None => self.token_request(http, client, form).await,
        }
    }

    /// The JWT bearer grant (RFC 7523 section 2.1) with `assertion` (a cross-app access
    /// ID-JAG), the client authenticating as the server's methods allow.
    ///
    /// # Errors
    /// As [`Self::exchange_code`].
    pub async fn jwt_bearer(
        &self,
        http: &OAuthHttp,
        client: &ClientInformation,
        assertion: &str,
        scope: Option<&str>,
        resource: Option<&str>,
    ) -> Result<Tokens, OAuthError> {
        let mut form = vec![("grant_type", JWT_BEARER_GRANT), ("assertion", assertion)];
        if let Some(s) = scope {
            form.push(("scope", s));
        }
        if let Some(r) = resource {
            form.push(("resource", r));
        }
        self.token_request(http, client, form).await
    }

    /// Registers a client (RFC 7591) with `client_metadata`.
    ///
    /// # Errors
    /// [`OAuthError::Discovery`] if the server offers no registration; [`OAuthError::Rejected`]
    /// for a refusal; [`OAuthError::TokenStore`] for a record over `tokenRecordBytes`.
    pub async fn register(
        &self,
        http: &OAuthHttp,
        client_metadata: &Value,
    ) -> Result<ClientInformation, OAuthError> {
        let from_metadata = match self.metadata {
            Some(m) => Some(m.registration_endpoint.as_deref().ok_or_else(|| {
                OAuthError::discovery(
                    "Incompatible auth server: does not support dynamic client registration",
                )
            })?),
            None => None,
        };
        let url = self.endpoint(from_metadata, "/register")?;
        let r = http
            .send(
                "client registration",
                &url,
                Body::Json(client_metadata),
                None,
            )
            .await?;
        let value = success_json("client registration", &r)?;
        let info: ClientInformation = serde_json::from_value(value)
            .map_err(|_| OAuthError::discovery("client registration response is invalid"))?;
        self.check_record(&info, "client registration record")?;
        Ok(info)
    }

    /// Revokes `token` (RFC 7009) if the server has a revocation endpoint; `false` if it has
    /// none.
    ///
    /// # Errors
    /// [`OAuthError::TokenStore`] naming the status for a refusal; any transport error.
    pub async fn revoke(
        &self,
        http: &OAuthHttp,
        client: Option<&ClientInformation>,
        token: &str,
        hint: &'static str,
    ) -> Result<bool, OAuthError> {
        let Some(endpoint) = self.metadata.and_then(|m| m.revocation_endpoint.as_deref()) else {
            return Ok(false);
        };
        let url = Url::parse(endpoint)
            .map_err(|_| OAuthError::discovery("the revocation endpoint is not a URL"))?;
        let mut form = vec![("token", token), ("token_type_hint", hint)];
        let basic = match client {
            Some(c) => apply(select_method(c, self.supported_methods()), c, &mut form)?,
            None => None,
        };
        let r = http
            .send("token revocation", &url, Body::Form(&form), basic.as_ref())
            .await?;
        if r.status >= 300 {
            return Err(OAuthError::token_store(format!(
                "token revocation failed with HTTP {}",
                r.status
            )));
        }
        Ok(true)
    }
}

/// The JSON object of a 2xx answer; otherwise [`OAuthError::Rejected`] with the OAuth `error`
/// code of the body, if it has a plain one (the description is never echoed).
pub(crate) fn success_json(what: &'static str, r: &OAuthResponse) -> Result<Value, OAuthError> {
    let value: Option<Value> = serde_json::from_slice(&r.body).ok();
    if !(200..300).contains(&r.status) {
        let code = value
            .as_ref()
            .and_then(|v| v.get("error"))
            .and_then(Value::as_str);
        return Err(OAuthError::Rejected {
            endpoint: what,
            status: r.status,
            error: plain_error_code(code),
        });
    }
    match value {
        Some(v @ Value::Object(_)) => Ok(v),
        _ => Err(OAuthError::discovery(format!(
            "{what} answer is not a JSON object"
        ))),
    }
}
