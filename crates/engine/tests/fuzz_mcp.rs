//! Fuzzing the MCP bridge's handling of what a server sends: random results and content
//! (deep, wide, huge strings, wrong types) through measurement, content mapping, result
//! mapping and catalogue checks, and random byte streams through the stdio line framer and
//! the frame judge. Nothing may panic or overflow the stack; every bound must hold.

mod common {
    pub mod fuzz;
}

use prism_engine::mcp::call_result::{tool_result, CallIdentity};
use prism_engine::mcp::catalogue::CatalogueBuilder;
use prism_engine::mcp::content::{map_content, summarize_content};
use prism_engine::mcp::frame::{Frame, FrameShared, LineFramer, Outcome};
use prism_engine::mcp::measure::measure_bounded_json;
use prism_engine::mcp::McpLimits;
use rmcp::model::RequestId;
use serde_json::{json, Map, Value};

const KEYS: &[&str] = &[
    "type",
    "text",
    "data",
    "mimeType",
    "resource",
    "uri",
    "blob",
    "content",
    "isError",
    "structuredContent",
    "toolResult",
    "name",
    "size",
    "annotations",
    "tools",
    "nextCursor",
    "inputSchema",
    "description",
    "id",
    "result",
    "error",
    "code",
    "message",
    "jsonrpc",
];
const TYPES: &[&str] = &[
    "text",
    "image",
    "audio",
    "resource",
    "resource_link",
    "other",
    "",
];

fn string(rng: &mut fastrand::Rng) -> String {
    match rng.u8(..10) {
        0 => "x".repeat(rng.usize(..300_000)),
        1 => "\u{202E}\0\n\"\\é😀".repeat(rng.usize(..50)),
        2 => (0..rng.usize(..40))
            .map(|_| char::from(rng.u8(..128)))
            .collect(),
        3 => TYPES[rng.usize(..TYPES.len())].to_owned(),
        4 => "iVBORw0KGgo=".repeat(rng.usize(..100)),
        _ => KEYS[rng.usize(..KEYS.len())].to_owned(),
    }
}

