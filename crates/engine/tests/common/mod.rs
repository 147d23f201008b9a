//! Shared helpers for the engine's integration tests (and the command analysis's fuzz test).

pub mod fuzz;
