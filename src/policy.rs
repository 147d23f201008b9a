//! Node-API glue for the engine's `policy` module.
//!
//! The shell analysis crosses as numbers in the facade's buffer, its strings spans of the
//! command or of one short string of extras (JSON when it does not fit).
//!
//! `NativeApprovalPolicy` checks an action in one call (`prism_engine::policy::decide`) off
//! the JS thread (`off_thread.rs`); the steps only the facade performs (`lookUp`, `answer`) take the
//! approval machine's state as a number and return the next one.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::off_thread::{off_thread, OffThread};
use napi::bindgen_prelude::{AsyncTask, Uint32ArraySlice, Uint8Array, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;
use prism_engine::policy::approval::{
    ApprovalCache, ApprovalError, CacheMaterial, CacheScope, Check, Denial, Policy, Step, Tail,
    ALLOW_EXCLUSIVE, ALLOW_WRITE_BENEATH,
};

use crate::errors::{facade_bug, to_js};
use crate::policy_check::{state_number, Decider, NativeDecision, NativePolicyCheck};
use crate::policy_rules::NativeCommandRules;

/// The shell analysis of `command` as JSON: `{parts: [{text, argv, name, derived?, deny?}],
/// redirects?: [{op, target, write}], metacharacters, unsupported?, deny?, refused?}` (a
/// false `derived` and an empty `redirects` are left out).
#[napi]
pub fn analyze_shell_command(command: String) -> String {
    prism_engine::policy::analyze_json(&command)
}

/// The shell analysis of `command` written into `layout` as numbers, its strings as spans of
/// `command` or of the returned extras (`prism_engine::policy::layout`); when it does not fit,
/// `layout[0]` is 0 and the return value is [`analyze_shell_command`]'s JSON instead.
#[napi]
pub fn analyze_shell_command_into(command: String, mut layout: Uint32ArraySlice) -> String {
    // SAFETY: the call is synchronous on the JavaScript thread, so no script runs (and none can
    // touch the buffer) while the engine writes it; the slice does not outlive the call.
    let words = unsafe { layout.as_mut() };
    prism_engine::policy::analyze_into(&command, words)
}

/// The numbers of the `analyzeShellCommandInto` layout (read once at load).
#[napi(object)]
pub struct NativeAnalysisLayoutWords {
    /// The bit of a string's start that makes it an offset into the extras.
    pub extra: u32,
    /// The string start of a missing string.
    pub null: u32,
    /// Words of the buffer to lend `analyzeShellCommandInto` (larger analyses come back as JSON).
    pub buffer_words: u32,
    /// The analysis flag bits, by name (`metacharacters`, `unsupported`, `deny`, `refused`).
    pub flags: HashMap<String, u32>,
    /// The part flag bits, by name (`derived`, `deny`, `nameIsProgram`, `open`, `denyOpen`).
    pub part_flags: HashMap<String, u32>,
    /// Where the header's words are, by name (`length`, `flags`, `parts`, `body`).
    pub header: HashMap<String, u32>,
    /// An open word's number: the index shifted left by this ...
    pub open_index_shift: u32,
    /// ... with this bit set when any value may stand there.
    pub open_any: u32,
    /// The option effects' names by code (`writes`, `code`, `destroys`, `privilege`).
    pub effects: Vec<String>,
}

/// The numbers of the `analyzeShellCommandInto` layout.
#[napi]
pub fn analysis_layout_words() -> NativeAnalysisLayoutWords {
    use prism_engine::policy::layout as l;
    let named = |pairs: &[(&str, u32)]| {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), *v))
            .collect::<HashMap<_, _>>()
    };
    NativeAnalysisLayoutWords {
        extra: l::EXTRA,
        null: l::NULL,
        buffer_words: prism_engine::limits::POLICY_ANALYSIS_LAYOUT_WORDS,
        flags: named(&[
            ("metacharacters", l::FLAG_METACHARACTERS),
            ("unsupported", l::FLAG_UNSUPPORTED),
            ("deny", l::FLAG_DENY),
            ("refused", l::FLAG_REFUSED),
        ]),
        part_flags: named(&[
            ("derived", l::PART_DERIVED),
            ("deny", l::PART_DENY),
            ("nameIsProgram", l::PART_NAME_IS_PROGRAM),
            ("open", l::PART_OPEN),
            ("denyOpen", l::PART_DENY_OPEN),
            ("effect", l::PART_EFFECT),
        ]),
        effects: prism_engine::policy::effects::Effect::ALL
            .iter()
            .map(|e| e.as_str().to_owned())
            .collect(),
        header: [
            ("length", l::AT_LENGTH),
            ("flags", l::AT_FLAGS),
            ("parts", l::AT_PARTS),
            ("body", l::AT_BODY),
        ]
        .iter()
        .map(|(n, at)| ((*n).to_owned(), u32::try_from(*at).unwrap_or(u32::MAX)))
        .collect(),
        open_index_shift: l::OPEN_INDEX_SHIFT,
        open_any: l::OPEN_ANY,
    }
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

