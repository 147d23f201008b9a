//! Node-API glue for the engine's `policy` module.
//!
//! One call per policy check: the command line goes in as a string, the analysis (every simple
//! command, redirections, flags) comes back as one JSON string that the facade parses. A
//! typical command takes microseconds, so it runs on the calling thread; `policy.check` sends
//! commands longer than `POLICY_ANALYSIS_ASYNC_BYTES` to the blocking pool instead, so a long
//! hostile command never holds the JavaScript thread.

use std::collections::HashMap;

use napi_derive::napi;

use crate::errors::{spawn_coded, to_js, NativeError};

/// The shell analysis of `command` as JSON: `{parts: [{text, argv, name, derived?, deny?}],
/// redirects?: [{op, target, write}], metacharacters, unsupported?, deny?, refused?}` (a
/// false `derived` and an empty `redirects` are left out).
#[napi]
pub fn analyze_shell_command(command: String) -> String {
    prism_engine::policy::analyze_json(&command)
}

/// [`analyze_shell_command`] on the blocking pool (for long commands).
#[napi(ts_return_type = "Promise<string>")]
pub fn analyze_shell_command_async(
    env: &napi::Env,
    command: String,
) -> napi::Result<napi::bindgen_prelude::PromiseRaw<'_, String>> {
    spawn_coded(env, async move {
        tokio::task::spawn_blocking(move || prism_engine::policy::analyze_json(&command))
            .await
            .map_err(|e| NativeError::internal(format!("shell analysis failed: {e}")))
    })
}

/// The words of the compact `commandVerdict` crossing (read once at load).
#[napi(object)]
pub struct NativeVerdictWords {
    /// The one-character code of each part match, by name (`unmatched`, `allow`,
    /// `requireApproval`, `deny`, `defaultDeny`).
    pub part_codes: HashMap<String, String>,
    /// The bit of each fact in `commandVerdict`'s `flags`, by name (`refused`, `deny`,
    /// `unsupported`, `fileRedirects`, `metacharacters`, `denyMetacharacters`).
    pub flags: HashMap<String, u32>,
    /// The actions by code.
    pub actions: Vec<String>,
    /// The reason kinds by code: `rule`, `defaultDeny`, `refused`, `unanalyzed`,
    /// `metacharacters`, `redirect`, `none`.
    pub reasons: Vec<String>,
    /// The engine's fixed text of each reason code (empty where the text is the host rule's or
    /// the analysis's own; for `unanalyzed`, the start the analysis's `unsupported` follows).
    pub reason_texts: Vec<String>,
}

const FLAG_NAMES: [&str; 6] = [
    "refused",
    "deny",
    "unsupported",
    "fileRedirects",
    "metacharacters",
    "denyMetacharacters",
];

/// The words of the `commandVerdict` crossing.
#[napi]
pub fn command_verdict_words() -> NativeVerdictWords {
    use prism_engine::policy::verdict::{Action, PartMatch, Reason};
    let name = |m: PartMatch| match m {
        PartMatch::Unmatched => "unmatched",
        PartMatch::DefaultDeny => "defaultDeny",
        PartMatch::Rule(a) => a.as_str(),
    };
    let reason_name = |r: Reason| match r {
        Reason::Rule { .. } => "rule",
        Reason::DefaultDeny => "defaultDeny",
        Reason::Refused => "refused",
        Reason::Unanalyzed => "unanalyzed",
        Reason::Metacharacters => "metacharacters",
        Reason::Redirect => "redirect",
        Reason::None => "none",
    };
    let all_reasons: Vec<Reason> = std::iter::once(Reason::Rule { part: 0 })
        .chain(Reason::FIXED)
        .collect();
    NativeVerdictWords {
        part_codes: PartMatch::CODES
            .iter()
            .map(|(m, c)| (name(*m).to_owned(), c.to_string()))
            .collect(),
        flags: FLAG_NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_owned(), 1 << i))
            .collect(),
        actions: [Action::Allow, Action::RequireApproval, Action::Deny]
            .iter()
            .map(|a| a.as_str().to_owned())
            .collect(),
        reasons: all_reasons
            .iter()
            .map(|r| reason_name(*r).to_owned())
            .collect(),
        reason_texts: all_reasons
            .iter()
            .map(|r| r.fixed_text().unwrap_or_default().to_owned())
            .collect(),
    }
}

