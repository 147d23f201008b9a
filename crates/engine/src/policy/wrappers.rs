//! Commands that run another command: where the inner command starts in their argv.
//!
//! `env`, `timeout`, `nice`, `nohup`, `command`, `exec`, `time`, `sudo`, `doas`, `xargs`,
//! `setsid`, `stdbuf`, `ionice` and `builtin` run the rest of their argv as a command;
//! `sh -c`/`bash -c` (and the other POSIX shells) run a string; `find -exec` runs a slice.

/// The program name of `argv0`: its last path component (`/usr/bin/sudo` is `sudo`).
#[must_use]
pub fn program(argv0: &str) -> &str {
    argv0.rsplit('/').next().unwrap_or(argv0)
}

/// Shells whose `-c` operand is a command string.
pub const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox"];

/// Environment names whose value changes which program runs or what a shell does at start.
const DANGEROUS_ENV: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "PAGER",
    "EDITOR",
    "VISUAL",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "RUBYOPT",
];

/// Whether assigning `name` in front of a command can change what runs.
#[must_use]
pub fn is_dangerous_env(name: &str) -> bool {
    name.starts_with("LD_") || name.starts_with("DYLD_") || DANGEROUS_ENV.contains(&name)
}

/// The inner command of a wrapper: where it starts in the argv and the `NAME=value`
/// assignments the wrapper itself makes (`env FOO=1 cmd`, `sudo FOO=1 cmd`).
#[derive(Debug, PartialEq, Eq)]
pub struct Unwrapped {
    /// Index of the inner command's program in the argv.
    pub start: usize,
    /// Names assigned by the wrapper.
    pub env: Vec<String>,
}

/// Skips options from `i`: `with_value` options take the next word unless written
/// `--opt=value` or (for one-letter options) attached (`-n10`). Stops at `--` (skipped) or the
/// first word not starting with `-`.
fn skip_options(argv: &[String], mut i: usize, with_value: &[&str]) -> usize {
    while let Some(a) = argv.get(i) {
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        let takes_next = with_value.contains(&a.as_str());
        i += if takes_next { 2 } else { 1 };
    }
    i
}

/// Skips leading `NAME=value` words from `i`, collecting the names.
fn skip_assignments(argv: &[String], mut i: usize, env: &mut Vec<String>) -> usize {
    while let Some(a) = argv.get(i) {
        match a.split_once('=') {
            Some((name, _)) if is_name(name) => env.push(name.to_string()),
            _ => return i,
        }
        i += 1;
    }
    i
}

/// Whether `s` is a shell variable name.
#[must_use]
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The inner command of a wrapper command, or `None` when `argv` is not a wrapper or the
/// wrapper runs no command (`sudo -i`, `env` alone).
#[must_use]
pub fn unwrap(argv: &[String]) -> Option<Unwrapped> {
    let first = argv.first()?;
    let mut env = Vec::new();
    let start = match program(first) {
        "env" => {
            let mut i = 1;
            loop {
                i = skip_options(
                    argv,
                    i,
                    &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
                );
                let next = skip_assignments(argv, i, &mut env);
                if next == i {
                    break i;
                }
                i = next;
            }
        }
        "timeout" => skip_options(argv, 1, &["-s", "--signal", "-k", "--kill-after"]) + 1,
        "nice" => skip_options(argv, 1, &["-n", "--adjustment"]),
        "ionice" => skip_options(
            argv,
            1,
            &["-c", "--class", "-n", "--classdata", "-p", "-P", "-u"],
        ),
        "nohup" | "builtin" | "setsid" | "coproc" => skip_options(argv, 1, &[]),
        "command" | "time" => skip_options(argv, 1, &[]),
        "exec" => skip_options(argv, 1, &["-a"]),
        "stdbuf" => skip_options(
            argv,
            1,
            &["-i", "-o", "-e", "--input", "--output", "--error"],
        ),
        "chroot" => skip_options(argv, 1, &["--userspec", "--groups"]) + 1,
        "unshare" => skip_options(
            argv,
            1,
            &[
                "-S",
                "--setuid",
                "-G",
                "--setgid",
                "-R",
                "--root",
                "-w",
                "--wd",
                "--propagation",
                "--setgroups",
            ],
        ),
        "strace" | "ltrace" => skip_options(
            argv,
            1,
            &[
                "-e", "-o", "-p", "-s", "-u", "-E", "-a", "-P", "-I", "-b", "-X", "-O",
            ],
        ),
        "taskset" => skip_options(argv, 1, &[]) + 1,
        "flock" if !argv.iter().any(|a| a == "-c" || a == "--command") => {
            skip_options(argv, 1, &["-w", "--timeout", "-E", "--conflict-exit-code"]) + 1
        }
        "sudo" | "doas" | "pkexec" | "run0" => {
            let i = skip_options(
                argv,
                1,
                &[
                    "-u",
                    "--user",
                    "-g",
                    "--group",
                    "-U",
                    "--other-user",
                    "-C",
                    "--close-from",
                    "-D",
                    "--chdir",
                    "-h",
                    "--host",
                    "-p",
                    "--prompt",
                    "-r",
                    "--role",
                    "-t",
                    "--type",
                    "-T",
                    "--command-timeout",
                    "-R",
                    "--chroot",
                ],
            );
            skip_assignments(argv, i, &mut env)
        }
        "xargs" => skip_options(
            argv,
            1,
            &[
                "-a",
                "--arg-file",
                "-d",
                "--delimiter",
                "-E",
                "-I",
                "-L",
                "--max-lines",
                "-n",
                "--max-args",
                "-P",
                "--max-procs",
                "-s",
                "--max-chars",
            ],
        ),
        _ => return None,
    };
    (start < argv.len()).then_some(Unwrapped { start, env })
}

