use super::*;
use crate::policy::shell::analyze;

fn rule(pattern: &str, action: Action) -> Rule {
    Rule::words(pattern, action, None, false)
}

fn verdict_of(command: &str, rules: &[Rule]) -> (Action, Said) {
    let j = judge(&analyze(command), rules, true, None);
    (j.verdict.action, j.reason)
}

#[test]
fn string_rules_split_on_javascript_whitespace() {
    let r = Rule::words("  git\u{feff}push\u{85}x ", Action::Deny, None, false);
    assert_eq!(
        r.pattern,
        Pattern::Words(vec!["git".into(), "push\u{85}x".into()])
    );
}

#[test]
fn deny_rules_match_the_normalised_program_and_allow_rules_only_what_was_written() {
    let rules = [rule("touch", Action::Deny)];
    assert_eq!(verdict_of("/usr/bin/touch x", &rules).0, Action::Deny);
    let allow = [rule("ls", Action::Allow)];
    let j = judge(&analyze("./ls"), &allow, true, None);
    assert_eq!(j.parts[0].matched, PartMatch::Unmatched);
    let j = judge(&analyze("ls -l"), &allow, true, None);
    assert!(j.verdict.covered_by_allow_rules);
    assert_eq!(j.reason, Said::Rule(0));
}

#[test]
fn an_allow_rule_covers_an_option_effect_only_when_it_names_the_form() {
    let bare = [rule("git", Action::Allow)];
    let (action, reason) = verdict_of("git reset --hard", &bare);
    assert_eq!(action, Action::RequireApproval);
    let Said::Text(text) = reason else {
        panic!("an effect is worded by the engine");
    };
    assert!(
        text.starts_with("command option \"reset --hard\" "),
        "{text}"
    );
    let named = [
        rule("git", Action::Allow),
        rule("git reset --hard", Action::Allow),
    ];
    let j = judge(&analyze("git reset --hard"), &named, true, None);
    assert_eq!(
        j.parts[0],
        PartJudgement {
            matched: PartMatch::Rule(Action::Allow),
            rule: Some(1)
        }
    );
}

#[test]
fn a_deny_rule_holds_for_every_value_of_an_open_word() {
    let rules = [Rule::words("touch", Action::Deny, Some("no".into()), true)];
    let (action, reason) = verdict_of("tou*h x", &rules);
    assert_eq!(action, Action::Deny);
    assert_eq!(
        reason,
        Said::Text(
            "command word \"tou*h\" may expand to a command that deny rule \"touch\" (no) matches"
                .into()
        )
    );
}

#[test]
fn a_placeholder_in_a_filled_value_is_not_filled_again() {
    assert_eq!(
        fill("a {word} b {rule}", &[("word", "{rule}"), ("rule", "R")]),
        "a {rule} b R"
    );
    assert_eq!(fill("{x} {word", &[("word", "W")]), "{x} {word");
}

#[test]
fn host_patterns_read_the_host_answers() {
    let rules = [Rule {
        pattern: Pattern::Host(0),
        action: Action::Deny,
        display: "/tou.h/".into(),
        note: None,
        has_reason: false,
    }];
    let analysis = analyze("/usr/bin/touch x; ls");
    let subjects = subjects(&analysis);
    assert_eq!(subjects.len(), 2 * SUBJECTS_PER_PART);
    assert_eq!(subjects[1], "touch x");
    // The host matched only the normalised spelling of the first part.
    let mut bits = vec![0u8; subjects.len()];
    bits[1] = 1;
    let host = HostMatches {
        bits: &bits,
        subjects: subjects.len(),
    };
    let j = judge(&analysis, &rules, true, Some(host));
    assert_eq!(j.verdict.action, Action::Deny);
    assert_eq!(j.reason, Said::Rule(0));
    assert!(!j.has_reason(&rules));
    // Without answers, a host pattern matches nothing.
    let j = judge(&analysis, &rules, true, None);
    assert_eq!(j.verdict.action, Action::RequireApproval);
}
