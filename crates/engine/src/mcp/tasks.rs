//! Tools called as tasks (the 2025-11-25 revision's tasks, SEP-1686): a tool whose listing says
//! `execution.taskSupport: "required"` refuses a plain `tools/call`, so the bridge calls it
//! with `params.task` and follows the task the server creates: it polls `tasks/get` (at the
//! server's `pollInterval`, kept within [`MCP_TASK_MIN_POLL_MS`]..[`MCP_TASK_MAX_POLL_MS`])
//! until the status is terminal, then fetches `tasks/result`, which is the call's result.
//!
//! The whole task runs on the call's clock ([`Deadlines`]): `callTimeoutMs` from the call's
//! start, restarted whenever a poll shows the task moved on (a new status or status message,
//! the task's own progress report), up to `maxTotalTimeoutMs`. Each request of the task waits
//! only for what is left of that clock, so the number of polls is bounded by the deadlines
//! and the shortest poll interval. On an abort, a timeout, a malformed answer, or a task that
//! needs input (`input_required`: the bridge does not answer in-task requests) the task is
//! cancelled with `tasks/cancel`, best effort and bounded ([`MCP_TASK_CANCEL_TIMEOUT_MS`]),
//! and the call fails as a plain call would.
//!
//! The state machine here is independent of the transport ([`TaskRequests`]); the session
//! sends the requests (stdio: lines of its own; HTTP: raw requests through rmcp).

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::catalogue::ListedTool;
use super::content::truncate_utf8;
use super::progress::Deadlines;
use super::McpError;
use crate::limits::{
    MCP_ERROR_DETAIL_BYTES, MCP_MAX_TASK_ID_BYTES, MCP_TASK_DEFAULT_POLL_MS, MCP_TASK_MAX_POLL_MS,
    MCP_TASK_MIN_POLL_MS,
};

pub use super::catalogue::requires_task;

/// The tools of one session's last listing that are called as tasks.
#[derive(Debug, Default)]
pub struct TaskTools(Mutex<HashSet<String>>);

impl TaskTools {
    /// Keeps the task tools of `tools` (a new listing replaces the last one's).
    pub fn replace(&self, tools: &[ListedTool]) {
        let set = tools
            .iter()
            .filter(|t| t.task_required)
            .map(|t| t.name.clone())
            .collect();
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = set;
    }

    /// Whether `remote_name` is called as a task.
    #[must_use]
    pub fn contains(&self, remote_name: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(remote_name)
    }

    /// Forgets every tool (a closed session keeps nothing).
    pub fn clear(&self) {
        drop(std::mem::take(
            &mut *self.0.lock().unwrap_or_else(PoisonError::into_inner),
        ));
    }
}

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Running.
    Working,
    /// Waiting for an answer to a request of the server's (not given by the bridge).
    InputRequired,
    /// Done, its result ready.
    Completed,
    /// Done, failed.
    Failed,
    /// Cancelled (by the server, or by a `tasks/cancel`).
    Cancelled,
}

impl Status {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "working" => Self::Working,
            "input_required" => Self::InputRequired,
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "cancelled" => Self::Cancelled,
            _ => return None,
        })
    }
}

/// What the bridge keeps of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The server's id of the task (a non-empty string of at most [`MCP_MAX_TASK_ID_BYTES`]).
    pub id: String,
    /// Its status.
    pub status: Status,
    /// Its status message, if any.
    pub message: Option<String>,
    /// The server's suggested poll interval, in milliseconds.
    pub poll_interval_ms: Option<u64>,
}

fn invalid(reason: String) -> McpError {
    McpError::InvalidResponse { reason }
}

/// A server text shown in an error, cut to [`MCP_ERROR_DETAIL_BYTES`].
fn detail(text: &str) -> &str {
    truncate_utf8(text, MCP_ERROR_DETAIL_BYTES)
}

