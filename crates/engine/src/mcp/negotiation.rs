//! Which protocol revision a session speaks, and how the bridge settles on it.
//!
//! Unpinned, the bridge probes with `server/discover` (revision 2026-07-28) and falls back to
//! `initialize` (2025-11-25, which a server may answer with any revision it speaks) when the
//! probe's answer is anything but a valid discover result: an empty or malformed result, any
//! JSON-RPC error that is not a modern rejection, an HTTP client error. Over HTTP no answer
//! within [`MCP_DISCOVER_PROBE_MS`] falls back too, and the HTTP client turns each of those
//! into the JSON-RPC error ([`fallback_error`]) that makes rmcp's lifecycle fall back. Over
//! stdio the session probes on its own and never falls back on a pipe where the probe may
//! still be answered (`stdio_start`). A host may pin one revision.
//!
//! Once a revision without `initialize` is negotiated, every request carries the per-request
//! `_meta` envelope that revision requires; [`RequestEnvelope`] is that envelope for the
//! request lines the session writes itself, built as rmcp builds its own.

use rmcp::model::{
    ClientCapabilities, DiscoverResult, ErrorCode, ErrorData, Implementation, ProtocolVersion,
    RequestMetaObject,
};
use rmcp::service::ClientLifecycleMode;
use serde_json::Value;

use super::McpError;
use crate::limits::MCP_DISCOVER_PROBE_MS;

/// Every revision the bridge speaks, newest first (the values `protocolVersion` accepts).
pub const SPOKEN_REVISIONS: [ProtocolVersion; 5] = [
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// How a session settles on its revision.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Revision {
    /// Probe with `server/discover`, fall back to `initialize`.
    #[default]
    Negotiate,
    /// Speak this revision only (the host's `protocolVersion`).
    Pinned(ProtocolVersion),
}

impl Revision {
    /// The host's `protocolVersion` option (`None`: negotiate).
    ///
    /// # Errors
    /// [`McpError::InvalidTransport`] for a revision the bridge does not speak.
    pub fn from_option(value: Option<&str>) -> Result<Self, McpError> {
        let Some(value) = value else {
            return Ok(Self::Negotiate);
        };
        match SPOKEN_REVISIONS.iter().find(|r| r.as_str() == value) {
            Some(r) => Ok(Self::Pinned(r.clone())),
            None => Err(McpError::InvalidTransport {
                message: format!(
                    "protocolVersion must be one of {}",
                    SPOKEN_REVISIONS.map(|r| r.to_string()).join(", ")
                ),
            }),
        }
    }

    /// The revision sent in `initialize` (the legacy handshake's offer).
    #[must_use]
    pub fn initialize_offer(&self) -> ProtocolVersion {
        match self {
            Self::Pinned(v) if v.has_initialize() => v.clone(),
            _ => ProtocolVersion::V_2025_11_25,
        }
    }

    /// rmcp's lifecycle for this choice.
    #[must_use]
    pub fn lifecycle(&self) -> ClientLifecycleMode {
        match self {
            Self::Negotiate => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
            Self::Pinned(v) if v.has_initialize() => ClientLifecycleMode::Initialize,
            Self::Pinned(v) => ClientLifecycleMode::Discover {
                preferred_versions: vec![v.clone()],
            },
        }
    }

    /// Whether a `server/discover` probe may fall back to `initialize`.
    #[must_use]
    pub fn may_fall_back(&self) -> bool {
        matches!(self, Self::Negotiate)
    }
}

/// How long the transports wait for an answer to `server/discover` before falling back.
#[must_use]
pub fn probe_timeout() -> std::time::Duration {
    std::time::Duration::from_millis(MCP_DISCOVER_PROBE_MS)
}

/// Whether `result` (a response's `result` member) is a discover result rmcp accepts.
#[must_use]
pub fn is_discover_result(result: &Value) -> bool {
    serde_json::from_value::<DiscoverResult>(result.clone()).is_ok()
}

/// The JSON-RPC error that stands for a `server/discover` answer the bridge cannot use, so
/// that rmcp falls back to `initialize` (any correlated error that is not a modern rejection
/// does).
#[must_use]
pub fn fallback_error(reason: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("server/discover {reason}"),
        None,
    )
}

/// The reason for a discover answer that came in time but is not a discover result.
pub const NOT_A_DISCOVER_RESULT: &str = "answered without a valid discover result";

/// The reason for a discover answer that refuses the revision and offers only revisions
/// with `initialize`.
pub const ONLY_INITIALIZE_OFFERED: &str =
    "was refused with only revisions that use initialize on offer";

