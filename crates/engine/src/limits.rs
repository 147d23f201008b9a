//! Every default and hard cap of the engine, as typed constants with their units in the name.
//!
//! Each area adds its limits here, default and hard cap side by side, so that a reader sees
//! every bound the package enforces in one file. The one exception is the shell analysis's
//! caps: they are defined in the analysis crate (`prism_command_analysis::limits`), which does
//! not depend on the engine, and re-exported here, so they too are read as `limits::NAME`.

/// A bound that a host may configure: its default and the largest value it may be set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The option's name as hosts spell it (used in error messages).
    pub name: &'static str,
    /// The value used when the host sets none.
    pub default: u64,
    /// The largest value the host may set.
    pub hard: u64,
    /// Whose wording its error takes (each area words the error as the reference does).
    pub dialect: LimitDialect,
    /// What it bounds, in a host's words (the constant's doc comment, which the public
    /// `.d.ts` docs and README tables are generated from).
    pub doc: &'static str,
}

/// Declares a [`Limit`] constant: its doc comment is written once and becomes both the Rust
/// doc and [`Limit::doc`].
macro_rules! limit {
    ($(#[doc = $doc:literal])+ pub const $id:ident = $name:literal, default $default:expr, hard $hard:expr, $dialect:ident;) => {
        $(#[doc = $doc])+
        pub const $id: Limit = Limit {
            name: $name,
            default: $default,
            hard: $hard,
            dialect: LimitDialect::$dialect,
            doc: concat!($($doc),+),
        };
    };
}

/// Declares an option set once: the host's raw values (`$input`, each `None` when unset), the
/// resolved values (`$name`), the set's table in the order its values are checked
/// (`$name::TABLE`), its resolution (`$name::resolve`, each value checked against its
/// [`Limit`]) and its defaults. A binding reads the raw values by option name
/// (`$input::from_named`), so adding a limit to a set is one line here and one constant.
macro_rules! limit_set {
    (
        $(#[doc = $doc:literal])+
        pub struct $name:ident from $input:ident {
            $($field:ident: $limit:ident),+ $(,)?
        }
    ) => {
        #[doc = concat!("The host's raw values of [`", stringify!($name), "`] (`None`: the default).")]
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $input {
            $(
                #[doc = concat!("The value of [`", stringify!($limit), "`](crate::limits::", stringify!($limit), "), as JavaScript sent it.")]
                pub $field: Option<f64>,
            )+
        }

        impl $input {
            /// Reads each raw value by its option name, as hosts spell it.
            pub fn from_named(mut value_of: impl FnMut(&'static str) -> Option<f64>) -> Self {
                Self {
                    $($field: value_of($crate::limits::$limit.name),)+
                }
            }
        }

        $(#[doc = $doc])+
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name {
            $(
                #[doc = concat!("[`", stringify!($limit), "`](crate::limits::", stringify!($limit), ").")]
                pub $field: u64,
            )+
        }

        impl $name {
            /// The set's limits, in the order [`Self::resolve`] checks them.
            pub const TABLE: &'static [$crate::limits::Limit] = &[$($crate::limits::$limit),+];

            /// Resolves every value in [`Self::TABLE`] order.
            ///
            /// # Errors
            /// The first value that is not a whole number from 1 to its hard cap.
            pub fn resolve(input: &$input) -> Result<Self, $crate::limits::LimitError> {
                Ok(Self {
                    $($field: $crate::limits::$limit.resolve(input.$field)?,)+
                })
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    $($field: $crate::limits::$limit.default,)+
                }
            }
        }
    };
}
pub(crate) use limit_set;

/// The areas whose limit errors the reference words differently; [`limit_message`] holds the
/// one wording of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitDialect {
    /// JSON Schema validation: `"<name> must be a positive safe integer no greater than <hard>"`.
    Validation,
    /// The MCP bridge: `"<name> must be a positive safe integer <= <hard>"`.
    Mcp,
    /// The coding tools: `"<name> must be a positive safe integer at most <hard>"`.
    Coding,
    /// MCP OAuth: the bridge's wording, under the OAuth code `ERR_PRISM_MCP_OAUTH_STATE`.
    McpOAuth,
}

impl LimitDialect {
    /// The dialect named `"validation"`, `"mcp"` or `"coding"`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "validation" => Some(Self::Validation),
            "mcp" => Some(Self::Mcp),
            "coding" => Some(Self::Coding),
            "mcpOAuth" => Some(Self::McpOAuth),
            _ => None,
        }
    }
}

/// `<subject> is <bytes> bytes, exceeds <max> byte limit.`: the one wording of a byte bound
/// on a call's input or on the file it targets.
#[must_use]
pub fn over_byte_limit(subject: &str, bytes: u64, max: u64) -> String {
    format!("{subject} is {bytes} bytes, exceeds {max} byte limit.")
}

/// The message of a limit that is not a positive safe integer within `hard`, in `dialect`'s
/// words. Every limit error of the package is worded here.
#[must_use]
pub fn limit_message(dialect: LimitDialect, name: &str, hard: impl std::fmt::Display) -> String {
    let bound = match dialect {
        LimitDialect::Validation => "no greater than",
        LimitDialect::Mcp | LimitDialect::McpOAuth => "<=",
        LimitDialect::Coding => "at most",
    };
    format!("{} {bound} {hard}", positive_integer_message(name))
}

/// `<name> must be a positive safe integer`: the refusal of a value that must be a whole
/// number from 1 to 2^53 - 1 and has no smaller cap.
#[must_use]
pub fn positive_integer_message(name: &str) -> String {
    format!("{name} must be a positive safe integer")
}

impl Limit {
    /// Checks a host-supplied value: a whole number from 1 to [`Limit::hard`].
    ///
    /// `None` gives the default. Non-finite, fractional, zero, negative and unsafe (above
    /// 2^53 - 1) values are rejected with [`LimitError`].
    ///
    /// # Errors
    /// [`LimitError`] names the limit and its hard cap.
    pub fn resolve(&self, value: Option<f64>) -> Result<u64, LimitError> {
        let Some(v) = value else {
            return Ok(self.default);
        };
        if within_limit(v, self.hard as f64) {
            Ok(v as u64)
        } else {
            Err(LimitError {
                name: self.name,
                hard: self.hard,
                dialect: self.dialect,
            })
        }
    }
}

/// 2^53 - 1, JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Whether `v` is a whole number from 1 to `Number.MAX_SAFE_INTEGER`.
#[must_use]
pub fn is_positive_safe_integer(v: f64) -> bool {
    v.is_finite() && v.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&v)
}

