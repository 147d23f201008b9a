//! The read tool's calls of one turn in one crossing (a native dispatch's batch,
//! `lib/coding-tools/internal/read-route.js`): each call's arguments, as the JSON text the
//! dispatch already holds, are parsed, checked in the reference's order and read off the JS
//! thread, in one task on libuv's thread pool (`off_thread.rs`). The results come back
//! together, in call order, each shaped as `codingRead`'s.

use std::path::PathBuf;

use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;
use prism_engine::coding::arguments::{check_read, Arg, ReadArguments};
use prism_engine::coding::read::read_path;
use serde_json::Value;

use crate::coding::{
    confined, declined_read, engine_read_request, read_result, refused_read, CodingBeneath,
    CodingReadRequest, CodingReadResult,
};
use crate::errors::facade_bug;
use crate::off_thread::{off_thread, OffThread};
use crate::policy::NativeApprovalPolicy;
use crate::policy_check::{Decider, NativePolicyCheck};

/// The strings of one call in `codingReadBatch`'s `calls`: its arguments as JSON text, then
/// its path resolved against the tool's working directory ("" when `path` is not a string).
const STRINGS_PER_CALL: usize = 2;

/// The read tool's page and image bounds (its options, validated when it was made).
#[napi(object)]
pub struct CodingReadLimits {
    /// Line cap of a page.
    pub max_lines: f64,
    /// Byte cap of a page.
    pub max_bytes: f64,
    /// Bytes a text read may scan.
    pub max_scan_bytes: f64,
    /// Largest image returned.
    pub max_image_bytes: f64,
}

/// One call of a batch, as it was given.
struct BatchCall {
    arguments: String,
    path: String,
}

/// Reads a batch of read calls. Call `i` is `calls[2i]` (its arguments as JSON text) and
/// `calls[2i + 1]` (its path, resolved against the tool's working directory). Each result is
/// the argument refusal or what `codingRead` gives for that path (the tool's native path has
/// no document reader). With `policy` (the tool's execution policy, made by
/// `createCodingApprovalPolicy`), each read is first checked as the tool's policy action
/// (`kind: "read"`, the one path): a read it allows outright is opened beneath the root it
/// approved, as `codingRead` opens it; any other (denied, or a step only the facade performs:
/// the approval cache, `approve`) is `declined`, and the tool's own `execute` asks the policy.
#[napi(ts_return_type = "Promise<CodingReadResult[]>")]
pub fn coding_read_batch(
    env: &Env,
    calls: Vec<String>,
    limits: CodingReadLimits,
    policy: Option<&NativeApprovalPolicy>,
) -> napi::Result<AsyncTask<OffThread<Vec<CodingReadResult>>>> {
    if !calls.len().is_multiple_of(STRINGS_PER_CALL) {
        return Err(facade_bug(
            env,
            "codingReadBatch: two strings per call".into(),
        ));
    }
    let mut strings = calls.into_iter();
    let mut batch = Vec::new();
    while let (Some(arguments), Some(path)) = (strings.next(), strings.next()) {
        batch.push(BatchCall { arguments, path });
    }
    let decider = policy.map(NativeApprovalPolicy::decider);
    Ok(off_thread(move || {
        Ok(batch
            .into_iter()
            .map(|call| read_one(call, &limits, decider.as_ref()))
            .collect())
    }))
}

/// One call: its arguments' refusal, its policy's decline, or its read (the request built
/// and the file opened as `codingRead` builds and opens them).
fn read_one(
    call: BatchCall,
    limits: &CodingReadLimits,
    decider: Option<&Decider>,
) -> CodingReadResult {
    let parsed: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
    let args = ReadArguments {
        path: string_arg(&parsed, "path"),
        offset: number_arg(&parsed, "offset"),
        limit: number_arg(&parsed, "limit"),
        find_text: string_arg(&parsed, "findText"),
        find_mode: string_arg(&parsed, "findMode"),
    };
    if let Err(refusal) = check_read(&args) {
        return refused_read(refusal.to_string());
    }
    let given = |arg: Arg<f64>| match arg {
        Arg::Given(v) => Some(v),
        _ => None,
    };
    let text = |arg: Arg<&str>| match arg {
        Arg::Given(t) => Some(t.to_owned()),
        _ => None,
    };
    let request = engine_read_request(CodingReadRequest {
        path: call.path.clone(),
        display_path: text(args.path).unwrap_or_default(),
        offset: given(args.offset),
        limit: given(args.limit),
        max_lines: limits.max_lines,
        max_bytes: limits.max_bytes,
        max_scan_bytes: limits.max_scan_bytes,
        max_image_bytes: limits.max_image_bytes,
        find_text: text(args.find_text),
        case_insensitive: Some(matches!(args.find_mode, Arg::Given("case-insensitive"))),
        document_max_bytes: None,
    });
    let path = PathBuf::from(&call.path);
    let beneath = match decider {
        None => None,
        Some(decider) => {
            let decision = decider.decide(&read_action(call.path), None);
            if !decision.allowed() {
                return declined_read();
            }
            // The root the policy approved the read beneath: the file is opened from its handle.
            decision
                .root
                .zip(decision.target)
                .map(|(root, path)| CodingBeneath { root, path })
        }
    };
    let outcome = confined(beneath, &path).and_then(|c| read_path(&path, &request, c.as_ref()));
    read_result(outcome)
}

/// The facts of the read tool's policy action for `path` (`kind: "read"`, its one path).
fn read_action(path: String) -> NativePolicyCheck {
    NativePolicyCheck {
        kind: Some("read".to_owned()),
        paths: vec![Some(path)],
        command_present: false,
        command: None,
        base: String::new(),
        home: String::new(),
    }
}

/// Field `key` of `args` as a string argument (JSON `null` is of another type).
fn string_arg<'a>(args: &'a Value, key: &str) -> Arg<&'a str> {
    match args.get(key) {
        None => Arg::Absent,
        Some(Value::String(s)) => Arg::Given(s.as_str()),
        Some(_) => Arg::WrongType,
    }
}

/// Field `key` of `args` as a number argument.
fn number_arg(args: &Value, key: &str) -> Arg<f64> {
    match args.get(key) {
        None => Arg::Absent,
        Some(Value::Number(n)) => n.as_f64().map_or(Arg::WrongType, Arg::Given),
        Some(_) => Arg::WrongType,
    }
}
