//! Reading a host's option object field by field, with this package's `TypeError`s.
//!
//! A `#[napi(object)]` parameter makes Node-API convert the whole object and reject a
//! wrong-typed field in napi-rs's own words. Options that carry caller input are read here
//! instead, one named field at a time, so a wrong type is reported as
//! `"<what>: <field>: expected <type>, got <type>"` (code `ERR_INVALID_ARG_TYPE`) from the
//! structure of the value, never from another library's message. An exception the caller's own
//! code throws while a field is read (a getter, a Proxy trap) propagates as is.

use std::collections::HashMap;

use napi::bindgen_prelude::{Array, FromNapiValue, Object};
use napi::{Env, JsValue, Unknown, ValueType};

use crate::args::{type_error, type_name};

/// The fields of one option object, read by name.
pub(crate) struct Fields<'e> {
    env: &'e Env,
    object: Object<'e>,
    what: &'static str,
}

impl<'e> Fields<'e> {
    /// `value` as an option object; `"<what>: expected an object, got <type>"` otherwise.
    ///
    /// # Errors
    /// The `TypeError` above, or a Node-API failure.
    pub(crate) fn of(env: &'e Env, value: &Unknown<'e>, what: &'static str) -> napi::Result<Self> {
        let t = value.get_type()?;
        if t != ValueType::Object {
            return type_error(
                env,
                &format!("{what}: expected an object, got {}", type_name(t)),
            );
        }
        // SAFETY: the value was just checked to be an object of this call's env.
        let object = unsafe { Object::from_napi_value(env.raw(), value.raw()) }?;
        Ok(Self { env, object, what })
    }

    /// Each element of the array `value` read as an option object by `read` (`None` for an
    /// `undefined` or `null` element); `"<what>: expected an array, got <type>"` otherwise.
    ///
    /// # Errors
    /// A `TypeError` for a value that is not an array, an element that is not an object, or a
    /// field `read` rejects.
    pub(crate) fn list<T>(
        env: &'e Env,
        value: &Unknown<'e>,
        what: &'static str,
        read: impl Fn(&Fields<'e>) -> napi::Result<T>,
    ) -> napi::Result<Vec<Option<T>>> {
        if !value.is_array()? {
            let t = value.get_type()?;
            return type_error(
                env,
                &format!("{what}: expected an array, got {}", type_name(t)),
            );
        }
        // SAFETY: the value was just checked to be an array of this call's env.
        let array = unsafe { Array::from_napi_value(env.raw(), value.raw()) }?;
        let mut out = Vec::with_capacity(array.len() as usize);
        for i in 0..array.len() {
            let item: Option<Unknown<'e>> = array.get(i)?;
            match item {
                Some(v) if !matches!(v.get_type()?, ValueType::Null | ValueType::Undefined) => {
                    out.push(Some(read(&Fields::of(env, &v, what)?)?));
                }
                _ => out.push(None),
            }
        }
        Ok(out)
    }

    /// The field `key`, or `None` when it is `undefined` or `null`.
    fn field(&self, key: &str) -> napi::Result<Option<Unknown<'e>>> {
        let value: Option<Unknown<'e>> = self.object.get(key)?;
        Ok(match value {
            Some(v) if !matches!(v.get_type()?, ValueType::Null | ValueType::Undefined) => Some(v),
            _ => None,
        })
    }

    fn wrong<T>(&self, key: &str, expected: &str, got: ValueType) -> napi::Result<T> {
        type_error(
            self.env,
            &format!(
                "{}: {key}: expected {expected}, got {}",
                self.what,
                type_name(got)
            ),
        )
    }

    /// `value` as a string, or the field's `TypeError`.
    fn text(&self, key: &str, value: &Unknown<'e>) -> napi::Result<String> {
        let t = value.get_type()?;
        if t != ValueType::String {
            return self.wrong(key, "a string", t);
        }
        // SAFETY: the value was just checked to be a JS string.
        unsafe { value.cast::<String>() }
    }

