//! The turn scheduler for Node hosts (`parallel::turn` in the engine): the facade's driver
//! runs the program of ops it writes for a provider turn; which calls start (now, or when a
//! call in flight finishes), when the abort signal is checked and which results append are
//! decided there.

use napi::bindgen_prelude::{External, Uint32ArraySlice};
use napi::Env;
use napi_derive::napi;
use prism_engine::parallel::turn::{
    TurnScheduler, STEP_APPEND, STEP_CHECK_ABORT, STEP_DONE, STEP_INDEX_SHIFT, STEP_KIND_MASK,
    STEP_START, STEP_START_ON_FINISH, STEP_WAIT,
};

use crate::errors::to_js;

/// A turn of `calls` calls under the configured `toolConcurrency` (`NaN` when it is not a
/// number); `anyExclusive` when a call must run alone. Throws `ERR_PRISM_TURN_TOO_LARGE` past
/// the most calls a step can name.
///
/// The turn is an opaque handle (a Node-API external), not a class instance: a call with an
/// external costs about half of a method call on a wrapped object (`napi_unwrap`), and the
/// driver crosses once per wake-up of a turn (bench/parallel.mjs).
#[napi(ts_return_type = "ExternalObject<'NativeTurn'>")]
pub fn turn_new(
    env: Env,
    tool_concurrency: f64,
    calls: u32,
    any_exclusive: bool,
) -> napi::Result<External<TurnScheduler>> {
    let inner = TurnScheduler::encodable(tool_concurrency, calls as usize, any_exclusive)
        .map_err(|e| to_js(&env, e))?;
    Ok(External::new(inner))
}

/// One crossing: writes the next ops of the turn's program into `io` (each a number: its
/// kind, whether to check the abort signal first, the call), up to and with done or until
/// `io` is full, and returns how many. The driver runs them all, then calls again until done;
/// what finished meanwhile never changes the program, so nothing is reported back.
#[napi(ts_args_type = "turn: ExternalObject<'NativeTurn'>, io: Uint32Array")]
pub fn turn_advance(turn: &mut External<TurnScheduler>, mut io: Uint32ArraySlice) -> u32 {
    // SAFETY: the call is synchronous on the JavaScript thread, so no script runs (and none
    // can touch the buffer) while the engine writes it; the slice does not outlive the call.
    let buf = unsafe { io.as_mut() };
    u32::try_from(turn.advance(buf)).unwrap_or(u32::MAX)
}

/// The numbers of a turn step.
#[napi(object)]
pub struct NativeTurnStepWords {
    /// Kind: dispatch the call now.
    pub start: u32,
    /// Kind: queue the call, to dispatch when a call in flight finishes (one per finish, in
    /// the order queued).
    pub start_on_finish: u32,
    /// Kind: wait until no call is queued or in flight.
    pub wait: u32,
    /// Kind: append the call's result.
    pub append: u32,
    /// Kind: the turn is over.
    pub done: u32,
    /// The mask of the kind.
    pub kind_mask: u32,
    /// Flag: check the abort signal first.
    pub check_abort: u32,
    /// Where the call's index starts (shift right by it).
    pub index_shift: u32,
    /// The most words of the buffer to lend `turnAdvance`: the most ops one crossing carries.
    pub io_words: u32,
    /// How many turn programs (each a pure function of the turn's shape) a driver keeps.
    pub program_cache_entries: u32,
}

/// The numbers of a turn step (read once at load).
#[napi]
pub fn turn_step_words() -> NativeTurnStepWords {
    NativeTurnStepWords {
        start: STEP_START,
        start_on_finish: STEP_START_ON_FINISH,
        wait: STEP_WAIT,
        append: STEP_APPEND,
        done: STEP_DONE,
        kind_mask: STEP_KIND_MASK,
        check_abort: STEP_CHECK_ABORT,
        index_shift: STEP_INDEX_SHIFT,
        io_words: prism_engine::limits::TURN_IO_WORDS,
        program_cache_entries: prism_engine::limits::TURN_PROGRAM_CACHE_ENTRIES,
    }
}
