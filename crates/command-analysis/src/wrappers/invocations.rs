//! Commands held in another command's words: shell invocations (`sh -c STRING`, a script
//! operand, commands on standard input) and `find -exec`.

use super::{program, SHELLS};

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