/// The task fields of `obj` (`what`: where they are, for the error).
fn parse_task(obj: &Map<String, Value>, what: &str) -> Result<Task, McpError> {
    let id = match obj.get("taskId") {
        Some(Value::String(id)) => id,
        _ => return Err(invalid(format!("its {what} has no string taskId"))),
    };
    if id.is_empty() {
        return Err(invalid(format!("its {what} has an empty taskId")));
    }
    if id.len() > MCP_MAX_TASK_ID_BYTES {
        return Err(invalid(format!(
            "its {what} taskId exceeds {MCP_MAX_TASK_ID_BYTES} bytes"
        )));
    }
    let status = match obj.get("status") {
        Some(Value::String(s)) => Status::parse(s).ok_or_else(|| {
            invalid(format!(
                "its {what} status \"{}\" is not a task status",
                detail(s)
            ))
        })?,
        _ => return Err(invalid(format!("its {what} has no string status"))),
    };
    let message = match obj.get("statusMessage") {
        None | Some(Value::Null) => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) => return Err(invalid(format!("its {what} statusMessage is not a string"))),
    };
    let poll_interval_ms = match obj.get("pollInterval") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            // Whole milliseconds; a huge one is capped by the bounds anyway.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(ms) if ms >= 0.0 && ms.is_finite() => Some(ms as u64),
            _ => {
                return Err(invalid(format!(
                    "its {what} pollInterval is not a non-negative number"
                )))
            }
        },
        Some(_) => {
            return Err(invalid(format!(
                "its {what} pollInterval is not a non-negative number"
            )))
        }
    };
    Ok(Task {
        id: id.clone(),
        status,
        message,
        poll_interval_ms,
    })
}

/// What the server answered to a `tools/call` with `params.task`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// A `CreateTaskResult`: the task to follow.
    Task(Task),
    /// A plain `CallToolResult` (no `task` member): the server ran the call without a task,
    /// as a server that does not support tasks for it must; it is mapped as a plain result.
    Plain,
}

/// Reads the answer to a task-augmented `tools/call`.
///
/// # Errors
/// [`McpError::InvalidResponse`] naming what is wrong with a malformed `CreateTaskResult`.
pub fn created(result: &Value) -> Result<Created, McpError> {
    match result.get("task") {
        None => Ok(Created::Plain),
        Some(Value::Object(task)) => parse_task(task, "CreateTaskResult task").map(Created::Task),
        Some(_) => Err(invalid("its CreateTaskResult task is not an object".into())),
    }
}

/// Reads a `tasks/get` answer for task `id`.
///
/// # Errors
/// [`McpError::InvalidResponse`] naming what is wrong, also when it names another task.
pub fn polled(result: &Value, id: &str) -> Result<Task, McpError> {
    let Some(obj) = result.as_object() else {
        return Err(invalid("its tasks/get result is not an object".into()));
    };
    let task = parse_task(obj, "tasks/get result")?;
    if task.id != id {
        return Err(invalid("its tasks/get result names another task".into()));
    }
    Ok(task)
}

/// How long to wait before the next poll: the server's `pollInterval` (or
/// [`MCP_TASK_DEFAULT_POLL_MS`]) kept within [`MCP_TASK_MIN_POLL_MS`]..[`MCP_TASK_MAX_POLL_MS`].
#[must_use]
pub fn poll_delay(poll_interval_ms: Option<u64>) -> Duration {
    let ms = poll_interval_ms
        .unwrap_or(MCP_TASK_DEFAULT_POLL_MS)
        .clamp(MCP_TASK_MIN_POLL_MS, MCP_TASK_MAX_POLL_MS);
    Duration::from_millis(ms)
}

/// " (<status message>)", or nothing.
fn said(message: Option<&str>) -> String {
    message.map_or_else(String::new, |m| format!(": {}", detail(m)))
}

/// The error of a task that ended without a result the call can report.
fn ended(what: &str, message: Option<&str>) -> McpError {
    McpError::TaskEnded {
        reason: format!("{what}{}", said(message)),
    }
}

/// The next step for a task in this state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Poll again after this long.
    Poll(Duration),
    /// Fetch `tasks/result`.
    Fetch,
    /// Fail the call; `cancel`: send `tasks/cancel` first.
    Fail {
        /// The call's error.
        error: McpError,
        /// Whether the task is still alive, to be cancelled.
        cancel: bool,
    },
}

