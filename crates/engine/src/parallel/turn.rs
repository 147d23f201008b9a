//! The turn scheduler: which of one provider turn's tool calls start now, when the driver
//! checks the run's abort signal, and which results append to the transcript, in call order.
//!
//! It is sans-IO: it performs nothing and awaits nothing. A driver either asks
//! [`TurnScheduler::step`] for a [`Step`], does it, and reports each finished call with
//! [`TurnScheduler::complete`] ([`super::dispatch_in_order`] on tokio for Rust hosts), or runs
//! the turn's program of [`Op`]s that [`TurnScheduler::advance`] writes from the same steps
//! (the Node binding's driver, over the host's JavaScript callbacks, which then crosses once
//! per buffer of ops instead of once per wake-up).
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

    /// A turn whose program crosses as numbers ([`Op::encode`]): at most [`MAX_TURN_CALLS`].
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

    /// The turn as a program, written into `io` a buffer at a time ([`Op::encode`]); returns
    /// how many words it wrote (the last is [`Op::Done`] once the program is over). The driver
    /// runs the ops in order and calls again when it has run them all, whatever finished
    /// meanwhile: which call finishes never changes what happens next (a finish frees a slot
    /// for the next waiting call; results append in call order once all have finished), so the
    /// scheduler writes past each wait what follows it, and the driver crosses once per
    /// buffer rather than once per wake-up.
    ///
    /// A turn driven by `advance` is not also told of finished calls ([`Self::complete`]): the
    /// program already counts them. The program is a pure function of the turn's shape (the
    /// arguments of [`Self::new`]), so a driver may keep it for the next turn of that shape.
    pub fn advance(&mut self, io: &mut [u32]) -> usize {
        let mut written = 0;
        while let Some(slot) = io.get_mut(written) {
            let op = self.next_op();
            *slot = op.encode();
            written += 1;
            if op == Op::Done {
                break;
            }
        }
        written
    }

    /// The program's next op: the scheduler's next step, where a wait becomes what follows it.
    fn next_op(&mut self) -> Op {
        match self.step() {
            Step::Start { index, check_abort } => Op::Start { index, check_abort },
            Step::Append { index, check_abort } => Op::Append { index, check_abort },
            Step::Done => Op::Done,
            Step::Wait if self.concurrency > 1 && self.next_start < self.calls.len() => {
                // Every slot is taken: the next finish, whichever it is, frees one for the next
                // waiting call.
                self.assume_finished(1);
                match self.step() {
                    Step::Start { index, check_abort } => Op::StartOnFinish { index, check_abort },
                    // Not reached: a freed slot with a waiting call is a start.
                    _ => Op::WaitAll,
                }
            }
            Step::Wait => {
                // Nothing more starts before every call in flight has finished.
                self.assume_finished(self.in_flight);
                Op::WaitAll
            }
        }
    }

    /// Counts `k` calls in flight as finished, not naming them (the program's view).
    fn assume_finished(&mut self, k: usize) {
        let k = k.min(self.in_flight);
        self.in_flight -= k;
        self.finished += k;
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

/// One op of a turn's program ([`TurnScheduler::advance`]), what a driver does in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Dispatch call `index` now (after checking the abort signal when `check_abort`).
    Start {
        /// The call's index in the turn.
        index: usize,
        /// Whether the driver checks the abort signal first.
        check_abort: bool,
    },
    /// Queue call `index`: it is dispatched when a call in flight finishes, one queued call per
    /// finish, in the order queued (after checking the abort signal when `check_abort`).
    StartOnFinish {
        /// The call's index in the turn.
        index: usize,
        /// Whether the driver checks the abort signal first.
        check_abort: bool,
    },
    /// Wait until every queued call has started and no call is in flight.
    WaitAll,
    /// Append call `index`'s result to the transcript (after checking the abort signal when
    /// `check_abort`), and finish appending before the next op.
    Append {
        /// The call's index in the turn.
        index: usize,
        /// Whether the driver checks the abort signal first.
        check_abort: bool,
    },
    /// The turn is over.
    Done,
}

/// An op as one number, for a cheap crossing: the kind in the low three bits
/// ([`STEP_KIND_MASK`]), [`STEP_CHECK_ABORT`] when the driver checks the abort signal first,
/// and the call's index from [`STEP_INDEX_SHIFT`] up.
impl Op {
    /// The op's number.
    #[must_use]
    pub fn encode(self) -> u32 {
        let at = |index: usize, check: bool| {
            u32::try_from(index).unwrap_or(u32::MAX >> STEP_INDEX_SHIFT) << STEP_INDEX_SHIFT
                | if check { STEP_CHECK_ABORT } else { 0 }
        };
        match self {
            Self::Start { index, check_abort } => STEP_START | at(index, check_abort),
            Self::StartOnFinish { index, check_abort } => {
                STEP_START_ON_FINISH | at(index, check_abort)
            }
            Self::WaitAll => STEP_WAIT,
            Self::Append { index, check_abort } => STEP_APPEND | at(index, check_abort),
            Self::Done => STEP_DONE,
        }
    }
}

