//! The verdict of the command rules on an analysed command (API.md section 9, Decision 7).
//!
//! The facade matches host rules (strings and JavaScript `RegExp`s) against each simple
//! command of the analysis and passes what matched here, as data; the order of the checks, the
//! precedence deny > approval > allow and every reason the engine words live here.

/// What a rule, or the verdict, says about a command, ordered by strictness:
/// `Allow < RequireApproval < Deny`, so the precedence deny > approval > allow is `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// Runs without a person.
    Allow,
    /// Needs the host's approval.
    RequireApproval,
    /// Never runs.
    Deny,
}

impl Action {
    /// The API's spelling (`allow`, `requireApproval`, `deny`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::RequireApproval => "requireApproval",
            Self::Deny => "deny",
        }
    }
}

/// How one simple command of the analysis was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartMatch {
    /// No host rule matched and no default deny rule either.
    Unmatched,
    /// The first host rule that matched has this action.
    Rule(Action),
    /// No host rule matched; a default deny rule did.
    DefaultDeny,
    /// A host deny rule could match a value that the part's open word (a glob, an expansion)
    /// takes when the command runs.
    OpenRule,
    /// No host rule matched; a default deny rule could match a value of the part's open word.
    OpenDefaultDeny,
    /// A host allow rule matched, but one of the part's options does what the rule does not
    /// name (an option effect: see [`effects`](super::effects)): it needs approval.
    Effect,
}

impl PartMatch {
    /// Every match with its one-character code (how the binding receives a command's matches).
    pub const CODES: [(PartMatch, char); 8] = [
        (Self::Unmatched, 'u'),
        (Self::Rule(Action::Allow), 'a'),
        (Self::Rule(Action::RequireApproval), 'q'),
        (Self::Rule(Action::Deny), 'd'),
        (Self::DefaultDeny, 'D'),
        (Self::OpenRule, 'o'),
        (Self::OpenDefaultDeny, 'O'),
        (Self::Effect, 'e'),
    ];

    /// Whether the part is denied (by a host rule or a default one, as written or through a
    /// value of its open word).
    #[must_use]
    pub const fn denies(self) -> bool {
        matches!(
            self,
            Self::Rule(Action::Deny) | Self::DefaultDeny | Self::OpenRule | Self::OpenDefaultDeny
        )
    }

    /// The action of the rule that matched the part as written: a host rule's, or a default
    /// deny rule's (`Deny`); `None` for no match, an open word's or an option effect's.
    #[must_use]
    pub const fn written_action(self) -> Option<Action> {
        match self {
            Self::Rule(action) => Some(action),
            Self::DefaultDeny => Some(Action::Deny),
            _ => None,
        }
    }

    /// The match whose code is `c`.
    #[must_use]
    pub fn from_code(c: char) -> Option<PartMatch> {
        Self::CODES.iter().find(|(_, k)| *k == c).map(|(m, _)| *m)
    }
}

/// What the verdict's reason is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The reason of the host rule that matched part `part` (the host's text, maybe none).
    Rule {
        /// Index of the simple command in the analysis's parts.
        part: usize,
    },
    /// A default deny rule matched: [`DEFAULT_DENY_REASON`].
    DefaultDeny,
    /// The analysis refused the command: its `refused` text.
    Refused,
    /// The analysis could not read the command: [`unanalyzed_reason`] of its `unsupported`.
    Unanalyzed,
    /// Metacharacters no allow rule covers: [`METACHARACTER_REASON`].
    Metacharacters,
    /// A redirection to a file: [`REDIRECT_REASON`].
    Redirect,
    /// An allow with no reason (nothing needed a rule).
    None,
    /// A deny rule could match what part `part`'s open word becomes when the command runs:
    /// [`OPEN_WORD_REASON`], with the word and the rule put in.
    Open {
        /// Index of the simple command in the analysis's parts.
        part: usize,
    },
    /// An allow rule matched part `part`, whose option does what the rule does not name:
    /// [`OPTION_EFFECT_REASON`], with the option and what it does put in.
    Effect {
        /// Index of the simple command in the analysis's parts.
        part: usize,
    },
}

