//! The fast path of the shell analysis, for the common case: lists (`;`, newline, `&`, `&&`,
//! `||`) of pipelines (`|`, an optional leading `!`) whose stages are simple commands of plain
//! words, subshells `( ... )` or groups `{ ...; }` of the same, one-line `if`/`elif`/`else`,
//! `for NAME in WORDS`, `while` and `until` clauses of the same, with comments. A plain word is
//! made of letters, digits, `_./:=,+@%^-*?~`, `$NAME` expansions, `$(...)` substitutions of
//! such a list, single-quoted strings, and double-quoted strings whose only expansions are
//! `$NAME` (no backquotes, backslashes or `!`). A process substitution (`<(...)`, `>(...)`) or
//! one backquoted command (no backslash, comment or blank just inside the quotes) is a word of
//! its own. Such a line is read here without the grammar; anything else (any other character
//! outside quotes or comments, any other expansion, an empty command, a first word that is a
//! reserved word, a declaration or an assignment or holds `?`, a comment with a backslash,
//! groups and substitutions nested deeper than [`POLICY_PLAIN_MAX_NESTING`]) goes to
//! tree-sitter.
//!
//! The grammar stays the authority: a unit test checks that both paths give the same analysis
//! on every corpus command that qualifies, and a seeded differential fuzz test
//! (`tests/fuzz_shell.rs`) does the same on generated lines built from these constructs.

use std::borrow::Cow;

use crate::limits::{POLICY_PLAIN_MAX_BYTES, POLICY_PLAIN_MAX_NESTING};
use crate::word::Word;

/// The words that may not start a plain command: bash's reserved words and the builtins
/// whose words the grammar reads as something else (a match, compiled to a length switch).
fn reserved(word: &str) -> bool {
    matches!(
        word,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "for"
            | "in"
            | "while"
            | "until"
            | "do"
            | "done"
            | "case"
            | "esac"
            | "function"
            | "select"
            | "time"
            | "coproc"
            | "!"
            | "{"
            | "}"
            | "["
            | "[["
            | "]]"
            | "]"
            | "export"
            | "declare"
            | "local"
            | "readonly"
            | "typeset"
            | "unset"
    )
}

/// The reserved words that open the clauses the fast path reads.
const CLAUSES: &[&str] = &["if", "for", "while", "until"];

/// The bytes of a plain word outside quotes, as a table (this test runs on every byte).
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric();
        b += 1;
    }
    let extra = b"_./:=,+@%^-*?~";
    let mut i = 0;
    while i < extra.len() {
        table[extra[i] as usize] = true;
        i += 1;
    }
    table
};

fn plain_byte(b: u8) -> bool {
    PLAIN[usize::from(b)]
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Whether a word ends before `next`: a blank, a separator, a `)` or the end of the line.
fn ends_word(next: Option<u8>) -> bool {
    next.is_none_or(|b| blank(b) || b"\n;&|)".contains(&b))
}

/// One stage of a pipeline.
pub enum Stage<'s> {
    /// A simple command: its words, and the lists of the substitutions in them (`$(...)`,
    /// backquotes, `<(...)`, `>(...)`), in source order.
    Command(Vec<Word<'s>>, Vec<List<'s>>),
    /// A subshell or a group: the list inside.
    Compound(List<'s>),
    /// An `if`, `for`, `while` or `until` clause on one line: the lists of the substitutions in
    /// a `for`'s words, then its lists in source order (conditions and bodies).
    Clause(Vec<List<'s>>, Vec<List<'s>>),
}

/// A pipeline: its stages, and whether `!` negates it.
pub struct Pipeline<'s> {
    /// Led by `!`.
    pub negated: bool,
    /// The stages, in order (at least one).
    pub stages: Vec<Stage<'s>>,
}

/// A list of pipelines, in order.
#[derive(Default)]
pub struct List<'s> {
    /// The pipelines (at least one).
    pub pipelines: Vec<Pipeline<'s>>,
    /// Whether a pipeline of it runs in the background (`&`).
    pub background: bool,
}

