//! The authorization flow, as the MCP SDK's `auth()` runs it, over the host's stored state:
//! discovery (cached for `discoveryCacheTtlMs`), the client (static or registered once),
//! the code exchange, refresh, or the start of an interactive authorization. The flow does not
//! call the host: it reads what the host loaded ([`Stored`]) and returns what the host must
//! save ([`Effects`]), so persistence stays in the host's callbacks and every rule here.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::Url;
use serde_json::Value;

use super::authorize::{authorization_url, AuthorizationRequest};
use super::client_assertion::SigningKey;
use super::discovery::discover;
use super::fetch::OAuthHttp;
use super::metadata::{AuthServerMetadata, DiscoveryState};
use super::options::OAuthLimits;
use super::pkce::{code_challenge, code_verifier, new_state};
use super::records::{json_bytes, ClientInformation, Tokens};
use super::token::Endpoints;
use super::token_exchange::{
    flow_id_token, request_id_jag, CrossAppAccess, GrantTarget, SecretText,
};
use super::OAuthError;

/// How the client is registered.
#[derive(Debug, Clone, PartialEq)]
pub enum Strategy {
    /// A pre-registered client.
    Static(ClientInformation),
    /// RFC 7591 dynamic registration with this client metadata (registered once, then the
    /// host's stored registration is used).
    Dcr(Value),
    /// The client credentials grant (an extension of the reference's strategies): no user,
    /// tokens straight from the token endpoint for this client.
    ClientCredentials(ClientCredentials),
    /// Cross-app access (SEP-990, an extension of the reference's strategies): no user, the
    /// user's ID token from the enterprise identity provider exchanged there for an ID-JAG,
    /// presented at the authorization server as a JWT bearer grant.
    CrossAppAccess(Box<CrossAppAccess>),
}

/// A client that authorizes with the client credentials grant.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientCredentials {
    /// Its id, and its secret when it authenticates with one.
    pub client: ClientInformation,
    /// Its key when it authenticates with `private_key_jwt`.
    pub key: Option<SigningKey>,
}

/// One OAuth client's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthConfig {
    /// The MCP server's URL.
    pub server_url: Url,
    /// The transport's `allowLoopbackHttp`.
    pub allow_loopback_http: bool,
    /// The resolved limits.
    pub limits: OAuthLimits,
    /// Client registration.
    pub strategy: Strategy,
    /// Scopes requested when neither the challenge nor the resource names any.
    pub scopes: Vec<String>,
    /// Where the authorization code comes back.
    pub redirect_uri: Option<String>,
    /// A Client ID Metadata Document URL (an extension of the reference's dynamic strategy):
    /// used as the client id, without registering, when the authorization server advertises
    /// `client_id_metadata_document_supported`.
    pub client_metadata_url: Option<Url>,
}

/// What the host's state callbacks returned.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stored {
    /// `loadTokens()`.
    pub tokens: Option<Tokens>,
    /// `loadDiscovery()`.
    pub discovery: Option<DiscoveryState>,
    /// `loadClientInformation()`.
    pub client: Option<ClientInformation>,
    /// `loadCodeVerifier()`.
    pub verifier: Option<String>,
}

/// What this run of the flow is for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    /// The code from the redirect (`finishAuth`).
    pub authorization_code: Option<String>,
    /// The scope a challenge asked for.
    pub scope: Option<String>,
    /// The challenge's `resource_metadata` URL.
    pub resource_metadata_url: Option<String>,
    /// Whether the host can send the user to an authorization URL (`onRedirectRequired`).
    pub can_redirect: bool,
    /// The host's clock (`options.now()`, milliseconds), when it has one: the discovery
    /// cache's age is then measured on it instead of the monotonic clock.
    pub now_ms: Option<f64>,
    /// The user's ID token for this flow (a cross-app access client), from the host.
    pub id_token: Option<SecretText>,
}

