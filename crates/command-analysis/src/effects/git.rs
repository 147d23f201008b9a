//! git's options as effects, per subcommand (facts from git's manual pages and the published
//! argument-injection vectors): options that write files (`--output`, `format-patch -o`),
//! options whose value is a command (`--upload-pack`, `--receive-pack`, `--exec`, `grep -O`,
//! `rebase -x`, `difftool -x`, `send-email --sendmail-cmd`), subcommands that run commands
//! (`bisect run`, `submodule foreach`, `filter-branch`), configuration that runs commands
//! (`git config core.pager …`, `alias.* '!…'`, `clone --template`), and the forms that
//! discard work or data (`reset --hard`, `clean -f`, forced and deleting pushes, `branch -D`,
//! `checkout -- …`, `restore`, `stash drop`, `reflog expire`, `gc --prune=now`, ...).
//!
//! git reads its options with parse-options: long options by a unique prefix, short ones
//! clustered, values attached or in the next word; `--` ends them.

use super::{Effect, Scan, Want};

/// git's global options that take the next word as their value.
const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--exec-path",
    "--list-cmds",
    "--attr-source",
];

/// What an option of a subcommand does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Does {
    /// Its value is a file written.
    Writes,
    /// Its value is a command string.
    Runs,
    /// Its value, when attached, is a command string; alone it runs the configured one.
    RunsAttached,
    /// It runs code the analysis cannot read.
    Code,
    /// It discards work or data.
    Destroys,
}

/// One option: the subcommands it belongs to, its short letter (`'\0'` for none), its long
/// name (`""` for none), whether it takes a value, and what it does.
type Entry = (&'static [&'static str], char, &'static str, bool, Does);

const LOG_LIKE: &[&str] = &[
    "log",
    "diff",
    "show",
    "whatchanged",
    "range-diff",
    "diff-tree",
    "diff-index",
    "diff-files",
    "format-patch",
    "shortlog",
    "stash",
];

/// The options.
const OPTIONS: &[Entry] = &[
    (LOG_LIKE, '\0', "output", true, Does::Writes),
    (
        &["format-patch"],
        'o',
        "output-directory",
        true,
        Does::Writes,
    ),
    (&["archive"], 'o', "output", true, Does::Writes),
    (&["archive"], '\0', "exec", true, Does::Runs),
    (
        &["clone", "fetch", "pull", "ls-remote", "archive"],
        '\0',
        "upload-pack",
        true,
        Does::Runs,
    ),
    (&["clone"], 'u', "", true, Does::Runs),
    (&["clone"], '\0', "template", true, Does::Code),
    (&["clone"], 'c', "config", true, Does::Code),
    (
        &["push", "send-pack"],
        '\0',
        "receive-pack",
        true,
        Does::Runs,
    ),
    (&["push"], '\0', "exec", true, Does::Runs),
    (
        &["grep"],
        'O',
        "open-files-in-pager",
        false,
        Does::RunsAttached,
    ),
    (&["rebase"], 'x', "exec", true, Does::Runs),
    (&["difftool"], 'x', "extcmd", true, Does::Runs),
    (&["send-email"], '\0', "sendmail-cmd", true, Does::Runs),
    (&["send-email"], '\0', "to-cmd", true, Does::Runs),
    (&["send-email"], '\0', "cc-cmd", true, Does::Runs),
    (&["send-email"], '\0', "header-cmd", true, Does::Runs),
    (&["reset"], '\0', "hard", false, Does::Destroys),
    (&["reset"], '\0', "merge", false, Does::Destroys),
    (&["reset"], '\0', "keep", false, Does::Destroys),
    (&["clean"], 'f', "force", false, Does::Destroys),
    (&["push"], 'f', "force", false, Does::Destroys),
    (&["push"], '\0', "force-with-lease", false, Does::Destroys),
    (&["push"], '\0', "force-if-includes", false, Does::Destroys),
    (&["push"], '\0', "mirror", false, Does::Destroys),
    (&["push"], 'd', "delete", false, Does::Destroys),
    (&["push"], '\0', "prune", false, Does::Destroys),
    (&["branch"], 'D', "", false, Does::Destroys),
    (&["branch"], 'M', "", false, Does::Destroys),
    (&["branch"], 'C', "", false, Does::Destroys),
    (&["branch"], 'f', "force", false, Does::Destroys),
    (&["checkout", "switch"], 'f', "force", false, Does::Destroys),
    (&["switch"], '\0', "discard-changes", false, Does::Destroys),
    (
        &["checkout"],
        '\0',
        "overwrite-ignore",
        false,
        Does::Destroys,
    ),
    (&["rm"], 'f', "force", false, Does::Destroys),
    (&["gc", "prune"], '\0', "prune", false, Does::Destroys),
    (&["update-ref"], 'd', "", false, Does::Destroys),
    (&["tag"], 'd', "delete", false, Does::Destroys),
    (&["worktree"], 'f', "force", false, Does::Destroys),
];

