use super::*;
use crate::policy::approval::{CacheScope, Denial};
use crate::policy::verdict::Action as Verdict;

fn policy(has_approve: bool) -> Policy {
    Policy {
        roots: 1,
        read_only: false,
        has_approve,
        allow_rules_skip_approval: true,
        cache: CacheScope::None,
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prism-decide-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("root")).ok();
    crate::os::paths::canonicalize(&dir).unwrap_or(dir)
}

/// A shell command checked in `dir/root`, under `rules`.
fn shell(dir: &Path, command: &str, rules: &[Rule], approve: bool) -> Decided {
    let root = dir.join("root");
    let roots = [root.to_string_lossy().into_owned()];
    let paths = [Some(root.clone())];
    let request = Request {
        kind: Kind::Shell,
        paths: &paths,
        command: CommandText::Text(command),
        base: &root,
        home: dir,
    };
    decide(&policy(approve), &roots, rules, true, &request, None)
}

fn check(dir: &Path, command: &str, rules: &[Rule], approve: bool) -> Outcome {
    match shell(dir, command, rules, approve) {
        Decided::At(out) => out,
        Decided::NeedsHost(s) => panic!("no host rules, yet asked about {s:?}"),
    }
}

#[test]
fn an_allowed_command_is_decided_in_one_call() {
    let dir = scratch("allow");
    let rules = [Rule::words("ls", Verdict::Allow, None, false)];
    let out = check(&dir, "ls -l", &rules, false);
    assert!(matches!(
        out.check.step(),
        Step::Allow {
            exclusive: true,
            ..
        }
    ));
    let out = check(&dir, "rm x", &rules, false);
    assert_eq!(out.check.step(), Step::Deny(Denial::ApprovalRequired));
    let out = check(&dir, "rm x", &rules, true);
    assert_eq!(out.check.step(), Step::Ask);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn redirection_targets_are_contained_where_they_point() {
    let dir = scratch("redirect");
    let rules = [Rule::words("echo", Verdict::Allow, None, false)];
    let out = check(&dir, "echo x > ../out.txt", &rules, true);
    assert_eq!(out.check.step(), Step::Deny(Denial::RedirectOutside));
    assert_eq!(out.redirect.as_deref(), Some("../out.txt"));
    let out = check(&dir, "echo x > ~/out.txt", &rules, true);
    assert_eq!(out.check.step(), Step::Deny(Denial::RedirectOutside));
    let out = check(&dir, "echo x > inside.txt 2>&1", &rules, true);
    assert_eq!(out.check.step(), Step::Ask);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_deny_rule_gives_its_reason_and_host_rules_are_asked_for() {
    let dir = scratch("deny");
    let rules = [Rule::words("rm", Verdict::Deny, Some("no".into()), true)];
    let out = check(&dir, "rm -rf x", &rules, true);
    assert_eq!(out.check.step(), Step::Deny(Denial::CommandRule));
    assert_eq!(out.reason, Said::Rule(0));
    let host = [Rule {
        pattern: rules::Pattern::Host(0),
        action: Verdict::Deny,
        display: "/rm/".into(),
        note: None,
        has_reason: false,
    }];
    let asked = shell(&dir, "rm x", &host, true);
    assert!(matches!(asked, Decided::NeedsHost(ref s) if s[0] == "rm x"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_path_outside_the_roots_is_named_and_a_missing_one_denies() {
    let dir = scratch("paths");
    let root = dir.join("root");
    let roots = [root.to_string_lossy().into_owned()];
    let paths = [Some(root.join("a.txt")), None];
    let request = Request {
        kind: Kind::Read,
        paths: &paths,
        command: CommandText::Absent,
        base: &root,
        home: &dir,
    };
    let Decided::At(out) = decide(&policy(false), &roots, &[], true, &request, None) else {
        panic!("no command, no host rules");
    };
    assert_eq!(out.check.step(), Step::Deny(Denial::PathOutside));
    assert_eq!(out.path, Some(1));
    assert_eq!(out.first.map(|(r, _)| r), Some(root));
    assert_eq!(
        redirect_path("~", Path::new("/b"), Path::new("/h/")),
        PathBuf::from("/h")
    );
    assert_eq!(
        redirect_path("~//x/../y", Path::new("/b"), Path::new("/h")),
        PathBuf::from("/h/y")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
