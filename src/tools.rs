//! The tool harness's native half: the dispatch plan for a set of hooks, the turn's
//! concurrency, the static permission policy's decisions and the denial and validation words.

use napi_derive::napi;
use prism_engine::tools::dispatch::step_codes;
use prism_engine::tools::permission::{self, KeyDecision, StaticPermissionPolicy};
use prism_engine::tools::{middleware, validator, HookSet};

/// The ordered gate codes (`Gate as u8`) of one dispatch whose optional hooks are the bits of
/// `hooks` (`HookSet`). The JS driver caches the steps per hook mask and performs each one.
#[napi]
pub fn dispatch_plan(hooks: u32) -> Vec<u32> {
    step_codes(HookSet(hooks))
        .into_iter()
        .map(u32::from)
        .collect()
}

/// The configured `toolConcurrency` resolved as the reference does: a finite number >= 1
/// rounded down, otherwise 1 (pass `NaN` for a value that is not a number).
#[napi]
pub fn resolve_tool_concurrency(value: f64) -> f64 {
    prism_engine::parallel::tool_concurrency_value(Some(value))
}

/// A static permission policy as data: every listed key once with its decision (`reasons[i]`
/// is `null` when `keys[i]` is allowed, else the denial's reason), and whether a key on
/// neither list passes. The JS policy looks keys up in it; every rule is the engine's.
#[napi(object)]
pub struct NativePermissionTable {
    /// Every key on the allow or deny list, each once.
    pub keys: Vec<String>,
    /// `null` for an allowed key, otherwise the reason it is refused with.
    pub reasons: Vec<Option<String>>,
    /// Whether a key on neither list is allowed (the allow list is empty).
    pub allows_unlisted: bool,
}

/// The decisions of the static permission policy over `allow` and `deny` keys;
/// `allow_had_other_entries` when the host's allow list also held values that are not strings
/// (they match no key, but the list is not empty, so unlisted keys are refused).
#[napi]
pub fn static_permission_table(
    allow: Vec<String>,
    deny: Vec<String>,
    allow_had_other_entries: bool,
) -> NativePermissionTable {
    let mut policy = StaticPermissionPolicy::new(allow, deny);
    if allow_had_other_entries {
        policy = policy.with_unmatchable_allow_entries();
    }
    let (keys, reasons) = policy
        .listed()
        .into_iter()
        .map(|(key, decision)| match decision {
            KeyDecision::Allowed => (key, None),
            KeyDecision::Denied(reason) => (key, Some(reason)),
        })
        .unzip();
    NativePermissionTable {
        keys,
        reasons,
        allows_unlisted: policy.allows_unlisted(),
    }
}

/// `"Permission not allowed: <key>"`, the static policy's reason for an unlisted key when the
/// allow list is not empty.
#[napi]
pub fn permission_not_allowed_reason(key: String) -> String {
    permission::not_allowed_reason(&key)
}

/// `"Permission denied for <key>"`, a permission denial's message when its decision has no
/// reason.
#[napi]
pub fn permission_denied_message(key: String) -> String {
    permission::permission_denied_message(&key)
}

/// `"Untrusted <kind>: <target>"`, a trust denial's message when its decision has no reason.
#[napi]
pub fn untrusted_message(kind: String, target: String) -> String {
    permission::untrusted_message(&kind, &target)
}

/// `"Execution denied for <kind>:<operation>"`, an execution denial's message when its
/// decision has no reason.
#[napi]
pub fn execution_denied_message(kind: String, operation: String) -> String {
    permission::execution_denied_message(&kind, &operation)
}

/// `"Tool <name> has no parameters schema"` (`missingSchema: "reject"`).
#[napi]
pub fn missing_schema_message(tool: String) -> String {
    validator::missing_schema_message(&tool)
}

/// The message a call whose arguments failed validation is refused with: each error as
/// `path: message` (`paths[i]`, `messages[i]`; the message alone for an empty path), joined by
/// `"; "`, or `"Tool arguments failed validation: <name>"` when there are none.
#[napi]
pub fn validation_failure_message(
    tool: String,
    paths: Vec<String>,
    messages: Vec<String>,
) -> String {
    let errors: Vec<(String, String)> = paths.into_iter().zip(messages).collect();
    validator::failure_message(&tool, &errors)
}

/// `"A tool must be an object with a string name"`: the refusal of a registered non-tool.
#[napi]
pub fn not_a_tool_message() -> &'static str {
    prism_engine::tools::registry::not_a_tool_message()
}

/// `"Tool <name> must have an execute function"`.
#[napi]
pub fn no_execute_message(name: String) -> String {
    prism_engine::tools::registry::no_execute_message(&name)
}

/// `Middleware hook "<hook>" #<index>: next() called more than once`.
#[napi]
pub fn middleware_next_twice_message(hook: String, index: u32) -> String {
    middleware::next_called_twice_message(&hook, index)
}

/// The report of a middleware that called `next(value)` and returned another value.
#[napi]
pub fn middleware_value_dropped_message(hook: String, index: u32) -> String {
    middleware::value_dropped_message(&hook, index)
}

/// `middleware:<hook>`, the `extension` of a middleware's `extension_error`.
#[napi]
pub fn middleware_extension_name(hook: String) -> String {
    middleware::extension_name(&hook)
}
