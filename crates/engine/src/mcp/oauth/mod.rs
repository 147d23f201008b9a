//! The MCP OAuth client (OAuth 2.1 for Streamable HTTP servers), native.
//!
//! - [`fetch`]: every OAuth request: https (loopback by opt-in), public addresses pinned after
//!   DNS, no redirects, `discoveryBytes`, `handshakeTimeoutMs`.
//! - [`challenge`]: the `Bearer` challenge of `WWW-Authenticate`.
//! - [`metadata`]: the metadata documents and the persisted discovery state.
//! - [`discovery`]: RFC 9728 and RFC 8414 / OpenID discovery; the issuer and resource checks.
//! - [`host_state`]: the host's state functions; the error of a flow that needs the user.
//! - [`pkce`]: PKCE `S256` and `state`.
//! - [`authorize`]: the authorization URL.
//! - [`client_auth`]: `client_secret_basic`, `client_secret_post`, `none`.
//! - [`client_assertion`]: `private_key_jwt` (RFC 7523), the `ES256` client assertion.
//! - [`token`]: code exchange, refresh, client credentials, JWT bearer, dynamic registration,
//!   revocation.
//! - [`token_exchange`]: cross-app access (SEP-990): the ID token exchanged for an ID-JAG.
//! - [`step_up`]: what a request does when the server refuses its bearer (401, 403 scope).
//! - [`records`]: tokens and client information, redacted in `Debug`.
//! - [`flow`]: the authorization flow over the host's stored state, returning what to save.
//! - [`input`]: options, stored state and requests from the binding, bounded.
//! - [`options`]: the limits, resolved.
//! - [`error`]: [`OAuthError`] with the reference's codes.

pub mod authorize;
pub mod challenge;
pub mod client_assertion;
pub mod client_auth;
pub mod discovery;
pub mod error;
pub mod fetch;
pub mod flow;
pub mod host_state;
pub mod input;
pub mod metadata;
pub mod options;
pub mod pkce;
pub mod records;
pub mod step_up;
pub mod token;
pub mod token_exchange;

pub use error::OAuthError;
pub use options::{OAuthLimits, OAuthLimitsInput};
