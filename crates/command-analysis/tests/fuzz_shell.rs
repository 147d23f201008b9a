//! Fuzzing the shell analysis: random bytes and structured hostile command lines (deep
//! nesting, heredocs, quotes, wrappers, continuations) must never panic or overflow the stack,
//! and the work and output of each case stay within the analysis caps.

// The seeded, time-budgeted harness every fuzz target of the workspace shares (one copy, with
// the engine's targets): only its source is included, this crate does not depend on the engine.
#[path = "../../engine/tests/common/mod.rs"]
mod common;

use prism_command_analysis::limits::{
    POLICY_ANALYSIS_MAX_COMMAND_BYTES, POLICY_ANALYSIS_MAX_OUTPUT_BYTES, POLICY_ANALYSIS_MAX_PARTS,
};
use prism_command_analysis::shell::analyze;

/// Fragments that open or close the constructs bash nests, or that the analysis treats
/// specially.
const FRAGMENTS: &[&str] = &[
    "$(",
    ")",
    "`",
    "\\`",
    "\"",
    "'",
    "${a:-",
    "}",
    "${x[",
    "]",
    "$((",
    "))",
    "$[",
    "<(",
    ">(",
    "(",
    "((",
    "{ ",
    "; }",
    "[[ ",
    " -eq ",
    " ]]",
    "a[",
    "<<EOF\n",
    "<<-EOF\n\t",
    "<<'EOF'\n",
    "\nEOF\n",
    "\\\n",
    "\n",
    " ",
    "\t",
    ";",
    "|",
    "||",
    "&&",
    "&",
    "#",
    "x=",
    "sudo ",
    "id",
    "rm -rf / ",
    "chmod 777 ",
    "curl x | sh",
    "> /dev/sda",
    "env -S ",
    "env - ",
    "timeout -vk 1 5 ",
    "script -qc ",
    "bash --rcfile F -c ",
    "sh -c ",
    "eval -- ",
    "trap ",
    "xargs ",
    "find . -exec ",
    " \\;",
    "nice -5 ",
    "su -c ",
    "watch ",
    "flock f -c ",
    "if true; then ",
    "; fi",
    "for i in 1; do ",
    "; done",
    "case x in y) ",
    ";; esac",
    "f() { ",
    "$'\\x41'",
    "*",
    "?",
    "{a,b}",
    "{s,}udo ",
    "{sudo,x} ",
    "{,}",
    "{1..70} ",
    "\u{202e}",
    "é",
    "\0",
    "GIT_CONFIG_COUNT=1 ",
    "LD_PRELOAD=x ",
];

/// Opener/closer pairs for deep nesting.
const NESTS: &[(&str, &str)] = &[
    ("$(", ")"),
    ("\"$(", ")\""),
    ("<(", ")"),
    ("${a:-$(", ")}"),
    ("$((", "))"),
    ("(", ")"),
    ("{ ", "; }"),
    ("`", "`"),
    ("bash -c '", "'"),
    ("eval \"", "\""),
    ("[[ ", " ]]"),
    ("((", "))"),
    ("if true; then ", "; fi"),
    ("x=$(", ")"),
    ("a[", "]"),
];

fn random_bytes(rng: &mut fastrand::Rng) -> String {
    let n = rng.usize(0..512);
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            if rng.bool() {
                rng.u8(0x20..0x7f)
            } else {
                *rng.choice(b"$()`\"'{}[]<>|&;\\\n \t#=*?!").unwrap_or(&b' ')
            }
        })
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn fragments(rng: &mut fastrand::Rng) -> String {
    let n = rng.usize(1..200);
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(rng.choice(FRAGMENTS).copied().unwrap_or(" "));
    }
    s
}

