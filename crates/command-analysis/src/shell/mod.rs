//! Shell command analysis on the tree-sitter-bash grammar: every simple command a command
//! line runs, its redirection targets, and whether it is anything more than one plain command.
//!
//! The walk follows pipelines, lists, subshells, groups, `if`/`while`/`for`/`case`, `$(...)`,
//! backticks, process substitution, `bash -c`/`sh -c` strings and `eval` arguments
//! (recursively, up to [`POLICY_ANALYSIS_MAX_NESTING`]), `VAR=value` prefixes, wrappers
//! (`env`, `timeout`, `nice`, `nohup`, `command`, `xargs`, `sudo`, ... see
//! [`wrappers`](crate::wrappers)) and `find -exec`. Syntax outside an explicit allow-list
//! (function definitions, parse errors, a command name that is not a static word, a dynamic
//! `sh -c` string) is reported in [`Analysis::unsupported`]: the command then needs approval.
//!
//! The work is bounded: the syntax tree is walked at most [`POLICY_ANALYSIS_MAX_DEPTH`] levels
//! deep (recursion never goes further, whatever the input), every parse of the line and of the
//! strings inside it counts against [`POLICY_ANALYSIS_MAX_PARSED_BYTES`], and the text the
//! analysis reports against [`POLICY_ANALYSIS_MAX_OUTPUT_BYTES`]. A command past any cap of the
//! analysis (these, its length, the number of commands, the nesting of syntax and of command
//! strings) is refused: a deny, since a denied command could hide past the cap.
//!
//! After the walk, the line is scanned once more for the places where bash runs code
//! (`$(`, backticks, `<(`, `>(`) outside single quotes, comments and quoted heredocs: each
//! must be a substitution the walk visited. One the grammar did not model (an indented
//! heredoc line, a backtick inside `${...}`) makes the command unsupported, and its text is
//! still analysed, so a default deny rule inside it applies. Likewise a word that begins with
//! `{` where a command starts (`{s,}udo id`), which the grammar reads as the start of a group:
//! the line is analysed again with such words brace-expanded as bash expands them.
//!
//! The parts: this file holds the analysis' types, its entry points and caps, and the
//! walker's state; `walk.rs` visits the syntax tree, `command.rs` reads one simple command,
//! `syntax.rs` reads a word's value off its node, and `account.rs` holds the scans after the
//! walk.

use std::cell::RefCell;
use std::ops::Range;

use serde::Serialize;
use tree_sitter::{Node, Parser, Tree, TreeCursor};

use crate::effects::{self, Found};
use crate::limits::{
    POLICY_ANALYSIS_MAX_BRACE_WORDS, POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES,
    POLICY_ANALYSIS_MAX_COMMAND_BYTES, POLICY_ANALYSIS_MAX_DEPTH, POLICY_ANALYSIS_MAX_NESTING,
    POLICY_ANALYSIS_MAX_OUTPUT_BYTES, POLICY_ANALYSIS_MAX_PARSED_BYTES, POLICY_ANALYSIS_MAX_PARTS,
    POLICY_ANALYSIS_MAX_TEST_NODES,
};
use crate::plain;
use crate::wrappers;

mod account;
mod command;
mod syntax;
mod walk;

/// One simple command the command line runs.
#[derive(Debug, Clone, Serialize)]
pub struct SimpleCommand {
    /// Its source text, from the program word to the last argument (no `VAR=` prefix, no
    /// redirections).
    pub text: String,
    /// Its words, unquoted; a word with an expansion keeps its source text.
    pub argv: Vec<String>,
    /// The program's name: the last path component of the unquoted first word
    /// (`/usr/bin/sudo` and `'sudo'` are `sudo`).
    pub name: String,
    /// Whether it was found inside another command (a wrapper, `sh -c`, `eval`, `find -exec`).
    /// Left out of the JSON when false (the facade reads a missing one as false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub derived: bool,
    /// The id of the default deny rule it matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny: Option<&'static str>,
    /// Its first word whose value bash decides when it runs (a glob, an expansion, a
    /// substitution), if any: a deny rule must hold for whatever that word becomes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open: Option<OpenWord>,
    /// Whether `deny` matched only through a value the open word could take (left out of the
    /// JSON when false).
    #[serde(rename = "denyOpen", skip_serializing_if = "std::ops::Not::not")]
    pub deny_open: bool,
    /// What one of its options does that an allow rule naming only the program does not
    /// cover (see [`effects`](crate::effects)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<Found>,
}

