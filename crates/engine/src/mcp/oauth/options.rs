//! The OAuth client's limits, resolved once (see `limits.rs` for defaults and hard caps).

use crate::limits as l;

crate::limits::limit_set! {
    /// Every limit of one OAuth client, in the reference's order of checks.
    pub struct OAuthLimits from OAuthLimitsInput {
        discovery_bytes: MCP_OAUTH_DISCOVERY_BYTES,
        discovery_cache_entries: MCP_OAUTH_DISCOVERY_CACHE_ENTRIES,
        discovery_cache_ttl_ms: MCP_OAUTH_DISCOVERY_CACHE_TTL_MS,
        token_record_bytes: MCP_OAUTH_TOKEN_RECORD_BYTES,
        state_bytes: MCP_OAUTH_STATE_BYTES,
        handshake_timeout_ms: MCP_OAUTH_HANDSHAKE_TIMEOUT_MS,
    }
}

/// The set's limits in check order (for the binding's tables).
pub const MCP_OAUTH_LIMITS: &[l::Limit] = OAuthLimits::TABLE;
