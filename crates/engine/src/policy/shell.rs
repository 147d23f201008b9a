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

use std::cell::RefCell;

use serde::Serialize;
use tree_sitter::{Node, Parser, Tree};

use super::deny_rules::{self, is_block_device, is_download, is_shell, Matcher};
use super::wrappers::{self, is_dangerous_env};
use crate::limits::{
    POLICY_ANALYSIS_MAX_COMMAND_BYTES, POLICY_ANALYSIS_MAX_NESTING, POLICY_ANALYSIS_MAX_PARTS,
};

/// One simple command the command line runs.
#[derive(Debug, Clone, Serialize)]
pub struct SimpleCommand {
    /// Its source text, from the program word to the last argument (no `VAR=` prefix, no
    /// redirections).
    pub text: String,
    /// Its words, unquoted; a word with an expansion keeps its source text.
    pub argv: Vec<String>,
    /// Whether it was found inside another command (a wrapper, `sh -c`, `eval`, `find -exec`).
    pub derived: bool,
    /// The id of the default deny rule it matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny: Option<&'static str>,
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
    /// File redirections.
    pub redirects: Vec<Redirect>,
    /// Whether the line is more than one plain simple command of static words (a list,
    /// pipeline, substitution, expansion, redirection, background job, control structure).
    pub metacharacters: bool,
    /// Why the line could not be fully analysed (fail closed: it needs approval).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    /// A default deny rule matched by a redirection of a compound statement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny: Option<&'static str>,
}

impl Analysis {
    /// Every default deny rule id matched, in order.
    pub fn denies(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.parts.iter().filter_map(|p| p.deny).chain(self.deny)
    }

