//! The tool harness: the frozen dispatch gate order, blocked reasons, the registry and filter
//! semantics, the JSON-object argument check and secret redaction.
//!
//! Host hooks (middleware, permission, validator, `execute`) are callbacks in the host's
//! language, so the engine never calls them: the [`dispatch::DispatchMachine`] walks the
//! gates a host configured and names each step, the host performs the callback and reports
//! what happened as a fact, and every decision on those facts (call check, blocked reasons and
//! messages, denial, failure or rethrow, `ErrorInfo` shapes with redaction, the invalid-result
//! error) is made in [`dispatch::decide`]; the record vocabulary is [`events`]. Both drivers,
//! the JavaScript one through the binding and [`host`] for Rust hosts, apply it. The order of
//! gates lives only in [`gate::DISPATCH_ORDER`].

pub mod args;
pub mod blocked;
pub mod dispatch;
pub mod error_info;
pub mod events;
pub mod filter;
pub mod gate;
pub mod host;
pub mod middleware;
pub mod permission;
pub mod redact;
pub mod registry;
pub mod validator;

pub use blocked::BlockedReason;
pub use gate::{plan, Gate, HookSet, DISPATCH_ORDER};
