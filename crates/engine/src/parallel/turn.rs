//! The turn scheduler: which of one provider turn's tool calls start now, when the driver
//! checks the run's abort signal, and which results append to the transcript, in call order.
//!
//! It is sans-IO: it performs nothing and awaits nothing. A driver (the Node binding's, over
//! the host's JavaScript callbacks; [`super::dispatch_in_order`] on tokio for Rust hosts)
//! asks [`TurnScheduler::step`] for a [`Step`], does it, and reports each finished call with
//! [`TurnScheduler::complete`].
//!
//! - One call at a time (a concurrency of 1, or any exclusive call): start a call, wait for
//!   it, append its result, then the next call; no abort checks between them (each dispatch
//!   sees the signal itself).
//! - Several at once: start calls while a slot is free, checking the abort signal before each
//!   start; once every call has finished, append the results in call order, checking the
//!   signal before each append.

use super::turn_concurrency;

/// What the driver does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Dispatch call `index` (after checking the abort signal when `check_abort`).
    Start {
        /// The call's index in the turn.
        index: usize,
        /// Whether the driver checks the abort signal first.
        check_abort: bool,
    },
    /// Wait until a call in flight finishes, then report it with [`TurnScheduler::complete`].
    Wait,
    /// Append call `index`'s result to the transcript (after checking the abort signal when
    /// `check_abort`), and finish appending before asking for the next step.
    Append {
        /// The call's index in the turn.
        index: usize,
        /// Whether the driver checks the abort signal first.
        check_abort: bool,
    },
    /// The turn is over.
    Done,
}

/// A scheduler misuse by its driver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TurnError {
    /// [`TurnScheduler::complete`] of a call that is not in flight.
    #[error("tool call {index} of this turn is not in flight")]
    NotInFlight {
        /// The index the driver reported.
        index: usize,
    },
    /// A turn with more calls than a step can name ([`MAX_TURN_CALLS`]).
    #[error("a turn holds at most {max} tool calls, got {calls}")]
    TooManyCalls {
        /// The calls given.
        calls: usize,
        /// [`MAX_TURN_CALLS`].
        max: usize,
    },
}

impl TurnError {
    /// A stable code: `ERR_PRISM_TURN_SCHEDULER` or `ERR_PRISM_TURN_TOO_LARGE`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotInFlight { .. } => "ERR_PRISM_TURN_SCHEDULER",
            Self::TooManyCalls { .. } => "ERR_PRISM_TURN_TOO_LARGE",
        }
    }
}

pub use crate::limits::MAX_TURN_CALLS;

/// Where one call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Waiting,
    InFlight,
    Finished,
    Appended,
}

/// The state of one turn's dispatch.
#[derive(Debug, Clone)]
pub struct TurnScheduler {
    calls: Vec<Call>,
    concurrency: usize,
    next_start: usize,
    next_append: usize,
    in_flight: usize,
    finished: usize,
}

impl TurnScheduler {
    /// A turn of `calls` calls under the configured `tool_concurrency` (any exclusive call
    /// makes it one at a time).
    #[must_use]
    pub fn new(tool_concurrency: f64, calls: usize, any_exclusive: bool) -> Self {
        Self {
            calls: vec![Call::Waiting; calls],
            concurrency: turn_concurrency(tool_concurrency, calls, any_exclusive),
            next_start: 0,
            next_append: 0,
            in_flight: 0,
            finished: 0,
        }
    }

    /// A turn whose steps cross as numbers ([`Step::encode`]): at most [`MAX_TURN_CALLS`].
    ///
    /// # Errors
    /// [`TurnError::TooManyCalls`] past [`MAX_TURN_CALLS`].
    pub fn encodable(
        tool_concurrency: f64,
        calls: usize,
        any_exclusive: bool,
    ) -> Result<Self, TurnError> {
        if calls > MAX_TURN_CALLS {
            return Err(TurnError::TooManyCalls {
                calls,
                max: MAX_TURN_CALLS,
            });
        }
        Ok(Self::new(tool_concurrency, calls, any_exclusive))
    }

    /// How many calls may be in flight at once.
    #[must_use]
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// The next step (and the scheduler's own bookkeeping of it: a returned start is in
    /// flight, a returned append is done).
    pub fn step(&mut self) -> Step {
        let n = self.calls.len();
        if self.concurrency == 1 {
            if self.in_flight > 0 {
                return Step::Wait;
            }
            if self.next_append < self.next_start {
                return self.append(false);
            }
            if self.next_start < n {
                return self.start(false);
            }
            return Step::Done;
        }
        if self.next_start < n && self.in_flight < self.concurrency {
            return self.start(true);
        }
        if self.finished < n {
            return Step::Wait;
        }
        if self.next_append < n {
            return self.append(true);
        }
        Step::Done
    }