/// Configuration keys (lower case; `*` one section part) whose values git runs or that
/// point it at code (git-config(1)).
const CODE_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.hookspath",
    "core.fsmonitor",
    "core.gitproxy",
    "core.askpass",
    "core.alternaterefscommand",
    "sequence.editor",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "gpg.program",
    "gpg.*.program",
    "uploadpack.packobjectshook",
    "web.browser",
    "browser.*.cmd",
    "include.path",
    "includeif.*.path",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
    "protocol.allow",
    "protocol.*.allow",
    "alias.*",
    "pager.*",
    "difftool.*.cmd",
    "mergetool.*.cmd",
    "man.*.cmd",
    "sendemail.sendmailcmd",
    "sendemail.tocmd",
    "sendemail.cccmd",
    "core.worktree",
    "safe.directory",
];

/// The examples: each a command line (split on spaces, `·` a space inside a word) and what
/// it must report.
pub(super) const EXAMPLES: &[(&str, Want)] = &[
    ("git log --oneline -n 10", Want::Nothing),
    (
        "git log --output=/tmp/x",
        Want::Is(Effect::Writes, "--output=/tmp/x"),
    ),
    (
        "git diff --output .git/config",
        Want::Is(Effect::Writes, "--output .git/config"),
    ),
    (
        "git show --outp=~/.bashrc HEAD",
        Want::Is(Effect::Writes, "--outp=~/.bashrc"),
    ),
    ("git diff --output=changes.patch", Want::Nothing),
    (
        "git format-patch -o ../patches HEAD~3",
        Want::Is(Effect::Writes, "-o ../patches"),
    ),
    (
        "git archive -o /tmp/a.tgz HEAD",
        Want::Is(Effect::Writes, "-o /tmp/a.tgz"),
    ),
    (
        "git bundle create /tmp/x.bundle HEAD",
        Want::Is(Effect::Writes, "/tmp/x.bundle"),
    ),
    (
        "git fetch --upload-pack=sh·-c·id origin",
        Want::Runs("sh -c id"),
    ),
    ("git clone -u touch·x a b", Want::Runs("touch x")),
    (
        "git ls-remote --upload-pack $CMD x",
        Want::Is(Effect::Code, "--upload-pack $CMD"),
    ),
    ("git push --receive-pack=id x", Want::Runs("id")),
    ("git grep --open-files-in-pager=id x", Want::Runs("id")),
    ("git grep -Oid x", Want::Runs("id")),
    ("git grep -O x", Want::Is(Effect::Code, "-O")),
    ("git grep -n TODO", Want::Nothing),
    ("git rebase -x make·test main", Want::Runs("make test")),
    ("git difftool --extcmd=id", Want::Runs("id")),
    ("git bisect run make test", Want::Nothing),
    ("git submodule foreach git·pull", Want::Runs("git pull")),
    (
        "git filter-branch --tree-filter rm·x HEAD",
        Want::Is(Effect::Code, "filter-branch"),
    ),
    (
        "git clone --template=/tmp/t x",
        Want::Is(Effect::Code, "--template=/tmp/t"),
    ),
    (
        "git config core.pager sh·-c·id",
        Want::Is(Effect::Code, "config core.pager"),
    ),
    (
        "git config --global alias.x !sh",
        Want::Is(Effect::Code, "config alias.x"),
    ),
    ("git config user.email a@b.c", Want::Nothing),
    ("git config --get core.pager", Want::Nothing),
    ("git -c user.name=x commit -m y", Want::Nothing),
    (
        "git reset --hard HEAD~1",
        Want::Is(Effect::Destroys, "reset --hard"),
    ),
    ("git reset HEAD~1", Want::Nothing),
    ("git clean -fdx", Want::Is(Effect::Destroys, "clean -fdx")),
    ("git clean -n", Want::Nothing),
    (
        "git push --force origin main",
        Want::Is(Effect::Destroys, "push --force"),
    ),
    ("git push -f", Want::Is(Effect::Destroys, "push -f")),
    (
        "git push origin +main",
        Want::Is(Effect::Destroys, "push +main"),
    ),
    (
        "git push origin :old",
        Want::Is(Effect::Destroys, "push :old"),
    ),
    ("git push origin main", Want::Nothing),
    (
        "git branch -D feature",
        Want::Is(Effect::Destroys, "branch -D"),
    ),
    ("git branch -d feature", Want::Nothing),
    (
        "git checkout -- .",
        Want::Is(Effect::Destroys, "checkout --"),
    ),
    ("git checkout .", Want::Is(Effect::Destroys, "checkout .")),
    ("git checkout main", Want::Nothing),
    ("git checkout -b topic", Want::Nothing),
    (
        "git restore src/a.rs",
        Want::Is(Effect::Destroys, "restore"),
    ),
    ("git restore --staged src/a.rs", Want::Nothing),
    ("git stash drop", Want::Is(Effect::Destroys, "stash drop")),
    ("git stash clear", Want::Is(Effect::Destroys, "stash clear")),
    ("git stash", Want::Nothing),
    (
        "git reflog expire --expire=now --all",
        Want::Is(Effect::Destroys, "reflog expire"),
    ),
    (
        "git gc --prune=now",
        Want::Is(Effect::Destroys, "gc --prune=now"),
    ),
    (
        "git -C sub reset --hard",
        Want::Is(Effect::Destroys, "reset --hard"),
    ),
    ("git status", Want::Nothing),
];

