//! The wrapper tables' and readers' unit tests.

use super::inner::long_option;
use super::*;

fn v(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn every_wrapper_example_holds() {
    for w in WRAPPERS {
        assert!(!w.examples.is_empty(), "{:?} has no examples", w.names);
        for (cmd, want) in w.examples {
            assert_eq!(example_result(cmd).as_deref(), *want, "{cmd}");
        }
        for o in w.opts {
            assert!(o.short != '\0' || !o.long.is_empty(), "{:?}", w.names);
        }
    }
    assert!(tables_hold());
}

#[test]
fn long_options_abbreviate_only_uniquely() {
    let timeout = wrapper("timeout").map(|w| w.opts).unwrap_or_default();
    assert_eq!(long_option(timeout, "sig").map(|o| o.short), Ok('s'));
    assert_eq!(long_option(timeout, "signal").map(|o| o.short), Ok('s'));
    assert!(long_option(timeout, "x").is_err());
    let env = wrapper("env").map(|w| w.opts).unwrap_or_default();
    // --ignore-environment and --ignore-signal share "--ignore".
    assert!(long_option(env, "ignore").is_err());
}

#[test]
fn wrappers_find_their_inner_command() {
    let start = |s: &str| match unwrap(&v(s)) {
        Some(Inner::Argv { start, .. }) => Some(start),
        _ => None,
    };
    assert_eq!(start("timeout 5 sudo x"), Some(2));
    assert_eq!(start("timeout -s KILL 5 make"), Some(4));
    assert_eq!(start("env -i FOO=1 PATH=/x ls"), Some(4));
    assert_eq!(start("nice -n 10 make"), Some(3));
    assert_eq!(start("sudo -u root rm x"), Some(3));
    assert_eq!(start("xargs -n 1 -I {} rm {}"), Some(5));
    assert_eq!(unwrap(&v("sudo -i")), None);
    assert_eq!(start("coproc sudo id"), Some(1));
    assert_eq!(start("pkexec rm x"), Some(1));
    assert_eq!(unwrap(&v("ls -la")), None);
    assert!(matches!(
        unwrap(&v("env FOO=1 ls")),
        Some(Inner::Argv { env, .. }) if env == ["FOO"]
    ));
}

#[test]
fn shell_strings_are_found() {
    assert_eq!(shell_command_string(&v("bash -c x")), Some(2));
    assert_eq!(shell_command_string(&v("/bin/sh -lc x")), Some(2));
    assert_eq!(shell_command_string(&v("bash -o pipefail -c x")), Some(4));
    assert_eq!(shell_command_string(&v("bash -eo pipefail -c x")), Some(4));
    assert_eq!(shell_command_string(&v("bash --rcfile F -c x")), Some(4));
    assert_eq!(shell_command_string(&v("rbash -c x")), Some(2));
    assert_eq!(shell_command_string(&v("bash script.sh")), None);
    assert_eq!(
        shell_invocation(&v("bash script.sh")),
        Some(Shell::Script(1))
    );
    assert_eq!(shell_invocation(&v("bash -s x")), Some(Shell::Stdin));
    assert_eq!(shell_invocation(&v("bash --norc")), Some(Shell::Stdin));
    assert_eq!(
        find_exec_ranges(&v("find . -exec rm {} ; -print")),
        vec![(3, 5)]
    );
}