/// What the host must do, in this order: save each record present, clear the tokens, then
/// send the user to `redirect`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    /// `saveDiscovery()`.
    pub discovery: Option<DiscoveryState>,
    /// `saveClientInformation()`.
    pub client: Option<ClientInformation>,
    /// `saveCodeVerifier()`.
    pub verifier: Option<String>,
    /// `saveTokens()`.
    pub tokens: Option<Tokens>,
    /// `clear("tokens")`: the refresh token was refused.
    pub clear_tokens: bool,
    /// The authorization URL for `onRedirectRequired`; `None` when authorized.
    pub redirect: Option<String>,
}

/// One OAuth client: its configuration and its discovery cache.
#[derive(Debug)]
pub struct OAuthClient {
    config: OAuthConfig,
    cache: Mutex<Cache>,
}

#[derive(Debug, Default)]
struct Cache {
    loaded: bool,
    discovery: Option<Cached>,
}

/// A cached discovery and when it was cached, on both clocks.
#[derive(Debug)]
struct Cached {
    state: DiscoveryState,
    at: Instant,
    at_ms: Option<f64>,
}

impl Cached {
    fn new(state: DiscoveryState, now_ms: Option<f64>) -> Self {
        Self {
            state,
            at: Instant::now(),
            at_ms: now_ms,
        }
    }

    fn fresh(&self, ttl: Duration, now_ms: Option<f64>) -> bool {
        match (self.at_ms, now_ms) {
            (Some(at), Some(now)) => now - at < ttl.as_millis() as f64,
            _ => self.at.elapsed() < ttl,
        }
    }
}

/// Seconds since the epoch: the host's clock when it has one, else the system's.
fn now_secs(now_ms: Option<f64>) -> u64 {
    match now_ms {
        Some(ms) if ms.is_finite() && ms > 0.0 => (ms / 1000.0) as u64,
        _ => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    }
}

fn state_bytes_check(
    value: &impl serde::Serialize,
    label: &str,
    limit: u64,
) -> Result<(), OAuthError> {
    if json_bytes(value) > limit {
        return Err(OAuthError::state(format!("{label} exceeds {limit} bytes")));
    }
    Ok(())
}