impl List<'_> {
    /// Whether its last pipeline has three or more commands: the grammar reads some shapes
    /// after such a pipeline differently from bash, so those lines are left to it.
    fn ends_in_long_pipeline(&self) -> bool {
        self.pipelines.last().is_some_and(|p| p.stages.len() > 2)
    }
}

/// The list `src` is when it is plain (see the module doc), otherwise `None`.
#[must_use]
pub fn split(src: &str) -> Option<List<'_>> {
    // The grammar pairs backquotes differently from bash once a line has more than one pair
    // (`` `a` `b` `` reads as a command holding `` ` ` ``): such lines are left to it.
    if src.len() > POLICY_PLAIN_MAX_BYTES || src.bytes().filter(|&b| b == b'`').count() > 2 {
        return None;
    }
    let mut reader = Reader {
        src,
        bytes: src.as_bytes(),
        i: 0,
        depth: 0,
    };
    let list = reader.list(None)?;
    (reader.i == src.len()).then_some(list)
}

/// What closes the list being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    Paren,
    Brace,
    /// One of these reserved words where a pipeline would start (`then`, `fi`, `done`, ...).
    Words(&'static [&'static str]),
}

struct Reader<'s> {
    src: &'s str,
    bytes: &'s [u8],
    i: usize,
    depth: usize,
}

