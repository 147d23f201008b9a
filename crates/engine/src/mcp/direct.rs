//! The `tools/call` requests a stdio session writes itself, waiting for their responses.
//!
//! A call here has no task of its own: it is a waiter (a callback) in a table keyed by its
//! request number. The framer runs the waiter when the response arrives (on the reader,
//! after releasing its lock), the session's timer runs it when the call's deadline passes,
//! an abort or a close runs it with their error. So a call costs no wake-up of its own on the
//! runtime, and whichever comes first settles it exactly once.
//!
//! A call's deadline moves when the server reports progress for it ([`Deadlines`]), so the
//! table keeps an index in deadline order beside the one by number: the timer looks at the
//! first deadline only.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use rmcp::model::RequestId;
use serde_json::Value;

use super::progress::Deadlines;
use super::McpError;

/// Receives a direct call's outcome: the response's `result` object, or the error that
/// failed it (a bound or shape check, the timeout, an abort, the stream's end, a close).
/// It runs exactly once, never under the framer's lock.
pub type DirectWaiter = Box<dyn FnOnce(Result<Value, McpError>) + Send>;

/// Waiters whose outcome is known, to run once the lock is released.
#[derive(Default)]
pub(super) struct Ready(Vec<(DirectWaiter, Result<Value, McpError>)>);

impl Ready {
    /// Queues `waiter` to receive `outcome`.
    pub(super) fn push(&mut self, waiter: DirectWaiter, outcome: Result<Value, McpError>) {
        self.0.push((waiter, outcome));
    }

    /// Runs every queued waiter (outside every lock).
    pub(super) fn run(self) {
        for (waiter, outcome) in self.0 {
            waiter(outcome);
        }
    }
}

impl std::fmt::Debug for Ready {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ready({})", self.0.len())
    }
}

struct Entry {
    waiter: DirectWaiter,
    clock: Deadlines,
}

/// The direct calls still waiting, by request number and in deadline order.
#[derive(Default)]
pub(super) struct DirectCalls {
    waiting: BTreeMap<i64, Entry>,
    /// `(due, number)` of every waiting call.
    by_due: BTreeSet<(Instant, i64)>,
    /// Set when no response can come any more: the error a call made afterwards gets.
    ended: Option<McpError>,
}

impl std::fmt::Debug for DirectCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectCalls")
            .field("waiting", &self.waiting.len())
            .field("ended", &self.ended)
            .finish()
    }
}

/// The number of a direct request id (direct ids are always numbers).
fn number(id: &RequestId) -> Option<i64> {
    match id {
        RequestId::Number(n) => Some(*n),
        RequestId::String(_) => None,
    }
}

impl DirectCalls {
    /// Adds a waiting call; `Ok(true)` when it is the only one (the timer may be idle). After
    /// the end the waiter comes back with the error it must get.
    pub(super) fn insert(
        &mut self,
        n: i64,
        waiter: DirectWaiter,
        clock: Deadlines,
    ) -> Result<bool, (DirectWaiter, McpError)> {
        if let Some(error) = &self.ended {
            return Err((waiter, error.clone()));
        }
        if let Some(old) = self.waiting.insert(n, Entry { waiter, clock }) {
            self.by_due.remove(&(old.clock.due, n));
        }
        self.by_due.insert((clock.due, n));
        Ok(self.waiting.len() == 1)
    }

    /// Progress for call `n` at `now` restarts its clock; whether its deadline moved.
    pub(super) fn progressed(&mut self, n: i64, now: Instant) -> bool {
        let Some(entry) = self.waiting.get_mut(&n) else {
            return false;
        };
        let before = entry.clock.due;
        if !entry.clock.progressed(now) {
            return false;
        }
        self.by_due.remove(&(before, n));
        self.by_due.insert((entry.clock.due, n));
        true
    }

    /// Takes the waiter of `id`, if it still waits.
    pub(super) fn take(&mut self, id: &RequestId) -> Option<DirectWaiter> {
        number(id).and_then(|n| self.take_number(n))
    }

    /// Takes the waiter of request number `n`, if it still waits.
    pub(super) fn take_number(&mut self, n: i64) -> Option<DirectWaiter> {
        let entry = self.waiting.remove(&n)?;
        self.by_due.remove(&(entry.clock.due, n));
        Some(entry.waiter)
    }

    /// No response can come any more: every waiter with its number, to be run with `error`
    /// (as is every call made afterwards). The first end's error stands.
    pub(super) fn end(&mut self, error: &McpError) -> Vec<(i64, DirectWaiter)> {
        if self.ended.is_none() {
            self.ended = Some(error.clone());
        }
        self.by_due.clear();
        std::mem::take(&mut self.waiting)
            .into_iter()
            .map(|(n, e)| (n, e.waiter))
            .collect()
    }