/// What to do with a task whose last known state is `task`.
#[must_use]
pub fn next_step(task: &Task) -> Step {
    match task.status {
        Status::Working => Step::Poll(poll_delay(task.poll_interval_ms)),
        Status::Completed | Status::Failed => Step::Fetch,
        Status::Cancelled => Step::Fail {
            error: ended("was cancelled by the server", task.message.as_deref()),
            cancel: false,
        },
        Status::InputRequired => Step::Fail {
            error: ended(
                "needs input (status input_required), which the bridge does not give; it was \
                 cancelled",
                task.message.as_deref(),
            ),
            cancel: true,
        },
    }
}

/// The requests of a task, sent by the session over its transport.
pub trait TaskRequests {
    /// Sends `method` (`tasks/get` or `tasks/result`) for task `task_id` and waits for its
    /// result object until `clock` runs out or `cancel` fires (then the request is given up,
    /// with `notifications/cancelled`).
    fn request(
        &self,
        method: &'static str,
        task_id: &str,
        clock: Deadlines,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<Value, McpError>> + Send;

    /// Sends `tasks/cancel` for `task_id` without waiting (best effort, its wait bounded by
    /// [`MCP_TASK_CANCEL_TIMEOUT_MS`](crate::limits::MCP_TASK_CANCEL_TIMEOUT_MS)).
    fn cancel(&self, task_id: &str);
}

/// The clock of one request of the task: what is left of the call's.
fn request_clock(clock: &Deadlines, now: Instant) -> Deadlines {
    let left = clock.due.saturating_duration_since(now);
    Deadlines::new(now, left, left)
}

/// A request's failure as the call's: a request's own timeout is the call's timeout.
fn as_call_error(error: McpError, clock: &Deadlines) -> McpError {
    match error {
        McpError::CallTimeout { .. } | McpError::TotalTimeout { .. } => clock.timeout_error(),
        other => other,
    }
}

/// Follows `task` (just created by the call whose clock is `clock`) to its result: the raw
/// `tasks/result` answer, to be mapped as a plain call's result.
///
/// # Errors
/// The call's timeout, [`McpError::Aborted`], [`McpError::TaskEnded`], a malformed answer
/// ([`McpError::InvalidResponse`]), or a request's failure.
pub async fn follow<R: TaskRequests + Sync>(
    requests: &R,
    mut task: Task,
    mut clock: Deadlines,
    cancel: &CancellationToken,
) -> Result<Value, McpError> {
    loop {
        match next_step(&task) {
            Step::Fetch => break,
            Step::Fail {
                error,
                cancel: alive,
            } => {
                if alive {
                    requests.cancel(&task.id);
                }
                return Err(error);
            }
            Step::Poll(wait) => {
                let wake = Instant::now()
                    .checked_add(wait)
                    .map_or(clock.due, |w| w.min(clock.due));
                tokio::select! {
                    () = tokio::time::sleep_until(wake.into()) => {}
                    () = cancel.cancelled() => {
                        requests.cancel(&task.id);
                        return Err(McpError::Aborted);
                    }
                }
            }
        }
        let now = Instant::now();
        if now >= clock.due {
            requests.cancel(&task.id);
            return Err(clock.timeout_error());
        }
        let answer = requests
            .request("tasks/get", &task.id, request_clock(&clock, now), cancel)
            .await;
        let next = answer.and_then(|a| polled(&a, &task.id));
        let next = match next {
            Ok(next) => next,
            Err(McpError::Closed) => return Err(McpError::Closed),
            Err(e) => {
                requests.cancel(&task.id);
                return Err(as_call_error(e, &clock));
            }
        };
        // A task that moved on reported progress: the call's clock restarts.
        if next.status != task.status || next.message != task.message {
            clock.progressed(Instant::now());
        }
        task = next;
    }
    let now = Instant::now();
    if now >= clock.due {
        return Err(clock.timeout_error());
    }
    let result = requests
        .request("tasks/result", &task.id, request_clock(&clock, now), cancel)
        .await
        .map_err(|e| as_call_error(e, &clock));
    if task.status == Status::Completed {
        return result;
    }
    // A failed task: its result is the call's only when it is an error result (never a
    // success), else the call fails naming the task's status message.
    match result {
        Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => Ok(r),
        Err(e @ (McpError::Aborted | McpError::Closed)) => Err(e),
        Err(e @ (McpError::CallTimeout { .. } | McpError::TotalTimeout { .. })) => Err(e),
        Ok(_) | Err(_) => Err(ended("failed", task.message.as_deref())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::VecDeque;
    use std::sync::Arc;

    fn task(status: &str) -> Value {
        json!({"taskId": "t1", "status": status, "createdAt": "2025-11-25T00:00:00Z",
            "lastUpdatedAt": "2025-11-25T00:00:00Z", "ttl": 60000, "pollInterval": 0})
    }

    fn reason(e: McpError) -> String {
        match e {
            McpError::InvalidResponse { reason } => reason,
            other => panic!("not an invalid response: {other:?}"),
        }
    }

    #[test]
    fn the_listing_decides_which_tools_are_called_as_tasks() {
        assert!(requires_task(
            &json!({"execution": {"taskSupport": "required"}})
        ));
        for other in [
            json!({"execution": {"taskSupport": "optional"}}),
            json!({"execution": {"taskSupport": "forbidden"}}),
            json!({"execution": {}}),
            json!({"execution": "required"}),
            json!({}),
        ] {
            assert!(!requires_task(&other), "{other}");
        }
    }

    #[test]
    fn a_create_task_result_is_read_and_a_plain_result_is_one() {
        let Ok(Created::Task(t)) = created(&json!({"task": task("working")})) else {
            panic!("a task")
        };
        assert_eq!(t.id, "t1");
        assert_eq!(t.status, Status::Working);
        assert_eq!(t.poll_interval_ms, Some(0));
        let plain = json!({"content": [{"type": "text", "text": "ran plainly"}]});
        assert_eq!(created(&plain), Ok(Created::Plain));
    }

    #[test]
    fn a_malformed_task_fails_naming_what_is_wrong() {
        let with = |k: &str, v: Value| {
            let mut t = task("working");
            t[k] = v;
            json!({ "task": t })
        };
        let cases = [
            (
                json!({"task": "t1"}),
                "its CreateTaskResult task is not an object",
            ),
            (
                json!({"task": {"status": "working"}}),
                "its CreateTaskResult task has no string taskId",
            ),
            (
                with("taskId", json!(7)),
                "its CreateTaskResult task has no string taskId",
            ),
            (
                with("taskId", json!("")),
                "its CreateTaskResult task has an empty taskId",
            ),
            (
                with("taskId", json!("x".repeat(MCP_MAX_TASK_ID_BYTES + 1))),
                &format!("its CreateTaskResult task taskId exceeds {MCP_MAX_TASK_ID_BYTES} bytes"),
            ),
            (
                with("status", json!("done")),
                "its CreateTaskResult task status \"done\" is not a task status",
            ),
            (
                with("status", json!(null)),
                "its CreateTaskResult task has no string status",
            ),
            (
                with("statusMessage", json!(1)),
                "its CreateTaskResult task statusMessage is not a string",
            ),
            (
                with("pollInterval", json!(-1)),
                "its CreateTaskResult task pollInterval is not a non-negative number",
            ),
            (
                with("pollInterval", json!("1s")),
                "its CreateTaskResult task pollInterval is not a non-negative number",
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(reason(created(&answer).expect_err("malformed")), expected);
        }
        let long = "x".repeat(MCP_MAX_TASK_ID_BYTES);
        let mut ok = task("working");
        ok["taskId"] = json!(long);
        assert!(
            created(&json!({ "task": ok })).is_ok(),
            "the bound itself is allowed"
        );
        assert_eq!(
            reason(polled(&task("working"), "t2").expect_err("another task")),
            "its tasks/get result names another task"
        );
        assert_eq!(
            reason(polled(&json!([1]), "t1").expect_err("not an object")),
            "its tasks/get result is not an object"
        );
    }

    #[test]
    fn poll_intervals_are_kept_within_the_bounds() {
        let ms = Duration::from_millis;
        assert_eq!(poll_delay(None), ms(MCP_TASK_DEFAULT_POLL_MS));
        assert_eq!(poll_delay(Some(0)), ms(MCP_TASK_MIN_POLL_MS));
        assert_eq!(poll_delay(Some(u64::MAX)), ms(MCP_TASK_MAX_POLL_MS));
        let between = MCP_TASK_MIN_POLL_MS + 1;
        assert_eq!(poll_delay(Some(between)), ms(between));
    }

    #[test]
    fn terminal_states_fetch_the_result_or_fail() {
        let t = |s: &str| polled(&task(s), "t1").expect("task");
        assert_eq!(next_step(&t("completed")), Step::Fetch);
        assert_eq!(next_step(&t("failed")), Step::Fetch);
        assert!(matches!(next_step(&t("working")), Step::Poll(_)));
        let Step::Fail { error, cancel } = next_step(&t("cancelled")) else {
            panic!("cancelled fails")
        };
        assert!(!cancel);
        assert_eq!(
            error.to_string(),
            "MCP tool call task was cancelled by the server"
        );
        let mut input = t("input_required");
        input.message = Some("which one?".into());
        let Step::Fail { error, cancel } = next_step(&input) else {
            panic!("input_required fails")
        };
        assert!(cancel, "a task waiting for input is cancelled");
        assert!(error.to_string().contains("input_required"), "{error}");
        assert!(error.to_string().ends_with(": which one?"), "{error}");
    }

    /// Answers from a script (a request past its end waits until its clock runs out or the
    /// abort); records every request and cancel.
    #[derive(Default, Clone)]
    struct Script {
        answers: Arc<Mutex<VecDeque<Result<Value, McpError>>>>,
        sent: Arc<Mutex<Vec<String>>>,
    }

    impl Script {
        fn new(answers: Vec<Result<Value, McpError>>) -> Self {
            Self {
                answers: Arc::new(Mutex::new(answers.into())),
                ..Self::default()
            }
        }
        fn sent(&self) -> Vec<String> {
            self.sent.lock().expect("lock").clone()
        }
    }

    impl TaskRequests for Script {
        fn request(
            &self,
            method: &'static str,
            task_id: &str,
            clock: Deadlines,
            cancel: &CancellationToken,
        ) -> impl Future<Output = Result<Value, McpError>> + Send {
            self.sent
                .lock()
                .expect("lock")
                .push(format!("{method} {task_id}"));
            let next = self.answers.lock().expect("lock").pop_front();
            let cancel = cancel.clone();
            async move {
                if let Some(answer) = next {
                    return answer;
                }
                tokio::select! {
                    () = tokio::time::sleep_until(clock.due.into()) => Err(clock.timeout_error()),
                    () = cancel.cancelled() => Err(McpError::Aborted),
                }
            }
        }
        fn cancel(&self, task_id: &str) {
            self.sent
                .lock()
                .expect("lock")
                .push(format!("tasks/cancel {task_id}"));
        }
    }

    fn created_task(status: &str) -> Task {
        polled(&task(status), "t1").expect("task")
    }

    fn clock(ms: u64, total: u64) -> Deadlines {
        Deadlines::new(
            Instant::now(),
            Duration::from_millis(ms),
            Duration::from_millis(total),
        )
    }

    fn text_result(t: &str) -> Value {
        json!({"content": [{"type": "text", "text": t}]})
    }

    #[tokio::test]
    async fn a_task_is_polled_until_completed_then_its_result_fetched() {
        let script = Script::new(vec![
            Ok(task("working")),
            Ok(task("completed")),
            Ok(text_result("done")),
        ]);
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(out, Ok(text_result("done")));
        assert_eq!(
            script.sent(),
            ["tasks/get t1", "tasks/get t1", "tasks/result t1"]
        );
    }

    #[tokio::test]
    async fn a_failed_task_is_an_error_never_a_success() {
        let error_result = json!({"content": [], "isError": true});
        let script = Script::new(vec![Ok(error_result.clone())]);
        let out = follow(
            &script,
            created_task("failed"),
            clock(60_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(out, Ok(error_result), "an error result is the call's");
        let mut failed = created_task("failed");
        failed.message = Some("disk full".into());
        for answer in [
            Ok(text_result("looks fine")),
            Err(McpError::Remote {
                code: -32603,
                message: "no result".into(),
            }),
        ] {
            let script = Script::new(vec![answer]);
            let out = follow(
                &script,
                failed.clone(),
                clock(60_000, 600_000),
                &CancellationToken::new(),
            )
            .await;
            assert_eq!(
                out.expect_err("failed").to_string(),
                "MCP tool call task failed: disk full"
            );
            assert_eq!(
                script.sent(),
                ["tasks/result t1"],
                "a finished task is not cancelled"
            );
        }
    }

    #[tokio::test]
    async fn a_cancelled_or_input_required_status_fails_the_call() {
        let script = Script::new(vec![Ok(task("cancelled"))]);
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert!(matches!(out, Err(McpError::TaskEnded { .. })));
        assert_eq!(script.sent(), ["tasks/get t1"]);
        let script = Script::new(vec![Ok(task("input_required"))]);
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert!(out
            .expect_err("input")
            .to_string()
            .contains("input_required"));
        assert_eq!(script.sent(), ["tasks/get t1", "tasks/cancel t1"]);
    }

    #[tokio::test]
    async fn a_malformed_poll_fails_naming_it_and_cancels_the_task() {
        let mut bad = task("working");
        bad["status"] = json!("sleeping");
        let script = Script::new(vec![Ok(bad)]);
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(
            out.expect_err("malformed").to_string(),
            "MCP server sent an invalid response: its tasks/get result status \"sleeping\" is not a task status"
        );
        assert_eq!(script.sent(), ["tasks/get t1", "tasks/cancel t1"]);
    }

    #[tokio::test]
    async fn a_task_that_never_ends_times_out_and_is_cancelled() {
        let start = Instant::now();
        let script = Script::new(vec![Ok(task("working")); 100]);
        let out = follow(
            &script,
            created_task("working"),
            clock(500, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(out, Err(McpError::CallTimeout { timeout_ms: 500 }));
        assert!(Instant::now() - start >= Duration::from_millis(500));
        let sent = script.sent();
        assert_eq!(sent.last().map(String::as_str), Some("tasks/cancel t1"));
        // Polls no faster than the shortest interval the bounds allow, within the timeout.
        let polls = sent.iter().filter(|s| s.starts_with("tasks/get")).count() as u64;
        assert!(
            (1..=500 / MCP_TASK_MIN_POLL_MS).contains(&polls),
            "{polls} polls"
        );
    }

    #[tokio::test]
    async fn moving_on_restarts_the_clock_up_to_the_total() {
        let answers = (0..100)
            .map(|i| {
                let mut t = task("working");
                t["statusMessage"] = json!(format!("step {i}"));
                Ok(t)
            })
            .collect();
        let script = Script::new(answers);
        let start = Instant::now();
        // Without the restarts it would time out after 250ms.
        let out = follow(
            &script,
            created_task("working"),
            clock(250, 700),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(out, Err(McpError::TotalTimeout { total_ms: 700 }));
        assert!(Instant::now() - start >= Duration::from_millis(700));
        assert_eq!(
            script.sent().last().map(String::as_str),
            Some("tasks/cancel t1")
        );
    }

    #[tokio::test]
    async fn a_poll_that_hangs_times_out_as_the_call_and_cancels() {
        let script = Script::default();
        let out = follow(
            &script,
            created_task("working"),
            clock(1_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(out, Err(McpError::CallTimeout { timeout_ms: 1_000 }));
        assert_eq!(script.sent(), ["tasks/get t1", "tasks/cancel t1"]);
    }

    #[tokio::test]
    async fn an_abort_while_waiting_or_polling_cancels_the_task() {
        // While waiting between polls.
        let script = Script::new(vec![Ok(task("working")); 10]);
        let abort = CancellationToken::new();
        let trigger = abort.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(250)).await;
            trigger.cancel();
        });
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &abort,
        )
        .await;
        assert_eq!(out, Err(McpError::Aborted));
        assert_eq!(
            script.sent().last().map(String::as_str),
            Some("tasks/cancel t1")
        );
        // While a poll waits for its answer.
        let script = Script::default();
        let abort = CancellationToken::new();
        let trigger = abort.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(150)).await;
            trigger.cancel();
        });
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &abort,
        )
        .await;
        assert_eq!(out, Err(McpError::Aborted));
        assert_eq!(script.sent(), ["tasks/get t1", "tasks/cancel t1"]);
        // A closed session cancels nothing.
        let script = Script::new(vec![Err(McpError::Closed)]);
        let out = follow(
            &script,
            created_task("working"),
            clock(60_000, 600_000),
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(out, Err(McpError::Closed));
        assert_eq!(script.sent(), ["tasks/get t1"]);
    }
}
