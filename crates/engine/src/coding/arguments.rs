//! The coding tools' argument rules: what a call's arguments must hold before the tool asks
//! any policy or touches a file, checked in the reference's order and worded as it words them.
//!
//! A host language reads each argument as an [`Arg`] (absent, a value of the expected type, or
//! something else); everything after that — which check comes first, the bounds, the words —
//! is decided here.

use crate::coding::edit::Replacement;
use crate::limits::{
    limit_message, LimitDialect, CODING_MAX_LINES, MAX_SAFE_INTEGER, SHELL_TIMEOUT_SECS,
};

/// The result message of a coding call whose signal was aborted.
pub const OPERATION_ABORTED_MESSAGE: &str = "Operation aborted";

/// The one wording of a byte bound, kept at its old path (it lives with the other limit
/// words in [`crate::limits`]).
pub use crate::limits::over_byte_limit;

/// One argument as the tool found it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg<T> {
    /// Not given (JavaScript `undefined`).
    Absent,
    /// Given, with the expected type.
    Given(T),
    /// Given, with another type (`null` included).
    WrongType,
}

/// Why a call's arguments were refused; the `Display` text is the tool result's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentError {
    /// `path` is missing, not a string, or empty.
    #[error("path is required and must be a non-empty string.")]
    PathRequired,
    /// `findText` is given but is not a non-empty string.
    #[error("findText must be a non-empty string.")]
    FindTextEmpty,
    /// `findMode` is given with `findText` but names no mode.
    #[error("findMode must be 'exact' or 'case-insensitive'.")]
    FindMode,
    /// `offset` or `limit` is not a positive safe integer within its cap.
    #[error("{}", limit_message(LimitDialect::Coding, name, hard))]
    Position {
        /// `offset` or `limit`.
        name: &'static str,
        /// Its cap.
        hard: u64,
    },
    /// `edits` is not a non-empty list.
    #[error("edits must contain at least one replacement.")]
    NoEdits,
    /// More replacements than `maxEdits`.
    #[error("edits contains {count} replacements, exceeds {max} limit.")]
    TooManyEdits {
        /// Replacements given.
        count: u64,
        /// The configured `maxEdits`.
        max: u64,
    },
    /// A replacement without string `oldText` and `newText`.
    #[error("edits[{index}] must have string oldText and newText.")]
    EditShape {
        /// Its position in `edits`.
        index: usize,
    },
    /// The replacements' texts together are longer than `maxInputBytes`.
    #[error("{}", over_byte_limit("edit input", *bytes, *max))]
    EditInputTooLarge {
        /// UTF-8 bytes of every `oldText` and `newText`.
        bytes: u64,
        /// The configured `maxInputBytes`.
        max: u64,
    },
    /// `command` is missing, not a string, or only whitespace.
    #[error("command is required and must be a non-empty string.")]
    CommandRequired,
    /// `content` is missing or not a string.
    #[error("content is required and must be a string.")]
    ContentRequired,
    /// `content` is longer than `maxInputBytes`.
    #[error("{}", over_byte_limit("Write input", *bytes, *max))]
    WriteInputTooLarge {
        /// UTF-8 bytes of `content`.
        bytes: u64,
        /// The configured `maxInputBytes`.
        max: u64,
    },
}

impl ArgumentError {
    /// A stable `ERR_PRISM_CODING_*` code for each variant.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::PathRequired => "ERR_PRISM_CODING_PATH_REQUIRED",
            Self::FindTextEmpty | Self::FindMode => "ERR_PRISM_CODING_INVALID_FIND",
            Self::Position { .. } => "ERR_PRISM_CODING_INVALID_POSITION",
            Self::NoEdits | Self::EditShape { .. } => "ERR_PRISM_CODING_INVALID_EDITS",
            Self::TooManyEdits { .. } | Self::EditInputTooLarge { .. } => {
                "ERR_PRISM_CODING_EDIT_INPUT_TOO_LARGE"
            }
            Self::ContentRequired => "ERR_PRISM_CODING_CONTENT_REQUIRED",
            Self::CommandRequired => "ERR_PRISM_CODING_COMMAND_REQUIRED",
            Self::WriteInputTooLarge { .. } => "ERR_PRISM_CODING_WRITE_INPUT_TOO_LARGE",
        }
    }
}