    /// Records that call `index` finished (its result is the driver's to keep).
    ///
    /// # Errors
    /// [`TurnError::NotInFlight`] when `index` was not started or already finished.
    pub fn complete(&mut self, index: usize) -> Result<(), TurnError> {
        match self.calls.get_mut(index) {
            Some(c @ Call::InFlight) => {
                *c = Call::Finished;
                self.in_flight -= 1;
                self.finished += 1;
                Ok(())
            }
            _ => Err(TurnError::NotInFlight { index }),
        }
    }

    /// One crossing's worth of scheduling, in one buffer: records the calls whose indexes
    /// fill `io[..finished]` as complete, then writes the steps that follow into `io` as
    /// numbers ([`Step::encode`]), up to and with the first wait or done, or until `io` is
    /// full; returns how many it wrote. The driver performs them in order (checking the abort
    /// signal where a step says so, finishing each append before the next step) and calls
    /// again after a wait, or when `io` was full.
    ///
    /// # Errors
    /// [`TurnError::NotInFlight`] for a finished call that was not in flight (the calls
    /// before it are recorded; no step is written).
    pub fn advance(&mut self, io: &mut [u32], finished: usize) -> Result<usize, TurnError> {
        for &i in io.get(..finished).unwrap_or(io) {
            self.complete(usize::try_from(i).unwrap_or(usize::MAX))?;
        }
        let out = io;
        let mut written = 0;
        while let Some(slot) = out.get_mut(written) {
            let step = self.step();
            *slot = step.encode();
            written += 1;
            if matches!(step, Step::Wait | Step::Done) {
                break;
            }
        }
        Ok(written)
    }

    fn start(&mut self, check_abort: bool) -> Step {
        let index = self.next_start;
        if let Some(c) = self.calls.get_mut(index) {
            *c = Call::InFlight;
        }
        self.next_start += 1;
        self.in_flight += 1;
        Step::Start { index, check_abort }
    }

    fn append(&mut self, check_abort: bool) -> Step {
        let index = self.next_append;
        if let Some(c) = self.calls.get_mut(index) {
            *c = Call::Appended;
        }
        self.next_append += 1;
        Step::Append { index, check_abort }
    }
}

/// A step as one number, for a cheap crossing: the kind in the low two bits (`0` start,
/// `1` wait, `2` append, `3` done), [`STEP_CHECK_ABORT`] when the driver checks the abort
/// signal first, and the call's index from [`STEP_INDEX_SHIFT`] up.
impl Step {
    /// The step's number.
    #[must_use]
    pub fn encode(self) -> u32 {
        let at = |index: usize, check: bool| {
            u32::try_from(index).unwrap_or(u32::MAX >> STEP_INDEX_SHIFT) << STEP_INDEX_SHIFT
                | if check { STEP_CHECK_ABORT } else { 0 }
        };
        match self {
            Self::Start { index, check_abort } => STEP_START | at(index, check_abort),
            Self::Wait => STEP_WAIT,
            Self::Append { index, check_abort } => STEP_APPEND | at(index, check_abort),
            Self::Done => STEP_DONE,
        }
    }
}

