//! Connect, call and close an MCP stdio session many times, then connect, call and drop one
//! without closing it as many times: each cycle must give back what it took. A counting global allocator (this file is its own test binary) measures the bytes
//! live on the heap, and the runtime's metrics count the tasks still alive, so a leak shows up
//! as a number, not as resident-memory noise.
//!
//! Needs `node` on `PATH` (it runs the project's misbehaving-server fixture in its normal mode).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use prism_engine::mcp::arguments::ArgumentsJson;
use prism_engine::mcp::call_result::CallIdentity;
use prism_engine::mcp::session::{McpSession, TransportConfig};
use prism_engine::mcp::stdio::{StderrMode, StdioConfig};
use prism_engine::mcp::McpLimits;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

fn delta(size: usize) -> isize {
    isize::try_from(size).unwrap_or(isize::MAX)
}

// SAFETY: every call is forwarded unchanged to `System`; the counter only observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(delta(layout.size()), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(delta(layout.size()), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(delta(layout.size()), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(delta(new_size) - delta(layout.size()), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_bytes() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn fixture() -> TransportConfig {
    let server = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../__test__/fixtures/mcp-misbehaving-server.js"
    );
    TransportConfig::Stdio(StdioConfig {
        command: "node".into(),
        args: vec![server.into()],
        env: [("MCP_FIXTURE_MODE".to_owned(), "normal".to_owned())].into(),
        cwd: None,
        stderr: StderrMode::Ignore,
    })
}

/// One connect, `echo` call and close. Returns the session, closed but not yet dropped.
async fn cycle(transport: &TransportConfig) -> Arc<McpSession> {
    let session = connect_and_call(transport).await;
    session.close().await;
    session
}

/// One connect and `echo` call; the session is left open.
async fn connect_and_call(transport: &TransportConfig) -> Arc<McpSession> {
    let limits = McpLimits::default();
    let session = match McpSession::connect(
        transport,
        limits,
        &Default::default(),
        Arc::new(|| {}),
        Default::default(),
        CancellationToken::new(),
    )
    .await
    {
        Ok(s) => Arc::new(s),
        Err(e) => panic!("the fixture server (node on PATH) did not connect: {e}"),
    };
    let mut arguments = Map::new();
    arguments.insert("message".into(), Value::from("x"));
    let id = CallIdentity {
        tool_call_id: "c",
        name: "mcp:t:echo",
        server_id: "t",
        remote_name: "echo",
    };
    let result = session
        .call_tool_result(
            id,
            &ArgumentsJson::from_map(&arguments),
            limits.call_timeout_ms,
            &CancellationToken::new(),
        )
        .await;
    assert!(result.get("error").is_none(), "echo failed: {result}");
    session
}

/// Whether `pid` still exists (a zombie, dead but not reaped, counts).
fn exists(pid: i32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Waits until every task the sessions spawned has ended (each cycle's detached tasks end
/// shortly after `close()` returns); returns how many are still alive.
async fn settle(rt: &tokio::runtime::Handle) -> usize {
    for _ in 0..500 {
        // This test's own task is the only one that should be left.
        if rt.metrics().num_alive_tasks() <= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    rt.metrics().num_alive_tasks().saturating_sub(1)
}

const WARM_UP: usize = 5;
const CYCLES: usize = 40;
/// What one cycle may leave behind, summed over every cycle: small enough that a leak of a
/// few hundred bytes a cycle fails, large enough for a set or map growing its capacity once.
const SLACK_BYTES: isize = 8 * 1024;

#[test]
fn connect_call_close_cycles_give_back_their_memory_and_tasks() {
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("no runtime: {e}"),
    };
    let handle = rt.handle().clone();
    rt.block_on(async {
        let transport = fixture();
        // The first cycles fill what is created once (the process driver, lazy statics).
        for _ in 0..WARM_UP {
            drop(cycle(&transport).await);
        }
        assert_eq!(settle(&handle).await, 0, "tasks alive after warm-up");
        let baseline = live_bytes();
        let mut closed = Vec::new();
        for _ in 0..CYCLES {
            closed.push(cycle(&transport).await);
        }
        assert_eq!(settle(&handle).await, 0, "tasks alive after close");
        // A closed session holds no connection state, even while someone keeps it.
        let kept = live_bytes() - baseline;
        let per_session = kept / isize::try_from(CYCLES).unwrap_or(1);
        assert!(
            per_session < 2048,
            "a closed session still holds {per_session} bytes"
        );
        drop(closed);
        let grown = live_bytes() - baseline;
        assert!(
            grown < SLACK_BYTES,
            "{CYCLES} cycles left {grown} bytes behind"
        );
        // Sessions dropped without close() (a host that lost its bridge): each closes itself
        // on the runtime, the last one dropped on a thread outside it (as a napi finalizer
        // does). Every server is reaped, every task ends, the memory comes back.
        let mut pids = Vec::new();
        for i in 0..CYCLES {
            let session = connect_and_call(&transport).await;
            pids.push(session.server_pid().await.unwrap_or(0));
            if i + 1 < CYCLES {
                drop(session);
            } else if std::thread::spawn(move || drop(session)).join().is_err() {
                panic!("dropping a session outside the runtime panicked");
            }
        }
        assert!(pids.iter().all(|p| *p > 0), "{pids:?}");
        assert_eq!(settle(&handle).await, 0, "tasks alive after the drops");
        for _ in 0..500 {
            if !pids.iter().any(|p| exists(*p)) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let left: Vec<i32> = pids.into_iter().filter(|p| exists(*p)).collect();
        assert!(
            left.is_empty(),
            "servers of dropped sessions not reaped: {left:?}"
        );
        let grown = live_bytes() - baseline;
        assert!(
            grown < SLACK_BYTES,
            "{CYCLES} dropped sessions left {grown} bytes behind"
        );
    });
}
