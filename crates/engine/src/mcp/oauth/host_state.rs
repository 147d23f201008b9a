//! What the OAuth client asks of the host around the flow: the persistence seam (the
//! reference's `McpClientAuthState`) must offer every function the flow calls, and a request
//! that needs the user (the flow ended in a redirect) fails with one error the host can act on.

use super::OAuthError;

/// The functions the host's `state` must have, in the reference's order.
pub const STATE_FUNCTIONS: [&str; 9] = [
    "loadTokens",
    "saveTokens",
    "loadDiscovery",
    "saveDiscovery",
    "loadClientInformation",
    "saveClientInformation",
    "loadCodeVerifier",
    "saveCodeVerifier",
    "clear",
];

/// Checks that `functions` (the names of the host state's members that are functions) holds
/// every one of [`STATE_FUNCTIONS`].
///
/// # Errors
/// [`OAuthError::State`] naming them all.
pub fn check_state_functions(functions: &[String]) -> Result<(), OAuthError> {
    if STATE_FUNCTIONS
        .iter()
        .all(|name| functions.iter().any(|f| f == name))
    {
        return Ok(());
    }
    Err(OAuthError::state(format!(
        "auth.state must be an object with the functions {} and {}",
        STATE_FUNCTIONS[..STATE_FUNCTIONS.len() - 1].join(", "),
        STATE_FUNCTIONS[STATE_FUNCTIONS.len() - 1]
    )))
}

/// The failure of a request whose authorization needs the user: the host was handed the
/// authorization URL (`onRedirectRequired`) and completes the flow with `finishAuth(code)`.
#[must_use]
pub fn redirected() -> OAuthError {
    OAuthError::state(
        "MCP server requires authorization: the user was sent to the authorization server; complete it with finishAuth(authorizationCode) on an auth client over the same state, then connect again",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_is_needed() {
        let all: Vec<String> = STATE_FUNCTIONS.iter().map(|s| (*s).to_owned()).collect();
        assert!(check_state_functions(&all).is_ok());
        let e = check_state_functions(&all[1..]).err();
        assert_eq!(
            e.as_ref().map(OAuthError::code),
            Some("ERR_PRISM_MCP_OAUTH_STATE")
        );
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some("auth.state must be an object with the functions loadTokens, saveTokens, loadDiscovery, saveDiscovery, loadClientInformation, saveClientInformation, loadCodeVerifier, saveCodeVerifier and clear")
        );
        assert_eq!(redirected().code(), "ERR_PRISM_MCP_OAUTH_STATE");
    }
}
