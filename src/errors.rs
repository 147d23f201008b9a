//! The one place where engine errors become JavaScript errors.
//!
//! Every engine error enum has a `code()`. Here the error becomes a JavaScript `Error` whose
//! `code` property is that code (Node-API's `napi_create_error` sets it) and whose `message` is
//! the engine's text: no string protocol to parse. The facade's `fromNative`
//! (`lib/native-errors.js`) then picks the reference's class by the code.
//!
//! The error object is created on the JavaScript thread and handed back as a
//! `napi::Error` that holds it, so a synchronous throw and a promise rejection (see
//! [`spawn_coded`]) both deliver that same object.

use std::future::Future;

use napi::bindgen_prelude::{JsError, PromiseRaw, ToNapiValue};
use napi::Env;
use prism_engine::coding::error::CodingError;
use prism_engine::limits::LimitError;
use prism_engine::mcp::apps::AppsError;
use prism_engine::mcp::capability::CapabilityError;
use prism_engine::mcp::oauth::OAuthError;
use prism_engine::mcp::McpError;
use prism_engine::os::beneath::BeneathError;
use prism_engine::os::landlock::LandlockError;
use prism_engine::parallel::turn::TurnError;
use prism_engine::policy::approval::ApprovalError;
use prism_engine::tools::registry::RegistryError;

/// An engine error that crosses to JavaScript: a stable code and a message.
pub(crate) trait Coded: std::fmt::Display {
    /// The `ERR_PRISM_*` code.
    fn code(&self) -> &'static str;
}

macro_rules! coded {
    ($($t:ty),* $(,)?) => {
        $(impl Coded for $t {
            fn code(&self) -> &'static str {
                <$t>::code(self)
            }
        })*
    };
}

coded!(
    McpError,
    OAuthError,
    CapabilityError,
    AppsError,
    LimitError,
    CodingError,
    BeneathError,
    LandlockError,
    ApprovalError,
    RegistryError,
    TurnError
);

/// An engine error on its way to JavaScript (`Send`, so a future can carry it back to the
/// JavaScript thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NativeError {
    /// The `ERR_PRISM_*` code.
    pub code: &'static str,
    /// The engine's message.
    pub message: String,
}

impl<E: Coded> From<E> for NativeError {
    fn from(e: E) -> Self {
        Self {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

impl NativeError {
    /// A failure of the binding itself (a worker task that panicked): `ERR_PRISM_INTERNAL`.
    pub(crate) fn internal(message: String) -> Self {
        Self {
            code: prism_engine::error_codes::INTERNAL_CODE,
            message,
        }
    }

    /// The JavaScript `Error` (`code`, `message`) as a `napi::Error` that holds it, to throw
    /// or to reject with. Must run on the JavaScript thread.
    pub(crate) fn into_js(self, env: &Env) -> napi::Error {
        let js = JsError::from(napi::Error::new(self.code, self.message)).into_unknown(*env);
        napi::Error::from(js)
    }
}

/// `e` as the JavaScript error to throw (on the JavaScript thread).
pub(crate) fn to_js(env: &Env, e: impl Into<NativeError>) -> napi::Error {
    e.into().into_js(env)
}

/// The facade handed the binding a value outside their contract (a code no table has, a
/// malformed internal argument): a bug, thrown as `ERR_PRISM_INTERNAL` with `message` saying
/// which, never a Node-API status string.
pub(crate) fn facade_bug(env: &Env, message: String) -> napi::Error {
    NativeError::internal(message).into_js(env)
}

/// Runs `fut` on the runtime and returns its promise: a value resolves it; a
/// [`NativeError`] rejects it with the coded JavaScript error, built back on the JavaScript
/// thread (a rejection from an `async fn` could carry only a `napi::Status` as its code).
pub(crate) fn spawn_coded<'env, T, F>(env: &'env Env, fut: F) -> napi::Result<PromiseRaw<'env, T>>
where
    T: 'static + Send + ToNapiValue,
    F: 'static + Send + Future<Output = Result<T, NativeError>>,
{
    env.spawn_future_with_callback(async move { Ok(fut.await) }, |env, outcome| {
        outcome.map_err(|e| e.into_js(env))
    })
}
