//! A tool call's arguments as checked JSON text: what a stdio session writes into its
//! `tools/call` line as it is, without building and dropping a JSON value for every call.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::McpError;

/// The JSON text of one object: checked once (valid JSON, an object at the top), then
/// copied into the request as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentsJson(String);

impl ArgumentsJson {
    /// Checks `text`: valid JSON (within serde's nesting limit), and an object. Line breaks
    /// (in valid JSON they can only be whitespace between tokens) become spaces, so the text
    /// always fits on one line of the stdio protocol.
    ///
    /// # Errors
    /// [`McpError::Transport`] "invalid arguments: …" naming what is wrong.
    pub fn parse(mut text: String) -> Result<Self, McpError> {
        let mut de = serde_json::Deserializer::from_str(&text);
        let checked = IgnoredAny::deserialize(&mut de).and_then(|_| de.end());
        if let Err(e) = checked {
            return Err(invalid(&e.to_string()));
        }
        if !text.trim_start().starts_with('{') {
            return Err(invalid("expected an object"));
        }
        if memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some() {
            text = text.replace(['\n', '\r'], " ");
        }
        Ok(Self(text))
    }

    /// The text of `map`.
    #[must_use]
    pub fn from_map(map: &Map<String, Value>) -> Self {
        // A map of JSON values always serializes.
        Self(serde_json::to_string(map).unwrap_or_else(|_| "{}".to_owned()))
    }

    /// The checked text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The arguments as a JSON object (for the transports that build typed requests).
    ///
    /// # Errors
    /// [`McpError::Transport`] "invalid arguments: …" (not for text that passed `parse`).
    pub fn to_map(&self) -> Result<Map<String, Value>, McpError> {
        serde_json::from_str(&self.0).map_err(|e| invalid(&e.to_string()))
    }
}

fn invalid(why: &str) -> McpError {
    McpError::Transport {
        message: format!("invalid arguments: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_objects_pass() {
        for ok in ["{}", " {\"a\":[1,{\"b\":null}]}", "{\"s\":\"\\u00e9\"}\n"] {
            assert!(ArgumentsJson::parse(ok.into()).is_ok(), "{ok}");
        }
        for bad in ["", "[]", "1", "\"s\"", "{", "{} {}", "{\"a\":}", "null"] {
            let e = ArgumentsJson::parse(bad.into())
                .err()
                .map(|e| e.to_string());
            assert!(
                e.as_deref()
                    .is_some_and(|m| m.contains("invalid arguments: ")),
                "{bad}: {e:?}"
            );
        }
        let broken = ArgumentsJson::parse("{\r\n\"a\" :\n1}\n".into());
        assert_eq!(broken.ok().map(|a| a.0), Some("{  \"a\" : 1} ".to_owned()));
        let deep = format!("{}{}", "{\"a\":".repeat(200), "}".repeat(200));
        assert!(ArgumentsJson::parse(deep).is_err());
        let m = ArgumentsJson::parse("{\"x\":1}".into()).and_then(|a| a.to_map());
        assert_eq!(
            m.ok().and_then(|m| m.get("x").cloned()),
            Some(Value::from(1))
        );
    }
}