    /// Takes the calls whose deadline is at or before `now`, with their numbers and the
    /// timeout error each gets (`callTimeoutMs`, or `maxTotalTimeoutMs` when that ended it).
    pub(super) fn expired(&mut self, now: Instant) -> Vec<(i64, DirectWaiter, McpError)> {
        let mut out = Vec::new();
        while let Some(&(due, n)) = self.by_due.first() {
            if due > now {
                break;
            }
            self.by_due.pop_first();
            if let Some(e) = self.waiting.remove(&n) {
                out.push((n, e.waiter, e.clock.timeout_error()));
            }
        }
        out
    }

    /// The earliest deadline of the waiting calls.
    pub(super) fn first_deadline(&self) -> Option<Instant> {
        self.by_due.first().map(|&(due, _)| due)
    }

    /// How many calls wait.
    pub(super) fn len(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn waiter(tx: &mpsc::Sender<Result<Value, McpError>>) -> DirectWaiter {
        let tx = tx.clone();
        Box::new(move |r| {
            let _ = tx.send(r);
        })
    }

    fn clock(t0: Instant, ms: u64) -> Deadlines {
        Deadlines::new(t0, Duration::from_millis(ms), Duration::from_secs(600))
    }

    #[test]
    fn expiry_takes_the_earliest_deadlines_first_and_stops_at_the_first_not_due() {
        let (tx, _rx) = mpsc::channel();
        let mut calls = DirectCalls::default();
        let t0 = Instant::now();
        for (n, ms) in [(1, 10), (2, 20), (3, 30)] {
            let first = calls.insert(n, waiter(&tx), clock(t0, ms));
            assert_eq!(first.ok(), Some(n == 1));
        }
        assert_eq!(calls.first_deadline(), Some(t0 + Duration::from_millis(10)));
        let due: Vec<i64> = calls
            .expired(t0 + Duration::from_millis(20))
            .into_iter()
            .map(|(n, _, _)| n)
            .collect();
        assert_eq!(due, vec![1, 2]);
        assert_eq!(calls.len(), 1);
        assert!(calls.take(&RequestId::String("3".into())).is_none());
        assert!(calls.take(&RequestId::Number(3)).is_some());
        assert_eq!(calls.len(), 0);
        assert_eq!(calls.first_deadline(), None);
    }

    #[test]
    fn progress_moves_a_call_behind_later_ones_and_the_total_ends_it() {
        let (tx, _rx) = mpsc::channel();
        let mut calls = DirectCalls::default();
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let total = Deadlines::new(t0, ms(10), ms(25));
        assert!(calls.insert(1, waiter(&tx), total).is_ok());
        assert!(calls.insert(2, waiter(&tx), clock(t0, 15)).is_ok());
        assert!(calls.progressed(1, t0 + ms(8)));
        assert!(!calls.progressed(9, t0 + ms(8)), "no such call");
        assert_eq!(calls.first_deadline(), Some(t0 + ms(15)));
        let due = calls.expired(t0 + ms(16));
        assert_eq!(due.len(), 1);
        assert!(matches!(
            due[0],
            (2, _, McpError::CallTimeout { timeout_ms: 15 })
        ));
        assert!(calls.progressed(1, t0 + ms(17)));
        assert_eq!(calls.first_deadline(), Some(t0 + ms(25)));
        let due = calls.expired(t0 + ms(25));
        assert!(matches!(
            due[0],
            (1, _, McpError::TotalTimeout { total_ms: 25 })
        ));
    }

    #[test]
    fn the_end_settles_every_waiter_and_refuses_later_calls_with_its_error() {
        let (tx, rx) = mpsc::channel();
        let mut calls = DirectCalls::default();
        let later = clock(Instant::now(), 60_000);
        assert!(calls.insert(1, waiter(&tx), later).is_ok());
        for (n, w) in calls.end(&McpError::Closed) {
            assert_eq!(n, 1);
            w(Err(McpError::Closed));
        }
        assert!(matches!(rx.try_recv(), Ok(Err(McpError::Closed))));
        // A second end keeps the first error.
        assert!(calls.end(&McpError::server_closed()).is_empty());
        let Err((w, error)) = calls.insert(2, waiter(&tx), later) else {
            panic!("a call after the end must be refused")
        };
        assert!(matches!(error, McpError::Closed));
        w(Err(error));
        assert!(matches!(rx.try_recv(), Ok(Err(McpError::Closed))));
        assert_eq!(calls.len(), 0);
    }
}
