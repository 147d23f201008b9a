//! The MCP client bridge on `rmcp`: remote tools as ordinary tool definitions.