/// The verdict on an analysed command, in one cheap crossing: `parts` holds one code per
/// simple command (`commandVerdictWords().partCodes`), `flags` the analysis's facts
/// (`commandVerdictWords().flags`). Returns `action | reason << 2 | covered << 5 | part << 8`:
/// the action and reason codes index `actions` and `reasons`, `covered` is 1 when host allow
/// rules alone cover the command, and `part` is the index of the part whose host rule decided.
#[napi]
pub fn command_verdict(parts: String, flags: u32) -> napi::Result<u32> {
    use prism_engine::policy::verdict::{judge, Action, Facts, PartMatch, Reason};
    let parts = parts
        .chars()
        .map(|c| {
            PartMatch::from_code(c).ok_or_else(|| {
                napi::Error::new(
                    napi::Status::InvalidArg,
                    format!("no part match code {c:?}"),
                )
            })
        })
        .collect::<napi::Result<Vec<_>>>()?;
    let bit = |name: &str| {
        FLAG_NAMES
            .iter()
            .position(|n| *n == name)
            .is_some_and(|i| flags & (1 << i) != 0)
    };
    let v = judge(
        &parts,
        &Facts {
            refused: bit("refused"),
            deny: bit("deny"),
            unsupported: bit("unsupported"),
            file_redirects: bit("fileRedirects"),
            metacharacters: bit("metacharacters"),
            deny_metacharacters: bit("denyMetacharacters"),
        },
    );
    let action = match v.action {
        Action::Allow => 0,
        Action::RequireApproval => 1,
        Action::Deny => 2,
    };
    let part = match v.reason {
        Reason::Rule { part } => u32::try_from(part).unwrap_or(0).min(0x00ff_ffff),
        _ => 0,
    };
    Ok(action | v.reason.code() << 2 | u32::from(v.covered_by_allow_rules) << 5 | part << 8)
}

/// Whether `target` is `root` or beneath it; both absolute and lexically normalised (the facade
/// passes them through `path.resolve`).
#[napi]
pub fn is_path_inside(root: String, target: String) -> bool {
    prism_engine::policy::containment::is_inside(
        std::path::Path::new(&root),
        std::path::Path::new(&target),
    )
}

/// The real root that holds a path, and where the path really is.
#[napi(object)]
pub struct NativeContainment {
    /// The root, resolved with `realpath`.
    pub root: String,
    /// Where the path really is.
    pub target: String,
}

/// The real root among `roots` that holds where `target` (absolute, normalised) really is, on
/// the blocking pool; `null` when none does or the path does not resolve.
#[napi(ts_return_type = "Promise<NativeContainment | null>")]
pub fn containing_root(
    env: &napi::Env,
    roots: Vec<String>,
    target: String,
) -> napi::Result<napi::bindgen_prelude::PromiseRaw<'_, Option<NativeContainment>>> {
    spawn_coded(env, async move {
        tokio::task::spawn_blocking(move || {
            prism_engine::policy::containment::containing_root(
                &roots,
                std::path::Path::new(&target),
            )
            .map(|(root, target)| NativeContainment {
                root: root.to_string_lossy().into_owned(),
                target: target.to_string_lossy().into_owned(),
            })
        })
        .await
        .map_err(|e| NativeError::internal(format!("path containment failed: {e}")))
    })
}

/// The kernel's Landlock ABI version (0 without Landlock), from the version query.
#[napi]
pub fn landlock_abi_version() -> i32 {
    prism_engine::policy::landlock::abi_version()
}

/// Restricts the calling thread and the processes it starts afterwards with Landlock: writes
/// only beneath `writable`, TCP denied unless `allow_network`. Returns the guarantees as JSON.
/// Meant for the sandbox helper process only: it cannot be undone.
#[napi]
pub fn landlock_restrict_self(
    env: napi::Env,
    writable: Vec<String>,
    allow_network: bool,
) -> napi::Result<String> {
    let paths: Vec<&std::path::Path> = writable.iter().map(std::path::Path::new).collect();
    match prism_engine::policy::landlock::restrict_self(&paths, allow_network) {
        Ok(g) => serde_json::to_string(&g).map_err(|e| napi::Error::from_reason(e.to_string())),
        Err(e) => Err(to_js(&env, e)),
    }
}

/// Replaces this (sandbox helper) process with `shell -c command` under Landlock, killed when
/// its parent dies. Returns only with the error that prevented it.
#[napi]
pub fn landlock_exec(
    env: napi::Env,
    writable: Vec<String>,
    allow_network: bool,
    shell: String,
    command: String,
) -> napi::Result<()> {
    let paths: Vec<&std::path::Path> = writable.iter().map(std::path::Path::new).collect();
    let e =
        prism_engine::policy::landlock::exec_restricted(&paths, allow_network, &shell, &command);
    Err(to_js(&env, e))
}

/// The approval policy's fixed numbers, from the engine's limits: `[approvalTimeoutMs default,
/// approval cache entries, command length analysed off the JS thread]`.
#[napi]
pub fn policy_approval_limits() -> Vec<u32> {
    use prism_engine::limits::{
        POLICY_ANALYSIS_ASYNC_BYTES, POLICY_APPROVAL_CACHE_ENTRIES,
        POLICY_APPROVAL_TIMEOUT_MS_DEFAULT,
    };
    vec![
        u32::try_from(POLICY_APPROVAL_TIMEOUT_MS_DEFAULT).unwrap_or(u32::MAX),
        u32::try_from(POLICY_APPROVAL_CACHE_ENTRIES).unwrap_or(u32::MAX),
        u32::try_from(POLICY_ANALYSIS_ASYNC_BYTES).unwrap_or(u32::MAX),
    ]
}
