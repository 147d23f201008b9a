//! Node-API glue for the engine's `policy` module.
