//! Argument checks shared by every binding file.
//!
//! A parameter typed `f64` or `String` in a `#[napi]` signature makes Node-API reject a
//! wrong-typed value with its own message ("Failed to convert napi value … into rust type").
//! Parameters that carry caller input take an [`Unknown`] instead and go through these
//! helpers, which throw a `TypeError` naming the argument (code `ERR_INVALID_ARG_TYPE`); option
//! objects are read field by field in `fields.rs`, in the same words.

use napi::{Env, Status, Unknown, ValueType};

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
    env.throw_type_error(
        message,
        Some(prism_engine::error_codes::INVALID_ARG_TYPE_CODE),
    )?;
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
