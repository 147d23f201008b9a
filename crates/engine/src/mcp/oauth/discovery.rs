//! Discovery: the protected-resource metadata (RFC 9728) from the challenge's
//! `resource_metadata` or the well-known paths, the authorization server's metadata (RFC 8414
//! and OpenID Connect Discovery, with the path-aware forms first), and the checks that bind
//! them: the issuer on the origin it was found at, the resource on the MCP server's origin.

use reqwest::Url;

use super::fetch::{Body, OAuthHttp};
use super::metadata::{parse_document, AuthServerMetadata, DiscoveryState, ResourceMetadata};
use super::OAuthError;

const PRM: &str = "oauth-protected-resource";

/// A discovery document that failed with a status other than 2xx or 4xx.
fn server_error(status: u16, what: &str, url: &Url) -> OAuthError {
    OAuthError::discovery(format!(
        "HTTP {status} loading {what} from {}",
        url.origin().ascii_serialization()
    ))
}

fn join(origin: &Url, path: &str) -> Result<Url, OAuthError> {
    origin
        .join(path)
        .map_err(|_| OAuthError::discovery("cannot build a discovery URL"))
}

/// The protected-resource metadata URLs to try for `server`, in order: the path-aware form
/// (`/.well-known/oauth-protected-resource/<path>`), then the root form.
///
/// # Errors
/// [`OAuthError::Discovery`] if a URL cannot be built.
pub fn resource_metadata_urls(server: &Url) -> Result<Vec<Url>, OAuthError> {
    let path = server.path().trim_end_matches('/');
    let mut out = Vec::with_capacity(2);
    if !path.is_empty() {
        let mut u = join(server, &format!("/.well-known/{PRM}{path}"))?;
        u.set_query(server.query());
        out.push(u);
    }
    out.push(join(server, &format!("/.well-known/{PRM}"))?);
    Ok(out)
}

/// The authorization-server metadata URLs to try for `issuer`, in order (the MCP SDK's):
/// without a path, RFC 8414's then OpenID's well-known document at the root; with a path,
/// RFC 8414's path-aware form, OpenID's path-aware form, then OpenID's appended form.
///
/// # Errors
/// [`OAuthError::Discovery`] if a URL cannot be built.
pub fn auth_server_metadata_urls(issuer: &Url) -> Result<Vec<Url>, OAuthError> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return Ok(vec![
            join(issuer, "/.well-known/oauth-authorization-server")?,
            join(issuer, "/.well-known/openid-configuration")?,
        ]);
    }
    Ok(vec![
        join(
            issuer,
            &format!("/.well-known/oauth-authorization-server{path}"),
        )?,
        join(issuer, &format!("/.well-known/openid-configuration{path}"))?,
        join(issuer, &format!("{path}/.well-known/openid-configuration"))?,
    ])
}

/// Fetches the protected-resource metadata: from `named` (a challenge's `resource_metadata`)
/// if given, else the well-known URLs, moving on after a 4xx. `None` if the server publishes
/// none (the caller falls back to the server's origin as the authorization server).
///
/// # Errors
/// [`OAuthError::Ssrf`] for a refused endpoint; [`OAuthError::Discovery`] for a 5xx, a
/// transport failure or a document that is not metadata.
pub async fn fetch_resource_metadata(
    http: &OAuthHttp,
    server: &Url,
    named: Option<&Url>,
) -> Result<Option<ResourceMetadata>, OAuthError> {
    let urls = match named {
        Some(u) => vec![u.clone()],
        None => resource_metadata_urls(server)?,
    };
    for url in &urls {
        let r = http
            .send("protected resource metadata", url, Body::None, None)
            .await?;
        match r.status {
            200..=299 => {
                return parse_document("protected resource metadata", &r.body).map(Some);
            }
            400..=499 => continue,
            s => return Err(server_error(s, "protected resource metadata", url)),
        }
    }
    Ok(None)
}