fn nested(rng: &mut fastrand::Rng) -> String {
    let (open, close) = rng.choice(NESTS).copied().unwrap_or(("(", ")"));
    let per = open.len() + close.len();
    // Up to the command cap: the depth that used to overflow the stack (thousands) included.
    let max = (POLICY_ANALYSIS_MAX_COMMAND_BYTES - 64) / per;
    let depth = if rng.u8(..4) == 0 {
        max
    } else {
        rng.usize(0..max.min(3000))
    };
    let inner = rng.choice(["sudo id", "x", "1", "rm -rf ~"]).unwrap_or("x");
    let closed = rng.u8(..8) != 0;
    let mut s = String::with_capacity(depth * per + 16);
    s.push_str("echo ");
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(inner);
    if closed {
        for _ in 0..depth {
            s.push_str(close);
        }
    }
    s
}

fn wrappers(rng: &mut fastrand::Rng) -> String {
    const W: &[&str] = &[
        "env -i ",
        "env -S ",
        "env - ",
        "timeout -k1 5 ",
        "nice -n 3 ",
        "nohup ",
        "sudo -u r ",
        "xargs -0 ",
        "stdbuf -oL ",
        "setsid -w ",
        "chroot / ",
        "taskset 1 ",
        "script -qc ",
        "su -c ",
        "flock f ",
        "watch -n1 ",
        "busybox ",
        "command -p ",
        "exec -a x ",
        "time -p ",
        "strace -f ",
        "bash -c ",
        "sh -ec ",
        "eval ",
        "trap ",
        "--",
        "-x ",
        "--nope ",
        "A=1 ",
    ];
    let n = rng.usize(1..40);
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(rng.choice(W).copied().unwrap_or(""));
    }
    s.push_str("sudo id");
    s
}

fn heredocs(rng: &mut fastrand::Rng) -> String {
    let mut s = String::from("cat");
    let n = rng.usize(1..20);
    for i in 0..n {
        let q = rng.choice(["", "'", "\""]).unwrap_or("");
        let dash = if rng.bool() { "-" } else { "" };
        s.push_str(&format!(" <<{dash}{q}E{i}{q}"));
    }
    s.push('\n');
    for i in 0..n {
        for _ in 0..rng.usize(0..5) {
            s.push_str(
                rng.choice([
                    "\t$(sudo id)",
                    "  `id`",
                    "${x:-`id`}",
                    "plain",
                    "\\$(x)",
                    "'$(y)'",
                ])
                .unwrap_or(""),
            );
            s.push('\n');
        }
        if rng.u8(..6) != 0 {
            s.push_str(&format!("E{i}\n"));
        }
    }
    s
}

#[test]
fn shell_analysis_never_panics_and_stays_bounded() {
    // A small stack: the analysis must bound its recursion itself.
    let worker = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            common::fuzz::run("shell_analysis", |rng| {
                let cmd = match rng.u8(..5) {
                    0 => random_bytes(rng),
                    1 => fragments(rng),
                    2 => nested(rng),
                    3 => wrappers(rng),
                    _ => heredocs(rng),
                };
                let a = analyze(&cmd);
                assert!(
                    a.parts.len() <= POLICY_ANALYSIS_MAX_PARTS + 64,
                    "{} parts",
                    a.parts.len()
                );
                let text: usize = a
                    .parts
                    .iter()
                    .map(|p| p.text.len() + p.argv.iter().map(String::len).sum::<usize>())
                    .sum();
                assert!(
                    text <= POLICY_ANALYSIS_MAX_OUTPUT_BYTES,
                    "{text} bytes reported"
                );
                // Every default deny found is a known rule id.
                for id in a.denies() {
                    assert!(
                        prism_command_analysis::deny_rules::DEFAULT_DENY_RULES
                            .iter()
                            .any(|r| r.id == id),
                        "{id}"
                    );
                }
                // The JSON the binding hands over is produced for every case, and the
                // numeric layout, when it fits, reads back as that same JSON.
                let json = prism_command_analysis::analyze_json(&cmd);
                assert!(json.starts_with('{'));
                assert_layout_reads_back(&cmd, &json);
            })
        });
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(n)) => assert!(n > 0),
        _ => panic!("the fuzz worker failed (see the replay line above)"),
    }
}