/// Whether `v` is an acceptable value of a limit whose hard cap is `hard`: a whole number from
/// 1 to `hard` (and to `Number.MAX_SAFE_INTEGER`). A cap that is not a number (`NaN`) bounds
/// nothing, as JavaScript's `v > cap` reads it (the reference's `validateCodingLimit`).
#[must_use]
pub fn within_limit(v: f64, hard: f64) -> bool {
    is_positive_safe_integer(v) && (hard.is_nan() || v <= hard)
}

/// A configured limit that is not a positive safe integer within its hard cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", limit_message(*dialect, name, *hard))]
pub struct LimitError {
    /// The option's name.
    pub name: &'static str,
    /// Its hard cap.
    pub hard: u64,
    /// Whose wording the message takes.
    pub dialect: LimitDialect,
}

impl LimitError {
    /// A stable code per dialect: `ERR_PRISM_VALIDATION_INVALID_LIMIT`,
    /// `ERR_PRISM_MCP_INVALID_LIMIT` or `ERR_PRISM_CODING_INVALID_LIMIT`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self.dialect {
            LimitDialect::Validation => "ERR_PRISM_VALIDATION_INVALID_LIMIT",
            LimitDialect::Mcp => "ERR_PRISM_MCP_INVALID_LIMIT",
            LimitDialect::Coding => "ERR_PRISM_CODING_INVALID_LIMIT",
            LimitDialect::McpOAuth => "ERR_PRISM_MCP_OAUTH_STATE",
        }
    }
}

// --- JSON Schema validation (API.md section 7) -------------------------------------------

