//! The `ErrorInfo` of a blocked or failed call: how a thrown value, a gate message or a
//! validator's verdict becomes `{ name, message, code, cause, retryAfterMs? }`, with every
//! secret replaced.

use super::redact::redact_secrets;

/// An `ErrorInfo` `code`: a string or a number, as the host's error carried it.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorCode {
    /// A string code (redacted like the message).
    Text(String),
    /// A numeric code.
    Number(f64),
}

/// The `ErrorInfo` of a blocked or failed call: `{ name, message, code, cause, retryAfterMs? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorInfo {
    /// The error's `name` (`None` for the message-only shapes of validators and gate messages).
    pub name: Option<String>,
    /// The message, secrets replaced.
    pub message: String,
    /// The error's code, when it carried a string or a number.
    pub code: Option<ErrorCode>,
    /// The error's cause as text, secrets replaced.
    pub cause: Option<String>,
    /// `retryAfterMs`, when the error carried a number.
    pub retry_after_ms: Option<f64>,
    /// Which keys the object carries.
    pub shape: InfoShape,
}

/// The keys of an `ErrorInfo` object, by where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoShape {
    /// A gate message: `{ message }`.
    Message,
    /// A validator's string verdict: `{ message, code: undefined }`.
    Verdict,
    /// A thrown value: `{ name, message, code, cause }`, plus `retryAfterMs` when set.
    Thrown,
}

impl ErrorInfo {
    /// The message-only shape `{ message }` of a gate message.
    #[must_use]
    pub fn message(message: String) -> Self {
        Self {
            name: None,
            message,
            code: None,
            cause: None,
            retry_after_ms: None,
            shape: InfoShape::Message,
        }
    }
}

/// What a host read from a thrown value, before the engine shapes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Thrown {
    /// An `Error`, or an object with a string `message`.
    ErrorLike {
        /// `error.name` when it is a string.
        name: Option<String>,
        /// `error.message`.
        message: String,
        /// `error.code` when it is a string or a number.
        code: Option<ErrorCode>,
        /// `error.cause` as text ([`cause_text`]), when present.
        cause: Option<String>,
        /// `error.retryAfterMs` when it is a number.
        retry_after_ms: Option<f64>,
    },
    /// Any other thrown value, as `String(value)`.
    Other(String),
}

/// The name an error-like value without a string `name` gets.
pub const DEFAULT_ERROR_NAME: &str = "Error";

/// The `ErrorInfo` of a thrown value, with every secret replaced in its name, message, string
/// code and cause.
#[must_use]
pub fn error_info(thrown: Thrown, secrets: &[&str]) -> ErrorInfo {
    let r = |s: &str| redact_secrets(s, secrets.iter().copied());
    match thrown {
        Thrown::ErrorLike {
            name,
            message,
            code,
            cause,
            retry_after_ms,
        } => ErrorInfo {
            name: Some(r(name.as_deref().unwrap_or(DEFAULT_ERROR_NAME))),
            message: r(&message),
            code: code.map(|c| match c {
                ErrorCode::Text(t) => ErrorCode::Text(r(&t)),
                n @ ErrorCode::Number(_) => n,
            }),
            cause: cause.map(|c| r(&c)),
            retry_after_ms,
            shape: InfoShape::Thrown,
        },
        Thrown::Other(text) => ErrorInfo {
            name: Some(DEFAULT_ERROR_NAME.to_owned()),
            message: r(&text),
            code: None,
            cause: None,
            retry_after_ms: None,
            shape: InfoShape::Thrown,
        },
    }
}

/// How a host's `cause` becomes text: an error's message, a string as is, anything else as
/// JSON text (or `String(value)` when it has none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CauseText {
    /// The cause is an `Error`: use its message.
    ErrorMessage,
    /// The cause is a string: use it.
    Itself,
    /// Otherwise: `JSON.stringify(cause)`, or `String(cause)` when that throws.
    Json,
}

/// Which [`CauseText`] rule applies to a cause.
#[must_use]
pub const fn cause_text(is_error: bool, is_string: bool) -> CauseText {
    if is_error {
        CauseText::ErrorMessage
    } else if is_string {
        CauseText::Itself
    } else {
        CauseText::Json
    }
}

/// The ErrorInfo of a validator's verdict that is a string: `{ message, code: undefined }`,
/// secrets replaced. (A verdict object is the host's own ErrorInfo, deep-redacted.)
#[must_use]
pub fn verdict_info(message: &str, secrets: &[&str]) -> ErrorInfo {
    ErrorInfo {
        message: redact_secrets(message, secrets.iter().copied()),
        shape: InfoShape::Verdict,
        ..ErrorInfo::message(String::new())
    }
}

/// The message of a thrown value the host could not read (a `Proxy` whose traps throw, a
/// getter that throws): the call still ends with an error result.
pub const UNREADABLE_THROWN: &str = "A thrown value could not be read";

/// The stand-in for a thrown value the host could not read: an `Error` with
/// [`UNREADABLE_THROWN`] as its message.
#[must_use]
pub fn unreadable_thrown() -> Thrown {
    Thrown::ErrorLike {
        name: None,
        message: UNREADABLE_THROWN.to_owned(),
        code: None,
        cause: None,
        retry_after_ms: None,
    }
}

/// The keys of a denial's `ErrorInfo` (`denialToErrorInfo`): an `Error` gives its own `name`,
/// `message` and `code`, unchanged (no redaction, no `cause`); any other value gives only
/// `message`, as `String(value)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenialShape {
    /// `{ name, message, code }`, each the error's own value.
    ErrorFields,
    /// `{ message: String(value) }`.
    MessageOnly,
}

/// The [`DenialShape`] of a denial that is (`is_error`) or is not an `Error`.
#[must_use]
pub const fn denial_shape(is_error: bool) -> DenialShape {
    if is_error {
        DenialShape::ErrorFields
    } else {
        DenialShape::MessageOnly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_info_redacts_name_message_code_and_cause() {
        let info = error_info(
            Thrown::ErrorLike {
                name: Some("Err-sk1".into()),
                message: "token sk1 leaked".into(),
                code: Some(ErrorCode::Text("E_sk1".into())),
                cause: Some("because sk1".into()),
                retry_after_ms: Some(5.0),
            },
            &["sk1", ""],
        );
        assert_eq!(info.name.as_deref(), Some("Err-[REDACTED]"));
        assert_eq!(info.message, "token [REDACTED] leaked");
        assert_eq!(info.code, Some(ErrorCode::Text("E_[REDACTED]".into())));
        assert_eq!(info.cause.as_deref(), Some("because [REDACTED]"));
        assert_eq!(info.retry_after_ms, Some(5.0));
        let other = error_info(Thrown::Other("sk1".into()), &["sk1"]);
        assert_eq!(other.name.as_deref(), Some("Error"));
        assert_eq!(other.message, "[REDACTED]");
        let unnamed = error_info(
            Thrown::ErrorLike {
                name: None,
                message: "m".into(),
                code: Some(ErrorCode::Number(7.0)),
                cause: None,
                retry_after_ms: None,
            },
            &[],
        );
        assert_eq!(unnamed.name.as_deref(), Some("Error"));
        assert_eq!(unnamed.code, Some(ErrorCode::Number(7.0)));
        assert_eq!(verdict_info("bad sk1", &["sk1"]).message, "bad [REDACTED]");
    }
}