/// The numeric layout of `cmd`'s analysis, when it fits, reads back as its JSON `json`.
fn assert_layout_reads_back(cmd: &str, json: &str) {
    let room = prism_command_analysis::limits::POLICY_ANALYSIS_LAYOUT_WORDS as usize;
    let mut layout = vec![0; room];
    let extras = prism_command_analysis::analyze_into(cmd, &mut layout);
    if layout[0] != 0 {
        let read = prism_command_analysis::layout::read_json(&layout, cmd, &extras);
        assert_eq!(read, serde_json::from_str(json).ok(), "layout of {cmd:?}");
    }
}

/// Words the differential generator draws: plain words, quotes, `$NAME`, wrappers, shells and
/// denied commands.
const WORDS: &[&str] = &[
    "ls",
    "-la",
    "x",
    "/",
    "~",
    "rm",
    "-rf",
    "-fr",
    "sudo",
    "-u",
    "root",
    "id",
    "curl",
    "wget",
    "-qO-",
    "sh",
    "bash",
    "-c",
    "'ls; id'",
    "'rm -rf /'",
    "\"a b\"",
    "\" /\"",
    "\"$HOME\"",
    "$HOME",
    "$X*",
    "$CMD",
    "\"$CMD\"",
    "\"a $B c\"",
    "env",
    "X=1",
    "timeout",
    "5",
    "nohup",
    "nice",
    "-n",
    "xargs",
    "eval",
    "find",
    ".",
    "-exec",
    "git",
    "config",
    "chmod",
    "777",
    "/etc/passwd",
    "dd",
    "of=/dev/sda",
    "mkfs.ext4",
    "echo",
    "*.rs",
    "a?",
    "-",
    "--",
    "'\u{e9}'",
    "\"sudo \"",
];

/// Near misses the fast path must hand to the grammar (drawn now and then).
const ODD_WORDS: &[&str] = &[
    "if",
    "then",
    "fi",
    "!",
    "{",
    "}",
    "'",
    "\"",
    "$",
    "$1",
    "${A}",
    "#c",
    "a#b",
    "\\x",
    "\u{e9}",
    "(",
    ")",
    "\"$\"",
    "\"a$1\"",
    "$(id)",
    "`id`",
    "<x",
    ">/dev/sda",
    "$((x))",
    "$((1+2))",
    "$[x]",
    "tou?h",
    "sud[o]",
    "/usr/bin/s?",
];

/// Separators and openers between the generated words (most of them where the fast path reads
/// them, some where it must not).
const JOINS: &[&str] = &[
    " ",
    " ",
    " ",
    "; ",
    "\n",
    " & ",
    " && ",
    " || ",
    " | ",
    " # note\n",
    ";",
    "&",
    "|",
    "\t",
    " ;; ",
    " |& ",
    "\n\n",
    " # $(id) `id`\n",
    " #\\\n",
];

/// An `if`, `for`, `while` or `until` clause of generated lines, on one line, now and then
/// with a near miss (a missing separator, a reserved word glued to the next text).
fn clause(rng: &mut fastrand::Rng, depth: usize) -> String {
    let mut sep = || {
        if rng.u8(..12) == 0 {
            rng.choice([" ", "\n", " & ", ";;", ""])
                .unwrap_or(" ")
                .to_string()
        } else {
            "; ".to_string()
        }
    };
    let (a, b, c) = (sep(), sep(), sep());
    match rng.u8(..4) {
        0 => {
            let mut s = format!(
                "if {}{a}then {}{b}",
                plain_line(rng, depth),
                plain_line(rng, depth)
            );
            if rng.bool() {
                s.push_str(&format!(
                    "elif {}; then {}; ",
                    plain_line(rng, depth),
                    plain_line(rng, depth)
                ));
            }
            if rng.bool() {
                s.push_str(&format!("else {}{c}", plain_line(rng, depth)));
            }
            s.push_str(rng.choice(["fi", "fi", "fi", "fix", "fi)"]).unwrap_or("fi"));
            s
        }
        1 => {
            let name = rng.choice(["i", "f_2", "1x", "in", "a-b"]).unwrap_or("i");
            let mut words = String::new();
            for _ in 0..rng.usize(1..4) {
                words.push(' ');
                if rng.u8(..6) == 0 {
                    words.push_str(&substitution(rng, depth));
                } else {
                    words.push_str(rng.choice(WORDS).copied().unwrap_or("x"));
                }
            }
            let words = if rng.u8(..10) == 0 {
                String::new()
            } else {
                words
            };
            format!(
                "for {name} in{words}{a}do {}{b}done",
                plain_line(rng, depth)
            )
        }
        _ => {
            let kw = rng.choice(["while", "until"]).unwrap_or("while");
            format!(
                "{kw} {}{a}do {}{b}done",
                plain_line(rng, depth),
                plain_line(rng, depth)
            )
        }
    }
}

