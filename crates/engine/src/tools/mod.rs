//! The tool harness: the frozen dispatch gate order, blocked reasons, the registry and filter
//! semantics, the JSON-object argument check and secret redaction.
//!
//! Host hooks (middleware, permission, validator, `execute`) are callbacks in the host's
//! language, so the engine never calls them: [`gate::plan`] turns the set of hooks a host
//! configured into the ordered list of steps, and the host's trampoline performs each step.
//! The order of gates lives only in [`gate::DISPATCH_ORDER`].

pub mod args;
pub mod blocked;
pub mod filter;
pub mod gate;
pub mod redact;
pub mod registry;

pub use blocked::BlockedReason;
pub use gate::{plan, Gate, HookSet, DISPATCH_ORDER};
