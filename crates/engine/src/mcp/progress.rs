//! Progress-aware call deadlines: a `notifications/progress` naming a waiting call's progress
//! token restarts that call's `callTimeoutMs` clock, never past `maxTotalTimeoutMs` from its
//! start. A server that reports progress can run a long tool; one that stops reporting (or
//! never did) is timed out as before; one that reports forever is stopped at the total.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{NumberOrString, ProgressToken};
use tokio::sync::Notify;

use super::McpError;

/// The clock of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// When the call fails unless it is answered or progress pushes this on.
    pub due: Instant,
    /// The latest `due` may become (`maxTotalTimeoutMs` after the start).
    pub last: Instant,
    idle: Duration,
    total: Duration,
}

impl Deadlines {
    /// The clock of a call started at `start`, timing out `idle` after its start or its last
    /// progress, and `total` after its start at the latest.
    #[must_use]
    pub fn new(start: Instant, idle: Duration, total: Duration) -> Self {
        let last = start.checked_add(total).unwrap_or(start);
        let due = start.checked_add(idle).unwrap_or(start).min(last);
        Self {
            due,
            last,
            idle,
            total,
        }
    }

    /// Progress reported at `now`: the clock restarts (up to `last`). Whether `due` moved.
    pub fn progressed(&mut self, now: Instant) -> bool {
        let next = now.checked_add(self.idle).unwrap_or(now).min(self.last);
        if next > self.due {
            self.due = next;
            return true;
        }
        false
    }

    /// The error of a call whose `due` passed: the total bound when that is what ended it.
    #[must_use]
    pub fn timeout_error(&self) -> McpError {
        if self.due >= self.last {
            McpError::TotalTimeout {
                total_ms: u64::try_from(self.total.as_millis()).unwrap_or(u64::MAX),
            }
        } else {
            McpError::CallTimeout {
                timeout_ms: u64::try_from(self.idle.as_millis()).unwrap_or(u64::MAX),
            }
        }
    }
}

/// The progress token of a `notifications/progress` message, when it is a number (the
/// tokens this client hands out are numbers).
#[must_use]
pub fn progress_token(message: &serde_json::Map<String, serde_json::Value>) -> Option<i64> {
    if message.get("method")?.as_str()? != "notifications/progress" {
        return None;
    }
    message.get("params")?.get("progressToken")?.as_i64()
}

/// The requests sent through rmcp that wait for progress: the client handler rings the
/// request's bell when a `notifications/progress` names its token.
#[derive(Debug, Clone, Default)]
pub struct ProgressBoard(Arc<Mutex<HashMap<i64, Arc<Notify>>>>);

/// A request's place on the [`ProgressBoard`], removed when dropped.
#[derive(Debug)]
pub struct ProgressWatch {
    board: ProgressBoard,
    token: Option<i64>,
    bell: Arc<Notify>,
}

impl ProgressBoard {
    /// Watches `token` (rmcp's tokens are numbers; another kind is never rung).
    #[must_use]
    pub fn watch(&self, token: &ProgressToken) -> ProgressWatch {
        let bell = Arc::new(Notify::new());
        let token = match &token.0 {
            NumberOrString::Number(n) => Some(*n),
            NumberOrString::String(_) => None,
        };
        if let Some(n) = token {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(n, Arc::clone(&bell));
        }
        ProgressWatch {
            board: self.clone(),
            token,
            bell,
        }
    }

    /// Progress for `token` arrived: its watcher (if any) wakes.
    pub fn ring(&self, token: &ProgressToken) {
        let NumberOrString::Number(n) = &token.0 else {
            return;
        };
        if let Some(bell) = self.0.lock().unwrap_or_else(PoisonError::into_inner).get(n) {
            bell.notify_one();
        }
    }

    /// How many requests watch now.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether none does.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ProgressWatch {
    /// Resolves when progress for the request arrives (at once if some did since the last).
    pub async fn progressed(&self) {
        self.bell.notified().await;
    }
}

impl Drop for ProgressWatch {
    fn drop(&mut self) {
        if let Some(n) = self.token {
            self.board
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn progress_restarts_the_clock_up_to_the_total() {
        let t0 = Instant::now();
        let mut d = Deadlines::new(t0, 100 * MS, 250 * MS);
        assert_eq!(d.due, t0 + 100 * MS);
        assert!(d.progressed(t0 + 90 * MS));
        assert_eq!(d.due, t0 + 190 * MS);
        assert!(d.progressed(t0 + 180 * MS));
        assert_eq!(d.due, t0 + 250 * MS, "capped at the total");
        assert!(!d.progressed(t0 + 200 * MS));
        assert!(matches!(
            d.timeout_error(),
            McpError::TotalTimeout { total_ms: 250 }
        ));
    }

    #[test]
    fn without_progress_it_is_the_call_timeout() {
        let t0 = Instant::now();
        let d = Deadlines::new(t0, 100 * MS, 250 * MS);
        assert!(matches!(
            d.timeout_error(),
            McpError::CallTimeout { timeout_ms: 100 }
        ));
        // A total below the call timeout ends the call first, as the total.
        let short = Deadlines::new(t0, 100 * MS, 50 * MS);
        assert_eq!(short.due, t0 + 50 * MS);
        assert!(matches!(
            short.timeout_error(),
            McpError::TotalTimeout { total_ms: 50 }
        ));
    }

    #[tokio::test]
    async fn a_watch_is_rung_by_its_token_only_and_leaves_the_board_when_dropped() {
        let board = ProgressBoard::default();
        let token = ProgressToken(NumberOrString::Number(3));
        let watch = board.watch(&token);
        board.ring(&ProgressToken(NumberOrString::Number(4)));
        board.ring(&token);
        tokio::time::timeout(Duration::from_secs(5), watch.progressed())
            .await
            .expect("rung");
        assert_eq!(board.len(), 1);
        drop(watch);
        assert!(board.is_empty());
    }

    #[test]
    fn only_progress_notifications_with_number_tokens_count() {
        let of = |v: serde_json::Value| progress_token(v.as_object().expect("object"));
        let p = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 7, "progress": 1}});
        assert_eq!(of(p), Some(7));
        let s = json!({"method": "notifications/progress", "params": {"progressToken": "7"}});
        assert_eq!(of(s), None);
        let other = json!({"method": "notifications/message", "params": {"progressToken": 7}});
        assert_eq!(of(other), None);
    }
}
