//! The engine's fixed numbers and fixed messages that the facade needs, read from
//! `limits.rs` (and the engine's error types) so that JavaScript holds none of its own.

use napi::Env;
use napi_derive::napi;
use prism_engine::limits::{self as l, LimitDialect, LimitError};
use prism_engine::mcp::McpError;

use crate::errors::NativeError;

/// Engine constants the facade uses.
#[napi(object)]
pub struct EngineConstants {
    /// Bytes of a file the image sniffer reads (`IMAGE_SNIFF_BYTES`).
    pub image_sniff_bytes: u32,
    /// Bytes of an MCP error message or `isError` summary (`MCP_ERROR_SUMMARY_BYTES`).
    pub mcp_error_summary_bytes: u32,
    /// The failure message of an MCP call whose signal was aborted before it started.
    pub mcp_aborted_message: String,
    /// The error message of a run whose signal was aborted without an `Error` reason.
    pub run_aborted_message: String,
    /// The message of a call on a closed MCP bridge.
    pub mcp_closed_message: String,
    /// The result message of a coding call whose signal was aborted.
    pub coding_aborted_message: String,
    /// Milliseconds `autoRefresh: true` waits after `list_changed` (`MCP_AUTO_REFRESH_DEBOUNCE_MS`).
    pub mcp_auto_refresh_debounce_ms: u32,
    /// `[default, hard]` caps the reference exports for MCP capability listings and sessions,
    /// by name (`capabilityBytes`, `capabilityItems`, `capabilityPages`, `sessions`); unchecked
    /// here (tools only), see `MCP_CAPABILITY_BYTES`.
    pub mcp_reference_caps: Vec<ReferenceCap>,
    /// The shell a sandbox backend runs a command with when `shellPath` is unset
    /// (`SANDBOX_DEFAULT_SHELL`).
    pub sandbox_default_shell: String,
}

/// One `[default, hard]` pair of [`EngineConstants::mcp_reference_caps`].
#[napi(object)]
pub struct ReferenceCap {
    /// The cap's name.
    pub name: String,
    /// Its default.
    pub default: u32,
    /// Its hard maximum.
    pub hard: u32,
}

fn reference_cap(name: &str, [default, hard]: [u64; 2]) -> ReferenceCap {
    ReferenceCap {
        name: name.to_owned(),
        default: u32::try_from(default).unwrap_or(u32::MAX),
        hard: u32::try_from(hard).unwrap_or(u32::MAX),
    }
}

/// The engine's constants (read once at load).
#[napi]
pub fn engine_constants() -> EngineConstants {
    EngineConstants {
        image_sniff_bytes: u32::try_from(l::IMAGE_SNIFF_BYTES).unwrap_or(u32::MAX),
        mcp_error_summary_bytes: u32::try_from(l::MCP_ERROR_SUMMARY_BYTES).unwrap_or(u32::MAX),
        mcp_aborted_message: McpError::Aborted.to_string(),
        mcp_closed_message: McpError::Closed.to_string(),
        run_aborted_message: prism_engine::parallel::RUN_ABORTED_MESSAGE.to_owned(),
        coding_aborted_message: prism_engine::coding::arguments::OPERATION_ABORTED_MESSAGE
            .to_owned(),
        mcp_auto_refresh_debounce_ms: u32::try_from(l::MCP_AUTO_REFRESH_DEBOUNCE_MS)
            .unwrap_or(u32::MAX),
        mcp_reference_caps: vec![
            reference_cap("capabilityBytes", l::MCP_CAPABILITY_BYTES),
            reference_cap("capabilityItems", l::MCP_CAPABILITY_ITEMS),
            reference_cap("capabilityPages", l::MCP_CAPABILITY_PAGES),
            reference_cap("sessions", l::MCP_SESSIONS),
        ],
        sandbox_default_shell: prism_engine::coding::sandbox_run::SANDBOX_DEFAULT_SHELL.to_owned(),
    }
}

/// One limit of an option set (`prism_engine::option_sets`).
#[napi(object)]
pub struct LimitRow {
    /// The key the facade knows it by (the option name, except in the coding set, where an
    /// option name repeats across tools).
    pub key: String,
    /// The option's name, as hosts spell it.
    pub name: String,
    /// Its default.
    pub default: f64,
    /// Its hard cap.
    pub hard: f64,
    /// What it bounds, in a host's words.
    pub doc: String,
}