/// `Ok` when `path` is a non-empty string.
///
/// # Errors
/// [`ArgumentError::PathRequired`].
pub fn check_path(path: Arg<&str>) -> Result<(), ArgumentError> {
    match path {
        Arg::Given(p) if !p.is_empty() => Ok(()),
        _ => Err(ArgumentError::PathRequired),
    }
}

/// Whether `c` is white space to JavaScript's `String.prototype.trim` (its WhiteSpace and
/// LineTerminator sets: U+FEFF is, U+0085 is not).
fn is_js_trim_space(c: char) -> bool {
    matches!(
        u32::from(c),
        0x09..=0x0d
            | 0x20
            | 0xa0
            | 0x1680
            | 0x2000..=0x200a
            | 0x2028
            | 0x2029
            | 0x202f
            | 0x205f
            | 0x3000
            | 0xfeff
    )
}

/// Checks a shell call's `command` (a string that is not only white space) and `timeout`
/// (seconds, at most the shell timeout's hard cap).
///
/// # Errors
/// [`ArgumentError::CommandRequired`], then [`ArgumentError::Position`] for `timeout`.
pub fn check_shell(command: Arg<&str>, timeout: Arg<f64>) -> Result<(), ArgumentError> {
    match command {
        Arg::Given(c) if !c.chars().all(is_js_trim_space) => {}
        _ => return Err(ArgumentError::CommandRequired),
    }
    check_position("timeout", timeout, SHELL_TIMEOUT_SECS.hard)
}

/// The text a shell refusal shows the model: `Error: ` before a missing command's message
/// (the reference's), the message alone otherwise.
#[must_use]
pub fn shell_refusal_text(e: &ArgumentError) -> String {
    match e {
        ArgumentError::CommandRequired => format!("Error: {e}"),
        _ => e.to_string(),
    }
}

/// The read tool's arguments.
#[derive(Debug, Clone, Copy)]
pub struct ReadArguments<'a> {
    /// `path`.
    pub path: Arg<&'a str>,
    /// `offset` (1-based line).
    pub offset: Arg<f64>,
    /// `limit` (lines).
    pub limit: Arg<f64>,
    /// `findText`.
    pub find_text: Arg<&'a str>,
    /// `findMode`.
    pub find_mode: Arg<&'a str>,
}

/// Checks a read call's arguments: path, then `findText` and its `findMode`, then `offset`
/// (any safe line number) and `limit` (at most `maxLines`' hard cap).
///
/// # Errors
/// The first [`ArgumentError`] in that order.
pub fn check_read(args: &ReadArguments<'_>) -> Result<(), ArgumentError> {
    check_path(args.path)?;
    if args.find_text != Arg::Absent {
        match args.find_text {
            Arg::Given(t) if !t.is_empty() => {}
            _ => return Err(ArgumentError::FindTextEmpty),
        }
        match args.find_mode {
            Arg::Absent | Arg::Given("exact" | "case-insensitive") => {}
            _ => return Err(ArgumentError::FindMode),
        }
    }
    check_position("offset", args.offset, MAX_SAFE_INTEGER as u64)?;
    check_position("limit", args.limit, CODING_MAX_LINES.hard)
}

fn check_position(name: &'static str, value: Arg<f64>, hard: u64) -> Result<(), ArgumentError> {
    let v = match value {
        Arg::Absent => return Ok(()),
        Arg::Given(v) => v,
        Arg::WrongType => f64::NAN,
    };
    if crate::limits::within_limit(v, hard as f64) {
        Ok(())
    } else {
        Err(ArgumentError::Position { name, hard })
    }
}

/// One replacement as the call wrote it: `None` for an entry that is not an object, and
/// each text `None` when it is not a string.
pub type EditArgument = Option<(Option<String>, Option<String>)>;

/// Checks the number of replacements before any is read: `count` is `None` when `edits` is
/// not a list.
///
/// # Errors
/// [`ArgumentError::NoEdits`] or [`ArgumentError::TooManyEdits`].
pub fn check_edit_count(count: Option<u64>, max_edits: u64) -> Result<(), ArgumentError> {
    match count {
        None | Some(0) => Err(ArgumentError::NoEdits),
        Some(count) if count > max_edits => Err(ArgumentError::TooManyEdits {
            count,
            max: max_edits,
        }),
        Some(_) => Ok(()),
    }
}