/// Reads git's argv into `out`.
pub(super) fn scan(argv: &[String], is_static: &dyn Fn(usize) -> bool, out: &mut Scan) {
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        if !a.starts_with('-') {
            break;
        }
        i += if GLOBAL_WITH_VALUE.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    let Some(sub) = argv.get(i).map(String::as_str) else {
        return;
    };
    let at = i;
    let word = |k: usize| argv.get(k).map_or("", String::as_str);
    let operands = options(sub, argv, at, is_static, out);
    let first = operands.first().map(|&k| word(k));
    match sub {
        "bundle" if first == Some("create") => {
            if let Some(&k) = operands.get(1) {
                out.writes(word(k), is_static(k), argv, &[k]);
            }
        }
        "bisect" if first == Some("run") => {
            out.argv_from = operands.get(1).copied();
        }
        "submodule" if first == Some("foreach") => {
            let from = operands.get(1).copied();
            if let Some(from) = from {
                let fixed = (from..argv.len()).all(is_static);
                let text = argv.get(from..).unwrap_or_default().join(" ");
                out.runs(from, &text, fixed, argv, &[at, from - 1]);
            }
        }
        "filter-branch" | "filter-repo" => out.found(Effect::Code, argv, &[at]),
        "config" => config(argv, at, &operands, out),
        "push" => {
            for &k in operands.iter().skip(1) {
                if word(k).starts_with(['+', ':']) {
                    out.found(Effect::Destroys, argv, &[at, k]);
                }
            }
        }
        "checkout" => {
            let dashes = argv.iter().skip(at + 1).position(|w| w == "--");
            if let Some(p) = dashes {
                out.found(Effect::Destroys, argv, &[at, at + 1 + p]);
            } else if let Some(&k) = operands.iter().find(|&&k| word(k) == ".") {
                out.found(Effect::Destroys, argv, &[at, k]);
            }
        }
        "restore" => {
            let staged_only = argv
                .iter()
                .skip(at + 1)
                .any(|w| w == "--staged" || w == "-S")
                && !argv
                    .iter()
                    .skip(at + 1)
                    .any(|w| w == "--worktree" || w == "-W");
            if !staged_only {
                out.found(Effect::Destroys, argv, &[at]);
            }
        }
        "stash" if matches!(first, Some("drop" | "clear")) => {
            if let Some(&k) = operands.first() {
                out.found(Effect::Destroys, argv, &[at, k]);
            }
        }
        "reflog" if matches!(first, Some("expire" | "delete")) => {
            if let Some(&k) = operands.first() {
                out.found(Effect::Destroys, argv, &[at, k]);
            }
        }
        _ => {}
    }
}

