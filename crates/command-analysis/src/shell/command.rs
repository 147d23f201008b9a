//! One simple command of the walk: its words, the command it really runs through wrappers,
//! its open words, option effects and the strings it runs as code.

use std::borrow::Cow;
use std::ops::Range;

use tree_sitter::Node;

use super::syntax::{holds_code, is_pattern, normalize_absolute, static_value, text};
use super::{run, Cap, Ctx, OpenWord, SimpleCommand, Walker};
use crate::arith;
use crate::brace::{self, Braces};
use crate::deny_rules::{self, is_block_device, is_download, is_shell, Matcher};
use crate::effects;
use crate::limits::{
    POLICY_ANALYSIS_MAX_BRACE_WORDS, POLICY_ANALYSIS_MAX_NESTING, POLICY_ANALYSIS_MAX_PARTS,
};
use crate::open_word;
use crate::word::Word;
use crate::wrappers::{self, is_dangerous_env, Inner, Shell};

/// The first of `words` whose value bash decides when it runs: an expansion or substitution
/// (any text), or a glob (any name it matches; an extended glob or an unexpanded brace counts
/// as any text).
pub(super) fn open_word(words: &[Word<'_>]) -> Option<OpenWord> {
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
pub(super) fn may_split(w: &Word<'_>) -> bool {
    w.value.is_none() && !(w.raw.starts_with('"') && w.raw.ends_with('"'))
}

/// The default deny rule a command matches through a value its open words could take (its
/// first open word is `open`): the program word becoming a denied program, or an operand
/// becoming what a rule looks for (`rm -rf `pwd``).
pub(super) fn open_deny(
    words: &[Word<'_>],
    argv: &[String],
    open: &OpenWord,
) -> Option<&'static str> {
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

impl<'s, 'o, 't> Walker<'s, 'o, 't> {
    /// A simple command: its prefix assignments, words and redirections. Returns the index of
    /// its own part.
    pub(super) fn command(&mut self, node: Node<'t>) -> Option<usize> {
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
    pub(super) fn fed_by_download(&mut self, substitutions: Range<usize>, own: Option<usize>) {
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
    pub(super) fn bare_newlines(&mut self, kids: &[Node<'t>]) {
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
    pub(super) fn misread_lines(&mut self) {
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
    pub(super) fn brace_words(&mut self, words: Vec<Word<'s>>) -> Vec<Word<'s>> {
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

    pub(super) fn word(&self, node: Node<'t>) -> Word<'s> {
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
    pub(super) fn emit(&mut self, words: &[Word<'_>], derived: bool, hops: usize) -> Option<usize> {
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
    pub(super) fn respell_program(&mut self, words: &[Word<'_>], argv: &[String], hops: usize) {
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
    pub(super) fn open_code(&mut self, own: usize, words: &[Word<'_>], index: usize) {
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
    pub(super) fn builtin_arithmetic(&mut self, name: &str, argv: &[String]) {
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
    pub(super) fn exported_functions(&mut self, assignments: &[String]) {
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
    pub(super) fn trap(&mut self, own: usize, words: &[Word<'_>], argv: &[String]) {
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
    pub(super) fn git_options(&mut self, argv: &[String]) {
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

    /// What the command's own options do (see [`effects`](crate::effects)): command strings
    /// they run are analysed, an argv they run is emitted, a write onto a block device is
    /// denied (whatever the rules say), and the first other effect is put on part `own`.
    pub(super) fn option_effects(
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
    pub(super) fn nested(&mut self, script: &str) {
        let mut inner = self.out.inner();
        let ctx = Ctx {
            nest: self.ctx.nest + 1,
            level: self.ctx.level,
            derived: true,
        };
        run(script, ctx, &mut inner);
        self.out.absorb(inner);
    }
}