/// The real root among `roots` that holds where `target` (absolute, normalised) really is, off
/// the JS thread (`off_thread.rs`); `null` when none does or the path does not resolve.
#[napi(ts_return_type = "Promise<NativeContainment | null>")]
pub fn containing_root(
    roots: Vec<String>,
    target: String,
) -> AsyncTask<OffThread<Option<NativeContainment>>> {
    off_thread(move || {
        Ok(prism_engine::policy::containment::containing_root(
            &roots,
            std::path::Path::new(&target),
        )
        .map(|(root, target)| NativeContainment {
            root: root.to_string_lossy().into_owned(),
            target: target.to_string_lossy().into_owned(),
        }))
    })
}

/// The kernel's Landlock ABI version (0 without Landlock), from the version query.
#[napi]
pub fn landlock_abi_version() -> i32 {
    prism_engine::os::landlock::abi_version()
}

/// Why this kernel's Landlock cannot give the sandbox asked for (TCP denied unless
/// `allowNetwork`), or nothing when it can.
#[napi]
pub fn landlock_unsupported(allow_network: bool) -> Option<String> {
    use prism_engine::os::landlock::{abi_version, check_support};
    check_support(abi_version(), allow_network)
        .err()
        .map(|e| e.to_string())
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
    match prism_engine::os::landlock::restrict_self(&paths, allow_network) {
        Ok(g) => serde_json::to_string(&g)
            .map_err(|e| crate::errors::NativeError::internal(e.to_string()).into_js(&env)),
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
    let e = prism_engine::os::landlock::exec_restricted(&paths, allow_network, &shell, &command);
    Err(to_js(&env, e))
}

/// The approval policy's fixed numbers, from the engine's limits: `[approvalTimeoutMs default,
/// approval cache entries]`.
#[napi]
pub fn policy_approval_limits() -> Vec<u32> {
    use prism_engine::limits::{POLICY_APPROVAL_CACHE_ENTRIES, POLICY_APPROVAL_TIMEOUT_MS_DEFAULT};
    vec![
        u32::try_from(POLICY_APPROVAL_TIMEOUT_MS_DEFAULT).unwrap_or(u32::MAX),
        u32::try_from(POLICY_APPROVAL_CACHE_ENTRIES).unwrap_or(u32::MAX),
    ]
}

/// The words of the approval machine's crossing (read once at load).
#[napi(object)]
pub struct NativeApprovalWords {
    /// The code of each step, by name (`containPath`, `analyze`,
    /// `containRedirect`, `lookUpCache`, `ask`, `allow`, `deny`): `state & stepMask`.
    pub steps: HashMap<String, u32>,
    /// The bits of a state that hold its step's code.
    pub step_mask: u32,
    /// Where a state's detail starts: `(state >> detailShift) & stepMask` is a deny's denial
    /// code, or an allow's flags.
    pub detail_shift: u32,
    /// The flag bits of an allow's detail, by name (`exclusive`, `writeBeneath`).
    pub allow_flags: HashMap<String, u32>,
    /// Each denial's text, by denial code.
    pub denial_texts: Vec<String>,
    /// What follows each denial's text, by denial code: `""` (nothing), `subject` (the path or
    /// redirection target contained last) or `verdict` (the reason is the command verdict's
    /// own, kept as the host gave it).
    pub denial_tails: Vec<String>,
    /// The `approvalCacheScope` names.
    pub cache_scopes: Vec<String>,
    /// The refusal of an `approvalCacheScope` that is none of them.
    pub cache_scope_message: String,
    /// The `metadata` field whose value identifies each scope that caches, by scope name.
    pub cache_ids: HashMap<String, String>,
}

/// The words of the approval machine's crossing.
#[napi]
pub fn approval_words() -> NativeApprovalWords {
    let tail = |t: Tail| match t {
        Tail::None => "",
        Tail::Subject => "subject",
        Tail::Verdict => "verdict",
    };
    NativeApprovalWords {
        steps: Step::NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_owned(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect(),
        step_mask: u32::try_from(Step::CODE_MASK).unwrap_or(0),
        detail_shift: Step::DETAIL_SHIFT,
        allow_flags: [
            ("exclusive", ALLOW_EXCLUSIVE),
            ("writeBeneath", ALLOW_WRITE_BENEATH),
        ]
        .iter()
        .map(|(n, b)| ((*n).to_owned(), u32::try_from(*b).unwrap_or(0)))
        .collect(),
        denial_texts: Denial::ALL.iter().map(|d| d.text().to_owned()).collect(),
        denial_tails: Denial::ALL
            .iter()
            .map(|d| tail(d.tail()).to_owned())
            .collect(),
        cache_scopes: CacheScope::ALL
            .iter()
            .map(|s| s.name().to_owned())
            .collect(),
        cache_scope_message: prism_engine::facade_words::choice_message(
            "approvalCacheScope",
            &CacheScope::ALL.iter().map(|s| s.name()).collect::<Vec<_>>(),
        ),
        cache_ids: CacheScope::ALL
            .iter()
            .filter_map(|s| Some((s.name().to_owned(), s.id_field()?.to_owned())))
            .collect(),
    }
}

/// `v` as a string when it is one (anything else reads as missing).
pub(crate) fn string_of(v: Unknown<'_>) -> napi::Result<Option<String>> {
    if v.get_type()? == ValueType::String {
        // The type was checked just above.
        Ok(Some(unsafe { v.cast::<String>() }?))
    } else {
        Ok(None)
    }
}

/// The cache key's pieces as they cross: the id field's value (only a string counts) and the
/// JSON texts of `operation`, `paths` and `command`.
struct Material {
    id: Option<String>,
    operation: Option<String>,
    paths: Option<String>,
    command: Option<String>,
}

impl Material {
    fn read(
        id: Unknown<'_>,
        operation: Option<String>,
        paths: Option<String>,
        command: Option<String>,
    ) -> napi::Result<Self> {
        Ok(Self {
            id: string_of(id)?,
            operation,
            paths,
            command,
        })
    }

    fn borrow(&self) -> CacheMaterial<'_> {
        CacheMaterial {
            id: self.id.as_deref(),
            operation: self.operation.as_deref(),
            paths: self.paths.as_deref(),
            command: self.command.as_deref(),
        }
    }
}

/// The check a state number names (a number the facade did not get from the machine is an
/// error).
fn state_of(env: &Env, state: f64) -> napi::Result<Check> {
    Check::from_number(state).map_err(|e| to_js(env, e))
}

/// A step's outcome as the next state number.
fn next(env: &Env, step: Result<Check, ApprovalError>) -> napi::Result<f64> {
    step.map(state_number).map_err(|e| to_js(env, e))
}

/// One approval policy: its facts, roots and command rules, and its approval cache. The
/// facade's `createCodingApprovalPolicy` checks an action with one `decide`, then drives the
/// steps only it can perform (`lookUp`, `answer`) from the state that returns
/// (`approvalWords()` reads it).
#[napi]
pub struct NativeApprovalPolicy {
    policy: Policy,
    // In a cell: a check's task (`decide`, `codingReadBatch`) holds a shared borrow of the
    // policy until it settles, and `answer` may come in between.
    cache: RefCell<ApprovalCache>,
    roots: Arc<Vec<String>>,
    rules: Arc<Vec<prism_engine::policy::rules::Rule>>,
    deny_metacharacters: bool,
}

impl NativeApprovalPolicy {
    /// The approval cache (only the JS thread's calls reach it, one at a time).
    fn cache_mut(&self, env: &Env) -> napi::Result<std::cell::RefMut<'_, ApprovalCache>> {
        self.cache
            .try_borrow_mut()
            .map_err(|_| facade_bug(env, "the approval cache is in use".into()))
    }

    /// What a check needs of the policy, to run off the JavaScript thread.
    pub(crate) fn decider(&self) -> Decider {
        Decider {
            policy: self.policy,
            roots: Arc::clone(&self.roots),
            rules: Arc::clone(&self.rules),
            deny_metacharacters: self.deny_metacharacters,
        }
    }
}