/// Fetches the authorization server's metadata from the first well-known URL that answers
/// 2xx, moving on after a 4xx; `None` if none does (legacy endpoints then apply).
///
/// # Errors
/// As [`fetch_resource_metadata`]; [`OAuthError::Origin`] if the issuer is on another origin.
pub async fn fetch_auth_server_metadata(
    http: &OAuthHttp,
    issuer: &Url,
) -> Result<Option<AuthServerMetadata>, OAuthError> {
    for url in auth_server_metadata_urls(issuer)? {
        let r = http
            .send("authorization server metadata", &url, Body::None, None)
            .await?;
        match r.status {
            200..=299 => {
                let m: AuthServerMetadata =
                    parse_document("authorization server metadata", &r.body)?;
                check_issuer(issuer, &m)?;
                return Ok(Some(m));
            }
            400..=499 => continue,
            s => return Err(server_error(s, "authorization server metadata", &url)),
        }
    }
    Ok(None)
}

/// RFC 8414 coherence: the metadata's `issuer` (when present) is on `as_url`'s origin.
///
/// # Errors
/// [`OAuthError::Origin`].
pub fn check_issuer(as_url: &Url, m: &AuthServerMetadata) -> Result<(), OAuthError> {
    let Some(issuer) = &m.issuer else {
        return Ok(());
    };
    let Ok(parsed) = Url::parse(issuer) else {
        return Err(OAuthError::Origin {
            issuer: "(not a URL)".to_owned(),
        });
    };
    let origin = parsed.origin().ascii_serialization();
    if origin != as_url.origin().ascii_serialization() {
        return Err(OAuthError::Origin { issuer: origin });
    }
    Ok(())
}

/// RFC 8707: the resource the metadata names must be on the MCP server's origin; it is the
/// resource indicator sent with every authorization and token request, verbatim.
///
/// # Errors
/// [`OAuthError::Audience`] for an invalid URL or a foreign origin.
pub fn check_resource(server: &Url, m: &ResourceMetadata) -> Result<Option<String>, OAuthError> {
    let Some(resource) = &m.resource else {
        return Ok(None);
    };
    let parsed = Url::parse(resource).map_err(|_| OAuthError::Audience {
        message: "protected resource metadata declared an invalid resource URL".to_owned(),
    })?;
    let origin = parsed.origin().ascii_serialization();
    if origin != server.origin().ascii_serialization() {
        return Err(OAuthError::Audience {
            message: format!(
                "protected resource {origin} does not match the MCP server origin (confused-deputy denial)"
            ),
        });
    }
    Ok(Some(resource.clone()))
}

impl DiscoveryState {
    /// Re-checks a state (fresh or persisted): the resource on the server's origin, the issuer
    /// on the authorization server's origin. Returns the resource indicator to send.
    ///
    /// # Errors
    /// [`OAuthError::Audience`], [`OAuthError::Origin`], or [`OAuthError::Discovery`] for an
    /// authorization server URL that is not a URL.
    pub fn check(&self, server: &Url) -> Result<Option<String>, OAuthError> {
        let as_url = Url::parse(&self.authorization_server_url)
            .map_err(|_| OAuthError::discovery("the authorization server URL is not a URL"))?;
        if let Some(m) = &self.authorization_server_metadata {
            check_issuer(&as_url, m)?;
        }
        match &self.resource_metadata {
            Some(r) => check_resource(server, r),
            None => Ok(None),
        }
    }
}

/// Runs discovery for `server`: resource metadata (from `named` or the well-known paths), its
/// first authorization server (or the server's origin), that server's metadata; every check
/// applied.
///
/// # Errors
/// Any [`OAuthError`] of the steps.
pub async fn discover(
    http: &OAuthHttp,
    server: &Url,
    named: Option<&Url>,
) -> Result<DiscoveryState, OAuthError> {
    let resource_metadata = fetch_resource_metadata(http, server, named).await?;
    if let Some(r) = &resource_metadata {
        check_resource(server, r)?;
    }
    let as_text = resource_metadata
        .as_ref()
        .and_then(|r| r.authorization_servers.first().cloned());
    let as_url = match &as_text {
        Some(t) => Url::parse(t).map_err(|_| {
            OAuthError::discovery(
                "protected resource metadata names an invalid authorization server",
            )
        })?,
        None => join(server, "/")?,
    };
    let authorization_server_metadata = fetch_auth_server_metadata(http, &as_url).await?;
    Ok(DiscoveryState {
        authorization_server_url: as_text.unwrap_or_else(|| as_url.to_string()),
        resource_metadata_url: named.map(ToString::to_string),
        resource_metadata,
        authorization_server_metadata,
    })
}
