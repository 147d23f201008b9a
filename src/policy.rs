//! Node-API glue for the engine's `policy` module.
//!
//! One call per policy check: the command line goes in as a string, the analysis (every simple
//! command, redirections, flags) comes back as one JSON string that the facade parses. A
//! typical command takes microseconds, so it runs on the calling thread; `policy.check` sends
//! commands longer than `POLICY_ANALYSIS_ASYNC_BYTES` to the blocking pool instead, so a long
//! hostile command never holds the JavaScript thread.

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

/// The verdict of the command rules (see `prism_engine::policy::verdict`).
#[napi(object)]
pub struct NativeCommandVerdict {
    /// `allow`, `requireApproval` or `deny`.
    pub action: String,
    /// The index of the part whose host rule decided; its rule's reason is the verdict's.
    pub part: Option<u32>,
    /// The engine's reason, when no host rule decided (none for a plain allow).
    pub reason: Option<String>,
    /// Whether host allow rules alone cover the command.
    pub covered_by_allow_rules: bool,
}

/// What the verdict reads from the analysis besides the per-part matches.
#[napi(object)]
pub struct NativeVerdictFacts {
    /// The analysis's `refused`.
    pub refused: Option<String>,
    /// Whether the analysis's own `deny` is set.
    pub deny: bool,
    /// The analysis's `unsupported`.
    pub unsupported: Option<String>,
    /// Whether the analysis has redirects to files.
    pub file_redirects: bool,
    /// The analysis's `metacharacters`.
    pub metacharacters: bool,
    /// The host's `denyMetacharacters` (false only when the host set it to false).
    pub deny_metacharacters: bool,
}

/// The verdict on an analysed command whose parts matched as `parts` (each a rule's action,
/// `unmatched` or `defaultDeny`, in the analysis's order).
#[napi]
pub fn command_verdict(
    parts: Vec<String>,
    facts: NativeVerdictFacts,
) -> napi::Result<NativeCommandVerdict> {
    use prism_engine::policy::verdict::{judge, Facts, PartMatch, Reason};
    let parts = parts
        .iter()
        .map(|name| {
            PartMatch::from_name(name).ok_or_else(|| {
                napi::Error::new(napi::Status::InvalidArg, format!("no part match {name:?}"))
            })
        })
        .collect::<napi::Result<Vec<_>>>()?;
    let v = judge(
        &parts,
        &Facts {
            refused: facts.refused.as_deref(),
            deny: facts.deny,
            unsupported: facts.unsupported.as_deref(),
            file_redirects: facts.file_redirects,
            metacharacters: facts.metacharacters,
            deny_metacharacters: facts.deny_metacharacters,
        },
    );
    let (part, reason) = match v.reason {
        Reason::Rule { part } => (Some(u32::try_from(part).unwrap_or(u32::MAX)), None),
        Reason::Text(text) => (None, Some(text)),
        Reason::None => (None, None),
    };
    Ok(NativeCommandVerdict {
        action: v.action.as_str().to_owned(),
        part,
        reason,
        covered_by_allow_rules: v.covered_by_allow_rules,
    })
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
