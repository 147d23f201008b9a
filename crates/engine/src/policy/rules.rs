//! The host's command rules (API.md section 9, Decision 7), matched against every simple
//! command of an analysis, and the verdict they give with its reason worded.
//!
//! A rule's pattern is a string (a command prefix on word boundaries, matched here) or a
//! JavaScript `RegExp`, which only the host can run: for those the engine names the texts to
//! test ([`subjects`]) and the host answers one bit per pattern and text ([`HostMatches`]).
//! Everything else is decided here: the first rule that matches a part wins; deny and
//! approval rules also match a part's normalised spelling (the program's name without its
//! directory or quotes: `/usr/bin/touch`, `'touch'` and `t\ouch` all meet a `touch` rule)
//! while allow rules match only what was written (`./ls` is not allowed by an `ls` rule); an
//! allow rule covers an option effect only when it names the form; a deny rule must hold for
//! every value an open word (a glob, an expansion) takes when the command runs.

use serde::Serialize;

use super::open_word::{glob_could_be, program_could_be};
use super::shell::{Analysis, SimpleCommand};
use super::verdict::{self, Action, Facts, PartMatch, Reason, Verdict};

/// A rule's pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// A string rule's words (`'git push'` is `["git", "push"]`).
    Words(Vec<String>),
    /// The host's `RegExp` number `n` (its place among the rules' host patterns).
    Host(usize),
}

/// One host rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// What it matches.
    pub pattern: Pattern,
    /// What it says.
    pub action: Action,
    /// The pattern as the host's `String(pattern)` spells it (a reason quotes it).
    pub display: String,
    /// The rule's `reason` when it is truthy, as text (a reason that names the rule adds it).
    pub note: Option<String>,
    /// Whether the rule has a `reason` at all (not `undefined` or `null`).
    pub has_reason: bool,
}

impl Rule {
    /// A string rule: its words are the pattern split on JavaScript whitespace.
    #[must_use]
    pub fn words(pattern: &str, action: Action, note: Option<String>, has_reason: bool) -> Rule {
        Rule {
            pattern: Pattern::Words(
                pattern
                    .split(is_js_space)
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
            action,
            display: pattern.to_owned(),
            note,
            has_reason,
        }
    }
}

/// Whether `c` is whitespace as a JavaScript `\s` reads it (what `trim` and `split(/\s+/)`
/// remove): Unicode's `White_Space` without NEL, and with the byte order mark.
#[must_use]
pub fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Which of a part's texts a host pattern is tested against; each part has
/// [`SUBJECTS_PER_PART`] of them, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// The part as written.
    Text = 0,
    /// The normalised spelling: the program's name, then the other words.
    Normalised = 1,
    /// The part without the words of its option effect (empty without an effect).
    WithoutEffect = 2,
}

/// How many texts of each part [`subjects`] lists.
pub const SUBJECTS_PER_PART: usize = 3;

/// The texts host patterns are tested against: [`SUBJECTS_PER_PART`] per part, in
/// [`Subject`] order.
#[must_use]
pub fn subjects(analysis: &Analysis) -> Vec<String> {
    subjects_for(analysis, true, true)
}

/// [`subjects`], with the normalised spellings only when `normalised` (some host pattern is a
/// deny or approval rule's) and the texts without an option effect only when `bare` (some is
/// an allow rule's); a text no host pattern reads is empty.
#[must_use]
pub fn subjects_for(analysis: &Analysis, normalised: bool, bare: bool) -> Vec<String> {
    let mut ends = Vec::with_capacity(analysis.parts.len() * SUBJECTS_PER_PART);
    let mut joined = String::new();
    write_subjects(analysis, normalised, bare, &mut joined, |end| {
        ends.push(end)
    });
    let mut at = 0;
    ends.into_iter()
        .map(|end| {
            let piece = joined.get(at..end).unwrap_or_default().to_owned();
            at = end;
            piece
        })
        .collect()
}

