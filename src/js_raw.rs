//! Thin checked wrappers over the raw Node-API calls the dispatch glue makes: it reads JS values
//! in place (a thrown value, the call, a verdict) instead of converting them, and builds the
//! objects it returns property by property.

use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;

/// A raw JS value handle.
pub(crate) type V = sys::napi_value;

/// `napi_typeof`: `undefined`.
pub(crate) const T_UNDEFINED: i32 = 0;
/// `napi_typeof`: `null`.
pub(crate) const T_NULL: i32 = 1;
/// `napi_typeof`: a boolean.
pub(crate) const T_BOOLEAN: i32 = 2;
/// `napi_typeof`: a number.
pub(crate) const T_NUMBER: i32 = 3;
/// `napi_typeof`: a string.
pub(crate) const T_STRING: i32 = 4;
/// `napi_typeof`: a symbol.
pub(crate) const T_SYMBOL: i32 = 5;
/// `napi_typeof`: an object (arrays too).
pub(crate) const T_OBJECT: i32 = 6;
/// `napi_typeof`: a function.
pub(crate) const T_FUNCTION: i32 = 7;
/// `napi_typeof`: a bigint.
pub(crate) const T_BIGINT: i32 = 9;

/// Thin checked wrappers over the raw Node-API calls this file needs.
#[derive(Clone, Copy)]
pub(crate) struct Js(pub(crate) sys::napi_env);

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        // With a pending JS exception napi-rs leaves that exception in place.
        Err(Error::new(Status::from(status), "Node-API call failed"))
    }
}

impl Js {
    pub(crate) fn type_of(self, v: V) -> Result<i32> {
        let mut t = 0;
        check(unsafe { sys::napi_typeof(self.0, v, &mut t) })?;
        Ok(t)
    }
    pub(crate) fn is_array(self, v: V) -> Result<bool> {
        let mut b = false;
        check(unsafe { sys::napi_is_array(self.0, v, &mut b) })?;
        Ok(b)
    }
    pub(crate) fn array_len(self, v: V) -> Result<u32> {
        let mut n = 0;
        check(unsafe { sys::napi_get_array_length(self.0, v, &mut n) })?;
        Ok(n)
    }
    pub(crate) fn element(self, v: V, i: u32) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_element(self.0, v, i, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn get(self, v: V, key: &CStr) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_named_property(self.0, v, key.as_ptr(), &mut out) })?;
        Ok(out)
    }
    pub(crate) fn get_key(self, v: V, key: V) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_property(self.0, v, key, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn set(self, v: V, key: &CStr, value: V) -> Result<()> {
        check(unsafe { sys::napi_set_named_property(self.0, v, key.as_ptr(), value) })
    }
    pub(crate) fn set_key(self, v: V, key: V, value: V) -> Result<()> {
        check(unsafe { sys::napi_set_property(self.0, v, key, value) })
    }
    pub(crate) fn object(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_object(self.0, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn array(self, items: &[V]) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_array_with_length(self.0, items.len(), &mut out) })?;
        // Node-API indexes arrays by u32; the binding builds arrays only from bounded data
        // (far below 2^32 items).
        for (i, item) in (0u32..).zip(items) {
            check(unsafe { sys::napi_set_element(self.0, out, i, *item) })?;
        }
        Ok(out)
    }
    pub(crate) fn string(self, s: &str) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_create_string_utf8(self.0, s.as_ptr().cast(), s.len() as isize, &mut out)
        })?;
        Ok(out)
    }
    pub(crate) fn number(self, n: f64) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_double(self.0, n, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn boolean(self, b: bool) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_boolean(self.0, b, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn null(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_null(self.0, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn undefined(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_undefined(self.0, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn global(self) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_global(self.0, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn double(self, v: V) -> Result<f64> {
        let mut n = 0.0;
        check(unsafe { sys::napi_get_value_double(self.0, v, &mut n) })?;
        Ok(n)
    }
    pub(crate) fn truthy(self, v: V) -> Result<bool> {
        let mut b = ptr::null_mut();
        check(unsafe { sys::napi_coerce_to_bool(self.0, v, &mut b) })?;
        let mut out = false;
        check(unsafe { sys::napi_get_value_bool(self.0, b, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn text(self, v: V) -> Result<String> {
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
    pub(crate) fn strict_equals(self, a: V, b: V) -> Result<bool> {
        let mut out = false;
        check(unsafe { sys::napi_strict_equals(self.0, a, b, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn own_keys(self, v: V) -> Result<V> {
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
    pub(crate) fn instance_of(self, v: V, ctor: V) -> Result<bool> {
        let mut out = false;
        check(unsafe { sys::napi_instanceof(self.0, v, ctor, &mut out) })?;
        Ok(out)
    }
    pub(crate) fn call(self, recv: V, f: V, args: &[V]) -> Result<V> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_call_function(self.0, recv, f, args.len(), args.as_ptr(), &mut out)
        })?;
        Ok(out)
    }
    pub(crate) fn clear_exception(self) {
        let mut ignored = ptr::null_mut();
        unsafe { sys::napi_get_and_clear_last_exception(self.0, &mut ignored) };
    }
    /// `String(v)` through the global `String` function.
    pub(crate) fn to_text(self, v: V) -> Result<String> {
        let g = self.global()?;
        let f = self.get(g, c"String")?;
        let s = self.call(g, f, &[v])?;
        self.text(s)
    }
}

/// `v` as a napi-rs `Unknown` of `env`.
pub(crate) fn unknown<'a>(env: &'a Env, v: V) -> Unknown<'a> {
    unsafe { Unknown::from_raw_unchecked(env.raw(), v) }
}