/// Step kind: start a call.
pub const STEP_START: u32 = 0;
/// Step kind: wait for a call to finish.
pub const STEP_WAIT: u32 = 1;
/// Step kind: append a result.
pub const STEP_APPEND: u32 = 2;
/// Step kind: the turn is over.
pub const STEP_DONE: u32 = 3;
/// The mask of a step's kind.
pub const STEP_KIND_MASK: u32 = 3;
/// Step flag: check the abort signal first.
pub const STEP_CHECK_ABORT: u32 = 4;
/// Where a step's call index starts.
pub const STEP_INDEX_SHIFT: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a turn where calls finish in the order `finish` gives (among those in flight,
    /// the one with the smallest key), returning the steps taken.
    fn trace(
        concurrency: f64,
        n: usize,
        exclusive: bool,
        key: impl Fn(usize) -> usize,
    ) -> Vec<Step> {
        let mut s = TurnScheduler::new(concurrency, n, exclusive);
        let mut flying: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        loop {
            let step = s.step();
            out.push(step);
            match step {
                Step::Start { index, .. } => flying.push(index),
                Step::Wait => {
                    flying.sort_by_key(|i| key(*i));
                    let i = flying.remove(0);
                    assert_eq!(s.complete(i), Ok(()));
                }
                Step::Append { .. } => {}
                Step::Done => return out,
            }
        }
    }

    #[test]
    fn one_at_a_time_starts_waits_and_appends_each_call_in_turn() {
        let steps = trace(1.0, 2, false, |i| i);
        assert_eq!(
            steps,
            [
                Step::Start {
                    index: 0,
                    check_abort: false
                },
                Step::Wait,
                Step::Append {
                    index: 0,
                    check_abort: false
                },
                Step::Start {
                    index: 1,
                    check_abort: false
                },
                Step::Wait,
                Step::Append {
                    index: 1,
                    check_abort: false
                },
                Step::Done,
            ]
        );
        // An exclusive call makes any concurrency one at a time.
        assert_eq!(trace(8.0, 2, true, |i| i), steps);
    }

    #[test]
    fn several_at_once_keep_the_bound_and_append_in_call_order_after_all_finish() {
        // Later calls finish first.
        let steps = trace(3.0, 7, false, |i| 100 - i);
        let mut flying = 0usize;
        let mut peak = 0;
        let mut appended = Vec::new();
        for s in &steps {
            match s {
                Step::Start { check_abort, .. } => {
                    assert!(check_abort);
                    assert!(appended.is_empty(), "no append before every call finished");
                    flying += 1;
                    peak = peak.max(flying);
                }
                Step::Wait => flying -= 1,
                Step::Append { index, check_abort } => {
                    assert!(check_abort);
                    appended.push(*index);
                }
                Step::Done => {}
            }
        }
        assert_eq!(peak, 3);
        assert_eq!(appended, (0..7).collect::<Vec<_>>());
        assert_eq!(steps.last(), Some(&Step::Done));
    }

    #[test]
    fn an_empty_turn_is_done_and_misuse_is_an_error() {
        let mut s = TurnScheduler::new(4.0, 0, false);
        assert_eq!(s.step(), Step::Done);
        let mut s = TurnScheduler::new(4.0, 2, false);
        assert_eq!(s.complete(0), Err(TurnError::NotInFlight { index: 0 }));
        assert!(matches!(s.step(), Step::Start { index: 0, .. }));
        assert_eq!(s.complete(0), Ok(()));
        assert_eq!(
            s.complete(0).map_err(|e| e.code()),
            Err("ERR_PRISM_TURN_SCHEDULER")
        );
        assert_eq!(s.complete(9), Err(TurnError::NotInFlight { index: 9 }));
        let big = TurnScheduler::encodable(1.0, MAX_TURN_CALLS + 1, false);
        assert_eq!(
            big.map(|_| ()).map_err(|e| e.code()),
            Err("ERR_PRISM_TURN_TOO_LARGE")
        );
        assert!(TurnScheduler::encodable(1.0, MAX_TURN_CALLS, false).is_ok());
    }

    #[test]
    fn advance_records_completions_and_writes_steps_up_to_a_wait() {
        let mut s = TurnScheduler::new(2.0, 3, false);
        let mut io = [0u32; 8];
        assert_eq!(s.advance(&mut io, 0), Ok(3));
        let kinds: Vec<u32> = io[..3].iter().map(|v| v & STEP_KIND_MASK).collect();
        assert_eq!(kinds, [STEP_START, STEP_START, STEP_WAIT]);
        io[0] = 1;
        assert_eq!(s.advance(&mut io, 1), Ok(2));
        assert_eq!(
            io[0],
            Step::Start {
                index: 2,
                check_abort: true
            }
            .encode()
        );
        io[..2].copy_from_slice(&[0, 2]);
        assert_eq!(s.advance(&mut io, 2), Ok(4));
        assert_eq!(io[3], STEP_DONE);
        // A full buffer stops early; the next call goes on.
        let mut s = TurnScheduler::new(1.0, 2, false);
        let mut one = [0u32; 1];
        assert_eq!(s.advance(&mut one, 0), Ok(1));
        assert_eq!(one[0] & STEP_KIND_MASK, STEP_START);
        assert_eq!(s.advance(&mut one, 0), Ok(1));
        assert_eq!(one[0], STEP_WAIT);
        one[0] = 1;
        assert_eq!(
            s.advance(&mut one, 1),
            Err(TurnError::NotInFlight { index: 1 })
        );
    }

    #[test]
    fn steps_encode_as_numbers() {
        let s = Step::Start {
            index: 5,
            check_abort: true,
        }
        .encode();
        assert_eq!(s & STEP_KIND_MASK, STEP_START);
        assert_ne!(s & STEP_CHECK_ABORT, 0);
        assert_eq!(s >> STEP_INDEX_SHIFT, 5);
        assert_eq!(Step::Wait.encode(), STEP_WAIT);
        assert_eq!(Step::Done.encode(), STEP_DONE);
        let a = Step::Append {
            index: 2,
            check_abort: false,
        }
        .encode();
        assert_eq!(
            (
                a & STEP_KIND_MASK,
                a & STEP_CHECK_ABORT,
                a >> STEP_INDEX_SHIFT
            ),
            (STEP_APPEND, 0, 2)
        );
    }
}