/// The replacements of an edit call, checked: their number (see [`check_edit_count`]), each
/// one's shape in order, then their texts' total size against `max_input_bytes`.
///
/// # Errors
/// The first [`ArgumentError`] in that order.
pub fn check_edits(
    edits: Option<Vec<EditArgument>>,
    max_edits: u64,
    max_input_bytes: u64,
) -> Result<Vec<Replacement>, ArgumentError> {
    check_edit_count(edits.as_ref().map(|e| e.len() as u64), max_edits)?;
    check_edit_items(edits.unwrap_or_default(), max_input_bytes)
}

/// The checks of [`check_edits`] after the count (for a caller that counted the list before
/// reading its entries): each replacement's shape in order, then their total size.
///
/// # Errors
/// [`ArgumentError::EditShape`], then [`ArgumentError::EditInputTooLarge`].
pub fn check_edit_items(
    edits: Vec<EditArgument>,
    max_input_bytes: u64,
) -> Result<Vec<Replacement>, ArgumentError> {
    let mut bytes: u64 = 0;
    let mut out = Vec::with_capacity(edits.len());
    for (index, edit) in edits.into_iter().enumerate() {
        let Some((Some(old_text), Some(new_text))) = edit else {
            return Err(ArgumentError::EditShape { index });
        };
        bytes = bytes.saturating_add((old_text.len() + new_text.len()) as u64);
        out.push(Replacement { old_text, new_text });
    }
    if bytes > max_input_bytes {
        return Err(ArgumentError::EditInputTooLarge {
            bytes,
            max: max_input_bytes,
        });
    }
    Ok(out)
}

