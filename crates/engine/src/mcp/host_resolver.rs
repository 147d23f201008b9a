//! A host's own DNS seam (`transport.resolveHostname`, the reference's `MediaHostnameResolver`):
//! the host's answer for the server's host name, read and bounded here. Its addresses are then
//! checked and pinned exactly as the system resolver's are ([`super::http::resolve_and_check`]).

use std::net::IpAddr;

use serde_json::Value;

use super::content::truncate_utf8_to;
use super::host_requests::{HostAnswer, HostCallbacks};
use super::McpError;
use crate::limits::{MCP_ERROR_SUMMARY_BYTES, MCP_MAX_RESOLVED_ADDRESSES};

fn refused(domain: &str, why: &str) -> McpError {
    McpError::Connect {
        message: format!("cannot resolve {domain}: {why}"),
    }
}

/// One answer entry: `{ address, family }` with `family` 4 or 6 matching the address.
fn entry(value: &Value) -> Option<IpAddr> {
    let ip: IpAddr = value.get("address")?.as_str()?.parse().ok()?;
    let family = value.get("family")?.as_u64()?;
    let matches = matches!((ip, family), (IpAddr::V4(_), 4) | (IpAddr::V6(_), 6));
    matches.then_some(ip)
}

/// The addresses in the host's `answer` for `domain`: 1 to [`MCP_MAX_RESOLVED_ADDRESSES`]
/// entries, each `{ address, family }`.
///
/// # Errors
/// [`McpError::Connect`] ("cannot resolve <domain>: ...") for what the resolver threw or an
/// answer out of shape or bounds.
pub fn read_answer(domain: &str, answer: HostAnswer) -> Result<Vec<IpAddr>, McpError> {
    let text = match answer {
        HostAnswer::Text(text) => text,
        HostAnswer::Fault(_) => return Err(refused(domain, "resolveHostname gave no addresses")),
        HostAnswer::Threw(message) => {
            let kept = truncate_utf8_to(&message, MCP_ERROR_SUMMARY_BYTES as f64);
            return Err(refused(domain, kept));
        }
    };
    let value: Value = serde_json::from_str(&text)
        .map_err(|_| refused(domain, "resolveHostname gave no addresses"))?;
    let Some(entries) = value.as_array() else {
        return Err(refused(
            domain,
            "resolveHostname must resolve to an array of addresses",
        ));
    };
    if entries.is_empty() || entries.len() > MCP_MAX_RESOLVED_ADDRESSES {
        return Err(refused(
            domain,
            &format!(
                "resolveHostname returned {} addresses (1 to {MCP_MAX_RESOLVED_ADDRESSES} allowed)",
                entries.len()
            ),
        ));
    }
    entries
        .iter()
        .map(|e| {
            entry(e).ok_or_else(|| {
                refused(
                    domain,
                    "resolveHostname returned an entry that is not { address, family: 4 | 6 }",
                )
            })
        })
        .collect()
}

/// Asks the host's resolver for `domain` and reads its answer.
///
/// # Errors
/// As [`read_answer`].
pub async fn resolve(host: &dyn HostCallbacks, domain: &str) -> Result<Vec<IpAddr>, McpError> {
    read_answer(domain, host.resolve_hostname(domain).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<IpAddr>, String> {
        read_answer("mcp.example", HostAnswer::Text(text.into())).map_err(|e| e.to_string())
    }

    #[test]
    fn answers_are_read_within_their_bounds() {
        assert_eq!(
            read(r#"[{"address":"203.0.113.7","family":4},{"address":"2001:db8::1","family":6}]"#)
                .ok()
                .map(|v| v.len()),
            Some(2)
        );
        let many = format!(
            "[{}]",
            vec![r#"{"address":"203.0.113.7","family":4}"#; MCP_MAX_RESOLVED_ADDRESSES + 1]
                .join(",")
        );
        assert_eq!(
            read(&many).err().as_deref(),
            Some("MCP connect failed: cannot resolve mcp.example: resolveHostname returned 33 addresses (1 to 32 allowed)")
        );
        assert!(read("[]").is_err());
        assert!(read(r#"[{"address":"203.0.113.7","family":6}]"#).is_err());
        assert!(read(r#"[{"address":"not-an-ip","family":4}]"#).is_err());
        assert!(read(r#"{"address":"203.0.113.7"}"#).is_err());
        assert_eq!(
            read_answer("mcp.example", HostAnswer::Threw("ENOTFOUND".into()))
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("MCP connect failed: cannot resolve mcp.example: ENOTFOUND")
        );
    }
}
