//! The tool harness's native half: the dispatch plan for a set of hooks.

use napi_derive::napi;
use prism_engine::tools::dispatch::step_codes;
use prism_engine::tools::HookSet;

/// The ordered gate codes (`Gate as u8`) of one dispatch whose optional hooks are the bits of
/// `hooks` (`HookSet`). The JS driver caches the steps per hook mask and performs each one.
#[napi]
pub fn dispatch_plan(hooks: u32) -> Vec<u32> {
    step_codes(HookSet(hooks))
        .into_iter()
        .map(u32::from)
        .collect()
}

/// How many calls of one turn run at once: 1 when any call is exclusive, otherwise
/// `max(1, min(toolConcurrency, calls))` (non-finite or < 1 concurrency counts as 1).
#[napi]
pub fn turn_concurrency(tool_concurrency: f64, calls: u32, any_exclusive: bool) -> u32 {
    let n =
        prism_engine::parallel::turn_concurrency(tool_concurrency, calls as usize, any_exclusive);
    u32::try_from(n).unwrap_or(u32::MAX)
}
