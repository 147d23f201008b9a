//! Node-API glue for the coding tools' argument checks (`prism_engine::coding::arguments`):
//! each argument is read as an `Arg` (absent, the expected type, another type) and the engine
//! decides; the refusal's message comes back as the tool's error text.

use napi::bindgen_prelude::{JsObjectValue, Object};
use napi::{Unknown, ValueType};
use napi_derive::napi;
use prism_engine::coding::arguments::{
    check_edit_count, check_edit_items, check_path, check_read, check_shell, check_write_content,
    shell_refusal_text, Arg, ArgumentError, EditArgument, ReadArguments,
};
use prism_engine::coding::{edit, write};

use crate::args::non_negative;
use crate::coding::CodingReplacement;

fn arg_string(value: &Unknown<'_>) -> napi::Result<Arg<String>> {
    Ok(match value.get_type()? {
        ValueType::Undefined => Arg::Absent,
        // SAFETY: the value was just checked to be a JS string.
        ValueType::String => Arg::Given(unsafe { value.cast::<String>() }?),
        _ => Arg::WrongType,
    })
}

fn arg_number(value: &Unknown<'_>) -> napi::Result<Arg<f64>> {
    Ok(match value.get_type()? {
        ValueType::Undefined => Arg::Absent,
        // SAFETY: the value was just checked to be a JS number.
        ValueType::Number => Arg::Given(unsafe { value.cast::<f64>() }?),
        _ => Arg::WrongType,
    })
}

fn as_ref(arg: &Arg<String>) -> Arg<&str> {
    match arg {
        Arg::Absent => Arg::Absent,
        Arg::Given(s) => Arg::Given(s.as_str()),
        Arg::WrongType => Arg::WrongType,
    }
}

fn message(result: Result<(), ArgumentError>) -> Option<String> {
    result.err().map(|e| e.to_string())
}

/// The read tool's first argument error (path, `findText`/`findMode`, `offset`, `limit`), or
/// nothing.
#[napi]
pub fn coding_check_read(
    path: Unknown<'_>,
    offset: Unknown<'_>,
    limit: Unknown<'_>,
    find_text: Unknown<'_>,
    find_mode: Unknown<'_>,
) -> napi::Result<Option<String>> {
    let (path, find_text, find_mode) = (
        arg_string(&path)?,
        arg_string(&find_text)?,
        arg_string(&find_mode)?,
    );
    Ok(message(check_read(&ReadArguments {
        path: as_ref(&path),
        offset: arg_number(&offset)?,
        limit: arg_number(&limit)?,
        find_text: as_ref(&find_text),
        find_mode: as_ref(&find_mode),
    })))
}

/// A refusal's message and the text the model is shown.
#[napi(object)]
pub struct CodingRefusal {
    /// The error message.
    pub message: String,
    /// The result's text.
    pub text: String,
}

/// The shell tool's argument error (`command`, then `timeout`), or nothing.
pub(crate) fn shell_refusal(
    command: &Unknown<'_>,
    timeout: &Unknown<'_>,
) -> napi::Result<Option<CodingRefusal>> {
    let command = arg_string(command)?;
    Ok(check_shell(as_ref(&command), arg_number(timeout)?)
        .err()
        .map(|e| CodingRefusal {
            message: e.to_string(),
            text: shell_refusal_text(&e),
        }))
}

/// The result of a shell call whose signal was aborted before it started: `Command aborted`,
/// shown as `[Command aborted]`.
#[napi]
pub fn coding_shell_aborted() -> CodingRefusal {
    let message = prism_engine::coding::shell::ShellStatus::Aborted
        .failure()
        .unwrap_or_default();
    CodingRefusal {
        text: format!("[{message}]"),
        message,
    }
}

/// An edit call's checked replacements, or its argument error.
#[napi(object)]
pub struct CodingCheckedEdits {
    /// The refusal's message (path, then `edits`' number, shapes and size).
    pub error: Option<String>,
    /// The replacements, when the arguments pass.
    pub edits: Option<Vec<CodingReplacement>>,
}

fn refused(e: &ArgumentError) -> CodingCheckedEdits {
    CodingCheckedEdits {
        error: Some(e.to_string()),
        edits: None,
    }
}

/// Reads one replacement: `None` for a value that is not an object, each text `None` when it
/// is not a string (a getter that throws rejects the call with its error).
fn edit_argument(value: &Unknown<'_>) -> napi::Result<EditArgument> {
    if !matches!(value.get_type()?, ValueType::Object | ValueType::Function) {
        return Ok(None);
    }
    // SAFETY: the value was just checked to be an object or a function.
    let object = unsafe { value.cast::<Object>() }?;
    let text = |key: &str| -> napi::Result<Option<String>> {
        match arg_string(&object.get_named_property::<Unknown>(key)?)? {
            Arg::Given(s) => Ok(Some(s)),
            _ => Ok(None),
        }
    };
    Ok(Some((text("oldText")?, text("newText")?)))
}