limit! {
    /// Errors reported per failed validation (Ajv's `allErrors` output is cut to this many).
    pub const SCHEMA_MAX_ERRORS = "maxErrors", default 8, hard 64, Validation;
}
limit! {
    /// Nesting depth of a validated instance (the root is depth 0).
    pub const SCHEMA_MAX_DEPTH = "maxDepth", default 64, hard 128, Validation;
}
limit! {
    /// Properties of any one object of a validated instance.
    pub const SCHEMA_MAX_PROPERTIES = "maxProperties", default 1_000, hard 100_000, Validation;
}
limit! {
    /// Length of any string of a validated instance, in UTF-16 code units (JavaScript's `length`).
    pub const SCHEMA_MAX_STRING_LENGTH = "maxStringLength", default 1_000_000, hard 8_388_608, Validation;
}
limit! {
    /// Items of any array of a validated instance.
    pub const SCHEMA_MAX_ARRAY_LENGTH = "maxArrayLength", default 10_000, hard 100_000, Validation;
}
limit! {
    /// Size of a schema as JSON text, in UTF-8 bytes.
    pub const SCHEMA_MAX_SCHEMA_BYTES = "maxSchemaBytes", default 262_144, hard 1_048_576, Validation;
}
limit! {
    /// Nesting depth of a schema (the root is depth 0).
    pub const SCHEMA_MAX_SCHEMA_DEPTH = "maxSchemaDepth", default 64, hard 128, Validation;
}
limit! {
    /// Object keys in a whole schema, counted as properties.
    pub const SCHEMA_MAX_SCHEMA_PROPERTIES = "maxSchemaProperties", default 10_000, hard 100_000, Validation;
}
limit! {
    /// `$ref` keywords in a whole schema.
    pub const SCHEMA_MAX_SCHEMA_REFS = "maxSchemaRefs", default 128, hard 1_024, Validation;
}
limit! {
    /// Object keys in a whole schema, counted as keywords.
    pub const SCHEMA_MAX_SCHEMA_KEYWORDS = "maxSchemaKeywords", default 10_000, hard 100_000, Validation;
}
limit! {
    /// Compiled schemas kept per validator (a least-recently-used cache).
    pub const SCHEMA_MAX_COMPILED_SCHEMAS = "maxCompiledSchemas", default 256, hard 1_024, Validation;
}
/// How many subschemas a schema may expand to once every `$ref` is replaced by its target
/// (cycles cut). Shared targets multiply: 40 definitions that each refer to the next twice
/// expand to 2^40, and validating one value against them never ends (in Ajv as well). Beyond
/// this a schema fails at compile (not an option: no honest schema comes near it).
pub const SCHEMA_MAX_EXPANSION: u64 = 100_000;

// --- MCP bridge (API.md section 8) ------------------------------------------------------------

