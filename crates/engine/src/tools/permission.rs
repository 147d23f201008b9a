//! Name-based permission: the static policy's decisions over permission keys
//! (`<kind>:<target>:<action>`, e.g. `tool:read:execute`), and the default messages of a
//! permission, trust or execution denial that carries no reason of its own.

use std::collections::HashSet;

/// The code of a permission denial (the facade's `PermissionDeniedError`).
pub const PERMISSION_DENIED_CODE: &str = "ERR_PRISM_PERMISSION_DENIED";

/// The code of a trust denial (the facade's `TrustDeniedError`).
pub const UNTRUSTED_CODE: &str = "ERR_PRISM_UNTRUSTED";

/// The code of an execution denial (the facade's `ExecutionDeniedError`).
pub const EXECUTION_DENIED_CODE: &str = "ERR_PRISM_EXECUTION_DENIED";

/// `Permission denied: <key>`: the reason of a key on the static policy's deny list.
#[must_use]
pub fn denied_reason(key: &str) -> String {
    format!("Permission denied: {key}")
}

/// `Permission not allowed: <key>`: the reason of a key missing from a non-empty allow list.
#[must_use]
pub fn not_allowed_reason(key: &str) -> String {
    format!("Permission not allowed: {key}")
}

/// `Permission denied for <key>`: a permission denial whose decision gave no reason.
#[must_use]
pub fn permission_denied_message(key: &str) -> String {
    format!("Permission denied for {key}")
}

/// `Untrusted <kind>: <target>`: a trust denial whose decision gave no reason.
#[must_use]
pub fn untrusted_message(kind: &str, target: &str) -> String {
    format!("Untrusted {kind}: {target}")
}

/// `Execution denied for <kind>:<operation>`: an execution denial whose decision gave no
/// reason.
#[must_use]
pub fn execution_denied_message(kind: &str, operation: &str) -> String {
    format!("Execution denied for {kind}:{operation}")
}

/// A static policy's answer for one key: allowed, or denied with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyDecision {
    /// The key passes.
    Allowed,
    /// The key is refused, with the reason the decision carries.
    Denied(String),
}

/// The static permission policy: a key on the deny list is refused (deny wins over allow);
/// with a non-empty allow list only listed keys pass; with an empty one every other key does.
#[derive(Debug, Clone, Default)]
pub struct StaticPermissionPolicy {
    allow: HashSet<String>,
    deny: HashSet<String>,
    /// The allow list also held entries that can match no key (a host language's non-string
    /// values): it is not empty, so unlisted keys are refused.
    allow_restricts: bool,
}

impl StaticPermissionPolicy {
    /// The policy over `allow` and `deny` keys (duplicates are harmless).
    #[must_use]
    pub fn new(
        allow: impl IntoIterator<Item = String>,
        deny: impl IntoIterator<Item = String>,
    ) -> Self {
        let allow: HashSet<String> = allow.into_iter().collect();
        Self {
            allow_restricts: !allow.is_empty(),
            allow,
            deny: deny.into_iter().collect(),
        }
    }

    /// The same policy when its allow list also held entries that match no key: the list is
    /// still not empty, so a key missing from it is refused (never "allow everything").
    #[must_use]
    pub fn with_unmatchable_allow_entries(mut self) -> Self {
        self.allow_restricts = true;
        self
    }

    /// The decision for `key`.
    #[must_use]
    pub fn check(&self, key: &str) -> KeyDecision {
        if self.deny.contains(key) {
            KeyDecision::Denied(denied_reason(key))
        } else if !self.allow_restricts || self.allow.contains(key) {
            KeyDecision::Allowed
        } else {
            KeyDecision::Denied(not_allowed_reason(key))
        }
    }

    /// Whether a key on neither list passes (the allow list is empty).
    #[must_use]
    pub fn allows_unlisted(&self) -> bool {
        !self.allow_restricts
    }

    /// Every listed key with its decision (each key once, in no particular order): with
    /// [`Self::allows_unlisted`], the whole policy as data.
    #[must_use]
    pub fn listed(&self) -> Vec<(String, KeyDecision)> {
        let mut keys: Vec<&String> = self.allow.iter().chain(self.deny.iter()).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter()
            .map(|k| (k.clone(), self.check(k)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> StaticPermissionPolicy {
        StaticPermissionPolicy::new(
            allow.iter().map(|s| (*s).to_owned()),
            deny.iter().map(|s| (*s).to_owned()),
        )
    }

    #[test]
    fn deny_wins_over_allow() {
        let p = policy(&["tool:a:execute"], &["tool:a:execute"]);
        assert_eq!(
            p.check("tool:a:execute"),
            KeyDecision::Denied("Permission denied: tool:a:execute".into())
        );
    }

    #[test]
    fn an_empty_allow_list_allows_every_unlisted_key() {
        let p = policy(&[], &["tool:b:execute"]);
        assert!(p.allows_unlisted());
        assert_eq!(p.check("tool:a:execute"), KeyDecision::Allowed);
    }

    #[test]
    fn a_non_empty_allow_list_refuses_other_keys() {
        let p = policy(&["tool:a:execute"], &[]);
        assert!(!p.allows_unlisted());
        assert_eq!(p.check("tool:a:execute"), KeyDecision::Allowed);
        assert_eq!(
            p.check("tool:b:execute"),
            KeyDecision::Denied("Permission not allowed: tool:b:execute".into())
        );
    }

    #[test]
    fn an_allow_list_of_unmatchable_entries_still_restricts() {
        let p = policy(&[], &[]).with_unmatchable_allow_entries();
        assert!(!p.allows_unlisted());
        assert!(matches!(p.check("tool:a:execute"), KeyDecision::Denied(_)));
    }

    #[test]
    fn listed_holds_each_key_once_with_its_decision() {
        let p = policy(&["k1", "k2"], &["k2", "k3"]);
        let listed = p.listed();
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[0], ("k1".into(), KeyDecision::Allowed));
        assert_eq!(listed[1].0, "k2");
        assert!(matches!(listed[1].1, KeyDecision::Denied(_)));
    }

    #[test]
    fn default_denial_messages() {
        assert_eq!(
            permission_denied_message("tool:x:execute"),
            "Permission denied for tool:x:execute"
        );
        assert_eq!(untrusted_message("tool", "x"), "Untrusted tool: x");
        assert_eq!(
            execution_denied_message("shell", "run"),
            "Execution denied for shell:run"
        );
    }
}