thread_local! {
    /// Nodes left for the current case (keeps random trees finite and cases quick).
    static NODES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn take_node() -> bool {
    NODES.with(|n| {
        let left = n.get();
        n.set(left.saturating_sub(1));
        left > 0
    })
}

fn value(rng: &mut fastrand::Rng, depth: usize) -> Value {
    if depth > 150 || !take_node() {
        return Value::Null;
    }
    // A long chain now and then, past every depth bound.
    if rng.u8(..40) == 0 {
        let mut v = json!(0);
        for _ in 0..rng.usize(..200) {
            v = if rng.bool() {
                json!([v])
            } else {
                json!({"a": v})
            };
        }
        return v;
    }
    match rng.u8(..12) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => json!(rng.i64(..)),
        3 => json!(rng.f64() * 1e300),
        4 | 5 => Value::String(string(rng)),
        6 | 7 => {
            let n = if rng.u8(..20) == 0 {
                rng.usize(..5_000)
            } else {
                rng.usize(..6)
            };
            Value::Array((0..n).map(|_| value(rng, depth + 1)).collect())
        }
        8 => block(rng, depth + 1),
        _ => {
            let n = if rng.u8(..20) == 0 {
                rng.usize(..5_000)
            } else {
                rng.usize(..6)
            };
            let mut m = Map::new();
            for i in 0..n {
                let k = if rng.bool() {
                    KEYS[rng.usize(..KEYS.len())].to_owned()
                } else {
                    format!("k{i}")
                };
                m.insert(k, value(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

/// A content block, often well-shaped, often with the wrong types.
fn block(rng: &mut fastrand::Rng, depth: usize) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(TYPES[rng.usize(..TYPES.len())]));
    for k in [
        "text", "data", "mimeType", "uri", "blob", "name", "size", "resource",
    ] {
        if rng.bool() {
            let v = if rng.bool() {
                Value::String(string(rng))
            } else {
                value(rng, depth + 1)
            };
            m.insert(k.into(), v);
        }
    }
    Value::Object(m)
}

fn result(rng: &mut fastrand::Rng) -> Value {
    if rng.u8(..8) == 0 {
        return value(rng, 0);
    }
    let mut m = Map::new();
    let n = rng.usize(..20);
    let content: Vec<Value> = (0..n)
        .map(|_| {
            if rng.u8(..4) == 0 {
                value(rng, 1)
            } else {
                block(rng, 2)
            }
        })
        .collect();
    m.insert(
        "content".into(),
        if rng.u8(..10) == 0 {
            value(rng, 1)
        } else {
            Value::Array(content)
        },
    );
    for k in ["isError", "structuredContent", "toolResult"] {
        if rng.u8(..3) == 0 {
            m.insert(k.into(), value(rng, 1));
        }
    }
    Value::Object(m)
}

fn limits(rng: &mut fastrand::Rng) -> McpLimits {
    McpLimits {
        max_result_bytes: [1, 10, 1000, 100_000, 10_000_000][rng.usize(..5)],
        max_json_depth: [1, 3, 64, 128][rng.usize(..4)],
        max_json_properties: [1, 10, 10_000][rng.usize(..3)],
        ..McpLimits::default()
    }
}

const ID: CallIdentity<'static> = CallIdentity {
    tool_call_id: "c",
    name: "mcp:s:t",
    server_id: "s",
    remote_name: "t",
};

#[test]
fn fuzz_mcp_content_and_results() {
    common::fuzz::run("mcp_content", |rng| {
        NODES.with(|n| n.set(20_000));
        let raw = result(rng);
        let l = limits(rng);
        let _ = measure_bounded_json(&raw, l.result_bounds());
        if let Some(content) = raw.get("content").and_then(Value::as_array) {
            let budget = l.max_result_bytes;
            let mapped = map_content(content, budget);
            assert!(
                mapped.bytes_used <= budget,
                "mapped content stays within its budget"
            );
            let summary = summarize_content(content, 8192.min(budget));
            assert!(summary.len() as u64 <= 8192.min(budget));
        }
        let out = tool_result(ID, &raw, &l);
        assert!(out.get("toolCallId").is_some());
        if let Some(msg) = out.pointer("/error/message").and_then(Value::as_str) {
            assert!(msg.len() as u64 <= 8192.min(l.max_result_bytes));
        }
        let mut catalogue = CatalogueBuilder::new(l);
        let page = if rng.bool() {
            json!({"tools": [value(rng, 2), block(rng, 2)], "nextCursor": value(rng, 1)})
        } else {
            value(rng, 0)
        };
        if catalogue.add_page(&page).is_ok() {
            for t in catalogue.finish() {
                assert!(!t.name.chars().any(|c| c.is_control()));
            }
        }
    });
}

fn stream(rng: &mut fastrand::Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.usize(1..6) {
        let mut line = match rng.u8(..6) {
            0 => {
                // Deep nesting far past serde's recursion limit.
                let d = rng.usize(..100_000);
                let (open, close) = if rng.bool() {
                    ("[", "]")
                } else {
                    ("{\"a\":", "}")
                };
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}0{}}}",
                    rng.u8(..4),
                    open.repeat(d),
                    close.repeat(d)
                )
                .into_bytes()
            }
            1 => (0..rng.usize(..2_000))
                .map(|_| rng.u8(..))
                .filter(|b| *b != b'\n')
                .collect(),
            2 => {
                let error =
                    json!({"code": value(rng, 2), "message": value(rng, 2), "data": value(rng, 2)});
                serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": value(rng, 1), "error": error}))
                    .unwrap_or_default()
            }
            3 => serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "method": string(rng), "params": value(rng, 1)}),
            )
            .unwrap_or_default(),
            _ => serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "id": rng.u8(..4), "result": result(rng)}),
            )
            .unwrap_or_default(),
        };
        // Mutations: cut it, or flip a few bytes.
        if rng.u8(..4) == 0 && !line.is_empty() {
            line.truncate(rng.usize(..line.len()));
        }
        for _ in 0..rng.usize(..3) {
            if !line.is_empty() {
                let at = rng.usize(..line.len());
                line[at] = b"{}[]\",:\\ 0a"[rng.usize(..11)];
            }
        }
        out.extend(line.into_iter().filter(|b| *b != b'\n'));
        out.push(b'\n');
    }
    out
}

#[test]
fn fuzz_mcp_line_framer() {
    common::fuzz::run("mcp_framer", |rng| {
        NODES.with(|n| n.set(20_000));
        let input = stream(rng);
        let max_bytes = [16, 1_000, 100_000, 16 * 1024 * 1024][rng.usize(..4)];
        let max_depth = [1, 3, 129][rng.usize(..3)];
        let mut framer = LineFramer::new(max_bytes, max_depth);
        let shared = FrameShared::default();
        for i in 0..4 {
            shared.track(RequestId::Number(i));
        }
        let mut rest: &[u8] = &input;
        let mut lines = 0;
        while !rest.is_empty() {
            let chunk = rng.usize(1..=rest.len().min(70_000));
            let (used, frame) = framer.feed(&rest[..chunk]);
            assert!(used >= 1 && used <= chunk);
            rest = &rest[used..];
            if let Some(frame) = frame {
                lines += 1;
                if let Frame::Line(l) = &frame {
                    assert!(l.len() <= max_bytes);
                }
                match shared.judge(frame) {
                    Outcome::Deliver(_) | Outcome::Skip => {}
                    Outcome::Fail(ids, _) => assert!(!ids.is_empty()),
                }
            }
        }
        assert_eq!(lines, input.iter().filter(|b| **b == b'\n').count());
        assert!(shared.tracked() <= 4, "failed requests are not left behind");
    });
}