impl Reason {
    /// Every reason but [`Reason::Rule`], by its code (`1..`; `0` is a rule's reason).
    pub const FIXED: [Reason; 6] = [
        Self::DefaultDeny,
        Self::Refused,
        Self::Unanalyzed,
        Self::Metacharacters,
        Self::Redirect,
        Self::None,
    ];

    /// The code of [`Reason::Open`], after every fixed reason's.
    pub const OPEN_CODE: u32 = 7;
    /// The code of [`Reason::Effect`].
    pub const EFFECT_CODE: u32 = 8;

    /// The reason's code: `0` for a rule's, [`Reason::OPEN_CODE`] for an open word's, else its
    /// index in [`Reason::FIXED`] plus one.
    #[must_use]
    pub fn code(self) -> u32 {
        match self {
            Self::Rule { .. } => 0,
            Self::Open { .. } => Self::OPEN_CODE,
            Self::Effect { .. } => Self::EFFECT_CODE,
            other => Self::FIXED
                .iter()
                .position(|r| *r == other)
                .map_or(0, |i| u32::try_from(i + 1).unwrap_or(0)),
        }
    }

    /// The engine's fixed text of this reason (`None` for a rule's, the analysis's own
    /// texts and no reason).
    #[must_use]
    pub const fn fixed_text(self) -> Option<&'static str> {
        match self {
            Self::DefaultDeny => Some(DEFAULT_DENY_REASON),
            Self::Unanalyzed => Some(UNANALYZED_PREFIX),
            Self::Metacharacters => Some(METACHARACTER_REASON),
            Self::Redirect => Some(REDIRECT_REASON),
            Self::Open { .. } => Some(OPEN_WORD_REASON),
            Self::Effect { .. } => Some(OPTION_EFFECT_REASON),
            Self::Rule { .. } | Self::Refused | Self::None => None,
        }
    }
}

/// The verdict: an action, its reason, and whether host allow rules alone cover the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// What happens.
    pub action: Action,
    /// Why.
    pub reason: Reason,
    /// True when host allow rules cover every simple command and nothing else (redirection,
    /// unanalysed syntax) needs a person.
    pub covered_by_allow_rules: bool,
}

/// What the verdict reads from the analysis besides the per-part matches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Facts {
    /// Whether the analysis refused the command (past one of its caps).
    pub refused: bool,
    /// Whether a default deny rule matched something that is not a simple command (a redirect
    /// target, a wrapper's inner code).
    pub deny: bool,
    /// Whether the analysis could not read the command.
    pub unsupported: bool,
    /// Whether the command redirects to a file.
    pub file_redirects: bool,
    /// Whether the command has shell metacharacters (more than one plain command).
    pub metacharacters: bool,
    /// The host's `denyMetacharacters` (default true).
    pub deny_metacharacters: bool,
}

/// The reason of a default deny rule's match.
pub const DEFAULT_DENY_REASON: &str = "command matches default deny pattern";
/// The reason of a command with metacharacters that no allow rule covers.
pub const METACHARACTER_REASON: &str = "command contains shell metacharacters";
/// The reason of a command denied because a word bash decides at run time could become what a
/// deny rule matches: `{word}` is the word as written, `{rule}` the rule (a host rule's
/// pattern, and its reason, or a default rule's id).
pub const OPEN_WORD_REASON: &str =
    "command word {word} may expand to a command that deny rule {rule} matches";
/// The reason of a command an allow rule matched whose option does what the rule does not
/// name: `{option}` is the option as written, `{effect}` what it does
/// ([`Effect::describes`](super::effects::Effect::describes)).
pub const OPTION_EFFECT_REASON: &str =
    "command option {option} {effect}; no allow rule names that form";
/// The reason of a command that writes to a file through a redirection.
pub const REDIRECT_REASON: &str = "command redirects to a file";