/// The texts of [`subjects_for`] appended to `joined` one after another, `end` called with
/// `joined`'s length after each (no string per text).
pub fn write_subjects(
    analysis: &Analysis,
    normalised: bool,
    bare: bool,
    joined: &mut String,
    mut end: impl FnMut(usize),
) {
    for part in &analysis.parts {
        joined.push_str(&part.text);
        end(joined.len());
        if normalised {
            joined.push_str(&part.name);
            for w in part.argv.iter().skip(1) {
                joined.push(' ');
                joined.push_str(w);
            }
        }
        end(joined.len());
        if let (true, Some(found)) = (bare, &part.effect) {
            let mut first = true;
            for (i, w) in part.argv.iter().enumerate() {
                if found.words.contains(&i) {
                    continue;
                }
                if !first {
                    joined.push(' ');
                }
                joined.push_str(w);
                first = false;
            }
        }
        end(joined.len());
    }
}

/// Which subjects `rules`' host patterns read: `(normalised, bare)` for [`subjects_for`].
#[must_use]
pub fn subjects_read(rules: &[Rule]) -> (bool, bool) {
    let host = |allow: bool| {
        rules
            .iter()
            .any(|r| matches!(r.pattern, Pattern::Host(_)) && (r.action == Action::Allow) == allow)
    };
    (host(false), host(true))
}

/// The host's answers: bit `pattern * subjects + subject` says whether host pattern `pattern`
/// matches text `subject` of [`subjects`].
#[derive(Debug, Clone, Copy)]
pub struct HostMatches<'a> {
    /// One byte per pattern and text (non-zero: it matches).
    pub bits: &'a [u8],
    /// How many texts [`subjects`] listed.
    pub subjects: usize,
}

impl<'a> HostMatches<'a> {
    /// The host's answers `bits` for the subjects of `analysis`.
    #[must_use]
    pub fn for_analysis(analysis: &Analysis, bits: &'a [u8]) -> HostMatches<'a> {
        HostMatches {
            bits,
            subjects: analysis.parts.len() * SUBJECTS_PER_PART,
        }
    }

    fn get(&self, pattern: usize, part: usize, subject: Subject) -> bool {
        let at = pattern * self.subjects + part * SUBJECTS_PER_PART + subject as usize;
        self.bits.get(at).is_some_and(|b| *b != 0)
    }
}

/// The part's words without those of its option effect.
fn without_effect(part: &SimpleCommand) -> Vec<&str> {
    let drop: &[usize] = part.effect.as_ref().map_or(&[], |e| &e.words);
    part.argv
        .iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, w)| w.as_str())
        .collect()
}

/// Whether the first `want.len()` words of `argv` are `want`'s; with `name`, the program word
/// may also match by the part's normalised name.
fn leading_words_match(want: &[String], argv: &[&str], count: usize, name: Option<&str>) -> bool {
    (0..count).all(|i| {
        argv.get(i).is_some_and(|w| *w == want[i]) || (i == 0 && name.is_some_and(|n| n == want[0]))
    })
}

/// How one part reads against the rules.
struct Reader<'a> {
    part: usize,
    cmd: &'a SimpleCommand,
    argv: Vec<&'a str>,
    bare: Option<Vec<&'a str>>,
    host: Option<HostMatches<'a>>,
}

