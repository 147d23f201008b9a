//! A `Bearer` challenge from `WWW-Authenticate` (RFC 6750 section 3, RFC 9728 section 5.1):
//! the `resource_metadata` URL, the `scope` and the `error` it carries.

/// The parameters of a `Bearer` challenge that the client uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// `resource_metadata`: where the protected-resource metadata is (RFC 9728).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the resource asks for.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, ...
    pub error: Option<String>,
}

impl BearerChallenge {
    /// Whether the challenge is a step-up request (403 `insufficient_scope`).
    #[must_use]
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Parses the `Bearer` challenge of a `WWW-Authenticate` value; `None` if there is none.
/// Parameters are `name=token` or `name="quoted"` (with `\` escapes), comma separated; other
/// schemes in the same header are skipped.
#[must_use]
pub fn parse_bearer_challenge(header: &str) -> Option<BearerChallenge> {
    let mut rest = header.trim_start();
    let mut in_bearer = false;
    let mut found = false;
    let mut out = BearerChallenge::default();
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ' ', '\t']);
        let token_end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let token = &rest[..token_end];
        let after = rest[token_end..].trim_start_matches([' ', '\t']);
        if token.is_empty() {
            // A stray `=` or other separator: skip one character.
            let skip = rest.chars().next().map_or(0, char::len_utf8);
            if skip == 0 {
                break;
            }
            rest = &rest[skip..];
            continue;
        }
        if let Some(value_part) = after.strip_prefix('=') {
            // A parameter of the current scheme (or a token68, which we ignore).
            let value_part = value_part.trim_start_matches([' ', '\t']);
            let (value, next) = read_value(value_part);
            if in_bearer {
                let name = token.to_ascii_lowercase();
                let slot = match name.as_str() {
                    "resource_metadata" => Some(&mut out.resource_metadata),
                    "scope" => Some(&mut out.scope),
                    "error" => Some(&mut out.error),
                    _ => None,
                };
                if let Some(slot) = slot {
                    slot.get_or_insert(value);
                }
            }
            rest = next;
        } else {
            // A scheme name.
            in_bearer = token.eq_ignore_ascii_case("bearer");
            found |= in_bearer;
            rest = after;
        }
    }
    found.then_some(out)
}

fn read_value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        value.push(e);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                _ => value.push(c),
            }
        }
        (value, "")
    } else {
        let end = s.find([',', ' ', '\t']).unwrap_or(s.len());
        (s[..end].to_owned(), &s[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bearer_parameters() {
        let c = parse_bearer_challenge(
            r#"Bearer realm="mcp", error="insufficient_scope", scope="read write", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp""#,
        )
        .unwrap_or_default();
        assert_eq!(c.scope.as_deref(), Some("read write"));
        assert!(c.is_insufficient_scope());
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn skips_other_schemes_and_reads_tokens_and_escapes() {
        let c = parse_bearer_challenge(r#"Basic realm="x", Bearer scope=a, error="a\"b""#)
            .unwrap_or_default();
        assert_eq!(c.scope.as_deref(), Some("a"));
        assert_eq!(c.error.as_deref(), Some("a\"b"));
        assert_eq!(parse_bearer_challenge(r#"Basic realm="x""#), None);
        assert_eq!(
            parse_bearer_challenge("Bearer"),
            Some(BearerChallenge::default())
        );
        // Unterminated quotes and stray separators end without a panic.
        assert!(parse_bearer_challenge(r#"Bearer scope="a"#).is_some());
        let _ = parse_bearer_challenge(",,, =, Bearer ==");
        assert!(parse_bearer_challenge(",, =, Bearer, scope=x").is_some());
    }
}
