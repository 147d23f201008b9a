//! Shell command analysis on the tree-sitter-bash grammar: every simple command a command
//! line runs, its redirection targets, and whether it is anything more than one plain command.
//!
//! The walk follows pipelines, lists, subshells, groups, `if`/`while`/`for`/`case`, `$(...)`,
//! backticks, process substitution, `bash -c`/`sh -c` strings and `eval` arguments
//! (recursively, up to [`POLICY_ANALYSIS_MAX_NESTING`]), `VAR=value` prefixes, wrappers
//! (`env`, `timeout`, `nice`, `nohup`, `command`, `xargs`, `sudo`, ... see
//! [`wrappers`](super::wrappers)) and `find -exec`. Syntax outside an explicit allow-list
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

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;

use serde::Serialize;
use tree_sitter::{Node, Parser, Tree, TreeCursor};

use super::arith;
use super::brace::{self, Braces};
use super::deny_rules::{self, is_block_device, is_download, is_shell, Matcher};
use super::effects::{self, Found};
use super::open_word;
use super::plain;
use super::word::Word;
use super::wrappers::{self, is_dangerous_env, Inner, Shell};
use crate::limits::{
    POLICY_ANALYSIS_MAX_BRACE_WORDS, POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES,
    POLICY_ANALYSIS_MAX_COMMAND_BYTES, POLICY_ANALYSIS_MAX_DEPTH,
    POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES, POLICY_ANALYSIS_MAX_NESTING,
    POLICY_ANALYSIS_MAX_OUTPUT_BYTES, POLICY_ANALYSIS_MAX_PARSED_BYTES, POLICY_ANALYSIS_MAX_PARTS,
    POLICY_ANALYSIS_MAX_TEST_NODES,
};

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
    /// cover (see [`effects`](super::effects)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<Found>,
}

/// A word of a simple command whose value bash decides when it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenWord {
    /// Its index in the command's words (0: the program).
    pub index: usize,
    /// True when it could be any text (an expansion or a substitution); false when it is a
    /// glob, which could be any name it matches (see [`open_word`](super::open_word)).
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
        if let Some(list) = super::plain::split(src) {
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

/// `src` with each `?` and each bracket expression that is part of a word (`[s]udo`, no blank
/// inside, touching a word character) replaced by `*`.
fn star_globs(src: &str) -> String {
    let b = src.as_bytes();
    let word =
        |c: Option<&u8>| c.is_some_and(|c| !c.is_ascii_whitespace() && !b";&|()<>".contains(c));
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'?' {
            out.push('*');
            i += 1;
            continue;
        }
        if c == b'[' {
            let close = b
                .get(i + 1..)
                .and_then(|rest| {
                    rest.iter()
                        .position(|&x| x == b']' || x.is_ascii_whitespace())
                })
                .map(|k| i + 1 + k)
                .filter(|&k| b.get(k) == Some(&b']') && k > i + 1);
            if let Some(k) = close {
                if word(i.checked_sub(1).and_then(|p| b.get(p))) || word(b.get(k + 1)) {
                    out.push('*');
                    i = k + 1;
                    continue;
                }
            }
        }
        // Copy up to the next byte that may start a glob (always a character boundary).
        let next = b
            .get(i + 1..)
            .and_then(|rest| rest.iter().position(|&x| x == b'?' || x == b'['))
            .map_or(b.len(), |k| i + 1 + k);
        out.push_str(src.get(i..next).unwrap_or(""));
        i = next;
    }
    out
}

/// `src` with each word that begins with `{` and brace-expands replaced by the words bash
/// expands it into (`{s,}udo id` is `sudo udo id`), or `None` when there is no such word; at
/// most `room` bytes (past them, the parse cap). An expansion past a brace cap is `Err` too.
fn expand_leading_braces(src: &str, room: usize) -> Result<Option<String>, Cap> {
    let mut out = String::new();
    let mut last = 0;
    for r in brace::leading_words(src) {
        let (Some(before), Some(raw)) = (src.get(last..r.start), src.get(r.clone())) else {
            continue;
        };
        let words = match brace::expand(raw, POLICY_ANALYSIS_MAX_BRACE_WORDS) {
            Braces::Words(w) => w,
            Braces::Plain | Braces::Unmodelled(_) => continue,
            Braces::TooMany => return Err(Cap::BraceWords),
            Braces::TooLong => return Err(Cap::BraceWordBytes),
        };
        out.push_str(before);
        out.push_str(&words.join(" "));
        last = r.end;
        if out.len() > room {
            return Err(Cap::Parsed);
        }
    }
    if last == 0 {
        return Ok(None);
    }
    out.push_str(src.get(last..).unwrap_or_default());
    if out.len() > room {
        return Err(Cap::Parsed);
    }
    Ok(Some(out))
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

fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Removes the backslashes of an unquoted word (borrowed when it has none).
fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Removes the backslashes that escape inside double quotes.
fn unescape_dq(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The value of a word without expansions, or `None`.
fn static_value<'a>(node: Node, src: &'a str) -> Option<Cow<'a, str>> {
    match node.kind() {
        "word" | "number" => Some(unescape(text(node, src))),
        "raw_string" => {
            let t = text(node, src);
            Some(Cow::Borrowed(
                t.strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(t),
            ))
        }
        "string" => {
            // The grammar's `string_content` leaves out the blanks at either end (`" /"`);
            // the value is everything between the quotes, as bash reads it.
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content")
            {
                return None;
            }
            let t = text(node, src);
            let inner = t.strip_prefix('"').unwrap_or(t);
            Some(unescape_dq(inner.strip_suffix('"').unwrap_or(inner)))
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let mut s = String::new();
            for child in node.children(&mut cursor) {
                if child.is_named() {
                    s.push_str(&static_leaf(child, src)?);
                } else {
                    s.push_str(&unescape(text(child, src)));
                }
            }
            Some(Cow::Owned(s))
        }
        _ => None,
    }
}

/// [`static_value`] of a part of a concatenation (not itself a concatenation).
fn static_leaf<'a>(node: Node, src: &'a str) -> Option<Cow<'a, str>> {
    if node.kind() == "concatenation" {
        return None;
    }
    static_value(node, src)
}