/// Op kind: start a call now.
pub const STEP_START: u32 = 0;
/// Op kind: wait until no call is queued or in flight.
pub const STEP_WAIT: u32 = 1;
/// Op kind: append a result.
pub const STEP_APPEND: u32 = 2;
/// Op kind: the turn is over.
pub const STEP_DONE: u32 = 3;
/// Op kind: start a call when one in flight finishes.
pub const STEP_START_ON_FINISH: u32 = 4;
/// The mask of an op's kind.
pub const STEP_KIND_MASK: u32 = 7;
/// Op flag: check the abort signal first.
pub const STEP_CHECK_ABORT: u32 = 8;
/// Where an op's call index starts.
pub const STEP_INDEX_SHIFT: u32 = 4;

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

    /// Runs a turn's program the way the Node driver does, calls finishing in the order of
    /// `key` (among those in flight, the smallest first), with a buffer of `words`; returns the
    /// trace (`s`tart, `f`inish, `a`ppend) and the most calls in flight at once.
    fn run_program(
        concurrency: f64,
        n: usize,
        exclusive: bool,
        words: usize,
        key: impl Fn(usize) -> usize,
    ) -> (Vec<String>, usize) {
        let mut s = TurnScheduler::new(concurrency, n, exclusive);
        let mut io = vec![0u32; words];
        let (mut flying, mut queued) = (Vec::<usize>::new(), Vec::<usize>::new());
        let (mut out, mut peak) = (Vec::new(), 0);
        loop {
            let m = s.advance(&mut io);
            assert!(m >= 1);
            for &op in &io[..m] {
                let i = (op >> STEP_INDEX_SHIFT) as usize;
                match op & STEP_KIND_MASK {
                    STEP_START => {
                        flying.push(i);
                        out.push(format!("s{i}"));
                    }
                    STEP_START_ON_FINISH => queued.push(i),
                    STEP_WAIT => {
                        while !flying.is_empty() {
                            flying.sort_by_key(|c| key(*c));
                            let f = flying.remove(0);
                            out.push(format!("f{f}"));
                            if !queued.is_empty() {
                                let q = queued.remove(0);
                                flying.push(q);
                                out.push(format!("s{q}"));
                            }
                        }
                        assert!(queued.is_empty(), "a queued call outlived the wait");
                    }
                    STEP_APPEND => out.push(format!("a{i}")),
                    STEP_DONE => return (out, peak),
                    k => panic!("unknown op kind {k}"),
                }
                peak = peak.max(flying.len());
            }
        }
    }

    /// The trace of [`trace`]'s steps in the same words as [`run_program`]'s.
    fn step_trace(
        concurrency: f64,
        n: usize,
        exclusive: bool,
        key: impl Fn(usize) -> usize + Copy,
    ) -> Vec<String> {
        let mut flying: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        for step in trace(concurrency, n, exclusive, key) {
            match step {
                Step::Start { index, .. } => {
                    flying.push(index);
                    out.push(format!("s{index}"));
                }
                Step::Wait => {
                    flying.sort_by_key(|i| key(*i));
                    out.push(format!("f{}", flying.remove(0)));
                }
                Step::Append { index, .. } => out.push(format!("a{index}")),
                Step::Done => {}
            }
        }
        out
    }

    #[test]
    fn the_program_runs_the_steps_whatever_the_finish_order_and_buffer() {
        for (c, n, exclusive) in [
            (1.0, 3, false),
            (8.0, 3, true),
            (2.0, 7, false),
            (3.0, 3, false),
            (16.0, 5, false),
            (4.0, 0, false),
        ] {
            for words in [1, 2, 3, 2 * n + 2, 1024] {
                for key in [|i: usize| i, |i: usize| 100 - i, |i: usize| (i * 7) % 5] {
                    let (got, peak) = run_program(c, n, exclusive, words, key);
                    assert_eq!(
                        got,
                        step_trace(c, n, exclusive, key),
                        "c={c} n={n} words={words}"
                    );
                    assert!(peak <= turn_concurrency(c, n, exclusive));
                }
            }
        }
    }

    #[test]
    fn a_turn_at_once_is_its_starts_a_queue_one_wait_and_its_appends() {
        let mut s = TurnScheduler::new(2.0, 4, false);
        let mut io = [0u32; 16];
        let m = s.advance(&mut io);
        let ops: Vec<u32> = io[..m].to_vec();
        let start = |index, check_abort| Op::Start { index, check_abort }.encode();
        let queue = |index| {
            Op::StartOnFinish {
                index,
                check_abort: true,
            }
            .encode()
        };
        let append = |index| {
            Op::Append {
                index,
                check_abort: true,
            }
            .encode()
        };
        assert_eq!(
            ops,
            [
                start(0, true),
                start(1, true),
                queue(2),
                queue(3),
                STEP_WAIT,
                append(0),
                append(1),
                append(2),
                append(3),
                STEP_DONE
            ]
        );
        // One at a time: no abort checks, a wait after each start.
        let mut s = TurnScheduler::new(1.0, 2, false);
        let m = s.advance(&mut io);
        let append_plain = |index| {
            Op::Append {
                index,
                check_abort: false,
            }
            .encode()
        };
        assert_eq!(
            io[..m],
            [
                start(0, false),
                STEP_WAIT,
                append_plain(0),
                start(1, false),
                STEP_WAIT,
                append_plain(1),
                STEP_DONE
            ]
        );
    }

    #[test]
    fn ops_encode_as_numbers() {
        let s = Op::StartOnFinish {
            index: 5,
            check_abort: true,
        }
        .encode();
        assert_eq!(s & STEP_KIND_MASK, STEP_START_ON_FINISH);
        assert_ne!(s & STEP_CHECK_ABORT, 0);
        assert_eq!(s >> STEP_INDEX_SHIFT, 5);
        assert_eq!(Op::WaitAll.encode(), STEP_WAIT);
        assert_eq!(Op::Done.encode(), STEP_DONE);
        let a = Op::Append {
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
        // The largest turn's last call still fits.
        let last = Op::Start {
            index: MAX_TURN_CALLS - 1,
            check_abort: true,
        }
        .encode();
        assert_eq!((last >> STEP_INDEX_SHIFT) as usize, MAX_TURN_CALLS - 1);
    }
}
