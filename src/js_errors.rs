//! JS thrown values and verdicts as the engine sees them, and the engine's `ErrorInfo` as a JS
//! object: the conversions the dispatch glue makes on a failure path.

use napi::bindgen_prelude::*;
use prism_engine::tools::dispatch::{
    self as engine, CauseText, ErrorCode, ErrorInfo, InfoShape, ResultShape, Thrown,
};
use prism_engine::tools::redact::{redact_secrets, REDACTED};

use crate::js_raw::{
    Js, T_BIGINT, T_BOOLEAN, T_FUNCTION, T_NULL, T_NUMBER, T_OBJECT, T_STRING, T_SYMBOL,
    T_UNDEFINED, V,
};

/// Depth to which a validator's verdict object is copied with redaction (the engine's limit).
const VERDICT_REDACT_DEPTH: usize = prism_engine::limits::DISPATCH_VERDICT_REDACT_DEPTH;

/// The strings of the `secrets` array (anything else is no secrets; non-strings are skipped).
pub(crate) fn secrets_of(js: Js, secrets: V) -> Result<Vec<String>> {
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

/// The engine's `ErrorInfo` as a JS object with the keys of its [`InfoShape`].
pub(crate) fn info_object(js: Js, info: &ErrorInfo) -> Result<V> {
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
pub(crate) fn read_thrown(js: Js, err: V) -> Result<Thrown> {
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

/// A denial's `ErrorInfo` (`denialToErrorInfo`) in the engine's [`engine::DenialShape`]: an
/// `Error`'s own `name`, `message` and `code` values, or `{ message: String(value) }`.
pub(crate) fn denial_object(js: Js, err: V) -> Result<V> {
    let g = js.global()?;
    let error_ctor = js.get(g, c"Error")?;
    let is_error = js.type_of(err)? == T_OBJECT && js.instance_of(err, error_ctor)?;
    let o = js.object()?;
    match engine::denial_shape(is_error) {
        engine::DenialShape::ErrorFields => {
            js.set(o, c"name", js.get(err, c"name")?)?;
            js.set(o, c"message", js.get(err, c"message")?)?;
            js.set(o, c"code", js.get(err, c"code")?)?;
        }
        engine::DenialShape::MessageOnly => {
            let text = js.to_text(err)?;
            js.set(o, c"message", js.string(&text)?)?;
        }
    }
    Ok(o)
}

/// The engine's `ErrorInfo` of a thrown JS value, with the `secrets` array's strings replaced.
pub(crate) fn thrown_info(js: Js, err: V, secrets: V) -> Result<ErrorInfo> {
    let secrets = secrets_of(js, secrets)?;
    let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
    Ok(engine::error_info(read_thrown(js, err)?, &refs))
}

/// A deep copy of `v` with every string redacted; a cycle keeps the original object, and
/// nesting deeper than [`VERDICT_REDACT_DEPTH`] becomes the redaction marker.
pub(crate) fn redact_value(js: Js, v: V, secrets: &[&str], path: &mut Vec<V>) -> Result<V> {
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

/// The shape of a JS value, by `typeof` (an array and `null` apart).
pub(crate) fn result_shape(js: Js, v: V) -> Result<ResultShape<'static>> {
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
pub(crate) fn thrown_code(js: Js, e: V) -> Result<Option<String>> {
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
pub(crate) fn read_or_clear<T>(js: Js, read: Result<T>) -> Option<T> {
    match read {
        Ok(v) => Some(v),
        Err(_) => {
            js.clear_exception();
            None
        }
    }
}
