//! Node-API glue for the engine's dispatch machine (`prism_engine::tools::dispatch`).
//!
//! The JS driver (`lib/core/dispatch.js`) performs the host callbacks and, when a fact fails
//! (the call check, a throw, a validator's verdict, a result that is not an object), reports it
//! here: each `report*` function reads the fact straight from the JS values (no conversion of
//! the call to Rust values), asks the engine's [`engine::decide`] (the decision the
//! `DispatchMachine` applies for Rust hosts too) and converts the decision into ready JS
//! objects: a blocked or error `[event, result, status]`, or "go on", or "rethrow". It decides
//! nothing itself. Also here: `ErrorInfo`s of thrown values, the progress event and ledger
//! rows. Host values inside them (the call, the result, the host's `argumentsError`) are the
//! same objects, so identity holds. A successful call without hooks crosses none of them.
//! The raw Node-API wrappers are in `js_raw.rs`; reading thrown values and building
//! `ErrorInfo` objects in `js_errors.rs`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use prism_engine::tools::args::FORBIDDEN_KEYS;
use prism_engine::tools::dispatch::{
    self as engine, BlockedError, CallFacts, ErrorInfo, EventKind, Outcome, Status as RowStatus,
    Step, Verdict,
};
use prism_engine::tools::filter::{allows, ToolFilter};
use prism_engine::tools::registry::RegistryError;
use prism_engine::tools::{BlockedReason, Gate, HookSet, DISPATCH_ORDER};

use crate::errors::{facade_bug, NativeError};
use crate::js_errors::{
    info_object, read_or_clear, read_thrown, redact_value, result_shape, secrets_of, thrown_code,
    thrown_info,
};
use crate::js_raw::{unknown, Js, T_OBJECT, T_STRING, V};

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        .floor()
}

fn metadata(js: Js, start_ms: f64, status: RowStatus) -> Result<V> {
    let m = js.object()?;
    js.set(
        m,
        c"durationMs",
        js.number(engine::duration_ms(start_ms, now_ms()))?,
    )?;
    js.set(m, c"status", js.string(status.as_str())?)?;
    Ok(m)
}

/// A dispatch event's head: `{ type, sessionId, runId }`, the keys every event starts with.
fn event_object(js: Js, kind: EventKind, session: V, run: V) -> Result<V> {
    let event = js.object()?;
    js.set(event, c"type", js.string(kind.as_str())?)?;
    js.set(event, c"sessionId", session)?;
    js.set(event, c"runId", run)?;
    Ok(event)
}

/// `(event, result)` of a blocked call.
fn blocked_pair(js: Js, rec: &Record, reason: BlockedReason, error: V) -> Result<(V, V)> {
    let id = js.get(rec.call, c"id")?;
    let name = js.get(rec.call, c"name")?;
    let event = event_object(js, EventKind::Blocked, rec.session, rec.run)?;
    js.set(event, c"toolCallId", id)?;
    js.set(event, c"name", name)?;
    js.set(event, c"reason", js.string(reason.as_str())?)?;
    js.set(event, c"error", error)?;
    js.set(
        event,
        c"metadata",
        metadata(js, rec.start_ms, RowStatus::Blocked)?,
    )?;
    let result = js.object()?;
    js.set(result, c"toolCallId", id)?;
    js.set(result, c"name", name)?;
    js.set(result, c"error", error)?;
    Ok((event, result))
}

/// `(event, result)` of a call whose `execute` (or result middleware) failed.
fn failed_pair(js: Js, rec: &Record, info: &ErrorInfo) -> Result<(V, V)> {
    let info = info_object(js, info)?;
    let event = event_object(js, EventKind::Error, rec.session, rec.run)?;
    js.set(event, c"call", rec.call)?;
    js.set(event, c"error", info)?;
    js.set(
        event,
        c"metadata",
        metadata(js, rec.start_ms, RowStatus::Error)?,
    )?;
    let result = js.object()?;
    js.set(result, c"toolCallId", js.get(rec.call, c"id")?)?;
    js.set(result, c"name", js.get(rec.call, c"name")?)?;
    js.set(result, c"error", info)?;
    Ok((event, result))
}

