//! The Streamable HTTP transport: URL and origin checks, address classes, DNS pinning and a
//! bounded reqwest client over rustls with the `ring` provider.
//!
//! Enforced: the URL's exact origin must be in `allowedOrigins` (1 to 64 entries, each exactly
//! an origin); no credentials and no fragment; `https` only, except plaintext `http` to a
//! loopback host (`localhost`, `*.localhost`, a loopback address) with `allowLoopbackHttp`; every resolved address must be public (loopback only with
//! `allowLoopbackHttp`), and the connection is pinned to the addresses that were checked.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Once;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;

use super::McpError;
use crate::limits::MCP_MAX_ALLOWED_ORIGINS;

/// A Streamable HTTP server's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpConfig {
    /// The endpoint URL.
    pub url: String,
    /// Exact origins the URL may have (1 to 64).
    pub allowed_origins: Vec<String>,
    /// Allow plaintext `http` and loopback addresses (default false).
    pub allow_loopback_http: bool,
    /// Bytes of one response body or SSE event (default 16 MiB, hard 64 MiB).
    pub max_response_bytes: u64,
    /// Extra request headers (from `requestInit.headers`).
    pub headers: Vec<(String, String)>,
}

fn invalid(message: impl Into<String>) -> McpError {
    McpError::InvalidTransport {
        message: message.into(),
    }
}

/// The IPv4 address an IPv6 address carries and routes to: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`, deprecated but still routed by some stacks) and NAT64
/// (`64:ff9b::/96`, the well-known prefix, and `64:ff9b:1::/48`, the local-use prefix, whose
/// last 32 bits are the IPv4 address). `::` and `::1` are not IPv4-compatible forms.
#[must_use]
pub fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let o = ip.octets();
    let low = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    let compatible = s[..6].iter().all(|x| *x == 0) && !ip.is_unspecified() && !ip.is_loopback();
    let nat64_wkp = s[0] == 0x64 && s[1] == 0xff9b && s[2..6].iter().all(|x| *x == 0);
    let nat64_local = s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1;
    (compatible || nat64_wkp || nat64_local).then_some(low)
}

/// Whether `ip` is loopback (127/8, ::1, or an IPv6 form of a loopback IPv4 address).
#[must_use]
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback() || embedded_ipv4(v6).is_some_and(|v4| v4.is_loopback()),
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..=127).contains(&b)) // shared address space
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240
}

fn is_private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_ipv4(ip) {
        return is_private_v4(v4);
    }
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link local
        || first == 0x2001 && ip.segments()[1] == 0x0db8 // documentation
}

/// Whether `ip` is not a public unicast address.
#[must_use]
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => is_private_v6(v6),
    }
}

/// Refuses an address that is private, unless it is loopback and loopback is allowed.
///
/// # Errors
/// [`McpError::NotPublic`].
pub fn check_address(ip: IpAddr, allow_loopback: bool) -> Result<(), McpError> {
    if is_private(ip) && !(allow_loopback && is_loopback(ip)) {
        return Err(McpError::NotPublic {
            address: ip.to_string(),
        });
    }
    Ok(())
}

/// Whether a URL's host names this machine's loopback interface: `localhost`, a name under
/// `.localhost` (RFC 6761), or a loopback address.
#[must_use]
pub fn is_loopback_host(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        url::Host::Ipv4(ip) => is_loopback(IpAddr::V4(*ip)),
        url::Host::Ipv6(ip) => is_loopback(IpAddr::V6(*ip)),
    }
}

/// Checks one `allowedOrigins` entry: exactly an origin (scheme, host, optional port; no
/// path, not even `/`, no credentials), over `https`, or plaintext `http` to a loopback host
/// with `allowLoopbackHttp`.
fn check_allowed_origin(entry: &str, allow_loopback_http: bool) -> Result<(), McpError> {
    let u = Url::parse(entry).map_err(|_| {
        invalid(format!(
            "allowedOrigins entry {entry} is not a valid origin"
        ))
    })?;
    if u.origin().ascii_serialization() != entry {
        return Err(invalid(format!(
            "allowedOrigins entry {entry} is not an exact origin (scheme, host and optional port only)"
        )));
    }
    let loopback_http = allow_loopback_http
        && u.scheme() == "http"
        && u.host().is_some_and(|h| is_loopback_host(&h));
    if u.scheme() != "https" && !loopback_http {
        return Err(invalid(format!(
            "allowedOrigins entry {entry} must use https (plaintext http only for a loopback host with allowLoopbackHttp)"
        )));
    }
    Ok(())
}