limit! {
    /// How many `tools/list` pages one listing may fetch (a server that pages forever is cut off).
    pub const MCP_MAX_LIST_PAGES = "maxListPages", default 20, hard 100, Mcp;
}
limit! {
    /// How many tools one listing may hold in total.
    pub const MCP_MAX_TOOLS = "maxTools", default 500, hard 5_000, Mcp;
}
limit! {
    /// UTF-8 bytes of one pagination cursor.
    pub const MCP_MAX_CURSOR_BYTES = "maxCursorBytes", default 4 * 1024, hard 16 * 1024, Mcp;
}
limit! {
    /// UTF-8 bytes of one remote tool name.
    pub const MCP_MAX_TOOL_NAME_BYTES = "maxToolNameBytes", default 256, hard 1_024, Mcp;
}
limit! {
    /// UTF-8 bytes of one remote tool description (it ends up in the model's context).
    pub const MCP_MAX_TOOL_DESCRIPTION_BYTES = "maxToolDescriptionBytes", default 16 * 1024, hard 64 * 1024, Mcp;
}
limit! {
    /// JSON bytes of one tool's input plus output schema.
    pub const MCP_MAX_TOOL_SCHEMA_BYTES = "maxToolSchemaBytes", default 256 * 1024, hard 1024 * 1024, Mcp;
}
limit! {
    /// JSON bytes of every schema of one listing together.
    pub const MCP_MAX_TOTAL_TOOL_SCHEMA_BYTES = "maxTotalToolSchemaBytes", default 4 * 1024 * 1024, hard 16 * 1024 * 1024, Mcp;
}
limit! {
    /// Nesting depth of a schema or a call result (the root is depth 1).
    pub const MCP_MAX_JSON_DEPTH = "maxJsonDepth", default 64, hard 128, Mcp;
}
limit! {
    /// Array items plus object keys of a schema or a call result.
    pub const MCP_MAX_JSON_PROPERTIES = "maxJsonProperties", default 10_000, hard 100_000, Mcp;
}
limit! {
    /// JSON bytes of one whole `tools/call` result; also the budget of the mapped content.
    pub const MCP_MAX_RESULT_BYTES = "maxResultBytes", default 10_000_000, hard 16 * 1024 * 1024, Mcp;
}
limit! {
    /// Milliseconds one `tools/call` (and the connect handshake) may take.
    pub const MCP_CALL_TIMEOUT_MS = "callTimeoutMs", default 60_000, hard 30 * 60 * 1_000, Mcp;
}
limit! {
    /// Milliseconds a `tools/call` may take in all while the server reports progress: each
    /// `notifications/progress` for the call restarts its `callTimeoutMs` clock, up to this.
    pub const MCP_MAX_TOTAL_TIMEOUT_MS = "maxTotalTimeoutMs", default 10 * 60 * 1_000, hard 24 * 60 * 60 * 1_000, Mcp;
}
limit! {
    /// Milliseconds a listed catalogue is reused before `tools/list` runs again.
    pub const MCP_LIST_CACHE_TTL_MS = "listCacheTtlMs", default 30_000, hard 24 * 60 * 60 * 1_000, Mcp;
}
limit! {
    /// Bytes of one Streamable HTTP response body or SSE event.
    pub const MCP_MAX_RESPONSE_BYTES = "maxResponseBytes", default 16 * 1024 * 1024, hard 64 * 1024 * 1024, Mcp;
}
/// Bytes of one JSON-RPC message (one line) from a stdio server; a longer line fails the
/// request it answers at once (the same default as `maxResponseBytes` for HTTP).
pub const MCP_STDIO_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Nesting depth of one JSON-RPC message from a server, over stdio (a line) and Streamable
/// HTTP (a body or an SSE event) alike: a result or schema at the hard `maxJsonDepth` (128)
/// plus the message envelope. Deeper messages fail their request at once.
pub const MCP_MAX_MESSAGE_DEPTH: u32 = 129;
/// Bytes of an error message or an `isError` summary (further capped by `maxResultBytes`).
pub const MCP_ERROR_SUMMARY_BYTES: usize = 8 * 1024;
/// Entries of `allowedOrigins` for a Streamable HTTP server (1 to this many).
pub const MCP_MAX_ALLOWED_ORIGINS: usize = 64;
/// Bytes of a stdio server's stderr kept (with `stderr: "pipe"`) for connect error messages.
pub const MCP_STDERR_TAIL_BYTES: usize = 4 * 1024;
/// Bytes of the read buffer over a stdio server's stdout (the line framer reads through it).
pub const MCP_STDIO_READ_BUFFER_BYTES: usize = 64 * 1024;
/// Bytes of a stdio server's stderr read at a time (with `stderr: "pipe"`).
pub const MCP_STDERR_READ_CHUNK_BYTES: usize = 4 * 1024;
/// Milliseconds a stdio server gets to exit after its stdin closes, before SIGTERM to its
/// process group (measured: server-everything never exits on EOF, so waiting long only
/// slows `close()`).
pub const MCP_STDIO_EOF_GRACE_MS: u64 = 50;
/// Milliseconds `autoRefresh: true` waits after a `list_changed` notification before it
/// lists again (the facade's timer; `autoRefresh.debounceMs` overrides it).
pub const MCP_AUTO_REFRESH_DEBOUNCE_MS: u64 = 100;
limit! {
    /// Bytes of one capability message (a resources or prompts page, a resource read, a prompt,
    /// roots, a sampling or elicitation request or answer), as its JSON encoding.
    pub const MCP_MAX_CAPABILITY_BYTES = "maxCapabilityBytes", default 1024 * 1024, hard 8 * 1024 * 1024, Mcp;
}
/// Items of one resources or prompts listing (all pages together).
pub const MCP_MAX_CAPABILITY_ITEMS: u64 = 500;
/// Pages of one resources or prompts listing.
pub const MCP_MAX_CAPABILITY_PAGES: u64 = 20;
/// Depth of one capability message (root = 1).
pub const MCP_CAPABILITY_DEPTH: u64 = 64;
/// Array items plus object keys of one capability message.
pub const MCP_CAPABILITY_PROPERTIES: u64 = 10_000;
/// Roots one `roots/list` answer may hold.
pub const MCP_MAX_ROOTS: u64 = 500;
/// Longest `ui://` URI of an MCP App, in bytes.
pub const MCP_APP_MAX_UI_URI_BYTES: usize = 4 * 1024;
/// Longest CSP origin of an MCP App resource, in bytes.
pub const MCP_APP_MAX_CSP_ORIGIN_BYTES: usize = 512;
/// Most origins of one CSP list of an MCP App resource.
pub const MCP_APP_MAX_CSP_ORIGINS: usize = 32;
/// Longest `domain` of an MCP App resource, in bytes.
pub const MCP_APP_MAX_DOMAIN_BYTES: usize = 253;
/// Bytes of an elicitation's message as a pending decision's reason.
pub const MCP_ELICITATION_MESSAGE_BYTES: u64 = 2_048;
/// Bytes of an elicitation's requested schema as a pending decision's schema.
pub const MCP_ELICITATION_SCHEMA_BYTES: u64 = 16 * 1024;
/// The reference's caps for MCP capabilities beyond tools (resources, prompts) and for a
/// server's sessions: `[default, hard]` of a capability listing's bytes, items and pages and
/// of sessions, exported with the reference's names and numbers (the capability client
/// enforces the bytes as [`MCP_MAX_CAPABILITY_BYTES`] and the default items and pages).
pub const MCP_CAPABILITY_BYTES: [u64; 2] = [1024 * 1024, 8 * 1024 * 1024];
/// See [`MCP_CAPABILITY_BYTES`]: items of a capability listing.
pub const MCP_CAPABILITY_ITEMS: [u64; 2] = [500, 5_000];
/// See [`MCP_CAPABILITY_BYTES`]: pages of a capability listing.
pub const MCP_CAPABILITY_PAGES: [u64; 2] = [20, 100];
/// See [`MCP_CAPABILITY_BYTES`]: sessions of an MCP server.
pub const MCP_SESSIONS: [u64; 2] = [32, 512];
/// Milliseconds between SIGTERM and SIGKILL of a stdio server's process group.
pub const MCP_STDIO_TERM_GRACE_MS: u64 = 500;
/// Milliseconds an unpinned connect waits for the answer to its `server/discover` probe
/// before it also tries `initialize`: over HTTP on the same endpoint, over stdio on a fresh
/// process beside the first, whose late answer is still taken (a legacy server that ignores
/// unknown methods costs this once; one that answers with an error costs one round trip).
pub const MCP_DISCOVER_PROBE_MS: u64 = 2_000;
/// Times in a row a 2026-07-28 session reopens its `subscriptions/listen` stream after it
/// ended or failed while the session is open; after that, list changes are no longer heard
/// (the catalogue still refreshes after `listCacheTtlMs`).
pub const MCP_LISTEN_MAX_REOPENS: u32 = 5;
/// Milliseconds before the first reopen of a `subscriptions/listen` stream; each later one
/// waits twice as long.
pub const MCP_LISTEN_REOPEN_DELAY_MS: u64 = 500;
/// Milliseconds connect waits for the server to acknowledge the first `subscriptions/listen`
/// stream (2026-07-28) before it resolves without it (at most `callTimeoutMs`).
pub const MCP_LISTEN_ACK_WAIT_MS: u64 = 5_000;
/// Answers for requests the bridge never sent or already settled that a session ignores
/// before it fails its waiting requests, naming the flood (the count then starts again).
pub const MCP_MAX_STRAY_ANSWERS: u64 = 1_000;
/// Attempts to resume an answer's SSE stream that the server closed before the answer (failed
/// `GET`s and resumed streams that ended unanswered again), after which the request fails.
pub const MCP_SSE_MAX_RESUMES: u32 = 3;
/// Answer streams a session keeps waiting to be resumed at once (each is one request's).
pub const MCP_SSE_MAX_PENDING_RESUMES: usize = 256;
/// Milliseconds between two `tasks/get` polls of an MCP task when the server suggests no
/// `pollInterval` (the official SDK client's default).
pub const MCP_TASK_DEFAULT_POLL_MS: u64 = 1_000;
/// The shortest wait between two `tasks/get` polls, whatever `pollInterval` the server
/// suggests: with the call's deadlines it bounds how many polls one call makes.
pub const MCP_TASK_MIN_POLL_MS: u64 = 100;
/// The longest wait between two `tasks/get` polls, whatever `pollInterval` the server
/// suggests (a task that finished is noticed this soon at the latest).
pub const MCP_TASK_MAX_POLL_MS: u64 = 5_000;
/// Milliseconds a `tasks/cancel` the bridge sends (on an abort, a timeout or a task that needs
/// input) may wait for its answer; nothing waits for it, and its answer is ignored.
pub const MCP_TASK_CANCEL_TIMEOUT_MS: u64 = 2_000;
/// Addresses a host's `resolveHostname` may answer with for one host name (the reference's bound).
pub const MCP_MAX_RESOLVED_ADDRESSES: usize = 32;
/// Bytes of a task id a server may hand out (ids are echoed in every `tasks/*` request).
pub const MCP_MAX_TASK_ID_BYTES: usize = 256;

