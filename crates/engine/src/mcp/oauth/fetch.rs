//! Every OAuth request goes through [`OAuthHttp`]: the endpoint must be `https` (plaintext
//! `http` only to a loopback host with the loopback opt-in), every address its host resolves
//! to must be public (loopback only with the opt-in) and the connection is pinned to the
//! addresses that were checked; no redirect is followed, no proxy used, the body is read up to
//! `discoveryBytes` and the whole request ends at `handshakeTimeoutMs`.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use reqwest::Url;

use super::OAuthError;
use crate::limits::MCP_OAUTH_CHALLENGE_BYTES;
use crate::mcp::http::{build_client, check_address, is_loopback, is_loopback_host, HttpConfig};

/// One answer: its status, its `WWW-Authenticate` challenge and its whole (bounded) body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthResponse {
    /// The HTTP status.
    pub status: u16,
    /// The `WWW-Authenticate` header, if it is text within its byte bound.
    pub challenge: Option<String>,
    /// The body, at most `discoveryBytes`.
    pub body: Vec<u8>,
}

/// A request body.
pub enum Body<'a> {
    /// No body (a GET).
    None,
    /// `application/x-www-form-urlencoded` pairs.
    Form(&'a [(&'a str, &'a str)]),
    /// A JSON document.
    Json(&'a serde_json::Value),
}

/// The OAuth client's HTTP rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OAuthHttp {
    /// Allow plaintext `http` and loopback addresses (the transport's `allowLoopbackHttp`).
    pub allow_loopback_http: bool,
    /// `discoveryBytes`: the largest body read.
    pub max_bytes: u64,
    /// `handshakeTimeoutMs`: how long one request may take, connect to last byte.
    pub timeout_ms: u64,
}

/// Checks an endpoint URL before any connection: `http(s)`, no credentials, `https` unless
/// loopback is allowed and the host is a loopback host, an IP literal public (or allowed
/// loopback).
///
/// # Errors
/// [`OAuthError::Ssrf`] naming what is refused.
pub fn check_endpoint(url: &Url, allow_loopback_http: bool) -> Result<(), OAuthError> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err(OAuthError::ssrf(
            "OAuth endpoint URL must not contain credentials",
        ));
    }
    let Some(host) = url.host() else {
        return Err(OAuthError::ssrf("OAuth endpoint URL has no host"));
    };
    let loopback_host = is_loopback_host(&host);
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback_http && loopback_host => {}
        _ => {
            return Err(OAuthError::ssrf(format!(
                "OAuth endpoint {} must use https (plaintext http only to loopback with allowLoopbackHttp)",
                url.origin().ascii_serialization()
            )))
        }
    }
    let literal = match host {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        url::Host::Domain(_) => None,
    };
    if let Some(ip) = literal {
        check_ip(ip, allow_loopback_http)?;
    }
    Ok(())
}

fn check_ip(ip: IpAddr, allow_loopback_http: bool) -> Result<(), OAuthError> {
    check_address(ip, allow_loopback_http)
        .map_err(|_| OAuthError::ssrf(format!("OAuth endpoint address {ip} is not public")))
}

impl OAuthHttp {
    async fn resolve(&self, url: &Url) -> Result<Vec<SocketAddr>, OAuthError> {
        let Some(url::Host::Domain(domain)) = url.host() else {
            return Ok(Vec::new());
        };
        let port = url.port_or_known_default().unwrap_or(443);
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((domain, port))
            .await
            .map_err(|_| {
                OAuthError::discovery(format!("cannot resolve OAuth endpoint host {domain}"))
            })?
            .collect();
        if addrs.is_empty() {
            return Err(OAuthError::discovery(format!(
                "OAuth endpoint host {domain} has no addresses"
            )));
        }
        for a in &addrs {
            check_ip(a.ip(), self.allow_loopback_http)?;
            if url.scheme() == "http" && !is_loopback(a.ip()) {
                return Err(OAuthError::ssrf(
                    "plaintext http is allowed only to loopback addresses",
                ));
            }
        }
        Ok(addrs)
    }

    /// Sends one request under every rule and reads the answer whole (within `max_bytes`).
    /// `what` names the request in errors (`protected resource metadata`, `token request`).
    ///
    /// # Errors
    /// [`OAuthError::Ssrf`] for a refused endpoint or address; [`OAuthError::Discovery`] for a
    /// connection failure, a redirect, a timeout or a body over `max_bytes`.
    pub async fn send(
        &self,
        what: &str,
        url: &Url,
        body: Body<'_>,
        basic: Option<&HeaderValue>,
    ) -> Result<OAuthResponse, OAuthError> {
        check_endpoint(url, self.allow_loopback_http)?;
        let pinned = self.resolve(url).await?;
        let cfg = HttpConfig {
            url: url.to_string(),
            allow_loopback_http: self.allow_loopback_http,
            ..HttpConfig::default()
        };
        let client = build_client(url, &pinned, &cfg)
            .map_err(|_| OAuthError::discovery(format!("{what}: cannot build the HTTP client")))?;
        let timeout = Duration::from_millis(self.timeout_ms);
        let mut req = match body {
            Body::None => client.get(url.clone()),
            Body::Form(pairs) => client
                .post(url.clone())
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(form_encode(pairs)),
            Body::Json(v) => client
                .post(url.clone())
                .header(CONTENT_TYPE, "application/json")
                .body(v.to_string()),
        }
        .header(ACCEPT, "application/json")
        .timeout(timeout);
        if let Some(b) = basic {
            req = req.header(AUTHORIZATION, b.clone());
        }
        let origin = url.origin().ascii_serialization();
        let fut = async {
            let resp = req.send().await.map_err(|e| {
                OAuthError::discovery(if e.is_timeout() {
                    format!("{what} at {origin} timed out after {}ms", self.timeout_ms)
                } else {
                    format!("{what} at {origin} failed: cannot connect")
                })
            })?;
            let status = resp.status().as_u16();
            if resp.status().is_redirection() {
                return Err(OAuthError::discovery(format!(
                    "{what} at {origin} answered a redirect (HTTP {status}); redirects are not followed"
                )));
            }
            let challenge = resp
                .headers()
                .get(WWW_AUTHENTICATE)
                .filter(|v| v.len() <= MCP_OAUTH_CHALLENGE_BYTES)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            if resp.content_length().is_some_and(|n| n > self.max_bytes) {
                return Err(too_large(what, self.max_bytes));
            }
            let mut body = Vec::new();
            let mut stream = resp.bytes_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|_| {
                    OAuthError::discovery(format!("{what} at {origin}: the body could not be read"))
                })?;
                if (body.len() + chunk.len()) as u64 > self.max_bytes {
                    return Err(too_large(what, self.max_bytes));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(OAuthResponse {
                status,
                challenge,
                body,
            })
        };
        tokio::time::timeout(timeout, fut).await.map_err(|_| {
            OAuthError::discovery(format!(
                "{what} at {origin} timed out after {}ms",
                self.timeout_ms
            ))
        })?
    }
}

fn too_large(what: &str, max: u64) -> OAuthError {
    OAuthError::discovery(format!("{what} exceeds discoveryBytes ({max} bytes)"))
}

/// `application/x-www-form-urlencoded` encoding of `pairs`.
#[must_use]
pub fn form_encode(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}