/// Checks the URL against the configuration (everything but DNS).
///
/// # Errors
/// [`McpError::InvalidTransport`] naming what is wrong, or [`McpError::NotPublic`] for an IP
/// literal.
pub fn validate_url(cfg: &HttpConfig) -> Result<Url, McpError> {
    let url = Url::parse(&cfg.url).map_err(|_| invalid("Invalid MCP HTTP URL"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("MCP server URL must not contain credentials"));
    }
    if url.fragment().is_some() {
        return Err(invalid("MCP server URL must not contain a fragment"));
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "MCP HTTP URL must use https: (got {}:)",
            url.scheme()
        )));
    }
    if cfg.allowed_origins.is_empty() || cfg.allowed_origins.len() > MCP_MAX_ALLOWED_ORIGINS {
        return Err(invalid(format!(
            "allowedOrigins must list 1 to {MCP_MAX_ALLOWED_ORIGINS} origins"
        )));
    }
    for a in &cfg.allowed_origins {
        check_allowed_origin(a, cfg.allow_loopback_http)?;
    }
    let origin = url.origin().ascii_serialization();
    if !cfg.allowed_origins.contains(&origin) {
        return Err(invalid(format!(
            "MCP server origin {origin} is not in allowedOrigins"
        )));
    }
    let host_ip = match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        Some(url::Host::Domain(_)) => None,
        None => return Err(invalid("MCP server URL has no host")),
    };
    match url.scheme() {
        "https" => {}
        "http" if cfg.allow_loopback_http && url.host().is_some_and(|h| is_loopback_host(&h)) => {}
        _ => {
            return Err(invalid(
                "MCP server URL must use https (plaintext http only to loopback with allowLoopbackHttp)",
            ))
        }
    }
    if let Some(ip) = host_ip {
        check_address(ip, cfg.allow_loopback_http)?;
    }
    Ok(url)
}

/// Resolves the host once (with the host's `resolver` when it gave one, else the system's),
/// checks every address, and returns the addresses to pin.
///
/// # Errors
/// [`McpError::NotPublic`] for any private address, [`McpError::Connect`] if resolution fails.
pub async fn resolve_and_check(
    url: &Url,
    cfg: &HttpConfig,
    resolver: Option<&dyn super::host_requests::HostCallbacks>,
) -> Result<Vec<SocketAddr>, McpError> {
    let Some(url::Host::Domain(domain)) = url.host() else {
        return Ok(Vec::new());
    };
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<SocketAddr> = match resolver {
        Some(host) => super::host_resolver::resolve(host, domain)
            .await?
            .into_iter()
            .map(|ip| SocketAddr::new(ip, port))
            .collect(),
        None => tokio::net::lookup_host((domain, port))
            .await
            .map_err(|e| McpError::Connect {
                message: format!("cannot resolve {domain}: {e}"),
            })?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(McpError::Connect {
            message: format!("{domain} has no addresses"),
        });
    }
    for a in &addrs {
        check_address(a.ip(), cfg.allow_loopback_http)?;
        if url.scheme() == "http" && !is_loopback(a.ip()) {
            return Err(invalid(
                "plaintext http is allowed only to loopback addresses",
            ));
        }
    }
    Ok(addrs)
}

fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Fails only if another provider is already installed, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The reqwest client: pinned addresses, host headers, no redirects, no proxies.
///
/// # Errors
/// [`McpError::InvalidTransport`] for a header that is not valid HTTP.
pub fn build_client(
    url: &Url,
    pinned: &[SocketAddr],
    cfg: &HttpConfig,
) -> Result<reqwest::Client, McpError> {
    install_crypto_provider();
    let mut headers = HeaderMap::new();
    for (name, value) in &cfg.headers {
        let n = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid(format!("invalid request header name {name}")))?;
        let v = HeaderValue::from_str(value)
            .map_err(|_| invalid(format!("invalid value for request header {name}")))?;
        headers.insert(n, v);
    }
    let mut builder = reqwest::Client::builder()
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy();
    if let (Some(domain), false) = (url.host_str(), pinned.is_empty()) {
        builder = builder.resolve_to_addrs(domain, pinned);
    }
    builder.build().map_err(|e| McpError::Connect {
        message: format!("HTTP client: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(url: &str, origins: &[&str], loopback: bool) -> HttpConfig {
        HttpConfig {
            url: url.into(),
            allowed_origins: origins.iter().map(|s| (*s).to_owned()).collect(),
            allow_loopback_http: loopback,
            max_response_bytes: 1024,
            headers: Vec::new(),
        }
    }

    fn msg(r: Result<Url, McpError>) -> String {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn accepts_an_allowed_https_origin_and_loopback_http() {
        assert!(validate_url(&cfg(
            "https://example.com/mcp",
            &["https://example.com"],
            false
        ))
        .is_ok());
        assert!(validate_url(&cfg(
            "http://127.0.0.1:8080/mcp",
            &["http://127.0.0.1:8080"],
            true
        ))
        .is_ok());
    }

    #[test]
    fn rejects_what_the_contract_rejects() {
        let o = &["https://example.com"];
        assert_eq!(
            msg(validate_url(&cfg("https://u:p@example.com/", o, false))),
            "MCP server URL must not contain credentials"
        );
        assert_eq!(
            msg(validate_url(&cfg("https://example.com/#x", o, false))),
            "MCP server URL must not contain a fragment"
        );
        assert_eq!(
            msg(validate_url(&cfg("https://other.com/", o, false))),
            "MCP server origin https://other.com is not in allowedOrigins"
        );
        assert_eq!(
            msg(validate_url(&cfg("https://example.com/", &[], false))),
            "allowedOrigins must list 1 to 64 origins"
        );
        assert_eq!(
            msg(validate_url(&cfg("not-a-url", o, false))),
            "Invalid MCP HTTP URL"
        );
        // The scheme is checked before the origin (a file: URL has no origin to allow).
        assert_eq!(
            msg(validate_url(&cfg("file:///etc/passwd", o, false))),
            "MCP HTTP URL must use https: (got file:)"
        );
        assert!(msg(validate_url(&cfg(
            "http://8.8.8.8/",
            &["http://8.8.8.8"],
            true
        )))
        .contains("must use https"));
        assert!(msg(validate_url(&cfg(
            "http://127.0.0.1:1/",
            &["http://127.0.0.1:1"],
            false
        )))
        .contains("must use https"));
        assert_eq!(
            msg(validate_url(&cfg(
                "https://10.0.0.1/",
                &["https://10.0.0.1"],
                false
            ))),
            "MCP server address 10.0.0.1 is not public"
        );
        assert_eq!(
            msg(validate_url(&cfg(
                "https://127.0.0.1/",
                &["https://127.0.0.1"],
                false
            ))),
            "MCP server address 127.0.0.1 is not public"
        );
    }

    #[test]
    fn allowed_origins_are_exact_and_plaintext_only_for_loopback_hosts() {
        let url = "https://example.com/mcp";
        for entry in [
            "https://example.com/",
            "https://example.com/mcp",
            "https://u@example.com",
            "https://EXAMPLE.com",
            "https://example.com:443",
        ] {
            assert!(
                msg(validate_url(&cfg(url, &[entry], false))).contains("not an exact origin"),
                "{entry}"
            );
        }
        assert!(msg(validate_url(&cfg(url, &["nope"], false))).contains("not a valid origin"));
        // Every entry is checked, not only the one that matches.
        assert!(msg(validate_url(&cfg(
            url,
            &["https://example.com", "http://example.org"],
            true
        )))
        .contains("must use https"));
        // Plaintext http: a loopback host by name or address, with the opt-in; never a
        // public name, even one that might resolve to loopback.
        for (u, o) in [
            ("http://localhost:8080/mcp", "http://localhost:8080"),
            ("http://api.localhost/mcp", "http://api.localhost"),
            ("http://127.0.0.1/mcp", "http://127.0.0.1"),
            ("http://[::1]:9/mcp", "http://[::1]:9"),
        ] {
            assert!(validate_url(&cfg(u, &[o], true)).is_ok(), "{u}");
            assert!(validate_url(&cfg(u, &[o], false)).is_err(), "{u}");
        }
        assert!(msg(validate_url(&cfg(
            "http://mcp.example.test/mcp",
            &["http://mcp.example.test"],
            true
        )))
        .contains("loopback"));
    }

    #[test]
    fn address_classes() {
        for p in [
            "10.1.2.3",
            "192.168.0.1",
            "172.16.0.1",
            "169.254.1.1",
            "100.64.0.1",
            "0.0.0.0",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "::10.0.0.1",
            "64:ff9b::169.254.169.254",
            "64:ff9b::10.0.0.1",
            "64:ff9b:1::a9fe:a9fe",
            "::",
            "::1",
        ] {
            assert!(
                is_private(p.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))),
                "{p}"
            );
        }
        for p in [
            "8.8.8.8",
            "1.1.1.1",
            "2606:4700::1111",
            "::8.8.8.8",
            "64:ff9b::8.8.8.8",
            "::ffff:1.1.1.1",
        ] {
            assert!(
                !is_private(p.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))),
                "{p}"
            );
        }
        for p in [
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "64:ff9b::127.0.0.1",
            "::1",
        ] {
            let ip = p.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
            assert!(is_loopback(ip), "{p}");
        }
    }

    #[test]
    fn ipv6_literals_of_private_ipv4_addresses_are_refused() {
        for (url, shown) in [
            ("https://[::127.0.0.1]/", "::127.0.0.1"),
            ("https://[::10.0.0.1]/", "::10.0.0.1"),
            ("https://[64:ff9b::169.254.169.254]/", "64:ff9b::a9fe:a9fe"),
        ] {
            let Ok(u) = Url::parse(url) else {
                panic!("{url} does not parse");
            };
            let origin = u.origin().ascii_serialization();
            let got = msg(validate_url(&cfg(url, &[origin.as_str()], false)));
            assert!(
                got.starts_with("MCP server address ") && got.ends_with(" is not public"),
                "{url}: {got} ({shown})"
            );
        }
        // With loopback allowed, the IPv4-compatible loopback counts as loopback; a private
        // address still does not.
        for (url, ok) in [
            ("http://[::127.0.0.1]/", true),
            ("http://[::10.0.0.1]/", false),
        ] {
            let Ok(u) = Url::parse(url) else {
                panic!("{url} does not parse");
            };
            let origin = u.origin().ascii_serialization();
            assert_eq!(
                validate_url(&cfg(url, &[origin.as_str()], true)).is_ok(),
                ok,
                "{url}"
            );
        }
    }
}
