//! The fast path of the shell analysis, for the common case: lists (`;`, newline, `&`, `&&`,
//! `||`) of pipelines (`|`, an optional leading `!`) whose stages are simple commands of plain
//! words, subshells `( ... )` or groups `{ ...; }` of the same, with comments. A plain word is
//! made of letters, digits, `_./:=,+@%^-*?~`, `$NAME` expansions, single-quoted strings, and
//! double-quoted strings whose only expansions are `$NAME` (no backquotes, backslashes or
//! `!`). Such a line is read here without the grammar; anything else (any other character
//! outside quotes or comments, any other expansion, an empty command, a first word that is a
//! reserved word, a declaration or an assignment, a comment with a backslash, groups nested
//! deeper than [`POLICY_PLAIN_MAX_NESTING`]) goes to tree-sitter.
//!
//! The grammar stays the authority: a unit test checks that both paths give the same analysis
//! on every corpus command that qualifies, and a seeded differential fuzz test
//! (`tests/fuzz_shell.rs`) does the same on generated lines built from these constructs.

use super::shell::Word;
use crate::limits::{POLICY_PLAIN_MAX_BYTES, POLICY_PLAIN_MAX_NESTING};

const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "in", "while", "until", "do", "done", "case",
    "esac", "function", "select", "time", "coproc", "!", "{", "}", "[", "[[", "]]", "]", "export",
    "declare", "local", "readonly", "typeset", "unset",
];

fn plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_./:=,+@%^-*?~".contains(&b)
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// One stage of a pipeline.
pub enum Stage {
    /// A simple command: its words.
    Command(Vec<Word>),
    /// A subshell or a group: the list inside.
    Compound(List),
}

/// A pipeline: its stages, and whether `!` negates it.
pub struct Pipeline {
    /// Led by `!`.
    pub negated: bool,
    /// The stages, in order (at least one).
    pub stages: Vec<Stage>,
}

/// A list of pipelines, in order.
#[derive(Default)]
pub struct List {
    /// The pipelines (at least one).
    pub pipelines: Vec<Pipeline>,
    /// Whether a pipeline of it runs in the background (`&`).
    pub background: bool,
}

impl List {
    /// Whether its last pipeline has three or more commands: the grammar reads some shapes
    /// after such a pipeline differently from bash, so those lines are left to it.
    fn ends_in_long_pipeline(&self) -> bool {
        self.pipelines.last().is_some_and(|p| p.stages.len() > 2)
    }
}

/// The list `src` is when it is plain (see the module doc), otherwise `None`.
#[must_use]
pub fn split(src: &str) -> Option<List> {
    if src.len() > POLICY_PLAIN_MAX_BYTES {
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
}

struct Reader<'s> {
    src: &'s str,
    bytes: &'s [u8],
    i: usize,
    depth: usize,
}

impl Reader<'_> {
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
        self.peek() == Some(b'}')
            && self
                .at(1)
                .is_none_or(|b| blank(b) || b";&|\n)".contains(&b))
    }

    /// A list, up to its closing `)` or `}` (not consumed) or the end of the line.
    fn list(&mut self, close: Option<Close>) -> Option<List> {
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

    fn pipeline(&mut self) -> Option<Pipeline> {
        let mut negated = false;
        if self.peek() == Some(b'!') && self.at(1).is_some_and(blank) {
            negated = true;
            self.i += 1;
            self.blanks();
            if self.peek() == Some(b'{') {
                // The grammar reads `! {` as a command named `{`: left to it.
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

    fn stage(&mut self) -> Option<Stage> {
        let close = match (self.peek()?, self.at(1)) {
            (b'(', Some(b'(')) => return None,
            (b'(', _) => Close::Paren,
            (b'{', Some(b)) if blank(b) => Close::Brace,
            _ => return self.words().map(Stage::Command),
        };
        if self.depth >= POLICY_PLAIN_MAX_NESTING {
            return None;
        }
        self.i += 1;
        self.depth += 1;
        let inner = self.list(Some(close))?;
        self.depth -= 1;
        // `list` stopped at the closing `)` or `}`.
        self.i += 1;
        Some(Stage::Compound(inner))
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

    /// The words of one simple command, up to a separator, a closing `)` or a comment: one
    /// or more plain words, or `None`.
    fn words(&mut self) -> Option<Vec<Word>> {
        let mut words = Vec::new();
        loop {
            self.blanks();
            match self.peek() {
                None | Some(b'\n' | b';' | b'&' | b'|' | b')') => break,
                _ if self.comment_here() => break,
                _ => {}
            }
            let start = self.i;
            let mut value = String::new();
            let mut pattern = false;
            // A `$NAME` in the word: it has no static value.
            let mut expands = false;
            while let Some(b) = self.peek() {
                if plain_byte(b) {
                    let run = self.run_of(plain_byte);
                    let text = self.src.get(self.i..self.i + run)?;
                    pattern |= text.contains(['*', '?']);
                    value.push_str(text);
                    self.i += run;
                } else if b == b'$' {
                    expands = true;
                    self.i += self.parameter(self.i)?;
                } else if b == b'\'' {
                    let close = self.closing(b'\'')?;
                    let inner = self.src.get(self.i + 1..close)?;
                    if inner.contains('\n') {
                        return None;
                    }
                    value.push_str(inner);
                    self.i = close + 1;
                } else if b == b'"' {
                    let close = self.closing(b'"')?;
                    let inner = self.src.get(self.i + 1..close)?;
                    if inner.contains(['\n', '`', '\\', '!']) {
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
                    value.push_str(inner);
                    self.i = close + 1;
                } else if blank(b) || b"\n;&|)".contains(&b) {
                    break;
                } else {
                    return None;
                }
            }
            let raw = self.src.get(start..self.i)?;
            if words.is_empty()
                && (raw.contains('=')
                    || RESERVED.contains(&value.as_str())
                    || raw.starts_with(['-', '~']))
            {
                return None;
            }
            let value = (!expands).then_some(value);
            words.push(Word {
                value,
                raw: raw.to_string(),
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
            "echo $(id)",
            "echo `id`",
            "echo \"a\\b\"",
            "x=1 ls",
            "if true; then ls; fi",
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
