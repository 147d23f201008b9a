//! The OAuth client against a fake authorization server on loopback: discovery and its
//! fallbacks, the issuer and resource checks, the HTTP rules (no redirects, byte bound,
//! timeout, address checks), the token, registration and revocation requests, and that no
//! token or secret reaches an error message or `Debug` output.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use prism_engine::mcp::oauth::client_auth::ClientAuthMethod;
use prism_engine::mcp::oauth::discovery::discover;
use prism_engine::mcp::oauth::fetch::{Body, OAuthHttp};
use prism_engine::mcp::oauth::records::ClientInformation;
use prism_engine::mcp::oauth::token::Endpoints;
use prism_engine::mcp::oauth::OAuthError;
use reqwest::Url;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

type Res = Result<(), Box<dyn std::error::Error>>;

/// One request the fake server saw.
#[derive(Debug, Clone, Default)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: String,
}

/// An answer: status, extra headers, body.
type Answer = (u16, Vec<(String, String)>, String);
type Handler = Arc<dyn Fn(&Seen, &str) -> Answer + Send + Sync>;

struct Fake {
    origin: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    fn paths(&self) -> Vec<String> {
        self.seen
            .lock()
            .map(|s| s.iter().map(|r| r.path.clone()).collect())
            .unwrap_or_default()
    }
    fn last(&self) -> Seen {
        self.seen
            .lock()
            .ok()
            .and_then(|s| s.last().cloned())
            .unwrap_or_default()
    }
    fn url(&self, path: &str) -> Url {
        Url::parse(&format!("{}{path}", self.origin)).unwrap_or_else(|_| panic!("bad url"))
    }
}

