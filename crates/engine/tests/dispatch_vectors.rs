//! The shared dispatch scenarios (`__test__/fixtures/dispatch-vectors.json`) through the Rust
//! host's driver of the dispatch machine; `__test__/dispatch-vectors.test.mjs` runs the same
//! table through the Node driver, so the two paths cannot drift.

use std::sync::{Arc, Mutex};

use prism_engine::tools::dispatch::{self, ErrorCode, ErrorInfo, Thrown};
use prism_engine::tools::filter::ToolFilter;
use prism_engine::tools::host::{dispatch_call, BoxFuture, CheckHook, Hooks, Tool, ToolCall};
use prism_engine::tools::registry::{DuplicatePolicy, Registry};
use serde_json::{json, Map, Value};

const VECTORS: &str = include_str!("../../../__test__/fixtures/dispatch-vectors.json");

/// The scenario's tool `t`: returns its value or throws its error.
struct ScenarioTool(Result<Value, Thrown>);

impl Tool for ScenarioTool {
    fn name(&self) -> &str {
        "t"
    }
    fn execute<'a>(&'a self, _: &'a Value) -> BoxFuture<'a, Result<Value, Thrown>> {
        let out = self.0.clone();
        Box::pin(async move { out })
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// A vector's error (`{ name?, message, code? }`) as a thrown error.
fn thrown(e: &Value) -> Thrown {
    Thrown::ErrorLike {
        name: text(&e["name"]),
        message: text(&e["message"]).unwrap_or_default(),
        code: text(&e["code"]).map(ErrorCode::Text),
        cause: None,
        retry_after_ms: None,
    }
}

/// A vector's hook: absent, `"allow"`, or `{ "throws": error }`.
fn check_hook(v: &Value) -> Option<CheckHook> {
    if v.is_null() {
        return None;
    }
    let outcome = match v.get("throws") {
        Some(e) => Err(thrown(e)),
        None => Ok(()),
    };
    Some(Arc::new(move |_: &ToolCall| outcome.clone()))
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()
        .map(|a| a.iter().filter_map(text).collect::<Vec<_>>())
}

/// An `ErrorInfo` as the vectors write it: its defined keys only.
fn info_json(info: &ErrorInfo) -> Value {
    let mut o = Map::new();
    if let Some(name) = &info.name {
        o.insert("name".into(), json!(name));
    }
    o.insert("message".into(), json!(info.message));
    match &info.code {
        Some(ErrorCode::Text(t)) => {
            o.insert("code".into(), json!(t));
        }
        Some(ErrorCode::Number(n)) => {
            o.insert("code".into(), json!(n));
        }
        None => {}
    }
    Value::Object(o)
}

#[tokio::test(flavor = "current_thread")]
async fn every_shared_dispatch_scenario_ends_as_expected() {
    let vectors: Value = serde_json::from_str(VECTORS).unwrap_or(Value::Null);
    let scenarios = vectors["scenarios"].as_array().cloned().unwrap_or_default();
    assert!(scenarios.len() >= 20);
    for s in scenarios {
        let name = s["name"].as_str().unwrap_or("?");
        let execute = match (s["execute"].get("returns"), s["execute"].get("throws")) {
            (Some(v), _) => Ok(v.clone()),
            (None, Some(e)) => Err(thrown(e)),
            (None, None) => Ok(json!({ "content": [{ "type": "text", "text": "ok" }] })),
        };
        let mut registry: Registry<Arc<dyn Tool>> = Registry::new(DuplicatePolicy::Error);
        assert!(registry
            .register("t", Arc::new(ScenarioTool(execute)))
            .is_ok());
        let c = &s["call"];
        let call = ToolCall {
            id: "c1".into(),
            name: text(&c["name"]).unwrap_or_else(|| "t".into()),
            arguments: c.get("arguments").cloned().unwrap_or(json!({ "x": 1 })),
            arguments_error: c
                .get("argumentsError")
                .map(|e| ErrorInfo::message(text(&e["message"]).unwrap_or_default())),
        };
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        let verdict = s.get("validate").map(text);
        let hooks = Hooks {
            trust: check_hook(&s["trust"]),
            permission: check_hook(&s["permission"]),
            before_execute: check_hook(&s["beforeExecute"]),
            validate: verdict.map(|v| {
                Arc::new(move |_: &dyn Tool, _: &Value| v.clone())
                    as prism_engine::tools::host::ValidateHook
            }),
            emit: Some(Arc::new(move |e| {
                if let Ok(mut v) = sink.lock() {
                    v.push(e);
                }
            })),
            filters: s
                .get("filter")
                .map(|f| ToolFilter {
                    allow: strings(&f["allow"]),
                    deny: strings(&f["deny"]),
                })
                .into_iter()
                .collect(),
            secrets: strings(&s["secrets"]).unwrap_or_default(),
        };
        let outcome = dispatch_call(&registry, &call, &hooks).await;
        let expect = &s["expect"];
        let emitted: Vec<&str> = events
            .lock()
            .map(|v| v.iter().map(|e| e.kind.as_str()).collect())
            .unwrap_or_default();
        let want: Vec<&str> = expect["events"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(emitted, want, "{name}: events");
        let result = match outcome {
            Err(e) => {
                assert_eq!(
                    dispatch::thrown_code(&e),
                    expect["rejects"].as_str(),
                    "{name}: rejects"
                );
                continue;
            }
            Ok(r) => r,
        };
        assert!(expect.get("rejects").is_none(), "{name}: should reject");
        let reason = events
            .lock()
            .ok()
            .and_then(|v| v.last().and_then(|e| e.reason))
            .map(|r| r.as_str());
        assert_eq!(reason, expect["blocked"].as_str(), "{name}: blocked reason");
        let error = result.error.as_ref().map_or(Value::Null, info_json);
        assert_eq!(error, expect["error"], "{name}: error");
        if let Some(value) = expect.get("value") {
            assert_eq!(result.value.as_ref(), Some(value), "{name}: value");
        }
    }
}