/// What the binding reads of the driver's dispatch record `d` (`{ call, sessionId, runId,
/// start, secrets }`) to shape an ending.
struct Record {
    call: V,
    session: V,
    run: V,
    start_ms: f64,
    secrets: Vec<String>,
}

impl Record {
    fn read(js: Js, d: V) -> Result<Self> {
        Ok(Self {
            call: js.get(d, c"call")?,
            session: js.get(d, c"sessionId")?,
            run: js.get(d, c"runId")?,
            start_ms: js.double(js.get(d, c"start")?)?,
            secrets: secrets_of(js, js.get(d, c"secrets")?)?,
        })
    }

    fn secrets(&self) -> Vec<&str> {
        self.secrets.iter().map(String::as_str).collect()
    }

    fn tool_name(&self, js: Js) -> Result<String> {
        js.to_text(js.get(self.call, c"name")?)
    }
}

/// The machine's decision as the driver applies it: `undefined` to go on, `null` when the
/// thrown value propagates, or `[event, result, status]` (the ledger status code) of a blocked
/// or failed call. `verdict` is the validator's own value, for [`BlockedError::RedactedVerdict`].
fn apply(js: Js, rec: &Record, step: Option<Step>, verdict: Option<V>) -> Result<V> {
    let (event, result, status) = match step {
        None | Some(Step::Perform(_) | Step::Done) => return js.undefined(),
        Some(Step::Rethrow) => return js.null(),
        Some(Step::Block(reason, error)) => {
            let error = match error {
                BlockedError::Info(info) => info_object(js, &info)?,
                BlockedError::ArgumentsError => js.get(rec.call, c"argumentsError")?,
                BlockedError::RedactedVerdict => match verdict {
                    Some(v) => redact_value(js, v, &rec.secrets(), &mut Vec::new())?,
                    None => js.undefined()?,
                },
            };
            let (event, result) = blocked_pair(js, rec, reason, error)?;
            (event, result, RowStatus::Blocked)
        }
        Some(Step::Fail(info)) => {
            let (event, result) = failed_pair(js, rec, &info)?;
            (event, result, RowStatus::Error)
        }
    };
    js.array(&[event, result, js.number(f64::from(status as u32))?])
}

/// Reports the call check's facts the driver read (tool found, filter verdict, the JSON-object
/// walk; `argumentsError` is read here) and returns the machine's decision: `undefined` to go
/// on, or the blocked call's `[event, result, status]`.
#[napi]
pub fn report_call_checked<'a>(
    env: &'a Env,
    d: Unknown<'a>,
    tool_found: bool,
    filter_allows: bool,
    arguments_are_json_object: bool,
) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let rec = Record::read(js, d.raw())?;
    let name = rec.tool_name(js)?;
    let arguments_error = js.get(rec.call, c"argumentsError")?;
    let facts = CallFacts {
        name: &name,
        tool_found,
        filter_allows,
        has_arguments_error: js.truthy(arguments_error)?,
        arguments_are_json_object,
    };
    let step = engine::decide(Gate::CheckCall, Outcome::Checked(facts), &rec.secrets());
    Ok(unknown(env, apply(js, &rec, step, None)?))
}

/// Reports that the callback of step `gate` (`Gate as u8`) threw `error` and returns the
/// machine's decision: `null` when `error` propagates, otherwise the blocked or failed call's
/// `[event, result, status]`. A value that cannot be read (a `Proxy` whose traps throw, a
/// throwing getter) is reported as the engine's stand-in.
#[napi]
pub fn report_thrown<'a>(
    env: &'a Env,
    d: Unknown<'a>,
    gate: u32,
    error: Unknown<'a>,
) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let gate =
        Gate::from_code(gate).ok_or_else(|| facade_bug(env, format!("no dispatch gate {gate}")))?;
    let rec = Record::read(js, d.raw())?;
    let e = error.raw();
    let code = read_or_clear(js, thrown_code(js, e)).flatten();
    let thrown = read_or_clear(js, read_thrown(js, e)).unwrap_or_else(engine::unreadable_thrown);
    let outcome = Outcome::Threw {
        error: thrown,
        code: code.as_deref(),
    };
    let step = engine::decide(gate, outcome, &rec.secrets());
    Ok(unknown(env, apply(js, &rec, step, None)?))
}