/// A word of a simple command whose value bash decides when it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenWord {
    /// Its index in the command's words (0: the program).
    pub index: usize,
    /// True when it could be any text (an expansion or a substitution); false when it is a
    /// glob, which could be any name it matches (see [`open_word`](crate::open_word)).
    pub any: bool,
    /// Its source text, as the command wrote it.
    pub text: String,
}

/// A redirection to or from a file (`/dev/null`, `/dev/std*`, `/dev/fd/*` and descriptor
/// duplications are not reported).
#[derive(Debug, Clone, Serialize)]
pub struct Redirect {
    /// The operator (`>`, `>>`, `<`, `&>`, ...).
    pub op: String,
    /// The target path, or `None` when it is not a static word.
    pub target: Option<String>,
    /// Whether the redirection writes.
    pub write: bool,
}

/// What one command line runs.
#[derive(Debug, Default, Serialize)]
pub struct Analysis {
    /// Every simple command, in source order (substitutions before the command using them).
    pub parts: Vec<SimpleCommand>,
    /// File redirections (left out of the JSON when there are none; the facade reads a
    /// missing list as empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<Redirect>,
    /// Whether the line is more than one plain simple command of static words (a list,
    /// pipeline, substitution, expansion, redirection, background job, control structure).
    pub metacharacters: bool,
    /// Why the line could not be fully analysed (fail closed: it needs approval).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    /// A default deny rule matched by a redirection of a compound statement, or by an
    /// option that writes onto a block device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny: Option<&'static str>,
    /// Why the command is refused outright, whatever the rules say (a deny, not an approval):
    /// it nests deeper than a nesting cap, so what lies past the cap was never looked at and
    /// could be a denied command. Set together with [`Analysis::unsupported`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Bytes parsed so far (the line and the strings inside it).
    #[serde(skip)]
    parsed: usize,
    /// Bytes of text and argv reported so far.
    #[serde(skip)]
    output: usize,
    /// Parts already reported by the analyses enclosing this one (a nested string's).
    #[serde(skip)]
    base_parts: usize,
}

impl Analysis {
    /// Every default deny rule id matched, in order.
    pub fn denies(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.parts.iter().filter_map(|p| p.deny).chain(self.deny)
    }

    /// Parts reported so far, enclosing analyses included.
    fn total_parts(&self) -> usize {
        self.base_parts + self.parts.len()
    }

    /// A fresh analysis for a string inside this one, sharing its budgets.
    fn inner(&self) -> Analysis {
        Analysis {
            parsed: self.parsed,
            output: self.output,
            base_parts: self.total_parts(),
            ..Analysis::default()
        }
    }

    fn unsupported(&mut self, why: impl Into<String>) {
        self.metacharacters = true;
        if self.unsupported.is_none() {
            self.unsupported = Some(why.into());
        }
    }

    /// Refuses the command past `cap` (see [`Analysis::refused`]); it is unsupported too.
    fn refuse(&mut self, cap: Cap) {
        let why = cap.reason();
        if self.refused.is_none() {
            self.refused = Some(format!("command refused: {why}"));
        }
        self.unsupported(why);
    }

    /// Folds the analysis of a string run by this line into it.
    fn absorb(&mut self, inner: Analysis) {
        self.metacharacters |= inner.metacharacters;
        if let Some(u) = inner.unsupported {
            self.unsupported(u);
        }
        if self.refused.is_none() {
            self.refused = inner.refused;
        }
        self.deny = self.deny.or(inner.deny);
        self.parts.extend(inner.parts);
        self.redirects.extend(inner.redirects);
        self.parsed = inner.parsed;
        self.output = inner.output;
    }
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `src` with this thread's bash parser.
fn parse(src: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        slot.as_mut()?.parse(src, None)
    })
}

