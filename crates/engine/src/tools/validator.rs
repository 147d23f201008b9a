//! The words of a `ToolValidator` built over a `ToolArgumentValidator`
//! (`createToolParameterValidator`): what a call is refused with when its tool has no schema
//! or its arguments fail the schema.

/// `Tool <name> has no parameters schema`: `missingSchema: "reject"` and the tool has none.
#[must_use]
pub fn missing_schema_message(tool: &str) -> String {
    format!("Tool {tool} has no parameters schema")
}

/// `Tool arguments failed validation: <name>`: the validator failed without naming an error.
#[must_use]
pub fn failed_without_errors_message(tool: &str) -> String {
    format!("Tool arguments failed validation: {tool}")
}

/// One validation error as the message lists it: `<path>: <message>`, or the message alone
/// when the path is empty.
fn push_entry(out: &mut String, path: &str, message: &str) {
    if !path.is_empty() {
        out.push_str(path);
        out.push_str(": ");
    }
    out.push_str(message);
}

/// The validation errors `(path, message)` joined into the one message the call is refused
/// with (`; ` between errors); [`failed_without_errors_message`] when there are none.
#[must_use]
pub fn failure_message(tool: &str, errors: &[(String, String)]) -> String {
    failure_message_of(tool, errors.iter().map(|(p, m)| (p.as_str(), m.as_str())))
}

/// [`failure_message`] over borrowed `(path, message)` pairs (an absent path is empty), so a
/// caller holding its errors in another shape words them without copying.
#[must_use]
pub fn failure_message_of<'a>(
    tool: &str,
    errors: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    for (path, message) in errors {
        if count > 0 {
            out.push_str("; ");
        }
        push_entry(&mut out, path, message);
        count += 1;
    }
    if count == 0 {
        return failed_without_errors_message(tool);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_join_with_their_paths() {
        let errors = vec![
            ("/a".to_owned(), "must be string".to_owned()),
            (String::new(), "must have required property 'b'".to_owned()),
        ];
        assert_eq!(
            failure_message("t", &errors),
            "/a: must be string; must have required property 'b'"
        );
    }

    #[test]
    fn no_errors_names_the_tool() {
        assert_eq!(
            failure_message("t", &[]),
            "Tool arguments failed validation: t"
        );
        assert_eq!(
            missing_schema_message("t"),
            "Tool t has no parameters schema"
        );
    }
}