/// Reports the validator's truthy `verdict` and returns the blocked call's
/// `[event, result, status]` the machine decided.
#[napi]
pub fn report_verdict<'a>(
    env: &'a Env,
    d: Unknown<'a>,
    verdict: Unknown<'a>,
) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let v = verdict.raw();
    let verdict = if js.type_of(v)? == T_STRING {
        Verdict::Message(js.text(v)?)
    } else {
        Verdict::Value
    };
    Ok(unknown(env, verdict_ending(js, d.raw(), verdict, v)?))
}

/// The blocked call's `[event, result, status]` for the validator's `verdict` (its JS value
/// `v`), as the machine decides it; also what the JSON Schema validator's dispatch check
/// returns, so a failing call crosses once.
pub(crate) fn verdict_ending(js: Js, d: V, verdict: Verdict, v: V) -> Result<V> {
    let rec = Record::read(js, d)?;
    let step = engine::decide(Gate::Validate, Outcome::Rejected(verdict), &rec.secrets());
    apply(js, &rec, step, Some(v))
}

/// Reports the value `execute` resolved to and returns the machine's decision: `undefined` for
/// a result object, otherwise the failed call's `[event, result, status]`.
#[napi]
pub fn report_result<'a>(env: &'a Env, d: Unknown<'a>, value: Unknown<'a>) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let rec = Record::read(js, d.raw())?;
    let shape = result_shape(js, value.raw())?;
    let tool = rec.tool_name(js)?;
    let outcome = Outcome::Returned { tool: &tool, shape };
    let step = engine::decide(Gate::Execute, outcome, &rec.secrets());
    Ok(unknown(env, apply(js, &rec, step, None)?))
}

/// The words a dispatch's events use, and the forbidden argument keys, handed to the JS
/// driver once at load (building the two events of every successful call in JS is ~20x
/// cheaper than through Node-API property sets).
#[napi(object)]
pub struct NativeDispatchVocabulary {
    /// `tool_execution_started`.
    pub started: String,
    /// `tool_execution_finished`.
    pub finished: String,
    /// The `status` of a finished call's metadata.
    pub status_finished: String,
    /// Keys rejected at any depth of tool arguments.
    pub forbidden_keys: Vec<String>,
    /// `tool_execution_blocked`.
    pub blocked: String,
    /// Every blocked reason's wire name, in gate order (`unknown_tool`, `tool_denied`,
    /// `invalid_arguments`, `permission_denied`, `validation_failed`, `execution_denied`).
    pub reasons: Vec<String>,
    /// Every gate's code (`Gate as u8`) by its name.
    pub gates: HashMap<String, u32>,
    /// Every optional hook's `HookSet` bit by its name.
    pub hooks: HashMap<String, u32>,
    /// Every ledger-row status's code (what `ledgerRow` takes) by its wire name.
    pub statuses: HashMap<String, u32>,
    /// The middleware hook of the tool-call middleware gate (`tool_call`).
    pub tool_call_hook: String,
    /// The middleware hook of the result middleware gate (`tool_result`).
    pub tool_result_hook: String,
    /// The `kind` of a trust or permission request about a call (`tool`).
    pub request_kind: String,
    /// The `action` (trust: `capability`) of that request (`execute`).
    pub request_action: String,
}

