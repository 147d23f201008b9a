//! After the walk: every place the line runs code must be one the walk visited, and the
//! lines the grammar misread (continuations, leading braces, globs) are read again.

use std::borrow::Cow;
use std::ops::Range;

use super::{run, Cap, Ctx, SimpleCommand, Walker};
use crate::brace::{self, Braces};
use crate::limits::{
    POLICY_ANALYSIS_MAX_BRACE_WORDS, POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES,
    POLICY_ANALYSIS_MAX_NESTING, POLICY_ANALYSIS_MAX_PARSED_BYTES, POLICY_ANALYSIS_MAX_PARTS,
};
use crate::word::Word;

/// `src` with each `?` and each bracket expression that is part of a word (`[s]udo`, no blank
/// inside, touching a word character) replaced by `*`.
pub(super) fn star_globs(src: &str) -> String {
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
pub(super) fn expand_leading_braces(src: &str, room: usize) -> Result<Option<String>, Cap> {
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

/// The operator of a parameter transformation (`${NAME@OP}`, `${NAME[SUB]@OP}`, `${!NAME@OP}`,
/// `${@@OP}`, `${1@OP}`) whose `${` is at `at`, as the bytes from after the `@` to the `}`
/// (or to the end); `None` when the expansion there is not a transformation. A subscript is
/// skipped whole: quotes, backslashes, nested brackets and `$(...)` in it. At most
/// [`POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES`] are read: a subscript still open there gives
/// the range from the `${` on, which is no operator (the command needs approval).
pub(super) fn transformation(bytes: &[u8], at: usize) -> Option<Range<usize>> {
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
pub(super) fn balanced_end(bytes: &[u8], from: usize) -> usize {
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
    /// After the walk: every place bash runs code (`$(`, a backtick, `<(`, `>(`) outside the
    /// literal ranges must be a substitution the walk visited. One that is not makes the
    /// command unsupported; its text is analysed all the same (for the default deny rules).
    pub(super) fn account(&mut self) {
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
    pub(super) fn transformed(&mut self, at: usize, op: Range<usize>) {
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
    pub(super) fn continuations(&mut self) {
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
    pub(super) fn leading_braces(&mut self) {
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
    pub(super) fn misread_globs(&mut self) {
        if self.capped || !self.src.contains(['?', '[']) {
            return;
        }
        let respelled = star_globs(self.src);
        if respelled != self.src {
            self.respelled_new(&respelled);
        }
    }

    /// [`Walker::respelled`], keeping the parts this walk has not reported already.
    pub(super) fn respelled_new(&mut self, text: &str) {
        self.respelled_unseen(text, self.ctx.derived);
    }

    /// [`Walker::respelled`] of parts `derived` or not, keeping those this walk has not
    /// reported already (a host rule meets each command the respelling shows) and every part a
    /// default rule denies there.
    pub(super) fn respelled_unseen(&mut self, text: &str, derived: bool) {
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
    pub(super) fn respelled(
        &mut self,
        text: &str,
        derived: bool,
        keep: impl Fn(&SimpleCommand) -> bool,
    ) {
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
