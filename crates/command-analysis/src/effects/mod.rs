//! What an allowed program's own options do: options as effects.
//!
//! An allow rule that names a program (`git`, `tar`) allows what that program does, but some
//! of its options do what the rules would otherwise judge on their own: write a file the way a
//! redirection does (`git log --output=~/.bashrc`, `sort -o /etc/x`), run a command string
//! (`git fetch --upload-pack='sh -c …'`, `rsync -e CMD`, `tar --to-command=CMD`), run code the
//! analysis cannot read (`python -c`, `vim -c ':!sh'`, `awk 'BEGIN{system(…)}'`), discard work
//! or data (`git reset --hard`, `git push --force`, `find -delete`, `rsync --delete`) or set a
//! privileged mode (`install -m 4755`). The tables here name those options per program, as
//! facts taken from the programs' manuals, GTFOBins and the published argument-injection
//! vectors, each table with examples checked when the tables are first used.
//!
//! What the analysis does with a scan:
//! - a command string an option runs is analysed like `sh -c`'s (its commands are judged by the
//!   rules themselves); one that is not a static word needs approval ([`Effect::Code`]);
//! - the first other effect is reported on the simple command ([`Found`]): the facade then
//!   treats an allow rule that matches the command as covering it only when the rule would not
//!   match without the effect's words, that is when the rule names the form itself
//!   (`git reset --hard`); otherwise the command needs approval (never a new deny);
//! - a write onto a block device is denied by the default rule for such writes.
//!
//! A written file counts only when it could be outside the working directory as written: an
//! absolute path, `~`, a `..` component, a `.git` component (repository configuration and
//! hooks run code) or a word bash decides at run time. A relative path below the working
//! directory is what the program is for (`git format-patch -o out`).

mod git;
mod scripts;
mod tables;

use std::sync::OnceLock;

use serde::Serialize;

use crate::wrappers::program;

/// What an option makes its program do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Effect {
    /// It writes a file that may be outside the working directory.
    Writes,
    /// It runs a command string that is not a static word, or code the analysis cannot read.
    Code,
    /// It discards work or data (history, the work tree, remote branches, files).
    Destroys,
    /// It sets a setuid or setgid mode.
    Privilege,
}

impl Effect {
    /// Every effect, by its code (its index).
    pub const ALL: [Effect; 4] = [
        Effect::Writes,
        Effect::Code,
        Effect::Destroys,
        Effect::Privilege,
    ];

    /// The effect's code: its index in [`Effect::ALL`].
    #[must_use]
    pub fn code(self) -> u32 {
        Self::ALL
            .iter()
            .position(|e| *e == self)
            .and_then(|i| u32::try_from(i).ok())
            .unwrap_or(0)
    }

    /// The API's name of the effect.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Writes => "writes",
            Self::Code => "code",
            Self::Destroys => "destroys",
            Self::Privilege => "privilege",
        }
    }

    /// What the effect does, as the reason of a verdict words it.
    #[must_use]
    pub const fn describes(self) -> &'static str {
        match self {
            Self::Writes => "writes a file outside the working directory",
            Self::Code => "runs code the analysis cannot read",
            Self::Destroys => "discards work or data",
            Self::Privilege => "sets a setuid or setgid mode",
        }
    }
}

/// An effect found in one simple command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    /// What it does.
    pub effect: Effect,
    /// The option (or operand) as written.
    pub option: String,
    /// The indexes of the words that spell the form (the option, its value): an allow rule
    /// that still matches the command without them does not name the form.
    pub words: Vec<usize>,
}

/// What one simple command's options do.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// The first effect that needs approval under a rule that does not name it.
    pub found: Option<Found>,
    /// Command strings the program runs: the index of the word holding one and its text.
    pub commands: Vec<(usize, String)>,
    /// Where an argv the program runs starts (`git bisect run CMD ARGS`).
    pub argv_from: Option<usize>,
    /// Files it writes (for the block-device deny rule).
    pub targets: Vec<String>,
}

impl Scan {
    /// Records `effect` spelled by `words` (the first one found wins).
    fn found(&mut self, effect: Effect, argv: &[String], words: &[usize]) {
        if self.found.is_some() {
            return;
        }
        let option = words
            .iter()
            .filter_map(|&i| argv.get(i))
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ");
        self.found = Some(Found {
            effect,
            option,
            words: words.to_vec(),
        });
    }

    /// A file `target` written through `words`: reported when it could be outside the working
    /// directory (or is not a static word).
    fn writes(&mut self, target: &str, is_static: bool, argv: &[String], words: &[usize]) {
        self.targets.push(target.to_string());
        if !is_static || could_be_outside(target) {
            self.found(Effect::Writes, argv, words);
        }
    }

    /// A command string in word `index` (`text` is its value).
    fn runs(
        &mut self,
        index: usize,
        text: &str,
        is_static: bool,
        argv: &[String],
        words: &[usize],
    ) {
        if is_static {
            self.commands.push((index, text.to_string()));
        } else {
            self.found(Effect::Code, argv, words);
        }
    }
}

