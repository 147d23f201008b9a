//! What a request does when the MCP server refuses its bearer (the MCP authorization spec's
//! 401 and step-up): on HTTP 401 the client authorizes once (refresh, or the host's
//! interactive flow) and sends again; on HTTP 403 with `error="insufficient_scope"` it asks for
//! the challenged scope once per challenge and sends again. A second 401 after authorizing, or
//! the same scope challenge after stepping up, fails the request: the loop is bounded.

use super::challenge::{parse_bearer_challenge, BearerChallenge};
use crate::limits::MCP_OAUTH_CHALLENGE_BYTES;

/// What one request remembers of the challenges it met.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChallengeMemory {
    /// It authorized again after a 401.
    reauthorized: bool,
    /// The `WWW-Authenticate` value of the last scope challenge it stepped up for.
    stepped_up_for: Option<String>,
}

/// What the request does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeStep {
    /// Not a challenge the client answers: the failure stands as it is.
    Pass,
    /// Authorize with the challenge (its `scope` and `resource_metadata`), then send again.
    Authorize(BearerChallenge),
    /// The server refused again after the client authorized: the request fails.
    Refused(&'static str),
}

/// The failure of a request answered HTTP 401 again after the client authorized.
pub const REFUSED_AFTER_AUTHORIZING: &str =
    "the server answered HTTP 401 again after the client authorized";

/// The failure of a request answered the same scope challenge after the client stepped up.
pub const REFUSED_AFTER_STEP_UP: &str =
    "the server answered HTTP 403 insufficient_scope again after the client asked for the scope";

/// What a request told to [`ChallengeStep::Authorize`] does, from the token it was refused
/// with and the one the session holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reauthorize {
    /// Another request (a concurrent POST, the GET stream) replaced the refused token since:
    /// the request is sent again with the current one, without a second authorization flow.
    SendAgain,
    /// The refused token is still the current one: the host authorizes.
    Authorize,
}

/// Whether a request refused with the token `sent` authorizes, or is sent again with
/// `current` (the session's token now).
#[must_use]
pub fn reauthorize(sent: Option<&str>, current: Option<&str>) -> Reauthorize {
    if sent == current {
        Reauthorize::Authorize
    } else {
        Reauthorize::SendAgain
    }
}

/// The step for a response with `status` and its `WWW-Authenticate` value (if any; one over
/// [`MCP_OAUTH_CHALLENGE_BYTES`] is not read).
#[must_use]
pub fn next_step(memory: &mut ChallengeMemory, status: u16, header: Option<&str>) -> ChallengeStep {
    let header = header.filter(|h| h.len() <= MCP_OAUTH_CHALLENGE_BYTES);
    let challenge = header.and_then(parse_bearer_challenge);
    match status {
        401 => {
            if memory.reauthorized {
                return ChallengeStep::Refused(REFUSED_AFTER_AUTHORIZING);
            }
            memory.reauthorized = true;
            ChallengeStep::Authorize(challenge.unwrap_or_default())
        }
        403 => {
            let Some(challenge) = challenge.filter(BearerChallenge::is_insufficient_scope) else {
                return ChallengeStep::Pass;
            };
            let seen = header.map(str::to_owned);
            if memory.stepped_up_for == seen {
                return ChallengeStep::Refused(REFUSED_AFTER_STEP_UP);
            }
            memory.stepped_up_for = seen;
            ChallengeStep::Authorize(challenge)
        }
        _ => ChallengeStep::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCOPE: &str = r#"Bearer error="insufficient_scope", scope="extended""#;

    #[test]
    fn a_401_authorizes_once() {
        let mut m = ChallengeMemory::default();
        let header =
            r#"Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource""#;
        let ChallengeStep::Authorize(c) = next_step(&mut m, 401, Some(header)) else {
            panic!("first 401 authorizes");
        };
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource")
        );
        assert_eq!(
            next_step(&mut m, 401, Some(header)),
            ChallengeStep::Refused(REFUSED_AFTER_AUTHORIZING)
        );
    }

    #[test]
    fn a_401_without_a_challenge_still_authorizes() {
        let mut m = ChallengeMemory::default();
        assert_eq!(
            next_step(&mut m, 401, None),
            ChallengeStep::Authorize(BearerChallenge::default())
        );
    }

    #[test]
    fn a_scope_challenge_steps_up_once_per_challenge() {
        let mut m = ChallengeMemory::default();
        let ChallengeStep::Authorize(c) = next_step(&mut m, 403, Some(SCOPE)) else {
            panic!("first scope challenge steps up");
        };
        assert_eq!(c.scope.as_deref(), Some("extended"));
        assert_eq!(
            next_step(&mut m, 403, Some(SCOPE)),
            ChallengeStep::Refused(REFUSED_AFTER_STEP_UP)
        );
        let wider = r#"Bearer error="insufficient_scope", scope="extended admin""#;
        assert!(matches!(
            next_step(&mut m, 403, Some(wider)),
            ChallengeStep::Authorize(_)
        ));
    }

    #[test]
    fn a_token_replaced_since_is_sent_again_without_a_flow() {
        assert_eq!(
            reauthorize(Some("at-1"), Some("at-2")),
            Reauthorize::SendAgain
        );
        assert_eq!(reauthorize(None, Some("at-1")), Reauthorize::SendAgain);
        assert_eq!(reauthorize(Some("at-1"), None), Reauthorize::SendAgain);
        assert_eq!(
            reauthorize(Some("at-1"), Some("at-1")),
            Reauthorize::Authorize
        );
        assert_eq!(reauthorize(None, None), Reauthorize::Authorize);
    }

    #[test]
    fn other_refusals_pass() {
        let mut m = ChallengeMemory::default();
        assert_eq!(next_step(&mut m, 403, None), ChallengeStep::Pass);
        assert_eq!(
            next_step(&mut m, 403, Some(r#"Bearer error="invalid_token""#)),
            ChallengeStep::Pass
        );
        assert_eq!(next_step(&mut m, 500, Some(SCOPE)), ChallengeStep::Pass);
        assert_eq!(m, ChallengeMemory::default());
    }
}
