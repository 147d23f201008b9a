//! PKCE (RFC 7636, `S256` only) and the OAuth `state`: random values from the OS.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::OAuthError;

fn random_text(bytes: usize) -> Result<String, OAuthError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|_| OAuthError::state("no randomness for PKCE"))?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

/// A code verifier: 32 random bytes as 43 base64url characters.
///
/// # Errors
/// [`OAuthError::State`] if the OS has no randomness.
pub fn code_verifier() -> Result<String, OAuthError> {
    random_text(32)
}

/// The `S256` challenge of `verifier`: base64url(SHA-256(verifier)).
#[must_use]
pub fn code_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// An OAuth `state`: 16 random bytes as 22 base64url characters.
///
/// # Errors
/// [`OAuthError::State`] if the OS has no randomness.
pub fn new_state() -> Result<String, OAuthError> {
    random_text(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            code_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_and_states_are_fresh_and_in_range() {
        let (a, b) = (
            code_verifier().unwrap_or_default(),
            code_verifier().unwrap_or_default(),
        );
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert_eq!(new_state().unwrap_or_default().len(), 22);
    }
}