/// Whether the unquoted text `s` has a glob (`*`, `?`, `[...]`) or a brace expansion
/// (`{a,b}`, `{1..3}`) bash would expand.
fn unquoted_pattern(s: &str) -> bool {
    let b = s.as_bytes();
    let mut open = 0usize;
    let mut listy = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 1,
            b'*' | b'?' => return true,
            b'[' if b.get(i + 1..).is_some_and(|r| r.contains(&b']')) => return true,
            b'{' => open += 1,
            b',' if open > 0 => listy = true,
            b'.' if open > 0 && b.get(i + 1) == Some(&b'.') => listy = true,
            b'}' if open > 0 => {
                if listy {
                    return true;
                }
                open -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether a word node may expand into other words (see [`Word::pattern`]).
fn is_pattern(node: Node, src: &str) -> bool {
    match node.kind() {
        "word" => unquoted_pattern(text(node, src)),
        "concatenation" => {
            let mut cursor = node.walk();
            let mut unquoted = String::new();
            for child in node.children(&mut cursor) {
                match child.kind() {
                    "word" => unquoted.push_str(text(child, src)),
                    "brace_expression" | "extglob_pattern" => return true,
                    _ if !child.is_named() => unquoted.push_str(text(child, src)),
                    _ => unquoted.push('x'),
                }
            }
            unquoted_pattern(&unquoted)
        }
        "brace_expression" | "extglob_pattern" => true,
        _ => false,
    }
}

/// The first of `words` whose value bash decides when it runs: an expansion or substitution
/// (any text), or a glob (any name it matches; an extended glob or an unexpanded brace counts
/// as any text).
fn open_word(words: &[Word<'_>]) -> Option<OpenWord> {
    words.iter().enumerate().find_map(|(index, w)| {
        let any = w.value.is_none() || (w.pattern && w.raw.contains(['(', '{']));
        (any || w.pattern).then(|| OpenWord {
            index,
            any,
            text: w.raw.to_string(),
        })
    })
}

/// Whether an open word may split into several words (an unquoted expansion).
fn may_split(w: &Word<'_>) -> bool {
    w.value.is_none() && !(w.raw.starts_with('"') && w.raw.ends_with('"'))
}

/// The default deny rule a command matches through a value its open words could take (its
/// first open word is `open`): the program word becoming a denied program, or an operand
/// becoming what a rule looks for (`rm -rf `pwd``).
fn open_deny(words: &[Word<'_>], argv: &[String], open: &OpenWord) -> Option<&'static str> {
    if open.index == 0 {
        let glob = (!open.any).then(|| argv.first().map_or("", String::as_str));
        if let Some(id) = deny_rules::check_open_program(argv, glob) {
            return Some(id);
        }
    }
    let operands: Vec<(usize, bool)> = words
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, w)| w.value.is_none())
        .map(|(i, w)| (i, may_split(w)))
        .collect();
    if operands.is_empty() {
        return None;
    }
    deny_rules::check_open_operands(argv, &operands)
}

/// Whether a static value holds command text that bash could run when it evaluates the value
/// as an arithmetic expression or a subscript (`a[$(id)]`).
fn holds_code(value: &str) -> bool {
    value.contains("$(") || value.contains('`')
}

/// Lexically normalises an absolute path (`/dev/./sda`, `//dev/../dev/sda` are `/dev/sda`).
fn normalize_absolute(p: &str) -> Option<String> {
    if !p.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// The operator of a parameter transformation (`${NAME@OP}`, `${NAME[SUB]@OP}`, `${!NAME@OP}`,
/// `${@@OP}`, `${1@OP}`) whose `${` is at `at`, as the bytes from after the `@` to the `}`
/// (or to the end); `None` when the expansion there is not a transformation. A subscript is
/// skipped whole: quotes, backslashes, nested brackets and `$(...)` in it. At most
/// [`POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES`] are read: a subscript still open there gives
/// the range from the `${` on, which is no operator (the command needs approval).
fn transformation(bytes: &[u8], at: usize) -> Option<Range<usize>> {
    let cap = at
        .saturating_add(POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES)
        .min(bytes.len());
    let unread = (cap < bytes.len()).then_some(at..cap);
    let bytes = bytes.get(..cap)?;
    let mut i = at + 2;
    if matches!(bytes.get(i), Some(b'!' | b'#')) {
        i += 1;
    }
    match *bytes.get(i)? {
        b if b.is_ascii_alphabetic() || b == b'_' => {
            while bytes
                .get(i)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                i += 1;
            }
        }
        b if b.is_ascii_digit() => {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!' => i += 1,
        _ => return None,
    }
    if bytes.get(i) == Some(&b'[') {
        let mut depth = 0usize;
        loop {
            let Some(&b) = bytes.get(i) else {
                return unread;
            };
            match b {
                b'\\' => i += 1,
                b'\'' => match bytes
                    .get(i + 1..)
                    .and_then(|r| r.iter().position(|&b| b == b'\''))
                {
                    Some(k) => i += k + 1,
                    None => return unread,
                },
                b'"' => {
                    i += 1;
                    while bytes.get(i) != Some(&b'"') {
                        if i >= bytes.len() {
                            return unread;
                        }
                        i += if bytes.get(i) == Some(&b'\\') { 2 } else { 1 };
                    }
                }
                b'$' if bytes.get(i + 1) == Some(&b'(') => i = balanced_end(bytes, i + 2),
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    if bytes.get(i) != Some(&b'@') {
        return None;
    }
    let from = i + 1;
    let to = bytes
        .get(from..)?
        .iter()
        .position(|&b| b == b'}')
        .map_or(bytes.len(), |k| from + k);
    Some(from..to)
}

/// The end (exclusive) of the `$(...)`/`<(...)` whose body starts at `from`: the matching
/// parenthesis, counted naively, or the end of the source.
fn balanced_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 1usize;
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

impl<'s, 'o, 't> Walker<'s, 'o, 't> {
    fn new(src: &'s str, out: &'o mut Analysis, ctx: Ctx) -> Self {
        Walker {
            src,
            out,
            ctx,
            literal: Vec::new(),
            visited: Vec::new(),
            heredoc: 0,
            capped: false,
            kids: Vec::new(),
            cursor: None,
            misread_group: false,
            misread_newlines: Vec::new(),
        }
    }

    /// Enters one syntax level; `false` (and the command unsupported) past the depth cap.
    fn enter(&mut self) -> bool {
        if self.ctx.level >= POLICY_ANALYSIS_MAX_DEPTH {
            self.capped = true;
            self.out.refuse(Cap::Depth);
            return false;
        }
        self.ctx.level += 1;
        true
    }

    fn visit(&mut self, node: Node<'t>) {
        if self.enter() {
            self.visit_node(node);
            self.ctx.level -= 1;
        }
    }

    fn visit_node(&mut self, node: Node<'t>) {
        if self.out.total_parts() >= POLICY_ANALYSIS_MAX_PARTS {
            self.out.refuse(Cap::Parts);
            return;
        }
        if node.is_error() || node.is_missing() {
            self.out.unsupported("the command does not parse as shell");
            return;
        }
        match node.kind() {
            "program" => self.children(node),
            "command" => {
                self.command(node);
            }
            "pipeline" => self.pipeline(node),
            "redirected_statement" => self.redirected(node),
            "file_redirect" => self.redirect(node, None),
            "heredoc_redirect" => self.heredoc(node),
            "variable_assignment"
            | "variable_assignments"
            | "declaration_command"
            | "unset_command" => {
                self.out.metacharacters = true;
                self.builtin_statement(node);
            }
            "arithmetic_expansion" | "c_style_for_statement" => {
                self.arithmetic(node);
                self.out.metacharacters = true;
                self.children(node);
            }
            "test_command" => {
                self.test_command(node);
                self.out.metacharacters = true;
                self.children(node);
            }
            "subscript" => {
                self.subscript(node);
                self.out.metacharacters = true;
                self.children(node);
            }
            "command_substitution" | "process_substitution" => {
                self.visited.push(node.start_byte());
                self.out.metacharacters = true;
                self.children(node);
            }
            "heredoc_body" => {
                self.out.metacharacters = true;
                self.heredoc += 1;
                self.children(node);
                self.heredoc -= 1;
            }
            "compound_statement" => {
                // Bash opens a group only at a `{` that is a word of its own; `{s,}udo` is a
                // word that bash brace-expands (see `leading_braces`).
                let src = self.src.as_bytes();
                if src.get(node.start_byte()) == Some(&b'{')
                    && src
                        .get(node.start_byte() + 1)
                        .is_some_and(|&c| !c.is_ascii_whitespace() && !b";&|()<>".contains(&c))
                {
                    self.misread_group = true;
                    self.out.unsupported(
                        "a word that begins with { read as a group (bash expands it as a word)",
                    );
                }
                // `((...))` is a compound statement of this grammar: arithmetic.
                self.test_command(node);
                self.out.metacharacters = true;
                self.children(node);
            }
            "list"
            | "subshell"
            | "negated_command"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "case_statement"
            | "case_item"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "postfix_expression"
            | "ternary_expression"
            | "simple_expansion"
            | "string"
            | "concatenation"
            | "array"
            | "herestring_redirect"
            | "brace_expression"
            | "translated_string" => {
                self.out.metacharacters = true;
                self.children(node);
            }
            "expansion" => {
                self.expansion(node);
                self.out.metacharacters = true;
                self.children(node);
            }
            "function_definition" => {
                // Unsupported, and its body is analysed as code: a deny rule inside it applies
                // (it runs when called, here or in a child shell after `export -f`).
                self.out
                    .unsupported("unsupported shell syntax: function_definition");
                self.children(node);
            }
            "raw_string" | "ansi_c_string" | "comment" => self.literal(node),
            "word"
            | "number"
            | "string_content"
            | "variable_name"
            | "special_variable_name"
            | "file_descriptor"
            | "heredoc_start"
            | "heredoc_content"
            | "heredoc_end"
            | "test_operator"
            | "regex"
            | "extglob_pattern"
            | "command_name" => {}
            other => {
                self.out
                    .unsupported(format!("unsupported shell syntax: {other}"));
            }
        }
    }

    /// Notes a range bash reads literally (outside heredoc bodies, where quotes are plain
    /// characters).
    fn literal(&mut self, node: Node<'t>) {
        if self.heredoc == 0 {
            self.literal.push(node.byte_range());
        }
    }

    /// Appends `node`'s named children to [`Self::kids`] and returns their range there.
    fn list_children(&mut self, node: Node<'t>) -> Range<usize> {
        let start = self.kids.len();
        let mut cursor = match self.cursor.take() {
            Some(mut c) => {
                c.reset(node);
                c
            }
            None => node.walk(),
        };
        self.kids.extend(node.named_children(&mut cursor));
        self.cursor = Some(cursor);
        start..self.kids.len()
    }

    fn children(&mut self, node: Node<'t>) {
        let range = self.list_children(node);
        let start = range.start;
        for i in range {
            if let Some(&child) = self.kids.get(i) {
                self.visit(child);
            }
        }
        self.kids.truncate(start);
    }

    /// Arithmetic (`$((...))`, `for ((...))`): fails closed on what it cannot model.
    fn arithmetic(&mut self, node: Node<'t>) {
        let t = text(node, self.src);
        let inner = t
            .strip_prefix("$((")
            .or_else(|| t.strip_prefix("$["))
            .unwrap_or(t);
        let inner = if node.kind() == "c_style_for_statement" {
            // Only the `((...))` header is arithmetic.
            let header = node
                .child_by_field_name("body")
                .and_then(|b| t.get(..b.start_byte().saturating_sub(node.start_byte())))
                .unwrap_or(t);
            header
                .find("((")
                .and_then(|k| header.get(k + 2..))
                .unwrap_or(header)
        } else {
            inner
        };
        self.arith(inner, "arithmetic");
    }

    /// Makes the command unsupported when the arithmetic text `expr` can run code (see
    /// [`arith`]); `context` names where it is.
    fn arith(&mut self, expr: &str, context: &str) {
        if let Some(risk) = arith::risk(expr, self.src) {
            self.out.unsupported(risk.reason(context));
        }
    }

    /// `${x:off:len}` (offset and length are arithmetic) and `${!x}` (the value of `x` names
    /// the variable read, a subscript included).
    fn expansion(&mut self, node: Node<'t>) {
        let t = text(node, self.src);
        if arith::indirect(t) {
            self.out.unsupported(
                "an indirect expansion ${!name} (the value names a variable whose subscript bash evaluates)",
            );
        } else if let Some(part) = arith::substring_part(t) {
            self.arith(part, "a substring offset");
        }
    }

    /// `((...))` is arithmetic; in `[[ ]]`, `-eq`, `-ne`, `-lt`, `-le`, `-gt` and `-ge`
    /// evaluate their operands as arithmetic (a subscript in them can run a command).
    fn test_command(&mut self, node: Node<'t>) {
        let t = text(node, self.src);
        if t.starts_with("((") {
            self.arith(t.get(2..).unwrap_or(""), "arithmetic");
            return;
        }
        if !t.starts_with('[') {
            return;
        }
        let mut stack = vec![node];
        let mut seen = 0usize;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > POLICY_ANALYSIS_MAX_TEST_NODES {
                self.out.refuse(Cap::TestNodes);
                return;
            }
            if n.kind() == "binary_expression" {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, self.src))
                    .unwrap_or("");
                if matches!(op, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge") {
                    for side in ["left", "right"] {
                        if let Some(s) = n.child_by_field_name(side) {
                            let operand = static_value(s, self.src)
                                .map_or_else(|| text(s, self.src).to_string(), Cow::into_owned);
                            self.arith(&operand, "an arithmetic test operand");
                        }
                    }
                }
            }
            if n.kind() == "unary_expression" {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, self.src))
                    .unwrap_or("");
                if matches!(op, "-v" | "-R") {
                    let mut cursor = n.walk();
                    let operand = n
                        .named_children(&mut cursor)
                        .find(|c| c.kind() != "test_operator");
                    if let Some(o) = operand {
                        let value = static_value(o, self.src)
                            .map_or_else(|| text(o, self.src).to_string(), Cow::into_owned);
                        self.variable_operand(&value);
                    }
                }
            }
            let mut cursor = n.walk();
            stack.extend(
                n.named_children(&mut cursor)
                    .filter(|c| c.kind().ends_with("expression")),
            );
        }
    }

    /// `${a[...]}`, `a[...]=`: the index of an indexed array is arithmetic.
    fn subscript(&mut self, node: Node<'t>) {
        if let Some(index) = node.child_by_field_name("index") {
            self.arith(text(index, self.src), "a subscript");
        }
    }

    /// A word bash reads as a variable name (`-v NAME`, `unset NAME`, `read NAME`): its
    /// subscript, if any, is arithmetic.
    fn variable_operand(&mut self, word: &str) {
        if let Some(index) = arith::subscript(word) {
            self.arith(index, "a subscript");
        }
    }

    /// A standalone assignment or declaration: reported as a command of its own, so that only
    /// an explicit allow rule covers it.
    fn builtin_statement(&mut self, node: Node<'t>) {
        let t = text(node, self.src).to_string();
        if holds_code(&unescape(&t)) {
            self.out
                .unsupported("an assigned value holds command text (bash may evaluate it)");
        }
        let argv: Vec<String> = t.split_whitespace().map(String::from).collect();
        if node.kind() == "declaration_command" {
            self.declaration(node, &argv);
        }
        if node.kind() == "unset_command" {
            // `unset 'a[i]'`: the subscript of a name is arithmetic.
            let mut cursor = node.walk();
            let kids: Vec<Node> = node.named_children(&mut cursor).collect();
            for kid in kids {
                let v = static_value(kid, self.src)
                    .map_or_else(|| text(kid, self.src).to_string(), Cow::into_owned);
                if !v.starts_with('-') {
                    self.variable_operand(&v);
                }
            }
        }
        let name = argv
            .first()
            .map(|a| wrappers::program(a).to_string())
            .unwrap_or_default();
        self.push(SimpleCommand {
            argv,
            text: t,
            name,
            derived: self.ctx.derived,
            deny: None,
            open: None,
            deny_open: false,
            effect: None,
        });
        self.children(node);
    }

    /// `declare -i NAME=VALUE` (also `typeset`, `local`, `export`, `readonly`): every value
    /// assigned to NAME, here and later, is arithmetic, so NAME must be known numeric in the
    /// line; `declare -n NAME=VALUE` makes VALUE a variable name, whose subscript is
    /// arithmetic.
    fn declaration(&mut self, node: Node<'t>, argv: &[String]) {
        let flags: String = argv
            .iter()
            .skip(1)
            .filter(|a| a.starts_with(['-', '+']))
            .map(String::as_str)
            .collect();
        let (integer, nameref) = (flags.contains('i'), flags.contains('n'));
        if !integer && !nameref {
            return;
        }
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        for kid in kids {
            let (name, value) = match kid.kind() {
                "variable_assignment" => (
                    kid.child_by_field_name("name").map(|n| text(n, self.src)),
                    kid.child_by_field_name("value"),
                ),
                "variable_name" => (Some(text(kid, self.src)), None),
                _ => continue,
            };
            if integer {
                if let Some(name) = name {
                    if !arith::known_numeric(self.src, name) {
                        self.out.unsupported(format!(
                            "declare -i {name}: a value assigned to it is evaluated as arithmetic and is not known to be a number"
                        ));
                    }
                }
            }
            if let (true, Some(v)) = (nameref, value) {
                let v = static_value(v, self.src)
                    .map_or_else(|| text(v, self.src).to_string(), Cow::into_owned);
                self.variable_operand(&v);
            }
        }
    }

    /// Adds a part, within the output budget (past it the part is kept for the default deny
    /// rules but without its text, and the command needs approval).
    fn push(&mut self, part: SimpleCommand) {
        let argv_bytes = part.argv.iter().map(String::len).sum::<usize>();
        self.push_sized(part, argv_bytes);
    }

    /// [`Self::push`] of a part whose argv, of `argv_bytes` bytes, the caller moves in later
    /// (so that it need not be cloned while the caller still reads it); whether it may.
    fn push_sized(&mut self, mut part: SimpleCommand, argv_bytes: usize) -> bool {
        if self.out.total_parts() >= POLICY_ANALYSIS_MAX_PARTS {
            self.out.refuse(Cap::Parts);
            return false;
        }
        self.out.output += part.text.len() + argv_bytes;
        let fits = self.out.output <= POLICY_ANALYSIS_MAX_OUTPUT_BYTES;
        if !fits {
            self.out.refuse(Cap::Output);
            part.text.clear();
            part.argv.clear();
        }
        self.out.parts.push(part);
        fits
    }

    fn pipeline(&mut self, node: Node<'t>) {
        self.out.metacharacters = true;
        let mut cursor = node.walk();
        let stages: Vec<Node> = node.named_children(&mut cursor).collect();
        let mut downloaded = false;
        for stage in stages {
            let from = self.out.parts.len();
            self.visit(stage);
            self.pipe_stage(from, &mut downloaded);
        }
    }

    /// A list read by the fast path (its equivalent of the walk over `program`, `list`,
    /// `subshell` and `compound_statement`): more than one pipeline, or one in the background,
    /// is more than a plain command.
    fn plain_list(&mut self, list: &plain::List) {
        if list.pipelines.len() > 1 || list.background {
            self.out.metacharacters = true;
        }
        for pipeline in &list.pipelines {
            self.plain_pipeline(pipeline);
        }
    }

    /// A pipeline read by the fast path (its equivalent of [`Self::pipeline`]). The pipeline,
    /// and each group in it, enters a syntax level, as the walk over the grammar's nodes does.
    fn plain_pipeline(&mut self, pipeline: &plain::Pipeline) {
        if !self.enter() {
            return;
        }
        if pipeline.stages.len() > 1 || pipeline.negated {
            self.out.metacharacters = true;
        }
        let mut downloaded = false;
        for stage in &pipeline.stages {
            if self.out.total_parts() >= POLICY_ANALYSIS_MAX_PARTS {
                self.out.refuse(Cap::Parts);
                break;
            }
            let from = self.out.parts.len();
            match stage {
                plain::Stage::Command(words, substitutions) => {
                    // Substitutions run first (their parts come before the command's).
                    for list in substitutions {
                        self.plain_inner([list]);
                    }
                    if words.iter().any(|w| w.value.is_none()) {
                        // A `$NAME` or a substitution: an expansion.
                        self.out.metacharacters = true;
                    }
                    let own = self.emit(words, self.ctx.derived, 0);
                    self.fed_by_download(from..own.unwrap_or(from), own);
                }
                plain::Stage::Compound(list) => self.plain_inner([list]),
                plain::Stage::Clause(substitutions, lists) => {
                    self.plain_inner(substitutions.iter().chain(lists));
                }
            }
            self.pipe_stage(from, &mut downloaded);
        }
        self.ctx.level -= 1;
    }

    /// Lists the fast path read inside a stage (a substitution's, a group's, a clause's), in
    /// order, one syntax level deeper: more than a plain command.
    fn plain_inner<'a, 'l: 'a>(&mut self, lists: impl IntoIterator<Item = &'a plain::List<'l>>) {
        self.out.metacharacters = true;
        if self.enter() {
            for list in lists {
                self.plain_list(list);
            }
            self.ctx.level -= 1;
        }
    }

    /// After a pipeline stage whose parts start at `from`: a shell reading what a download
    /// earlier in the pipeline wrote is denied.
    fn pipe_stage(&mut self, from: usize, downloaded: &mut bool) {
        let id = deny_rules::id_of(|m| matches!(m, Matcher::DownloadToShell));
        let parts = self.out.parts.get_mut(from..).unwrap_or_default();
        if *downloaded {
            for p in parts
                .iter_mut()
                .filter(|p| is_shell(&p.argv) && p.deny.is_none())
            {
                p.deny = Some(id);
            }
        }
        *downloaded |= parts.iter().any(|p| is_download(&p.argv));
    }

    fn redirected(&mut self, node: Node<'t>) {
        self.out.metacharacters = true;
        let mut own = None;
        if let Some(body) = node.child_by_field_name("body") {
            if body.kind() == "command" {
                if self.enter() {
                    own = self.command(body);
                    self.ctx.level -= 1;
                }
            } else {
                self.visit(body);
            }
        }
        let mut cursor = node.walk();
        let redirects: Vec<Node> = node
            .children_by_field_name("redirect", &mut cursor)
            .collect();
        for r in redirects {
            self.redirect(r, own);
        }
    }

    /// A heredoc: with a quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) its body is
    /// literal; otherwise bash expands it like a double-quoted string (the accounting after
    /// the walk checks that every substitution in it was seen).
    fn heredoc(&mut self, node: Node<'t>) {
        self.out.metacharacters = true;
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.children(&mut cursor).collect();
        let quoted = kids
            .iter()
            .find(|k| k.kind() == "heredoc_start")
            .is_some_and(|s| text(*s, self.src).contains(['\'', '"', '\\']));
        if quoted {
            let start = kids
                .iter()
                .find(|k| k.kind() == "heredoc_start")
                .map_or(node.start_byte(), Node::end_byte);
            let end = kids
                .iter()
                .find(|k| k.kind() == "heredoc_end")
                .map_or(node.end_byte(), Node::start_byte);
            // The body starts on the line after the operator.
            let body_start = self
                .src
                .get(start..end)
                .and_then(|s| s.find('\n'))
                .map_or(end, |nl| start + nl + 1);
            if body_start < end {
                self.literal.push(body_start..end);
            }
            for k in kids.iter().filter(|k| k.kind() != "heredoc_body") {
                if k.is_named() {
                    self.visit(*k);
                }
            }
        } else {
            for k in kids.iter().filter(|k| k.is_named()) {
                self.visit(*k);
            }
        }
    }

    fn redirect(&mut self, node: Node<'t>, part: Option<usize>) {
        self.out.metacharacters = true;
        if node.kind() == "heredoc_redirect" {
            self.heredoc(node);
            return;
        }
        if node.kind() != "file_redirect" {
            self.visit(node);
            return;
        }
        let mut cursor = node.walk();
        let op = node
            .children(&mut cursor)
            .find(|c| !c.is_named())
            .map(|c| text(c, self.src).to_string())
            .unwrap_or_default();
        let Some(dest) = node.child_by_field_name("destination") else {
            return;
        };
        self.scan(dest);
        let (value, pattern) = self.redirect_target(dest);
        let write = op.contains('>');
        if let Some(v) = &value {
            let dup = op.ends_with('&') && (v == "-" || v.chars().all(|c| c.is_ascii_digit()));
            let norm = normalize_absolute(v);
            let stream = norm.as_deref().is_some_and(|n| {
                matches!(
                    n,
                    "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty"
                ) || n.starts_with("/dev/fd/")
            });
            if dup || stream {
                return;
            }
            let device = norm
                .as_deref()
                .is_some_and(|n| is_block_device(n) || (n.starts_with("/dev/") && pattern));
            if write && device {
                let id = deny_rules::id_of(|m| matches!(m, Matcher::BlockDeviceWrite));
                match part.and_then(|i| self.out.parts.get_mut(i)) {
                    Some(p) if p.deny.is_none() => p.deny = Some(id),
                    Some(_) => {}
                    None => self.out.deny = self.out.deny.or(Some(id)),
                }
            }
        }
        self.out.redirects.push(Redirect {
            op,
            target: value,
            write,
        });
    }

    /// A redirection target's value (after brace expansion: bash writes to `{f,}` and to
    /// `{f,,,}` as `f`) and whether it is a pattern.
    fn redirect_target(&mut self, dest: Node<'t>) -> (Option<String>, bool) {
        let raw = text(dest, self.src);
        // The whole cap, not two words: empty words are dropped after the expansion.
        match brace::expand(raw, POLICY_ANALYSIS_MAX_BRACE_WORDS) {
            Braces::Words(w) if w.len() == 1 => {
                self.out.metacharacters = true;
                let (value, glob) = w.first().map(|w| brace::unquote(w)).unwrap_or_default();
                return (value, glob);
            }
            // More than one word, or none: bash refuses the ambiguous redirection.
            Braces::Words(_) | Braces::Plain => {}
            Braces::Unmodelled(why) => self.out.unsupported(why),
            Braces::TooMany => self.out.refuse(Cap::BraceWords),
            Braces::TooLong => self.out.refuse(Cap::BraceWordBytes),
        }
        (
            static_value(dest, self.src).map(Cow::into_owned),
            is_pattern(dest, self.src),
        )
    }

    /// Visits the substitutions inside a word; any expansion makes the line non-plain.
    fn scan(&mut self, node: Node<'t>) {
        if self.enter() {
            self.scan_node(node);
            self.ctx.level -= 1;
        }
    }

    fn scan_node(&mut self, node: Node<'t>) {
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                self.visited.push(node.start_byte());
                self.out.metacharacters = true;
                self.children(node);
            }
            "arithmetic_expansion" => {
                self.arithmetic(node);
                self.out.metacharacters = true;
                self.scan_children(node);
            }
            "subscript" => {
                self.subscript(node);
                self.out.metacharacters = true;
                self.scan_children(node);
            }
            "expansion" => {
                self.expansion(node);
                self.out.metacharacters = true;
                self.scan_children(node);
            }
            "simple_expansion" | "translated_string" => {
                self.out.metacharacters = true;
                self.scan_children(node);
            }
            "ansi_c_string" => {
                self.out.metacharacters = true;
                self.literal(node);
            }
            "raw_string" => self.literal(node),
            _ => self.scan_children(node),
        }
    }

    fn scan_children(&mut self, node: Node<'t>) {
        let range = self.list_children(node);
        let start = range.start;
        for i in range {
            let Some(&child) = self.kids.get(i) else {
                continue;
            };
            if child.is_error() || child.is_missing() {
                self.out.unsupported("the command does not parse as shell");
            }
            self.scan(child);
        }
        self.kids.truncate(start);
    }

    /// A simple command: its prefix assignments, words and redirections. Returns the index of
    /// its own part.
    fn command(&mut self, node: Node<'t>) -> Option<usize> {
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        let from = self.out.parts.len();
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        self.bare_newlines(&kids);
        for child in kids {
            match child.kind() {
                "variable_assignment" => {
                    if let Some(name) = child.child_by_field_name("name") {
                        let name = text(name, self.src);
                        if is_dangerous_env(name) {
                            self.out
                                .unsupported(format!("the prefix {name}= can change what runs"));
                        }
                    }
                    let value = child
                        .child_by_field_name("value")
                        .and_then(|v| static_value(v, self.src));
                    if value.as_deref().is_some_and(holds_code) {
                        self.out.unsupported(
                            "an assigned value holds command text (bash may evaluate it)",
                        );
                    }
                    self.scan(child);
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    redirects.push(child);
                }
                "command_name" => {
                    let word = child.named_child(0).unwrap_or(child);
                    self.scan(word);
                    words.push(self.word(word));
                }
                _ => {
                    self.scan(child);
                    words.push(self.word(child));
                }
            }
        }
        let words = self.brace_words(words);
        let substitutions = from..self.out.parts.len();
        let own = self.emit(&words, self.ctx.derived, 0);
        self.fed_by_download(substitutions, own);
        for r in redirects {
            self.redirect(r, own);
        }
        own
    }

    /// A shell reading what a download in its own substitutions (parts `substitutions`)
    /// wrote (`bash <(curl x)`) is denied; `own` is the shell command's part.
    fn fed_by_download(&mut self, substitutions: Range<usize>, own: Option<usize>) {
        let (Some(i), true) = (own, self.ctx.nest < POLICY_ANALYSIS_MAX_NESTING) else {
            return;
        };
        let fed = self
            .out
            .parts
            .get(substitutions)
            .is_some_and(|s| s.iter().any(|p| is_download(&p.argv)));
        if let Some(p) = self.out.parts.get_mut(i) {
            if fed && is_shell(&p.argv) && p.deny.is_none() {
                p.deny = Some(deny_rules::id_of(|m| matches!(m, Matcher::DownloadToShell)));
            }
        }
    }

    /// Notes each newline between two of a command's children that no backslash escapes (see
    /// [`Walker::misread_newlines`]); the command is then unsupported.
    fn bare_newlines(&mut self, kids: &[Node<'t>]) {
        let bytes = self.src.as_bytes();
        for pair in kids.windows(2) {
            let (Some(a), Some(b)) = (pair.first(), pair.get(1)) else {
                continue;
            };
            for at in a.end_byte()..b.start_byte() {
                if bytes.get(at) == Some(&b'\n') && bytes.get(at.wrapping_sub(1)) != Some(&b'\\') {
                    self.misread_newlines.push(at);
                }
            }
        }
        if !self.misread_newlines.is_empty() {
            self.out.unsupported(
                "the parser read a newline inside a command (bash ends the command there)",
            );
        }
    }

    /// After a walk that found [`Walker::misread_newlines`]: the line with each of them
    /// spelled `;` is analysed again, and the commands it finds meet the rules too.
    fn misread_lines(&mut self) {
        if self.misread_newlines.is_empty() || self.capped {
            return;
        }
        let mut bytes = self.src.as_bytes().to_vec();
        for &at in &self.misread_newlines {
            if let Some(b) = bytes.get_mut(at) {
                *b = b';';
            }
        }
        // Only an ASCII byte changed, so the text is still UTF-8.
        let Ok(respelled) = String::from_utf8(bytes) else {
            return;
        };
        self.respelled_new(&respelled);
    }

    /// The words bash runs after brace expansion (`rm -{r,f} /` is `rm -r -f /`), at most
    /// [`POLICY_ANALYSIS_MAX_BRACE_WORDS`] of them from expansions; what is not modelled makes
    /// the command unsupported, and an expansion past a cap refuses it (its words kept as
    /// written either way: a denied name could be among the words not expanded). The grammar
    /// may split one bash word into adjacent nodes (`x{$a,b}`, `""\sudo`): those are joined
    /// first.
    fn brace_words(&mut self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
        let split = words.windows(2).any(|p| p[0].end == p[1].start);
        if !split && !words.iter().any(|w| w.raw.contains('{')) {
            return words;
        }
        let mut joined: Vec<Word<'s>> = Vec::with_capacity(words.len());
        for w in words {
            match joined.last_mut() {
                // One bash word (`""\sudo` is `sudo`): nothing separates the nodes.
                Some(prev) if prev.end == w.start => {
                    prev.end = w.end;
                    prev.raw = Cow::Borrowed(self.src.get(prev.start..prev.end).unwrap_or(""));
                    prev.value = brace::unquote(&prev.raw).0.map(Cow::Owned);
                    // A word the grammar split is not trusted as plain.
                    prev.pattern = true;
                }
                _ => joined.push(w),
            }
        }
        let mut out = Vec::with_capacity(joined.len());
        let mut room = POLICY_ANALYSIS_MAX_BRACE_WORDS;
        for w in joined {
            match brace::expand(&w.raw, room) {
                Braces::Plain => out.push(w),
                Braces::Words(list) => {
                    self.out.metacharacters = true;
                    room = room.saturating_sub(list.len());
                    out.extend(list.into_iter().map(|raw| {
                        let (value, pattern) = brace::unquote(&raw);
                        Word {
                            value: value.map(Cow::Owned),
                            raw: Cow::Owned(raw),
                            start: w.start,
                            end: w.end,
                            pattern,
                        }
                    }));
                }
                Braces::Unmodelled(why) => {
                    self.out.unsupported(why);
                    out.push(w);
                }
                Braces::TooMany => {
                    self.out.refuse(Cap::BraceWords);
                    out.push(w);
                }
                Braces::TooLong => {
                    self.out.refuse(Cap::BraceWordBytes);
                    out.push(w);
                }
            }
        }
        out
    }

    fn word(&self, node: Node<'t>) -> Word<'s> {
        let r = node.byte_range();
        Word {
            value: static_value(node, self.src),
            raw: Cow::Borrowed(text(node, self.src)),
            start: r.start,
            end: r.end,
            pattern: is_pattern(node, self.src),
        }
    }

    /// Reports `words` as a simple command, then the commands it runs itself.
    fn emit(&mut self, words: &[Word<'_>], derived: bool, hops: usize) -> Option<usize> {
        let (first, last) = (words.first()?, words.last()?);
        if hops > POLICY_ANALYSIS_MAX_NESTING {
            self.out.refuse(Cap::Nesting);
            return None;
        }
        if self.out.total_parts() >= POLICY_ANALYSIS_MAX_PARTS {
            self.out.refuse(Cap::Parts);
            return None;
        }
        if first.value.is_none() {
            self.out
                .unsupported("the command name is not a static word");
        } else if first.pattern {
            self.out.unsupported(
                "the command name is a pattern bash expands (it could name any program)",
            );
        }
        let argv: Vec<String> = words
            .iter()
            .map(|w| w.value.as_deref().unwrap_or(&w.raw).to_string())
            .collect();
        if words
            .iter()
            .skip(1)
            .any(|w| w.pattern && w.raw.contains('{'))
        {
            self.out
                .unsupported("an argument with brace expansion (bash turns it into other words)");
        }
        if words
            .iter()
            .skip(1)
            .filter_map(|w| w.value.as_deref())
            .any(|a| a.contains('[') && holds_code(a))
        {
            self.out.unsupported(
                "an argument holding a subscript with command text (bash may evaluate it)",
            );
        }
        let text = self
            .src
            .get(first.start..last.end)
            .unwrap_or("")
            .to_string();
        let open = open_word(words);
        let mut deny = deny_rules::check_argv(&argv);
        let mut deny_open = false;
        if let (None, Some(o)) = (deny, &open) {
            deny = open_deny(words, &argv, o);
            deny_open = deny.is_some();
        }
        let own = self.out.parts.len();
        let name = argv.first().map_or("", |a| wrappers::program(a));
        let argv_bytes = argv.iter().map(String::len).sum::<usize>();
        let glob_program = open.as_ref().is_some_and(|o| o.index == 0 && !o.any);
        // The part's argv is moved in at the end, after the checks below have read it.
        let store_argv = self.push_sized(
            SimpleCommand {
                text,
                argv: Vec::new(),
                name: name.to_string(),
                derived,
                deny,
                open,
                deny_open,
                effect: None,
            },
            argv_bytes,
        );
        let pushed = self.out.parts.len() == own + 1;
        if glob_program {
            self.respell_program(words, &argv, hops);
        }
        if name == "git" {
            self.git_options(&argv);
        }
        self.option_effects(pushed.then_some(own), words, &argv, hops);
        match wrappers::unwrap(&argv) {
            Some(Inner::Argv { start, env }) => {
                if name == "xargs"
                    && argv.get(start).is_some_and(|p| {
                        wrappers::SHELLS.contains(&wrappers::program(p))
                            || wrappers::program(p) == "eval"
                            || wrappers::wrapper(p).is_some()
                    })
                {
                    self.out
                        .unsupported("xargs runs a shell or wrapper on its input");
                }
                if let Some(n) = env.iter().find(|n| is_dangerous_env(n)) {
                    self.out
                        .unsupported(format!("the prefix {n}= can change what runs"));
                }
                if let Some(assignments) = argv.get(1..start) {
                    self.exported_functions(assignments);
                }
                if argv
                    .get(1..start)
                    .is_some_and(|a| a.iter().any(|w| w.contains('=') && holds_code(w)))
                {
                    self.out
                        .unsupported("an assigned value holds command text (bash may evaluate it)");
                }
                self.emit(words.get(start..).unwrap_or_default(), true, hops + 1);
            }
            Some(Inner::Word(i)) => match words.get(i).and_then(|w| w.value.clone()) {
                Some(script) => self.nested(&script),
                None => {
                    self.out
                        .unsupported("a command string that is not a static word");
                    self.open_code(own, words, i);
                }
            },
            Some(Inner::Attached { index, text }) => {
                if words.get(index).is_some_and(|w| w.value.is_some()) {
                    self.nested(&text);
                } else {
                    self.out
                        .unsupported("a command string that is not a static word");
                    self.open_code(own, words, index);
                }
            }
            Some(Inner::Joined(i)) => {
                let args: Option<Vec<&str>> =
                    words.iter().skip(i).map(|w| w.value.as_deref()).collect();
                match args {
                    Some(args) => self.nested(&args.join(" ")),
                    None => {
                        self.out
                            .unsupported("a command string that is not a static word");
                        let at = (i..words.len()).find(|&j| words[j].value.is_none());
                        self.open_code(own, words, at.unwrap_or(i));
                    }
                }
            }
            Some(Inner::Split {
                words: split,
                through,
            }) => {
                let at = words
                    .get(through)
                    .map_or(first.start..last.end, |w| w.start..w.end);
                let mut next = vec![Word {
                    pattern: false,
                    ..first.clone()
                }];
                next.extend(split.into_iter().map(|s| Word {
                    raw: Cow::Owned(s.clone()),
                    value: Some(Cow::Owned(s)),
                    start: at.start,
                    end: at.end,
                    pattern: false,
                }));
                next.extend(words.iter().skip(through + 1).cloned());
                self.emit(&next, true, hops + 1);
            }
            Some(Inner::Stdin) => self
                .out
                .unsupported(format!("{name} reading commands from standard input")),
            Some(Inner::Unknown(why)) => self.out.unsupported(format!(
                "a wrapper's arguments could not be followed ({why})"
            )),
            None => {}
        }
        match wrappers::shell_invocation(&argv) {
            Some(Shell::String(i)) => match words.get(i).and_then(|w| w.value.clone()) {
                Some(script) => self.nested(&script),
                None => {
                    self.out
                        .unsupported("a shell -c string that is not a static word");
                    self.open_code(own, words, i);
                }
            },
            Some(Shell::Stdin) => self
                .out
                .unsupported("a shell reading commands from standard input"),
            Some(Shell::Unknown(why)) => self
                .out
                .unsupported(format!("a shell's arguments could not be followed ({why})")),
            Some(Shell::Script(_)) | None => {}
        }
        match name {
            "eval" if argv.first().is_some_and(|a| a == "eval") => {
                let skip = if argv.get(1).is_some_and(|a| a == "--") {
                    2
                } else {
                    1
                };
                let args: Option<Vec<&str>> = words
                    .iter()
                    .skip(skip)
                    .map(|w| w.value.as_deref())
                    .collect();
                match args {
                    Some(args) => self.nested(&args.join(" ")),
                    None => {
                        self.out.unsupported("eval of an expansion");
                        let at = (skip..words.len()).find(|&j| words[j].value.is_none());
                        self.open_code(own, words, at.unwrap_or(skip));
                    }
                }
            }
            "trap" => self.trap(own, words, &argv),
            _ => {}
        }
        self.builtin_arithmetic(name, &argv);
        for (a, b) in wrappers::find_exec_ranges(&argv) {
            self.emit(words.get(a..b).unwrap_or_default(), true, hops + 1);
        }
        if let (true, Some(part)) = (store_argv, self.out.parts.get_mut(own)) {
            part.argv = argv;
        }
        Some(own)
    }

    /// A program word that is a glob (`/usr/bin/tou?h`, `/bin/s?`): the command is analysed
    /// again under each name the analysis knows (wrappers, shells, `eval`, the programs the
    /// default rules look at, downloaders) that the glob could expand to, so what that program
    /// would run, and the rules, are seen. The parts found are derived.
    fn respell_program(&mut self, words: &[Word<'_>], argv: &[String], hops: usize) {
        let Some(glob) = argv.first() else {
            return;
        };
        let mut tried: Vec<&str> = Vec::new();
        for name in wrappers::known_programs().chain(deny_rules::known_programs()) {
            if name.contains('*')
                || tried.contains(&name)
                || !open_word::program_could_be(glob, name)
            {
                continue;
            }
            tried.push(name);
            let mut next = words.to_vec();
            if let Some(program) = next.first_mut() {
                program.value = Some(Cow::Borrowed(name));
                program.pattern = false;
            }
            let from = self.out.parts.len();
            self.emit(&next, true, hops + 1);
            // What the respelling found was reached through the glob.
            for p in self.out.parts.iter_mut().skip(from) {
                if p.open.is_none() {
                    p.open = words.first().map(|w| OpenWord {
                        index: 0,
                        any: false,
                        text: w.raw.to_string(),
                    });
                    p.deny_open = p.deny.is_some();
                }
            }
        }
    }

    /// A command string bash builds at run time (`bash -c "$S"`, `eval $X`, `watch "$C"`,
    /// the `index`th word): it could run any program, so the command is denied by the first
    /// default rule any program could match, through that word.
    fn open_code(&mut self, own: usize, words: &[Word<'_>], index: usize) {
        let Some(part) = self.out.parts.get_mut(own) else {
            return;
        };
        if part.deny.is_some() {
            return;
        }
        let Some(id) = deny_rules::check_open_program(&[], None) else {
            return;
        };
        part.deny = Some(id);
        part.deny_open = true;
        part.open = Some(OpenWord {
            index,
            any: true,
            text: words
                .get(index)
                .map_or_else(String::new, |w| w.raw.to_string()),
        });
    }

    /// The arithmetic in a builtin's arguments: `let EXPR...`, the operands of `test` and `[`
    /// (`-eq` ..., `-v NAME`), `printf`'s numeric arguments, the subscripts of the names
    /// `unset`, `read`, `mapfile`, `wait -p`, `getopts` and `printf -v` assign.
    fn builtin_arithmetic(&mut self, name: &str, argv: &[String]) {
        let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        match name {
            "let" => {
                for a in &args {
                    self.arith(a, "let");
                }
            }
            "test" | "[" => {
                for o in arith::test_operands(&args) {
                    self.arith(o, "an arithmetic test operand");
                }
                for pair in args.windows(2) {
                    if let [op, operand] = pair {
                        if matches!(*op, "-v" | "-R") {
                            self.variable_operand(operand);
                        }
                    }
                }
            }
            "printf" => {
                let mut rest: &[&str] = &args;
                if let ["-v", var, tail @ ..] = rest {
                    self.variable_operand(var);
                    rest = tail;
                }
                if let ["--", tail @ ..] = rest {
                    rest = tail;
                }
                if let [format, values @ ..] = rest {
                    // A format that is not a static word could hold any conversion.
                    if arith::printf_numeric(format) || format.contains('$') {
                        for v in values {
                            self.arith(v, "a numeric printf argument");
                        }
                    }
                }
            }
            "unset" | "read" | "mapfile" | "readarray" | "wait" | "getopts" => {
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    self.variable_operand(a);
                }
            }
            _ => {}
        }
    }

    /// `env 'BASH_FUNC_f%%=() { BODY; }' bash -c f`: bash imports the function from the
    /// environment and runs its body, which is analysed as code (still unsupported).
    fn exported_functions(&mut self, assignments: &[String]) {
        for a in assignments {
            let Some((name, value)) = a.split_once('=') else {
                continue;
            };
            if !name.starts_with("BASH_FUNC_") {
                continue;
            }
            self.out
                .unsupported(format!("the prefix {name}= can change what runs"));
            let body = value.trim_start().strip_prefix("()").unwrap_or(value);
            self.nested(body);
        }
    }

    /// `trap [--] ACTION SIGNAL...`: the action is a command string bash runs later.
    fn trap(&mut self, own: usize, words: &[Word<'_>], argv: &[String]) {
        // The action runs later, when a signal arrives: never a plain command.
        self.out.metacharacters = true;
        let mut i = 1;
        while argv.get(i).is_some_and(|a| a.starts_with('-') && a != "-") {
            let end = argv.get(i).is_some_and(|a| a == "--");
            i += 1;
            if end {
                break;
            }
        }
        if argv.len() > i + 1 && argv.get(i).is_some_and(|a| a != "-") {
            match words.get(i).and_then(|w| w.value.clone()) {
                Some(action) => self.nested(&action),
                None => {
                    self.out
                        .unsupported("a trap action that is not a static word");
                    self.open_code(own, words, i);
                }
            }
        }
    }

    /// `git -c NAME=VALUE`, `--config-env` and `--exec-path` before the subcommand can name
    /// commands git runs (`core.pager`, `core.fsmonitor`, aliases).
    fn git_options(&mut self, argv: &[String]) {
        let mut args = argv.iter().skip(1);
        while let Some(a) = args.next() {
            if !a.starts_with('-') {
                return;
            }
            if matches!(
                a.as_str(),
                "-C" | "--git-dir" | "--work-tree" | "--namespace"
            ) {
                args.next();
                continue;
            }
            if a.starts_with("-c") || a.starts_with("--config-env") || a.starts_with("--exec-path")
            {
                self.out
                    .unsupported("git configuration on its command line can run commands");
                return;
            }
        }
    }

    /// What the command's own options do (see [`effects`](super::effects)): command strings
    /// they run are analysed, an argv they run is emitted, a write onto a block device is
    /// denied (whatever the rules say), and the first other effect is put on part `own`.
    fn option_effects(
        &mut self,
        own: Option<usize>,
        words: &[Word<'_>],
        argv: &[String],
        hops: usize,
    ) {
        let scan = effects::scan(argv, &|i| {
            words
                .get(i)
                .is_some_and(|w| w.value.is_some() && !w.pattern)
        });
        for (_, text) in &scan.commands {
            self.nested(text);
        }
        if let Some(from) = scan.argv_from {
            self.emit(words.get(from..).unwrap_or_default(), true, hops + 1);
        }
        // A write onto a block device is denied whatever the rules allow.
        if scan
            .targets
            .iter()
            .any(|t| normalize_absolute(t).is_some_and(|n| is_block_device(&n)))
        {
            let id = deny_rules::id_of(|m| matches!(m, Matcher::BlockDeviceWrite));
            self.out.deny = self.out.deny.or(Some(id));
        }
        if let Some(part) = own.and_then(|i| self.out.parts.get_mut(i)) {
            part.effect = scan.found;
        }
    }

    /// Analyses a command string run by this command (`sh -c`, `eval`).
    fn nested(&mut self, script: &str) {
        let mut inner = self.out.inner();
        let ctx = Ctx {
            nest: self.ctx.nest + 1,
            level: self.ctx.level,
            derived: true,
        };
        run(script, ctx, &mut inner);
        self.out.absorb(inner);
    }

    /// After the walk: every place bash runs code (`$(`, a backtick, `<(`, `>(`) outside the
    /// literal ranges must be a substitution the walk visited. One that is not makes the
    /// command unsupported; its text is analysed all the same (for the default deny rules).
    fn account(&mut self) {
        if self.capped {
            // Syntax past the depth cap was not walked: the command already needs approval,
            // and analysing what lies deeper would only repeat the walk that stopped.
            return;
        }
        self.literal.sort_by_key(|r| r.start);
        self.visited.sort_unstable();
        let bytes = self.src.as_bytes();
        let mut literal = std::mem::take(&mut self.literal).into_iter().peekable();
        let mut unmodelled: Vec<Range<usize>> = Vec::new();
        let mut in_backticks: Option<usize> = None;
        let mut i = 0;
        // Only the first few unmodelled substitutions are analysed; finding them is enough to
        // fail closed, and stopping there keeps the scan linear.
        while let Some(&b) = bytes.get(i) {
            if unmodelled.len() >= POLICY_ANALYSIS_MAX_NESTING {
                break;
            }
            while literal.peek().is_some_and(|r| r.end <= i) {
                literal.next();
            }
            if let Some(r) = literal.peek() {
                if r.start <= i {
                    i = r.end;
                    continue;
                }
            }
            let next = bytes.get(i + 1).copied();
            if b == b'$' && next == Some(b'{') {
                if let Some(op) = transformation(bytes, i) {
                    self.transformed(i, op);
                }
            }
            let opens = match b {
                b'\\' => {
                    if next == Some(b'`') && in_backticks.is_some() {
                        // A backtick escaped inside backticks is a nested substitution.
                        unmodelled.push(i..i + 2);
                    }
                    i += 2;
                    continue;
                }
                b'`' => {
                    match in_backticks.take() {
                        Some(open) => {
                            if self.visited.binary_search(&open).is_err() {
                                unmodelled.push(open + 1..i);
                            }
                        }
                        None => in_backticks = Some(i),
                    }
                    false
                }
                b'$' => next == Some(b'(') && bytes.get(i + 2) != Some(&b'('),
                b'<' | b'>' => next == Some(b'('),
                _ => false,
            };
            if opens && self.visited.binary_search(&i).is_err() {
                let end = balanced_end(bytes, i + 2);
                unmodelled.push(i + 2..end);
                // The body is analysed whole, the substitutions inside it with it: scanning
                // them again here would analyse every nested body once per enclosing one
                // (exponential in the nesting, within the nesting cap).
                i = end.max(i + 1);
                continue;
            }
            i += 1;
        }
        if let Some(open) = in_backticks.filter(|_| unmodelled.len() < POLICY_ANALYSIS_MAX_NESTING)
        {
            if self.visited.binary_search(&open).is_err() {
                unmodelled.push(open + 1..bytes.len());
            }
        }
        if unmodelled.is_empty() {
            return;
        }
        self.out
            .unsupported("a command substitution the analysis could not follow");
        for r in unmodelled.into_iter().take(POLICY_ANALYSIS_MAX_NESTING) {
            if let Some(t) = self.src.get(r) {
                let t = t.to_string();
                self.nested(&t);
            }
        }
    }

    /// A parameter transformation `${NAME@OP}` whose `${` is at `at` and whose operator is
    /// `op` (see [`transformation`]). Bash's manual ("Shell Parameter Expansion") lists the
    /// operators, and `bash -c` shows what each does with a value holding `$(id)`:
    /// - `P` expands the value as a prompt string: backslash escapes (`\140` is a backquote),
    ///   then parameter and arithmetic expansion and command substitution (with the default
    ///   `promptvars`), so `${v@P}` runs whatever commands the value spells. The value is
    ///   not modelled, so this is code bash builds at run time, like `eval "$v"`: it could run
    ///   any program, and the command is denied by the first default rule any program could
    ///   match (a derived part whose program is the expansion), and needs approval whatever
    ///   the rules say.
    /// - `E` expands backslash escapes as `$'...'` does: text, nothing runs (`\140id\140`
    ///   stays the text `` `id` ``).
    /// - `Q`, `A`, `K`, `k` quote the value (or write an assignment or `declare` that would
    ///   recreate it) as text; `a` is the attribute letters; `U`, `u`, `L` change case. All
    ///   produce text and run nothing.
    /// - Anything else is an operator this analysis does not know (bash 5.2 refuses it with
    ///   "bad substitution", a later bash might not): it needs approval.
    ///
    /// `${!prefix@}` (no operator) lists variable names: text.
    fn transformed(&mut self, at: usize, op: Range<usize>) {
        let bytes = self.src.as_bytes();
        match bytes.get(op.clone()).unwrap_or_default() {
            b"P" => {
                self.out.unsupported(
                    "a prompt expansion ${name@P} (bash runs the command substitutions its value spells)",
                );
                let end = (op.end + 1).min(bytes.len());
                let Some(raw) = self.src.get(at..end) else {
                    return;
                };
                let word = Word {
                    value: None,
                    raw: Cow::Borrowed(raw),
                    start: at,
                    end,
                    pattern: false,
                };
                self.emit(&[word], true, 0);
            }
            b"E" | b"Q" | b"A" | b"K" | b"k" | b"a" | b"U" | b"u" | b"L" => {}
            b"" if bytes.get(at + 2) == Some(&b'!') => {}
            _ => self
                .out
                .unsupported("a parameter transformation ${name@op} with an unknown operator"),
        }
    }

    /// A backslash-newline inside a word joins it with the next line (`s\⏎udo` is `sudo`).
    /// Such a line needs approval, and the joined text is analysed for the default deny rules.
    fn continuations(&mut self) {
        if !self.src.contains("\\\n") {
            return;
        }
        let bytes = self.src.as_bytes();
        let inside_word = bytes.windows(3).enumerate().any(|(i, w)| {
            w[0] == b'\\'
                && w[1] == b'\n'
                && !w[2].is_ascii_whitespace()
                && i > 0
                && !bytes[i - 1].is_ascii_whitespace()
                && !b";&|()<>".contains(&bytes[i - 1])
        });
        if !inside_word {
            return;
        }
        self.out.unsupported("a line continuation inside a word");
        let joined = self.src.replace("\\\n", "");
        self.respelled_unseen(&joined, true);
    }

    /// A word that begins with `{` where bash reads a word: the grammar takes the `{` for the
    /// start of a group (a parse error, or a group bash would not see), while bash
    /// brace-expands the word (`{s,}udo id` runs `sudo udo id`, also after `;`, `|`, a newline
    /// or inside `$(...)`). The line, with such words expanded the way bash expands them, is
    /// analysed again, and its commands meet the rules; the command needs approval all the
    /// same (it is unsupported already), and an expansion past a cap refuses it.
    fn leading_braces(&mut self) {
        if self.capped || !self.src.contains('{') {
            return;
        }
        let room = POLICY_ANALYSIS_MAX_PARSED_BYTES.saturating_sub(self.out.parsed);
        match expand_leading_braces(self.src, room) {
            Ok(None) => {}
            Ok(Some(expanded)) => {
                self.respelled_new(&expanded);
            }
            Err(cap) => self.out.refuse(cap),
        }
    }

    /// A glob the grammar misreads in a line that does not parse (`cu?l x | sh`, `[s]udo id`:
    /// the grammar drops the word's start). The line is analysed again with each `?` and
    /// each bracket expression inside a word read as `*`, which matches every name they do
    /// and more, so its commands meet the deny rules (the line is unsupported already: this
    /// can only make the verdict stricter).
    fn misread_globs(&mut self) {
        if self.capped || !self.src.contains(['?', '[']) {
            return;
        }
        let respelled = star_globs(self.src);
        if respelled != self.src {
            self.respelled_new(&respelled);
        }
    }

    /// [`Walker::respelled`], keeping the parts this walk has not reported already.
    fn respelled_new(&mut self, text: &str) {
        self.respelled_unseen(text, self.ctx.derived);
    }

    /// [`Walker::respelled`] of parts `derived` or not, keeping those this walk has not
    /// reported already (a host rule meets each command the respelling shows) and every part a
    /// default rule denies there.
    fn respelled_unseen(&mut self, text: &str, derived: bool) {
        let seen: std::collections::HashSet<(String, Vec<String>)> = self
            .out
            .parts
            .iter()
            .map(|p| (p.text.clone(), p.argv.clone()))
            .collect();
        self.respelled(text, derived, |p| {
            p.deny.is_some() || !seen.contains(&(p.text.clone(), p.argv.clone()))
        });
    }

    /// Analyses `text`, a spelling of this line that bash runs the same way, and keeps what
    /// can only make the verdict stricter: the parts `keep` selects (within the command cap),
    /// a redirection's default deny and a refusal. Its parts are `derived` or not as told.
    fn respelled(&mut self, text: &str, derived: bool, keep: impl Fn(&SimpleCommand) -> bool) {
        let mut inner = self.out.inner();
        let ctx = Ctx {
            nest: self.ctx.nest + 1,
            level: self.ctx.level,
            derived,
        };
        run(text, ctx, &mut inner);
        self.out.parsed = inner.parsed;
        self.out.output = inner.output;
        let kept: Vec<SimpleCommand> = inner.parts.into_iter().filter(|p| keep(p)).collect();
        let room = POLICY_ANALYSIS_MAX_PARTS.saturating_sub(self.out.total_parts());
        self.out.parts.extend(kept.into_iter().take(room));
        self.out.deny = self.out.deny.or(inner.deny);
        if self.out.refused.is_none() {
            self.out.refused = inner.refused;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn programs(cmd: &str) -> Vec<String> {
        analyze(cmd)
            .parts
            .iter()
            .map(|p| p.argv.first().cloned().unwrap_or_default())
            .collect()
    }

    #[test]
    fn finds_every_simple_command() {
        assert_eq!(programs("ls; rm -rf ~"), ["ls", "rm"]);
        assert_eq!(programs("ls $(curl x | sh)"), ["curl", "sh", "ls"]);
        assert_eq!(programs("timeout 5 sudo x"), ["timeout", "sudo", "x"]);
        assert_eq!(programs("a && b || c | d"), ["a", "b", "c", "d"]);
        assert_eq!(programs("(cd x && make) > log"), ["cd", "make"]);
        assert_eq!(programs("echo `whoami`"), ["whoami", "echo"]);
        assert_eq!(
            programs("diff <(sort a) <(sort b)"),
            ["sort", "sort", "diff"]
        );
        assert_eq!(programs("bash -c 'ls && rm x'"), ["bash", "ls", "rm"]);
        assert_eq!(programs("FOO=1 make test"), ["make"]);
        assert_eq!(
            programs("env -i A=1 nice -n 5 nohup make"),
            ["env", "nice", "nohup", "make"]
        );
        assert_eq!(
            programs("find . -name '*.o' -exec rm {} \\;"),
            ["find", "rm"]
        );
        assert_eq!(programs("eval 'ls; id'"), ["eval", "ls", "id"]);
        assert_eq!(programs("for f in *.c; do gcc $f; done"), ["gcc"]);
    }

    #[test]
    fn plain_commands_are_not_metacharacters() {
        for cmd in [
            "ls -la",
            "grep -rf pattern .",
            "echo 'a; b | c'",
            "git commit -m \"fix: a && b\"",
            "timeout 5 make",
        ] {
            let a = analyze(cmd);
            assert!(!a.metacharacters, "{cmd}: {a:?}");
            assert!(a.unsupported.is_none(), "{cmd}: {a:?}");
        }
        for cmd in [
            "ls; id",
            "ls | wc",
            "echo $HOME",
            "ls > f",
            "sleep 1 &",
            "(ls)",
            "x=1",
            "echo $(id)",
        ] {
            assert!(analyze(cmd).metacharacters, "{cmd}");
        }
    }

    #[test]
    fn redirect_targets_are_reported() {
        let a = analyze("echo hi > out.txt 2>&1 < in.txt 2>/dev/null");
        let t: Vec<_> = a
            .redirects
            .iter()
            .map(|r| (r.op.as_str(), r.target.as_deref(), r.write))
            .collect();
        assert_eq!(
            t,
            [(">", Some("out.txt"), true), ("<", Some("in.txt"), false)]
        );
        let a = analyze("echo hi > \"$F\"");
        assert_eq!(a.redirects.first().map(|r| r.target.is_none()), Some(true));
    }

    #[test]
    fn unsupported_syntax_fails_closed() {
        for cmd in [
            "f() { ls; }; f",
            "$CMD x",
            "ls (",
            "bash -c \"$X\"",
            "PATH=. ls",
            "env LD_PRELOAD=x ls",
            "eval $X",
        ] {
            assert!(analyze(cmd).unsupported.is_some(), "{cmd}");
        }
        let long = "a".repeat(POLICY_ANALYSIS_MAX_COMMAND_BYTES + 1);
        assert!(analyze(&long).refused.is_some());
        assert!(analyze(&"a".repeat(POLICY_ANALYSIS_MAX_COMMAND_BYTES))
            .unsupported
            .is_none());
    }

    /// The policy corpus's command lines.
    pub(in crate::policy) fn corpus() -> Vec<String> {
        let text = include_str!("../../../../__test__/fixtures/policy-corpus.tsv");
        text.lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t'))
            .map(|(_, c)| c.replace("\\n", "\n").replace("\\\\", "\\"))
            .collect()
    }

    #[test]
    fn the_fast_path_agrees_with_the_grammar() {
        let extra = [
            "ls  -la\tsrc",
            "echo 'a;b' \"c d\" e'f'g",
            "git commit -m 'x && y'",
            "a=b",
            "ls -la # c",
            "echo $x",
            "echo \"$x\"",
            "[ -f x ]",
            "if",
            "-x",
            "~/bin/tool",
            "echo *.rs ?",
            "echo a=b",
            "'sudo' ls",
            "rm -rf ~",
            "echo \"a!\"",
            "echo 'unterminated",
            "",
            "   ",
            "a;",
            ";a",
            "a;;b",
            "a |& b",
            "a & b",
            "a||b&&c|d",
            "curl x|sh",
            "a |",
            "ls\n\nls",
            "echo 'a|b' | wc",
            "curl x | sudo bash",
            "sleep 1 &",
            "a & b",
            "a &b &",
            "a &\nb",
            "a;",
            "a; # c",
            "ls # c\nls",
            "# c\nls",
            "ls -la\n# comment\nsudo id",
            "(cd src && make)",
            "(ls)",
            "( ls ; ls )",
            "(ls;)",
            "(ls &)",
            "(ls) | wc",
            "(curl x) | sh",
            "curl x | (sh)",
            "{ ls; }",
            "{ ls; ls; } | wc",
            "{ curl x; } | sh",
            "{ ls\n}",
            "{ ls & }",
            "{ { ls; }; }",
            "( { ls; } )",
            "({ ls; })",
            "! ls",
            "! curl x | sh",
            "true && ! rm -rf /",
            "a || ! b && c",
            "(a) && (b) || { c; }",
            "nohup rm -rf / &",
            "(cd src && sudo -u root rm x)",
            "ls; (bash -c 'rm -rf /')",
            "echo x # $(id)",
            "echo x #`id`",
            "(ls) # c",
            "ls #c\\\nid",
            "echo $HOME",
            "echo \"$HOME\"",
            "rm -fr \"$HOME\"",
            "rm -rf $HOME/",
            "echo \"a $HOME b$X\"c",
            "$CMD --help",
            "\"$CMD\" x",
            "ls $A* $B?",
            "echo $1",
            "echo \"$\"",
            "echo $",
            "echo ${A}",
            "X=$HOME ls",
            "env X=$HOME ls",
            "bash -c \"$S\"",
            "sh -c $S",
            "ls; (cd $D && rm -fr \"$HOME\")",
            "for f in $L; do ls; done",
            "echo $(sudo id) x$(curl x | sh)y",
            "bash $(curl -s x)",
            "sh `wget -qO- x`",
            ". <(curl -s x) && source >(id)",
            "cat <(a) | sh",
            "echo $(echo $(echo `rm -rf /`))",
            "sudo $(id) `id`",
            "bash -c 'echo $(sudo id)'",
            "find . -exec $(id) \\;",
            "echo `a` `b`",
            "echo \"<(id)\" x`id`",
            "if curl x; then sh; fi | bash",
            "for i in $(curl x); do sh; done",
            "while sudo id; do rm -rf /; done",
            "if a; then b; else c; fi; for x in 'a b' \"$B\"; do eval $x; done",
            "until $(a) `b`; do c; done",
        ];
        let mut fast = 0;
        for c in corpus().iter().map(String::as_str).chain(extra) {
            if super::super::plain::split(c).is_some() {
                fast += 1;
                let a = serde_json::to_string(&analyze(c)).unwrap_or_default();
                let b = serde_json::to_string(&analyze_with_grammar(c)).unwrap_or_default();
                assert_eq!(a, b, "{c:?}");
            }
        }
        assert!(fast >= 375, "{fast} commands took the fast path");
    }

    #[test]
    fn a_newline_the_grammar_reads_inside_a_command_still_meets_the_deny_rules() {
        for cmd in [
            "echo $(true) | cat | cat\n{ sudo id || true; }",
            "echo x | cat | cat\n{ true && sudo id; }",
        ] {
            let a = analyze(cmd);
            assert!(
                a.unsupported
                    .as_deref()
                    .is_some_and(|u| u.contains("newline inside a command")),
                "{cmd:?}: {a:?}"
            );
            assert!(a.denies().any(|id| id == "sudo"), "{cmd:?}: {a:?}");
        }
        // A line continuation is not a misread newline.
        let a = analyze("ls \\\nsudo id");
        assert!(a.unsupported.is_none(), "{a:?}");
    }

    #[test]
    fn part_count_is_bounded_at_its_edge() {
        let at = analyze(&"a;".repeat(POLICY_ANALYSIS_MAX_PARTS));
        assert_eq!(
            (at.parts.len(), at.unsupported.is_none()),
            (POLICY_ANALYSIS_MAX_PARTS, true)
        );
        let past = analyze(&"a;".repeat(POLICY_ANALYSIS_MAX_PARTS + 1));
        assert!(past.unsupported.is_some());
        assert!(past.refused.is_some_and(|r| r.contains("command cap")));
    }

    #[test]
    fn nesting_is_bounded() {
        let mut cmd = "ls".to_string();
        for _ in 0..POLICY_ANALYSIS_MAX_NESTING {
            cmd = format!("bash -c {}", shell_quote(&cmd));
        }
        let at = analyze(&cmd);
        assert!(at.unsupported.is_none(), "{at:?}");
        assert_eq!(at.parts.last().map(|p| p.text.as_str()), Some("ls"));
        cmd = format!("bash -c {}", shell_quote(&cmd));
        let past = analyze(&cmd);
        assert!(
            past.unsupported.is_some() && past.refused.is_some(),
            "{past:?}"
        );
    }

    /// Runs `f` on a thread with a small stack: a recursion the caps do not bound overflows it.
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let handle = std::thread::Builder::new().stack_size(256 * 1024).spawn(f);
        match handle.map(std::thread::JoinHandle::join) {
            Ok(Ok(v)) => v,
            _ => panic!("the analysis thread failed"),
        }
    }

    fn deep(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("echo {}{inner}{}", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn deep_nesting_is_refused_without_recursing() {
        for (open, inner, close, refused) in [
            ("$(", "x", ")", true),
            ("<(", "x", ")", true),
            ("${a:-$(", "x", ")}", true),
            ("$((", "1", "))", true),
            ("\"$(", "x", ")\"", true),
            ("(", "x", ")", true),
            ("{ ", "x", "; }", true),
            ("$[", "1", "]", true),
            ("`", "x", "`", false),
            ("a[", "1", "]", false),
        ] {
            // The issue's sizes (12,000 levels) and the command cap.
            let n = if open.len() % 2 == 0 {
                12_000
            } else {
                POLICY_ANALYSIS_MAX_COMMAND_BYTES / (open.len() + close.len()) - 4
            };
            let cmd = deep(open, inner, close, n);
            assert!(cmd.len() <= POLICY_ANALYSIS_MAX_COMMAND_BYTES);
            let a = on_small_stack(move || analyze(&cmd));
            assert!(
                !refused || a.unsupported.is_some(),
                "{open}: {:?}",
                a.unsupported
            );
        }
    }

    #[test]
    fn nesting_under_the_depth_cap_is_analysed() {
        // Each `$(` is a few syntax levels; ten are well inside the cap.
        let a = analyze(&deep("$(true; ", "sudo id", ")", 10));
        assert_eq!(a.denies().next(), Some("sudo"));
        let a = analyze(&deep("$(echo ", "x", ")", POLICY_ANALYSIS_MAX_DEPTH));
        assert!(a.unsupported.is_some_and(|u| u.contains("levels deep")));
    }

    #[test]
    fn reported_text_is_bounded() {
        // Nested substitutions around a long word: every enclosing command repeats the text.
        let cmd = deep("$(echo x ", &"a".repeat(40_000), ")", 20);
        let a = analyze(&cmd);
        let size: usize = a
            .parts
            .iter()
            .map(|p| p.text.len() + p.argv.iter().map(String::len).sum::<usize>())
            .sum();
        assert!(size <= POLICY_ANALYSIS_MAX_OUTPUT_BYTES, "{size}");
        assert!(
            a.unsupported
                .as_deref()
                .is_some_and(|u| u.contains("bytes of text")),
            "{:?}",
            a.unsupported
        );
        assert!(a.refused.is_some_and(|r| r.contains("output cap")));
    }

    fn unsupported(cmd: &str) -> bool {
        analyze(cmd).unsupported.is_some()
    }

    #[test]
    fn code_the_grammar_does_not_model_fails_closed() {
        for cmd in [
            "cat <<EOF\n  $(id)\nEOF",
            "cat <<-EOF\n\t$(id)\nEOF",
            "cat <<EOF\n`id`\nEOF",
            "echo ${x:-`id`}",
            "[[ 'a[$(id)]' -eq 0 ]]",
            "[[ x -lt 'a[`id`]' ]]",
            "(( 'a[$(id)]' ))",
            "echo $(( 'a[$(id)]' ))",
            "echo ${x['a[$(id)]']}",
            "x='a[$(id)]'; echo $((x))",
            "x='a[$(id)]' bash -c 'echo $((x))'",
            "env X='a[`id`]' ls",
            "let 'a[$(id)]'",
            "printf -v 'a[$(id)]' x",
            "echo `echo \\`id\\``",
            "for ((i='a[$(id)]'; i<1; i++)); do :; done",
        ] {
            assert!(unsupported(cmd), "{cmd:?}: {:?}", analyze(cmd));
        }
        for cmd in [
            "cat <<'EOF'\n$(id)\nEOF",
            "cat <<\"EOF\"\n  `id`\nEOF",
            "echo '$(id) `id`'",
            "echo \"\\$(id)\"",
            "echo $((1 + 2))",
            "x=1; [[ $x -eq 0 ]]",
            "for i in 1 2 3; do echo $((i * 2)); done",
            "i=0; while ((i < 3)); do ((i++)); done",
            "printf '%s\\n' hello",
            "cat <<EOF\nhello $(date)\nEOF",
            "echo ${x:-default}",
        ] {
            assert!(!unsupported(cmd), "{cmd:?}: {:?}", analyze(cmd));
        }
    }

    #[test]
    fn prompt_expansion_is_code_and_other_transformations_are_text() {
        // `${v@P}` runs the substitutions its value spells (Gemini CLI's own test case, and
        // the same in every place bash expands a word): code bash builds at run time, so a
        // default deny rule any program could match denies it.
        for cmd in [
            "echo \"${v=aa\\140 env| ls -l\\140}${v@P}\"",
            "echo \"${v=aa\\140 sudo id\\140}${v@P}\"",
            "echo ${v@P}",
            "cat \"${v:=\\140rm -rf ~\\140}${v@P}\"",
            "git log \"${v@P}\"",
            "ls ${x[@]@P}",
            "ls ${x[0]@P}",
            "ls ${x[\"]\"]@P}",
            "ls ${x[$(echo ])]@P}",
            "ls ${!n@P}",
            "ls ${1@P}",
            "ls ${@@P}",
            "for i in ${v@P}; do :; done",
            "cat <<EOF\n${v@P}\nEOF",
            "y=${v@P}",
            "echo $(( ${v@P} ))",
            "echo ${w:-${v@P}}",
            "bash -c 'echo ${v@P}'",
        ] {
            let a = analyze(cmd);
            assert!(a.unsupported.is_some(), "{cmd:?}: {a:?}");
            assert!(a.denies().next().is_some(), "{cmd:?}: {a:?}");
        }
        // The other operators produce text; literal text is not an expansion.
        for cmd in [
            "echo ${v@Q} ${v@E} ${v@A} ${v@K} ${v@a} ${v@U} ${v@u} ${v@L} ${v@k}",
            "echo \"${x[@]@Q}\"",
            "echo ${!BASH@}",
            "echo '${v@P}'",
            "echo \"\\${v@P}\"",
            "cat <<'EOF'\n${v@P}\nEOF",
            "echo ${v:-a@P} ${v/@/P} ${e%@*}",
        ] {
            let a = analyze(cmd);
            assert!(a.unsupported.is_none(), "{cmd:?}: {a:?}");
            assert_eq!(a.denies().next(), None, "{cmd:?}");
        }
        // An operator the analysis does not know needs approval; it is not code it knows of.
        for cmd in ["echo ${v@Z}", "echo ${v@}", "echo ${v@Px}"] {
            let a = analyze(cmd);
            assert!(a.unsupported.is_some(), "{cmd:?}: {a:?}");
        }
        // A subscript still open past the head cap is not read further: approval, not allow.
        let pad = "0".repeat(POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES);
        let long = analyze(&format!("echo ${{x[{pad}]@Q}}"));
        assert!(
            long.unsupported
                .as_deref()
                .is_some_and(|u| u.contains("unknown operator")),
            "{long:?}"
        );
        let short = analyze(&format!("echo ${{x[{}]@Q}}", &pad[..64]));
        assert!(short.unsupported.is_none(), "{short:?}");
        // Many open heads stay linear: each is read at most up to the cap.
        let many = "${x[".repeat(POLICY_ANALYSIS_MAX_COMMAND_BYTES / 8);
        let t = std::time::Instant::now();
        assert!(analyze(&format!("echo {many}")).unsupported.is_some());
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn rejects_a_variable_in_arithmetic_whose_value_is_not_known_numeric() {
        for cmd in [
            "[[ $x -eq 0 ]]",
            "[[ -v 'a[$(id)]' ]] || ls",
            "[ -v 'a[$(id)]' ]",
            "test -v 'a[$(id)]'",
            "[ \"$x\" -eq 0 ]",
            "test $x -lt 1",
            "for x in 'a[$(id)]'; do ls $((x)); done",
            "ls $((x))",
            "ls $[x]",
            "((x))",
            "let x",
            "let y=x+1",
            "x=5; read x; echo $((x))",
            "echo $(($1 + 1))",
            "declare -i y=x",
            "declare -i n; n=x",
            "declare -n r='a[i]'",
            "a[x]=1",
            "echo ${a[x]}",
            "echo ${s:x:1}",
            "echo ${!x}",
            "printf %d x",
            "printf '%d\\n' \"$n\"",
            "unset 'a[i]'",
            "read 'a[i]'",
            "for ((i=x; i<3; i++)); do :; done",
        ] {
            assert!(unsupported(cmd), "{cmd:?}: {:?}", analyze(cmd));
        }
    }

    #[test]
    fn rejects_and_analyses_exported_and_defined_functions() {
        for cmd in [
            "env 'BASH_FUNC_x%%=() { sudo id; }' bash -c x",
            "f() { sudo id; }; export -f f; bash -c f",
            "ls -la; f() { sudo x; }",
        ] {
            let a = analyze(cmd);
            assert!(a.unsupported.is_some(), "{cmd:?}: {a:?}");
            assert!(a.denies().any(|d| d == "sudo"), "{cmd:?}: {a:?}");
        }
    }

    #[test]
    fn code_hidden_from_the_grammar_still_meets_the_deny_rules() {
        for cmd in [
            "cat <<EOF\n  $(sudo id)\nEOF",
            "echo ${x:-`sudo id`}",
            "s\\\nudo id",
            "ls; su\\\ndo id",
        ] {
            assert_eq!(analyze(cmd).denies().next(), Some("sudo"), "{cmd:?}");
        }
    }

    #[test]
    fn environment_prefixes_that_run_code_need_approval() {
        for cmd in [
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=id git status",
            "GIT_CONFIG_PARAMETERS=\"'core.pager'='id'\" git log",
            "env GIT_CONFIG_GLOBAL=/tmp/x git status",
            "BASH_ENV=/tmp/x bash -c ls",
            "ENV=/tmp/x sh -c ls",
            "LD_PRELOAD=/tmp/x.so ls",
            "LD_LIBRARY_PATH=/tmp ls",
            "PROMPT_COMMAND=id bash -i",
            "PYTHONSTARTUP=/tmp/x python3",
            "NODE_OPTIONS='--require /tmp/x' node a.js",
            "PERL5OPT=-Mx perl a.pl",
            "BASH_FUNC_ls%%='() { id; }' bash -c ls",
            "sudo LD_PRELOAD=x ls",
            "git -c core.pager=id log",
            "git -C sub -c alias.x='!id' x",
            "git --config-env=core.pager=X log",
        ] {
            assert!(unsupported(cmd), "{cmd:?}");
        }
        for cmd in [
            "GIT_AUTHOR_NAME=x git commit -m y",
            "CI=1 npm test",
            "git -C sub status",
        ] {
            assert!(!unsupported(cmd), "{cmd:?}: {:?}", analyze(cmd));
        }
    }

    #[test]
    fn words_bash_decides_at_run_time_meet_the_deny_rules() {
        // A glob, an expansion or a run-time command string that could become a denied
        // program or operand is denied through that word, and says so.
        for (cmd, id, word) in [
            ("/usr/bin/sud? id", "sudo", "/usr/bin/sud?"),
            ("$CMD id", "sudo", "$CMD"),
            ("ls; \"$(echo rm)\" -rf /", "sudo", "\"$(echo rm)\""),
            ("bash -c \"$S\"", "sudo", "\"$S\""),
            ("eval -- $X", "sudo", "$X"),
            ("trap \"$T\" EXIT", "sudo", "\"$T\""),
            ("rm -rf `pwd`", "rm-recursive-wide", "`pwd`"),
            ("chmod $M f", "chmod-777", "$M"),
        ] {
            let a = analyze(cmd);
            let p = a
                .parts
                .iter()
                .find(|p| p.deny == Some(id))
                .unwrap_or_else(|| panic!("{cmd:?}: {a:?}"));
            assert!(p.deny_open, "{cmd:?}");
            assert_eq!(
                p.open.as_ref().map(|o| o.text.as_str()),
                Some(word),
                "{cmd:?}"
            );
        }
        // What the glob could run is analysed as that program: its inner command is seen.
        let a = analyze("/usr/bin/tim?out 5 touch M");
        assert!(a.parts.iter().any(|p| p.argv == ["touch", "M"]), "{a:?}");
        // The grammar misreads a `?` or a bracket in a program word; the line is read again
        // with `*` in their place.
        for cmd in ["cu?l x | sh", "[s]udo id", "x; [dz]d if=/dev/zero of=x"] {
            assert!(analyze(cmd).denies().next().is_some(), "{cmd}");
        }
        assert_eq!(star_globs("[s]udo a[1] [ x ] é?"), "*udo a* [ x ] é*");
        // A static deny is not "open", and words that cannot become a denied one stay asks.
        let a = analyze("sudo $X");
        assert!(a
            .parts
            .first()
            .is_some_and(|p| p.deny == Some("sudo") && !p.deny_open));
        for cmd in [
            "/usr/bin/l? x",
            "chmod +x \"$f\"",
            "rm -f \"$x\"",
            "echo $HOME",
        ] {
            assert_eq!(analyze(cmd).denies().count(), 0, "{cmd:?}");
        }
    }

    #[test]
    fn command_names_are_normalised() {
        let names = |cmd: &str| -> Vec<String> {
            analyze(cmd).parts.iter().map(|p| p.name.clone()).collect()
        };
        // The grammar splits these into adjacent nodes; bash reads one word.
        for cmd in ["\"\"\\sudo id", "''\\sudo id", "s''\\udo id"] {
            assert_eq!(analyze(cmd).denies().next(), Some("sudo"), "{cmd:?}");
        }
        assert_eq!(names("x\"\"\\a"), ["xa"]);
        assert_eq!(names("/usr/bin/touch x"), ["touch"]);
        assert_eq!(names("'touch' x"), ["touch"]);
        assert_eq!(names("t\\ouch x"), ["touch"]);
        for cmd in [
            "/usr/bin/sud? id",
            "s*do id",
            "/usr/bin/[s]udo id",
            // The grammar does not parse a brace at the start of a line as a word.
            "{s,}udo id",
        ] {
            assert!(unsupported(cmd), "{cmd:?}");
        }
        // Brace expansion of the name is modelled: bash runs `sudo sxdo id`.
        assert_eq!(analyze("s{u,x}do id").denies().next(), Some("sudo"));
        assert!(!unsupported("[ -f x ]"));
        assert!(!unsupported("find . -exec rm {} +"));
    }

    #[test]
    fn wrapper_spellings_are_followed() {
        for cmd in [
            "env -S 'sudo id'",
            "env --split-string='sudo id'",
            "env -i -S'sudo id'",
            // env splits the string itself: quotes, escapes and `\_` are its own syntax.
            "env -S 'sudo \"id\"'",
            "env -S'sh -c \"sudo id\"'",
            "env --split-string='sh -c \"sudo id\"'",
            "env --split-string 'sh -c \"sudo id\"'",
            "env --split-str 'sudo\\_id'",
            "env -S 'A=1 sudo id # a comment'",
            "env - sudo id",
            "timeout -vk 1 5 sudo id",
            "timeout --kill=1 --sig KILL 5 sudo id",
            "script -qc 'sudo id' /dev/null",
            "script /dev/null --command 'sudo id'",
            "bash --rcfile /dev/null -c 'sudo id'",
            "bash --init-file x -c 'sudo id'",
            "bash -eo pipefail -c 'sudo id'",
            "rbash -c 'sudo id'",
            "eval -- 'sudo id'",
            "trap -- 'sudo id' EXIT",
            "flock -w 1 f --command 'sudo id'",
            "nice -5 sudo id",
            "xargs -0rn1 sudo",
            "sg wheel -c 'sudo id'",
            "exec -a x sudo id",
        ] {
            assert_eq!(
                analyze(cmd).denies().next(),
                Some("sudo"),
                "{cmd:?}: {:?}",
                analyze(cmd)
            );
        }
        for cmd in [
            "env -S 'sudo ${X}'",
            "env -S 'sudo \\q'",
            "timeout --nope 5 ls",
            "env --ign ls",
        ] {
            assert!(unsupported(cmd), "{cmd:?}");
        }
    }

    fn argvs(cmd: &str) -> Vec<Vec<String>> {
        analyze(cmd).parts.into_iter().map(|p| p.argv).collect()
    }

    #[test]
    fn brace_expansion_yields_the_words_bash_runs() {
        for (cmd, want) in [
            ("rm -{r,f} /", &["rm", "-r", "-f", "/"][..]),
            ("chmod {0,}777 x", &["chmod", "0777", "777", "x"]),
            ("mkdir -p src/{a,b}", &["mkdir", "-p", "src/a", "src/b"]),
            ("touch f{1..3}", &["touch", "f1", "f2", "f3"]),
            ("echo x{'a b',c}", &["echo", "xa b", "xc"]),
            (
                "echo '{a,b}' \\{c,d} \"{e,f}\"",
                &["echo", "{a,b}", "{c,d}", "{e,f}"],
            ),
            ("echo ${x:-{a,b}}", &["echo", "${x:-{a,b}}"]),
            ("echo x{$a,b}", &["echo", "x$a", "xb"]),
            ("echo {,} a", &["echo", "a"]),
            (
                "find . -exec rm {} +",
                &["find", ".", "-exec", "rm", "{}", "+"],
            ),
        ] {
            let want: Vec<String> = want.iter().map(|w| (*w).to_string()).collect();
            assert_eq!(argvs(cmd).first(), Some(&want), "{cmd}");
        }
        for (cmd, id) in [
            ("rm -{r,f} /", "rm-recursive-wide"),
            ("rm {-rf,} /", "rm-recursive-wide"),
            ("chmod {0,}777 x", "chmod-777"),
            ("chmod {777,x} f", "chmod-777"),
            ("timeout 5 {sudo,x} id", "sudo"),
            ("bash -c {'sudo id',}", "sudo"),
            ("s{u,x}do id", "sudo"),
            ("mkfs{.ext4,} /dev/sda", "mkfs"),
            ("echo x > {/dev/sda,}", "block-device-write"),
            ("rm -r{f,} {/,}", "rm-recursive-wide"),
        ] {
            assert_eq!(
                analyze(cmd).denies().next(),
                Some(id),
                "{cmd}: {:?}",
                analyze(cmd)
            );
        }
        for cmd in ["mkdir -p src/{a,b}", "touch f{1..3}", "echo {a..c}"] {
            let a = analyze(cmd);
            assert!(a.unsupported.is_none() && a.metacharacters, "{cmd}: {a:?}");
        }
        for cmd in [
            "echo {a,$(id)}",
            "echo {a..C}",
            "echo {+1..3}",
            "echo {1..65}",
            "echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}",
        ] {
            assert!(unsupported(cmd), "{cmd}");
        }
        assert!(!unsupported(&format!(
            "echo {{1..{POLICY_ANALYSIS_MAX_BRACE_WORDS}}}"
        )));
        // The cap counts the words of the whole command.
        assert!(unsupported(&format!(
            "echo {{1..{POLICY_ANALYSIS_MAX_BRACE_WORDS}}} {{a,b}}"
        )));
        let a = analyze("echo x > {out,}");
        assert_eq!(
            a.redirects.first().and_then(|r| r.target.as_deref()),
            Some("out")
        );
    }

    #[test]
    fn commands_past_a_nesting_cap_are_refused() {
        for n in [POLICY_ANALYSIS_MAX_DEPTH + 1, 200, 12_000] {
            let a = analyze(&deep("$(", "sudo id", ")", n));
            assert!(
                a.refused
                    .as_deref()
                    .is_some_and(|r| r.contains("nesting cap")),
                "{n}: {:?}",
                a.refused
            );
        }
        // Under the bracket pre-check, but past the walk's depth cap.
        let a = analyze(&deep("$(echo ", "sudo id", ")", POLICY_ANALYSIS_MAX_DEPTH));
        assert!(a.refused.is_some(), "{a:?}");
        let mut cmd = "sudo id".to_string();
        for _ in 0..=POLICY_ANALYSIS_MAX_NESTING {
            cmd = format!("bash -c {}", shell_quote(&cmd));
        }
        assert!(analyze(&cmd).refused.is_some());
        // At the caps nothing is refused.
        assert!(analyze(&deep("$(", "ls", ")", 10)).refused.is_none());
        assert!(
            analyze(&deep("(", "ls", ")", POLICY_ANALYSIS_MAX_DEPTH / 4))
                .refused
                .is_none()
        );
        assert!(analyze("ls").refused.is_none());
    }

    #[test]
    fn braces_that_begin_a_command_meet_the_deny_rules() {
        // The grammar reads these `{` as the start of a group; bash expands the word and runs
        // `sudo` (`{sudo,x} id` runs `sudo x id`, `{s,}udo id` runs `sudo udo id`).
        for cmd in [
            "{sudo,x} id",
            "{s,}udo id",
            "{,} sudo id",
            "{{s,}udo,x} id",
            "ls; {s,}udo id",
            "ls && {sudo,x} id",
            "ls || {s,}udo id",
            "ls | {s,}udo id",
            "ls\n{s,}udo id",
            "echo $({s,}udo id)",
            "echo \"$({s,}udo id)\"",
            "echo `{s,}udo id`",
            "if {s,}udo id; then :; fi",
            "if true; then {s,}udo id; fi",
            "for i in 1; do {s,}udo id; done",
            "case x in x) {s,}udo id;; esac",
            "{ {s,}udo id; }",
            "bash -c '{s,}udo id'",
            // Read as a group without a parse error.
            "{s,}udo id\n}",
            "{s,}udo id; }",
        ] {
            let a = analyze(cmd);
            assert_eq!(a.denies().next(), Some("sudo"), "{cmd}: {a:?}");
            assert!(a.unsupported.is_some(), "{cmd}: {a:?}");
        }
        // Nothing denied in them: they still need approval, never less.
        for cmd in [
            "{ls,x} id",
            "{ls} x; }",
            "{ls}",
            "{a,b}",
            "echo '{s,}udo' (",
        ] {
            let a = analyze(cmd);
            assert!(
                a.unsupported.is_some() && a.refused.is_none(),
                "{cmd}: {a:?}"
            );
            assert_eq!(a.denies().next(), None, "{cmd}: {a:?}");
        }
        // A real group, and quoted or commented braces, are not words to expand.
        for cmd in ["{ ls; }", "{ls;}", "echo '{s,}udo id'", "ls # {s,}udo id"] {
            let a = analyze(cmd);
            assert_eq!(a.denies().next(), None, "{cmd}: {a:?}");
        }
        assert!(analyze("{ ls; }").unsupported.is_none());
        assert_eq!(
            argvs("{t,}ouch notes").first().map(Vec::as_slice),
            Some(&["touch".to_string(), "ouch".into(), "notes".into()][..])
        );
    }

    #[test]
    fn brace_expansions_past_their_caps_are_refused_at_the_edge() {
        let refused = |cmd: &str, cap: &str| {
            let a = analyze(cmd);
            a.refused.as_deref().is_some_and(|r| {
                r.starts_with("command refused: ")
                    && r.ends_with(&format!("(the analysis's {cap} cap)"))
            })
        };
        // `{sudo,x2,...,xN}`: N words.
        let list = |n: usize| {
            let rest: Vec<String> = (2..=n).map(|i| format!("x{i}")).collect();
            format!("{{sudo,{}}}", rest.join(","))
        };
        let at = list(POLICY_ANALYSIS_MAX_BRACE_WORDS);
        let past = list(POLICY_ANALYSIS_MAX_BRACE_WORDS + 1);
        for (cmd_at, cmd_past) in [
            (format!("timeout 5 {at} id"), format!("timeout 5 {past} id")),
            (format!("{at} id"), format!("{past} id")),
            (format!("ls; {at} id"), format!("ls; {past} id")),
        ] {
            let a = analyze(&cmd_at);
            assert_eq!(a.denies().next(), Some("sudo"), "{cmd_at}");
            assert!(a.refused.is_none(), "{cmd_at}: {:?}", a.refused);
            assert!(refused(&cmd_past, "brace-expansion"), "{cmd_past}");
        }
        // A word of exactly the byte cap is expanded; one byte more is refused.
        let word = |len: usize| format!("{{sudo,{}}}", "x".repeat(len - 7));
        let at = word(POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES);
        let past = word(POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES + 1);
        assert_eq!(at.len(), POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES);
        for (cmd_at, cmd_past) in [
            (format!("timeout 5 {at} id"), format!("timeout 5 {past} id")),
            (format!("{at} id"), format!("{past} id")),
        ] {
            let a = analyze(&cmd_at);
            assert_eq!(a.denies().next(), Some("sudo"), "{cmd_at}");
            assert!(a.refused.is_none(), "{cmd_at}: {:?}", a.refused);
            assert!(refused(&cmd_past, "word-length"), "{cmd_past}");
        }
        // A redirection target: empty words are dropped, so 64 elements still write to one.
        let target = |n: usize| format!("date > {{/dev/sda{}}}", ",".repeat(n - 1));
        let a = analyze(&target(POLICY_ANALYSIS_MAX_BRACE_WORDS));
        assert_eq!(a.denies().next(), Some("block-device-write"), "{a:?}");
        assert!(a.refused.is_none());
        assert!(refused(
            &target(POLICY_ANALYSIS_MAX_BRACE_WORDS + 1),
            "brace-expansion"
        ));
        let pad = "/.".repeat(POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES / 2);
        assert!(refused(
            &format!("date > {{/dev{pad}/sda,}}"),
            "word-length"
        ));
    }

    #[test]
    fn a_test_expression_past_its_cap_is_refused_at_the_edge() {
        // `[[ ( -n a && ... ) && ... && -n z ]]` of `groups` groups of `per` clauses and
        // `loose` clauses outside them: the test command, each clause, each `&&` and each
        // group's parentheses are one node each, 2 * groups * per + groups + 2 * loose in all
        // (`paren` wraps the last clause in one group more).
        let test = |groups: usize, per: usize, loose: usize, paren: bool| {
            let group = format!("( {} )", vec!["-n a"; per].join(" && "));
            let mut clauses = vec![group; groups];
            clauses.extend(vec!["-n b".to_string(); loose]);
            if paren {
                if let Some(last) = clauses.last_mut() {
                    *last = format!("( {last} )");
                }
            }
            format!("[[ {} ]]", clauses.join(" && "))
        };
        // Groups of 31 keep the tree shallow (under the depth cap); loose clauses make up the
        // rest of the cap (an even number of nodes left over).
        let (groups, per) = (8, 31);
        let grouped = 2 * groups * per + groups;
        let left = POLICY_ANALYSIS_MAX_TEST_NODES - grouped;
        assert_eq!(left % 2, 0);
        let at = analyze(&test(groups, per, left / 2, false));
        assert!(at.refused.is_none() && at.unsupported.is_none(), "{at:?}");
        let past = analyze(&test(groups, per, left / 2, true));
        assert_eq!(
            past.refused,
            Some(format!("command refused: {}", Cap::TestNodes.reason()))
        );
        assert!(Cap::TestNodes
            .reason()
            .ends_with("nodes (the analysis's test-expression cap)"));
    }

    #[test]
    fn substitutions_the_grammar_missed_are_reanalysed_once_each() {
        // A parse error hides every `$(` below it from the walk; each body is analysed again,
        // the ones nested in it with it (not once more per enclosing body: that was exponential
        // in the nesting). The work stays a small multiple of the command's length.
        for open in ["$({a,b} ", "$(fi ( ", "$(x ; "] {
            let cmd = format!("{}{}", open.repeat(20), ")".repeat(20));
            let a = analyze(&cmd);
            assert!(a.unsupported.is_some(), "{cmd}");
            assert!(
                a.parsed <= 4 * (POLICY_ANALYSIS_MAX_NESTING + 2) * cmd.len(),
                "{cmd}: {} bytes parsed",
                a.parsed
            );
        }
    }

    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
