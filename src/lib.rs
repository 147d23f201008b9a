//! Node-API binding of the prism tool-execution engine.
//!
//! One file per public area; each converts arguments, calls one engine function and converts
//! the result. Defaults and limits live in the engine, never here.

#![deny(clippy::all)]
// napi-rs registers the exported items only outside test builds, so a unit test build sees
// them as never used.
#![cfg_attr(test, allow(dead_code))]

mod args;
mod coding;
mod coding_arguments;
mod coding_read_batch;
mod coding_sandbox;
mod coding_shell;
mod dispatch;
mod errors;
mod fields;
mod js_errors;
mod js_raw;
mod limits;
mod mcp;
mod mcp_apps;
mod mcp_capabilities;
mod mcp_host_client;
mod mcp_native_apps;
mod mcp_oauth;
mod mcp_sdk_fetch;
mod mcp_server_requests;
mod mcp_turn;
mod off_thread;
mod policy;
mod policy_check;
mod policy_rules;
mod tools;
mod turn;
mod validation;
