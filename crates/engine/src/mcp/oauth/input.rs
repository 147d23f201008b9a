//! The OAuth client's options, stored state and requests as the binding hands them over (JSON
//! text), read into the flow's types; every stored record checked against its bound before use.

use reqwest::Url;
use serde_json::{Map, Value};

use super::client_assertion::SigningKey;
use super::fetch::check_endpoint;
use super::flow::{ClientCredentials, Effects, OAuthConfig, Request, Stored, Strategy};
use super::metadata::DiscoveryState;
use super::options::{OAuthLimits, OAuthLimitsInput};
use super::records::{json_bytes, ClientInformation};
use super::token_exchange::{CrossAppAccess, SecretText};
use super::OAuthError;

fn object(text: &str, what: &str) -> Result<Map<String, Value>, OAuthError> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(OAuthError::state(format!("{what} must be an object"))),
    }
}

fn string(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The strategies there are.
const STRATEGY_KINDS: &str = "auth.strategy must be { kind: \"static\" }, { kind: \"dcr\" }, { kind: \"client_credentials\" } or { kind: \"cross_app_access\" }";

/// The strategy's client: `clientId` (non-empty) and `clientSecret`, if any.
fn strategy_client(m: &Map<String, Value>) -> Result<ClientInformation, OAuthError> {
    Ok(ClientInformation {
        client_id: string(m, "clientId")
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                OAuthError::state("auth.strategy.clientId must be a non-empty string")
            })?,
        client_secret: string(m, "clientSecret"),
        ..ClientInformation::default()
    })
}

/// A client credentials strategy: `clientId`, and `clientSecret` or `privateKeyPem` (with
/// `signingAlgorithm`, `ES256` only).
fn client_credentials(m: &Map<String, Value>) -> Result<ClientCredentials, OAuthError> {
    let client = strategy_client(m)?;
    let key = match string(m, "privateKeyPem") {
        Some(pem) => Some(SigningKey::from_pem(
            &pem,
            string(m, "signingAlgorithm").as_deref(),
        )?),
        None => None,
    };
    if key.is_some() == client.client_secret.is_some() {
        return Err(OAuthError::state(
            "auth.strategy for client_credentials needs clientSecret or privateKeyPem (one of them)",
        ));
    }
    Ok(ClientCredentials { client, key })
}

/// A cross-app access strategy: `clientId` (and `clientSecret`) at the authorization server,
/// `idpTokenEndpoint` (checked as every OAuth endpoint is), `idpClientId` (and
/// `idpClientSecret`) at the identity provider if it has one, and `idTokenType`, the type of
/// the host's `idToken` (a string, or a function the facade calls per flow): the ID token
/// itself comes with each request, never with the options.
fn cross_app_access(
    m: &Map<String, Value>,
    allow_loopback_http: bool,
) -> Result<CrossAppAccess, OAuthError> {
    let client = strategy_client(m)?;
    let idp_token_endpoint = string(m, "idpTokenEndpoint")
        .and_then(|u| Url::parse(&u).ok())
        .ok_or_else(|| OAuthError::state("auth.strategy.idpTokenEndpoint must be a URL"))?;
    check_endpoint(&idp_token_endpoint, allow_loopback_http)?;
    if !matches!(
        m.get("idTokenType").and_then(Value::as_str),
        Some("string" | "function")
    ) {
        return Err(OAuthError::state(
            "auth.strategy.idToken must be a string or a function returning a promise of one",
        ));
    }
    let idp_client = string(m, "idpClientId")
        .filter(|s| !s.is_empty())
        .map(|client_id| ClientInformation {
            client_id,
            client_secret: string(m, "idpClientSecret"),
            ..ClientInformation::default()
        });
    Ok(CrossAppAccess {
        client,
        idp_token_endpoint,
        idp_client,
    })
}

