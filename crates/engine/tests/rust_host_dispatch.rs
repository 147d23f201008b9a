//! A Rust host dispatches a turn of Rust tools with Rust hooks through the engine's dispatch
//! machine: gate order, blocked reasons, redaction, events and in-order results.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prism_engine::tools::dispatch::{ErrorCode, EventKind, Thrown};
use prism_engine::tools::filter::ToolFilter;
use prism_engine::tools::host::{
    dispatch_call, dispatch_turn, BoxFuture, Event, Hooks, Tool, ToolCall, ToolResult,
};
use prism_engine::tools::registry::{DuplicatePolicy, Registry};
use prism_engine::tools::BlockedReason;
use serde_json::{json, Value};

/// Sleeps `ms` milliseconds (from the arguments), then returns them; tracks its peak overlap.
struct Sleepy {
    in_flight: AtomicUsize,
    peak: AtomicUsize,
}

impl Tool for Sleepy {
    fn name(&self) -> &str {
        "sleepy"
    }
    fn execute<'a>(&'a self, arguments: &'a Value) -> BoxFuture<'a, Result<Value, Thrown>> {
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(now, Ordering::SeqCst);
            let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            Ok(json!({ "ms": ms }))
        })
    }
}

/// Fails with a secret in its message and code, or returns a non-object.
struct Broken;

impl Tool for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn execute<'a>(&'a self, arguments: &'a Value) -> BoxFuture<'a, Result<Value, Thrown>> {
        Box::pin(async move {
            if arguments.get("garbage").is_some() {
                return Ok(json!("not an object"));
            }
            Err(Thrown::ErrorLike {
                name: None,
                message: "token sk-1 rejected".into(),
                code: Some(ErrorCode::Text("E_sk-1".into())),
                cause: None,
                retry_after_ms: None,
            })
        })
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        arguments_error: None,
    }
}

fn registry() -> (Registry<Arc<dyn Tool>>, Arc<Sleepy>) {
    let sleepy = Arc::new(Sleepy {
        in_flight: AtomicUsize::new(0),
        peak: AtomicUsize::new(0),
    });
    let mut r: Registry<Arc<dyn Tool>> = Registry::new(DuplicatePolicy::Error);
    assert!(r.register("sleepy", sleepy.clone()).is_ok());
    assert!(r.register("broken", Arc::new(Broken)).is_ok());
    (r, sleepy)
}

fn recorder() -> (Arc<Mutex<Vec<Event>>>, Hooks) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let hooks = Hooks {
        emit: Some(Arc::new(move |e| {
            if let Ok(mut v) = sink.lock() {
                v.push(e);
            }
        })),
        secrets: vec!["sk-1".into()],
        ..Hooks::default()
    };
    (events, hooks)
}

#[tokio::test(flavor = "current_thread")]
async fn a_turn_keeps_call_order_and_the_concurrency_bound() {
    let (reg, sleepy) = registry();
    let (events, hooks) = recorder();
    // Later calls finish first.
    let calls: Vec<ToolCall> = (0..6)
        .map(|i| call(&format!("c{i}"), "sleepy", json!({ "ms": 30 - i * 5 })))
        .collect();
    let results: Vec<ToolResult> = dispatch_turn(&reg, &calls, &hooks, 3.0, false)
        .await
        .into_iter()
        .flatten()
        .collect();
    let ids: Vec<&str> = results.iter().map(|r| r.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["c0", "c1", "c2", "c3", "c4", "c5"]);
    assert_eq!(results[1].value, Some(json!({ "ms": 25 })));
    assert_eq!(sleepy.peak.load(Ordering::SeqCst), 3);
    let kinds = events.lock().map(|v| v.len()).unwrap_or(0);
    assert_eq!(kinds, 12, "one started and one finished event per call");
}

#[tokio::test(flavor = "current_thread")]
async fn an_exclusive_turn_runs_one_call_at_a_time() {
    let (reg, sleepy) = registry();
    let (_, hooks) = recorder();
    let calls: Vec<ToolCall> = (0..3)
        .map(|i| call(&format!("c{i}"), "sleepy", json!({ "ms": 5 })))
        .collect();
    dispatch_turn(&reg, &calls, &hooks, 8.0, true).await;
    assert_eq!(sleepy.peak.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "current_thread")]
async fn every_gate_blocks_with_its_reason_and_message() {
    let (reg, _) = registry();
    let (events, mut hooks) = recorder();
    hooks.filters = vec![ToolFilter {
        allow: None,
        deny: Some(vec!["broken".into()]),
    }];
    hooks.permission = Some(Arc::new(|c: &ToolCall| {
        if c.arguments.get("deny").is_some() {
            Err(Thrown::Other("no sk-1".into()))
        } else {
            Ok(())
        }
    }));
    hooks.validate = Some(Arc::new(|_: &dyn Tool, a: &Value| {
        a.get("invalid").map(|_| "invalid sk-1".to_owned())
    }));
    let cases = [
        (
            call("a", "nope", json!({})),
            BlockedReason::UnknownTool,
            "Unknown tool: nope",
        ),
        (
            call("b", "broken", json!({})),
            BlockedReason::ToolDenied,
            "Tool denied: broken",
        ),
        (
            call("c", "sleepy", json!({ "x": { "constructor": 1 } })),
            BlockedReason::InvalidArguments,
            "Tool arguments must be a JSON object",
        ),
        (
            call("d", "sleepy", json!({ "deny": 1 })),
            BlockedReason::PermissionDenied,
            "no [REDACTED]",
        ),
        (
            call("e", "sleepy", json!({ "invalid": 1 })),
            BlockedReason::ValidationFailed,
            "invalid [REDACTED]",
        ),
    ];
    for (c, reason, message) in cases {
        let r = dispatch_call(&reg, &c, &hooks).await;
        assert_eq!(
            r.ok()
                .and_then(|r| r.error)
                .as_ref()
                .map(|e| e.message.as_str()),
            Some(message),
            "{}",
            c.id
        );
        let last = events.lock().ok().and_then(|v| v.last().cloned());
        let last = last.as_ref();
        assert_eq!(last.map(|e| e.kind), Some(EventKind::Blocked));
        assert_eq!(last.and_then(|e| e.reason), Some(reason));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_failing_tool_is_an_error_result_with_secrets_redacted() {
    let (reg, _) = registry();
    let (events, hooks) = recorder();
    let r = dispatch_call(&reg, &call("f", "broken", json!({})), &hooks).await;
    let error = r
        .ok()
        .and_then(|r| r.error)
        .unwrap_or_else(|| prism_engine::tools::dispatch::ErrorInfo::message(String::new()));
    assert_eq!(error.name.as_deref(), Some("Error"));
    assert_eq!(error.message, "token [REDACTED] rejected");
    assert_eq!(error.code, Some(ErrorCode::Text("E_[REDACTED]".into())));
    let garbage = dispatch_call(
        &reg,
        &call("g", "broken", json!({ "garbage": true })),
        &hooks,
    )
    .await;
    assert_eq!(
        garbage.ok().and_then(|r| r.error).map(|e| e.message),
        Some("Tool broken returned string instead of a ToolResult object".into())
    );
    let kinds: Vec<EventKind> = events
        .lock()
        .map(|v| v.iter().map(|e| e.kind).collect())
        .unwrap_or_default();
    assert_eq!(
        kinds,
        [
            EventKind::Started,
            EventKind::Error,
            EventKind::Started,
            EventKind::Error
        ]
    );
}