/// A minimal HTTP/1.1 server: one request per connection; the handler gets the request and the
/// server's origin. A handler answering status 0 never answers (for the timeout test).
async fn serve(handler: impl Fn(&Seen, &str) -> Answer + Send + Sync + 'static) -> Fake {
    let listener = match TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => panic!("bind: {e}"),
    };
    let origin = format!(
        "http://127.0.0.1:{}",
        listener.local_addr().map(|a| a.port()).unwrap_or(0)
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (h, s, o): (Handler, _, _) = (Arc::new(handler), seen.clone(), origin.clone());
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let (h, s, o) = (h.clone(), s.clone(), o.clone());
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let head_end = loop {
                    let Ok(n) = sock.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break p + 4;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                let mut lines = head.split("\r\n");
                let first: Vec<&str> = lines.next().unwrap_or("").split(' ').collect();
                let mut req = Seen {
                    method: first.first().copied().unwrap_or("").to_owned(),
                    path: first.get(1).copied().unwrap_or("").to_owned(),
                    ..Seen::default()
                };
                for l in lines {
                    if let Some((k, v)) = l.split_once(':') {
                        req.headers
                            .insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
                    }
                }
                let len: usize = req
                    .headers
                    .get("content-length")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                while buf.len() < head_end + len {
                    let Ok(n) = sock.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                req.body = String::from_utf8_lossy(&buf[head_end..]).to_string();
                let (status, headers, body) = h(&req, &o);
                if let Ok(mut s) = s.lock() {
                    s.push(req);
                }
                if status == 0 {
                    tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                    return;
                }
                let mut out = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&body);
                let _ = sock.write_all(out.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    Fake { origin, seen }
}

fn ok(v: Value) -> Answer {
    (200, Vec::new(), v.to_string())
}

fn not_found() -> Answer {
    (404, Vec::new(), "{}".into())
}

fn http() -> OAuthHttp {
    OAuthHttp {
        allow_loopback_http: true,
        max_bytes: 64 * 1024,
        timeout_ms: 5_000,
    }
}

fn code(r: Result<impl std::fmt::Debug, OAuthError>) -> String {
    r.err().map(|e| e.code().to_owned()).unwrap_or_default()
}

fn as_metadata(origin: &str) -> Value {
    json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
        "revocation_endpoint": format!("{origin}/revoke"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
    })
}

#[tokio::test]
async fn discovers_through_the_path_aware_fallbacks() -> Res {
    let fake = serve(|r, o| match r.path.as_str() {
        // Path-aware resource metadata is missing: the root form answers.
        "/.well-known/oauth-protected-resource" => ok(json!({
            "resource": format!("{o}/mcp"),
            "authorization_servers": [format!("{o}/tenant")],
            "scopes_supported": ["read"],
        })),
        // RFC 8414 path-aware is missing; OpenID path-aware answers.
        "/.well-known/openid-configuration/tenant" => {
            let mut m = as_metadata(o);
            m["issuer"] = json!(format!("{o}/tenant"));
            ok(m)
        }
        _ => not_found(),
    })
    .await;
    let state = discover(&http(), &fake.url("/mcp"), None).await?;
    assert_eq!(
        fake.paths(),
        [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-authorization-server/tenant",
            "/.well-known/openid-configuration/tenant",
        ]
    );
    assert_eq!(
        state.authorization_server_url,
        format!("{}/tenant", fake.origin)
    );
    assert_eq!(
        state.check(&fake.url("/mcp"))?,
        Some(format!("{}/mcp", fake.origin))
    );
    let persisted = serde_json::to_value(&state)?;
    assert!(persisted.get("authorizationServerMetadata").is_some());
    assert!(persisted["resourceMetadata"]
        .get("scopes_supported")
        .is_some());
    Ok(())
}

#[tokio::test]
async fn a_challenge_names_the_metadata_and_without_any_the_origin_is_the_server() -> Res {
    let fake = serve(|r, o| match r.path.as_str() {
        "/custom/prm" => ok(json!({ "resource": format!("{o}/mcp") })),
        "/.well-known/oauth-authorization-server" => ok(as_metadata(o)),
        _ => not_found(),
    })
    .await;
    let named = fake.url("/custom/prm");
    let state = discover(&http(), &fake.url("/mcp"), Some(&named)).await?;
    assert_eq!(fake.paths()[0], "/custom/prm");
    assert_eq!(state.authorization_server_url, format!("{}/", fake.origin));
    assert_eq!(state.resource_metadata_url.as_deref(), Some(named.as_str()));
    // No metadata anywhere: legacy, no resource indicator.
    let bare = serve(|_, _| not_found()).await;
    let state = discover(&http(), &bare.url("/mcp"), None).await?;
    assert!(state.authorization_server_metadata.is_none() && state.resource_metadata.is_none());
    Ok(())
}

#[tokio::test]
async fn issuer_drift_and_foreign_resources_fail_closed() -> Res {
    let drift = serve(|r, o| match r.path.as_str() {
        "/.well-known/oauth-authorization-server" => {
            let mut m = as_metadata(o);
            m["issuer"] = json!("https://evil.example");
            ok(m)
        }
        _ => not_found(),
    })
    .await;
    let e = discover(&http(), &drift.url("/mcp"), None).await;
    assert_eq!(code(e.clone()), "ERR_PRISM_MCP_OAUTH_ORIGIN");
    assert_eq!(
        e.err().map(|e| e.to_string()).unwrap_or_default(),
        "authorization server issuer https://evil.example does not match the discovered AS origin"
    );
    let foreign = serve(|r, _| match r.path.as_str() {
        "/.well-known/oauth-protected-resource" => {
            ok(json!({ "resource": "https://other.example/mcp" }))
        }
        _ => not_found(),
    })
    .await;
    assert_eq!(
        code(discover(&http(), &foreign.url("/"), None).await),
        "ERR_PRISM_MCP_OAUTH_AUDIENCE"
    );
    Ok(())
}

#[tokio::test]
async fn redirects_are_not_followed_and_5xx_fails() -> Res {
    let fake = serve(|r, o| match r.path.as_str() {
        "/.well-known/oauth-protected-resource" => (
            302,
            vec![("location".into(), format!("{o}/elsewhere"))],
            String::new(),
        ),
        _ => (500, Vec::new(), "{}".into()),
    })
    .await;
    let e = discover(&http(), &fake.url("/"), None).await;
    assert_eq!(code(e.clone()), "ERR_PRISM_MCP_OAUTH_DISCOVERY");
    assert!(e
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
        .contains("redirects are not followed"));
    assert!(!fake.paths().contains(&"/elsewhere".to_owned()));
    Ok(())
}

#[tokio::test]
async fn bodies_are_bounded_at_discovery_bytes() -> Res {
    // A body of exactly the limit is read; one byte more is refused.
    let body = |n: usize| format!("\"{}\"", "x".repeat(n - 2));
    let fake = serve(move |r, _| {
        (
            200,
            Vec::new(),
            body(if r.path == "/at" { 100 } else { 101 }),
        )
    })
    .await;
    let h = OAuthHttp {
        max_bytes: 100,
        ..http()
    };
    assert_eq!(
        h.send("probe", &fake.url("/at"), Body::None, None)
            .await?
            .body
            .len(),
        100
    );
    let e = h.send("probe", &fake.url("/over"), Body::None, None).await;
    assert_eq!(
        e.err().map(|e| e.to_string()).unwrap_or_default(),
        "probe exceeds discoveryBytes (100 bytes)"
    );
    Ok(())
}

#[tokio::test]
async fn a_silent_server_times_out() -> Res {
    let fake = serve(|_, _| (0, Vec::new(), String::new())).await;
    let h = OAuthHttp {
        timeout_ms: 200,
        ..http()
    };
    let e = h.send("probe", &fake.url("/"), Body::None, None).await;
    assert!(e
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
        .ends_with("timed out after 200ms"));
    Ok(())
}

#[tokio::test]
async fn endpoints_obey_the_address_rules() -> Res {
    let strict = OAuthHttp {
        allow_loopback_http: false,
        ..http()
    };
    for u in [
        "http://127.0.0.1:9/x",
        "https://127.0.0.1:9/x",
        "https://10.0.0.1/x",
        "https://[::ffff:169.254.169.254]/x",
        "http://example.com/x",
        "https://u:p@example.com/x",
    ] {
        let e = strict
            .send("probe", &Url::parse(u)?, Body::None, None)
            .await;
        assert_eq!(code(e), "ERR_PRISM_MCP_OAUTH_SSRF", "{u}");
    }
    // With the opt-in, loopback is fine; a private address still is not.
    assert_eq!(
        code(
            http()
                .send(
                    "probe",
                    &Url::parse("https://192.168.1.1/x")?,
                    Body::None,
                    None
                )
                .await
        ),
        "ERR_PRISM_MCP_OAUTH_SSRF"
    );
    // localhost resolves to loopback, and is refused without the opt-in after DNS too.
    assert_eq!(
        code(
            strict
                .send(
                    "probe",
                    &Url::parse("https://localhost:9/x")?,
                    Body::None,
                    None
                )
                .await
        ),
        "ERR_PRISM_MCP_OAUTH_SSRF"
    );
    Ok(())
}

const SECRET: &str = "s3cr3t-client";
const ACCESS: &str = "at-0123456789";
const REFRESH: &str = "rt-0123456789";

fn client() -> ClientInformation {
    ClientInformation {
        client_id: "cid".into(),
        client_secret: Some(SECRET.into()),
        ..ClientInformation::default()
    }
}

#[tokio::test]
async fn code_exchange_refresh_registration_and_revocation() -> Res {
    let fake = serve(|r, _| match r.path.as_str() {
        "/token" if r.body.contains("grant_type=authorization_code") => ok(json!({
            "access_token": ACCESS, "token_type": "bearer", "expires_in": 3600, "refresh_token": REFRESH,
        })),
        "/token" => ok(json!({ "access_token": "at-2", "token_type": "Bearer" })),
        "/register" => (201, Vec::new(), json!({ "client_id": "new", "client_secret": "ns" }).to_string()),
        "/revoke" => ok(json!({})),
        _ => not_found(),
    })
    .await;
    let as_url = fake.url("/");
    let m = serde_json::from_value(as_metadata(&fake.origin))?;
    let ep = Endpoints {
        as_url: &as_url,
        metadata: Some(&m),
        record_bytes: 16 * 1024,
    };
    let t = ep
        .exchange_code(
            &http(),
            &client(),
            "the-code",
            "the-verifier",
            "http://127.0.0.1/cb",
            Some("https://r.example/mcp"),
        )
        .await?;
    assert_eq!(t.access_token, ACCESS);
    let seen = fake.last();
    assert_eq!(seen.method, "POST");
    // client_secret_basic: base64("cid:s3cr3t-client").
    assert_eq!(
        seen.headers.get("authorization").map(String::as_str),
        Some("Basic Y2lkOnMzY3IzdC1jbGllbnQ=")
    );
    for part in [
        "code=the-code",
        "code_verifier=the-verifier",
        "resource=https%3A%2F%2Fr.example%2Fmcp",
        "redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb",
    ] {
        assert!(seen.body.contains(part), "{part} in {}", seen.body);
    }
    assert!(!seen.body.contains("client_secret"));
    let debug = format!("{t:?} {:?}", client());
    assert!(
        !debug.contains(ACCESS) && !debug.contains(REFRESH) && !debug.contains(SECRET),
        "{debug}"
    );

    // Refresh keeps the refresh token the answer did not replace; a public client posts its id.
    let public = ClientInformation {
        client_id: "pub".into(),
        ..ClientInformation::default()
    };
    let t2 = ep.refresh(&http(), &public, REFRESH, None).await?;
    assert_eq!(
        (t2.access_token.as_str(), t2.refresh_token.as_deref()),
        ("at-2", Some(REFRESH))
    );
    assert!(
        fake.last().body.contains("client_id=pub")
            && !fake.last().headers.contains_key("authorization")
    );

    let info = ep
        .register(
            &http(),
            &json!({ "client_name": "x", "redirect_uris": ["http://127.0.0.1/cb"] }),
        )
        .await?;
    assert_eq!(info.client_id, "new");
    assert_eq!(
        fake.last().headers.get("content-type").map(String::as_str),
        Some("application/json")
    );

    assert!(
        ep.revoke(&http(), Some(&client()), REFRESH, "refresh_token")
            .await?
    );
    assert!(fake.last().body.contains("token_type_hint=refresh_token"));
    let _ = ClientAuthMethod::Basic;
    Ok(())
}

#[tokio::test]
async fn refusals_carry_the_oauth_code_and_never_a_secret() -> Res {
    let fake = serve(|r, _| match r.path.as_str() {
        "/token" => (
            400,
            Vec::new(),
            json!({ "error": "invalid_grant", "error_description": format!("bad {SECRET} {ACCESS}") }).to_string(),
        ),
        "/register" => (400, Vec::new(), json!({ "error": format!("{SECRET} \"x\"") }).to_string()),
        "/revoke" => (503, Vec::new(), String::new()),
        _ => not_found(),
    })
    .await;
    let as_url = fake.url("/");
    let m = serde_json::from_value(as_metadata(&fake.origin))?;
    let ep = Endpoints {
        as_url: &as_url,
        metadata: Some(&m),
        record_bytes: 16 * 1024,
    };
    let e = ep
        .exchange_code(
            &http(),
            &client(),
            ACCESS,
            REFRESH,
            "http://127.0.0.1/cb",
            None,
        )
        .await;
    let Err(e) = e else {
        panic!("a refusal reported as success")
    };
    assert_eq!(
        (e.code(), e.oauth_error()),
        ("ERR_PRISM_MCP_OAUTH_DISCOVERY", Some("invalid_grant"))
    );
    assert_eq!(
        e.to_string(),
        "token request returned HTTP 400 (invalid_grant)"
    );
    let e = ep.register(&http(), &json!({})).await;
    let msg = format!(
        "{:?} {}",
        e,
        e.as_ref()
            .err()
            .map(ToString::to_string)
            .unwrap_or_default()
    );
    assert!(!msg.contains(SECRET), "{msg}");
    let e = ep.revoke(&http(), None, REFRESH, "refresh_token").await;
    assert_eq!(code(e.clone()), "ERR_PRISM_MCP_OAUTH_TOKEN_STORE");
    assert!(!format!("{e:?}").contains(REFRESH));
    // tokenRecordBytes: a token record over the bound is refused, not saved.
    // Without metadata, the legacy endpoint is `/token` on the authorization server's origin.
    let big = serve(|r, _| match r.path.as_str() {
        "/token" => ok(json!({ "access_token": "x".repeat(200), "token_type": "Bearer" })),
        _ => not_found(),
    })
    .await;
    let big_url = big.url("/tenant");
    let ep = Endpoints {
        as_url: &big_url,
        metadata: None,
        record_bytes: 100,
    };
    let e = ep.refresh(&http(), &client(), REFRESH, None).await;
    assert_eq!(
        e.err().map(|e| e.to_string()).unwrap_or_default(),
        "token record exceeds 100 bytes"
    );
    Ok(())
}

mod flow {
    use super::*;
    use prism_engine::mcp::oauth::flow::{OAuthClient, OAuthConfig, Request, Stored, Strategy};
    use prism_engine::mcp::oauth::pkce::code_challenge;
    use prism_engine::mcp::oauth::OAuthLimits;

    async fn full_server() -> Fake {
        serve(|r, o| match r.path.as_str() {
            "/.well-known/oauth-protected-resource/mcp" => ok(json!({
                "resource": format!("{o}/mcp"),
                "authorization_servers": [o],
                "scopes_supported": ["mcp:read", "mcp:write"],
            })),
            "/.well-known/oauth-authorization-server" => ok(as_metadata(o)),
            "/register" => (
                201,
                Vec::new(),
                json!({ "client_id": "dyn", "token_endpoint_auth_method": "none" }).to_string(),
            ),
            "/token" if r.body.contains("refresh_token=dead") => (
                400,
                Vec::new(),
                json!({ "error": "invalid_grant" }).to_string(),
            ),
            "/token" if r.body.contains("grant_type=refresh_token") => {
                ok(json!({ "access_token": "at-refreshed", "token_type": "Bearer" }))
            }
            "/token" => ok(
                json!({ "access_token": ACCESS, "token_type": "Bearer", "refresh_token": REFRESH }),
            ),
            "/revoke" => ok(json!({})),
            _ => not_found(),
        })
        .await
    }

    fn client_for(fake: &Fake, ttl_ms: u64) -> OAuthClient {
        OAuthClient::new(OAuthConfig {
            server_url: fake.url("/mcp"),
            allow_loopback_http: true,
            limits: OAuthLimits {
                discovery_cache_ttl_ms: ttl_ms,
                ..OAuthLimits::default()
            },
            strategy: Strategy::Dcr(
                json!({ "client_name": "t", "redirect_uris": ["http://127.0.0.1/cb"] }),
            ),
            scopes: Vec::new(),
            redirect_uri: Some("http://127.0.0.1/cb".into()),
            client_metadata_url: None,
        })
    }

    fn query(url: &str) -> HashMap<String, String> {
        Url::parse(url)
            .map(|u| u.query_pairs().into_owned().collect())
            .unwrap_or_default()
    }

    #[tokio::test]
    async fn discovery_registration_redirect_exchange_refresh_and_revocation() -> Res {
        let fake = full_server().await;
        let c = client_for(&fake, 600_000);
        let interactive = Request {
            can_redirect: true,
            ..Request::default()
        };
        let fx = c.authorize(&Stored::default(), &interactive).await?;
        let (Some(discovery), Some(client), Some(verifier), Some(redirect)) = (
            fx.discovery.clone(),
            fx.client.clone(),
            fx.verifier.clone(),
            fx.redirect.clone(),
        ) else {
            panic!("first run must discover, register and redirect: {fx:?}");
        };
        assert_eq!(client.client_id, "dyn");
        let q = query(&redirect);
        assert_eq!(q.get("code_challenge"), Some(&code_challenge(&verifier)));
        assert_eq!(
            q.get("code_challenge_method").map(String::as_str),
            Some("S256")
        );
        assert_eq!(q.get("resource"), Some(&format!("{}/mcp", fake.origin)));
        assert_eq!(
            q.get("scope").map(String::as_str),
            Some("mcp:read mcp:write")
        );
        assert_eq!(q.get("client_id").map(String::as_str), Some("dyn"));
        assert!(q.get("state").is_some_and(|s| s.len() >= 22));
        // The registration asked for the selected scope.
        assert!(fake
            .seen
            .lock()
            .map(|s| s
                .iter()
                .any(|r| r.path == "/register" && r.body.contains("mcp:read mcp:write")))
            .unwrap_or(false));

        let mut stored = Stored {
            discovery: Some(discovery),
            client: Some(client),
            verifier: Some(verifier.clone()),
            tokens: None,
        };
        let before = fake.paths().len();
        let fx = c
            .authorize(
                &stored,
                &Request {
                    authorization_code: Some("the-code".into()),
                    ..Request::default()
                },
            )
            .await?;
        assert_eq!(
            fx.tokens.as_ref().map(|t| t.access_token.as_str()),
            Some(ACCESS)
        );
        // Discovery came from the cache: one request, the token request.
        assert_eq!(&fake.paths()[before..], ["/token"]);
        assert!(
            fake.last()
                .body
                .contains(&format!("code_verifier={verifier}"))
                && fake.last().body.contains("client_id=dyn")
        );

        stored.tokens = fx.tokens;
        let fx = c.authorize(&stored, &Request::default()).await?;
        assert_eq!(
            fx.tokens
                .as_ref()
                .map(|t| (t.access_token.as_str(), t.refresh_token.as_deref())),
            Some(("at-refreshed", Some(REFRESH)))
        );
        assert!(fx.redirect.is_none());

        // A refused refresh token: tokens cleared, and without a redirect seam, a State error.
        stored.tokens = Some(prism_engine::mcp::oauth::records::Tokens {
            access_token: "x".into(),
            refresh_token: Some("dead".into()),
            ..Default::default()
        });
        let fx = c.authorize(&stored, &interactive).await?;
        assert!(fx.clear_tokens && fx.redirect.is_some());
        let e = c.authorize(&stored, &Request::default()).await;
        assert_eq!(code(e), "ERR_PRISM_MCP_OAUTH_STATE");

        stored.tokens = Some(prism_engine::mcp::oauth::records::Tokens {
            access_token: ACCESS.into(),
            refresh_token: Some(REFRESH.into()),
            ..Default::default()
        });
        c.revoke(&stored).await?;
        assert_eq!(fake.last().path, "/revoke");
        assert!(fake.last().body.contains("token_type_hint=refresh_token"));
        Ok(())
    }

    #[tokio::test]
    async fn a_code_without_its_verifier_and_an_expired_cache() -> Res {
        let fake = full_server().await;
        let c = client_for(&fake, 1);
        let stored = Stored {
            client: Some(ClientInformation {
                client_id: "dyn".into(),
                ..Default::default()
            }),
            ..Stored::default()
        };
        let e = c
            .authorize(
                &stored,
                &Request {
                    authorization_code: Some("c".into()),
                    ..Request::default()
                },
            )
            .await;
        assert_eq!(
            e.err().map(|e| e.to_string()).unwrap_or_default(),
            "PKCE code verifier is missing from the auth round trip"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let before = fake
            .paths()
            .iter()
            .filter(|p| p.contains("well-known"))
            .count();
        let _ = c
            .authorize(
                &stored,
                &Request {
                    can_redirect: true,
                    ..Request::default()
                },
            )
            .await?;
        let after = fake
            .paths()
            .iter()
            .filter(|p| p.contains("well-known"))
            .count();
        assert!(after > before, "an expired cache discovers again");
        Ok(())
    }

    const CIMD: &str = "https://client.example/prism.json";

    async fn cimd_run(
        supported: bool,
    ) -> Result<(Fake, prism_engine::mcp::oauth::flow::Effects), Box<dyn std::error::Error>> {
        let fake = serve(move |r, o| match r.path.as_str() {
            "/.well-known/oauth-authorization-server" => {
                let mut m = as_metadata(o);
                m["client_id_metadata_document_supported"] = json!(supported);
                ok(m)
            }
            "/register" => (201, Vec::new(), json!({ "client_id": "dyn" }).to_string()),
            _ => not_found(),
        })
        .await;
        let mut config = client_for(&fake, 60_000).config().clone();
        config.client_metadata_url = Some(Url::parse(CIMD)?);
        let fx = OAuthClient::new(config)
            .authorize(
                &Stored::default(),
                &Request {
                    can_redirect: true,
                    ..Request::default()
                },
            )
            .await?;
        Ok((fake, fx))
    }

    #[tokio::test]
    async fn client_credentials_get_tokens_without_a_user_or_a_redirect() -> Res {
        use prism_engine::mcp::oauth::flow::ClientCredentials;
        let fake = serve(|r, o| match r.path.as_str() {
            "/.well-known/oauth-protected-resource/mcp" => ok(json!({
                "resource": format!("{o}/mcp"),
                "authorization_servers": [o],
            })),
            "/.well-known/oauth-authorization-server" => ok(as_metadata(o)),
            "/token" if r.body.contains("grant_type=client_credentials") => {
                ok(json!({ "access_token": "cc-token", "token_type": "Bearer" }))
            }
            _ => not_found(),
        })
        .await;
        let mut config = client_for(&fake, 60_000).config().clone();
        config.strategy = Strategy::ClientCredentials(ClientCredentials {
            client: ClientInformation {
                client_id: "svc".into(),
                client_secret: Some(SECRET.into()),
                ..ClientInformation::default()
            },
            key: None,
        });
        config.redirect_uri = None;
        let fx = OAuthClient::new(config)
            .authorize(&Stored::default(), &Request::default())
            .await?;
        assert_eq!(fx.redirect, None);
        assert_eq!(
            fx.tokens.map(|t| t.access_token).as_deref(),
            Some("cc-token")
        );
        let token = fake.last();
        let form = query(&format!("http://form/?{}", token.body));
        assert_eq!(form.get("resource"), Some(&format!("{}/mcp", fake.origin)));
        // The server lists client_secret_basic first: the secret goes in the header only.
        assert!(token
            .headers
            .get("authorization")
            .is_some_and(|h| h.starts_with("Basic ")));
        assert!(!token.body.contains(SECRET));
        Ok(())
    }

    #[tokio::test]
    async fn a_client_metadata_document_url_is_the_client_id_where_the_server_takes_one() -> Res {
        let (fake, fx) = cimd_run(true).await?;
        assert_eq!(fx.client.map(|c| c.client_id).as_deref(), Some(CIMD));
        let q = query(fx.redirect.as_deref().unwrap_or_default());
        assert_eq!(q.get("client_id").map(String::as_str), Some(CIMD));
        assert!(
            !fake.paths().iter().any(|p| p == "/register"),
            "no registration"
        );
        // A server that does not advertise it: dynamic registration, as the reference does.
        let (fake, fx) = cimd_run(false).await?;
        assert_eq!(fx.client.map(|c| c.client_id).as_deref(), Some("dyn"));
        assert!(fake.paths().iter().any(|p| p == "/register"));
        Ok(())
    }
}

#[tokio::test]
async fn the_discovery_cache_ages_on_the_hosts_clock_when_it_has_one() -> Res {
    use prism_engine::mcp::oauth::flow::{OAuthClient, OAuthConfig, Request, Stored, Strategy};
    use prism_engine::mcp::oauth::OAuthLimits;
    let fake = serve(|r, o| match r.path.as_str() {
        "/.well-known/oauth-authorization-server" => ok(as_metadata(o)),
        _ => not_found(),
    })
    .await;
    let c = OAuthClient::new(OAuthConfig {
        server_url: fake.url("/mcp"),
        allow_loopback_http: true,
        limits: OAuthLimits {
            discovery_cache_ttl_ms: 60_000,
            ..OAuthLimits::default()
        },
        strategy: Strategy::Static(ClientInformation {
            client_id: "c".into(),
            ..Default::default()
        }),
        scopes: Vec::new(),
        redirect_uri: Some("http://127.0.0.1/cb".into()),
        client_metadata_url: None,
    });
    let at = |now_ms: f64| Request {
        can_redirect: true,
        now_ms: Some(now_ms),
        ..Request::default()
    };
    let metadata_reads = || {
        fake.paths()
            .iter()
            .filter(|p| p.contains("authorization-server"))
            .count()
    };
    c.authorize(&Stored::default(), &at(1_000_000.0)).await?;
    c.authorize(&Stored::default(), &at(1_059_999.0)).await?;
    assert_eq!(metadata_reads(), 1);
    c.authorize(&Stored::default(), &at(1_060_000.0)).await?;
    assert_eq!(metadata_reads(), 2);
    Ok(())
}

#[test]
fn a_client_metadata_document_url_must_be_https_with_a_path() {
    use prism_engine::mcp::oauth::input::read_config;
    let config = |url: &str| {
        read_config(
            &json!({
                "serverUrl": "https://mcp.example/mcp",
                "strategy": { "kind": "dcr", "clientMetadata": {}, "clientMetadataUrl": url },
            })
            .to_string(),
        )
    };
    let ok = config("https://client.example/prism.json");
    assert_eq!(
        ok.ok()
            .and_then(|c| c.client_metadata_url)
            .map(String::from)
            .as_deref(),
        Some("https://client.example/prism.json")
    );
    for bad in [
        "http://client.example/prism.json",
        "https://client.example/",
        "not a url",
    ] {
        let e = config(bad).err().map(|e| (e.code(), e.to_string()));
        assert_eq!(
            e,
            Some((
                "ERR_PRISM_MCP_OAUTH_STATE",
                "auth.strategy.clientMetadataUrl must be an https URL with a path".to_owned()
            )),
            "{bad}"
        );
    }
}

mod oauth_cross_app_access {
    use super::*;
    use prism_engine::mcp::oauth::flow::{OAuthClient, Request, Stored, Strategy};
    use prism_engine::mcp::oauth::input::{read_config, read_request};
    use prism_engine::mcp::oauth::token::JWT_BEARER_GRANT;
    use prism_engine::mcp::oauth::token_exchange::{
        CrossAppAccess, SecretText, ID_JAG_TYPE, ID_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT,
    };

    const ID_TOKEN: &str = "eyJ.the-users-id-token.sig";
    const JAG: &str = "eyJ.the-id-jag.sig";
    const AS_SECRET: &str = "as-client-secret";

    fn form(seen: &Seen) -> HashMap<String, String> {
        url::form_urlencoded::parse(seen.body.as_bytes())
            .into_owned()
            .collect()
    }

    /// The MCP server and its authorization server (client_secret_basic only, as the suite's).
    async fn mcp_and_as() -> Fake {
        serve(|r, o| match r.path.as_str() {
            "/.well-known/oauth-protected-resource/mcp" => ok(json!({
                "resource": format!("{o}/mcp"),
                "authorization_servers": [o],
            })),
            "/.well-known/oauth-authorization-server" => {
                let mut m = as_metadata(o);
                m["token_endpoint_auth_methods_supported"] = json!(["client_secret_basic"]);
                m["grant_types_supported"] = json!([JWT_BEARER_GRANT]);
                ok(m)
            }
            "/token" if r.body.contains("assertion=eyJ.the-id-jag.sig") => {
                ok(json!({ "access_token": "xaa-token", "token_type": "Bearer" }))
            }
            "/token" => (
                400,
                Vec::new(),
                json!({ "error": "invalid_grant" }).to_string(),
            ),
            _ => not_found(),
        })
        .await
    }

    /// The identity provider's token endpoint answering `answer`.
    async fn idp(answer: Answer) -> Fake {
        serve(move |r, _| match r.path.as_str() {
            "/token" => answer.clone(),
            _ => not_found(),
        })
        .await
    }

    fn id_jag_answer() -> Answer {
        ok(json!({ "access_token": JAG, "issued_token_type": ID_JAG_TYPE, "token_type": "N_A" }))
    }

    fn client(mcp: &Fake, idp: &Fake) -> OAuthClient {
        let config = read_config(
            &json!({
                "serverUrl": mcp.url("/mcp").to_string(),
                "allowLoopbackHttp": true,
                "strategy": {
                    "kind": "cross_app_access",
                    "clientId": "mcp-client",
                    "clientSecret": AS_SECRET,
                    "idpTokenEndpoint": idp.url("/token").to_string(),
                    "idpClientId": "idp-client",
                    "idTokenType": "function",
                },
            })
            .to_string(),
        );
        match config {
            Ok(c) => OAuthClient::new(c),
            Err(e) => panic!("config: {e}"),
        }
    }

    fn with_id_token() -> Request {
        Request {
            id_token: Some(SecretText::new(ID_TOKEN.into())),
            ..Request::default()
        }
    }

    #[tokio::test]
    async fn the_id_token_is_exchanged_for_an_id_jag_then_for_tokens() -> Res {
        let mcp = mcp_and_as().await;
        let idp = idp(id_jag_answer()).await;
        let fx = client(&mcp, &idp)
            .authorize(&Stored::default(), &with_id_token())
            .await?;
        assert_eq!(fx.redirect, None);
        assert_eq!(
            fx.tokens.map(|t| t.access_token).as_deref(),
            Some("xaa-token")
        );
        let exchange = idp.last();
        let f = form(&exchange);
        let get = |k: &str| f.get(k).map(String::as_str);
        assert_eq!(get("grant_type"), Some(TOKEN_EXCHANGE_GRANT));
        assert_eq!(get("subject_token"), Some(ID_TOKEN));
        assert_eq!(get("subject_token_type"), Some(ID_TOKEN_TYPE));
        assert_eq!(get("requested_token_type"), Some(ID_JAG_TYPE));
        assert_eq!(get("audience"), Some(mcp.origin.as_str()));
        assert_eq!(
            get("resource"),
            Some(format!("{}/mcp", mcp.origin).as_str())
        );
        assert_eq!(get("client_id"), Some("idp-client"));
        // The authorization server's secret never goes to the identity provider.
        assert!(
            !exchange.body.contains(AS_SECRET) && !exchange.headers.contains_key("authorization")
        );

        let grant = mcp.last();
        let f = form(&grant);
        assert_eq!(
            f.get("grant_type").map(String::as_str),
            Some(JWT_BEARER_GRANT)
        );
        assert_eq!(f.get("assertion").map(String::as_str), Some(JAG));
        // client_secret_basic, as the server lists: the secret in the header only, and the
        // ID token never reaches the authorization server.
        assert!(grant
            .headers
            .get("authorization")
            .is_some_and(|h| h.starts_with("Basic ")));
        assert!(!grant.body.contains(AS_SECRET) && !grant.body.contains(ID_TOKEN));
        Ok(())
    }

    #[tokio::test]
    async fn refusals_and_answers_that_are_not_an_id_jag_fail_without_the_token() -> Res {
        let mcp = mcp_and_as().await;
        let refused = idp((
            400,
            Vec::new(),
            json!({ "error": "invalid_grant", "error_description": ID_TOKEN }).to_string(),
        ))
        .await;
        let e = client(&mcp, &refused)
            .authorize(&Stored::default(), &with_id_token())
            .await
            .err();
        assert_eq!(
            e.as_ref().map(|e| (e.code(), e.to_string())),
            Some((
                "ERR_PRISM_MCP_OAUTH_DISCOVERY",
                "token exchange returned HTTP 400 (invalid_grant)".to_owned()
            ))
        );
        assert!(!format!("{e:?}").contains(ID_TOKEN));
        assert!(!mcp.paths().iter().any(|p| p == "/token"), "no grant");

        let wrong = idp(ok(
            json!({ "access_token": JAG, "issued_token_type": ID_TOKEN_TYPE }),
        ))
        .await;
        let e = client(&mcp, &wrong)
            .authorize(&Stored::default(), &with_id_token())
            .await
            .err();
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some("token exchange response is not an ID-JAG (issued_token_type)")
        );

        // No ID token for the flow: nothing is sent.
        let idp = idp(id_jag_answer()).await;
        let e = client(&mcp, &idp)
            .authorize(&Stored::default(), &Request::default())
            .await;
        assert_eq!(code(e), "ERR_PRISM_MCP_OAUTH_STATE");
        assert!(idp.paths().is_empty());
        Ok(())
    }

    #[test]
    fn the_strategy_is_checked_and_the_id_token_never_shown() {
        let config = |strategy: Value| {
            read_config(
                &json!({ "serverUrl": "https://mcp.example/mcp", "strategy": strategy })
                    .to_string(),
            )
        };
        let good = json!({
            "kind": "cross_app_access",
            "clientId": "c",
            "clientSecret": AS_SECRET,
            "idpTokenEndpoint": "https://idp.example/token",
            "idTokenType": "string",
        });
        match config(good.clone()).map(|c| c.strategy) {
            Ok(Strategy::CrossAppAccess(x)) => {
                let x: &CrossAppAccess = &x;
                assert_eq!(x.idp_token_endpoint.as_str(), "https://idp.example/token");
                assert!(x.idp_client.is_none());
                assert!(!format!("{x:?}").contains(AS_SECRET));
            }
            other => panic!("not a cross-app access strategy: {other:?}"),
        }
        let bad = |key: &str, value: Value| {
            let mut s = good.clone();
            s[key] = value;
            config(s).err().map(|e| (e.code(), e.to_string()))
        };
        assert_eq!(
            bad("idTokenType", json!("undefined")),
            Some((
                "ERR_PRISM_MCP_OAUTH_STATE",
                "auth.strategy.idToken must be a string or a function returning a promise of one"
                    .to_owned()
            ))
        );
        assert_eq!(
            bad("idpTokenEndpoint", json!("not a url")).map(|e| e.0),
            Some("ERR_PRISM_MCP_OAUTH_STATE")
        );
        assert_eq!(
            bad("idpTokenEndpoint", json!("http://idp.example/token")).map(|e| e.0),
            Some("ERR_PRISM_MCP_OAUTH_SSRF")
        );
        assert_eq!(
            bad("clientId", json!("")).map(|e| e.0),
            Some("ERR_PRISM_MCP_OAUTH_STATE")
        );

        let request = read_request(&json!({ "idToken": ID_TOKEN }).to_string());
        assert!(request
            .as_ref()
            .is_ok_and(|r| r.id_token.as_ref().map(SecretText::expose) == Some(ID_TOKEN)));
        assert!(!format!("{request:?}").contains(ID_TOKEN));
    }
}
