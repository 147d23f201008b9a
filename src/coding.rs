//! Node-API glue for the engine's `coding` module.