// --- MCP OAuth (`transport.auth`) ------------------------------------------------------------

limit! {
    /// Bytes of one OAuth discovery, registration or token response body.
    pub const MCP_OAUTH_DISCOVERY_BYTES = "discoveryBytes", default 64 * 1024, hard 256 * 1024, McpOAuth;
}
limit! {
    /// Discovery results an OAuth client keeps cached.
    pub const MCP_OAUTH_DISCOVERY_CACHE_ENTRIES = "discoveryCacheEntries", default 16, hard 64, McpOAuth;
}
limit! {
    /// Milliseconds a cached OAuth discovery result stays fresh.
    pub const MCP_OAUTH_DISCOVERY_CACHE_TTL_MS = "discoveryCacheTtlMs", default 600_000, hard 3_600_000, McpOAuth;
}
limit! {
    /// Bytes of one token or client registration record, as its JSON encoding.
    pub const MCP_OAUTH_TOKEN_RECORD_BYTES = "tokenRecordBytes", default 16 * 1024, hard 64 * 1024, McpOAuth;
}
limit! {
    /// Bytes of one persisted OAuth state value (PKCE verifier, discovery state).
    pub const MCP_OAUTH_STATE_BYTES = "stateBytes", default 4 * 1024, hard 16 * 1024, McpOAuth;
}
limit! {
    /// Milliseconds one OAuth discovery, registration or token request may take.
    pub const MCP_OAUTH_HANDSHAKE_TIMEOUT_MS = "handshakeTimeoutMs", default 60_000, hard 300_000, McpOAuth;
}
/// Bytes of a `WWW-Authenticate` header the OAuth client parses.
pub const MCP_OAUTH_CHALLENGE_BYTES: usize = 8 * 1024;
/// Bytes of the PEM private key a client-credentials client signs its assertions with.
pub const MCP_OAUTH_PRIVATE_KEY_BYTES: usize = 16 * 1024;

