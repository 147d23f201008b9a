//! Bounded, in-order parallel dispatch: the tool-concurrency rules of one provider turn.
//!
//! One scheduler, [`turn::TurnScheduler`], decides which calls start and which results append;
//! the Node binding drives it over the host's JavaScript callbacks, [`dispatch_in_order`] on
//! tokio for Rust hosts.

use std::future::Future;

pub mod turn;

use futures::stream::StreamExt;

/// The message a run's scheduler throws when its signal is aborted without an `Error` reason.
pub const RUN_ABORTED_MESSAGE: &str = "Agent run aborted";

/// The configured `toolConcurrency` as the reference resolves it, as a number: absent,
/// non-finite or below 1 gives 1; otherwise the value rounded down. There is no upper cap.
#[must_use]
pub fn tool_concurrency_value(value: Option<f64>) -> f64 {
    match value {
        Some(v) if v.is_finite() && v >= 1.0 => v.floor(),
        _ => 1.0,
    }
}

/// [`tool_concurrency_value`] as a count of calls (a value past `usize::MAX` saturates: a
/// huge configured value means "no bound" in practice).
#[must_use]
pub fn resolve_tool_concurrency(value: Option<f64>) -> usize {
    let v = tool_concurrency_value(value);
    if v >= usize::MAX as f64 {
        usize::MAX
    } else {
        v as usize
    }
}

/// How many calls of one turn run at once: 1 when any call is exclusive, otherwise
/// `max(1, min(tool_concurrency, calls))`.
#[must_use]
pub fn turn_concurrency(tool_concurrency: f64, calls: usize, any_exclusive: bool) -> usize {
    if any_exclusive {
        return 1;
    }
    resolve_tool_concurrency(Some(tool_concurrency))
        .min(calls)
        .max(1)
}

/// Runs `dispatch` over `calls` on the [`turn::TurnScheduler`] (at most `concurrency` in
/// flight) and returns the results in call order, whatever order they finish in. A slow call
/// holds only its own slot: the others keep starting the next call.
pub async fn dispatch_in_order<C, F, Fut, R>(
    calls: Vec<C>,
    concurrency: usize,
    mut dispatch: F,
) -> Vec<R>
where
    F: FnMut(C) -> Fut,
    Fut: Future<Output = R>,
{
    use futures::stream::FuturesUnordered;
    use turn::{Step, TurnScheduler};

    let len = calls.len();
    let mut pending: Vec<Option<C>> = calls.into_iter().map(Some).collect();
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(len).collect();
    let mut out = Vec::with_capacity(len);
    let mut flying = FuturesUnordered::new();
    let mut turn = TurnScheduler::new(concurrency as f64, len, false);
    loop {
        match turn.step() {
            Step::Start { index, .. } => {
                if let Some(call) = pending.get_mut(index).and_then(Option::take) {
                    let fut = dispatch(call);
                    flying.push(async move { (index, fut.await) });
                }
            }
            Step::Wait => match flying.next().await {
                Some((index, r)) => {
                    if let Some(slot) = slots.get_mut(index) {
                        *slot = Some(r);
                    }
                    // The scheduler started it, so it is in flight.
                    let _ = turn.complete(index);
                }
                None => break,
            },
            Step::Append { index, .. } => {
                if let Some(r) = slots.get_mut(index).and_then(Option::take) {
                    out.push(r);
                }
            }
            Step::Done => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn resolves_like_the_reference() {
        assert_eq!(resolve_tool_concurrency(None), 1);
        assert_eq!(resolve_tool_concurrency(Some(f64::NAN)), 1);
        assert_eq!(resolve_tool_concurrency(Some(f64::INFINITY)), 1);
        assert_eq!(resolve_tool_concurrency(Some(0.5)), 1);
        assert_eq!(resolve_tool_concurrency(Some(3.9)), 3);
        assert_eq!(resolve_tool_concurrency(Some(1e6)), 1_000_000);
    }

    #[test]
    fn exclusive_turns_and_small_batches() {
        assert_eq!(turn_concurrency(8.0, 3, false), 3);
        assert_eq!(turn_concurrency(8.0, 3, true), 1);
        assert_eq!(turn_concurrency(2.0, 10, false), 2);
        assert_eq!(turn_concurrency(0.0, 10, false), 1);
        assert_eq!(turn_concurrency(4.0, 0, false), 1);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn keeps_call_order_and_the_bound() {
        let in_flight = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let calls: Vec<u64> = (0..12).collect();
        let out = dispatch_in_order(calls, 3, |i| {
            let in_flight = Arc::clone(&in_flight);
            let peak = Arc::clone(&peak);
            async move {
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                // Later calls finish first.
                tokio::time::sleep(Duration::from_millis(12 - i)).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                i * 10
            }
        })
        .await;
        assert_eq!(out, (0..12).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }
}
