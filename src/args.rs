//! Argument checks shared by every binding file.
//!
//! A parameter typed `f64` or `String` in a `#[napi]` signature makes Node-API reject a
//! wrong-typed value with its own message ("Failed to convert napi value … into rust type").
//! Parameters that carry caller input take an [`Unknown`] instead and go through these
//! helpers, which throw a `TypeError` naming the argument or option field (code
//! `ERR_INVALID_ARG_TYPE`). [`object`] does this for a whole `#[napi(object)]` struct: it runs
//! Node-API's conversion and rewrites its failure in our words, in this one place.

use napi::bindgen_prelude::FromNapiValue;
use napi::{Env, JsValue, Status, Unknown, ValueType};

/// The `typeof`-style name of a value's type, for messages.
pub(crate) fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Object => "object",
        ValueType::Function => "function",
        ValueType::External => "external",
        ValueType::BigInt => "bigint",
        _ => "unknown",
    }
}

/// Throws `TypeError(message)` (code `ERR_INVALID_ARG_TYPE`) and returns the pending-exception
/// error that tells Node-API not to throw a second one.
///
/// # Errors
/// Always.
pub(crate) fn type_error<T>(env: &Env, message: &str) -> napi::Result<T> {
    env.throw_type_error(message, Some("ERR_INVALID_ARG_TYPE"))?;
    Err(napi::Error::new(
        Status::PendingException,
        message.to_owned(),
    ))
}

/// A JavaScript number as a whole count of bytes, items or seconds: its integer part, or 0
/// for a value that is not finite or not above 0.
pub(crate) fn non_negative(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v as u64
    } else {
        0
    }
}

/// `value` as a number, or `None` when it is not one.
///
/// # Errors
/// When Node-API cannot read the value's type.
pub(crate) fn as_number(value: &Unknown<'_>) -> napi::Result<Option<f64>> {
    if value.get_type()? != ValueType::Number {
        return Ok(None);
    }
    // SAFETY: the value was just checked to be a JS number.
    unsafe { value.cast::<f64>() }.map(Some)
}

/// `value` as a number; a `TypeError` `"<name> must be a number (got <type>)"` otherwise.
///
/// # Errors
/// The `TypeError` above, or a Node-API failure reading the value.
pub(crate) fn number(env: &Env, value: &Unknown<'_>, name: &str) -> napi::Result<f64> {
    match as_number(value)? {
        Some(n) => Ok(n),
        None => type_error(
            env,
            &format!(
                "{name} must be a number (got {})",
                type_name(value.get_type()?)
            ),
        ),
    }
}

/// Our message for a failed `#[napi(object)]` conversion: the field Node-API names (`" on
/// Struct.field"`) and the type its status expects.
fn conversion_message(what: &str, e: &napi::Error) -> String {
    if let Some(field) = e
        .reason
        .strip_prefix("Missing field `")
        .and_then(|r| r.strip_suffix('`'))
    {
        return format!("{what}: {field} is required");
    }
    let expected = match e.status {
        Status::StringExpected => "a string",
        Status::NumberExpected => "a number",
        Status::BooleanExpected => "a boolean",
        Status::ObjectExpected => "an object",
        Status::ArrayExpected => "an array",
        Status::FunctionExpected => "a function",
        Status::BigintExpected => "a bigint",
        _ => "of another type",
    };
    let field = e
        .reason
        .rsplit_once(" on ")
        .and_then(|(_, at)| at.split_once('.'))
        .map(|(_, field)| field);
    // The offending value (the field itself or one element of it), from "JavaScript value
    // `Number 1 `" or "napi value Number into".
    let got = e
        .reason
        .split_once("JavaScript value `")
        .or_else(|| e.reason.split_once("napi value "))
        .and_then(|(_, rest)| rest.split([' ', '`']).next())
        .filter(|kind| !kind.is_empty())
        .map(|kind| format!(", got {}", kind.to_ascii_lowercase()))
        .unwrap_or_default();
    match field {
        Some(field) => format!("{what}: {field}: expected {expected}{got}"),
        None => format!("{what}: expected {expected}{got}"),
    }
}

/// `value` converted to `T` (a `#[napi(object)]` struct or any Node-API type); a `TypeError`
/// `"<what>: <field>: expected <type>, got <type>"` when a field (or one element of it) has
/// the wrong type. An exception the
/// caller's own code threw during the conversion (a getter, a Proxy trap) propagates as is.
///
/// # Errors
/// The `TypeError` above, or the caller's exception.
pub(crate) fn object<T: FromNapiValue>(
    env: &Env,
    value: &Unknown<'_>,
    what: &str,
) -> napi::Result<T> {
    // SAFETY: `value` is a live handle of this call's `env`.
    match unsafe { T::from_napi_value(env.raw(), value.raw()) } {
        Ok(v) => Ok(v),
        Err(e) if e.status == Status::PendingException => Err(e),
        Err(e) => {
            let mut pending = false;
            // SAFETY: a status query on this call's env.
            unsafe { napi::sys::napi_is_exception_pending(env.raw(), &mut pending) };
            if pending {
                return Err(napi::Error::new(Status::PendingException, e.reason));
            }
            type_error(env, &conversion_message(what, &e))
        }
    }
}