impl OAuthClient {
    /// A client with an empty discovery cache.
    #[must_use]
    pub fn new(config: OAuthConfig) -> Self {
        Self {
            config,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &OAuthConfig {
        &self.config
    }

    /// The HTTP rules every request of this client obeys.
    #[must_use]
    pub fn http(&self) -> OAuthHttp {
        OAuthHttp {
            allow_loopback_http: self.config.allow_loopback_http,
            max_bytes: self.config.limits.discovery_bytes,
            timeout_ms: self.config.limits.handshake_timeout_ms,
        }
    }

    fn ttl(&self) -> Duration {
        Duration::from_millis(self.config.limits.discovery_cache_ttl_ms)
    }

    /// The cached discovery, if fresh; the host's stored one is taken into the cache once.
    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn cached(
        &self,
        stored: Option<&DiscoveryState>,
        now_ms: Option<f64>,
    ) -> Option<DiscoveryState> {
        let mut c = self.lock();
        if !c.loaded {
            c.loaded = true;
            if let Some(d) = stored {
                c.discovery = Some(Cached::new(d.clone(), now_ms));
            }
        }
        match &c.discovery {
            Some(d) if d.fresh(self.ttl(), now_ms) => Some(d.state.clone()),
            _ => None,
        }
    }

    fn remember(&self, d: &DiscoveryState, now_ms: Option<f64>) {
        self.lock().discovery = Some(Cached::new(d.clone(), now_ms));
    }

    /// The client whose id is the Client ID Metadata Document URL, when there is one and the
    /// authorization server (`metadata`) advertises `client_id_metadata_document_supported`.
    fn metadata_document_client(
        &self,
        metadata: Option<&AuthServerMetadata>,
    ) -> Option<ClientInformation> {
        let url = self.config.client_metadata_url.as_ref()?;
        metadata
            .filter(|m| m.supports_client_id_metadata_documents())
            .map(|_| ClientInformation {
                client_id: url.to_string(),
                ..ClientInformation::default()
            })
    }

    /// Forgets the cached discovery (after `clear`).
    pub fn forget_discovery(&self) {
        self.lock().discovery = None;
    }

    /// Discovery: the fresh cache, or a new discovery (checked, bounded, to be saved).
    async fn discovery(
        &self,
        stored: &Stored,
        req: &Request,
        fx: &mut Effects,
    ) -> Result<DiscoveryState, OAuthError> {
        if let Some(d) = self.cached(stored.discovery.as_ref(), req.now_ms) {
            return Ok(d);
        }
        let named = match req.resource_metadata_url.as_deref() {
            Some(u) => Some(Url::parse(u).map_err(|_| {
                OAuthError::discovery("the challenge's resource_metadata is not a URL")
            })?),
            None => None,
        };
        let d = discover(&self.http(), &self.config.server_url, named.as_ref()).await?;
        state_bytes_check(&d, "discovery state", self.config.limits.state_bytes)?;
        self.remember(&d, req.now_ms);
        fx.discovery = Some(d.clone());
        Ok(d)
    }

    /// Runs the flow once: `Ok(effects)` with `redirect: None` when authorized (tokens saved
    /// or exchanged), or with the authorization URL when the user must authorize.
    ///
    /// # Errors
    /// Any [`OAuthError`]; [`OAuthError::State`] when interaction is needed and the host
    /// cannot redirect, or a code arrives without its verifier.
    pub async fn authorize(&self, stored: &Stored, req: &Request) -> Result<Effects, OAuthError> {
        let limits = &self.config.limits;
        let mut fx = Effects::default();
        let discovery = self.discovery(stored, req, &mut fx).await?;
        let resource = discovery.check(&self.config.server_url)?;
        let as_url = Url::parse(&discovery.authorization_server_url)
            .map_err(|_| OAuthError::discovery("the authorization server URL is not a URL"))?;
        let metadata = discovery.authorization_server_metadata.as_ref();
        let ep = Endpoints {
            as_url: &as_url,
            metadata,
            record_bytes: limits.token_record_bytes,
        };
        let http = self.http();
        let scope = req
            .scope
            .clone()
            .or_else(|| {
                discovery
                    .resource_metadata
                    .as_ref()
                    .filter(|r| !r.scopes_supported.is_empty())
                    .map(|r| r.scopes_supported.join(" "))
            })
            .or_else(|| (!self.config.scopes.is_empty()).then(|| self.config.scopes.join(" ")));

        let client = match &self.config.strategy {
            Strategy::ClientCredentials(cc) => {
                if req.authorization_code.is_some() {
                    return Err(OAuthError::state(
                        "a client credentials client has no authorization code to exchange",
                    ));
                }
                let assertion = match &cc.key {
                    Some(key) => Some(key.assertion(
                        &cc.client.client_id,
                        &ep.assertion_audience(),
                        now_secs(req.now_ms),
                    )?),
                    None => None,
                };
                let t = ep
                    .client_credentials(
                        &http,
                        &cc.client,
                        assertion.as_deref(),
                        scope.as_deref(),
                        resource.as_deref(),
                    )
                    .await?;
                fx.tokens = Some(t);
                return Ok(fx);
            }
            Strategy::CrossAppAccess(xaa) => {
                if req.authorization_code.is_some() {
                    return Err(OAuthError::state(
                        "a cross-app access client has no authorization code to exchange",
                    ));
                }
                let id_token = flow_id_token(req.id_token.as_ref(), limits.token_record_bytes)?;
                let audience = ep.assertion_audience();
                // The identity provider must name the MCP server: its resource identifier, or
                // its URL when it publishes none.
                let target_resource = resource
                    .clone()
                    .unwrap_or_else(|| self.config.server_url.to_string());
                let jag = request_id_jag(
                    &http,
                    xaa,
                    id_token,
                    GrantTarget {
                        audience: &audience,
                        resource: &target_resource,
                        scope: scope.as_deref(),
                    },
                )
                .await?;
                let t = ep
                    .jwt_bearer(
                        &http,
                        &xaa.client,
                        jag.expose(),
                        scope.as_deref(),
                        resource.as_deref(),
                    )
                    .await?;
                fx.tokens = Some(t);
                return Ok(fx);
            }
            Strategy::Static(c) => c.clone(),
            Strategy::Dcr(_) if stored.client.is_some() => {
                stored.client.clone().unwrap_or_default()
            }
            Strategy::Dcr(client_metadata) => {
                if req.authorization_code.is_some() {
                    return Err(OAuthError::state(
                        "existing OAuth client information is required when exchanging an authorization code",
                    ));
                }
                let c = match self.metadata_document_client(metadata) {
                    Some(c) => c,
                    None => {
                        let mut m = client_metadata.clone();
                        if let (Some(s), Some(obj)) = (&scope, m.as_object_mut()) {
                            obj.entry("scope")
                                .or_insert_with(|| Value::String(s.clone()));
                        }
                        ep.register(&http, &m).await?
                    }
                };
                fx.client = Some(c.clone());
                c
            }
        };

        if let Some(code) = &req.authorization_code {
            let redirect_uri =
                self.config.redirect_uri.as_deref().ok_or_else(|| {
                    OAuthError::state("authorization code flow requires redirectUri")
                })?;
            let verifier = stored.verifier.as_deref().ok_or_else(|| {
                OAuthError::state("PKCE code verifier is missing from the auth round trip")
            })?;
            state_bytes_check(&verifier, "PKCE verifier", limits.state_bytes)?;
            let t = ep
                .exchange_code(
                    &http,
                    &client,
                    code,
                    verifier,
                    redirect_uri,
                    resource.as_deref(),
                )
                .await?;
            fx.tokens = Some(t);
            return Ok(fx);
        }

        if let Some(refresh) = stored
            .tokens
            .as_ref()
            .and_then(|t| t.refresh_token.as_deref())
        {
            match ep
                .refresh(&http, &client, refresh, resource.as_deref())
                .await
            {
                Ok(t) => {
                    fx.tokens = Some(t);
                    return Ok(fx);
                }
                // A refused refresh token: drop the tokens and authorize again.
                Err(e) if e.oauth_error().is_some() => fx.clear_tokens = true,
                Err(e) => return Err(e),
            }
        }

        let redirect_uri = self.config.redirect_uri.as_deref().filter(|_| req.can_redirect).ok_or_else(|| {
            OAuthError::state(
                "interactive authorization required; provide onRedirectRequired and complete finishAuth(authorizationCode)",
            )
        })?;
        let verifier = code_verifier()?;
        let state = new_state()?;
        let url = authorization_url(
            &as_url,
            metadata,
            &AuthorizationRequest {
                client_id: &client.client_id,
                redirect_uri,
                code_challenge: &code_challenge(&verifier),
                state: &state,
                scope: scope.as_deref(),
                resource: resource.as_deref(),
            },
            self.config.allow_loopback_http,
        )?;
        fx.verifier = Some(verifier);
        fx.redirect = Some(url.to_string());
        Ok(fx)
    }

    /// Revokes the stored tokens (the refresh token if there is one) at the discovered
    /// revocation endpoint, if any. The host then clears its tokens.
    ///
    /// # Errors
    /// [`OAuthError::TokenStore`] for a refusal; any transport error.
    pub async fn revoke(&self, stored: &Stored) -> Result<(), OAuthError> {
        let (Some(tokens), Some(d)) = (&stored.tokens, &stored.discovery) else {
            return Ok(());
        };
        let as_url = Url::parse(&d.authorization_server_url)
            .map_err(|_| OAuthError::discovery("the authorization server URL is not a URL"))?;
        let ep = Endpoints {
            as_url: &as_url,
            metadata: d.authorization_server_metadata.as_ref(),
            record_bytes: self.config.limits.token_record_bytes,
        };
        let (token, hint) = match &tokens.refresh_token {
            Some(r) => (r.as_str(), "refresh_token"),
            None => (tokens.access_token.as_str(), "access_token"),
        };
        let client = match &self.config.strategy {
            Strategy::Static(c) => Some(c),
            Strategy::ClientCredentials(cc) => Some(&cc.client),
            Strategy::CrossAppAccess(xaa) => Some(&xaa.client),
            Strategy::Dcr(_) => stored.client.as_ref(),
        };
        ep.revoke(&self.http(), client, token, hint)
            .await
            .map(|_| ())
    }
}