impl<'s> Reader<'s> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn at(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.i + offset).copied()
    }

    fn blanks(&mut self) {
        while self.peek().is_some_and(blank) {
            self.i += 1;
        }
    }

    /// Whether a `#` here starts a comment: it begins a word after a blank, a newline or the
    /// start of the line.
    fn comment_here(&self) -> bool {
        self.peek() == Some(b'#')
            && (self.i == 0
                || self
                    .bytes
                    .get(self.i - 1)
                    .is_some_and(|&b| blank(b) || b == b'\n'))
    }

    /// Skips a comment up to its newline; `None` for one holding a backslash.
    fn comment(&mut self) -> Option<()> {
        let rest = self.bytes.get(self.i..)?;
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        if rest.get(..len)?.contains(&b'\\') {
            return None;
        }
        self.i += len;
        Some(())
    }

    /// Skips blanks, newlines and comments (where a pipeline may start). Inside a subshell or a
    /// group a newline is left to the grammar (which misreads some of them).
    fn gap(&mut self) -> Option<()> {
        loop {
            self.blanks();
            if self.peek() == Some(b'\n') {
                if self.depth > 0 {
                    return None;
                }
                self.i += 1;
            } else if self.comment_here() {
                self.comment()?;
            } else {
                return Some(());
            }
        }
    }

    /// Whether the `}` here is a word of its own.
    fn brace_word_here(&self) -> bool {
        self.peek() == Some(b'}') && ends_word(self.at(1))
    }

    /// A list, up to its closing `)` or `}` (not consumed) or the end of the line.
    fn list(&mut self, close: Option<Close>) -> Option<List<'s>> {
        let mut list = List::default();
        loop {
            // Where a pipeline may start.
            self.gap()?;
            match self.peek() {
                None => return (close.is_none() && !list.pipelines.is_empty()).then_some(list),
                Some(b')') if close == Some(Close::Paren) => {
                    return (!list.pipelines.is_empty()).then_some(list)
                }
                Some(b'}') if close == Some(Close::Brace) && self.brace_word_here() => {
                    return (!list.pipelines.is_empty()).then_some(list)
                }
                _ => {}
            }
            if let Some(Close::Words(words)) = close {
                if self.keyword_here(words).is_some() {
                    return (!list.pipelines.is_empty()).then_some(list);
                }
            }
            list.pipelines.push(self.pipeline()?);
            // After a pipeline: its separator.
            loop {
                self.blanks();
                if self.comment_here() {
                    self.comment()?;
                }
                match (self.peek(), self.at(1)) {
                    (None, _) => break,
                    // After a pipeline of three or more commands the grammar joins some
                    // next lines to its last command (see `shell::Walker::misread_newlines`).
                    (Some(b'\n'), _) if list.ends_in_long_pipeline() => return None,
                    // `gap` takes the newline (or leaves a group's to the grammar).
                    (Some(b'\n'), _) => break,
                    (Some(b';'), Some(b';' | b'&')) => return None,
                    (Some(b';'), _) => {
                        self.i += 1;
                        break;
                    }
                    (Some(b'&'), Some(b'&')) | (Some(b'|'), Some(b'|')) => {
                        // An and-or list: a pipeline follows on the same line. The grammar
                        // reads `a | b | c || d` as a pipeline ending in `c || d` (so a shell
                        // at `d` counts as fed by a download before it): left to it.
                        if list.ends_in_long_pipeline() {
                            return None;
                        }
                        self.i += 2;
                        self.blanks();
                        list.pipelines.push(self.pipeline()?);
                    }
                    (Some(b'&'), Some(b'>')) => return None,
                    (Some(b'&'), _) => {
                        self.i += 1;
                        list.background = true;
                        break;
                    }
                    (Some(b')'), _) if close == Some(Close::Paren) => {
                        return Some(list);
                    }
                    _ => return None,
                }
            }
        }
    }

    fn pipeline(&mut self) -> Option<Pipeline<'s>> {
        let mut negated = false;
        if self.peek() == Some(b'!') && self.at(1).is_some_and(blank) {
            negated = true;
            self.i += 1;
            self.blanks();
            if self.peek() == Some(b'{') || self.keyword_here(CLAUSES).is_some() {
                // The grammar reads `! {` as a command named `{`, and `! if` as one named
                // `if`: left to it.
                return None;
            }
        }
        let mut stages = vec![self.stage()?];
        loop {
            self.blanks();
            match (self.peek(), self.at(1)) {
                (Some(b'|'), Some(b'&')) => return None,
                (Some(b'|'), next) if next != Some(b'|') => {
                    self.i += 1;
                    self.blanks();
                    stages.push(self.stage()?);
                }
                _ => return Some(Pipeline { negated, stages }),
            }
        }
    }

    /// Which of `words` is the reserved word here (a word of its own), if any.
    fn keyword_here(&self, words: &[&'static str]) -> Option<&'static str> {
        let rest = self.bytes.get(self.i..)?;
        words
            .iter()
            .copied()
            .find(|w| rest.starts_with(w.as_bytes()) && ends_word(rest.get(w.len()).copied()))
    }

    /// Consumes the reserved word `word` here and the blanks after it; `None` when it is not
    /// here.
    fn keyword(&mut self, word: &'static str) -> Option<()> {
        self.keyword_here(&[word])?;
        self.i += word.len();
        self.blanks();
        Some(())
    }

    /// The list up to one of `closers` (consumed), and which one it was.
    fn list_until(&mut self, closers: &'static [&'static str]) -> Option<(List<'s>, &'static str)> {
        let list = self.list(Some(Close::Words(closers)))?;
        let word = self.keyword_here(closers)?;
        self.keyword(word)?;
        Some((list, word))
    }

    /// An `if`, `for`, `while` or `until` clause on one line, from its first reserved word to
    /// its `fi` or `done`; `None` for any other shape.
    fn clause(&mut self, first: &'static str) -> Option<Stage<'s>> {
        if self.depth >= POLICY_PLAIN_MAX_NESTING {
            return None;
        }
        self.depth += 1;
        self.keyword(first)?;
        let mut substitutions = Vec::new();
        let mut lists = Vec::new();
        match first {
            "if" => {
                let mut opener = "if";
                loop {
                    if opener != "else" {
                        let (condition, _) = self.list_until(&["then"])?;
                        lists.push(condition);
                    }
                    let closers: &'static [&'static str] = if opener == "else" {
                        &["fi"]
                    } else {
                        &["elif", "else", "fi"]
                    };
                    let (body, next) = self.list_until(closers)?;
                    lists.push(body);
                    if next == "fi" {
                        break;
                    }
                    opener = next;
                }
            }
            "for" => {
                // `for NAME in WORDS; do LIST; done`.
                let name = self.run_of(|b| b.is_ascii_alphanumeric() || b == b'_');
                let reserved_name = self.src.get(self.i..self.i + name).is_none_or(reserved);
                if name == 0 || self.peek().is_some_and(|b| b.is_ascii_digit()) || reserved_name {
                    return None;
                }
                self.i += name;
                if !self.peek().is_some_and(blank) {
                    return None;
                }
                self.blanks();
                self.keyword("in")?;
                self.words(&mut substitutions)?;
                if self.peek() != Some(b';') {
                    return None;
                }
                self.i += 1;
                self.blanks();
                self.keyword("do")?;
                lists.push(self.list_until(&["done"])?.0);
            }
            _ => {
                // `while LIST; do LIST; done`, `until LIST; do LIST; done`.
                lists.push(self.list_until(&["do"])?.0);
                lists.push(self.list_until(&["done"])?.0);
            }
        }
        self.depth -= 1;
        Some(Stage::Clause(substitutions, lists))
    }

    fn stage(&mut self) -> Option<Stage<'s>> {
        if let Some(first) = self.keyword_here(CLAUSES) {
            return self.clause(first);
        }
        let close = match (self.peek()?, self.at(1)) {
            (b'(', Some(b'(')) => return None,
            (b'(', _) => Close::Paren,
            (b'{', Some(b)) if blank(b) => Close::Brace,
            _ => {
                let mut substitutions = Vec::new();
                return self
                    .words(&mut substitutions)
                    .map(|words| Stage::Command(words, substitutions));
            }
        };
        self.enclosed(close).map(Stage::Compound)
    }

    /// The list between the opening `(` or `{` here and its `close` (both consumed), one
    /// nesting level deeper; `None` past the nesting cap.
    fn enclosed(&mut self, close: Close) -> Option<List<'s>> {
        if self.depth >= POLICY_PLAIN_MAX_NESTING {
            return None;
        }
        self.i += 1;
        self.depth += 1;
        let inner = self.list(Some(close))?;
        self.depth -= 1;
        // `list` stopped at the closing `)` or `}`.
        self.i += 1;
        Some(inner)
    }

    /// How many bytes from here satisfy `f`.
    fn run_of(&self, f: fn(u8) -> bool) -> usize {
        self.bytes
            .get(self.i..)
            .map_or(0, |r| r.iter().position(|&b| !f(b)).unwrap_or(r.len()))
    }

    /// The offset of the quote closing the one here.
    fn closing(&self, quote: u8) -> Option<usize> {
        let rest = self.bytes.get(self.i + 1..)?;
        Some(rest.iter().position(|&c| c == quote)? + self.i + 1)
    }

    /// The length of the `$NAME` at byte `at` (a letter or `_`, then letters, digits and `_`),
    /// or `None` for any other expansion.
    fn parameter(&self, at: usize) -> Option<usize> {
        let first = *self.bytes.get(at + 1)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let rest = self.bytes.get(at + 1..)?;
        Some(
            1 + rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(rest.len()),
        )
    }

    /// The value being built for the word that began at `start`: started, on its first quote,
    /// from the source read so far (plain bytes only, so their value is their text).
    fn unquoted<'v>(&self, value: &'v mut Option<String>, start: usize) -> &'v mut String {
        value.get_or_insert_with(|| self.src.get(start..self.i).unwrap_or("").to_string())
    }

    /// The list of the `$(...)`, `<(...)` or `>(...)` whose `(` is here, up to its `)`
    /// (consumed); `None` for `$((` (arithmetic) or past the nesting cap.
    fn substitution(&mut self) -> Option<List<'s>> {
        if self.at(1) == Some(b'(') {
            return None;
        }
        self.enclosed(Close::Paren)
    }

    /// The list of the backquoted command whose opening backquote is here, up to the closing
    /// one (consumed). Inside backquotes bash gives backslashes a meaning of their own, and a
    /// comment ends at the closing quote: those and newlines are left to the grammar, as are
    /// blanks just inside the quotes (the grammar pairs such quotes differently from bash).
    fn backquoted(&mut self) -> Option<List<'s>> {
        let close = self.closing(b'`')?;
        let inner = self.bytes.get(self.i + 1..close)?;
        if inner.iter().any(|&b| matches!(b, b'\\' | b'#' | b'\n'))
            || inner.first().is_none_or(|&b| blank(b))
            || inner.last().is_none_or(|&b| blank(b))
            || self.depth >= POLICY_PLAIN_MAX_NESTING
        {
            return None;
        }
        // A reader of the source up to the closing quote (offsets stay the line's).
        let mut inside = Reader {
            src: self.src.get(..close)?,
            bytes: self.bytes.get(..close)?,
            i: self.i + 1,
            depth: self.depth + 1,
        };
        let list = inside.list(None)?;
        if inside.i != close {
            return None;
        }
        self.i = close + 1;
        Some(list)
    }

    /// The words of one simple command, up to a separator, a closing `)` or a comment: one
    /// or more plain words, or `None`. The lists of the substitutions in them are added to
    /// `substitutions`.
    fn words(&mut self, substitutions: &mut Vec<List<'s>>) -> Option<Vec<Word<'s>>> {
        let mut words = Vec::new();
        loop {
            self.blanks();
            if ends_word(self.peek()) || self.comment_here() {
                break;
            }
            let start = self.i;
            // The unquoted value, built only once a quote makes it differ from the source.
            let mut value: Option<String> = None;
            let mut pattern = false;
            // A `$NAME` in the word: it has no static value.
            let mut expands = false;
            while let Some(b) = self.peek() {
                if plain_byte(b) {
                    let run = self.run_of(plain_byte);
                    let text = self.src.get(self.i..self.i + run)?;
                    pattern |= text.contains(['*', '?']);
                    if let Some(v) = value.as_mut() {
                        v.push_str(text);
                    }
                    self.i += run;
                } else if b == b'$' && self.at(1) == Some(b'(') {
                    expands = true;
                    self.unquoted(&mut value, start);
                    self.i += 1;
                    substitutions.push(self.substitution()?);
                } else if b == b'`' && self.i == start {
                    // A backquoted command, as a word of its own (the grammar reads some
                    // words joining one to other text differently from bash).
                    expands = true;
                    self.unquoted(&mut value, start);
                    substitutions.push(self.backquoted()?);
                    if !ends_word(self.peek()) {
                        return None;
                    }
                } else if matches!(b, b'<' | b'>') && self.i == start && self.at(1) == Some(b'(') {
                    // A process substitution, as a word of its own.
                    expands = true;
                    self.unquoted(&mut value, start);
                    self.i += 1;
                    substitutions.push(self.substitution()?);
                    if !ends_word(self.peek()) {
                        return None;
                    }
                } else if b == b'$' {
                    expands = true;
                    // The value leaves the `$NAME` out (it is dropped anyway: the word expands).
                    self.unquoted(&mut value, start);
                    self.i += self.parameter(self.i)?;
                } else if b == b'\'' {
                    let close = self.closing(b'\'')?;
                    let inner = self.src.get(self.i + 1..close)?;
                    if inner.contains('\n') {
                        return None;
                    }
                    self.unquoted(&mut value, start).push_str(inner);
                    self.i = close + 1;
                } else if b == b'"' {
                    let close = self.closing(b'"')?;
                    let inner = self.src.get(self.i + 1..close)?;
                    // `<(` and `>(` are text inside double quotes, but the grammar's walk
                    // counts them as code it must see (see `Walker::account`).
                    if inner.contains(['\n', '`', '\\', '!'])
                        || inner.contains("<(")
                        || inner.contains(">(")
                    {
                        return None;
                    }
                    if inner.contains('$') {
                        expands = true;
                        // Each `$` starts a `$NAME`.
                        let mut at = self.i + 1;
                        while at < close {
                            if self.bytes.get(at) == Some(&b'$') {
                                at += self.parameter(at)?;
                            } else {
                                at += 1;
                            }
                        }
                    }
                    self.unquoted(&mut value, start).push_str(inner);
                    self.i = close + 1;
                } else if ends_word(self.peek()) {
                    break;
                } else {
                    return None;
                }
            }
            let raw = self.src.get(start..self.i)?;
            let value = value.map_or(Cow::Borrowed(raw), Cow::Owned);
            // A command name holding `?` the grammar splits (`a?b` reads as `?b`).
            if words.is_empty()
                && (raw.contains(['=', '?']) || reserved(&value) || raw.starts_with(['-', '~']))
            {
                return None;
            }
            let value = (!expands).then_some(value);
            words.push(Word {
                value,
                raw: Cow::Borrowed(raw),
                start,
                end: self.i,
                pattern,
            });
        }
        (!words.is_empty()).then_some(words)
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn reads_lists_pipelines_groups_comments_and_names() {
        for c in [
            "ls -la",
            "a; b\nc & d && e || f | g",
            "sleep 1 &",
            "(cd src && make) | wc",
            "{ ls; ls & } | wc",
            "! ls | wc",
            "ls # a comment with $(id) and `id`\nls",
            "rm -fr \"$HOME\" $A/x \"a $B_2 c\"",
            "echo $(sudo id) x$(a | b)y",
            "ls $(echo $(id))",
            "echo `curl -s x | sh`",
            "diff <(sort a) >(tee b)",
            "if a; then b; elif c; then d; else e | f; fi | sh",
            "for f in *.c $(ls); do gcc -c $f; done",
            "while read l; do echo $l; done & until a; do (b); done",
            "{ if a; then b; fi; }",
            &format!("{}ls{}", "$(".repeat(8), ")".repeat(8)),
        ] {
            assert!(split(c).is_some(), "{c:?}");
        }
    }

    #[test]
    fn leaves_everything_else_to_the_grammar() {
        for c in [
            "",
            "# only a comment",
            "a;;b",
            "a; ;b",
            ";a",
            "a |& b",
            "a &> f",
            "a |",
            "a &&",
            "a &&\nb",
            "a | b | c || d",
            "! { a; }",
            "(a\nb)",
            "{ a\n}",
            "{a; }",
            "{ a }",
            "(( a ))",
            "()",
            "{ ; }",
            "ls;#x",
            "ls # \\\nid",
            "echo $1",
            "echo ${A}",
            "echo \"$\"",
            "echo $((1))",
            "echo $()",
            "echo $(id",
            "echo $(id\nls)",
            "echo $(ls # c\n)",
            "echo `a` `b`",
            "echo x`id`",
            "echo `id`x",
            "echo ` id`",
            "echo `id `",
            "echo `a\\b`",
            "echo `a # c`",
            "cat x<(id)",
            "cat <(id)x",
            "echo \"<(id)\"",
            "echo \"$(id)\"",
            &format!("{}ls{}", "$(".repeat(9), ")".repeat(9)),
            "echo \"a\\b\"",
            "x=1 ls",
            "a?b c",
            "if true; then ls; fi x",
            "if true then ls; fi",
            "if true; then ls fi",
            "if true; then; fi",
            "if true; then ls; fi > f",
            "if true;\nthen ls; fi",
            "! if a; then b; fi",
            "for in in a; do b; done",
            "for 1 in a; do b; done",
            "for i; do b; done",
            "for i in; do b; done",
            "for i in a\ndo b; done",
            "while a; do b; done < f",
            "until a; do b done",
            "case x in y) a;; esac",
            "ls > f",
            "echo {a,b}",
            "$'x'",
            "ls (",
            "ls )",
            "(ls) x",
            &format!("{}ls{}", "( ".repeat(9), " )".repeat(9)),
        ] {
            assert!(split(c).is_none(), "{c:?}");
        }
        let deep = format!("{}ls{}", "( ".repeat(8), " )".repeat(8));
        assert!(split(&deep).is_some());
    }
}
