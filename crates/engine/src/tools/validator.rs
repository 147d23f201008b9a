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
    if errors.is_empty() {
        return failed_without_errors_message(tool);
    }
    let mut out = String::new();
    for (i, (path, message)) in errors.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        push_entry(&mut out, path, message);
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