/// Whether a written path, as the command wrote it, could be outside the working directory
/// (or inside the repository's `.git`): absolute, `~`, a `..` or `.git` component. The
/// standard streams and `/dev/null` are not files.
#[must_use]
pub fn could_be_outside(target: &str) -> bool {
    if matches!(
        target,
        "-" | "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || target.starts_with("/dev/fd/")
    {
        return false;
    }
    target.starts_with('/')
        || target.starts_with('~')
        || target
            .split(['/', '\\'])
            .any(|c| c == ".." || c.eq_ignore_ascii_case(".git"))
}

/// What `argv`'s options do; `is_static(i)` says whether word `i` is a static word (not an
/// expansion bash decides when the command runs).
#[must_use]
pub fn scan(argv: &[String], is_static: &dyn Fn(usize) -> bool) -> Scan {
    let mut out = Scan::default();
    let Some(first) = argv.first() else {
        return out;
    };
    let name = program(first);
    if name == "git" {
        git::scan(argv, is_static, &mut out);
        return out;
    }
    if let Some(t) = tables::of(name) {
        tables::scan(t, argv, is_static, &mut out);
    }
    out
}

/// What a table's example must report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// No effect and no command string.
    Nothing,
    /// This effect, spelled as this text (the words joined by spaces).
    Is(Effect, &'static str),
    /// No effect, and this command string to analyse.
    Runs(&'static str),
}

/// Whether every table's examples hold (checked once; the analysis fails closed when not).
#[must_use]
pub fn tables_hold() -> bool {
    static HOLD: OnceLock<bool> = OnceLock::new();
    *HOLD.get_or_init(|| examples().all(|(cmd, want)| example_holds(cmd, want)))
}

/// Every table's examples: a command line (split on spaces; `·` stands for a space inside a
/// word; a word with `${` or `$` before a capital is one bash decides at run time) and what
/// it must report.
fn examples() -> impl Iterator<Item = (&'static str, Want)> {
    tables::TABLES
        .iter()
        .flat_map(|t| t.examples.iter().copied())
        .chain(git::EXAMPLES.iter().copied())
}

/// Whether an example's word stands for an expansion (`${X}`, `$X`).
fn example_expands(word: &str) -> bool {
    word.contains("${")
        || word
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'$' && w[1].is_ascii_uppercase())
}

/// Whether the scan of example `cmd` reports `want`.
fn example_holds(cmd: &str, want: Want) -> bool {
    let argv: Vec<String> = cmd.split(' ').map(|w| w.replace('·', " ")).collect();
    let s = scan(&argv, &|i| argv.get(i).is_some_and(|w| !example_expands(w)));
    match want {
        Want::Nothing => s.found.is_none() && s.commands.is_empty(),
        Want::Is(effect, option) => s
            .found
            .is_some_and(|f| f.effect == effect && f.option == option),
        Want::Runs(text) => s.found.is_none() && s.commands.iter().any(|(_, c)| c == text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(|w| w.replace('·', " ")).collect()
    }

    #[test]
    fn every_example_holds() {
        let mut failed = Vec::new();
        for (cmd, want) in examples() {
            let argv = argv(cmd);
            let s = scan(&argv, &|i| argv.get(i).is_some_and(|w| !example_expands(w)));
            if !example_holds(cmd, want) {
                failed.push(format!(
                    "{cmd}: want {want:?}, got {:?} {:?}",
                    s.found, s.commands
                ));
            }
        }
        assert!(failed.is_empty(), "{}", failed.join("\n"));
        assert!(tables_hold());
    }

    #[test]
    fn command_strings_are_returned_for_analysis() {
        let a = argv("rsync -e ssh·-p·22 src host:dst");
        let s = scan(&a, &|_| true);
        assert_eq!(s.commands, vec![(2, "ssh -p 22".to_string())]);
        assert_eq!(s.found, None);
        let s = scan(&a, &|i| i != 2);
        assert_eq!(s.found.map(|f| f.effect), Some(Effect::Code));
        let a = argv("git bisect run make test");
        assert_eq!(scan(&a, &|_| true).argv_from, Some(3));
    }

    #[test]
    fn written_paths_outside_the_working_directory() {
        for p in [
            "/etc/x",
            "~/.bashrc",
            "../x",
            "a/../../x",
            ".git/config",
            "x/.git/hooks/pre-commit",
        ] {
            assert!(could_be_outside(p), "{p}");
        }
        for p in [
            "out.txt",
            "dir/out",
            "-",
            "/dev/null",
            "/dev/stderr",
            "./a.git",
            ".gitignore",
        ] {
            assert!(!could_be_outside(p), "{p}");
        }
    }

    #[test]
    fn effect_codes_read_back() {
        for (i, e) in Effect::ALL.iter().enumerate() {
            assert_eq!(e.code() as usize, i);
        }
    }
}