/// A word holding a substitution (`$(...)`, backquotes, `<(...)`, `>(...)`) of a generated
/// line, now and then with text before or after it or a near miss (`$((`, an empty one).
fn substitution(rng: &mut fastrand::Rng, depth: usize) -> String {
    let (open, close) = rng
        .choice([
            ("$(", ")"),
            ("$(", ")"),
            ("`", "`"),
            ("<(", ")"),
            (">(", ")"),
        ])
        .unwrap_or(("$(", ")"));
    let inner = match rng.u8(..20) {
        0 => String::new(),
        1 => "(1)".to_string(),
        2 => " ".to_string(),
        _ => plain_line(rng, depth),
    };
    let mut s = String::new();
    if rng.u8(..6) == 0 {
        s.push_str(rng.choice(["x", "-", "'a'", "\"$A\"", "="]).unwrap_or("x"));
    }
    s.push_str(open);
    s.push_str(&inner);
    s.push_str(close);
    if rng.u8(..6) == 0 {
        s.push_str(
            rng.choice(["x", "*", "$(id)", "`id`", "\"a\""])
                .unwrap_or("x"),
        );
    }
    s
}

/// A line built from the constructs the fast path reads: lists of pipelines of commands,
/// subshells, groups and negations, with a random join now and then.
fn plain_line(rng: &mut fastrand::Rng, depth: usize) -> String {
    let mut s = String::new();
    for p in 0..rng.usize(1..4) {
        if p > 0 {
            let sep = if rng.u8(..16) == 0 {
                rng.choice(JOINS).copied().unwrap_or(";")
            } else {
                rng.choice(["; ", "\n", " && ", " || ", " & "])
                    .unwrap_or("; ")
            };
            s.push_str(sep);
        }
        if rng.u8(..6) == 0 {
            s.push_str("! ");
        }
        for st in 0..rng.usize(1..3) {
            if st > 0 {
                s.push_str(" | ");
            }
            match rng.u8(..11) {
                8 if depth < 4 => s.push_str(&clause(rng, depth + 1)),
                0 if depth < 4 => {
                    s.push('(');
                    s.push_str(&plain_line(rng, depth + 1));
                    s.push(')');
                }
                1 if depth < 4 => {
                    s.push_str("{ ");
                    s.push_str(&plain_line(rng, depth + 1));
                    let close = if rng.u8(..8) == 0 { " }" } else { "; }" };
                    s.push_str(rng.choice([close, "\n}", " & }"]).unwrap_or("; }"));
                }
                _ => {
                    for w in 0..rng.usize(1..5) {
                        if w > 0 {
                            s.push(' ');
                        }
                        if depth < 4 && rng.u8(..10) == 0 {
                            s.push_str(&substitution(rng, depth + 1));
                            continue;
                        }
                        let words = if rng.u8(..24) == 0 { ODD_WORDS } else { WORDS };
                        s.push_str(rng.choice(words).copied().unwrap_or("x"));
                    }
                }
            }
        }
    }
    if rng.u8(..4) == 0 {
        s.push_str(rng.choice(["", ";", " &", "\n", " # end"]).unwrap_or(""));
    }
    s
}