    /// `value` as an array, or the field's `TypeError`.
    fn array(&self, key: &str, value: &Unknown<'e>) -> napi::Result<Array<'e>> {
        if !value.is_array()? {
            return self.wrong(key, "an array", value.get_type()?);
        }
        // SAFETY: the value was just checked to be an array of this call's env.
        unsafe { Array::from_napi_value(self.env.raw(), value.raw()) }
    }

    /// A string field.
    ///
    /// # Errors
    /// A `TypeError` naming the field when it is not a string.
    pub(crate) fn string(&self, key: &str) -> napi::Result<Option<String>> {
        self.field(key)?.map(|v| self.text(key, &v)).transpose()
    }

    /// A string field that must be present: `"<what>: <field> is required"` otherwise.
    ///
    /// # Errors
    /// The `TypeError` above, or one naming the field when it is not a string.
    pub(crate) fn required_string(&self, key: &str) -> napi::Result<String> {
        match self.string(key)? {
            Some(s) => Ok(s),
            None => type_error(self.env, &format!("{}: {key} is required", self.what)),
        }
    }

    /// A boolean field.
    ///
    /// # Errors
    /// A `TypeError` naming the field when it is not a boolean.
    pub(crate) fn boolean(&self, key: &str) -> napi::Result<Option<bool>> {
        let Some(v) = self.field(key)? else {
            return Ok(None);
        };
        let t = v.get_type()?;
        if t != ValueType::Boolean {
            return self.wrong(key, "a boolean", t);
        }
        // SAFETY: the value was just checked to be a JS boolean.
        unsafe { v.cast::<bool>() }.map(Some)
    }

    /// An array of strings.
    ///
    /// # Errors
    /// A `TypeError` naming the field when it is not an array or an element is not a string.
    pub(crate) fn strings(&self, key: &str) -> napi::Result<Option<Vec<String>>> {
        let Some(v) = self.field(key)? else {
            return Ok(None);
        };
        self.string_list(key, &v).map(Some)
    }

    fn string_list(&self, key: &str, value: &Unknown<'e>) -> napi::Result<Vec<String>> {
        self.elements(key, value, "a string", |item| self.text(key, item))
    }

    /// An array of string arrays (`[name, value]` pairs).
    ///
    /// # Errors
    /// A `TypeError` naming the field when it is not an array of string arrays.
    pub(crate) fn string_lists(&self, key: &str) -> napi::Result<Option<Vec<Vec<String>>>> {
        let Some(v) = self.field(key)? else {
            return Ok(None);
        };
        self.elements(key, &v, "an array", |item| self.string_list(key, item))
            .map(Some)
    }

    /// Each element of the array field `key` read by `read`; a missing element is the field's
    /// `TypeError` expecting `expected`.
    fn elements<T>(
        &self,
        key: &str,
        value: &Unknown<'e>,
        expected: &str,
        read: impl Fn(&Unknown<'e>) -> napi::Result<T>,
    ) -> napi::Result<Vec<T>> {
        let array = self.array(key, value)?;
        let mut out = Vec::with_capacity(array.len() as usize);
        for i in 0..array.len() {
            let item: Option<Unknown<'e>> = array.get(i)?;
            match item {
                Some(item) => out.push(read(&item)?),
                None => return self.wrong(key, expected, ValueType::Undefined),
            }
        }
        Ok(out)
    }

    /// The enumerable string-keyed entries of an object field, each read by `read`.
    fn entries<T>(
        &self,
        key: &str,
        read: impl Fn(&Unknown<'e>) -> napi::Result<T>,
    ) -> napi::Result<Option<HashMap<String, T>>> {
        let Some(v) = self.field(key)? else {
            return Ok(None);
        };
        let t = v.get_type()?;
        if t != ValueType::Object || v.is_array()? {
            return self.wrong(key, "an object", t);
        }
        // SAFETY: the value was just checked to be an object of this call's env.
        let object = unsafe { Object::from_napi_value(self.env.raw(), v.raw()) }?;
        let mut out = HashMap::new();
        for name in Object::keys(&object)? {
            let value: Option<Unknown<'e>> = object.get(&name)?;
            if let Some(value) = value {
                out.insert(name, read(&value)?);
            }
        }
        Ok(Some(out))
    }

    /// An object of strings (`{ NAME: "value" }`).
    ///
    /// # Errors
    /// A `TypeError` naming the field when it is not an object or a value is not a string.
    pub(crate) fn string_map(&self, key: &str) -> napi::Result<Option<HashMap<String, String>>> {
        self.entries(key, |v| self.text(key, v))
    }

    /// An object of numbers (`{ maxTools: 5 }`).
    ///
    /// # Errors
    /// A `TypeError` naming the field when it is not an object or a value is not a number.
    pub(crate) fn number_map(&self, key: &str) -> napi::Result<Option<HashMap<String, f64>>> {
        self.entries(key, |v| match crate::args::as_number(v)? {
            Some(n) => Ok(n),
            None => self.wrong(key, "a number", v.get_type()?),
        })
    }
}
