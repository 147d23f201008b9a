//! Node-API glue for the engine's `mcp` module.
