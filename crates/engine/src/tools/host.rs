//! A driver of the [`DispatchMachine`] for Rust hosts: Rust tools and Rust hooks, with
//! `serde_json` arguments, through the same steps and decisions as the JavaScript driver.
//! It performs the callback each step names and reports what happened (the call check's
//! facts, a thrown value, a validator's message, the shape of `execute`'s value); every
//! decision on those facts is the machine's ([`dispatch::decide`]).
//!
//! [`dispatch_call`] runs one call; [`dispatch_turn`] runs a provider turn's calls with the
//! turn scheduler of [`crate::parallel`] (bounded concurrency, results in call order).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::args::is_json_object;
use super::dispatch::{
    self, BlockedError, CallFacts, DispatchMachine, ErrorInfo, EventKind, Outcome, ResultShape,
    Step, Thrown, Verdict,
};
use super::filter::{allows, ToolFilter};
use super::gate::{Gate, HookSet};
use super::registry::Registry;
use super::BlockedReason;

/// A boxed future, as tool and hook implementations return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One tool call of a provider turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments the model sent.
    pub arguments: Value,
    /// A parse error of the arguments, reported as `invalid_arguments` unchanged.
    pub arguments_error: Option<ErrorInfo>,
}

/// What a dispatch returns: a value, or the error of a blocked or failed call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call id.
    pub tool_call_id: String,
    /// The tool name.
    pub name: String,
    /// The tool's value (`None` when blocked or failed).
    pub value: Option<Value>,
    /// Why the call was blocked or failed.
    pub error: Option<ErrorInfo>,
}

/// A tool a Rust host registers.
pub trait Tool: Send + Sync {
    /// The tool's name.
    fn name(&self) -> &str;
    /// Runs the tool. `Ok` carries the result value (an object); `Err` is a thrown error.
    fn execute<'a>(&'a self, arguments: &'a Value) -> BoxFuture<'a, Result<Value, Thrown>>;
}

/// A dispatch event, in the vocabulary of [`EventKind`].
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Which event.
    pub kind: EventKind,
    /// The call id.
    pub tool_call_id: String,
    /// The tool name.
    pub name: String,
    /// The blocked reason (blocked events).
    pub reason: Option<BlockedReason>,
    /// The error (blocked and error events).
    pub error: Option<ErrorInfo>,
    /// Milliseconds since the dispatch started (finished, error and blocked events).
    pub duration_ms: Option<f64>,
}

/// A permission (or trust) check: `Err` with the denial's thrown error.
pub type CheckHook = Arc<dyn Fn(&ToolCall) -> Result<(), Thrown> + Send + Sync>;
/// A validator: `Some(message)` rejects the arguments.
pub type ValidateHook = Arc<dyn Fn(&dyn Tool, &Value) -> Option<String> + Send + Sync>;
/// An event sink.
pub type EmitHook = Arc<dyn Fn(Event) + Send + Sync>;

/// The hooks and settings of a Rust host's dispatch. Absent hooks cost nothing.
#[derive(Clone, Default)]
pub struct Hooks {
    /// The trust policy.
    pub trust: Option<CheckHook>,
    /// The permission policy.
    pub permission: Option<CheckHook>,
    /// The validator.
    pub validate: Option<ValidateHook>,
    /// Runs last before `execute`; an `Err` blocks the call as `execution_denied`, unless its
    /// code suspends the run ([`dispatch::is_rethrown`]): then the dispatch returns it.
    pub before_execute: Option<CheckHook>,
    /// Receives every event.
    pub emit: Option<EmitHook>,
    /// Tool filters (deny wins).
    pub filters: Vec<ToolFilter>,
    /// Strings replaced by the redaction marker in every error.
    pub secrets: Vec<String>,
}

