//! The walk over the syntax tree: which nodes it visits and how (lists, pipelines,
//! compound commands, expansions, tests, redirections and heredocs), within the depth cap.

use std::borrow::Cow;
use std::ops::Range;

use tree_sitter::Node;

use super::syntax::{holds_code, is_pattern, normalize_absolute, static_value, text, unescape};
use super::{Analysis, Cap, Ctx, Redirect, SimpleCommand, Walker};
use crate::arith;
use crate::brace::{self, Braces};
use crate::deny_rules::{self, is_block_device, is_download, is_shell, Matcher};
use crate::limits::{
    POLICY_ANALYSIS_MAX_BRACE_WORDS, POLICY_ANALYSIS_MAX_DEPTH, POLICY_ANALYSIS_MAX_OUTPUT_BYTES,
    POLICY_ANALYSIS_MAX_PARTS, POLICY_ANALYSIS_MAX_TEST_NODES,
};
use crate::plain;
use crate::wrappers;

impl<'s, 'o, 't> Walker<'s, 'o, 't> {
    pub(super) fn new(src: &'s str, out: &'o mut Analysis, ctx: Ctx) -> Self {
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
    pub(super) fn enter(&mut self) -> bool {
        if self.ctx.level >= POLICY_ANALYSIS_MAX_DEPTH {
            self.capped = true;
            self.out.refuse(Cap::Depth);
            return false;
        }
        self.ctx.level += 1;
        true
    }

    pub(super) fn visit(&mut self, node: Node<'t>) {
        if self.enter() {
            self.visit_node(node);
            self.ctx.level -= 1;
        }
    }

    pub(super) fn visit_node(&mut self, node: Node<'t>) {
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
    pub(super) fn literal(&mut self, node: Node<'t>) {
        if self.heredoc == 0 {
            self.literal.push(node.byte_range());
        }
    }

    /// Appends `node`'s named children to [`Self::kids`] and returns their range there.
    pub(super) fn list_children(&mut self, node: Node<'t>) -> Range<usize> {
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

    pub(super) fn children(&mut self, node: Node<'t>) {
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
    pub(super) fn arithmetic(&mut self, node: Node<'t>) {
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
    pub(super) fn arith(&mut self, expr: &str, context: &str) {
        if let Some(risk) = arith::risk(expr, self.src) {
            self.out.unsupported(risk.reason(context));
        }
    }

    /// `${x:off:len}` (offset and length are arithmetic) and `${!x}` (the value of `x` names
    /// the variable read, a subscript included).
    pub(super) fn expansion(&mut self, node: Node<'t>) {
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
    pub(super) fn test_command(&mut self, node: Node<'t>) {
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
    pub(super) fn subscript(&mut self, node: Node<'t>) {
        if let Some(index) = node.child_by_field_name("index") {
            self.arith(text(index, self.src), "a subscript");
        }
    }

    /// A word bash reads as a variable name (`-v NAME`, `unset NAME`, `read NAME`): its
    /// subscript, if any, is arithmetic.
    pub(super) fn variable_operand(&mut self, word: &str) {
        if let Some(index) = arith::subscript(word) {
            self.arith(index, "a subscript");
        }
    }

    /// A standalone assignment or declaration: reported as a command of its own, so that only
    /// an explicit allow rule covers it.
    pub(super) fn builtin_statement(&mut self, node: Node<'t>) {
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
    pub(super) fn declaration(&mut self, node: Node<'t>, argv: &[String]) {
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
    pub(super) fn push(&mut self, part: SimpleCommand) {
        let argv_bytes = part.argv.iter().map(String::len).sum::<usize>();
        self.push_sized(part, argv_bytes);
    }

    /// [`Self::push`] of a part whose argv, of `argv_bytes` bytes, the caller moves in later
    /// (so that it need not be cloned while the caller still reads it); whether it may.
    pub(super) fn push_sized(&mut self, mut part: SimpleCommand, argv_bytes: usize) -> bool {
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

    pub(super) fn pipeline(&mut self, node: Node<'t>) {
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
    pub(super) fn plain_list(&mut self, list: &plain::List) {
        if list.pipelines.len() > 1 || list.background {
            self.out.metacharacters = true;
        }
        for pipeline in &list.pipelines {
            self.plain_pipeline(pipeline);
        }
    }

    /// A pipeline read by the fast path (its equivalent of [`Self::pipeline`]). The pipeline,
    /// and each group in it, enters a syntax level, as the walk over the grammar's nodes does.
    pub(super) fn plain_pipeline(&mut self, pipeline: &plain::Pipeline) {
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
    pub(super) fn plain_inner<'a, 'l: 'a>(
        &mut self,
        lists: impl IntoIterator<Item = &'a plain::List<'l>>,
    ) {
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
    pub(super) fn pipe_stage(&mut self, from: usize, downloaded: &mut bool) {
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

    pub(super) fn redirected(&mut self, node: Node<'t>) {
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
    pub(super) fn heredoc(&mut self, node: Node<'t>) {
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

    pub(super) fn redirect(&mut self, node: Node<'t>, part: Option<usize>) {
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
    pub(super) fn redirect_target(&mut self, dest: Node<'t>) -> (Option<String>, bool) {
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
    pub(super) fn scan(&mut self, node: Node<'t>) {
        if self.enter() {
            self.scan_node(node);
            self.ctx.level -= 1;
        }
    }

    pub(super) fn scan_node(&mut self, node: Node<'t>) {
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

    pub(super) fn scan_children(&mut self, node: Node<'t>) {
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
}
