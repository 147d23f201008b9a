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

use std::collections::HashMap;
use std::ffi::CStr;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use prism_engine::tools::args::FORBIDDEN_KEYS;
use prism_engine::tools::dispatch::{
    self as engine, BlockedError, CallFacts, CauseText, ErrorCode, ErrorInfo, EventKind, InfoShape,
    Outcome, ResultShape, Status as RowStatus, Step, Thrown, Verdict,
};
use prism_engine::tools::filter::{allows, ToolFilter};
use prism_engine::tools::redact::{redact_secrets, REDACTED};
use prism_engine::tools::registry::RegistryError;
use prism_engine::tools::{BlockedReason, Gate, HookSet, DISPATCH_ORDER};

use crate::errors::{facade_bug, NativeError};

type V = sys::napi_value;

const T_UNDEFINED: i32 = 0;
const T_NULL: i32 = 1;
const T_BOOLEAN: i32 = 2;
const T_NUMBER: i32 = 3;
const T_STRING: i32 = 4;
const T_SYMBOL: i32 = 5;
const T_OBJECT: i32 = 6;
const T_FUNCTION: i32 = 7;
const T_BIGINT: i32 = 9;

/// Depth to which a validator's verdict object is copied with redaction (the engine's limit).
const VERDICT_REDACT_DEPTH: usize = prism_engine::limits::DISPATCH_VERDICT_REDACT_DEPTH;

/// Thin checked wrappers over the raw Node-API calls this file needs.
#[derive(Clone, Copy)]
struct Js(sys::napi_env);

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        // With a pending JS exception napi-rs leaves that exception in place.
        Err(Error::new(Status::from(status), "Node-API call failed"))
    }
}

impl Js {
    fn type_of(self, v: V) -> Result<i32> {
        let mut t = 0;
        check(unsafe { sys::napi_typeof(self.0, v, &mut t) })?;
        Ok(t)
    }
    fn is_array(self, v: V) -> Result<bool> {
        let mut b = false;
        check(unsafe { sys::napi_is_array(self.0, v, &mut b) })?;
        Ok(b)
    }
    fn array_len(self, v: V) -> Result<u32> {
        let mut n = 0;
        check(unsafe { sys::napi_get_array_length(self.0, v, &mut n) })?;
        Ok(n)
    }
    fn element(self, v: V, i: u32) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_element(self.0, v, i, &mut out) })?;
        Ok(out)
    }
    fn get(self, v: V, key: &CStr) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_named_property(self.0, v, key.as_ptr(), &mut out) })?;
        Ok(out)
    }
    fn get_key(self, v: V, key: V) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_property(self.0, v, key, &mut out) })?;
        Ok(out)
    }
    fn set(self, v: V, key: &CStr, value: V) -> Result<()> {
        check(unsafe { sys::napi_set_named_property(self.0, v, key.as_ptr(), value) })
    }
    fn set_key(self, v: V, key: V, value: V) -> Result<()> {
        check(unsafe { sys::napi_set_property(self.0, v, key, value) })
    }
    fn object(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_object(self.0, &mut out) })?;
        Ok(out)
    }
    fn array(self, items: &[V]) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_array_with_length(self.0, items.len(), &mut out) })?;
        for (i, item) in items.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| Error::from_reason("array too long"))?;
            check(unsafe { sys::napi_set_element(self.0, out, i, *item) })?;
        }
        Ok(out)
    }
    fn string(self, s: &str) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_create_string_utf8(self.0, s.as_ptr().cast(), s.len() as isize, &mut out)
        })?;
        Ok(out)
    }
    fn number(self, n: f64) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_double(self.0, n, &mut out) })?;
        Ok(out)
    }
    fn null(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_null(self.0, &mut out) })?;
        Ok(out)
    }
    fn undefined(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_undefined(self.0, &mut out) })?;
        Ok(out)
    }
    fn global(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_global(self.0, &mut out) })?;
        Ok(out)
    }
    fn double(self, v: V) -> Result<f64> {
        let mut n = 0.0;
        check(unsafe { sys::napi_get_value_double(self.0, v, &mut n) })?;
        Ok(n)
    }
    fn truthy(self, v: V) -> Result<bool> {
        let mut b = ptr::null_mut();
        check(unsafe { sys::napi_coerce_to_bool(self.0, v, &mut b) })?;
        let mut out = false;
        check(unsafe { sys::napi_get_value_bool(self.0, b, &mut out) })?;
        Ok(out)
    }
    fn text(self, v: V) -> Result<String> {
        let mut len = 0;
        check(unsafe { sys::napi_get_value_string_utf8(self.0, v, ptr::null_mut(), 0, &mut len) })?;
        let mut buf = vec![0u8; len + 1];
        let mut written = 0;
        check(unsafe {
            sys::napi_get_value_string_utf8(
                self.0,
                v,
                buf.as_mut_ptr().cast(),
                len + 1,
                &mut written,
            )
        })?;
        buf.truncate(written);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
    fn strict_equals(self, a: V, b: V) -> Result<bool> {
        let mut out = false;
        check(unsafe { sys::napi_strict_equals(self.0, a, b, &mut out) })?;
        Ok(out)
    }
    fn own_keys(self, v: V) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_get_all_property_names(
                self.0,
                v,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::numbers_to_strings,
                &mut out,
            )
        })?;
        Ok(out)
    }
    fn instance_of(self, v: V, ctor: V) -> Result<bool> {
        let mut out = false;
        check(unsafe { sys::napi_instanceof(self.0, v, ctor, &mut out) })?;
        Ok(out)
    }
    fn call(self, recv: V, f: V, args: &[V]) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_call_function(self.0, recv, f, args.len(), args.as_ptr(), &mut out)
        })?;
        Ok(out)
    }
    fn clear_exception(self) {
        let mut ignored = ptr::null_mut();
        unsafe { sys::napi_get_and_clear_last_exception(self.0, &mut ignored) };
    }
    /// `String(v)` through the global `String` function.
    fn to_text(self, v: V) -> Result<String> {
        let g = self.global()?;
        let f = self.get(g, c"String")?;
        let s = self.call(g, f, &[v])?;
        self.text(s)
    }
}