/// Every limit of the option set `set` (`"validation"`, `"mcp"`, `"mcpHttp"`, `"coding"`), in
/// the order the set checks them; an unknown set is a facade bug (`ERR_PRISM_INTERNAL`).
#[napi]
pub fn limit_table(env: napi::Env, set: String) -> napi::Result<Vec<LimitRow>> {
    let rows = prism_engine::option_sets::option_set(&set)
        .ok_or_else(|| crate::errors::facade_bug(&env, format!("no option set {set:?}")))?;
    Ok(rows
        .into_iter()
        .map(|(key, l)| LimitRow {
            key: key.to_owned(),
            name: l.name.to_owned(),
            default: l.default as f64,
            hard: l.hard as f64,
            doc: l.doc.trim().to_owned(),
        })
        .collect())
}

/// The names of every option set, in the order they are documented.
#[napi]
pub fn limit_set_names() -> Vec<String> {
    prism_engine::option_sets::OPTION_SET_NAMES
        .iter()
        .map(|n| (*n).to_owned())
        .collect()
}

/// Whether `value` is an acceptable value of a limit capped at `hard`: a whole number from 1
/// to `hard` (pass `NaN` for a value that is not a number).
#[napi]
pub fn within_limit(value: f64, hard: f64) -> bool {
    l::within_limit(value, hard)
}

/// `<name> must be a positive safe integer`: the refusal of a count without a smaller cap.
#[napi]
pub fn positive_integer_message(name: String) -> String {
    l::positive_integer_message(&name)
}

/// Throws the engine's error of the limit option `name` (in `dialect`'s words: `"validation"`,
/// `"mcp"` or `"coding"`; anything else is `"coding"`) when `value` is not a whole number from
/// 1 to `hard` (pass `NaN` for a value that is not a number); `hard_text` is the cap as
/// JavaScript prints it.
#[napi]
pub fn check_limit(
    env: Env,
    dialect: String,
    name: String,
    value: f64,
    hard: f64,
    hard_text: String,
) -> napi::Result<()> {
    if l::within_limit(value, hard) {
        return Ok(());
    }
    let dialect = LimitDialect::from_name(&dialect).unwrap_or(LimitDialect::Coding);
    let code = LimitError {
        name: "",
        hard: 0,
        dialect,
    }
    .code();
    Err(NativeError {
        code,
        message: l::limit_message(dialect, &name, hard_text),
    }
    .into_js(&env))
}

/// The facade's message templates by key (`{name}` marks a value) and its choice options'
/// values and refusals (read once at load).
#[napi(object)]
pub struct FacadeWords {
    /// Each template by key.
    pub templates: std::collections::HashMap<String, String>,
    /// Each choice option's values, the default first.
    pub choices: std::collections::HashMap<String, Vec<String>>,
    /// Each choice option's refusal.
    pub choice_messages: std::collections::HashMap<String, String>,
    /// Each closed list of values the facade checks a host's value against, by name.
    pub vocabularies: std::collections::HashMap<String, Vec<String>>,
}

/// The facade's words (`prism_engine::facade_words`).
#[napi]
pub fn facade_words() -> FacadeWords {
    use prism_engine::facade_words::{CHOICES, VOCABULARIES, WORDS};
    let owned = |values: &[&str]| values.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>();
    FacadeWords {
        templates: WORDS
            .iter()
            .map(|(k, t)| ((*k).to_owned(), (*t).to_owned()))
            .collect(),
        choices: CHOICES
            .iter()
            .map(|c| (c.option.to_owned(), owned(c.values)))
            .collect(),
        vocabularies: VOCABULARIES
            .iter()
            .map(|(name, values)| ((*name).to_owned(), owned(values)))
            .collect(),
        choice_messages: CHOICES
            .iter()
            .map(|c| (c.option.to_owned(), c.message()))
            .collect(),
    }
}

/// The codes the facade gives its own error classes and reads engine errors by, by key
/// (`prism_engine::error_codes`; read once at load).
#[napi]
pub fn error_codes() -> std::collections::HashMap<String, String> {
    prism_engine::error_codes::codes()
        .into_iter()
        .map(|(k, c)| (k.to_owned(), c.to_owned()))
        .collect()
}