/// The dispatch vocabulary (see [`NativeDispatchVocabulary`]).
#[napi]
pub fn dispatch_vocabulary() -> NativeDispatchVocabulary {
    NativeDispatchVocabulary {
        started: EventKind::Started.as_str().to_owned(),
        finished: EventKind::Finished.as_str().to_owned(),
        status_finished: RowStatus::Finished.as_str().to_owned(),
        forbidden_keys: FORBIDDEN_KEYS.iter().map(|k| (*k).to_owned()).collect(),
        blocked: EventKind::Blocked.as_str().to_owned(),
        reasons: BlockedReason::ALL
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect(),
        gates: DISPATCH_ORDER
            .iter()
            .map(|g| (g.name().to_owned(), *g as u32))
            .collect(),
        hooks: HookSet::NAMED
            .iter()
            .map(|(name, bit)| ((*name).to_owned(), *bit))
            .collect(),
        statuses: RowStatus::ALL
            .iter()
            .map(|s| (s.as_str().to_owned(), *s as u32))
            .collect(),
        tool_call_hook: hook_of(Gate::ToolCallMiddleware),
        tool_result_hook: hook_of(Gate::ResultMiddleware),
        request_kind: engine::REQUEST_KIND.to_owned(),
        request_action: engine::REQUEST_ACTION.to_owned(),
    }
}

fn hook_of(gate: Gate) -> String {
    gate.middleware_hook().unwrap_or_default().to_owned()
}

/// Throws the refusal of a registration under `duplicate: "error"`: an `Error` with code
/// `ERR_PRISM_DUPLICATE_TOOL` and message `Duplicate tool: <name>`.
#[napi]
pub fn throw_duplicate_tool(env: Env, name: String) -> Result<()> {
    Err(NativeError::from(RegistryError::Duplicate { name }).into_js(&env))
}

/// Throws the miss of a registry lookup: an `Error` with code `ERR_PRISM_UNKNOWN_TOOL` and
/// message `Unknown tool: <name>`.
#[napi]
pub fn throw_unknown_tool(env: Env, name: String) -> Result<()> {
    Err(NativeError::from(RegistryError::Unknown { name }).into_js(&env))
}

/// The ErrorInfo of a thrown value (`{ name, message, code, cause, retryAfterMs? }`), with
/// `secrets` replaced in the name, message, string code and cause.
#[napi]
pub fn thrown_error_info<'a>(
    env: &'a Env,
    error: Unknown<'a>,
    secrets: Unknown<'a>,
) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let info = thrown_info(js, error.raw(), secrets.raw())?;
    Ok(unknown(env, info_object(js, &info)?))
}

/// `denialToErrorInfo`: an `Error`'s own `{ name, message, code }`, or `{ message: String(value) }`
/// for any other value (the reference's shape, decided by the engine's `denial_shape`).
#[napi]
pub fn denial_error_info<'a>(env: &'a Env, error: Unknown<'a>) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    Ok(unknown(
        env,
        crate::js_errors::denial_object(js, error.raw())?,
    ))
}

/// The `tool_execution_progress` event of a call.
#[napi]
pub fn progress_event<'a>(
    env: &'a Env,
    call: Unknown<'a>,
    session_id: Unknown<'a>,
    run_id: Unknown<'a>,
    progress: Unknown<'a>,
    metadata: Unknown<'a>,
) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let call = call.raw();
    let event = event_object(js, EventKind::Progress, session_id.raw(), run_id.raw())?;
    js.set(event, c"toolCallId", js.get(call, c"id")?)?;
    js.set(event, c"name", js.get(call, c"name")?)?;
    js.set(event, c"progress", progress.raw())?;
    js.set(event, c"metadata", metadata.raw())?;
    Ok(unknown(env, event))
}

static LEDGER_SEQ: AtomicU64 = AtomicU64::new(0);

/// A new ledger row id (`toolcall_<process-unique>`) and the ISO `startedAt` of `start_ms`.
#[napi]
pub fn ledger_start(start_ms: f64) -> Vec<String> {
    let seq = LEDGER_SEQ.fetch_add(1, Ordering::Relaxed) + 1;
    let boot = ledger_boot();
    vec![
        format!("{}{boot}_{seq:x}", engine::LEDGER_ID_PREFIX),
        engine::iso_timestamp(start_ms),
    ]
}

