//! The `fetch` under a host's JS SDK transport (`createMcpTransport`, `createMcpOAuthTransport`):
//! every request the SDK's Streamable HTTP client makes (POST, the GET stream, DELETE) goes
//! through the bridge's HTTP rules. The endpoint is checked as `connectMcpTools` checks it; a
//! request must be to the endpoint's own origin, must not set `Host`, is sent over a client
//! pinned to the addresses checked at the first request (public, or loopback by opt-in), with no
//! redirect followed and no proxy; a response body is read at most `maxResponseBytes` in all.

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use reqwest::{Method, Url};
use tokio::sync::OnceCell;

use std::sync::Arc;

use super::host_requests::HostCallbacks;
use super::http::{build_client, resolve_and_check, validate_url, HttpConfig};
use super::McpError;

/// One request of the SDK's transport.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchRequest {
    /// `GET`, `POST` or `DELETE`.
    pub method: String,
    /// The URL, which must be on the endpoint's origin.
    pub url: String,
    /// The request's headers, as `[name, value]` pairs.
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
}

/// A response's status and headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchHead {
    /// The HTTP status.
    pub status: u16,
    /// The headers that are text, as `[name, value]` pairs.
    pub headers: Vec<(String, String)>,
}

/// A response's body, read chunk by chunk within the byte bound.
pub struct FetchBody {
    chunks: BoxStream<'static, reqwest::Result<Bytes>>,
    read: u64,
    max: u64,
}

impl std::fmt::Debug for FetchBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchBody")
            .field("read", &self.read)
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

fn transport(message: impl Into<String>) -> McpError {
    McpError::Transport {
        message: message.into(),
    }
}

impl FetchBody {
    /// The next chunk, `None` at the end.
    ///
    /// # Errors
    /// The body went past `maxResponseBytes`, or the connection broke.
    pub async fn next(&mut self) -> Result<Option<Bytes>, McpError> {
        let Some(chunk) = self.chunks.next().await else {
            return Ok(None);
        };
        let chunk = chunk.map_err(|e| transport(super::http_client::error_chain(&e)))?;
        self.read = self.read.saturating_add(chunk.len() as u64);
        if self.read > self.max {
            return Err(McpError::MessageTooLarge { limit: self.max });
        }
        Ok(Some(chunk))
    }
}

/// The fetch of one transport configuration.
pub struct SdkFetch {
    cfg: HttpConfig,
    endpoint: Url,
    client: OnceCell<reqwest::Client>,
    /// The host's `resolveHostname`, if it gave one.
    resolver: Option<Arc<dyn HostCallbacks>>,
}

impl std::fmt::Debug for SdkFetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SdkFetch")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

/// The methods the SDK's Streamable HTTP client uses.
const METHODS: [&str; 3] = ["GET", "POST", "DELETE"];

impl SdkFetch {
    /// The fetch for `cfg`, whose endpoint is checked as `connectMcpTools` checks it; the
    /// endpoint's host name is resolved by `resolver` (the host's) when given.
    ///
    /// # Errors
    /// What [`validate_url`] refuses.
    pub fn new(
        cfg: HttpConfig,
        resolver: Option<Arc<dyn HostCallbacks>>,
    ) -> Result<Self, McpError> {
        let endpoint = validate_url(&cfg)?;
        Ok(Self {
            cfg,
            endpoint,
            client: OnceCell::new(),
            resolver,
        })
    }

    /// The request's URL, checked: on the endpoint's origin, no credentials, no fragment.
    fn checked_url(&self, url: &str) -> Result<Url, McpError> {
        let url = Url::parse(url).map_err(|_| transport("invalid MCP HTTP request URL"))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(transport("MCP HTTP URL must not contain credentials"));
        }
        if url.fragment().is_some() {
            return Err(transport("MCP HTTP URL must not contain a fragment"));
        }
        let origin = url.origin().ascii_serialization();
        if origin != self.endpoint.origin().ascii_serialization() {
            return Err(transport(format!(
                "MCP HTTP request origin {origin} does not match the configured endpoint"
            )));
        }
        Ok(url)
    }

    /// The pinned client, made at the first request (the endpoint's addresses resolved and
    /// checked then, and kept for the transport's life).
    async fn client(&self) -> Result<&reqwest::Client, McpError> {
        self.client
            .get_or_try_init(|| async {
                let pinned =
                    resolve_and_check(&self.endpoint, &self.cfg, self.resolver.as_deref()).await?;
                build_client(&self.endpoint, &pinned, &self.cfg)
            })
            .await
    }

    /// Sends `request`; resolves with the response's head and its body.
    ///
    /// # Errors
    /// A refused URL, method or header, an address that is not public, a redirect (never
    /// followed), or a connection failure.
    pub async fn send(&self, request: FetchRequest) -> Result<(FetchHead, FetchBody), McpError> {
        let url = self.checked_url(&request.url)?;
        let method = request.method.to_ascii_uppercase();
        if !METHODS.contains(&method.as_str()) {
            return Err(transport(format!(
                "MCP HTTP method {} is not used by the transport",
                super::content::truncate_utf8(&method, 16)
            )));
        }
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| transport("invalid MCP HTTP method"))?;
        let mut builder = self.client().await?.request(method, url);
        for (name, value) in &request.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| transport("invalid MCP HTTP request header name"))?;
            if name == reqwest::header::HOST {
                return Err(transport("MCP HTTP requests must not override Host"));
            }
            let value = HeaderValue::from_str(value).map_err(|_| {
                transport(format!("invalid value for MCP HTTP request header {name}"))
            })?;
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let response = builder
            .send()
            .await
            .map_err(|e| transport(super::http_client::error_chain(&e)))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(transport(format!(
                "the server answered HTTP {} (a redirect, which is not followed)",
                status.as_u16()
            )));
        }
        let headers = response
            .headers()
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let head = FetchHead {
            status: status.as_u16(),
            headers,
        };
        let body = FetchBody {
            chunks: response.bytes_stream().boxed(),
            read: 0,
            max: self.cfg.max_response_bytes,
        };
        Ok((head, body))
    }
}