#[napi]
impl NativeApprovalPolicy {
    /// The policy's options: its `roots`, `readOnly`, whether `approve` is given,
    /// `allowRulesSkipApproval`, `approvalCacheScope` (one of `approvalWords().cacheScopes`),
    /// its command rules and `denyMetacharacters` (default true).
    #[napi(constructor)]
    // Flat arguments on purpose: the facade has read and checked each option.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        env: Env,
        roots: Vec<String>,
        read_only: bool,
        has_approve: bool,
        allow_rules_skip_approval: bool,
        cache_scope: String,
        rules: &NativeCommandRules,
        deny_metacharacters: bool,
    ) -> napi::Result<Self> {
        let cache = CacheScope::from_name(&cache_scope)
            .ok_or_else(|| facade_bug(&env, format!("no approval cache scope {cache_scope:?}")))?;
        Ok(Self {
            policy: Policy {
                roots: roots.len(),
                read_only,
                has_approve,
                allow_rules_skip_approval,
                cache,
            },
            cache: RefCell::new(ApprovalCache::new(cache)),
            roots: Arc::new(roots),
            rules: Arc::clone(&rules.rules),
            deny_metacharacters,
        })
    }

    /// Checks an action off the JS thread (`off_thread.rs`), up to its decision or a step
    /// only the facade performs, with the answers of the rules' `RegExp`s when a first
    /// decision asked for them.
    #[napi(ts_return_type = "Promise<NativeDecision>")]
    // The task type is the binding's own; JavaScript sees a promise.
    #[allow(private_interfaces)]
    pub fn decide(
        &self,
        check: NativePolicyCheck,
        matches: Option<Uint8Array>,
    ) -> AsyncTask<OffThread<NativeDecision>> {
        let matches = matches.map(|m| m.to_vec());
        let decider = self.decider();
        off_thread(move || Ok(decider.decide(&check, matches.as_deref())))
    }

    /// `lookUpCache` performed: the value of the scope's `metadata` id field, and the JSON
    /// texts of the action's `operation`, `paths` and `command` (`undefined` when the field is
    /// missing). Returns the next state.
    #[napi]
    pub fn look_up(
        &self,
        env: Env,
        state: f64,
        id: Unknown<'_>,
        operation: Option<String>,
        paths: Option<String>,
        command: Option<String>,
    ) -> napi::Result<f64> {
        let material = Material::read(id, operation, paths, command)?;
        let check = state_of(&env, state)?;
        next(
            &env,
            self.cache_mut(&env)?
                .look_up(&self.policy, check, &material.borrow()),
        )
    }

    /// `ask` answered: the host's answer, and (for a policy with a cache scope) the same id
    /// and JSON texts `lookUp` was given, under which the answer is remembered. Returns the
    /// next state.
    #[napi]
    // Flat arguments on purpose: numbers and strings cross without building an object.
    #[allow(clippy::too_many_arguments)]
    pub fn answer(
        &self,
        env: Env,
        state: f64,
        approved: bool,
        id: Unknown<'_>,
        operation: Option<String>,
        paths: Option<String>,
        command: Option<String>,
    ) -> napi::Result<f64> {
        let material = Material::read(id, operation, paths, command)?;
        let check = state_of(&env, state)?;
        next(
            &env,
            self.cache_mut(&env)?
                .answer(&self.policy, check, approved, &material.borrow()),
        )
    }
}