// --- Coding tools (API.md section 10) -----------------------------------------------------------

limit! {
    /// Lines of text one read page or one shell tail shows.
    pub const CODING_MAX_LINES = "maxLines", default 2_000, hard 100_000, Coding;
}
limit! {
    /// Bytes of text one read page or one shell tail shows.
    pub const CODING_MAX_BYTES = "maxBytes", default 51_200, hard 1_048_576, Coding;
}
limit! {
    /// Bytes a text read may scan to reach its page.
    pub const READ_MAX_SCAN_BYTES = "maxScanBytes", default 64 << 20, hard 1 << 30, Coding;
}
limit! {
    /// Bytes of one image a read returns.
    pub const READ_MAX_IMAGE_BYTES = "maxImageBytes", default 10_000_000, hard 32 << 20, Coding;
}
limit! {
    /// UTF-8 bytes of one write's content.
    pub const WRITE_MAX_INPUT_BYTES = "maxInputBytes", default 8 << 20, hard 64 << 20, Coding;
}
limit! {
    /// Size of a file an edit may open.
    pub const EDIT_MAX_FILE_BYTES = "maxFileBytes", default 8 << 20, hard 64 << 20, Coding;
}
limit! {
    /// UTF-8 bytes of one edit's replacements together.
    pub const EDIT_MAX_INPUT_BYTES = "maxInputBytes", default 2 << 20, hard 16 << 20, Coding;
}
limit! {
    /// Replacements in one edit call.
    pub const EDIT_MAX_EDITS = "maxEdits", default 100, hard 1_000, Coding;
}
limit! {
    /// Seconds a shell command may run.
    pub const SHELL_TIMEOUT_SECS = "timeout", default 600, hard 3_600, Coding;
}
limit! {
    /// Bytes of output a shell command may produce before it is killed; at least `maxBytes`.
    pub const SHELL_MAX_TOTAL_OUTPUT_BYTES = "maxTotalOutputBytes", default 64 << 20, hard 1 << 30, Coding;
}
/// The coding tools' limits by the facade's key (the option name repeats across tools: read's
/// and shell's `maxLines`, write's and edit's `maxInputBytes`).
pub const CODING_LIMITS: [(&str, Limit); 10] = [
    ("maxLines", CODING_MAX_LINES),
    ("maxBytes", CODING_MAX_BYTES),
    ("readMaxScanBytes", READ_MAX_SCAN_BYTES),
    ("maxImageBytes", READ_MAX_IMAGE_BYTES),
    ("writeMaxInputBytes", WRITE_MAX_INPUT_BYTES),
    ("editMaxFileBytes", EDIT_MAX_FILE_BYTES),
    ("editMaxInputBytes", EDIT_MAX_INPUT_BYTES),
    ("maxEdits", EDIT_MAX_EDITS),
    ("shellTimeout", SHELL_TIMEOUT_SECS),
    ("shellMaxTotalOutputBytes", SHELL_MAX_TOTAL_OUTPUT_BYTES),
];
/// Lines shown under `Nearby:` in an edit's not-found message.
pub const NEARBY_MAX_LINES: usize = 3;
/// Characters of `oldText`'s first non-blank line (trimmed) looked for in the file.
pub const NEARBY_PROBE_CHARS: usize = 16;
/// A shorter probe matches too much to help: no `Nearby:` then.
pub const NEARBY_MIN_PROBE_CHARS: usize = 4;
/// Characters of each line shown under `Nearby:`.
pub const NEARBY_LINE_CHARS: usize = 120;
/// Pages of a host `ReadOperations` backend that `findText` asks for before it gives up.
pub const FIND_TEXT_MAX_PAGES: u64 = 100_000;
/// Bytes of a file the image sniffer looks at (the magic-byte window).
pub const IMAGE_SNIFF_BYTES: usize = 4_100;
/// Chunk size of streamed reads (text pages and shell pipes).
pub const STREAM_CHUNK_BYTES: usize = 64 * 1024;
/// How long shell output must stay idle after the command exits before reading stops.
pub const SHELL_STDIO_IDLE_GRACE: std::time::Duration = std::time::Duration::from_millis(100);
/// Chunks of a sandboxed command's output waiting for the host's `onData` at most (each up to
/// [`STREAM_CHUNK_BYTES`], so 1 MiB): past it, reading the pipe waits for the host, and the
/// command's writes block instead of the output piling up in memory.
pub const SANDBOX_STREAM_QUEUE_CHUNKS: usize = 16;

