//! A turn's MCP calls started in one crossing: the facade's native dispatch
//! (`lib/core/native-dispatch.js`) hands the bridge every call of a turn that it may run
//! without a host callback, and the engine checks each call's arguments against its tool's
//! prepared schema and starts the ones that pass, from the same JSON text, their lines in one
//! write over stdio. Their results reach the bridge's one `onCallDone` as any call's do.

use napi::bindgen_prelude::{Uint32Array, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::errors::facade_bug;
use crate::mcp::NativeMcpBridge;
use crate::validation::NativeJsonSchemaValidator;

/// `callTools` verdict: the call started; its result reaches `onCallDone`.
#[napi]
pub const MCP_CALL_STARTED: u8 = 0;
/// `callTools` verdict: the call's schema was evicted from the validator's cache; not started.
#[napi]
pub const MCP_CALL_SCHEMA_EVICTED: u8 = 1;
/// `callTools` verdict: the arguments fail the tool's schema; not started.
#[napi]
pub const MCP_CALL_INVALID: u8 = 2;

/// The strings of one call in `callTools`' `texts`: remote name, arguments JSON, tool call
/// id, prefixed name.
const TEXTS_PER_CALL: usize = 4;

#[napi]
impl NativeMcpBridge {
    /// Starts the calls of one turn in one crossing. Call `i` is `keys[i]` and the strings
    /// `texts[4i..4i+4]`: its remote name, its arguments as JSON text, its tool call id and
    /// its prefixed name. With `validator`, call `i`'s arguments are first checked against
    /// that validator's prepared schema `schemaIds[i]` (0: the tool has none, no check).
    /// Returns each call's verdict: `MCP_CALL_STARTED`, or, not started,
    /// `MCP_CALL_SCHEMA_EVICTED` or `MCP_CALL_INVALID` (the facade dispatches those on its own
    /// path, which prepares again or words the refusal). With `checkOnly`, nothing starts:
    /// `MCP_CALL_STARTED` then says the call passed its check (a dispatch with `emit` emits
    /// its started event before it starts it). Throws `ERR_PRISM_MCP_CLOSED` (no call
    /// started) before connect and after close.
    #[napi]
    pub fn call_tools(
        &self,
        env: &Env,
        keys: Uint32Array,
        texts: Vec<String>,
        validator: Option<&mut NativeJsonSchemaValidator>,
        schema_ids: Uint32Array,
        check_only: Option<bool>,
    ) -> napi::Result<Uint8Array> {
        let check_only = check_only.unwrap_or(false);
        let n = keys.len();
        if texts.len() != n * TEXTS_PER_CALL || schema_ids.len() != n {
            return Err(facade_bug(
                env,
                "callTools: one key, four texts and one schema id per call".into(),
            ));
        }
        let session = self.session().map_err(|e| e.into_js(env))?;
        let mut validator = validator;
        // The calls the session writes itself go out together, in one write.
        let mut batch = Vec::with_capacity(n);
        let mut texts = texts.into_iter();
        let mut verdicts = vec![MCP_CALL_STARTED; n];
        for (i, verdict) in verdicts.iter_mut().enumerate() {
            let (Some(remote_name), Some(arguments), Some(tool_call_id), Some(name)) =
                (texts.next(), texts.next(), texts.next(), texts.next())
            else {
                break;
            };
            let schema = schema_ids.get(i).copied().unwrap_or(0);
            let checked = match (&mut validator, schema) {
                (Some(v), id) if id != 0 => v.accepts(id, &arguments),
                _ => Some(true),
            };
            *verdict = match checked {
                None => MCP_CALL_SCHEMA_EVICTED,
                Some(false) => MCP_CALL_INVALID,
                Some(true) if check_only => MCP_CALL_STARTED,
                Some(true) => {
                    let key = keys.get(i).copied().unwrap_or(0);
                    let call = (key, remote_name, arguments, tool_call_id, name);
                    self.start_call(&session, call, Some(&mut batch));
                    MCP_CALL_STARTED
                }
            };
        }
        if !batch.is_empty() {
            session.start_call_results(batch);
        }
        Ok(Uint8Array::new(verdicts))
    }
}
