//! Node-API glue for the engine's `validation` module.
