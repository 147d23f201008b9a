//! RFC 7523 `private_key_jwt` client authentication: the host's P-256 private key (PKCS#8 PEM)
//! and the short-lived `ES256` assertion signed with it. The key never appears in a message or
//! in `Debug` output.

use std::fmt;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::json;

use super::pkce::new_state;
use super::OAuthError;
use crate::limits::MCP_OAUTH_PRIVATE_KEY_BYTES;

/// The only signing algorithm supported.
pub const ES256: &str = "ES256";

/// Seconds an assertion is valid after it is issued.
pub const ASSERTION_LIFETIME_SECS: u64 = 300;

/// The `client_assertion_type` of a JWT assertion.
pub const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A checked P-256 private key (PKCS#8 DER).
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey {
    der: Vec<u8>,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey([redacted])")
    }
}

fn bad_key() -> OAuthError {
    OAuthError::state("auth.strategy.privateKeyPem must be a PKCS#8 P-256 private key in PEM")
}

impl SigningKey {
    /// Reads a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) for `algorithm` (`ES256` when not
    /// given), at most [`MCP_OAUTH_PRIVATE_KEY_BYTES`] bytes.
    ///
    /// # Errors
    /// [`OAuthError::State`] for another algorithm, or text that is not such a key (the text
    /// is never echoed).
    pub fn from_pem(pem: &str, algorithm: Option<&str>) -> Result<Self, OAuthError> {
        if algorithm.is_some_and(|a| a != ES256) {
            return Err(OAuthError::state(
                "auth.strategy.signingAlgorithm must be \"ES256\"",
            ));
        }
        if pem.len() > MCP_OAUTH_PRIVATE_KEY_BYTES {
            return Err(bad_key());
        }
        let body = pem
            .trim()
            .strip_prefix("-----BEGIN PRIVATE KEY-----")
            .and_then(|r| r.strip_suffix("-----END PRIVATE KEY-----"))
            .ok_or_else(bad_key)?;
        let text: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let der = STANDARD.decode(text).map_err(|_| bad_key())?;
        let key = Self { der };
        key.pair()?;
        Ok(key)
    }

    fn pair(&self) -> Result<EcdsaKeyPair, OAuthError> {
        EcdsaKeyPair::from_pkcs8(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            &self.der,
            &SystemRandom::new(),
        )
        .map_err(|_| bad_key())
    }

    /// The signed assertion of `client_id` (issuer and subject) for `audience` (the
    /// authorization server), issued at `now_secs` and valid [`ASSERTION_LIFETIME_SECS`], with
    /// a random `jti`.
    ///
    /// # Errors
    /// [`OAuthError::State`] if the key cannot sign or the OS has no randomness.
    pub fn assertion(
        &self,
        client_id: &str,
        audience: &str,
        now_secs: u64,
    ) -> Result<String, OAuthError> {
        let header = json!({ "alg": ES256, "typ": "JWT" });
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now_secs,
            "exp": now_secs + ASSERTION_LIFETIME_SECS,
            "jti": new_state()?,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair()?
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| OAuthError::state("the client assertion could not be signed"))?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{KeyPair, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    fn pem_of(der: &[u8]) -> String {
        format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der)
        )
    }

    #[test]
    fn signs_an_es256_assertion_the_public_key_verifies() -> Result<(), OAuthError> {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| bad_key())?;
        let key = SigningKey::from_pem(&pem_of(doc.as_ref()), Some(ES256))?;
        let public = key.pair()?.public_key().as_ref().to_vec();
        let jwt = key.assertion("client", "https://as.example", 1_000)?;
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(claims["iss"], "client");
        assert_eq!(claims["sub"], "client");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["exp"], 1_300);
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap_or_default();
        let input = format!("{}.{}", parts[0], parts[1]);
        assert!(UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, public)
            .verify(input.as_bytes(), &signature)
            .is_ok());
        assert_eq!(format!("{key:?}"), "SigningKey([redacted])");
        Ok(())
    }

    #[test]
    fn refuses_what_is_not_a_p256_key_without_echoing_it() {
        for (pem, alg) in [
            ("not a key", None),
            (
                "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----",
                None,
            ),
            (
                "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----",
                Some("RS256"),
            ),
        ] {
            let e = SigningKey::from_pem(pem, alg).err().map(|e| e.to_string());
            assert!(e.is_some_and(|m| !m.contains("c2VjcmV0")), "{pem}");
        }
    }
}