/// Reads the options of subcommand `sub` (at `at`) by [`OPTIONS`]; returns the operands'
/// indexes (what follows `--` included).
fn options(
    sub: &str,
    argv: &[String],
    at: usize,
    is_static: &dyn Fn(usize) -> bool,
    out: &mut Scan,
) -> Vec<usize> {
    let mine: Vec<&Entry> = OPTIONS.iter().filter(|e| e.0.contains(&sub)).collect();
    let mut operands = Vec::new();
    let mut i = at + 1;
    while let Some(a) = argv.get(i) {
        if a == "--" {
            operands.extend(i + 1..argv.len());
            break;
        }
        if let Some(long) = a.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let entry = mine
                .iter()
                .find(|e| !e.2.is_empty() && e.2 == name)
                .or_else(|| {
                    mine.iter()
                        .find(|e| !e.2.is_empty() && name.len() >= 3 && e.2.starts_with(name))
                });
            if let Some(e) = entry {
                let value = match (e.3, attached) {
                    (_, Some(v)) => Some((i, v.to_string(), vec![i])),
                    (true, None) => {
                        i += 1;
                        argv.get(i).map(|v| (i, v.clone(), vec![i - 1, i]))
                    }
                    (false, None) => None,
                };
                effect(e.4, sub, at, i, value, argv, is_static, out);
            }
            i += 1;
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let cluster = &a[1..];
            for (pos, c) in cluster.char_indices() {
                let Some(e) = mine.iter().find(|e| e.1 != '\0' && e.1 == c) else {
                    continue;
                };
                let rest = &cluster[pos + c.len_utf8()..];
                if e.3 || e.4 == Does::RunsAttached {
                    let value = if !rest.is_empty() {
                        Some((i, rest.to_string(), vec![i]))
                    } else if e.3 {
                        let v = argv.get(i + 1).map(|v| (i + 1, v.clone(), vec![i, i + 1]));
                        i += 1;
                        v
                    } else {
                        None
                    };
                    effect(e.4, sub, at, i, value, argv, is_static, out);
                    break;
                }
                effect(e.4, sub, at, i, None, argv, is_static, out);
            }
            i += 1;
            continue;
        }
        operands.push(i);
        i += 1;
    }
    operands
}

/// What one option does; `i` is the option's word, `value` its value (index, text, words).
#[allow(clippy::too_many_arguments)]
fn effect(
    does: Does,
    sub: &str,
    at: usize,
    i: usize,
    value: Option<(usize, String, Vec<usize>)>,
    argv: &[String],
    is_static: &dyn Fn(usize) -> bool,
    out: &mut Scan,
) {
    match (does, value) {
        (Does::Writes, Some((k, v, words))) => out.writes(&v, is_static(k), argv, &words),
        (Does::Runs | Does::RunsAttached, Some((k, v, words))) => {
            out.runs(k, &v, is_static(k), argv, &words);
        }
        (Does::Runs | Does::RunsAttached | Does::Code, value) => {
            let words = value.map_or_else(|| vec![i], |(_, _, w)| w);
            out.found(Effect::Code, argv, &words);
        }
        (Does::Destroys, _) => {
            // `git gc --prune` alone keeps two weeks; only an explicit date discards.
            let explicit = argv.get(i).is_some_and(|w| w.contains('='));
            if sub == "gc" && !explicit {
                return;
            }
            out.found(Effect::Destroys, argv, &[at, i]);
        }
        (Does::Writes, None) => {}
    }
}

/// `git config`: setting a key whose value git runs (or that points it at code).
fn config(argv: &[String], at: usize, operands: &[usize], out: &mut Scan) {
    let reads = argv.iter().skip(at + 1).any(|w| {
        matches!(
            w.as_str(),
            "--get"
                | "--get-all"
                | "--get-regexp"
                | "-l"
                | "--list"
                | "--unset"
                | "--unset-all"
                | "get"
                | "list"
        )
    });
    let mut keys = operands.iter().copied();
    // `git config set KEY VALUE` (git 2.46) or `git config KEY VALUE`.
    let mut key = keys.next();
    if key.and_then(|k| argv.get(k)).is_some_and(|w| w == "set") {
        key = keys.next();
    }
    let Some(k) = key else {
        return;
    };
    let has_value = keys.next().is_some();
    if reads || !has_value {
        return;
    }
    let name = argv
        .get(k)
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    if CODE_KEYS.iter().any(|pattern| key_matches(pattern, &name)) {
        out.found(Effect::Code, argv, &[at, k]);
    }
}

/// Whether config key `name` matches `pattern` (`*` stands for any one subsection, which may
/// hold dots; a trailing `.*` any variable of the section).
fn key_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.len() > head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
    }
}