/// The start of the reason of a command the analysis could not read (the analysis's
/// `unsupported` follows).
pub const UNANALYZED_PREFIX: &str = "command could not be analyzed: ";

/// The reason of a command the analysis could not read.
#[must_use]
pub fn unanalyzed_reason(why: &str) -> String {
    format!("{UNANALYZED_PREFIX}{why}")
}

/// The verdict on a command whose simple commands matched as `parts`.
#[must_use]
pub fn judge(parts: &[PartMatch], facts: &Facts) -> Verdict {
    let verdict = |action, reason| Verdict {
        action,
        reason,
        covered_by_allow_rules: false,
    };
    let first = |want: PartMatch| parts.iter().position(|p| *p == want);
    // The strictest rule that matched a part as written (a default deny rule counts as a deny),
    // and the first part it matched.
    let strictest = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.written_action().map(|a| (a, i)))
        .max_by(|(a, i), (b, j)| a.cmp(b).then(j.cmp(i)));
    if let Some((Action::Deny, i)) = strictest {
        return match parts[i] {
            PartMatch::DefaultDeny => verdict(Action::Deny, Reason::DefaultDeny),
            _ => verdict(Action::Deny, Reason::Rule { part: i }),
        };
    }
    // Past a cap the analysis saw only part of the command: a deny, not an approval.
    if facts.refused {
        return verdict(Action::Deny, Reason::Refused);
    }
    // A word bash decides when the command runs could become what a deny rule matches.
    if let Some(i) = parts.iter().position(|p| p.denies()) {
        return verdict(Action::Deny, Reason::Open { part: i });
    }
    if facts.deny {
        return verdict(Action::Deny, Reason::DefaultDeny);
    }
    if let Some((Action::RequireApproval, i)) = strictest {
        return verdict(Action::RequireApproval, Reason::Rule { part: i });
    }
    // An allowed program's option does what the allow rule does not name.
    if let Some(i) = first(PartMatch::Effect) {
        return verdict(Action::RequireApproval, Reason::Effect { part: i });
    }
    if facts.unsupported {
        return verdict(Action::RequireApproval, Reason::Unanalyzed);
    }
    if !parts.is_empty()
        && !facts.file_redirects
        && parts.iter().all(|p| *p == PartMatch::Rule(Action::Allow))
    {
        return Verdict {
            action: Action::Allow,
            reason: Reason::Rule { part: 0 },
            covered_by_allow_rules: true,
        };
    }
    if facts.deny_metacharacters && facts.metacharacters {
        return verdict(Action::RequireApproval, Reason::Metacharacters);
    }
    if facts.file_redirects {
        return verdict(Action::RequireApproval, Reason::Redirect);
    }
    verdict(Action::Allow, Reason::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOW: PartMatch = PartMatch::Rule(Action::Allow);
    const ASK: PartMatch = PartMatch::Rule(Action::RequireApproval);
    const DENY: PartMatch = PartMatch::Rule(Action::Deny);

    fn facts() -> Facts {
        Facts {
            deny_metacharacters: true,
            ..Facts::default()
        }
    }

    #[test]
    fn actions_are_ordered_by_strictness() {
        assert!(Action::Allow < Action::RequireApproval && Action::RequireApproval < Action::Deny);
        assert_eq!(
            [Action::RequireApproval, Action::Deny, Action::Allow]
                .iter()
                .max(),
            Some(&Action::Deny)
        );
        // The first part with the strictest rule is named.
        let v = judge(&[ALLOW, ASK, ASK], &facts());
        assert_eq!(
            (v.action, v.reason),
            (Action::RequireApproval, Reason::Rule { part: 1 })
        );
        let v = judge(&[ASK, PartMatch::DefaultDeny, DENY], &facts());
        assert_eq!((v.action, v.reason), (Action::Deny, Reason::DefaultDeny));
    }

    #[test]
    fn part_codes_read_back() {
        for (m, c) in PartMatch::CODES {
            assert_eq!(PartMatch::from_code(c), Some(m));
        }
        assert_eq!(PartMatch::from_code('A'), None);
    }

    #[test]
    fn a_deny_anywhere_wins_and_names_its_part() {
        let v = judge(&[ALLOW, ASK, DENY], &facts());
        assert_eq!(
            (v.action, v.reason),
            (Action::Deny, Reason::Rule { part: 2 })
        );
        let v = judge(&[ALLOW, PartMatch::DefaultDeny], &facts());
        assert_eq!(v.reason, Reason::DefaultDeny);
        assert_eq!(v.reason.fixed_text(), Some(DEFAULT_DENY_REASON));
    }

    #[test]
    fn a_deny_through_an_open_word_is_final_and_names_its_part() {
        for open in [PartMatch::OpenRule, PartMatch::OpenDefaultDeny] {
            let v = judge(&[ALLOW, ASK, open], &facts());
            assert_eq!(
                (v.action, v.reason),
                (Action::Deny, Reason::Open { part: 2 })
            );
            assert_eq!(v.reason.code(), Reason::OPEN_CODE);
            assert_eq!(v.reason.fixed_text(), Some(OPEN_WORD_REASON));
            // Whatever else the analysis says, it stays a deny.
            let unsupported = Facts {
                unsupported: true,
                ..facts()
            };
            assert_eq!(judge(&[open], &unsupported).action, Action::Deny);
        }
    }

    #[test]
    fn an_option_effect_needs_approval_after_denies_and_approval_rules() {
        let v = judge(&[ALLOW, PartMatch::Effect], &facts());
        assert_eq!(
            (v.action, v.reason, v.covered_by_allow_rules),
            (Action::RequireApproval, Reason::Effect { part: 1 }, false)
        );
        assert_eq!(v.reason.code(), Reason::EFFECT_CODE);
        assert_eq!(v.reason.fixed_text(), Some(OPTION_EFFECT_REASON));
        assert_eq!(
            judge(&[PartMatch::Effect, ASK], &facts()).reason,
            Reason::Rule { part: 1 }
        );
        assert_eq!(
            judge(&[PartMatch::Effect, DENY], &facts()).action,
            Action::Deny
        );
    }

    #[test]
    fn refused_and_analysis_denies_come_before_approvals() {
        let refused = Facts {
            refused: true,
            ..facts()
        };
        assert_eq!(judge(&[ASK], &refused).action, Action::Deny);
        let deny = Facts {
            deny: true,
            ..facts()
        };
        assert_eq!(judge(&[ALLOW], &deny).action, Action::Deny);
    }

    #[test]
    fn allow_rules_cover_only_plain_commands_without_file_redirects() {
        let v = judge(&[ALLOW, ALLOW], &facts());
        assert!(v.covered_by_allow_rules);
        assert_eq!(v.reason, Reason::Rule { part: 0 });
        let redirect = Facts {
            file_redirects: true,
            ..facts()
        };
        let v = judge(&[ALLOW], &redirect);
        assert_eq!(v.action, Action::RequireApproval);
        assert_eq!(v.reason, Reason::Redirect);
    }

    #[test]
    fn unmatched_commands_fall_to_the_metacharacter_and_unsupported_checks() {
        let meta = Facts {
            metacharacters: true,
            ..facts()
        };
        assert_eq!(
            judge(&[PartMatch::Unmatched], &meta).reason,
            Reason::Metacharacters
        );
        let lax = Facts {
            deny_metacharacters: false,
            ..meta
        };
        assert_eq!(judge(&[PartMatch::Unmatched], &lax).action, Action::Allow);
        let unsupported = Facts {
            unsupported: true,
            ..facts()
        };
        assert_eq!(judge(&[ALLOW], &unsupported).reason, Reason::Unanalyzed);
        assert_eq!(
            unanalyzed_reason("function definition"),
            "command could not be analyzed: function definition"
        );
        for (i, r) in Reason::FIXED.iter().enumerate() {
            assert_eq!(r.code() as usize, i + 1);
        }
        assert_eq!(Reason::Rule { part: 3 }.code(), 0);
    }
}
