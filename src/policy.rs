//! Node-API glue for the engine's `policy` module.
//!
//! One call per policy check: the command line goes in as a string, the analysis (every simple
//! command, redirections, flags) comes back as numbers in the facade's buffer, its strings
//! spans of the command or of one short string of extras (JSON when it does not fit, and
//! from the blocking pool). A typical command takes microseconds, so it runs on the calling
//! thread; the approval machine sends commands longer than `POLICY_ANALYSIS_ASYNC_BYTES` to
//! the blocking pool instead, so a long hostile command never holds the JavaScript thread.
//!
//! `NativeApprovalPolicy` carries the approval machine (`prism_engine::policy::approval`): each
//! call takes the state as a number and returns the next one, so a check builds no objects
//! across Node-API.

use std::collections::HashMap;

use napi::bindgen_prelude::{Uint32ArraySlice, Unknown};
use napi::{Env, ValueType};
use napi_derive::napi;
use prism_engine::policy::approval::{
    Action as ApprovalAction, ApprovalCache, ApprovalError, CacheMaterial, CacheScope, Check,
    Command, Denial, Input, Kind, Location, Policy, Step, Tail, ALLOW_EXCLUSIVE,
    ALLOW_WRITE_BENEATH,
};

use crate::errors::{facade_bug, spawn_coded, to_js, NativeError};

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
    /// `requireApproval`, `deny`, `defaultDeny`, `openDeny`, `openDefaultDeny`, `effect`).
    pub part_codes: HashMap<String, String>,
    /// The bit of each fact in `commandVerdict`'s `flags`, by name (`refused`, `deny`,
    /// `unsupported`, `fileRedirects`, `metacharacters`, `denyMetacharacters`).
    pub flags: HashMap<String, u32>,
    /// The actions by code.
    pub actions: Vec<String>,
    /// The reason kinds by code: `rule`, `defaultDeny`, `refused`, `unanalyzed`,
    /// `metacharacters`, `redirect`, `none`, `open`, `effect`.
    pub reasons: Vec<String>,
    /// The engine's fixed text of each reason code (empty where the text is the host rule's or
    /// the analysis's own; for `unanalyzed`, the start the analysis's `unsupported` follows).
    pub reason_texts: Vec<String>,
    /// How a `commandVerdict` number is laid out: its fields, their shifts and masks.
    pub layout: NativeVerdictLayout,
    /// What each option effect does, by its code, as the `effect` reason words it.
    pub effect_texts: Vec<String>,
}

/// The fields of a `commandVerdict` number: `(v >>> shift) & mask` for each.
#[napi(object)]
pub struct NativeVerdictLayout {
    /// Shift of the action code (an index into `actions`).
    pub action_shift: u32,
    /// Mask of the action code.
    pub action_mask: u32,
    /// Shift of the reason code (an index into `reasons`).
    pub reason_shift: u32,
    /// Mask of the reason code.
    pub reason_mask: u32,
    /// Shift of the bit that says host allow rules alone cover the command.
    pub covered_shift: u32,
    /// Shift of the index of the part whose rule decided (no mask: the rest of the number).
    pub part_shift: u32,
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
    use prism_engine::policy::verdict::{PartMatch, Reason};
    let name = |m: PartMatch| match m {
        PartMatch::Unmatched => "unmatched",
        PartMatch::DefaultDeny => "defaultDeny",
        PartMatch::OpenRule => "openDeny",
        PartMatch::OpenDefaultDeny => "openDefaultDeny",
        PartMatch::Effect => "effect",
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
        Reason::Open { .. } => "open",
        Reason::Effect { .. } => "effect",
    };
    let all_reasons: Vec<Reason> = std::iter::once(Reason::Rule { part: 0 })
        .chain(Reason::FIXED)
        .chain(std::iter::once(Reason::Open { part: 0 }))
        .chain(std::iter::once(Reason::Effect { part: 0 }))
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
        actions: VERDICT_ACTIONS
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
        layout: NativeVerdictLayout {
            action_shift: VERDICT_ACTION_SHIFT,
            action_mask: VERDICT_ACTION_MASK,
            reason_shift: VERDICT_REASON_SHIFT,
            reason_mask: VERDICT_REASON_MASK,
            covered_shift: VERDICT_COVERED_SHIFT,
            part_shift: VERDICT_PART_SHIFT,
        },
        effect_texts: prism_engine::policy::effects::Effect::ALL
            .iter()
            .map(|e| e.describes().to_owned())
            .collect(),
    }
}

