//! An MCP elicitation as the host's pending decision, and the host's decision back as the
//! protocol's elicitation result (`mcpElicitationDecision`, `mcpElicitationResultFromDecision`).
//! An accepting result always needs the host's explicit human-interaction mark.

use serde_json::{json, Map, Value};

use super::capability::CapabilityError;
use super::measure::{measure_bounded_json, JsonBounds};
use crate::limits as l;

/// The pending decision (kind `elicitation`) of an untrusted elicitation request's `params`.
///
/// # Errors
/// Params that are not an object, a message that is not a string or is longer than
/// [`l::MCP_ELICITATION_MESSAGE_BYTES`], a requested schema larger than
/// [`l::MCP_ELICITATION_SCHEMA_BYTES`].
pub fn elicitation_decision(
    approval_id: &str,
    params: &Value,
    tool_name: Option<&str>,
) -> Result<Value, CapabilityError> {
    let Value::Object(row) = params else {
        return Err(CapabilityError::ParamsNotObject);
    };
    let label = "MCP elicitation message";
    let Some(Value::String(message)) = row.get("message") else {
        return Err(CapabilityError::NotString { label });
    };
    if message.len() as u64 > l::MCP_ELICITATION_MESSAGE_BYTES {
        return Err(CapabilityError::TooLong {
            label: label.into(),
            limit: l::MCP_ELICITATION_MESSAGE_BYTES,
        });
    }
    let schema = match row.get("requestedSchema") {
        Some(schema @ Value::Object(_)) => {
            let bounds = JsonBounds {
                max_bytes: l::MCP_ELICITATION_SCHEMA_BYTES,
                max_depth: u64::MAX,
                max_properties: u64::MAX,
            };
            measure_bounded_json(schema, bounds).map_err(|_| CapabilityError::TooLong {
                label: "MCP elicitation schema".into(),
                limit: l::MCP_ELICITATION_SCHEMA_BYTES,
            })?;
            schema.clone()
        }
        _ => json!({ "type": "object" }),
    };
    let mut scope = Map::new();
    if let Some(name) = tool_name.filter(|n| !n.is_empty()) {
        scope.insert("toolName".into(), Value::String(name.into()));
    }
    Ok(json!({
        "approvalId": approval_id,
        "kind": "elicitation",
        "scope": scope,
        "reason": message,
        "elicitationSchema": schema,
    }))
}

/// The elicitation result of the host's run decision: a `reject_*` outcome declines; any
/// other accepts with the decision's `elicitation` payload, only with `human_interaction`.
/// The result keeps the mark (`humanInteraction: true`) for the capability client, which
/// removes it before the wire.
///
/// # Errors
/// An accepting decision without a payload, or without the mark.
pub fn elicitation_result_from_decision(
    decision: &Value,
    human_interaction: bool,
) -> Result<Value, CapabilityError> {
    let outcome = decision.get("outcome").and_then(Value::as_str);
    if matches!(outcome, Some("reject_once" | "reject_for_run")) {
        return Ok(json!({ "action": "decline" }));
    }
    let payload = match decision.get("elicitation") {
        None | Some(Value::Null) => return Err(CapabilityError::PayloadRequired),
        Some(p) => p,
    };
    if !human_interaction {
        return Err(CapabilityError::HumanInteractionRequired);
    }
    Ok(json!({ "action": "accept", "content": payload, "humanInteraction": true }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_and_schema_at_their_edges() {
        let at = "x".repeat(2048);
        assert!(elicitation_decision("a", &json!({ "message": at }), None).is_ok());
        let over = "x".repeat(2049);
        assert_eq!(
            elicitation_decision("a", &json!({ "message": over }), None).map_err(|e| e.to_string()),
            Err("MCP elicitation message exceeds 2048 bytes".into())
        );
        // {"p":"…"} is 8 bytes around the padding
        let fits = json!({ "message": "m", "requestedSchema": { "p": "x".repeat(16 * 1024 - 8) } });
        assert!(elicitation_decision("a", &fits, None).is_ok());
        let big = json!({ "message": "m", "requestedSchema": { "p": "x".repeat(16 * 1024 - 7) } });
        assert_eq!(
            elicitation_decision("a", &big, None).map_err(|e| e.to_string()),
            Err("MCP elicitation schema exceeds 16384 bytes".into())
        );
        let plain = elicitation_decision("a", &json!({ "message": "m" }), Some("deploy"));
        assert_eq!(
            plain.ok(),
            Some(
                json!({"approvalId": "a", "kind": "elicitation", "scope": {"toolName": "deploy"},
                "reason": "m", "elicitationSchema": {"type": "object"}})
            )
        );
    }

    #[test]
    fn decisions_back_to_results() {
        let reject = json!({"approvalId": "a", "outcome": "reject_once"});
        assert_eq!(
            elicitation_result_from_decision(&reject, false),
            Ok(json!({"action": "decline"}))
        );
        let allow = json!({"approvalId": "a", "outcome": "allow_once", "elicitation": {"r": 1}});
        assert_eq!(
            elicitation_result_from_decision(&allow, false),
            Err(CapabilityError::HumanInteractionRequired)
        );
        assert!(elicitation_result_from_decision(&allow, true).is_ok());
    }
}