/// Reads `{ serverUrl, allowLoopbackHttp, strategy, scopes, redirectUri, limits }` (a dynamic
/// `strategy` may carry `clientMetadataUrl`, a Client ID Metadata Document URL). A limit
/// that is not a number counts as `NaN` (refused by its check).
///
/// # Errors
/// [`OAuthError::State`] for a missing or malformed option; [`OAuthError::Limit`] for a
/// limit out of range.
pub fn read_config(text: &str) -> Result<OAuthConfig, OAuthError> {
    let m = object(text, "OAuth client options")?;
    let limits = m.get("limits").and_then(Value::as_object);
    let input = OAuthLimitsInput::from_named(|name| {
        limits
            .and_then(|l| l.get(name))
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
    });
    let limits = OAuthLimits::resolve(&input)?;
    let server_url = string(&m, "serverUrl")
        .and_then(|u| Url::parse(&u).ok())
        .ok_or_else(|| OAuthError::state("the MCP server URL is not a URL"))?;
    let allow_loopback_http = m
        .get("allowLoopbackHttp")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let strategy_object = m
        .get("strategy")
        .and_then(Value::as_object)
        .ok_or_else(|| OAuthError::state(STRATEGY_KINDS))?;
    let strategy = match strategy_object.get("kind").and_then(Value::as_str) {
        Some("static") => Strategy::Static(strategy_client(strategy_object)?),
        Some("dcr") => Strategy::Dcr(
            strategy_object
                .get("clientMetadata")
                .filter(|v| v.is_object())
                .cloned()
                .ok_or_else(|| {
                    OAuthError::state("auth.strategy.clientMetadata must be an object")
                })?,
        ),
        Some("client_credentials") => {
            Strategy::ClientCredentials(client_credentials(strategy_object)?)
        }
        Some("cross_app_access") => Strategy::CrossAppAccess(Box::new(cross_app_access(
            strategy_object,
            allow_loopback_http,
        )?)),
        _ => return Err(OAuthError::state(STRATEGY_KINDS)),
    };
    let client_metadata_url = match (&strategy, strategy_object.get("clientMetadataUrl")) {
        (Strategy::Dcr(_), Some(v)) if !v.is_null() => Some(metadata_document_url(v)?),
        _ => None,
    };
    let scopes = m
        .get("scopes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Ok(OAuthConfig {
        server_url,
        allow_loopback_http,
        limits,
        strategy,
        scopes,
        redirect_uri: string(&m, "redirectUri"),
        client_metadata_url,
    })
}

/// A Client ID Metadata Document URL: https with a path (the document's own URL is the id).
fn metadata_document_url(v: &Value) -> Result<Url, OAuthError> {
    v.as_str()
        .and_then(|u| Url::parse(u).ok())
        .filter(|u| u.scheme() == "https" && u.path() != "/")
        .ok_or_else(|| {
            OAuthError::state("auth.strategy.clientMetadataUrl must be an https URL with a path")
        })
}

fn record<T: serde::de::DeserializeOwned>(
    m: &Map<String, Value>,
    key: &str,
    limit: u64,
    label: &str,
    over: fn(String) -> OAuthError,
) -> Result<Option<T>, OAuthError> {
    let Some(v) = m.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    if json_bytes(v) > limit {
        return Err(over(format!("{label} exceeds {limit} bytes")));
    }
    serde_json::from_value(v.clone())
        .map(Some)
        .map_err(|_| over(format!("stored {label} is malformed")))
}

/// Reads what the host's state callbacks returned: `{ tokens, discovery, client, verifier }`,
/// each bounded (`tokenRecordBytes` for tokens and client records, `stateBytes` for the
/// discovery state and the verifier).
///
/// # Errors
/// [`OAuthError::TokenStore`] or [`OAuthError::State`] for a record out of bounds or malformed.
pub fn read_stored(text: &str, limits: &OAuthLimits) -> Result<Stored, OAuthError> {
    let m = object(text, "stored OAuth state")?;
    let (records, state) = (limits.token_record_bytes, limits.state_bytes);
    Ok(Stored {
        tokens: record(
            &m,
            "tokens",
            records,
            "token record",
            OAuthError::token_store,
        )?,
        client: record(
            &m,
            "client",
            records,
            "client registration record",
            OAuthError::token_store,
        )?,
        discovery: record::<DiscoveryState>(
            &m,
            "discovery",
            state,
            "discovery state",
            OAuthError::state,
        )?,
        verifier: record(&m, "verifier", state, "PKCE verifier", OAuthError::state)?,
    })
}

/// Reads `{ authorizationCode, scope, resourceMetadataUrl, canRedirect, nowMs, idToken }`
/// (`idToken`: a cross-app access client's ID token for this flow, if a string).
///
/// # Errors
/// [`OAuthError::State`] if the text is not an object.
pub fn read_request(text: &str) -> Result<Request, OAuthError> {
    let m = object(text, "OAuth request")?;
    Ok(Request {
        authorization_code: string(&m, "authorizationCode"),
        scope: string(&m, "scope"),
        resource_metadata_url: string(&m, "resourceMetadataUrl"),
        can_redirect: m
            .get("canRedirect")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        now_ms: m
            .get("nowMs")
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite()),
        id_token: string(&m, "idToken").map(SecretText::new),
    })
}

/// The effects as JSON for the facade: `{ discovery?, client?, verifier?, tokens?,
/// clearTokens, redirect? }`.
#[must_use]
pub fn effects_json(fx: &Effects) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            m.insert(k.to_owned(), v);
        }
    };
    put(
        "discovery",
        fx.discovery
            .as_ref()
            .and_then(|d| serde_json::to_value(d).ok()),
    );
    put(
        "client",
        fx.client
            .as_ref()
            .and_then(|c| serde_json::to_value(c).ok()),
    );
    put("verifier", fx.verifier.clone().map(Value::String));
    put(
        "tokens",
        fx.tokens
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok()),
    );
    put("redirect", fx.redirect.clone().map(Value::String));
    m.insert("clearTokens".to_owned(), Value::Bool(fx.clear_tokens));
    Value::Object(m)
}
