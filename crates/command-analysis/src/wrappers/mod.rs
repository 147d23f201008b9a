//! Commands that run another command, as data: one option table per wrapper, read the way GNU
//! `getopt_long` reads it, and where the inner command starts.
//!
//! Every option spelling a wrapper documents is in its table: short options alone or in a
//! cluster (`-vk 1`, `-vk1`), long options whole, abbreviated to a unique prefix (`--kill`),
//! or with `=value` (`--signal=KILL`). An option the table does not know, an ambiguous
//! abbreviation, or a value that cannot be followed (`env -S` with a `${NAME}`) is reported as
//! [`Inner::Unknown`]: the command then needs approval. Each table carries example command
//! lines with the inner command they must yield; [`tables_hold`] checks them on first use
//! (the analysis fails closed if one does not hold) and a unit test checks them too.
//!
//! Shells (`sh -c STRING`, a script operand, or commands on standard input) have their own
//! reader, [`shell_invocation`]; `find -exec` has [`find_exec_ranges`].

use std::sync::OnceLock;

mod env;
mod inner;
mod invocations;
mod table;

pub use env::{is_dangerous_env, is_name};
pub use inner::{unwrap, Inner};
pub use invocations::{find_exec_ranges, shell_command_string, shell_invocation, Shell};
use table::CODE_BUILTINS;
pub use table::WRAPPERS;

/// The program name of `argv0`: its last path component (`/usr/bin/sudo` is `sudo`).
#[must_use]
pub fn program(argv0: &str) -> &str {
    // A byte search: called for every rule on every command, and `rsplit`'s generic
    // machinery showed in profiles.
    match argv0.bytes().rposition(|b| b == b'/') {
        Some(i) => argv0.get(i + 1..).unwrap_or(""),
        None => argv0,
    }
}

/// Shells: with `-c` their first operand is a command string; without it they run a script
/// operand or read commands from standard input.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "oksh", "ash", "yash",
    "posh", "fish", "csh", "tcsh",
];

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// No value (`-i`, `--ignore-environment`).
    No,
    /// A value: attached (`-n10`, `--adjustment=10`) or the next word.
    Required,
    /// A value only when attached (`-t5`, `--mount=/x`).
    Optional,
}

/// One option of a wrapper: its short letter (`'\0'` for none), its long name (`""` for none)
/// and whether it takes a value.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// The short letter, or `'\0'`.
    pub short: char,
    /// The long name without `--`, or `""`.
    pub long: &'static str,
    /// Its value.
    pub arg: Arg,
}

pub(super) const fn no(short: char, long: &'static str) -> Opt {
    Opt {
        short,
        long,
        arg: Arg::No,
    }
}
pub(super) const fn req(short: char, long: &'static str) -> Opt {
    Opt {
        short,
        long,
        arg: Arg::Required,
    }
}
pub(super) const fn opt(short: char, long: &'static str) -> Opt {
    Opt {
        short,
        long,
        arg: Arg::Optional,
    }
}

/// What a wrapper runs once its options are read.
#[derive(Debug, Clone, Copy)]
pub enum Run {
    /// `operands` words (`timeout DURATION`, `chroot NEWROOT`), then `NAME=value` words when
    /// `assignments`, then the inner command's argv.
    Argv {
        /// Operands before the command.
        operands: usize,
        /// `NAME=value` words may follow (`env`, `sudo`).
        assignments: bool,
    },
    /// The value of option `option` is a command string run by a shell (`script -c`,
    /// `su -c`); without that option: after `operands` words, the `-c STRING` form again or
    /// the rest as an argv (`flock FILE -c STRING`, `flock FILE cmd`) or joined into a string
    /// (`sg GROUP cmd`); `stdin` when the program then reads commands from standard input.
    Text {
        /// The short letter of the command option.
        option: char,
        /// Operands before an argv or `-c` form, when the option is absent.
        operands: usize,
        /// What the words after those operands are.
        rest: Rest,
    },
    /// The operands are a command: joined by spaces and run by a shell (`watch`), or as an
    /// argv when option `exec` is given (`watch -x`).
    Joined {
        /// The short letter of the option that makes it an argv.
        exec: char,
    },
}

/// The words after a [`Run::Text`] wrapper's operands when it has no command option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rest {
    /// They are an argv (`flock FILE cmd args`).
    Argv,
    /// They are joined into a command string (`sg GROUP cmd args`).
    Joined,
    /// There is no command; the program reads one from standard input (`script` alone).
    Stdin,
    /// There is no command (`su` alone starts a login shell).
    Nothing,
}

/// One wrapper: its names, options and what it runs, with examples that must hold.
#[derive(Debug)]
pub struct Wrapper {
    /// Program names (basenames) it goes by.
    pub names: &'static [&'static str],
    /// Its options.
    pub opts: &'static [Opt],
    /// Options may follow operands (GNU argument permutation); otherwise the first operand
    /// ends the options.
    pub permute: bool,
    /// `-NUM` is an option (`nice -5`).
    pub numeric: bool,
    /// A lone `-` is an option (`env -` is `env -i`, `su -` is `su -l`).
    pub dash: bool,
    /// What it runs.
    pub run: Run,
    /// Command lines (split on spaces) and what each must run: the inner command's words
    /// joined by spaces, or `None` when the analysis must give up on it.
    pub examples: &'static [(&'static str, Option<&'static str>)],
}

/// Every program name whose words the analysis reads specially: the wrappers, the shells and
/// the builtins that run code. A program word that is a glob is analysed again as each of
/// these it could expand to.
pub fn known_programs() -> impl Iterator<Item = &'static str> {
    WRAPPERS
        .iter()
        .flat_map(|w| w.names.iter().copied())
        .chain(SHELLS.iter().copied())
        .chain(CODE_BUILTINS.iter().copied())
}

/// The wrapper table for `argv0`'s program name.
#[must_use]
pub fn wrapper(argv0: &str) -> Option<&'static Wrapper> {
    let p = program(argv0);
    WRAPPERS.iter().find(|w| w.names.contains(&p))
}

/// What the example `cmd` (split on spaces) runs, in the examples' notation.
fn example_result(cmd: &str) -> Option<String> {
    let argv: Vec<String> = cmd.split(' ').map(String::from).collect();
    let mut argv = argv;
    for _ in 0..4 {
        match unwrap(&argv)? {
            Inner::Argv { start, .. } => return Some(argv.get(start..)?.join(" ")),
            Inner::Word(i) => return argv.get(i).cloned(),
            Inner::Attached { text, .. } => return Some(text),
            Inner::Joined(i) => return Some(argv.get(i..)?.join(" ")),
            Inner::Split { words, through } => {
                let mut next = vec![argv.first()?.clone()];
                next.extend(words);
                next.extend(argv.get(through + 1..)?.iter().cloned());
                argv = next;
            }
            Inner::Stdin | Inner::Unknown(_) => return None,
        }
    }
    None
}

/// Whether every wrapper's examples hold (checked once; the analysis fails closed if not).
#[must_use]
pub fn tables_hold() -> bool {
    static HOLD: OnceLock<bool> = OnceLock::new();
    *HOLD.get_or_init(|| {
        WRAPPERS.iter().all(|w| {
            w.examples
                .iter()
                .all(|(cmd, want)| example_result(cmd).as_deref() == *want)
        })
    })
}

#[cfg(test)]
mod tests;
