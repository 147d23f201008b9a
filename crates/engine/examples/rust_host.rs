//! A Rust host of the dispatch engine: Rust tools, Rust hooks, one provider turn.
//!
//! Run with `cargo run --release -p prism-engine --example rust_host`.

use std::sync::Arc;

use prism_engine::tools::dispatch::Thrown;
use prism_engine::tools::host::{dispatch_turn, BoxFuture, Hooks, Tool, ToolCall};
use prism_engine::tools::registry::{DuplicatePolicy, Registry};
use serde_json::{json, Value};

/// Echoes its `text` argument.
struct Echo;

impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn execute<'a>(&'a self, arguments: &'a Value) -> BoxFuture<'a, Result<Value, Thrown>> {
        Box::pin(async move { Ok(json!({ "text": arguments.get("text").cloned() })) })
    }
}

/// Deletes nothing, but the permission hook below never lets it run.
struct Delete;

impl Tool for Delete {
    fn name(&self) -> &str {
        "delete"
    }
    fn execute<'a>(&'a self, _arguments: &'a Value) -> BoxFuture<'a, Result<Value, Thrown>> {
        Box::pin(async { Ok(json!({})) })
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
        arguments_error: None,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut registry: Registry<Arc<dyn Tool>> = Registry::new(DuplicatePolicy::Error);
    for tool in [Arc::new(Echo) as Arc<dyn Tool>, Arc::new(Delete)] {
        let name = String::from(tool.name());
        if let Err(e) = registry.register(&name, tool) {
            eprintln!("{e}");
            return;
        }
    }
    let hooks = Hooks {
        permission: Some(Arc::new(|c: &ToolCall| {
            if c.name == "delete" {
                Err(Thrown::ErrorLike {
                    name: Some("PermissionDeniedError".into()),
                    message: format!("Permission denied: tool:{}:execute", c.name),
                    code: None,
                    cause: None,
                    retry_after_ms: None,
                })
            } else {
                Ok(())
            }
        })),
        emit: Some(Arc::new(|e| {
            println!("event {} {}", e.kind.as_str(), e.tool_call_id)
        })),
        ..Hooks::default()
    };
    let calls = [
        call("c1", "echo", json!({ "text": "hello" })),
        call("c2", "delete", json!({})),
        call("c3", "missing", json!({})),
        call("c4", "echo", json!([1])),
    ];
    for r in dispatch_turn(&registry, &calls, &hooks, 2.0, false).await {
        let r = match r {
            Ok(r) => r,
            Err(suspended) => {
                println!("the run is suspended: {suspended:?}");
                break;
            }
        };
        match (r.value, r.error) {
            (Some(v), _) => println!("{} -> {v}", r.tool_call_id),
            (None, Some(e)) => println!("{} -> error: {}", r.tool_call_id, e.message),
            (None, None) => println!("{} -> nothing", r.tool_call_id),
        }
    }
}