impl Hooks {
    fn set(&self) -> HookSet {
        let mut bits = 0;
        if self.trust.is_some() {
            bits |= HookSet::TRUST;
        }
        if self.permission.is_some() {
            bits |= HookSet::PERMISSION;
        }
        if self.validate.is_some() {
            bits |= HookSet::VALIDATE;
        }
        if self.before_execute.is_some() {
            bits |= HookSet::BEFORE_EXECUTE;
        }
        HookSet(bits)
    }
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// What performing one step gave: a fact for the machine, or a thrown value (kept, since the
/// machine may say it propagates).
enum Performed<'a> {
    Fact(Outcome<'a>),
    Threw(Thrown),
}

/// Runs one call through the dispatch machine and returns its result. Blocked and failed
/// calls are results, each with exactly one final event. `Err` carries a value thrown by
/// `beforeExecute` that the machine says propagates (a suspension of the run): no final event,
/// as on the Node path.
pub async fn dispatch_call(
    registry: &Registry<Arc<dyn Tool>>,
    call: &ToolCall,
    hooks: &Hooks,
) -> Result<ToolResult, Thrown> {
    let start = now_ms();
    let emit = |kind, reason, error: Option<ErrorInfo>, timed: bool| {
        if let Some(e) = &hooks.emit {
            e(Event {
                kind,
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                reason,
                error,
                duration_ms: timed.then(|| dispatch::duration_ms(start, now_ms())),
            });
        }
    };
    let finish = |error: Option<ErrorInfo>, value: Option<Value>| ToolResult {
        tool_call_id: call.id.clone(),
        name: call.name.clone(),
        value,
        error,
    };
    let tool = registry.get(&call.name).cloned();
    let mut machine = DispatchMachine::new(hooks.set(), hooks.secrets.clone());
    let mut step = machine.start();
    let mut value = None;
    // The value the last step threw, kept for a `Rethrow`.
    let mut threw = None;
    loop {
        step = match step {
            Step::Perform(gate) => {
                match perform(gate, call, tool.as_deref(), hooks, &mut value, &emit).await {
                    Performed::Fact(outcome) => machine.resume(outcome),
                    Performed::Threw(thrown) => {
                        let next = machine.resume(Outcome::Threw {
                            error: thrown.clone(),
                            code: dispatch::thrown_code(&thrown),
                        });
                        threw = Some(thrown);
                        next
                    }
                }
            }
            Step::Block(reason, error) => {
                let error = blocked_error(call, error);
                emit(EventKind::Blocked, Some(reason), Some(error.clone()), true);
                return Ok(finish(Some(error), None));
            }
            Step::Fail(error) => {
                emit(EventKind::Error, None, Some(error.clone()), true);
                return Ok(finish(Some(error), None));
            }
            Step::Rethrow => return Err(threw.unwrap_or_else(dispatch::unreadable_thrown)),
            Step::Done => return Ok(finish(None, value)),
        };
    }
}

/// The `ErrorInfo` of a blocked call's [`BlockedError`]: the call's own `argumentsError`, or
/// the engine's. (A Rust validator's verdict is a message, never an object.)
fn blocked_error(call: &ToolCall, error: BlockedError) -> ErrorInfo {
    match error {
        BlockedError::Info(info) => info,
        BlockedError::ArgumentsError | BlockedError::RedactedVerdict => call
            .arguments_error
            .clone()
            .unwrap_or_else(|| ErrorInfo::message(String::new())),
    }
}

/// The shape of a JSON value `execute` returned, by its JavaScript `typeof`.
fn shape_of(v: &Value) -> ResultShape<'static> {
    match v {
        Value::Object(_) => ResultShape::Object,
        Value::Null => ResultShape::Null,
        Value::Array(_) => ResultShape::Array,
        Value::String(_) => ResultShape::Other("string"),
        Value::Number(_) => ResultShape::Other("number"),
        Value::Bool(_) => ResultShape::Other("boolean"),
    }
}

/// Performs `gate`'s callback and reports what happened; never decides.
async fn perform<'a>(
    gate: Gate,
    call: &'a ToolCall,
    tool: Option<&dyn Tool>,
    hooks: &Hooks,
    value: &mut Option<Value>,
    emit: &(dyn Fn(EventKind, Option<BlockedReason>, Option<ErrorInfo>, bool) + Sync),
) -> Performed<'a> {
    let fact = match gate {
        Gate::CheckCall => Outcome::Checked(CallFacts {
            name: &call.name,
            tool_found: tool.is_some(),
            filter_allows: tool.is_none_or(|t| allows(&hooks.filters, t.name())),
            has_arguments_error: call.arguments_error.is_some(),
            arguments_are_json_object: is_json_object(&call.arguments),
        }),
        Gate::Trust | Gate::Permission | Gate::BeforeExecute => {
            let hook = match gate {
                Gate::Trust => &hooks.trust,
                Gate::Permission => &hooks.permission,
                _ => &hooks.before_execute,
            };
            if let Some(Err(thrown)) = hook.as_ref().map(|h| h(call)) {
                return Performed::Threw(thrown);
            }
            Outcome::Proceed
        }
        Gate::Validate => match (&hooks.validate, tool) {
            (Some(v), Some(t)) => v(t, &call.arguments)
                .map_or(Outcome::Proceed, |m| Outcome::Rejected(Verdict::Message(m))),
            _ => Outcome::Proceed,
        },
        Gate::Started => {
            emit(EventKind::Started, None, None, false);
            Outcome::Proceed
        }
        Gate::Execute => {
            let Some(tool) = tool else {
                return Performed::Fact(Outcome::Proceed);
            };
            match tool.execute(&call.arguments).await {
                Ok(v) => {
                    let shape = shape_of(&v);
                    *value = Some(v);
                    Outcome::Returned {
                        tool: &call.name,
                        shape,
                    }
                }
                Err(thrown) => return Performed::Threw(thrown),
            }
        }
        Gate::Finished => {
            emit(EventKind::Finished, None, None, true);
            Outcome::Proceed
        }
        Gate::ToolCallMiddleware | Gate::ResultMiddleware | Gate::Redact => Outcome::Proceed,
    };
    Performed::Fact(fact)
}

/// Dispatches one provider turn: at most `concurrency` calls in flight (1 when `exclusive`),
/// results in call order. A call whose `beforeExecute` suspended the run is an `Err` in its
/// slot; a host ends the turn at the first one.
pub async fn dispatch_turn(
    registry: &Registry<Arc<dyn Tool>>,
    calls: &[ToolCall],
    hooks: &Hooks,
    tool_concurrency: f64,
    exclusive: bool,
) -> Vec<Result<ToolResult, Thrown>> {
    let concurrency = crate::parallel::turn_concurrency(tool_concurrency, calls.len(), exclusive);
    crate::parallel::dispatch_in_order(calls.iter().collect(), concurrency, |call| {
        dispatch_call(registry, call, hooks)
    })
    .await
}