/// The verdict on an analysed command, in one cheap crossing: `parts` holds one code per
/// simple command (`commandVerdictWords().partCodes`), `flags` the analysis's facts
/// (`commandVerdictWords().flags`). Returns the action, reason, `covered` bit and deciding part
/// packed as `commandVerdictWords().layout` says:
/// the action and reason codes index `actions` and `reasons`, `covered` is 1 when host allow
/// rules alone cover the command, and `part` is the index of the part whose host rule decided.
#[napi]
pub fn command_verdict(env: Env, parts: String, flags: u32) -> napi::Result<u32> {
    use prism_engine::policy::verdict::{judge, Facts, PartMatch, Reason};
    let parts = parts
        .chars()
        .map(|c| {
            PartMatch::from_code(c)
                .ok_or_else(|| facade_bug(&env, format!("no part match code {c:?}")))
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
    let action = VERDICT_ACTIONS
        .iter()
        .position(|a| *a == v.action)
        .and_then(|i| u32::try_from(i).ok())
        .unwrap_or(0);
    let part = match v.reason {
        Reason::Rule { part } | Reason::Open { part } | Reason::Effect { part } => {
            u32::try_from(part).unwrap_or(0).min(0x00ff_ffff)
        }
        _ => 0,
    };
    Ok(action << VERDICT_ACTION_SHIFT
        | (v.reason.code() & VERDICT_REASON_MASK) << VERDICT_REASON_SHIFT
        | u32::from(v.covered_by_allow_rules) << VERDICT_COVERED_SHIFT
        | part << VERDICT_PART_SHIFT)
}

/// Whether a command word that is a glob (`tou?h`, `/usr/bin/sud[o]`) could expand to the
/// literal `word` of a host rule: for the program word (`program` true) its last path
/// component may meet the word's. Cautious: a "no" is certain, a "yes" may not be.
#[napi]
pub fn glob_word_could_be(glob: String, word: String, program: bool) -> bool {
    use prism_engine::policy::open_word::{glob_could_be, program_could_be};
    if program {
        program_could_be(&glob, &word)
    } else {
        glob_could_be(&glob, &word)
    }
}

/// Where `command_verdict` puts its action code, and the code's mask.
const VERDICT_ACTION_SHIFT: u32 = 0;
const VERDICT_ACTION_MASK: u32 = 3;
/// Where `command_verdict` puts its reason code, and the code's mask.
const VERDICT_REASON_SHIFT: u32 = 2;
const VERDICT_REASON_MASK: u32 = 15;
// Every reason code fits its field.
const _: () = assert!(prism_engine::policy::verdict::Reason::OPEN_CODE <= VERDICT_REASON_MASK);
const _: () = assert!(prism_engine::policy::verdict::Reason::EFFECT_CODE <= VERDICT_REASON_MASK);
/// Where `command_verdict` puts its `covered` bit.
const VERDICT_COVERED_SHIFT: u32 = 6;
/// Where `command_verdict` puts the deciding part's index.
const VERDICT_PART_SHIFT: u32 = 8;

/// The action of a `command_verdict` number, by its low two bits (packed and unpacked here,
/// and named in this order by `command_verdict_words`).
const VERDICT_ACTIONS: [prism_engine::policy::verdict::Action; 3] = [
    prism_engine::policy::verdict::Action::Allow,
    prism_engine::policy::verdict::Action::RequireApproval,
    prism_engine::policy::verdict::Action::Deny,
];

/// The action and the `covered` bit of a number `command_verdict` returned.
fn unpack_verdict(v: u32) -> Option<(prism_engine::policy::verdict::Action, bool)> {
    let code = (v >> VERDICT_ACTION_SHIFT) & VERDICT_ACTION_MASK;
    let action = *VERDICT_ACTIONS.get(usize::try_from(code).ok()?)?;
    Some((action, (v >> VERDICT_COVERED_SHIFT) & 1 != 0))
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
    /// The code of each step, by name (`containPath`, `analyze`, `analyzeOffThread`,
    /// `containRedirect`, `lookUpCache`, `ask`, `allow`, `deny`): `state & stepMask`.
    pub steps: HashMap<String, u32>,
    /// The bits of a state that hold its step's code.
    pub step_mask: u32,
    /// Where a state's detail starts: `(state >> detailShift) & stepMask` is a deny's denial
    /// code, or an allow's flags.
    pub detail_shift: u32,
    /// The flag bits of an allow's detail, by name (`exclusive`, `writeBeneath`).
    pub allow_flags: HashMap<String, u32>,
    /// The code of each location `feed` takes after a contain step, by name (`outside`,
    /// `inside`, `noTarget`).
    pub locations: HashMap<String, u32>,
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
        locations: Location::ALL
            .iter()
            .map(|l| (l.name().to_owned(), l.code()))
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
fn string_of(v: Unknown<'_>) -> napi::Result<Option<String>> {
    if v.get_type()? == ValueType::String {
        // The type was checked just above.
        Ok(Some(unsafe { v.cast::<String>() }?))
    } else {
        Ok(None)
    }
}

/// A state as the JavaScript number that carries it.
#[allow(clippy::cast_precision_loss)] // states stay below 2^53: exact
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

fn number(c: Check) -> f64 {
    c.to_bits() as f64
}

/// The check a state number names (a number the facade did not get from the machine is an
/// error).
fn state_of(env: &Env, state: f64) -> napi::Result<Check> {
    Check::from_number(state).map_err(|e| to_js(env, e))
}

/// A step's outcome as the next state number.
fn next(env: &Env, step: Result<Check, ApprovalError>) -> napi::Result<f64> {
    step.map(number).map_err(|e| to_js(env, e))
}

/// One approval policy's machine and its approval cache: the facade's
/// `createCodingApprovalPolicy` drives a check through `begin` and the steps it names; each
/// call returns the next state (`approvalWords()` reads it).
#[napi]
pub struct NativeApprovalPolicy {
    policy: Policy,
    cache: ApprovalCache,
}

#[napi]
impl NativeApprovalPolicy {
    /// The policy's facts: how many roots, `readOnly`, whether `approve` is given,
    /// `allowRulesSkipApproval`, and `approvalCacheScope` (one of `approvalWords().cacheScopes`).
    #[napi(constructor)]
    pub fn new(
        env: Env,
        roots: u32,
        read_only: bool,
        has_approve: bool,
        allow_rules_skip_approval: bool,
        cache_scope: String,
    ) -> napi::Result<Self> {
        let cache = CacheScope::from_name(&cache_scope)
            .ok_or_else(|| facade_bug(&env, format!("no approval cache scope {cache_scope:?}")))?;
        Ok(Self {
            policy: Policy {
                roots: roots as usize,
                read_only,
                has_approve,
                allow_rules_skip_approval,
                cache,
            },
            cache: ApprovalCache::new(cache),
        })
    }

    /// The first state of a check: the action's `kind` (a string, else no known kind), how
    /// many paths it names, whether its `command` is present (truthy) and, for a string
    /// command, its length in UTF-16 code units.
    #[napi]
    pub fn begin(
        &self,
        kind: Unknown<'_>,
        paths: u32,
        command: bool,
        command_length: u32,
    ) -> napi::Result<f64> {
        let kind = string_of(kind)?.map_or(Kind::Other, |k| Kind::from_name(&k));
        let action = ApprovalAction {
            kind,
            paths,
            command: Command::from_facts(command, command_length as usize),
        };
        Ok(number(Check::begin(&self.policy, &action)))
    }

    /// After `containPath` or `containRedirect`: where the path or target is
    /// (`approvalWords().locations`).
    #[napi]
    pub fn feed(&self, env: Env, state: f64, location: u32) -> napi::Result<f64> {
        let check = state_of(&env, state)?;
        let location = Location::from_code(location)
            .ok_or_else(|| facade_bug(&env, format!("no location code {location}")))?;
        next(&env, check.feed(&self.policy, Input::Location(location)))
    }

    /// After `analyze`: the number `commandVerdict` returned, whether the verdict has a reason
    /// (not `undefined` or `null`), and how many redirections the analysis found.
    #[napi]
    pub fn verdict(
        &self,
        env: Env,
        state: f64,
        verdict: u32,
        has_reason: bool,
        redirects: u32,
    ) -> napi::Result<f64> {
        let check = state_of(&env, state)?;
        let (action, covered) = unpack_verdict(verdict)
            .ok_or_else(|| facade_bug(&env, format!("no command verdict {verdict}")))?;
        next(
            &env,
            check.feed(
                &self.policy,
                Input::Verdict {
                    action,
                    has_reason,
                    covered,
                    redirects,
                },
            ),
        )
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
            self.cache.look_up(&self.policy, check, &material.borrow()),
        )
    }

    /// `ask` answered: the host's answer, and (for a policy with a cache scope) the same id
    /// and JSON texts `lookUp` was given, under which the answer is remembered. Returns the
    /// next state.
    #[napi]
    // Flat arguments on purpose: numbers and strings cross without building an object.
    #[allow(clippy::too_many_arguments)]
    pub fn answer(
        &mut self,
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
            self.cache
                .answer(&self.policy, check, approved, &material.borrow()),
        )
    }
}