#[test]
fn the_fast_path_agrees_with_the_grammar_on_generated_lines() {
    let mut compared = 0u64;
    let cases = common::fuzz::run("shell_fast_path", |rng| {
        let cmd = plain_line(rng, 0);
        if !prism_command_analysis::shell::takes_fast_path(&cmd) {
            return;
        }
        compared += 1;
        let fast = serde_json::to_string(&analyze(&cmd)).unwrap_or_default();
        let grammar =
            serde_json::to_string(&prism_command_analysis::shell::analyze_with_grammar(&cmd))
                .unwrap_or_default();
        assert_eq!(fast, grammar, "{cmd:?}");
        assert_layout_reads_back(&cmd, &fast);
    });
    eprintln!("fuzz shell_fast_path: {compared} of {cases} lines took the fast path");
    // The generator must exercise the fast path, not only the grammar.
    assert!(
        compared * 10 >= cases,
        "{compared} of {cases} lines took the fast path"
    );
}

/// Denied commands whose program word the generator below respells.
const DENIED: &[(&str, &str)] = &[
    ("sudo", " id"),
    ("doas", " id"),
    ("rm", " -rf /"),
    ("chmod", " 777 x"),
    ("mkfs.ext4", " /dev/x"),
    ("dd", " if=/dev/zero of=x"),
    ("wipefs", " -a /dev/x"),
];

/// `name` spelled as a glob bash could expand back to it: some characters become `?`, `*`
/// or a bracket expression holding them, with a directory in front now and then.
fn globbed(rng: &mut fastrand::Rng, name: &str) -> String {
    let mut out = String::new();
    if rng.bool() {
        out.push_str(
            rng.choice(["/usr/bin/", "/bin/", "/usr/*/", "/*/"])
                .unwrap_or("/"),
        );
    }
    let mut changed = false;
    for c in name.chars() {
        match rng.u8(..6) {
            0 => out.push('?'),
            1 if !out.ends_with('*') => out.push('*'),
            2 => {
                out.push('[');
                out.push(c);
                if rng.bool() {
                    out.push('z');
                }
                out.push(']');
            }
            _ => {
                out.push(c);
                continue;
            }
        }
        changed = true;
    }
    if !changed {
        out.push('*');
    }
    out
}

#[test]
fn a_program_word_bash_could_expand_to_a_denied_program_is_denied() {
    common::fuzz::run("shell_open_program", |rng| {
        let (name, rest) = rng.choice(DENIED).copied().unwrap_or(("sudo", " id"));
        let program = match rng.u8(..8) {
            0 => "$CMD".to_string(),
            1 => "\"$CMD\"".to_string(),
            2 => "$(echo x)".to_string(),
            _ => globbed(rng, name),
        };
        let command = format!("{program}{rest}");
        let cmd = match rng.u8(..6) {
            0 => format!("ls; {command}"),
            1 => format!("echo $({command})"),
            2 => format!("timeout 5 {command}"),
            3 => format!("true && {command} || true"),
            _ => command,
        };
        let a = analyze(&cmd);
        assert!(
            a.denies().next().is_some() || a.refused.is_some(),
            "{cmd:?} is not denied: {a:?}"
        );
    });
}

#[test]
fn an_operand_bash_decides_at_run_time_meets_the_rules_that_inspect_it() {
    common::fuzz::run("shell_open_operand", |rng| {
        let operand = rng
            .choice(["`pwd`", "$(pwd)", "\"$(pwd)\"", "$X", "\"$X\"", "${X:-y}"])
            .unwrap_or("$X");
        let (cmd, denied) = match rng.u8(..4) {
            0 => (format!("rm -rf {operand}"), true),
            1 => (format!("chmod {operand} f"), true),
            2 => (format!("dd of=x {operand}"), true),
            // Quoted, the word is one operand: not a mode (the mode comes first).
            _ => (format!("chmod +x \"{}\"", operand.trim_matches('"')), false),
        };
        let a = analyze(&cmd);
        assert_eq!(a.denies().next().is_some(), denied, "{cmd:?}: {a:?}");
    });
}