/// Analyses one command line.
#[must_use]
pub fn analyze(command: &str) -> Analysis {
    let mut out = Analysis::default();
    if !wrappers::tables_hold() {
        out.unsupported("the wrapper tables failed their self-check");
        return out;
    }
    if !effects::tables_hold() {
        out.unsupported("the option effect tables failed their self-check");
        return out;
    }
    if command.len() > POLICY_ANALYSIS_MAX_COMMAND_BYTES {
        out.refuse(Cap::Length);
        return out;
    }
    if bracket_depth(command) > POLICY_ANALYSIS_MAX_DEPTH {
        // Refused before parsing: the grammar's own work on thousands of nested brackets
        // is not worth spending on a command that is denied anyway.
        out.refuse(Cap::Depth);
        return out;
    }
    run(command, Ctx::default(), &mut out);
    out
}

/// The caps of the analysis. A command past one is refused (a deny: what lies past the cap was
/// never looked at and could be a denied command), with the reason [`Cap::reason`] words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cap {
    /// [`POLICY_ANALYSIS_MAX_COMMAND_BYTES`].
    Length,
    /// [`POLICY_ANALYSIS_MAX_DEPTH`].
    Depth,
    /// [`POLICY_ANALYSIS_MAX_PARTS`].
    Parts,
    /// [`POLICY_ANALYSIS_MAX_NESTING`].
    Nesting,
    /// [`POLICY_ANALYSIS_MAX_PARSED_BYTES`].
    Parsed,
    /// [`POLICY_ANALYSIS_MAX_OUTPUT_BYTES`].
    Output,
    /// [`POLICY_ANALYSIS_MAX_BRACE_WORDS`].
    BraceWords,
    /// [`POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES`].
    BraceWordBytes,
    /// [`POLICY_ANALYSIS_MAX_TEST_NODES`].
    TestNodes,
}

impl Cap {
    /// Why a command past this cap is refused: what it exceeds, then the cap's name.
    fn reason(self) -> String {
        let (what, cap) = match self {
            Cap::Length => (
                format!("command longer than {POLICY_ANALYSIS_MAX_COMMAND_BYTES} bytes"),
                "length",
            ),
            Cap::Depth => (
                format!(
                    "shell syntax nested more than {POLICY_ANALYSIS_MAX_DEPTH} levels deep"
                ),
                "nesting",
            ),
            Cap::Parts => (
                format!("more than {POLICY_ANALYSIS_MAX_PARTS} simple commands"),
                "command",
            ),
            Cap::Nesting => (
                format!(
                    "commands nested more than {POLICY_ANALYSIS_MAX_NESTING} levels deep in command strings or wrappers"
                ),
                "nesting",
            ),
            Cap::Parsed => (
                format!(
                    "the command and the strings inside it exceed {POLICY_ANALYSIS_MAX_PARSED_BYTES} bytes"
                ),
                "parse",
            ),
            Cap::Output => (
                format!(
                    "the commands found exceed {POLICY_ANALYSIS_MAX_OUTPUT_BYTES} bytes of text"
                ),
                "output",
            ),
            Cap::BraceWords => (
                format!(
                    "a brace expansion into more than {POLICY_ANALYSIS_MAX_BRACE_WORDS} words in one command"
                ),
                "brace-expansion",
            ),
            Cap::BraceWordBytes => (
                format!(
                    "a brace expansion in a word longer than {POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES} bytes"
                ),
                "word-length",
            ),
            Cap::TestNodes => (
                format!(
                    "a test expression of more than {POLICY_ANALYSIS_MAX_TEST_NODES} nodes"
                ),
                "test-expression",
            ),
        };
        format!("{what} (the analysis's {cap} cap)")
    }
}