    fn unsupported(&mut self, why: impl Into<String>) {
        if self.unsupported.is_none() {
            self.unsupported = Some(why.into());
        }
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
    if command.len() > POLICY_ANALYSIS_MAX_COMMAND_BYTES {
        out.metacharacters = true;
        out.unsupported(format!(
            "command longer than {POLICY_ANALYSIS_MAX_COMMAND_BYTES} bytes"
        ));
        return out;
    }
    run(command, 0, false, &mut out);
    out
}

/// [`analyze`] without the plain-command fast path (for the agreement test).
#[cfg(test)]
pub(super) fn analyze_with_grammar(command: &str) -> Analysis {
    let mut out = Analysis::default();
    FAST_PATH.with(|f| f.set(false));
    run(command, 0, false, &mut out);
    FAST_PATH.with(|f| f.set(true));
    out
}

thread_local! {
    static FAST_PATH: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Analyses `src` (the whole line, or a nested `sh -c` string) into `out`.
fn run(src: &str, depth: usize, derived: bool, out: &mut Analysis) {
    if depth > POLICY_ANALYSIS_MAX_NESTING {
        out.unsupported("commands nested too deeply");
        return;
    }
    if FAST_PATH.with(std::cell::Cell::get) {
        if let Some(list) = super::plain::split(src) {
            let mut w = Walker {
                src,
                out,
                depth,
                derived,
            };
            if list.len() > 1 {
                w.out.metacharacters = true;
            }
            for pipeline in list {
                w.plain_pipeline(&pipeline);
            }
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
    let mut w = Walker {
        src,
        out,
        depth,
        derived,
    };
    w.visit(root);
}

/// One word of a simple command.
pub(super) struct Word {
    /// Its value when it has no expansion.
    pub(super) value: Option<String>,
    /// Its source text.
    pub(super) raw: String,
    /// Byte offsets in the analysed source.
    pub(super) start: usize,
    pub(super) end: usize,
}

struct Walker<'s, 'o> {
    src: &'s str,
    out: &'o mut Analysis,
    depth: usize,
    derived: bool,
}

fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Removes the backslashes of an unquoted word.
fn unescape(s: &str) -> String {
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
    out
}

/// Removes the backslashes that escape inside double quotes.
fn unescape_dq(s: &str) -> String {
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
    out
}

/// The value of a word without expansions, or `None`.
fn static_value(node: Node, src: &str) -> Option<String> {
    match node.kind() {
        "word" | "number" => Some(unescape(text(node, src))),
        "raw_string" => {
            let t = text(node, src);
            Some(
                t.strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(t)
                    .to_string(),
            )
        }
        "string" => {
            let mut cursor = node.walk();
            let mut s = String::new();
            for child in node.named_children(&mut cursor) {
                if child.kind() != "string_content" {
                    return None;
                }
                s.push_str(&unescape_dq(text(child, src)));
            }
            Some(s)
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let mut s = String::new();
            for child in node.children(&mut cursor) {
                if child.is_named() {
                    s.push_str(&static_value(child, src)?);
                } else {
                    s.push_str(&unescape(text(child, src)));
                }
            }
            Some(s)
        }
        _ => None,
    }
}

impl Walker<'_, '_> {
    fn visit(&mut self, node: Node) {
        if self.out.parts.len() >= POLICY_ANALYSIS_MAX_PARTS {
            self.out.unsupported("too many commands");
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
            "variable_assignment"
            | "variable_assignments"
            | "declaration_command"
            | "unset_command" => {
                self.out.metacharacters = true;
                self.builtin_statement(node);
            }
            "list"
            | "subshell"
            | "compound_statement"
            | "negated_command"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item"
            | "test_command"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "postfix_expression"
            | "ternary_expression"
            | "arithmetic_expansion"
            | "expansion"
            | "simple_expansion"
            | "string"
            | "concatenation"
            | "array"
            | "subscript"
            | "heredoc_body"
            | "heredoc_redirect"
            | "herestring_redirect"
            | "brace_expression"
            | "translated_string"
            | "command_substitution"
            | "process_substitution" => {
                self.out.metacharacters = true;
                self.children(node);
            }
            "comment"
            | "word"
            | "raw_string"
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
            | "ansi_c_string"
            | "command_name" => {}
            other => {
                self.out.metacharacters = true;
                self.out
                    .unsupported(format!("unsupported shell syntax: {other}"));
            }
        }
    }

    fn children(&mut self, node: Node) {
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in kids {
            self.visit(child);
        }
    }

    /// A standalone assignment or declaration: reported as a command of its own, so that only
    /// an explicit allow rule covers it.
    fn builtin_statement(&mut self, node: Node) {
        let t = text(node, self.src).to_string();
        self.out.parts.push(SimpleCommand {
            argv: t.split_whitespace().map(String::from).collect(),
            text: t,
            derived: self.derived,
            deny: None,
        });
        self.children(node);
    }

    fn pipeline(&mut self, node: Node) {
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

    /// A pipeline of plain commands (the fast path's equivalent of [`Self::pipeline`]).
    fn plain_pipeline(&mut self, stages: &[Vec<Word>]) {
        if stages.len() > 1 {
            self.out.metacharacters = true;
        }
        let mut downloaded = false;
        for stage in stages {
            let from = self.out.parts.len();
            self.emit(stage, self.derived, 0);
            self.pipe_stage(from, &mut downloaded);
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

    fn redirected(&mut self, node: Node) {
        self.out.metacharacters = true;
        let mut own = None;
        if let Some(body) = node.child_by_field_name("body") {
            if body.kind() == "command" {
                own = self.command(body);
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

    fn redirect(&mut self, node: Node, part: Option<usize>) {
        self.out.metacharacters = true;
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
        let value = static_value(dest, self.src);
        let write = op.contains('>');
        if let Some(v) = &value {
            let dup = op.ends_with('&') && (v == "-" || v.chars().all(|c| c.is_ascii_digit()));
            let stream = matches!(
                v.as_str(),
                "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty"
            ) || v.starts_with("/dev/fd/");
            if dup || stream {
                return;
            }
            if write && is_block_device(v) {
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

    /// Visits the substitutions inside a word; any expansion makes the line non-plain.
    fn scan(&mut self, node: Node) {
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                self.out.metacharacters = true;
                self.children(node);
            }
            "simple_expansion"
            | "expansion"
            | "arithmetic_expansion"
            | "ansi_c_string"
            | "translated_string" => {
                self.out.metacharacters = true;
                self.scan_children(node);
            }
            _ => self.scan_children(node),
        }
    }

    fn scan_children(&mut self, node: Node) {
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in kids {
            if child.is_error() || child.is_missing() {
                self.out.unsupported("the command does not parse as shell");
            }
            self.scan(child);
        }
    }

    /// A simple command: its prefix assignments, words and redirections. Returns the index of
    /// its own part.
    fn command(&mut self, node: Node) -> Option<usize> {
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        let from = self.out.parts.len();
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.named_children(&mut cursor).collect();
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
                    self.scan(child);
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    redirects.push(child)
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
        let substitutions = from..self.out.parts.len();
        let own = self.emit(&words, self.derived, 0);
        if let (Some(i), true) = (own, self.depth < POLICY_ANALYSIS_MAX_NESTING) {
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
        for r in redirects {
            self.redirect(r, own);
        }
        own
    }

    fn word(&self, node: Node) -> Word {
        let r = node.byte_range();
        Word {
            value: static_value(node, self.src),
            raw: text(node, self.src).to_string(),
            start: r.start,
            end: r.end,
        }
    }

    /// Reports `words` as a simple command, then the commands it runs itself.
    fn emit(&mut self, words: &[Word], derived: bool, hops: usize) -> Option<usize> {
        let (first, last) = (words.first()?, words.last()?);
        if hops > POLICY_ANALYSIS_MAX_NESTING {
            self.out.unsupported("commands nested too deeply");
            return None;
        }
        if self.out.parts.len() >= POLICY_ANALYSIS_MAX_PARTS {
            self.out.unsupported("too many commands");
            return None;
        }
        if first.value.is_none() {
            self.out.metacharacters = true;
            self.out
                .unsupported("the command name is not a static word");
        }
        let argv: Vec<String> = words
            .iter()
            .map(|w| w.value.clone().unwrap_or_else(|| w.raw.clone()))
            .collect();
        let text = self
            .src
            .get(first.start..last.end)
            .unwrap_or("")
            .to_string();
        let deny = deny_rules::check_argv(&argv);
        let own = self.out.parts.len();
        self.out.parts.push(SimpleCommand {
            text,
            argv: argv.clone(),
            derived,
            deny,
        });

        if let Some(u) = wrappers::unwrap(&argv) {
            let runs_input = argv
                .first()
                .is_some_and(|a| wrappers::program(a) == "xargs");
            if runs_input
                && argv.get(u.start).is_some_and(|p| {
                    is_shell(std::slice::from_ref(p))
                        || matches!(
                            wrappers::program(p),
                            "eval"
                                | "env"
                                | "xargs"
                                | "sudo"
                                | "timeout"
                                | "nice"
                                | "nohup"
                                | "command"
                                | "exec"
                        )
                })
            {
                self.out
                    .unsupported("xargs runs a shell or wrapper on its input");
            }
            if let Some(name) = u.env.iter().find(|n| is_dangerous_env(n)) {
                self.out
                    .unsupported(format!("the prefix {name}= can change what runs"));
            }
            self.emit(words.get(u.start..).unwrap_or_default(), true, hops + 1);
        }
        if wrappers::shell_reads_stdin(&argv) {
            self.out
                .unsupported("a shell reading commands from standard input");
        }
        if let Some(i) = wrappers::shell_command_string(&argv) {
            match words.get(i).and_then(|w| w.value.clone()) {
                Some(script) => self.nested(&script),
                None => self
                    .out
                    .unsupported("a shell -c string that is not a static word"),
            }
        }
        match wrappers::command_text(&argv) {
            Some(wrappers::CommandText::Word(i)) => {
                match words.get(i).and_then(|w| w.value.clone()) {
                    Some(script) => self.nested(&script),
                    None => self
                        .out
                        .unsupported("a command string that is not a static word"),
                }
            }
            Some(wrappers::CommandText::Joined(i)) => {
                let args: Option<Vec<String>> =
                    words.iter().skip(i).map(|w| w.value.clone()).collect();
                match args {
                    Some(args) => self.nested(&args.join(" ")),
                    None => self
                        .out
                        .unsupported("a command string that is not a static word"),
                }
            }
            None => {}
        }
        if argv.first().is_some_and(|a| a == "eval") {
            let args: Option<Vec<String>> = words.iter().skip(1).map(|w| w.value.clone()).collect();
            match args {
                Some(args) => self.nested(&args.join(" ")),
                None => self.out.unsupported("eval of an expansion"),
            }
        }
        for (a, b) in wrappers::find_exec_ranges(&argv) {
            self.emit(words.get(a..b).unwrap_or_default(), true, hops + 1);
        }
        Some(own)
    }

    /// Analyses a command string run by this command (`sh -c`, `eval`).
    fn nested(&mut self, script: &str) {
        let mut inner = Analysis::default();
        run(script, self.depth + 1, true, &mut inner);
        self.out.metacharacters |= inner.metacharacters;
        if let Some(u) = inner.unsupported {
            self.out.unsupported(u);
        }
        self.out.deny = self.out.deny.or(inner.deny);
        self.out.parts.extend(inner.parts);
        self.out.redirects.extend(inner.redirects);
    }
}

#[cfg(test)]
mod tests {
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
        assert!(analyze(&long).unsupported.is_some());
        assert!(analyze(&"a".repeat(POLICY_ANALYSIS_MAX_COMMAND_BYTES))
            .unsupported
            .is_none());
    }

    fn corpus() -> Vec<String> {
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
        assert!(fast >= 200, "{fast} commands took the fast path");
    }

    #[test]
    fn part_count_is_bounded_at_its_edge() {
        let at = analyze(&"a;".repeat(POLICY_ANALYSIS_MAX_PARTS));
        assert_eq!(
            (at.parts.len(), at.unsupported.is_none()),
            (POLICY_ANALYSIS_MAX_PARTS, true)
        );
        assert!(analyze(&"a;".repeat(POLICY_ANALYSIS_MAX_PARTS + 1))
            .unsupported
            .is_some());
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
        assert!(analyze(&cmd).unsupported.is_some());
    }

    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