// --- Coding security (API.md section 9) ---------------------------------------------------------

/// The shell analysis's caps (command length, nesting, parts, parse and output bytes, brace
/// expansion, the fast path, glob steps, the numeric layout), defined once in the analysis
/// crate's own `limits.rs` beside the code they bound, and read from here like every other
/// limit of the engine.
pub use prism_command_analysis::limits::*;

/// How long `createCodingApprovalPolicy` waits for the host's `approve` callback, in
/// milliseconds (`approvalTimeoutMs`; a value `<= 0` waits without a timeout). Default 30,000.
pub const POLICY_APPROVAL_TIMEOUT_MS_DEFAULT: u64 = 30_000;

/// Entries in one approval policy's decision cache; the oldest insertion is evicted first.
/// Fixed at 1,000, as in the reference.
pub const POLICY_APPROVAL_CACHE_ENTRIES: usize = 1_000;

/// Symbolic links followed while finding where a missing path would land (the realpath
/// containment of the approval policy); past it the path resolves to nothing and counts as
/// outside every root. Linux's own limit for one lookup.
pub const POLICY_MAX_SYMLINKS: usize = 40;

/// The most tool calls one provider turn may hold: an op of the turn's program names a call's
/// index in 28 bits. Past it the turn is refused (`ERR_PRISM_TURN_TOO_LARGE`). Fixed at 2^28.
pub const MAX_TURN_CALLS: usize = 1 << 28;