/// Checks an edit call's `path` and `edits` (pass `edits` only when it is an array): their
/// number before any is read, each one's shape, then their total size.
#[napi]
pub fn coding_check_edits(
    path: Unknown<'_>,
    edits: Unknown<'_>,
    max_edits: f64,
    max_input_bytes: f64,
) -> napi::Result<CodingCheckedEdits> {
    if let Err(e) = check_path(as_ref(&arg_string(&path)?)) {
        return Ok(refused(&e));
    }
    let max_edits = non_negative(max_edits);
    let list = match edits.get_type()? {
        // SAFETY: the value was just checked to be an object.
        ValueType::Object => Some(unsafe { edits.cast::<Object>() }?),
        _ => None,
    };
    let count = match &list {
        Some(list) => match arg_number(&list.get_named_property::<Unknown>("length")?)? {
            Arg::Given(n) => Some(non_negative(n)),
            _ => Some(0),
        },
        None => None,
    };
    if let Err(e) = check_edit_count(count, max_edits) {
        return Ok(refused(&e));
    }
    // The count passed, so there is a list of at most `maxEdits` entries.
    let mut items = Vec::new();
    if let (Some(list), Some(n)) = (&list, count) {
        for i in 0..u32::try_from(n).unwrap_or(0) {
            items.push(edit_argument(&list.get_element::<Unknown>(i)?)?);
        }
    }
    Ok(
        match check_edit_items(items, non_negative(max_input_bytes)) {
            Ok(edits) => CodingCheckedEdits {
                error: None,
                edits: Some(
                    edits
                        .into_iter()
                        .map(|r| CodingReplacement {
                            old_text: r.old_text,
                            new_text: r.new_text,
                        })
                        .collect(),
                ),
            },
            Err(e) => refused(&e),
        },
    )
}

/// A write call's content facts, or its argument error.
#[napi(object)]
pub struct CodingCheckedWrite {
    /// The refusal's message (path, then `content`'s type and size).
    pub error: Option<String>,
    /// UTF-8 bytes of `content`.
    pub bytes: f64,
    /// Lines of `content` as the success text counts them.
    pub lines: f64,
}

/// Checks a write call's `path` and `content` against `maxInputBytes`.
#[napi]
pub fn coding_check_write(
    path: Unknown<'_>,
    content: Unknown<'_>,
    max_input_bytes: f64,
) -> napi::Result<CodingCheckedWrite> {
    let refusal = |e: ArgumentError| CodingCheckedWrite {
        error: Some(e.to_string()),
        bytes: 0.0,
        lines: 0.0,
    };
    if let Err(e) = check_path(as_ref(&arg_string(&path)?)) {
        return Ok(refusal(e));
    }
    let content = match arg_string(&content)? {
        Arg::Given(s) => Some(s),
        _ => None,
    };
    let bytes = content.as_ref().map(|c| c.len() as u64);
    if let Err(e) = check_write_content(bytes, non_negative(max_input_bytes)) {
        return Ok(refusal(e));
    }
    Ok(CodingCheckedWrite {
        error: None,
        bytes: bytes.unwrap_or(0) as f64,
        lines: content.as_deref().map_or(0, write::line_count) as f64,
    })
}

/// `Successfully wrote <bytes> bytes (<lines> lines) to <path>`.
#[napi]
pub fn coding_write_summary(bytes: f64, lines: f64, path: String) -> String {
    write::summary(non_negative(bytes), non_negative(lines), &path)
}

/// The refusal of a host backend's edit target of `size` bytes, or nothing when it is within
/// `maxFileBytes` (a size that is not a finite number is left to the check after the read).
#[napi]
pub fn coding_edit_too_large(size: f64, max_file_bytes: f64) -> Option<String> {
    let max = non_negative(max_file_bytes);
    (size.is_finite() && size > max as f64)
        .then(|| edit::too_large(non_negative(size), max).to_string())
}

/// `Could not edit file: <path>. <detail>.`: `code` (an errno name) gives the detail
/// `Error code: <code>`; without it, `detail` is used as is.
#[napi]
pub fn coding_edit_access_failure(
    display_path: String,
    code: Option<String>,
    detail: String,
) -> String {
    let detail = code.map_or(detail, |c| edit::error_code_detail(&c));
    edit::access_failure_message(&display_path, &detail)
}