fn ledger_boot() -> &'static str {
    static BOOT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BOOT.get_or_init(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{:x}{:x}", nanos, std::process::id())
    })
}

/// One ledger row. `row` holds `{ id, sessionId, runId, call, startedAt, redacted,
/// ownership }`; `status` is a status code from `dispatchVocabulary().statuses`; `reason`,
/// `result`, `progress` and `progressMetadata` are set where the status has them.
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn ledger_row<'a>(
    env: &'a Env,
    row: Unknown<'a>,
    status: u32,
    reason: Unknown<'a>,
    result: Unknown<'a>,
    progress: Unknown<'a>,
    progress_metadata: Unknown<'a>,
    with_progress: bool,
) -> Result<Unknown<'a>> {
    let js = Js(env.raw());
    let d = row.raw();
    let status = RowStatus::from_code(status)
        .ok_or_else(|| facade_bug(env, format!("no ledger status {status}")))?;
    let call = js.get(d, c"call")?;
    let o = js.object()?;
    js.set(o, c"id", js.get(d, c"id")?)?;
    js.set(o, c"sessionId", js.get(d, c"sessionId")?)?;
    js.set(o, c"runId", js.get(d, c"runId")?)?;
    js.set(o, c"toolCallId", js.get(call, c"id")?)?;
    js.set(o, c"name", js.get(call, c"name")?)?;
    js.set(o, c"arguments", js.get(call, c"arguments")?)?;
    js.set(o, c"startedAt", js.get(d, c"startedAt")?)?;
    js.set(o, c"redacted", js.get(d, c"redacted")?)?;
    let ownership = js.get(d, c"ownership")?;
    if js.type_of(ownership)? == T_OBJECT {
        let keys = js.own_keys(ownership)?;
        for i in 0..js.array_len(keys)? {
            let k = js.element(keys, i)?;
            js.set_key(o, k, js.get_key(ownership, k)?)?;
        }
    }
    js.set(o, c"status", js.string(status.as_str())?)?;
    if status == RowStatus::Blocked {
        js.set(o, c"reason", reason.raw())?;
    }
    if status.is_final() {
        js.set(
            o,
            c"finishedAt",
            js.string(&engine::iso_timestamp(now_ms()))?,
        )?;
        js.set(o, c"result", result.raw())?;
    } else if with_progress {
        js.set(o, c"progress", progress.raw())?;
        js.set(o, c"progressMetadata", progress_metadata.raw())?;
        js.set(
            o,
            c"progressAt",
            js.string(&engine::iso_timestamp(now_ms()))?,
        )?;
    }
    Ok(unknown(env, o))
}

/// One filter as hosts write it (`{ allow?, deny? }`): the TypeScript type of the crossing;
/// the binding reads it field by field (`crate::fields`).
#[napi(object)]
pub struct NativeToolFilterInput {
    /// Names allowed; absent or empty imposes no restriction.
    pub allow: Option<Vec<String>>,
    /// Names denied.
    pub deny: Option<Vec<String>>,
}

/// A compiled tool filter (one or several `{ allow?, deny? }`; deny wins).
#[napi]
pub struct NativeToolFilter {
    filters: Vec<ToolFilter>,
}

#[napi]
impl NativeToolFilter {
    /// Compiles the filters (absent entries are skipped).
    #[napi(
        constructor,
        ts_args_type = "filters: Array<NativeToolFilterInput | undefined | null>"
    )]
    pub fn new(env: Env, filters: Unknown<'_>) -> Result<Self> {
        let filters = crate::fields::Fields::list(&env, &filters, "filterTools", |f| {
            Ok(NativeToolFilterInput {
                allow: f.strings("allow")?,
                deny: f.strings("deny")?,
            })
        })?;
        Ok(Self {
            filters: filters
                .into_iter()
                .flatten()
                .map(|f| ToolFilter {
                    allow: f.allow,
                    deny: f.deny,
                })
                .collect(),
        })
    }

    /// Whether `name` passes every filter.
    #[napi]
    pub fn allows(&self, name: String) -> bool {
        allows(&self.filters, &name)
    }
}
