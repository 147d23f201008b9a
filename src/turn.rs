//! The turn scheduler for Node hosts (`parallel::turn` in the engine): the facade's driver
//! asks it for each step of a provider turn and reports the calls that finished; which calls start,
//! when the abort signal is checked and which results append are decided there.

use napi::bindgen_prelude::{External, Uint32ArraySlice};
use napi::Env;
use napi_derive::napi;
use prism_engine::parallel::turn::{
    TurnScheduler, STEP_APPEND, STEP_CHECK_ABORT, STEP_DONE, STEP_INDEX_SHIFT, STEP_KIND_MASK,
    STEP_START, STEP_WAIT,
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

/// How many calls of `turn` may be in flight at once.
#[napi(ts_args_type = "turn: ExternalObject<'NativeTurn'>")]
pub fn turn_concurrency(turn: &External<TurnScheduler>) -> u32 {
    u32::try_from(turn.concurrency()).unwrap_or(u32::MAX)
}

/// One crossing: records the calls whose indexes fill `io[0..finished]` as finished, then
/// writes the next steps into `io` (each a number: its kind, whether to check the abort signal
/// first, the call) up to and with the first wait or done, or until `io` is full, and returns
/// how many. Throws `ERR_PRISM_TURN_SCHEDULER` for a finished call that was not in flight.
#[napi(ts_args_type = "turn: ExternalObject<'NativeTurn'>, io: Uint32Array, finished: number")]
pub fn turn_advance(
    env: Env,
    turn: &mut External<TurnScheduler>,
    mut io: Uint32ArraySlice,
    finished: u32,
) -> napi::Result<u32> {
    // SAFETY: the call is synchronous on the JavaScript thread, so no script runs (and none
    // can touch the buffer) while the engine reads and writes it; the slice does not outlive
    // the call.
    let buf = unsafe { io.as_mut() };
    let k = (finished as usize).min(buf.len());
    let n = turn.advance(buf, k).map_err(|e| to_js(&env, e))?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// The numbers of a turn step.
#[napi(object)]
pub struct NativeTurnStepWords {
    /// Kind: dispatch the call.
    pub start: u32,
    /// Kind: wait for a call in flight to finish.
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
    /// Words of the buffer to lend `turnAdvance` (plus one): the most steps one crossing carries.
    pub io_words: u32,
}

/// The numbers of a turn step (read once at load).
#[napi]
pub fn turn_step_words() -> NativeTurnStepWords {
    NativeTurnStepWords {
        start: STEP_START,
        wait: STEP_WAIT,
        append: STEP_APPEND,
        done: STEP_DONE,
        kind_mask: STEP_KIND_MASK,
        check_abort: STEP_CHECK_ABORT,
        index_shift: STEP_INDEX_SHIFT,
        io_words: prism_engine::limits::TURN_IO_WORDS,
    }
}