impl Reader<'_> {
    /// Whether `rule` matches the part as written (or, for a deny or approval rule, its
    /// normalised spelling).
    fn matches(&self, rule: &Rule) -> bool {
        let loose = rule.action != Action::Allow;
        match &rule.pattern {
            Pattern::Words(want) => {
                let name = loose.then_some(self.cmd.name.as_str());
                want.len() <= self.argv.len()
                    && leading_words_match(want, &self.argv, want.len(), name)
            }
            Pattern::Host(n) => self.host.is_some_and(|h| {
                h.get(*n, self.part, Subject::Text)
                    || (loose && h.get(*n, self.part, Subject::Normalised))
            }),
        }
    }

    /// Whether allow rule `rule` still matches the part without its option effect's words.
    fn matches_bare(&self, rule: &Rule) -> bool {
        let Some(bare) = &self.bare else {
            return false;
        };
        match &rule.pattern {
            Pattern::Words(want) => {
                want.len() <= bare.len() && leading_words_match(want, bare, want.len(), None)
            }
            Pattern::Host(n) => self
                .host
                .is_some_and(|h| h.get(*n, self.part, Subject::WithoutEffect)),
        }
    }

    /// Whether deny rule `rule` could match what the part's open word becomes, given that it
    /// does not match as written. A string rule could when the words before the open one
    /// match and the open word could be the rule's word at its place (an expansion could be
    /// anything; a glob what it matches). A pattern of the host's cannot be checked against
    /// every value: it could match when the program word is open.
    fn could_match(&self, rule: &Rule) -> bool {
        let Some(open) = &self.cmd.open else {
            return false;
        };
        match &rule.pattern {
            Pattern::Host(_) => open.index == 0,
            Pattern::Words(want) => {
                if open.index >= want.len()
                    || !leading_words_match(want, &self.argv, open.index, Some(&self.cmd.name))
                {
                    return false;
                }
                let word = self.argv.get(open.index).copied().unwrap_or_default();
                open.any
                    || if open.index == 0 {
                        program_could_be(word, &want[open.index])
                    } else {
                        glob_could_be(word, &want[open.index])
                    }
            }
        }
    }
}

/// How one part was matched, and by which rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartJudgement {
    /// The match.
    pub matched: PartMatch,
    /// The index of the host rule that decided, if one did.
    pub rule: Option<usize>,
}

/// The first rule that matches `part` as written, or a deny rule that could match what its
/// open word becomes; then a default deny rule; else unmatched.
fn judge_part(reader: &Reader<'_>, rules: &[Rule]) -> PartJudgement {
    let found = |matched, rule| PartJudgement {
        matched,
        rule: Some(rule),
    };
    for (index, rule) in rules.iter().enumerate() {
        if reader.matches(rule) {
            // An allow rule covers an option effect only when it names the form: without the
            // effect's words it would no longer match. A later allow rule may name it.
            if rule.action == Action::Allow && reader.matches_bare(rule) {
                let later = rules.iter().enumerate().skip(index + 1).find(|(_, n)| {
                    n.action == Action::Allow && reader.matches(n) && !reader.matches_bare(n)
                });
                return match later {
                    Some((later, _)) => found(PartMatch::Rule(Action::Allow), later),
                    None => found(PartMatch::Effect, index),
                };
            }
            return found(PartMatch::Rule(rule.action), index);
        }
        if rule.action == Action::Deny && reader.could_match(rule) {
            return found(PartMatch::OpenRule, index);
        }
    }
    let matched = match reader.cmd.deny {
        Some(_) if reader.cmd.deny_open => PartMatch::OpenDefaultDeny,
        Some(_) => PartMatch::DefaultDeny,
        None => PartMatch::Unmatched,
    };
    PartJudgement {
        matched,
        rule: None,
    }
}

/// The verdict of `rules` on `analysis`, with what decided each part and the reason worded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// Each part's match, in the analysis's order.
    pub parts: Vec<PartJudgement>,
    /// The verdict.
    pub verdict: Verdict,
    /// The reason: a host rule's own (its index: the host reads its `reason`), the engine's
    /// text, or none.
    pub reason: Said,
}

/// A verdict's reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Said {
    /// The `reason` of host rule `n`, as the host gave it (maybe none).
    Rule(usize),
    /// The engine's words.
    Text(String),
    /// No reason.
    Nothing,
}