fn unknown<'a>(env: &'a Env, v: V) -> Unknown<'a> {
    unsafe { Unknown::from_raw_unchecked(env.raw(), v) }
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        .floor()
}

fn secrets_of(js: Js, secrets: V) -> Result<Vec<String>> {
    if js.type_of(secrets)? != T_OBJECT || !js.is_array(secrets)? {
        return Ok(Vec::new());
    }
    let n = js.array_len(secrets)?;
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let s = js.element(secrets, i)?;
        if js.type_of(s)? == T_STRING {
            out.push(js.text(s)?);
        }
    }
    Ok(out)
}

fn info_object(js: Js, info: &ErrorInfo) -> Result<V> {
    let o = js.object()?;
    let undef = js.undefined()?;
    if info.shape == InfoShape::Thrown {
        let name = info.name.as_deref().unwrap_or(engine::DEFAULT_ERROR_NAME);
        js.set(o, c"name", js.string(name)?)?;
    }
    js.set(o, c"message", js.string(&info.message)?)?;
    if info.shape != InfoShape::Message {
        let code = match &info.code {
            None => undef,
            Some(ErrorCode::Text(t)) => js.string(t)?,
            Some(ErrorCode::Number(n)) => js.number(*n)?,
        };
        js.set(o, c"code", code)?;
    }
    if info.shape == InfoShape::Thrown {
        let cause = match &info.cause {
            None => undef,
            Some(c) => js.string(c)?,
        };
        js.set(o, c"cause", cause)?;
        if let Some(r) = info.retry_after_ms {
            js.set(o, c"retryAfterMs", js.number(r)?)?;
        }
    }
    Ok(o)
}

/// The engine's view of a thrown JS value.
fn read_thrown(js: Js, err: V) -> Result<Thrown> {
    let is_object = js.type_of(err)? == T_OBJECT;
    let g = js.global()?;
    let error_ctor = js.get(g, c"Error")?;
    let is_error = is_object && js.instance_of(err, error_ctor)?;
    let message = if is_object {
        Some(js.get(err, c"message")?)
    } else {
        None
    };
    let error_like = is_error || message.is_some_and(|m| js.type_of(m).ok() == Some(T_STRING));
    let Some(message) = message.filter(|_| error_like) else {
        return Ok(Thrown::Other(js.to_text(err)?));
    };
    let name = js.get(err, c"name")?;
    let code = js.get(err, c"code")?;
    let cause = js.get(err, c"cause")?;
    let retry = js.get(err, c"retryAfterMs")?;
    let cause = match js.type_of(cause)? {
        T_UNDEFINED => None,
        t => Some(cause_to_text(js, cause, t, error_ctor)?),
    };
    Ok(Thrown::ErrorLike {
        name: (js.type_of(name)? == T_STRING)
            .then(|| js.text(name))
            .transpose()?,
        message: if js.type_of(message)? == T_STRING {
            js.text(message)?
        } else {
            js.to_text(message)?
        },
        code: match js.type_of(code)? {
            T_STRING => Some(ErrorCode::Text(js.text(code)?)),
            T_NUMBER => Some(ErrorCode::Number(js.double(code)?)),
            _ => None,
        },
        cause,
        retry_after_ms: (js.type_of(retry)? == T_NUMBER)
            .then(|| js.double(retry))
            .transpose()?,
    })
}

fn cause_to_text(js: Js, cause: V, t: i32, error_ctor: V) -> Result<String> {
    let is_error = t == T_OBJECT && js.instance_of(cause, error_ctor)?;
    match engine::cause_text(is_error, t == T_STRING) {
        CauseText::ErrorMessage => {
            let m = js.get(cause, c"message")?;
            js.to_text(m)
        }
        CauseText::Itself => js.text(cause),
        CauseText::Json => {
            let g = js.global()?;
            let json = js.get(g, c"JSON")?;
            let stringify = js.get(json, c"stringify")?;
            match js.call(json, stringify, &[cause]) {
                Ok(s) if js.type_of(s)? == T_STRING => js.text(s),
                Ok(_) => js.to_text(cause),
                Err(_) => {
                    js.clear_exception();
                    js.to_text(cause)
                }
            }
        }
    }
}

