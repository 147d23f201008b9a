//! [`OAuthError`]: every failure of the MCP OAuth client, with the reference's stable codes.
//! Messages name endpoints, origins, statuses and limits, never a token, secret, verifier or
//! authorization code.

use crate::limits::LimitError;

/// What went wrong in discovery, registration, authorization or a token request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// Discovery or a flow request failed (unreachable, bad status, bad or oversized body,
    /// refused redirect, timeout).
    #[error("{message}")]
    Discovery {
        /// What failed, for the host.
        message: String,
    },
    /// The authorization server's `issuer` is not on the origin it was discovered at.
    #[error("authorization server issuer {issuer} does not match the discovered AS origin")]
    Origin {
        /// The issuer's origin (or the text that is not a URL).
        issuer: String,
    },
    /// The protected resource is not on the MCP server's origin (confused-deputy denial).
    #[error("{message}")]
    Audience {
        /// What is wrong, for the host.
        message: String,
    },
    /// An OAuth endpoint is not allowed: not https, or an address that is not public.
    #[error("{message}")]
    Ssrf {
        /// What was refused, for the host.
        message: String,
    },
    /// The flow's state is missing or out of bounds (verifier, `state`, interaction needed).
    #[error("{message}")]
    State {
        /// What is wrong, for the host.
        message: String,
    },
    /// A token or client record is out of bounds, or revocation or persistence failed.
    #[error("{message}")]
    TokenStore {
        /// What is wrong, for the host.
        message: String,
    },
    /// The authorization server answered with an OAuth error (`invalid_grant`, ...).
    #[error("{endpoint} returned HTTP {status}{}", oauth_suffix(error.as_deref()))]
    Rejected {
        /// Which request: `token request`, `client registration`, ...
        endpoint: &'static str,
        /// The HTTP status.
        status: u16,
        /// The OAuth `error` code, when the body carried a well-formed one.
        error: Option<String>,
    },
    /// A limit is not a whole number from 1 to its hard cap.
    #[error(transparent)]
    Limit(#[from] LimitError),
}

fn oauth_suffix(error: Option<&str>) -> String {
    error.map(|e| format!(" ({e})")).unwrap_or_default()
}

/// What every [`OAuthError::code`] starts with (the facade's `McpOAuthError` family).
pub const CODE_PREFIX: &str = "ERR_PRISM_MCP_OAUTH_";

impl OAuthError {
    /// The reference's code: `ERR_PRISM_MCP_OAUTH_DISCOVERY`, `_ORIGIN`, `_AUDIENCE`, `_SSRF`,
    /// `_STATE` or `_TOKEN_STORE`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Discovery { .. } | Self::Rejected { .. } => "ERR_PRISM_MCP_OAUTH_DISCOVERY",
            Self::Origin { .. } => "ERR_PRISM_MCP_OAUTH_ORIGIN",
            Self::Audience { .. } => "ERR_PRISM_MCP_OAUTH_AUDIENCE",
            Self::Ssrf { .. } => "ERR_PRISM_MCP_OAUTH_SSRF",
            Self::State { .. } => "ERR_PRISM_MCP_OAUTH_STATE",
            Self::TokenStore { .. } => "ERR_PRISM_MCP_OAUTH_TOKEN_STORE",
            Self::Limit(e) => e.code(),
        }
    }

    /// The OAuth `error` code the authorization server answered with, if any.
    #[must_use]
    pub fn oauth_error(&self) -> Option<&str> {
        match self {
            Self::Rejected { error, .. } => error.as_deref(),
            _ => None,
        }
    }

    pub(crate) fn discovery(message: impl Into<String>) -> Self {
        Self::Discovery {
            message: message.into(),
        }
    }

    pub(crate) fn state(message: impl Into<String>) -> Self {
        Self::State {
            message: message.into(),
        }
    }

    pub(crate) fn token_store(message: impl Into<String>) -> Self {
        Self::TokenStore {
            message: message.into(),
        }
    }

    pub(crate) fn ssrf(message: impl Into<String>) -> Self {
        Self::Ssrf {
            message: message.into(),
        }
    }
}

/// An OAuth `error` code as the server sent it, kept only if it is a plain code (RFC 6749
/// section 5.2: printable ASCII without `"` and `\`), up to 64 bytes; anything else is dropped
/// so that no echoed secret reaches a message.
#[must_use]
pub fn plain_error_code(value: Option<&str>) -> Option<String> {
    let v = value?;
    let plain = !v.is_empty()
        && v.len() <= 64
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    plain.then(|| v.to_owned())
}