impl Judgement {
    /// Whether the verdict has a reason (not `undefined` or `null`).
    #[must_use]
    pub fn has_reason(&self, rules: &[Rule]) -> bool {
        match &self.reason {
            Said::Rule(n) => rules.get(*n).is_some_and(|r| r.has_reason),
            Said::Text(_) => true,
            Said::Nothing => false,
        }
    }
}

/// The verdict of `rules` on `analysis` (`deny_metacharacters`: the host's option, default
/// true). `host` answers the rules' host patterns; without it they match nothing.
#[must_use]
pub fn judge(
    analysis: &Analysis,
    rules: &[Rule],
    deny_metacharacters: bool,
    host: Option<HostMatches<'_>>,
) -> Judgement {
    let parts: Vec<PartJudgement> = analysis
        .parts
        .iter()
        .enumerate()
        .map(|(part, cmd)| {
            let reader = Reader {
                part,
                cmd,
                argv: cmd.argv.iter().map(String::as_str).collect(),
                bare: cmd.effect.as_ref().map(|_| without_effect(cmd)),
                host,
            };
            judge_part(&reader, rules)
        })
        .collect();
    let matches: Vec<PartMatch> = parts.iter().map(|p| p.matched).collect();
    let verdict = verdict::judge(
        &matches,
        &Facts {
            refused: analysis.refused.is_some(),
            deny: analysis.deny.is_some(),
            unsupported: analysis.unsupported.is_some(),
            file_redirects: !analysis.redirects.is_empty(),
            metacharacters: analysis.metacharacters,
            deny_metacharacters,
        },
    );
    let reason = said(analysis, rules, &parts, &verdict);
    Judgement {
        parts,
        verdict,
        reason,
    }
}

/// A string as `JSON.stringify` quotes it.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `template` with each `{name}` of `fill` put in once (a value is never searched again).
fn fill(template: &str, fill: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        match fill.iter().find(|(name, _)| {
            rest.get(1..=name.len()) == Some(name)
                && rest.as_bytes().get(name.len() + 1) == Some(&b'}')
        }) {
            Some((name, value)) => {
                out.push_str(value);
                rest = &rest[name.len() + 2..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The verdict's reason, worded.
fn said(analysis: &Analysis, rules: &[Rule], parts: &[PartJudgement], v: &Verdict) -> Said {
    let text = |s: String| Said::Text(s);
    match v.reason {
        Reason::Rule { part } => parts
            .get(part)
            .and_then(|p| p.rule)
            .map_or(Said::Nothing, Said::Rule),
        Reason::Refused => text(analysis.refused.clone().unwrap_or_default()),
        Reason::Unanalyzed => text(verdict::unanalyzed_reason(
            analysis.unsupported.as_deref().unwrap_or_default(),
        )),
        Reason::None => Said::Nothing,
        Reason::Open { part } => {
            let (Some(p), Some(cmd)) = (parts.get(part), analysis.parts.get(part)) else {
                return Said::Nothing;
            };
            let rule = match p.rule.and_then(|n| rules.get(n)) {
                Some(r) => match &r.note {
                    Some(note) => format!("{} ({note})", quoted(&r.display)),
                    None => quoted(&r.display),
                },
                None => cmd.deny.unwrap_or_default().to_owned(),
            };
            let word = quoted(cmd.open.as_ref().map_or("", |o| o.text.as_str()));
            text(fill(
                verdict::OPEN_WORD_REASON,
                &[("word", &word), ("rule", &rule)],
            ))
        }
        Reason::Effect { part } => {
            let Some(found) = analysis.parts.get(part).and_then(|c| c.effect.as_ref()) else {
                return Said::Nothing;
            };
            let option = quoted(&found.option);
            text(fill(
                verdict::OPTION_EFFECT_REASON,
                &[("option", &option), ("effect", found.effect.describes())],
            ))
        }
        fixed => text(fixed.fixed_text().unwrap_or_default().to_owned()),
    }
}

#[cfg(test)]
mod tests;