fn thrown_info(js: Js, err: V, secrets: V) -> Result<ErrorInfo> {
    let secrets = secrets_of(js, secrets)?;
    let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
    Ok(engine::error_info(read_thrown(js, err)?, &refs))
}

/// A deep copy of `v` with every string redacted; a cycle keeps the original object, and
/// nesting deeper than [`VERDICT_REDACT_DEPTH`] becomes the redaction marker.
fn redact_value(js: Js, v: V, secrets: &[&str], path: &mut Vec<V>) -> Result<V> {
    match js.type_of(v)? {
        T_STRING => {
            let s = js.text(v)?;
            let r = redact_secrets(&s, secrets.iter().copied());
            if r == s {
                Ok(v)
            } else {
                js.string(&r)
            }
        }
        T_OBJECT => {
            for a in path.iter() {
                if js.strict_equals(*a, v)? {
                    return Ok(v);
                }
            }
            if path.len() >= VERDICT_REDACT_DEPTH {
                return js.string(REDACTED);
            }
            path.push(v);
            let out = if js.is_array(v)? {
                let n = js.array_len(v)?;
                let mut items = Vec::with_capacity(n as usize);
                for i in 0..n {
                    items.push(redact_value(js, js.element(v, i)?, secrets, path)?);
                }
                js.array(&items)?
            } else {
                let o = js.object()?;
                let keys = js.own_keys(v)?;
                for i in 0..js.array_len(keys)? {
                    let k = js.element(keys, i)?;
                    let value = redact_value(js, js.get_key(v, k)?, secrets, path)?;
                    js.set_key(o, k, value)?;
                }
                o
            };
            path.pop();
            Ok(out)
        }
        _ => Ok(v),
    }
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

/// `(event, result)` of a blocked call.
fn blocked_pair(js: Js, rec: &Record, reason: BlockedReason, error: V) -> Result<(V, V)> {
    let id = js.get(rec.call, c"id")?;
    let name = js.get(rec.call, c"name")?;
    let event = js.object()?;
    js.set(event, c"type", js.string(EventKind::Blocked.as_str())?)?;
    js.set(event, c"sessionId", rec.session)?;
    js.set(event, c"runId", rec.run)?;
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
    let event = js.object()?;
    js.set(event, c"type", js.string(EventKind::Error.as_str())?)?;
    js.set(event, c"sessionId", rec.session)?;
    js.set(event, c"runId", rec.run)?;
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
    let rec = Record::read(js, d.raw())?;
    let v = verdict.raw();
    let verdict = if js.type_of(v)? == T_STRING {
        Verdict::Message(js.text(v)?)
    } else {
        Verdict::Value
    };
    let step = engine::decide(Gate::Validate, Outcome::Rejected(verdict), &rec.secrets());
    Ok(unknown(env, apply(js, &rec, step, Some(v))?))
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

/// The shape of a JS value, by `typeof` (an array and `null` apart).
fn result_shape(js: Js, v: V) -> Result<ResultShape<'static>> {
    Ok(match js.type_of(v)? {
        T_OBJECT if js.is_array(v)? => ResultShape::Array,
        T_OBJECT => ResultShape::Object,
        T_NULL => ResultShape::Null,
        T_UNDEFINED => ResultShape::Other("undefined"),
        T_BOOLEAN => ResultShape::Other("boolean"),
        T_NUMBER => ResultShape::Other("number"),
        T_STRING => ResultShape::Other("string"),
        T_SYMBOL => ResultShape::Other("symbol"),
        T_FUNCTION => ResultShape::Other("function"),
        T_BIGINT => ResultShape::Other("bigint"),
        _ => ResultShape::Other("object"),
    })
}

/// The `code` of a thrown object when it is a string.
fn thrown_code(js: Js, e: V) -> Result<Option<String>> {
    if js.type_of(e)? != T_OBJECT {
        return Ok(None);
    }
    let code = js.get(e, c"code")?;
    if js.type_of(code)? == T_STRING {
        Ok(Some(js.text(code)?))
    } else {
        Ok(None)
    }
}

/// `read`'s value, or `None` with the JS exception it left pending cleared.
fn read_or_clear<T>(js: Js, read: Result<T>) -> Option<T> {
    match read {
        Ok(v) => Some(v),
        Err(_) => {
            js.clear_exception();
            None
        }
    }
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
    let event = js.object()?;
    js.set(event, c"type", js.string(EventKind::Progress.as_str())?)?;
    js.set(event, c"sessionId", session_id.raw())?;
    js.set(event, c"runId", run_id.raw())?;
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

/// One filter as hosts write it (`{ allow?, deny? }`).
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
        let filters: Vec<Option<NativeToolFilterInput>> =
            crate::args::object(&env, &filters, "filterTools")?;
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
