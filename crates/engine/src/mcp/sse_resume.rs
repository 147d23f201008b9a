//! Streamable HTTP resumability (spec 2025-11-25): an answer's SSE stream that the server
//! closed after an event id, before the answer, is resumed by rmcp with `GET` and
//! `Last-Event-ID` (after the server's `retry`). The bridge keeps each such stream's request
//! here, keyed by its last event id, so that the resumed stream is judged as the first was (its
//! answer held, every bound applied), and so that a request whose stream cannot be resumed
//! fails with a clear error after [`MCP_SSE_MAX_RESUMES`] attempts instead of waiting for
//! `callTimeoutMs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::RequestId;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;

use super::McpError;
use crate::limits::{MCP_SSE_MAX_PENDING_RESUMES, MCP_SSE_MAX_RESUMES};

/// A request whose answer's stream ended resumably, waiting for the `GET` that resumes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingResume<K> {
    /// The request the stream answers.
    pub id: RequestId,
    /// How its replies are judged.
    pub kind: K,
    /// Resumes tried so far (failed `GET`s and resumed streams that ended again unanswered).
    pub attempts: u32,
}

/// What to do with a `GET` carrying a `Last-Event-ID`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeStep<K> {
    /// Not a stream the bridge kept: rmcp's own business.
    Unknown,
    /// Resume this request's stream (this is attempt `attempts`).
    Resume(PendingResume<K>),
    /// Give up: the request fails with this error.
    GiveUp(PendingResume<K>, McpError),
}

/// The streams waiting to be resumed, shared by the client's clones.
#[derive(Debug)]
pub struct Resumes<K>(Arc<Mutex<HashMap<String, PendingResume<K>>>>);

impl<K> Clone for Resumes<K> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<K> Default for Resumes<K> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

/// The error of a request whose stream could not be resumed.
fn gave_up(cause: &str) -> McpError {
    McpError::Transport {
        message: format!(
            "the server closed the answer's stream and {MCP_SSE_MAX_RESUMES} attempts to resume it got no answer ({cause})"
        ),
    }
}

impl<K: Clone> Resumes<K> {
    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, PendingResume<K>>) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// A stream answering `id` ended after event `last_event_id` without the answer: keep it
    /// for the resuming `GET`. Past [`MCP_SSE_MAX_PENDING_RESUMES`] kept streams, nothing more
    /// is kept (rmcp still resumes, unjudged by this table).
    pub fn ended(&self, last_event_id: String, pending: PendingResume<K>) {
        self.with(|m| {
            if m.len() < MCP_SSE_MAX_PENDING_RESUMES {
                m.insert(last_event_id, pending);
            }
        });
    }

    /// The step for a `GET` resuming after `last_event_id`.
    pub fn step(&self, last_event_id: &str) -> ResumeStep<K> {
        let Some(mut pending) = self.with(|m| m.remove(last_event_id)) else {
            return ResumeStep::Unknown;
        };
        if pending.attempts >= MCP_SSE_MAX_RESUMES {
            return ResumeStep::GiveUp(pending, gave_up("each resumed stream ended unanswered"));
        }
        pending.attempts += 1;
        ResumeStep::Resume(pending)
    }

    /// The resuming `GET` failed with `cause`: kept for rmcp's next attempt, or given up.
    #[must_use]
    pub fn failed(
        &self,
        last_event_id: String,
        pending: PendingResume<K>,
        cause: &str,
    ) -> Option<McpError> {
        if pending.attempts >= MCP_SSE_MAX_RESUMES {
            return Some(gave_up(cause));
        }
        self.ended(last_event_id, pending);
        None
    }

    /// How many streams wait to be resumed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.with(|m| m.len())
    }

    /// Whether none waits.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// rmcp's reconnect policy for a failed `GET`: short, growing waits (the server's `retry`
/// wins when longer), one attempt more than the bridge allows, so the bridge's count decides.
#[must_use]
pub fn reconnect_policy() -> ExponentialBackoff {
    let mut policy = ExponentialBackoff::default();
    policy.max_times = usize::try_from(MCP_SSE_MAX_RESUMES + 1).ok();
    policy.base_duration = Duration::from_millis(250);
    policy.max_delay = Some(Duration::from_secs(5));
    policy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(attempts: u32) -> PendingResume<u8> {
        PendingResume {
            id: RequestId::Number(4),
            kind: 0,
            attempts,
        }
    }

    #[test]
    fn a_stream_is_resumed_a_bounded_number_of_times_then_fails_its_request() {
        let resumes = Resumes::default();
        assert_eq!(resumes.step("e0"), ResumeStep::Unknown);
        resumes.ended("e1".into(), pending(0));
        let ResumeStep::Resume(p) = resumes.step("e1") else {
            panic!("a kept stream is resumed");
        };
        assert_eq!(p.attempts, 1);
        assert!(resumes.is_empty());
        // Failed GETs are kept for rmcp's next attempt until the bound.
        let mut p = p;
        for _ in 1..MCP_SSE_MAX_RESUMES {
            assert!(resumes.failed("e1".into(), p, "HTTP 500").is_none());
            let ResumeStep::Resume(next) = resumes.step("e1") else {
                panic!("kept again");
            };
            p = next;
        }
        let error = resumes
            .failed("e1".into(), p, "HTTP 500")
            .expect("given up");
        assert!(error
            .to_string()
            .contains("3 attempts to resume it got no answer (HTTP 500)"));
        assert!(resumes.is_empty());
        // A resumed stream that ended unanswered again counts too.
        resumes.ended("e9".into(), pending(MCP_SSE_MAX_RESUMES));
        assert!(matches!(resumes.step("e9"), ResumeStep::GiveUp(..)));
    }

    #[test]
    fn the_table_is_bounded() {
        let resumes = Resumes::default();
        for i in 0..MCP_SSE_MAX_PENDING_RESUMES + 10 {
            resumes.ended(format!("e{i}"), pending(0));
        }
        assert_eq!(resumes.len(), MCP_SSE_MAX_PENDING_RESUMES);
    }
}
