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

/// Environment names whose value changes which program runs, what a shell, interpreter or
/// loader runs at start, or which configuration (able to name commands) a tool reads.
const DANGEROUS_ENV: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "PROMPT_COMMAND",
    "HOME",
    "ZDOTDIR",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "SHELL",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PYTHONWARNINGS",
    "PYTHONINSPECT",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "GCONV_PATH",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTDOCFLAGS",
    "RUSTFLAGS",
    "CC",
    "CXX",
    "LD",
    "MAKEFLAGS",
    "MAKEFILES",
    "TERMINFO",
];

/// Prefixes of environment names that are dangerous as a family (`LD_PRELOAD`, exported bash
/// functions, git configuration, npm and cargo configuration).
const DANGEROUS_ENV_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "BASH_FUNC_",
    "GIT_",
    "npm_config_",
    "NPM_CONFIG_",
    "CARGO_",
];

/// `GIT_*` names that only label or trace (they cannot name a command or a configuration).
const INERT_GIT_ENV: &[&str] = &[
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_TRACE",
    "GIT_TRACE_PERFORMANCE",
    "GIT_TRACE_SETUP",
    "GIT_TRACE_PACKET",
    "GIT_CURL_VERBOSE",
    "GIT_TERMINAL_PROMPT",
    "GIT_FLUSH",
    "GIT_OPTIONAL_LOCKS",
];

