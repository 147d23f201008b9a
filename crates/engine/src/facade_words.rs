//! The words of the refusals a host language's facade makes about its own values: option
//! objects, callbacks, host clients and provider turns that the engine never receives. The
//! facade checks what only it can see (a JavaScript value's type, a getter that throws) and
//! raises these messages, so every message of the package is written once, here or beside the
//! engine rule it words.
//!
//! A template names its values in braces (`{name}`); [`fill`] puts them in. A choice option's
//! message is built from its values ([`Choice::message`]).

/// Every template, by key. Keys are the facade's names for the refusal (`lowerCamelCase`).
pub const WORDS: &[(&str, &str)] = &[
    // --- dispatch and the turn scheduler --------------------------------------------------
    ("dispatchNeedsOptions", "dispatchToolCall needs an options object"),
    ("dispatchOptionsUnreadable", "dispatchToolCall: options could not be read"),
    ("dispatchCall", "dispatchToolCall: options.call must be a tool call object"),
    ("dispatchSecrets", "dispatchToolCall: options.secrets must be an array of strings"),
    ("dispatchRegistry", "dispatchToolCall: options.registry must be a ToolRegistry"),
    ("dispatchContext", "dispatchToolCall: options.context must be an object"),
    ("dispatchContextUnreadable", "dispatchToolCall: options.context could not be read"),
    ("dispatchFilterUnreadable", "dispatchToolCall: options.filter could not be read"),
    ("inOrderCalls", "dispatchToolCallsInOrder: calls must be an array of tool calls"),
    (
        "providerTurn",
        "LoopContext.generate must resolve to a provider turn { content, calls, started }",
    ),
    ("providerTurnCalls", "provider turn \"calls\" must be an array of tool_call blocks"),
    (
        "providerTurnContent",
        "provider turn \"content\" must be an array when \"started\" is true",
    ),
    ("middlewareFunction", "middleware must be a function"),
    ("middlewareCall", "tool_call middleware must return a tool call object"),
    // --- conformance helpers ----------------------------------------------------------------
    (
        "conformanceNoBlockedEvent",
        "Expected tool_execution_blocked for \"{reason}\", but no blocked event was emitted",
    ),
    (
        "conformanceReasonMismatch",
        "Blocked reason mismatch: expected {expected}, got {actual}",
    ),
    (
        "conformanceBlockedWithoutError",
        "Blocked call for \"{reason}\" carried no error in the result",
    ),
    (
        "conformanceStartedWhileBlocked",
        "Tool emitted tool_execution_started despite being blocked with \"{reason}\"",
    ),
    ("conformanceNotExecuted", "Valid tool call was not executed: {message}"),
    ("conformanceNotStarted", "Valid tool call did not emit tool_execution_started"),
    ("conformanceBlocked", "Valid tool call was blocked"),
    // --- coding tools -------------------------------------------------------------------------
    (
        "documentReaderShape",
        "documentReader must be an object with an extract() method",
    ),
    (
        "documentReaderTooMuchText",
        "The document reader returned more text than its maxTextBytes allows",
    ),
    ("readPageInvalid", "ReadOperations.readText returned an invalid page"),
    ("readImageText", "Read image file [{mimeType}]"),
    ("invalidContext", "Invalid execution context: {message}"),
    (
        "readBeforeWrite",
        "Refusing {tool} to {path}: not read in this session. Read first or pass force=true.",
    ),
    ("toolCwd", "{factory}: cwd must be a string (got {type})"),
    (
        "autoResizeImagesRemoved",
        "Read tool: \"autoResizeImages\" was removed in 0.1.5; use \"transformImage\" instead.",
    ),
    // --- command rules, approval and sandboxes ----------------------------------------------
    ("commandRulesArray", "commandRules must be an array"),
    (
        "commandRuleShape",
        "each command rule needs a string or RegExp pattern and an action of allow, deny or requireApproval",
    ),
    (
        "approvalOptions",
        "createCodingApprovalPolicy options must be an object",
    ),
    ("approvalRoots", "roots must be an array of path strings"),
    ("approvalApprove", "approve must be a function"),
    ("approvalTimeoutMs", "approvalTimeoutMs must be a number"),
    (
        "sandboxAdapter",
        "createSandboxBashOperations needs an adapter with an exec function",
    ),
    (
        "sandboxRoots",
        "{factory} needs roots: a non-empty array of path strings",
    ),
    ("sandboxPath", "{factory}: {key} must be a non-empty path string"),
    ("sandboxUnavailable", "{backend} sandbox unavailable: {detail}"),
    ("sandboxExitCode", "exit code {code}"),
    // --- MCP bridge ---------------------------------------------------------------------------
    ("mcpOptions", "options must be an object"),
    (
        "mcpMapOptions",
        "mapMcpContentToBlocks: options must be an object with maxResultBytes (got {type})",
    ),
    (
        "mcpMapMaxResultBytes",
        "mapMcpContentToBlocks: options.maxResultBytes is required (a positive safe integer <= {hard})",
    ),
    ("mcpTransport", "transport must be an object"),
    (
        "mcpHostClient",
        "client must be an MCP client with a request() method",
    ),
    ("mcpAppsNotNegotiated", crate::mcp::apps::NOT_NEGOTIATED),
    (
        "mcpUnsupportedCapability",
        crate::mcp::capability::UNSUPPORTED_TEMPLATE,
    ),
    (
        "mcpSdkMissing",
        "createMcpCapabilityClient returns the MCP SDK's Client: install @modelcontextprotocol/sdk",
    ),
    (
        "mcpSdkTransportMissing",
        "createMcpTransport returns the MCP SDK's transports: install @modelcontextprotocol/sdk",
    ),
    (
        "mcpOAuthTransportAuth",
        "createMcpOAuthTransport requires an auth option",
    ),
    (
        "mcpOAuthFetchNative",
        "createMcpOAuthFetch returns a stand-in: prism-native makes every OAuth request in the engine (pass it only as createMcpClientAuth's context.fetch)",
    ),
    (
        "mcpResumeUnsupported",
        "resuming an MCP session (transport.sessionId) is not supported by prism-native",
    ),
    (
        "mcpNameCollision",
        "MCP tool name collision: {prefixedName} (remote tool {remoteName})",
    ),
    ("mcpEffectDeclaration", "MCP tool {name} has an invalid effect declaration"),
    ("mcpEffectFunction", "effect must be a function"),
    (
        "mcpDebounce",
        "autoRefresh.debounceMs must be a non-negative safe integer",
    ),
];