/// Whether `error` (a response's `error` member) is the "unsupported protocol version"
/// refusal of `server/discover` from a server whose `data.supported` revisions all use
/// `initialize` (a server narrowed to the older lifecycle): the client should initialize, not
/// fail for want of a common discover revision.
#[must_use]
pub fn offers_only_initialize(error: &Value) -> bool {
    let code = error.get("code").and_then(Value::as_i64);
    if code != Some(i64::from(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0)) {
        return false;
    }
    let supported = error
        .get("data")
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array);
    supported.is_some_and(|versions| {
        !versions.iter().any(|v| {
            SPOKEN_REVISIONS
                .iter()
                .any(|r| !r.has_initialize() && v.as_str() == Some(r.as_str()))
        })
    })
}

/// The reason for a discover probe nobody answered in time.
#[must_use]
pub fn unanswered() -> String {
    format!("was not answered within {MCP_DISCOVER_PROBE_MS}ms")
}

/// The `_meta` envelope of a request, as JSON text to splice into the request's `params`
/// (empty when the revision has `initialize` and needs none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestEnvelope(String);

impl RequestEnvelope {
    /// The envelope for `revision`, with the client's identity and capabilities, written as
    /// rmcp writes it on its own requests.
    #[must_use]
    pub fn for_revision(
        revision: &ProtocolVersion,
        client: &Implementation,
        capabilities: &ClientCapabilities,
    ) -> Self {
        if revision.has_initialize() {
            return Self::default();
        }
        let meta = RequestMetaObject::with_client_context(
            revision.clone(),
            client.clone(),
            capabilities.clone(),
        );
        // A map of rmcp's own model types always serializes.
        Self(serde_json::to_string(&meta).unwrap_or_default())
    }

    /// The envelope as a `params` member (`"_meta":{…},`), or nothing.
    #[must_use]
    pub fn member(&self) -> Option<&str> {
        (!self.0.is_empty()).then_some(self.0.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pin_is_checked_against_the_spoken_revisions() {
        assert_eq!(Revision::from_option(None), Ok(Revision::Negotiate));
        for r in SPOKEN_REVISIONS {
            let pinned = Revision::from_option(Some(r.as_str()));
            assert!(matches!(pinned, Ok(Revision::Pinned(_))));
        }
        let e = Revision::from_option(Some("2099-01-01")).expect_err("unknown revision");
        assert_eq!(e.code(), "ERR_PRISM_MCP_INVALID_TRANSPORT");
        assert!(e.to_string().contains("2026-07-28, 2025-11-25"));
        let old = Revision::from_option(Some("2025-06-18")).expect("spoken");
        assert_eq!(old.initialize_offer().as_str(), "2025-06-18");
        assert!(matches!(old.lifecycle(), ClientLifecycleMode::Initialize));
        let new = Revision::from_option(Some("2026-07-28")).expect("spoken");
        assert!(matches!(
            new.lifecycle(),
            ClientLifecycleMode::Discover { .. }
        ));
        assert!(!new.may_fall_back());
    }

    #[test]
    fn a_refusal_offering_only_initialize_revisions_falls_back() {
        let narrowed = json!({"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2025-11-25", "2024-11-05"]}});
        assert!(offers_only_initialize(&narrowed));
        let modern = json!({"code": -32022, "message": "m", "data": {"supported": ["2026-07-28"]}});
        assert!(!offers_only_initialize(&modern));
        assert!(!offers_only_initialize(
            &json!({"code": -32022, "message": "m"})
        ));
        assert!(!offers_only_initialize(
            &json!({"code": -32601, "message": "m", "data": {"supported": ["2025-11-25"]}})
        ));
    }

    #[test]
    fn only_a_real_discover_result_counts() {
        assert!(!is_discover_result(&json!({})));
        assert!(!is_discover_result(
            &json!({"supportedVersions": "2026-07-28"})
        ));
        assert!(!is_discover_result(&json!(null)));
        let real = json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {},
            "ttlMs": 0,
            "cacheScope": "private",
        });
        assert!(is_discover_result(&real), "{real}");
    }

    #[test]
    fn the_envelope_is_rmcps_and_only_for_revisions_without_initialize() {
        let client = Implementation::new("c", "1");
        let caps = ClientCapabilities::default();
        let old = RequestEnvelope::for_revision(&ProtocolVersion::V_2025_11_25, &client, &caps);
        assert_eq!(old.member(), None);
        let new = RequestEnvelope::for_revision(&ProtocolVersion::V_2026_07_28, &client, &caps);
        let v: Value = serde_json::from_str(new.member().expect("an envelope")).expect("JSON");
        let mut meta = RequestMetaObject::default();
        meta.set_protocol_version(ProtocolVersion::V_2026_07_28);
        meta.set_client_info(client);
        meta.set_client_capabilities(caps);
        assert_eq!(v, serde_json::to_value(&meta).expect("JSON"));
        assert_eq!(
            RequestMetaObject::DRAFT_REQUIRED_KEYS
                .iter()
                .filter(|k| v.get(**k).is_some())
                .count(),
            2
        );
    }
}
