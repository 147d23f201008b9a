//! Client authentication at the token, revocation and registration-bound endpoints:
//! `client_secret_basic`, `client_secret_post` or `none`, chosen as the MCP SDK chooses.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use reqwest::header::HeaderValue;

use super::records::ClientInformation;
use super::OAuthError;

/// A token endpoint authentication method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuthMethod {
    /// HTTP Basic with the client id and secret.
    Basic,
    /// `client_id` and `client_secret` in the form body.
    Post,
    /// `client_id` in the form body, no secret (a public client).
    None,
}

impl ClientAuthMethod {
    fn from_name(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::Basic),
            "client_secret_post" => Some(Self::Post),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    /// The method's registered name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Basic => "client_secret_basic",
            Self::Post => "client_secret_post",
            Self::None => "none",
        }
    }
}

/// Picks the method: with no list from the server, `client_secret_post` for a client with a
/// secret and `none` without; else the client's registered method if the server lists it, then
/// Basic, then Post (with a secret), then `none`.
#[must_use]
pub fn select_method(client: &ClientInformation, supported: &[String]) -> ClientAuthMethod {
    let has_secret = client.client_secret.is_some();
    let fallback = if has_secret {
        ClientAuthMethod::Post
    } else {
        ClientAuthMethod::None
    };
    if supported.is_empty() {
        return fallback;
    }
    let listed = |m: ClientAuthMethod| supported.iter().any(|s| s == m.name());
    if let Some(m) = client
        .token_endpoint_auth_method
        .as_deref()
        .and_then(ClientAuthMethod::from_name)
        .filter(|m| listed(*m))
    {
        return m;
    }
    for m in [ClientAuthMethod::Basic, ClientAuthMethod::Post] {
        if has_secret && listed(m) {
            return m;
        }
    }
    if listed(ClientAuthMethod::None) {
        return ClientAuthMethod::None;
    }
    fallback
}

/// Applies `method`: pushes form pairs, or returns the `Authorization` header value.
///
/// # Errors
/// [`OAuthError::TokenStore`] if the method needs a secret the client does not have.
pub fn apply<'a>(
    method: ClientAuthMethod,
    client: &'a ClientInformation,
    form: &mut Vec<(&'static str, &'a str)>,
) -> Result<Option<HeaderValue>, OAuthError> {
    let secret = || {
        client.client_secret.as_deref().ok_or_else(|| {
            OAuthError::token_store("client authentication requires a client secret")
        })
    };
    match method {
        ClientAuthMethod::None => {
            form.push(("client_id", &client.client_id));
            Ok(None)
        }
        ClientAuthMethod::Post => {
            let s = secret()?;
            form.push(("client_id", &client.client_id));
            form.push(("client_secret", s));
            Ok(None)
        }
        ClientAuthMethod::Basic => {
            let s = secret()?;
            let raw = STANDARD.encode(format!("{}:{s}", client.client_id));
            let mut v = HeaderValue::from_str(&format!("Basic {raw}")).map_err(|_| {
                OAuthError::token_store("client credentials are not valid in a header")
            })?;
            v.set_sensitive(true);
            Ok(Some(v))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(secret: bool, method: Option<&str>) -> ClientInformation {
        ClientInformation {
            client_id: "c".into(),
            client_secret: secret.then(|| "s".into()),
            token_endpoint_auth_method: method.map(Into::into),
            ..ClientInformation::default()
        }
    }

    fn list(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn selection_follows_the_sdk() {
        use ClientAuthMethod::{Basic, None, Post};
        assert_eq!(select_method(&client(true, Option::None), &[]), Post);
        assert_eq!(select_method(&client(false, Option::None), &[]), None);
        let all = list(&["client_secret_post", "client_secret_basic", "none"]);
        assert_eq!(select_method(&client(true, Option::None), &all), Basic);
        assert_eq!(
            select_method(&client(true, Some("client_secret_post")), &all),
            Post
        );
        assert_eq!(select_method(&client(false, Option::None), &all), None);
        assert_eq!(
            select_method(&client(true, Option::None), &list(&["client_secret_post"])),
            Post
        );
    }

    #[test]
    fn basic_header_and_post_pairs() {
        let c = client(true, Option::None);
        let mut form = Vec::new();
        let h = apply(ClientAuthMethod::Basic, &c, &mut form).unwrap_or_default();
        assert_eq!(
            h.map(|v| v.as_bytes().to_vec()),
            Some(b"Basic Yzpz".to_vec())
        );
        assert!(form.is_empty());
        let _ = apply(ClientAuthMethod::Post, &c, &mut form);
        assert_eq!(form, vec![("client_id", "c"), ("client_secret", "s")]);
        let e = apply(
            ClientAuthMethod::Basic,
            &client(false, Option::None),
            &mut form,
        );
        assert_eq!(
            e.err().map(|e| e.code()),
            Some("ERR_PRISM_MCP_OAUTH_TOKEN_STORE")
        );
    }
}
