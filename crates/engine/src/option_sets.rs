//! Every option set a host configures, by name: each limit with the key the facade knows it
//! by. The binding serves these tables to JavaScript (constants, option lists, range checks)
//! and the public `.d.ts` docs and README tables are generated from them
//! (`scripts/option-docs.js`, checked by a test), so each limit is declared once, in
//! [`crate::limits`].

use crate::limits::{Limit, CODING_LIMITS};
use crate::mcp::options::MCP_HTTP_LIMITS;
use crate::mcp::McpLimits;
use crate::validation::ValidationLimits;

/// The names of the option sets, in the order they are documented.
pub const OPTION_SET_NAMES: [&str; 4] = ["validation", "mcp", "mcpHttp", "coding"];

/// The limits of the option set `name` (`"validation"`, `"mcp"`, `"mcpHttp"` or `"coding"`),
/// each with its key, in the order the set checks them; `None` for any other name.
#[must_use]
pub fn option_set(name: &str) -> Option<Vec<(&'static str, Limit)>> {
    let by_name = |table: &[Limit]| table.iter().map(|l| (l.name, *l)).collect();
    match name {
        "validation" => Some(by_name(ValidationLimits::TABLE)),
        "mcp" => Some(by_name(McpLimits::TABLE)),
        "mcpHttp" => Some(by_name(MCP_HTTP_LIMITS)),
        "coding" => Some(CODING_LIMITS.to_vec()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_is_named_keyed_once_and_within_its_caps() {
        for name in OPTION_SET_NAMES {
            let set = option_set(name).unwrap_or_default();
            assert!(!set.is_empty(), "{name}");
            let mut keys: Vec<_> = set.iter().map(|(k, _)| *k).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), set.len(), "{name}: a key twice");
            for (key, l) in &set {
                assert!(1 <= l.default && l.default <= l.hard, "{name}.{key}");
                assert!(!l.doc.trim().is_empty(), "{name}.{key}: no doc");
            }
        }
        assert_eq!(option_set("other"), None);
    }
}