/// A command given as text to a program that runs it through a shell.
#[derive(Debug, PartialEq, Eq)]
pub enum CommandText {
    /// The word at this index is the command (`flock f -c CMD`, `script -c CMD`, `su -c CMD`).
    Word(usize),
    /// The words from this index, joined by spaces, are the command (`watch CMD ...`).
    Joined(usize),
}

/// The command text that `watch`, `flock -c`, `script -c`, `su -c`, `runuser -c` or `sg -c`
/// runs through a shell, if `argv` is one of those.
#[must_use]
pub fn command_text(argv: &[String]) -> Option<CommandText> {
    match program(argv.first()?) {
        "watch" => {
            let i = skip_options(
                argv,
                1,
                &["-n", "--interval", "-d", "-q", "--equexit", "-s", "--shell"],
            );
            (i < argv.len()).then_some(CommandText::Joined(i))
        }
        "flock" | "script" | "su" | "runuser" | "sg" => {
            let i = argv.iter().position(|a| a == "-c" || a == "--command")?;
            (i + 1 < argv.len()).then_some(CommandText::Word(i + 1))
        }
        _ => None,
    }
}

/// The index of the command string of `sh -c STRING` (any shell in [`SHELLS`], flags such
/// as `-lc`/`-ec` included), or `None` when the shell runs a script or reads stdin.
#[must_use]
pub fn shell_command_string(argv: &[String]) -> Option<usize> {
    let mut i = 1;
    if program(argv.first()?) == "busybox" {
        // `busybox sh -c ...`: the applet comes first.
        if !SHELLS.contains(&program(argv.get(1)?)) {
            return None;
        }
        i = 2;
    } else if !SHELLS.contains(&program(argv.first()?)) {
        return None;
    }
    let mut has_c = false;
    while let Some(a) = argv.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
            i += 2;
            continue;
        }
        if let Some(flags) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
            if !flags.starts_with('-') && flags.contains('c') {
                has_c = true;
            }
            i += 1;
            continue;
        }
        break;
    }
    (has_c && i < argv.len()).then_some(i)
}

/// Whether a shell in `argv` reads its commands from standard input (no `-c` string and no
/// script operand), where the analysis cannot see them.
#[must_use]
pub fn shell_reads_stdin(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let mut i = 1;
    if program(first) == "busybox" {
        if !argv.get(1).is_some_and(|a| SHELLS.contains(&program(a))) {
            return false;
        }
        i = 2;
    } else if !SHELLS.contains(&program(first)) {
        return false;
    }
    if shell_command_string(argv).is_some() {
        return false;
    }
    while let Some(a) = argv.get(i) {
        if a == "--" {
            return argv.get(i + 1).is_none();
        }
        if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
            i += 2;
            continue;
        }
        if a.starts_with('-') || a.starts_with('+') {
            if !a.starts_with("--") && a.contains('s') {
                return true;
            }
            i += 1;
            continue;
        }
        return false;
    }
    true
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

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn wrappers_find_their_inner_command() {
        assert_eq!(unwrap(&v("timeout 5 sudo x")).map(|u| u.start), Some(2));
        assert_eq!(
            unwrap(&v("timeout -s KILL 5 make")).map(|u| u.start),
            Some(4)
        );
        assert_eq!(
            unwrap(&v("env -i FOO=1 PATH=/x ls")).map(|u| u.start),
            Some(4)
        );
        assert_eq!(
            unwrap(&v("env FOO=1 ls")).map(|u| u.env),
            Some(vec!["FOO".to_string()])
        );
        assert_eq!(unwrap(&v("nice -n 10 make")).map(|u| u.start), Some(3));
        assert_eq!(unwrap(&v("sudo -u root rm x")).map(|u| u.start), Some(3));
        assert_eq!(
            unwrap(&v("xargs -n 1 -I {} rm {}")).map(|u| u.start),
            Some(5)
        );
        assert_eq!(unwrap(&v("sudo -i")), None);
        assert_eq!(unwrap(&v("coproc sudo id")).map(|u| u.start), Some(1));
        assert_eq!(unwrap(&v("pkexec rm x")).map(|u| u.start), Some(1));
        assert_eq!(unwrap(&v("ls -la")), None);
    }

    #[test]
    fn shell_strings_are_found() {
        assert_eq!(shell_command_string(&v("bash -c x")), Some(2));
        assert_eq!(shell_command_string(&v("/bin/sh -lc x")), Some(2));
        assert_eq!(shell_command_string(&v("bash -o pipefail -c x")), Some(4));
        assert_eq!(shell_command_string(&v("bash script.sh")), None);
        assert_eq!(shell_command_string(&v("busybox sh -c x")), Some(3));
        assert_eq!(
            find_exec_ranges(&v("find . -exec rm {} ; -print")),
            vec![(3, 5)]
        );
    }
}
