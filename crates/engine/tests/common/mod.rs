//! Shared helpers for the engine's integration tests.

pub mod fuzz;