/// Whether assigning `name` in front of a command can change what runs.
#[must_use]
pub fn is_dangerous_env(name: &str) -> bool {
    if INERT_GIT_ENV.contains(&name) {
        return false;
    }
    DANGEROUS_ENV.contains(&name) || DANGEROUS_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether `s` is a shell variable name.
#[must_use]
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

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

const fn no(short: char, long: &'static str) -> Opt {
    Opt {
        short,
        long,
        arg: Arg::No,
    }
}
const fn req(short: char, long: &'static str) -> Opt {
    Opt {
        short,
        long,
        arg: Arg::Required,
    }
}
const fn opt(short: char, long: &'static str) -> Opt {
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

const HELP: Opt = no('\0', "help");
const VERSION: Opt = no('\0', "version");

/// The wrappers, one table each.
pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &["env"],
        opts: &[
            no('i', "ignore-environment"),
            no('0', "null"),
            req('u', "unset"),
            req('C', "chdir"),
            req('S', "split-string"),
            req('a', "argv0"),
            no('v', "debug"),
            opt('\0', "block-signal"),
            opt('\0', "default-signal"),
            opt('\0', "ignore-signal"),
            no('\0', "list-signal-handling"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: true,
        run: Run::Argv {
            operands: 0,
            assignments: true,
        },
        examples: &[
            ("env FOO=1 sudo id", Some("sudo id")),
            ("env - sudo id", Some("sudo id")),
            ("env -i -u HOME A=1 B=2 sudo id", Some("sudo id")),
            ("env -iuHOME sudo id", Some("sudo id")),
            ("env --unset=HOME --chdir /tmp sudo id", Some("sudo id")),
            ("env --ignore-e --ch=/ sudo id", Some("sudo id")),
            ("env --ign sudo id", None),
            ("env -S sudo id", Some("sudo id")),
            ("env --split-string=sudo id", Some("sudo id")),
            // The string is split the way env splits it: quotes, escapes, comments.
            ("env -S'sudo'\\_\"id\" x", Some("sudo id x")),
            (
                "env --split-string=sh\\_-c\\_\"sudo\\_id\"",
                Some("sh -c sudo id"),
            ),
            ("env --split-str sudo\\_id\\cx x", Some("sudo id x")),
            ("env -iS sudo\\_id\\_#x x", Some("sudo id x")),
            ("env -S${X}\\_id", None),
            ("env -S\"sudo", None),
            ("env -Ssudo\\q", None),
            ("env --default-signal sudo id", Some("sudo id")),
            ("env --nope sudo id", None),
            ("env -- sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["timeout"],
        opts: &[
            req('k', "kill-after"),
            req('s', "signal"),
            no('f', "foreground"),
            no('p', "preserve-status"),
            no('v', "verbose"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 1,
            assignments: false,
        },
        examples: &[
            ("timeout 5 sudo id", Some("sudo id")),
            ("timeout -vk 1 5 sudo id", Some("sudo id")),
            ("timeout -vk1 5 sudo id", Some("sudo id")),
            ("timeout -s KILL 5 sudo id", Some("sudo id")),
            ("timeout --signal=KILL --kill=3 5 sudo id", Some("sudo id")),
            ("timeout --foreground -- 5 sudo id", Some("sudo id")),
            ("timeout -x 5 sudo id", None),
        ],
    },
    Wrapper {
        names: &["nice"],
        opts: &[req('n', "adjustment"), HELP, VERSION],
        permute: false,
        numeric: true,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("nice sudo id", Some("sudo id")),
            ("nice -n 5 sudo id", Some("sudo id")),
            ("nice -n5 sudo id", Some("sudo id")),
            ("nice -5 sudo id", Some("sudo id")),
            ("nice --adj=5 sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["ionice"],
        opts: &[
            req('c', "class"),
            req('n', "classdata"),
            req('p', "pid"),
            req('P', "pgid"),
            req('u', "uid"),
            no('t', "ignore"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("ionice -c2 -n7 sudo id", Some("sudo id")),
            ("ionice -tc 3 sudo id", Some("sudo id")),
            ("ionice --class=idle sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["nohup", "builtin", "coproc"],
        opts: &[HELP, VERSION],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("nohup sudo id", Some("sudo id")),
            ("nohup -- sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["busybox", "toybox"],
        opts: &[],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("busybox sudo id", Some("sudo id")),
            ("busybox sh -c x", Some("sh -c x")),
        ],
    },
    Wrapper {
        names: &["setsid"],
        opts: &[
            no('c', "ctty"),
            no('f', "fork"),
            no('w', "wait"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("setsid -fw sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["stdbuf"],
        opts: &[
            req('i', "input"),
            req('o', "output"),
            req('e', "error"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("stdbuf -oL -e 0 sudo id", Some("sudo id")),
            ("stdbuf --output=L sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["chroot"],
        opts: &[
            req('\0', "userspec"),
            req('\0', "groups"),
            no('\0', "skip-chdir"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 1,
            assignments: false,
        },
        examples: &[
            ("chroot / sudo id", Some("sudo id")),
            ("chroot --userspec 0:0 / sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["unshare"],
        opts: &[
            no('f', "fork"),
            no('m', ""),
            opt('\0', "mount"),
            no('u', ""),
            opt('\0', "uts"),
            no('i', ""),
            opt('\0', "ipc"),
            no('n', ""),
            opt('\0', "net"),
            no('p', ""),
            opt('\0', "pid"),
            no('U', ""),
            opt('\0', "user"),
            no('C', ""),
            opt('\0', "cgroup"),
            no('T', ""),
            opt('\0', "time"),
            no('r', "map-root-user"),
            no('c', "map-current-user"),
            req('R', "root"),
            req('w', "wd"),
            req('S', "setuid"),
            req('G', "setgid"),
            req('l', "load-interp"),
            opt('\0', "kill-child"),
            opt('\0', "mount-proc"),
            opt('\0', "mount-binfmt"),
            req('\0', "map-user"),
            req('\0', "map-group"),
            req('\0', "map-users"),
            req('\0', "map-groups"),
            no('\0', "map-auto"),
            req('\0', "propagation"),
            req('\0', "setgroups"),
            no('\0', "keep-caps"),
            req('\0', "monotonic"),
            req('\0', "boottime"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("unshare -rm sudo id", Some("sudo id")),
            ("unshare --mount=/x -w / sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["nsenter"],
        opts: &[
            no('a', "all"),
            req('t', "target"),
            opt('m', "mount"),
            opt('u', "uts"),
            opt('i', "ipc"),
            opt('n', "net"),
            opt('p', "pid"),
            opt('C', "cgroup"),
            opt('U', "user"),
            opt('T', "time"),
            req('S', "setuid"),
            req('G', "setgid"),
            opt('r', "root"),
            opt('w', "wd"),
            req('W', "wdns"),
            no('e', "env"),
            no('F', "no-fork"),
            no('Z', "follow-context"),
            no('c', "join-cgroup"),
            no('\0', "preserve-credentials"),
            no('\0', "keep-caps"),
            no('\0', "user-parent"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("nsenter -t 1 -m -u sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["strace"],
        opts: &[
            req('a', "columns"),
            no('A', ""),
            req('b', "detach-on"),
            no('c', "summary-only"),
            no('C', "summary"),
            no('d', "debug"),
            no('D', "daemonize"),
            req('e', ""),
            req('E', "env"),
            no('f', "follow-forks"),
            no('F', ""),
            no('h', "help"),
            no('i', "instruction-pointer"),
            req('I', "interruptible"),
            no('k', "stack-trace"),
            no('n', "syscall-number"),
            req('o', "output"),
            req('O', "summary-syscall-overhead"),
            req('p', "attach"),
            req('P', "trace-path"),
            no('q', "quiet"),
            no('r', "relative-timestamps"),
            req('s', "string-limit"),
            req('S', "summary-sort-by"),
            no('t', "absolute-timestamps"),
            no('T', "syscall-times"),
            req('u', "user"),
            req('U', "summary-columns"),
            no('v', "no-abbrev"),
            no('V', "version"),
            no('w', "summary-wall-clock"),
            no('x', ""),
            req('X', "const-print-style"),
            no('y', "decode-fds"),
            no('z', "successful-only"),
            no('Z', "failed-only"),
            req('\0', "trace"),
            req('\0', "signal"),
            req('\0', "status"),
            req('\0', "raw"),
            req('\0', "read"),
            req('\0', "write"),
            req('\0', "inject"),
            req('\0', "fault"),
            no('\0', "seccomp-bpf"),
            no('\0', "output-separately"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("strace -f sudo id", Some("sudo id")),
            ("strace -fo log -e trace=all sudo id", Some("sudo id")),
            ("strace --output=log sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["ltrace"],
        opts: &[
            req('a', "align"),
            req('A', ""),
            no('b', "no-signals"),
            no('c', ""),
            no('C', "demangle"),
            req('D', "debug"),
            req('e', ""),
            no('f', ""),
            req('F', "config"),
            no('h', "help"),
            no('i', ""),
            req('l', "library"),
            no('L', ""),
            req('n', "indent"),
            req('o', "output"),
            req('p', ""),
            no('r', ""),
            req('s', ""),
            no('S', ""),
            no('t', ""),
            no('T', ""),
            req('u', ""),
            no('V', "version"),
            req('w', "where"),
            req('x', ""),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("ltrace -f -o log sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["taskset"],
        opts: &[
            no('a', "all-tasks"),
            no('p', "pid"),
            no('c', "cpu-list"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 1,
            assignments: false,
        },
        examples: &[
            ("taskset -c 0 sudo id", Some("sudo id")),
            ("taskset 0x1 sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["chrt"],
        opts: &[
            no('b', "batch"),
            no('d', "deadline"),
            no('f', "fifo"),
            no('i', "idle"),
            no('o', "other"),
            no('r', "rr"),
            no('R', "reset-on-fork"),
            no('a', "all-tasks"),
            no('m', "max"),
            no('p', "pid"),
            no('v', "verbose"),
            req('T', "sched-runtime"),
            req('P', "sched-period"),
            req('D', "sched-deadline"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 1,
            assignments: false,
        },
        examples: &[("chrt -f 10 sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["sudo"],
        opts: &[
            no('A', "askpass"),
            no('b', "background"),
            no('B', "bell"),
            req('C', "close-from"),
            req('D', "chdir"),
            opt('\0', "preserve-env"),
            no('E', ""),
            no('e', "edit"),
            req('g', "group"),
            no('H', "set-home"),
            no('h', "help"),
            req('\0', "host"),
            no('i', "login"),
            no('K', "remove-timestamp"),
            no('k', "reset-timestamp"),
            no('l', "list"),
            no('n', "non-interactive"),
            no('N', "no-update"),
            no('P', "preserve-groups"),
            req('p', "prompt"),
            req('R', "chroot"),
            req('r', "role"),
            no('S', "stdin"),
            no('s', "shell"),
            req('t', "type"),
            req('T', "command-timeout"),
            req('U', "other-user"),
            req('u', "user"),
            no('V', "version"),
            no('v', "validate"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: true,
        },
        examples: &[
            ("sudo -u root rm x", Some("rm x")),
            ("sudo -nEu root A=1 rm x", Some("rm x")),
            ("sudo --user=root rm x", Some("rm x")),
        ],
    },
    Wrapper {
        names: &["doas"],
        opts: &[
            req('a', ""),
            req('C', ""),
            no('L', ""),
            no('n', ""),
            no('s', ""),
            req('u', ""),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("doas -u root rm x", Some("rm x"))],
    },
    Wrapper {
        names: &["pkexec"],
        opts: &[
            req('\0', "user"),
            no('\0', "disable-internal-agent"),
            no('\0', "keep-cwd"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("pkexec --user root rm x", Some("rm x"))],
    },
    Wrapper {
        names: &["run0"],
        opts: &[
            req('u', "user"),
            req('g', "group"),
            req('\0', "nice"),
            req('D', "chdir"),
            req('\0', "setenv"),
            req('\0', "unit"),
            req('\0', "property"),
            req('\0', "description"),
            req('\0', "slice"),
            no('\0', "slice-inherit"),
            req('\0', "background"),
            no('\0', "no-ask-password"),
            req('\0', "machine"),
            no('\0', "pty"),
            no('\0', "pipe"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("run0 -u root rm x", Some("rm x"))],
    },
    Wrapper {
        names: &["systemd-run"],
        opts: &[
            no('\0', "user"),
            no('\0', "system"),
            no('\0', "scope"),
            req('u', "unit"),
            req('p', "property"),
            req('E', "setenv"),
            no('t', "pty"),
            no('P', "pipe"),
            no('q', "quiet"),
            no('G', "collect"),
            no('r', "remain-after-exit"),
            no('d', "same-dir"),
            no('S', "shell"),
            req('M', "machine"),
            req('H', "host"),
            req('\0', "uid"),
            req('\0', "gid"),
            req('\0', "nice"),
            req('\0', "slice"),
            req('\0', "description"),
            req('\0', "service-type"),
            req('\0', "working-directory"),
            no('\0', "wait"),
            no('\0', "no-block"),
            no('\0', "no-ask-password"),
            no('h', "help"),
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("systemd-run --user -t sudo id", Some("sudo id")),
            ("systemd-run --on-active=5 sudo id", None),
        ],
    },
    Wrapper {
        names: &["xargs"],
        opts: &[
            no('0', "null"),
            req('a', "arg-file"),
            req('d', "delimiter"),
            req('E', ""),
            opt('e', "eof"),
            req('I', ""),
            opt('i', "replace"),
            req('L', ""),
            opt('l', "max-lines"),
            req('n', "max-args"),
            req('P', "max-procs"),
            no('p', "interactive"),
            no('r', "no-run-if-empty"),
            req('s', "max-chars"),
            no('t', "verbose"),
            no('x', "exit"),
            no('o', "open-tty"),
            req('\0', "process-slot-var"),
            no('\0', "show-limits"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[
            ("xargs -n 1 -I {} rm {}", Some("rm {}")),
            ("xargs -0rn1 rm", Some("rm")),
            ("xargs --max-args=1 rm", Some("rm")),
            ("xargs -i rm {}", Some("rm {}")),
        ],
    },
    Wrapper {
        names: &["command"],
        opts: &[no('p', ""), no('v', ""), no('V', "")],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("command -p sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["exec"],
        opts: &[no('c', ""), no('l', ""), req('a', "")],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("exec -cla x sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["time"],
        opts: &[
            no('p', "portability"),
            req('f', "format"),
            req('o', "output"),
            no('a', "append"),
            no('v', "verbose"),
            no('q', "quiet"),
            HELP,
            VERSION,
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Argv {
            operands: 0,
            assignments: false,
        },
        examples: &[("time -p sudo id", Some("sudo id"))],
    },
    Wrapper {
        names: &["flock"],
        opts: &[
            no('s', "shared"),
            no('x', "exclusive"),
            no('e', ""),
            no('u', "unlock"),
            no('n', "nonblock"),
            no('\0', "nb"),
            no('o', "close"),
            no('F', "no-fork"),
            req('w', "timeout"),
            req('\0', "wait"),
            req('E', "conflict-exit-code"),
            req('c', "command"),
            no('\0', "verbose"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Text {
            option: 'c',
            operands: 1,
            rest: Rest::Argv,
        },
        examples: &[
            ("flock /tmp/l sudo id", Some("sudo id")),
            ("flock -w 5 /tmp/l -c id", Some("id")),
            ("flock -nx /tmp/l --command id", Some("id")),
            // After the file only `-c STRING` or `--command STRING` is the option form.
            ("flock /tmp/l --command=id", Some("--command=id")),
        ],
    },
    Wrapper {
        names: &["script"],
        opts: &[
            no('a', "append"),
            req('c', "command"),
            no('e', "return"),
            req('E', "echo"),
            no('f', "flush"),
            no('\0', "force"),
            no('q', "quiet"),
            opt('t', "timing"),
            req('T', "log-timing"),
            req('I', "log-in"),
            req('O', "log-out"),
            req('B', "log-io"),
            req('m', "logging-format"),
            req('o', "output-limit"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: true,
        numeric: false,
        dash: false,
        run: Run::Text {
            option: 'c',
            operands: 0,
            rest: Rest::Stdin,
        },
        examples: &[
            ("script -qc id /dev/null", Some("id")),
            ("script /dev/null -q -c id", Some("id")),
            ("script --command=id", Some("id")),
            ("script --comm id", Some("id")),
            ("script -q /dev/null", None),
        ],
    },
    Wrapper {
        names: &["su", "runuser"],
        opts: &[
            req('c', "command"),
            req('\0', "session-command"),
            no('f', "fast"),
            req('g', "group"),
            req('G', "supp-group"),
            no('l', "login"),
            no('m', "preserve-environment"),
            no('p', ""),
            no('P', "pty"),
            req('s', "shell"),
            req('u', "user"),
            req('w', "whitelist-environment"),
            no('h', "help"),
            no('V', "version"),
        ],
        permute: true,
        numeric: false,
        dash: true,
        run: Run::Text {
            option: 'c',
            operands: 0,
            rest: Rest::Nothing,
        },
        examples: &[
            ("su -c id", Some("id")),
            ("su - root -c id", Some("id")),
            ("su -lc id root", Some("id")),
            ("su --comm=id", Some("id")),
            ("runuser -u nobody -c id", Some("id")),
        ],
    },
    Wrapper {
        names: &["sg"],
        opts: &[],
        permute: false,
        numeric: false,
        dash: true,
        run: Run::Text {
            option: 'c',
            operands: 1,
            rest: Rest::Joined,
        },
        examples: &[
            ("sg wheel -c id", Some("id")),
            ("sg wheel sudo id", Some("sudo id")),
        ],
    },
    Wrapper {
        names: &["watch"],
        opts: &[
            no('b', "beep"),
            no('c', "color"),
            no('C', "no-color"),
            opt('d', "differences"),
            no('e', "errexit"),
            no('g', "chgexit"),
            req('n', "interval"),
            no('p', "precise"),
            req('q', "equexit"),
            no('r', "no-rerun"),
            no('t', "no-title"),
            no('w', "no-wrap"),
            no('x', "exec"),
            no('s', "shotsdir"),
            no('h', "help"),
            no('v', "version"),
        ],
        permute: false,
        numeric: false,
        dash: false,
        run: Run::Joined { exec: 'x' },
        examples: &[
            ("watch sudo id", Some("sudo id")),
            ("watch -n1 -d sudo id", Some("sudo id")),
            ("watch --interval=1 --diff sudo id", Some("sudo id")),
            ("watch -x sudo id", Some("sudo id")),
        ],
    },
];

/// Builtins whose arguments the analysis reads as code or arithmetic (`eval`, `trap`, `.`,
/// `let`, `test`, ...), besides the wrappers and shells.
const CODE_BUILTINS: &[&str] = &[
    "eval",
    "trap",
    "source",
    ".",
    "find",
    "git",
    "let",
    "test",
    "[",
    "printf",
    "unset",
    "read",
    "mapfile",
    "readarray",
    "wait",
    "getopts",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
];

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

/// The options read from a wrapper's argv.
#[derive(Debug, Default)]
struct Parsed {
    /// Each option given: its short letter (or `'\0'`), and the index of its value word or
    /// its attached value.
    given: Vec<(char, &'static str, Value, usize)>,
    /// Operand indexes (only when the wrapper permutes).
    operands: Vec<usize>,
    /// The first index after the options (when the wrapper does not permute).
    end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    None,
    Word(usize),
    Attached(String),
}

/// The long option `name` abbreviates, GNU style: an exact name, else the one option it is a
/// prefix of.
fn long_option(opts: &'static [Opt], name: &str) -> Result<&'static Opt, String> {
    if let Some(o) = opts.iter().find(|o| !o.long.is_empty() && o.long == name) {
        return Ok(o);
    }
    let mut found = opts
        .iter()
        .filter(|o| !o.long.is_empty() && !name.is_empty() && o.long.starts_with(name));
    match (found.next(), found.next()) {
        (Some(o), None) => Ok(o),
        (Some(_), Some(_)) => Err(format!("--{name} is ambiguous")),
        _ => Err(format!("--{name} is not a known option")),
    }
}

/// Reads `w`'s options from `argv[1..]` as `getopt_long` would.
fn parse(w: &'static Wrapper, argv: &[String]) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        if a == "--" {
            i += 1;
            if w.permute {
                p.operands.extend(i..argv.len());
                i = argv.len();
            }
            break;
        }
        let is_option = (a.len() > 1 && a.starts_with('-')) || (a == "-" && w.dash);
        if !is_option {
            if w.permute {
                p.operands.push(i);
                i += 1;
                continue;
            }
            break;
        }
        if a == "-" {
            p.given.push(('-', "", Value::None, i));
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let at = i;
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let o = long_option(w.opts, name)?;
            let value = match (o.arg, attached) {
                (Arg::No, Some(_)) => return Err(format!("--{} takes no value", o.long)),
                (Arg::No | Arg::Optional, None) => Value::None,
                (_, Some(v)) => Value::Attached(v.to_string()),
                (Arg::Required, None) => {
                    i += 1;
                    if i >= argv.len() {
                        return Err(format!("--{} needs a value", o.long));
                    }
                    Value::Word(i)
                }
            };
            p.given.push((o.short, o.long, value, at));
            i += 1;
            continue;
        }
        let cluster = &a[1..];
        if w.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
            i += 1;
            continue;
        }
        let word = i;
        for (at, c) in cluster.char_indices() {
            let Some(o) = w.opts.iter().find(|o| o.short != '\0' && o.short == c) else {
                return Err(format!("-{c} is not a known option"));
            };
            let rest = &cluster[at + c.len_utf8()..];
            match o.arg {
                Arg::No => p.given.push((o.short, o.long, Value::None, word)),
                Arg::Optional => {
                    let v = if rest.is_empty() {
                        Value::None
                    } else {
                        Value::Attached(rest.to_string())
                    };
                    p.given.push((o.short, o.long, v, word));
                    break;
                }
                Arg::Required => {
                    let v = if rest.is_empty() {
                        i += 1;
                        if i >= argv.len() {
                            return Err(format!("-{c} needs a value"));
                        }
                        Value::Word(i)
                    } else {
                        Value::Attached(rest.to_string())
                    };
                    p.given.push((o.short, o.long, v, word));
                    break;
                }
            }
        }
        i += 1;
    }
    p.end = i;
    Ok(p)
}

/// What a wrapper command runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Inner {
    /// `argv[start..]` is the inner command; `env` names the `NAME=value` words the wrapper
    /// assigns.
    Argv {
        /// Index of the inner command's program.
        start: usize,
        /// Names assigned by the wrapper.
        env: Vec<String>,
    },
    /// The word at this index is a command string run by a shell.
    Word(usize),
    /// The option value attached to the word at `index` (`--command=STRING`, `-cSTRING`) is
    /// a command string.
    Attached {
        /// The word holding it.
        index: usize,
        /// The string.
        text: String,
    },
    /// The words from this index, joined by spaces, are a command string.
    Joined(usize),
    /// `env -S STRING`: the string's words (split as env splits it) stand for the words
    /// `argv[1..=through]`; the command to analyse is `env` followed by them and the rest.
    Split {
        /// The words of the string.
        words: Vec<String>,
        /// The last word they replace.
        through: usize,
    },
    /// The program reads commands from standard input.
    Stdin,
    /// The wrapper's arguments could not be followed (why).
    Unknown(String),
}

/// What `argv` runs when its program is a wrapper; `None` when it is not one or runs nothing
/// (`sudo -i`, `env` alone, `su`).
#[must_use]
pub fn unwrap(argv: &[String]) -> Option<Inner> {
    let w = wrapper(argv.first()?)?;
    let name = program(argv.first()?);
    let p = match parse(w, argv) {
        Ok(p) => p,
        Err(why) => return Some(Inner::Unknown(format!("{name}: {why}"))),
    };
    if name == "env" {
        if let Some((_, _, v, at)) = p.given.iter().find(|(s, _, _, _)| *s == 'S') {
            let (through, text) = match v {
                Value::Word(i) => (*i, argv.get(*i).cloned().unwrap_or_default()),
                Value::Attached(t) => (*at, t.clone()),
                Value::None => return Some(Inner::Unknown("env -S without a value".into())),
            };
            // Options before -S are kept by re-reading the words after it in their place.
            return Some(match split_string(&text) {
                Ok(words) => Inner::Split { words, through },
                Err(why) => Inner::Unknown(format!("env -S {why}")),
            });
        }
    }
    let option_value = |c: char| {
        p.given.iter().rev().find_map(|(s, _, v, at)| match v {
            _ if *s != c => None,
            Value::Word(i) => Some(Inner::Word(*i)),
            Value::Attached(t) => Some(Inner::Attached {
                index: *at,
                text: t.clone(),
            }),
            Value::None => None,
        })
    };
    let first_operand = if w.permute {
        p.operands.first().copied().unwrap_or(argv.len())
    } else {
        p.end
    };
    let inner = match w.run {
        Run::Argv {
            operands,
            assignments,
        } => {
            let mut i = first_operand + operands;
            let mut env = Vec::new();
            if assignments {
                // Like `env` itself, any `NAME=value` word with a name counts (exported bash
                // functions are named `BASH_FUNC_f%%`).
                while let Some((n, _)) = argv.get(i).and_then(|a| a.split_once('=')) {
                    if n.is_empty() || n.starts_with('-') {
                        break;
                    }
                    env.push(n.to_string());
                    i += 1;
                }
            }
            Inner::Argv { start: i, env }
        }
        Run::Text {
            option,
            operands,
            rest,
        } => {
            if let Some(found) = option_value(option) {
                return Some(found);
            }
            let i = first_operand + operands;
            let o = w.opts.iter().find(|o| o.short == option);
            let long = o.map_or("", |o| o.long);
            match argv.get(i).map(String::as_str) {
                Some(a)
                    if a == format!("-{option}")
                        || (!long.is_empty() && a == format!("--{long}")) =>
                {
                    Inner::Word(i + 1)
                }
                _ => match rest {
                    Rest::Argv => Inner::Argv {
                        start: i,
                        env: Vec::new(),
                    },
                    Rest::Joined => Inner::Joined(i),
                    Rest::Stdin => Inner::Stdin,
                    Rest::Nothing => return None,
                },
            }
        }
        Run::Joined { exec } => {
            if p.given.iter().any(|(s, _, _, _)| *s == exec) {
                Inner::Argv {
                    start: first_operand,
                    env: Vec::new(),
                }
            } else {
                Inner::Joined(first_operand)
            }
        }
    };
    match &inner {
        Inner::Argv { start, .. } | Inner::Word(start) | Inner::Joined(start)
            if *start >= argv.len() =>
        {
            None
        }
        _ => Some(inner),
    }
}

/// How a shell invocation runs commands.
#[derive(Debug, PartialEq, Eq)]
pub enum Shell {
    /// `-c`: the word at this index is the command string.
    String(usize),
    /// It runs the script file at this index (not analysed).
    Script(usize),
    /// It reads commands from standard input.
    Stdin,
    /// Its options could not be followed.
    Unknown(String),
}

/// Long options of bash and its kin that take a value.
const SHELL_LONG_VALUES: &[&str] = &["--rcfile", "--init-file"];

/// How `argv` runs commands when its program is a shell in [`SHELLS`], or `None`.
///
/// Options are read as bash reads them: long options first (`--rcfile FILE` and
/// `--init-file FILE` take a value), then clusters of `-`/`+` letters in which each `o` or `O`
/// takes the next word (`-eo pipefail`); `--` or a lone `-` ends the options. With `c`
/// among them, the first operand is the command string; `-s` or no operand means standard
/// input.
#[must_use]
pub fn shell_invocation(argv: &[String]) -> Option<Shell> {
    if !SHELLS.contains(&program(argv.first()?)) {
        return None;
    }
    let mut i = 1;
    let mut has_c = false;
    let mut has_s = false;
    while let Some(a) = argv.get(i) {
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            i += if SHELL_LONG_VALUES.iter().any(|l| &l[2..] == long) {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) else {
            break;
        };
        if flags.is_empty() {
            break;
        }
        let mut takes = 0;
        for c in flags.chars() {
            match c {
                'c' => has_c = true,
                's' => has_s = true,
                'o' | 'O' => takes += 1,
                c if c.is_ascii_alphabetic() => {}
                other => return Some(Shell::Unknown(format!("the shell option {other:?}"))),
            }
        }
        i += 1 + takes;
    }
    Some(if has_c {
        if i < argv.len() {
            Shell::String(i)
        } else {
            Shell::Unknown("a shell -c without a command string".into())
        }
    } else if has_s || i >= argv.len() {
        Shell::Stdin
    } else {
        Shell::Script(i)
    })
}

/// The index of the command string of `sh -c STRING`, if `argv` is one.
#[must_use]
pub fn shell_command_string(argv: &[String]) -> Option<usize> {
    match shell_invocation(argv)? {
        Shell::String(i) => Some(i),
        _ => None,
    }
}

/// The `[start, end)` argv slices `find` runs with `-exec`, `-execdir`, `-ok` and `-okdir`.
#[must_use]
pub fn find_exec_ranges(argv: &[String]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if argv.first().map(|a| program(a)) != Some("find") {
        return out;
    }
    let mut i = 1;
    while i < argv.len() {
        if matches!(argv[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let mut end = start;
            while end < argv.len() && argv[end] != ";" && argv[end] != "+" {
                end += 1;
            }
            if end > start {
                out.push((start, end));
            }
            i = end;
        }
        i += 1;
    }
    out
}

/// The words GNU `env -S STRING` makes of `STRING` (coreutils' `env -S/--split-string`
/// syntax): blanks (space, tab, newline, `\v`, `\f`, `\r`) separate words; in single quotes
/// only `\\` and `\'` are escapes; outside them `\"`, `\'`, `\\`, `\#`, `\$`, `\f`, `\n`,
/// `\r`, `\t`, `\v` stand for one character, `\_` for a blank (a separator outside double
/// quotes, a space inside), and `\c` (not in double quotes) ends the string; a `#` that begins
/// a word begins a comment. `${NAME}` outside single quotes is the environment's value, which
/// the analysis does not know, so it is `Err` (the command needs approval), as are the strings
/// `env` itself refuses (`$NAME` without braces, another escape, an open quote): nothing runs
/// then, but the analysis does not claim to know that.
fn split_string(text: &str) -> Result<Vec<String>, &'static str> {
    const BLANKS: &[char] = &[' ', '\t', '\n', '\u{b}', '\u{c}', '\r'];
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has begun (`''` is an empty word).
    let mut started = false;
    let mut chars = text.chars();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        if single {
            match c {
                '\'' => single = false,
                '\\' => match chars.clone().next() {
                    Some(e @ ('\\' | '\'')) => {
                        chars.next();
                        word.push(e);
                    }
                    _ => word.push('\\'),
                },
                _ => word.push(c),
            }
            continue;
        }
        match c {
            '\'' if !double => {
                single = true;
                started = true;
            }
            '"' => {
                double = !double;
                started = true;
            }
            '$' => return Err("with a variable (its value is the environment's)"),
            '#' if !double && !started => break,
            '\\' => {
                let e = chars.next().ok_or("with an escape env refuses")?;
                let ch = match e {
                    '"' | '\'' | '\\' | '#' | '$' => e,
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\u{b}',
                    '_' if double => ' ',
                    '_' => {
                        if started {
                            words.push(std::mem::take(&mut word));
                            started = false;
                        }
                        continue;
                    }
                    'c' if !double => break,
                    _ => return Err("with an escape env refuses"),
                };
                word.push(ch);
                started = true;
            }
            c if !double && BLANKS.contains(&c) => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if single || double {
        return Err("with a quote left open");
    }
    if started {
        words.push(word);
    }
    Ok(words)
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
mod tests {
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
}
