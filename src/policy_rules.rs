//! Node-API glue for the engine's command rules (`prism_engine::policy::rules`): the facade
//! hands a rules array over once, then each command crosses once. `RegExp` patterns stay in
//! JavaScript: for a rule set with any, the facade asks `subjects` for the texts to test and
//! passes its answers back as one byte per pattern and text.

use std::cell::RefCell;
use std::sync::Arc;

use napi::bindgen_prelude::{Either, Uint32ArraySlice, Uint8ArraySlice, Unknown};
use napi::Env;
use napi_derive::napi;
use prism_engine::policy::decide::not_a_string;
use prism_engine::policy::rules::{self, HostMatches, Pattern, Rule, Said};
use prism_engine::policy::shell::{self, Analysis};
use prism_engine::policy::verdict::{Action, PartMatch};
use serde::Serialize;

use crate::errors::facade_bug;

/// The action a rule's `action` names (`allow`, `requireApproval`, `deny`).
fn action_of(env: &Env, name: &str) -> napi::Result<Action> {
    ACTIONS
        .into_iter()
        .find(|a| a.as_str() == name)
        .ok_or_else(|| facade_bug(env, format!("no rule action {name:?}")))
}

/// The actions a command rule may name, in the engine's spelling.
#[napi]
pub fn command_rule_actions() -> Vec<String> {
    ACTIONS.iter().map(|a| a.as_str().to_owned()).collect()
}

/// Every action, strictest last.
const ACTIONS: [Action; 3] = [Action::Allow, Action::RequireApproval, Action::Deny];

/// A host's command rules, read once (the facade has checked their shape).
#[napi]
pub struct NativeCommandRules {
    pub(crate) rules: Arc<Vec<Rule>>,
    host_patterns: bool,
    /// The analysis `subjects` made last, with its command: the `evaluate` or `explain` that
    /// follows it (on the same thread, with the answers) reads it instead of analysing again.
    last: RefCell<Option<(String, Analysis)>>,
}

impl NativeCommandRules {
    /// The analysis of `command` and the rules' judgement of it, with the host's answers.
    fn judged(
        &self,
        command: Unknown<'_>,
        deny_metacharacters: bool,
        matches: Option<&[u8]>,
    ) -> napi::Result<(Analysis, rules::Judgement)> {
        let remembered = self.last.borrow_mut().take();
        let analysis = match (crate::policy::string_of(command)?, remembered) {
            (Some(c), Some((seen, analysis))) if c == seen => analysis,
            (Some(c), _) => shell::analyze(&c),
            (None, _) => not_a_string(),
        };
        let host = matches.map(|bits| HostMatches::for_analysis(&analysis, bits));
        let j = rules::judge(&analysis, &self.rules, deny_metacharacters, host);
        Ok((analysis, j))
    }
}

#[napi]
impl NativeCommandRules {
    /// The rules in order: each one's `pattern` (a string, or `null` for a `RegExp`), its
    /// `String(pattern)`, its `action`, its `reason` as text when truthy (else `null`) and
    /// whether it has a `reason` at all (not `undefined` or `null`).
    #[napi(constructor)]
    pub fn new(
        env: Env,
        patterns: Vec<Option<String>>,
        displays: Vec<String>,
        actions: Vec<String>,
        notes: Vec<Option<String>>,
        has_reasons: Vec<bool>,
    ) -> napi::Result<Self> {
        let mut out = Vec::with_capacity(patterns.len());
        let mut host = 0;
        for (i, pattern) in patterns.into_iter().enumerate() {
            let action = action_of(&env, actions.get(i).map_or("", String::as_str))?;
            let note = notes.get(i).cloned().flatten();
            let has_reason = has_reasons.get(i).copied().unwrap_or(false);
            let display = displays.get(i).cloned().unwrap_or_default();
            out.push(match pattern {
                Some(p) => Rule::words(&p, action, note, has_reason),
                None => {
                    host += 1;
                    Rule {
                        pattern: Pattern::Host(host - 1),
                        action,
                        display,
                        note,
                        has_reason,
                    }
                }
            });
        }
        Ok(Self {
            rules: Arc::new(out),
            host_patterns: host > 0,
            last: RefCell::new(None),
        })
    }

    /// The texts the rules' `RegExp`s are tested against for `command` (three per simple
    /// command: as written, normalised, without its option effect), or `null` when the rules
    /// have no `RegExp` or the command is not a string. When they fit `lengths`, the texts come
    /// back joined in one string, `lengths[0]` their count and `lengths[1 + i]` text `i`'s
    /// length in UTF-16 code units (one string crosses, not one per text); else as an array.
    #[napi]
    pub fn subjects(
        &self,
        command: Unknown<'_>,
        mut lengths: Uint32ArraySlice,
    ) -> napi::Result<Option<Either<String, Vec<String>>>> {
        if !self.host_patterns {
            return Ok(None);
        }
        let Some(command) = crate::policy::string_of(command)? else {
            return Ok(None);
        };
        let analysis = shell::analyze(&command);
        let (normalised, bare) = rules::subjects_read(&self.rules);
        // SAFETY: the call is synchronous on the JavaScript thread, so no script runs (and none
        // can touch the buffer) while it is written; the slice does not outlive the call.
        let out: &mut [u32] = unsafe { lengths.as_mut() };
        if analysis.parts.len() * rules::SUBJECTS_PER_PART >= out.len() {
            let subjects = rules::subjects_for(&analysis, normalised, bare);
            *self.last.borrow_mut() = Some((command, analysis));
            return Ok(Some(Either::B(subjects)));
        }
        let mut joined = String::with_capacity(command.len() * 2);
        let mut count = 0;
        rules::write_subjects(&analysis, normalised, bare, &mut joined, |end| {
            count += 1;
            if let Some(slot) = out.get_mut(count) {
                // Byte ends for now; turned into UTF-16 lengths below.
                *slot = u32::try_from(end).unwrap_or(u32::MAX);
            }
        });
        out[0] = u32::try_from(count).unwrap_or(0);
        let ascii = joined.is_ascii();
        let mut at = 0;
        for slot in out.iter_mut().skip(1).take(count) {
            let end = *slot as usize;
            let piece = joined.get(at..end).unwrap_or_default();
            let units = if ascii {
                piece.len()
            } else {
                piece.encode_utf16().count()
            };
            *slot = u32::try_from(units).unwrap_or(u32::MAX);
            at = end;
        }
        *self.last.borrow_mut() = Some((command, analysis));
        Ok(Some(Either::A(joined)))
    }

