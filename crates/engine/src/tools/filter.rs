//! Tool filters: exact-name allow and deny lists, deny wins.

/// One filter as hosts write it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// Names allowed; `None` or empty imposes no restriction.
    pub allow: Option<Vec<String>>,
    /// Names denied.
    pub deny: Option<Vec<String>>,
}

/// Whether `name` passes every filter: no filter denies it, and every filter with a
/// non-empty `allow` lists it. Names match exactly.
#[must_use]
pub fn allows(filters: &[ToolFilter], name: &str) -> bool {
    let denied = filters
        .iter()
        .filter_map(|f| f.deny.as_ref())
        .any(|d| d.iter().any(|n| n == name));
    !denied
        && filters
            .iter()
            .filter_map(|f| f.allow.as_ref())
            .filter(|a| !a.is_empty())
            .all(|a| a.iter().any(|n| n == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(allow: &[&str], deny: &[&str]) -> ToolFilter {
        ToolFilter {
            allow: Some(allow.iter().map(|s| (*s).to_owned()).collect()),
            deny: Some(deny.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    #[test]
    fn deny_wins_over_allow() {
        assert!(!allows(&[f(&["a"], &["a"])], "a"));
        assert!(!allows(&[f(&["a"], &[]), f(&[], &["a"])], "a"));
    }

    #[test]
    fn every_non_empty_allow_must_list_the_name() {
        assert!(allows(&[f(&["a"], &[]), f(&[], &[])], "a"));
        assert!(!allows(&[f(&["a"], &[]), f(&["b"], &[])], "a"));
        assert!(!allows(&[f(&["ab"], &[])], "a"), "no prefix match");
        assert!(allows(&[], "a"));
    }
}