/// The template of `key`, if there is one.
#[must_use]
pub fn template(key: &str) -> Option<&'static str> {
    WORDS.iter().find(|(k, _)| *k == key).map(|(_, t)| *t)
}

/// `template` with each `{name}` replaced by its value in `values` (a name without a value
/// stays as written).
#[must_use]
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match values.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The values of a tool `effect` declaration (API.md's `ToolEffect`): `kind`, then
/// `idempotency`, by vocabulary name.
pub const VOCABULARIES: &[(&str, &[&str])] = &[
    (
        "effectKinds",
        &["none", "local_mutation", "external_mutation"],
    ),
    (
        "effectIdempotency",
        &[
            "none",
            "optional",
            "required",
            "tool_managed",
            "unsupported",
        ],
    ),
];

/// An option that takes one of a few strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The option's name.
    pub option: &'static str,
    /// Its values; the first is the default.
    pub values: &'static [&'static str],
}

impl Choice {
    /// Its refusal: see [`choice_message`].
    #[must_use]
    pub fn message(&self) -> String {
        choice_message(self.option, self.values)
    }
}

/// `<option> must be "a" or "b"` (`"a", "b" or "c"` for three): the refusal of a value that is
/// none of `values`.
#[must_use]
pub fn choice_message(option: &str, values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    let list = match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    };
    format!("{option} must be {list}")
}

/// The choice options the facade reads (`approvalCacheScope` is the approval machine's: its
/// values are the cache scopes).
pub const CHOICES: &[Choice] = &[
    Choice {
        option: "duplicate",
        values: &["replace", "error"],
    },
    Choice {
        option: "errorPolicy",
        values: &["event", "throw"],
    },
    Choice {
        option: "missingSchema",
        values: &["allow", "reject"],
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_are_unique_and_templates_are_well_formed() {
        let mut keys = HashSet::new();
        for (key, template) in WORDS {
            assert!(keys.insert(*key), "{key} twice");
            assert_eq!(
                template.matches('{').count(),
                template.matches('}').count(),
                "{key}"
            );
        }
        let mut options = HashSet::new();
        for c in CHOICES {
            assert!(options.insert(c.option));
            assert!(!keys.contains(c.option));
        }
    }

    #[test]
    fn fill_puts_values_in_and_leaves_unknown_names() {
        assert_eq!(
            fill(
                "{factory}: {key} must be",
                &[("factory", "f"), ("key", "k")]
            ),
            "f: k must be"
        );
        assert_eq!(fill("a {x} b", &[]), "a {x} b");
        assert_eq!(fill("open { only", &[]), "open { only");
        assert_eq!(fill("{x}", &[("x", "{x}")]), "{x}");
        let t = template("providerTurn").unwrap_or_default();
        assert_eq!(fill(t, &[]), t, "a brace that names no value stays");
    }

    #[test]
    fn choice_messages_list_their_values() {
        assert_eq!(
            CHOICES[0].message(),
            "duplicate must be \"replace\" or \"error\""
        );
        assert_eq!(
            choice_message("scope", &["session", "run", "none"]),
            "scope must be \"session\", \"run\" or \"none\""
        );
        assert_eq!(choice_message("one", &["a"]), "one must be \"a\"");
    }
}