/// Checks a write call's content: `bytes` is its UTF-8 length, `None` when it is not a string.
///
/// # Errors
/// [`ArgumentError::ContentRequired`] or [`ArgumentError::WriteInputTooLarge`].
pub fn check_write_content(bytes: Option<u64>, max_input_bytes: u64) -> Result<(), ArgumentError> {
    match bytes {
        None => Err(ArgumentError::ContentRequired),
        Some(bytes) if bytes > max_input_bytes => Err(ArgumentError::WriteInputTooLarge {
            bytes,
            max: max_input_bytes,
        }),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<'a>(path: Arg<&'a str>) -> ReadArguments<'a> {
        ReadArguments {
            path,
            offset: Arg::Absent,
            limit: Arg::Absent,
            find_text: Arg::Absent,
            find_mode: Arg::Absent,
        }
    }

    #[test]
    fn read_checks_come_in_the_reference_order() {
        assert_eq!(check_read(&read(Arg::Given("a"))), Ok(()));
        for path in [Arg::Absent, Arg::WrongType, Arg::Given("")] {
            assert_eq!(check_read(&read(path)), Err(ArgumentError::PathRequired));
        }
        let mut a = read(Arg::Given("a"));
        a.offset = Arg::Given(0.0);
        a.find_text = Arg::Given("");
        assert_eq!(check_read(&a), Err(ArgumentError::FindTextEmpty));
        a.find_text = Arg::Given("x");
        a.find_mode = Arg::Given("regex");
        assert_eq!(
            check_read(&a).map_err(|e| e.to_string()),
            Err("findMode must be 'exact' or 'case-insensitive'.".to_owned())
        );
        a.find_mode = Arg::Given("case-insensitive");
        assert_eq!(
            check_read(&a).map_err(|e| e.to_string()),
            Err("offset must be a positive safe integer at most 9007199254740991".to_owned())
        );
        a.offset = Arg::Given(3.0);
        a.limit = Arg::Given(CODING_MAX_LINES.hard as f64 + 1.0);
        assert_eq!(
            check_read(&a),
            Err(ArgumentError::Position {
                name: "limit",
                hard: CODING_MAX_LINES.hard
            })
        );
        a.limit = Arg::Given(CODING_MAX_LINES.hard as f64);
        assert_eq!(check_read(&a), Ok(()));
        a.limit = Arg::WrongType;
        assert!(check_read(&a).is_err());
    }

    #[test]
    fn find_mode_without_find_text_is_not_read() {
        let mut a = read(Arg::Given("a"));
        a.find_mode = Arg::WrongType;
        assert_eq!(check_read(&a), Ok(()));
    }

    fn edit(old: &str, new: &str) -> EditArgument {
        Some((Some(old.to_owned()), Some(new.to_owned())))
    }

    #[test]
    fn edits_are_counted_before_their_shapes_and_sized_last() {
        assert_eq!(check_edits(None, 4, 10), Err(ArgumentError::NoEdits));
        assert_eq!(
            check_edits(Some(vec![]), 4, 10),
            Err(ArgumentError::NoEdits)
        );
        let many = vec![None; 5];
        assert_eq!(
            check_edits(Some(many), 4, 10).map_err(|e| e.to_string()),
            Err("edits contains 5 replacements, exceeds 4 limit.".to_owned())
        );
        let shapes = vec![edit("a", "b"), Some((Some("a".into()), None)), None];
        assert_eq!(
            check_edits(Some(shapes), 4, 1),
            Err(ArgumentError::EditShape { index: 1 })
        );
        assert_eq!(
            check_edits(Some(vec![edit("ab", "é")]), 4, 3).map_err(|e| e.to_string()),
            Err("edit input is 4 bytes, exceeds 3 byte limit.".to_owned())
        );
        let ok = check_edits(Some(vec![edit("ab", "é")]), 4, 4);
        assert_eq!(ok.map(|v| v.len()), Ok(1));
    }

    #[test]
    fn shell_commands_must_hold_more_than_javascript_white_space() {
        for blank in ["", " \t\n", "\u{feff}", "\u{3000}\u{2028}"] {
            assert_eq!(
                check_shell(Arg::Given(blank), Arg::Absent),
                Err(ArgumentError::CommandRequired),
                "{blank:?}"
            );
        }
        assert_eq!(check_shell(Arg::Given("\u{85}"), Arg::Absent), Ok(()));
        assert_eq!(
            check_shell(Arg::WrongType, Arg::Given(0.0)),
            Err(ArgumentError::CommandRequired)
        );
        assert_eq!(
            shell_refusal_text(&ArgumentError::CommandRequired),
            "Error: command is required and must be a non-empty string."
        );
        let hard = SHELL_TIMEOUT_SECS.hard as f64;
        assert_eq!(check_shell(Arg::Given("ls"), Arg::Given(hard)), Ok(()));
        let over = check_shell(Arg::Given("ls"), Arg::Given(hard + 1.0));
        assert_eq!(
            over.as_ref().map_err(shell_refusal_text),
            Err(limit_message(
                LimitDialect::Coding,
                "timeout",
                SHELL_TIMEOUT_SECS.hard
            ))
        );
    }

    #[test]
    fn write_content_is_bounded_at_its_edge() {
        assert_eq!(
            check_write_content(None, 3),
            Err(ArgumentError::ContentRequired)
        );
        assert_eq!(check_write_content(Some(3), 3), Ok(()));
        assert_eq!(
            check_write_content(Some(4), 3).map_err(|e| e.to_string()),
            Err("Write input is 4 bytes, exceeds 3 byte limit.".to_owned())
        );
    }

    #[test]
    fn every_refusal_has_a_coding_code() {
        let all = [
            ArgumentError::PathRequired,
            ArgumentError::FindTextEmpty,
            ArgumentError::FindMode,
            ArgumentError::Position {
                name: "offset",
                hard: 1,
            },
            ArgumentError::NoEdits,
            ArgumentError::TooManyEdits { count: 2, max: 1 },
            ArgumentError::EditShape { index: 0 },
            ArgumentError::EditInputTooLarge { bytes: 2, max: 1 },
            ArgumentError::ContentRequired,
            ArgumentError::CommandRequired,
            ArgumentError::WriteInputTooLarge { bytes: 2, max: 1 },
        ];
        for e in all {
            assert!(e.code().starts_with("ERR_PRISM_CODING_"), "{e:?}");
        }
    }
}
