//! Secret redaction of error messages.

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// `text` with every occurrence of every non-empty secret replaced by [`REDACTED`].
#[must_use]
pub fn redact_secrets<'a, I>(text: &str, secrets: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    let mut out = text.to_owned();
    for s in secrets {
        if !s.is_empty() && out.contains(s) {
            out = out.replace(s, REDACTED);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_every_occurrence_and_skips_empty_secrets() {
        assert_eq!(
            redact_secrets("key=abc; again abc", ["abc", ""]),
            "key=[REDACTED]; again [REDACTED]"
        );
        assert_eq!(redact_secrets("nothing", ["zzz"]), "nothing");
    }
}
