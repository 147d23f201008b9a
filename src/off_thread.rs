//! Short file work off the JS thread, on libuv's thread pool (Node-API async work): one hop
//! there and one back, where a tokio future that waits on a blocking task takes four (the
//! runtime's worker, the blocking thread, the worker again, the threadsafe callback). Measured
//! with a trivial body: 25-27 µs of host CPU per lone call against 72-79 µs, 4.0-4.4 µs per
//! call at 64 in flight against 18.7-20.8 µs. The coding tools' reads, writes, edits and the
//! approval policy's checks are bounded (their byte caps, a path walk), like Node's own `fs`
//! calls on that pool; a shell run, which may last minutes, stays on tokio's blocking pool.

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, Task};

use crate::errors::NativeError;

/// The work of one call: its value, or the error the promise rejects with.
type Work<T> = Box<dyn FnOnce() -> Result<T, NativeError> + Send>;

/// One call's work on libuv's thread pool; its promise resolves to the work's value.
pub(crate) struct OffThread<T: Send + 'static> {
    work: Option<Work<T>>,
}

/// `work` as a Node-API async task (its promise): a panic in it rejects with
/// `ERR_PRISM_INTERNAL`, never crossing into JavaScript.
pub(crate) fn off_thread<T>(
    work: impl FnOnce() -> Result<T, NativeError> + Send + 'static,
) -> AsyncTask<OffThread<T>>
where
    T: Send + ToNapiValue + TypeName + 'static,
{
    AsyncTask::new(OffThread {
        work: Some(Box::new(work)),
    })
}

impl<T> Task for OffThread<T>
where
    T: Send + ToNapiValue + TypeName + 'static,
{
    type Output = Result<T, NativeError>;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let Some(work) = self.work.take() else {
            return Ok(Err(NativeError::internal(
                "off-thread work ran twice".into(),
            )));
        };
        Ok(catch_unwind(AssertUnwindSafe(work))
            .unwrap_or_else(|_| Err(NativeError::internal("off-thread work panicked".into()))))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<T> {
        output.map_err(|e| e.into_js(&env))
    }
}
