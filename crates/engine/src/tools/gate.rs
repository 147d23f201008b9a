//! The dispatch gate order (frozen: never reorder) and the plan of steps for a set of hooks.

/// One step of `dispatchToolCall`, in the reference 0.3.0 order minus the out-of-scope steps
/// (run limits, guardrails, identity, durable effects).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Gate {
    /// `middleware.run("tool_call", call)`; every later gate sees the mediated call.
    ToolCallMiddleware = 0,
    /// Registry lookup (`unknown_tool`), filter (`tool_denied`), `argumentsError` and the
    /// JSON-object check (`invalid_arguments`). Always present.
    CheckCall = 1,
    /// `assertTrusted(trust, tool:<name>:execute)`; a denial is `permission_denied`.
    Trust = 2,
    /// `assertPermission(permission, tool:<name>:execute)` (`permission_denied`).
    Permission = 3,
    /// The host's `ToolValidator` (`validation_failed`).
    Validate = 4,
    /// The host's `beforeExecute` hook (`execution_denied`).
    BeforeExecute = 5,
    /// Emit `tool_execution_started`, write the `started` ledger row. Always present.
    Started = 6,
    /// `tool.execute(args, context)`. Always present.
    Execute = 7,
    /// `middleware.run("tool_result", raw)`.
    ResultMiddleware = 8,
    /// `redactor.redact(result)`.
    Redact = 9,
    /// Emit `tool_execution_finished`, write the `finished` ledger row. Always present.
    Finished = 10,
}

impl Gate {
    /// The gate whose code (`Gate as u8`) is `code`, as the JS driver reports it.
    #[must_use]
    pub fn from_code(code: u32) -> Option<Gate> {
        usize::try_from(code)
            .ok()
            .and_then(|i| DISPATCH_ORDER.get(i).copied())
    }

    /// The middleware hook a middleware gate runs (`middleware.run(<hook>, value)`), or `None`
    /// for any other gate.
    #[must_use]
    pub const fn middleware_hook(self) -> Option<&'static str> {
        match self {
            Self::ToolCallMiddleware => Some("tool_call"),
            Self::ResultMiddleware => Some("tool_result"),
            _ => None,
        }
    }

    /// The gate's name as the JS driver spells it (`"TOOL_CALL_MIDDLEWARE"`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::ToolCallMiddleware => "TOOL_CALL_MIDDLEWARE",
            Self::CheckCall => "CHECK_CALL",
            Self::Trust => "TRUST",
            Self::Permission => "PERMISSION",
            Self::Validate => "VALIDATE",
            Self::BeforeExecute => "BEFORE_EXECUTE",
            Self::Started => "STARTED",
            Self::Execute => "EXECUTE",
            Self::ResultMiddleware => "RESULT_MIDDLEWARE",
            Self::Redact => "REDACT",
            Self::Finished => "FINISHED",
        }
    }
}

/// Every gate in dispatch order. Tests pin this order; so does the host's trampoline.
pub const DISPATCH_ORDER: [Gate; 11] = [
    Gate::ToolCallMiddleware,
    Gate::CheckCall,
    Gate::Trust,
    Gate::Permission,
    Gate::Validate,
    Gate::BeforeExecute,
    Gate::Started,
    Gate::Execute,
    Gate::ResultMiddleware,
    Gate::Redact,
    Gate::Finished,
];

/// Which optional hooks a dispatch has: one bit per optional gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HookSet(pub u32);

impl HookSet {
    /// A `middleware` registry is set (both middleware gates).
    pub const MIDDLEWARE: u32 = 1;
    /// A `trust` policy is set.
    pub const TRUST: u32 = 1 << 1;
    /// A `permission` policy is set.
    pub const PERMISSION: u32 = 1 << 2;
    /// A `validate` hook is set.
    pub const VALIDATE: u32 = 1 << 3;
    /// A `beforeExecute` hook is set.
    pub const BEFORE_EXECUTE: u32 = 1 << 4;
    /// A `redactor` is set.
    pub const REDACTOR: u32 = 1 << 5;

    /// Every optional hook's bit with its name as the JS driver spells it.
    pub const NAMED: [(&'static str, u32); 6] = [
        ("MIDDLEWARE", Self::MIDDLEWARE),
        ("TRUST", Self::TRUST),
        ("PERMISSION", Self::PERMISSION),
        ("VALIDATE", Self::VALIDATE),
        ("BEFORE_EXECUTE", Self::BEFORE_EXECUTE),
        ("REDACTOR", Self::REDACTOR),
    ];

    fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }

    /// Whether `gate` runs under this hook set. Absent hooks cost nothing.
    #[must_use]
    pub fn runs(self, gate: Gate) -> bool {
        match gate {
            Gate::ToolCallMiddleware | Gate::ResultMiddleware => self.has(Self::MIDDLEWARE),
            Gate::Trust => self.has(Self::TRUST),
            Gate::Permission => self.has(Self::PERMISSION),
            Gate::Validate => self.has(Self::VALIDATE),
            Gate::BeforeExecute => self.has(Self::BEFORE_EXECUTE),
            Gate::Redact => self.has(Self::REDACTOR),
            Gate::CheckCall | Gate::Started | Gate::Execute | Gate::Finished => true,
        }
    }
}

/// The ordered steps of one dispatch with `hooks` configured.
#[must_use]
pub fn plan(hooks: HookSet) -> Vec<Gate> {
    DISPATCH_ORDER
        .iter()
        .copied()
        .filter(|g| hooks.runs(*g))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_dispatch_runs_only_the_mandatory_gates() {
        assert_eq!(
            plan(HookSet(0)),
            [
                Gate::CheckCall,
                Gate::Started,
                Gate::Execute,
                Gate::Finished
            ]
        );
    }

    #[test]
    fn every_hook_keeps_the_frozen_order() {
        assert_eq!(plan(HookSet(u32::MAX)), DISPATCH_ORDER);
        let codes: Vec<u8> = DISPATCH_ORDER.iter().map(|g| *g as u8).collect();
        assert_eq!(codes, (0..11).collect::<Vec<u8>>());
        assert_eq!(Gate::from_code(7), Some(Gate::Execute));
        assert_eq!(Gate::from_code(11), None);
        assert_eq!(
            Gate::ToolCallMiddleware.middleware_hook(),
            Some("tool_call")
        );
        assert_eq!(
            Gate::ResultMiddleware.middleware_hook(),
            Some("tool_result")
        );
        assert_eq!(Gate::Execute.middleware_hook(), None);
    }

    #[test]
    fn permission_runs_before_the_validator_and_both_before_execute() {
        let p = plan(HookSet(HookSet::PERMISSION | HookSet::VALIDATE));
        assert_eq!(
            p,
            [
                Gate::CheckCall,
                Gate::Permission,
                Gate::Validate,
                Gate::Started,
                Gate::Execute,
                Gate::Finished
            ]
        );
    }
}