/// Words of the buffer a Node driver lends its turn scheduler: the most ops of the turn's
/// program one crossing carries (a longer turn takes more crossings). Fixed at 1 Ki.
pub const TURN_IO_WORDS: u32 = 1024;

/// Turn programs a Node driver keeps, by turn shape (`toolConcurrency`, calls, whether any call
/// is exclusive), so that a turn of a shape seen before starts without crossing to the engine.
/// Only programs that fit in one buffer ([`TURN_IO_WORDS`]) are kept; the oldest shape is
/// dropped first. Fixed at 32.
pub const TURN_PROGRAM_CACHE_ENTRIES: u32 = 32;

/// How many raw schema errors the validator looks at before sorting and reporting them (a
/// hostile instance can have thousands). Fixed at 256.
pub const VALIDATION_MAX_RAW_ERRORS: usize = 256;

/// Nesting past which JSON text is never put in key order for a report: deeper than every hard
/// depth cap (128) allows. Fixed at 130.
pub const VALIDATION_ORDERED_MAX_NESTING: usize = 130;

/// Bytes of a top-level key or `id` token the MCP stdio framer keeps while it scans (longer
/// ones are not `"id"`/`"method"`, or not an id it can use). Fixed at 64.
pub const MCP_FRAME_TOKEN_BYTES: usize = 64;

/// Bytes of a server-supplied text (an HTTP status reason, a content type, a parser message)
/// kept in an MCP error message. Fixed at 200.
pub const MCP_ERROR_DETAIL_BYTES: usize = 200;

/// Milliseconds an MCP `close()` waits for the client service (and an HTTP session delete) to
/// end. Fixed at 1,000.
pub const MCP_CLOSE_TIMEOUT_MS: u64 = 1_000;

/// Milliseconds a failed stdio connect waits for the server's stderr to drain into the error.
/// Fixed at 200.
pub const MCP_STDERR_DRAIN_MS: u64 = 200;

/// Depth to which a validator's verdict object is copied with redaction; deeper values are
/// replaced by the redaction marker (fail closed). Fixed at 64.
pub const DISPATCH_VERDICT_REDACT_DEPTH: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limit = Limit {
        name: "maxThings",
        default: 8,
        hard: 64,
        dialect: LimitDialect::Validation,
        doc: "Things.",
    };

    #[test]
    fn each_dialect_has_its_wording_and_code() {
        let err = |dialect| LimitError {
            name: "maxTools",
            hard: 5_000,
            dialect,
        };
        let v = err(LimitDialect::Validation);
        let m = err(LimitDialect::Mcp);
        let c = err(LimitDialect::Coding);
        assert_eq!(
            v.to_string(),
            "maxTools must be a positive safe integer no greater than 5000"
        );
        assert_eq!(
            m.to_string(),
            "maxTools must be a positive safe integer <= 5000"
        );
        assert_eq!(
            c.to_string(),
            "maxTools must be a positive safe integer at most 5000"
        );
        assert_eq!(v.code(), "ERR_PRISM_VALIDATION_INVALID_LIMIT");
        assert_eq!(m.code(), "ERR_PRISM_MCP_INVALID_LIMIT");
        assert_eq!(c.code(), "ERR_PRISM_CODING_INVALID_LIMIT");
        assert_eq!(LimitDialect::from_name("mcp"), Some(LimitDialect::Mcp));
        assert_eq!(LimitDialect::from_name("other"), None);
    }

    #[test]
    fn resolves_default_and_edges() {
        assert_eq!(L.resolve(None), Ok(8));
        assert_eq!(L.resolve(Some(1.0)), Ok(1));
        assert_eq!(L.resolve(Some(64.0)), Ok(64));
    }

    #[test]
    fn rejects_out_of_range_and_non_integers() {
        for bad in [
            0.0,
            -1.0,
            65.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            MAX_SAFE_INTEGER + 2.0,
        ] {
            let err = L.resolve(Some(bad)).err();
            assert_eq!(
                err.map(|e| e.to_string()),
                Some("maxThings must be a positive safe integer no greater than 64".to_owned()),
                "{bad}"
            );
        }
    }
}