    /// The verdict on `command` (`denyMetacharacters`: the host's option, default true), with
    /// `matches` the answers to `subjects` (pattern-major: `matches[p * subjects + s]`; a
    /// longer buffer's tail is not read). Writes the action's index in `commandRuleActions()`
    /// to `out[0]` and, when the reason is a host rule's own, that rule's index plus one to
    /// `out[1]` (else 0); returns the reason in the engine's words, if it has one.
    #[napi]
    pub fn evaluate(
        &self,
        command: Unknown<'_>,
        deny_metacharacters: bool,
        matches: Option<Uint8ArraySlice>,
        mut out: Uint32ArraySlice,
    ) -> napi::Result<Option<String>> {
        let (_, j) = self.judged(command, deny_metacharacters, matches.as_deref())?;
        let (reason, rule) = split_said(j.reason);
        let action = ACTIONS
            .iter()
            .position(|a| *a == j.verdict.action)
            .unwrap_or(0);
        // SAFETY: as in `subjects`: a synchronous call on the JavaScript thread.
        let out: &mut [u32] = unsafe { out.as_mut() };
        if let [action_slot, rule_slot, ..] = out {
            *action_slot = u32::try_from(action).unwrap_or(0);
            *rule_slot = rule.map_or(0, |r| r.saturating_add(1));
        }
        Ok(reason)
    }

    /// Which simple command of `command` matched which rule, and the verdict, as JSON:
    /// `{action, reason?, rule?, parts: [{text, argv, derived, verdict, rule?, defaultDeny?,
    /// open?: {index, text}, effect?: {effect, option}}], redirects, metacharacters,
    /// unsupported?, defaultDeny?}` (`rule`: a host rule's index).
    #[napi]
    pub fn explain(
        &self,
        command: Unknown<'_>,
        deny_metacharacters: bool,
        matches: Option<Uint8ArraySlice>,
    ) -> napi::Result<String> {
        let (analysis, j) = self.judged(command, deny_metacharacters, matches.as_deref())?;
        let (reason, rule) = split_said(j.reason);
        let parts = analysis
            .parts
            .iter()
            .zip(&j.parts)
            .map(|(cmd, p)| ExplainedPart {
                text: &cmd.text,
                argv: &cmd.argv,
                derived: cmd.derived,
                verdict: part_verdict(p.matched),
                rule: p.rule,
                default_deny: if p.rule.is_none() { cmd.deny } else { None },
                open: match p.matched {
                    PartMatch::OpenRule | PartMatch::OpenDefaultDeny => {
                        cmd.open.as_ref().map(|o| ExplainedOpen {
                            index: o.index,
                            text: &o.text,
                        })
                    }
                    _ => None,
                },
                effect: match p.matched {
                    PartMatch::Effect => cmd.effect.as_ref().map(|f| ExplainedEffect {
                        effect: f.effect,
                        option: &f.option,
                    }),
                    _ => None,
                },
            })
            .collect();
        let out = Explained {
            action: j.verdict.action.as_str(),
            reason,
            rule,
            parts,
            redirects: &analysis.redirects,
            metacharacters: analysis.metacharacters,
            unsupported: analysis.unsupported.as_deref(),
            default_deny: analysis.deny,
        };
        Ok(serde_json::to_string(&out).unwrap_or_default())
    }
}

/// A part's verdict as `explainCommand` names it.
fn part_verdict(m: PartMatch) -> &'static str {
    match m {
        PartMatch::Unmatched => "unmatched",
        PartMatch::Rule(a) => a.as_str(),
        PartMatch::Effect => Action::RequireApproval.as_str(),
        PartMatch::DefaultDeny | PartMatch::OpenRule | PartMatch::OpenDefaultDeny => {
            Action::Deny.as_str()
        }
    }
}

/// The reason as its two crossing fields: the engine's text, or a host rule's index.
pub(crate) fn split_said(said: Said) -> (Option<String>, Option<u32>) {
    match said {
        Said::Text(t) => (Some(t), None),
        Said::Rule(n) => (None, u32::try_from(n).ok()),
        Said::Nothing => (None, None),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Explained<'a> {
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<u32>,
    parts: Vec<ExplainedPart<'a>>,
    redirects: &'a [shell::Redirect],
    metacharacters: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    unsupported: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_deny: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplainedPart<'a> {
    text: &'a str,
    argv: &'a [String],
    derived: bool,
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_deny: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    open: Option<ExplainedOpen<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    effect: Option<ExplainedEffect<'a>>,
}

#[derive(Serialize)]
struct ExplainedOpen<'a> {
    index: usize,
    text: &'a str,
}

#[derive(Serialize)]
struct ExplainedEffect<'a> {
    effect: prism_engine::policy::effects::Effect,
    option: &'a str,
}