/// One answer line for request `id` (or a stray), of a random kind, maybe cut short.
fn answer_line(rng: &mut fastrand::Rng) -> Vec<u8> {
    let id = match rng.u8(..8) {
        0 => json!("s"),
        1 => Value::Null,
        2 => json!(99),
        _ => json!(rng.u8(..4)),
    };
    let mut message = match rng.u8(..7) {
        0 => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "ok"}]}})
        }
        1 => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "failed"}}),
        2 => json!({"jsonrpc": "2.0", "id": id, "error": {"code": "x", "message": 1}}),
        3 => json!({"jsonrpc": "2.0", "id": id, "result": value(rng, 2)}),
        4 => json!({"jsonrpc": "2.0", "id": id}),
        5 => {
            json!({"jsonrpc": "2.0", "id": id, "result": {}, "error": {"code": 1, "message": "m"}})
        }
        _ => json!({"jsonrpc": "2.0", "id": id, "error": value(rng, 2)}),
    };
    if rng.u8(..6) == 0 {
        if let Some(o) = message.as_object_mut() {
            o.remove("id");
        }
    }
    let mut line = serde_json::to_vec(&message).unwrap_or_default();
    if rng.u8(..5) == 0 && !line.is_empty() {
        line.truncate(rng.usize(..line.len()));
    }
    line.retain(|b| *b != b'\n');
    line
}

/// How `line` settles direct call `n` if it still waits: `Some(true)` only for a JSON object
/// that answers `n` with an object `result` and no `error`; `Some(false)` for an answer to
/// `n` of any other shape, and for a wrongly shaped answer naming no request (it could have
/// been anyone's); `None` when it leaves `n` waiting (not JSON, a stray, a request).
fn settles(line: &[u8], n: i64) -> Option<bool> {
    // Read as the framer reads it: any nesting (the framer bounds it; these lines are small).
    let mut de = serde_json::Deserializer::from_slice(line);
    de.disable_recursion_limit();
    let v = serde::Deserialize::deserialize(&mut de).and_then(|v: Value| de.end().map(|()| v));
    let v = v.ok()?;
    let o = v.as_object()?;
    if o.contains_key("method") {
        return None;
    }
    let well_shaped = match (o.get("result"), o.get("error")) {
        (Some(Value::Object(_)), None) => true,
        (None, Some(Value::Object(e))) => {
            e.get("code")
                .and_then(Value::as_i64)
                .is_some_and(|c| i32::try_from(c).is_ok())
                && e.get("message").is_some_and(Value::is_string)
        }
        _ => false,
    };
    match o.get("id") {
        Some(id) if id.as_i64() == Some(n) => Some(well_shaped && o.contains_key("result")),
        None | Some(Value::Null) if !well_shaped => Some(false),
        _ => None,
    }
}

#[test]
fn fuzz_mcp_no_answer_becomes_a_success_it_was_not() {
    common::fuzz::run("mcp_answers", |rng| {
        NODES.with(|n| n.set(2_000));
        let shared = FrameShared::default();
        let outcomes: std::sync::Arc<std::sync::Mutex<Vec<(i64, bool)>>> = Default::default();
        let later = prism_engine::mcp::progress::Deadlines::new(
            std::time::Instant::now(),
            std::time::Duration::from_secs(600),
            std::time::Duration::from_secs(6_000),
        );
        for n in 0..4 {
            let sink = std::sync::Arc::clone(&outcomes);
            shared.track_direct(
                n,
                Box::new(move |r| {
                    sink.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((n, r.is_ok()));
                }),
                later,
            );
        }
        let mut expected: Vec<(i64, bool)> = Vec::new();
        for _ in 0..rng.usize(1..10) {
            let line = answer_line(rng);
            for n in 0..4 {
                if expected.iter().all(|(m, _)| *m != n) {
                    if let Some(success) = settles(&line, n) {
                        expected.push((n, success));
                    }
                }
            }
            if std::env::var("PRISM_FUZZ_TRACE").is_ok() {
                eprintln!("{}", String::from_utf8_lossy(&line));
            }
            let _ = shared.judge(Frame::Line(line));
        }
        let mut got = outcomes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        got.sort_unstable();
        expected.sort_unstable();
        assert_eq!(
            got, expected,
            "each call settles once, a success only by a success"
        );
    });
}