/// The deepest nesting of `(`, `{` and `[` in `s`, counted without regard to quotes (each
/// bracket bash reads as syntax is at least one level of the syntax tree, so real syntax
/// under the depth cap is never refused by this count).
fn bracket_depth(s: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    for b in s.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// [`analyze`] with every line, nested strings included, read by the grammar: the fast path
/// ([`plain`]) is off on this thread while it runs. For the tests that check that both paths
/// agree.
#[doc(hidden)]
#[must_use]
pub fn analyze_with_grammar(command: &str) -> Analysis {
    FAST_PATH.with(|f| f.set(false));
    let out = analyze(command);
    FAST_PATH.with(|f| f.set(true));
    out
}

/// Whether the fast path reads `command` itself (the whole line; nested strings may still
/// go to the grammar). For the agreement tests.
#[doc(hidden)]
#[must_use]
pub fn takes_fast_path(command: &str) -> bool {
    plain::split(command).is_some()
}

thread_local! {
    static FAST_PATH: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Where a walk stands: how many command strings deep, how many syntax levels deep (carried
/// into nested strings, so the recursion as a whole is bounded), and whether its commands are
/// run by another command.
#[derive(Debug, Clone, Copy, Default)]
struct Ctx {
    nest: usize,
    level: usize,
    derived: bool,
}

/// Analyses `src` (the whole line, or a nested `sh -c` string) into `out`.
fn run(src: &str, ctx: Ctx, out: &mut Analysis) {
    if ctx.nest > POLICY_ANALYSIS_MAX_NESTING {
        out.refuse(Cap::Nesting);
        return;
    }
    out.parsed += src.len();
    if out.parsed > POLICY_ANALYSIS_MAX_PARSED_BYTES {
        out.refuse(Cap::Parsed);
        return;
    }
    if FAST_PATH.with(std::cell::Cell::get) {
        if let Some(list) = crate::plain::split(src) {
            Walker::new(src, out, ctx).plain_list(&list);
            return;
        }
    }
    let Some(tree) = parse(src) else {
        out.unsupported("the shell parser failed");
        return;
    };
    let root = tree.root_node();
    if root.has_error() {
        out.unsupported("the command does not parse as shell");
    }
    let mut cursor = root.walk();
    let statements: Vec<Node> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let background = root.children(&mut cursor).any(|n| n.kind() == "&");
    if statements.len() != 1
        || background
        || statements.first().is_some_and(|n| n.kind() != "command")
    {
        out.metacharacters = true;
    }
    let mut w = Walker::new(src, out, ctx);
    w.visit(root);
    w.account();
    w.continuations();
    if root.has_error() || w.misread_group {
        w.leading_braces();
    }
    if root.has_error() {
        w.misread_globs();
    }
    w.misread_lines();
}

struct Walker<'s, 'o, 't> {
    src: &'s str,
    out: &'o mut Analysis,
    ctx: Ctx,
    /// Ranges of the source bash reads literally (single quotes, comments, quoted heredocs).
    literal: Vec<Range<usize>>,
    /// Start offsets of the substitutions the walk visited.
    visited: Vec<usize>,
    /// Inside a heredoc body (where quotes are literal characters).
    heredoc: usize,
    /// The walk stopped at the depth cap somewhere (what lies deeper was not visited).
    capped: bool,
    /// The children of the nodes being visited, one run per level (one buffer for the whole
    /// walk instead of a vector per node).
    kids: Vec<Node<'t>>,
    /// A cursor reused for listing children (each new one allocates).
    cursor: Option<TreeCursor<'t>>,
    /// The grammar read a word that begins with `{` as the start of a group (`{s,}udo id⏎}`).
    misread_group: bool,
    /// Newlines the grammar read inside a simple command (`a | b | c⏎{ sudo id || e; }`
    /// comes back as one command `c { sudo id`): bash ends the command at each of them.
    misread_newlines: Vec<usize>,
}

#[cfg(test)]
pub(super) mod tests;
