//! Draft selection from `$schema`: draft-07 by default, 2019-09 and 2020-12 when named
//! (beyond the reference, whose Ajv knows only draft-07).

use jsonschema::Draft;
use serde_json::Value;

use super::issue::Issue;

/// The draft a schema is compiled under.
///
/// No `$schema` (or a non-object schema) gives draft-07. In strict mode a `$schema` naming
/// anything but draft-07, 2019-09 or 2020-12 fails with Ajv's `no schema with key or ref "<uri>"`;
/// otherwise drafts 4 and 6 are accepted too and anything else falls back to draft-07.
///
/// # Errors
/// An unknown meta-schema in strict mode.
pub fn select_draft(schema: &Value, strict: bool) -> Result<Draft, Issue> {
    let Some(uri) = schema.get("$schema") else {
        return Ok(Draft::Draft7);
    };
    let Some(text) = uri.as_str() else {
        // Not a string: meta-schema validation reports it.
        return Ok(Draft::Draft7);
    };
    let bare = text.trim_end_matches('#');
    let bare = bare
        .strip_prefix("https://")
        .or_else(|| bare.strip_prefix("http://"))
        .unwrap_or(bare);
    let draft = match bare {
        "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
        "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft201909),
        "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
        "json-schema.org/draft-06/schema" if !strict => Some(Draft::Draft6),
        "json-schema.org/draft-04/schema" if !strict => Some(Draft::Draft4),
        _ => None,
    };
    match draft {
        Some(d) => Ok(d),
        None if strict => Err(Issue::message(format!(
            "no schema with key or ref \"{text}\""
        ))),
        None => Ok(Draft::Draft7),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn picks_the_named_draft() {
        assert_eq!(select_draft(&json!({}), true), Ok(Draft::Draft7));
        assert_eq!(
            select_draft(
                &json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}),
                true
            ),
            Ok(Draft::Draft202012)
        );
        assert_eq!(
            select_draft(
                &json!({"$schema": "https://json-schema.org/draft/2019-09/schema#"}),
                true
            ),
            Ok(Draft::Draft201909)
        );
        assert_eq!(
            select_draft(
                &json!({"$schema": "http://json-schema.org/draft-04/schema#"}),
                true
            )
            .map_err(|e| e.message),
            Err("no schema with key or ref \"http://json-schema.org/draft-04/schema#\"".into())
        );
        assert_eq!(
            select_draft(
                &json!({"$schema": "http://json-schema.org/draft-04/schema#"}),
                false
            ),
            Ok(Draft::Draft4)
        );
    }
}
