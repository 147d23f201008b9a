//! Bash brace expansion of one word's source text (`rm -{r,f} /` runs `rm -r -f /`), so that
//! the rules see the words bash actually runs.
//!
//! Bash's rules, as implemented here: a `{` starts an expansion when its matching `}` (quotes,
//! backslash escapes and `${...}` skipped, nested braces counted) encloses a comma or a `..`
//! at its own level; otherwise the scan moves on to the next `{` (`{a}{b,c}` is `{a}b {a}c`,
//! `{{a,b}}` is `{a} {b}`). A comma list expands each element in turn; `X..Y[..N]` is a
//! sequence of integers (zero-padded when an end has a leading zero) or of letters. The
//! preamble and postscript are joined to every element, left to right. Empty unquoted results
//! are dropped (`{,}x` is `x x`, `{,}` nothing). Quoted and escaped braces and commas, and
//! `${...}`, do not expand.
//!
//! What is not modelled fails closed ([`Braces::Unmodelled`]): a command or process
//! substitution, backticks, `$'...'`/`$"..."` or whitespace in a word with a brace to expand,
//! a sequence of characters other than letters and digits. Past the caps the expansion stops:
//! a word longer than [`POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES`] ([`Braces::TooLong`]), more
//! than [`POLICY_ANALYSIS_MAX_BRACE_WORDS`] words ([`Braces::TooMany`]); the shell analysis
//! refuses such a command.

use crate::limits::{
    POLICY_ANALYSIS_MAX_BRACE_WORDS, POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES,
    POLICY_BRACE_MAX_NESTING as MAX_BRACE_NESTING,
};

/// The brace expansion of one word.
#[derive(Debug, PartialEq, Eq)]
pub enum Braces {
    /// The word has nothing bash would brace-expand.
    Plain,
    /// The words bash turns it into (source text, quotes still in place).
    Words(Vec<String>),
    /// It has a brace bash may expand in a way this module does not model.
    Unmodelled(&'static str),
    /// It expands to more than the cap allows.
    TooMany,
    /// It has a brace to expand and is longer than [`POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES`].
    TooLong,
}

/// The brace expansion of the word whose source text is `raw`, yielding at most `room` words.
#[must_use]
pub fn expand(raw: &str, room: usize) -> Braces {
    if !raw.contains('{') {
        return Braces::Plain;
    }
    let b = raw.as_bytes();
    if first_candidate(b, 0).is_none() {
        // Bash's reading of some odd spellings (`x{}},,}`) is not modelled: a brace that a
        // comma or `..` and a later brace follow is not taken as plain.
        if loosely_expandable(b) {
            return Braces::Unmodelled("a brace expansion the analysis does not model");
        }
        return Braces::Plain;
    }
    if loosely_expandable(b) && contains_unquoted(b, b"{}") {
        return Braces::Unmodelled("a brace expansion the analysis does not model");
    }
    if raw.len() > POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES {
        return Braces::TooLong;
    }
    if let Some(why) = unmodelled(b) {
        return Braces::Unmodelled(why);
    }
    let room = room.min(POLICY_ANALYSIS_MAX_BRACE_WORDS);
    match expand_text(raw, room, 0) {
        Ok(words) => Braces::Words(words.into_iter().filter(|w| !w.is_empty()).collect()),
        Err(e) => e,
    }
}

/// Whether an unquoted `{` (outside `${...}`) is followed by an unquoted `,` or `..` and then
/// an unquoted `}`: a superset of what bash may expand.
fn loosely_expandable(b: &[u8]) -> bool {
    let mut quote = 0u8;
    let mut param = 0usize;
    let mut stage = 0u8; // 0: no `{` yet, 1: `{` seen, 2: then a separator
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if quote != 0 {
            if c == b'\\' && quote == b'"' {
                i += 1;
            } else if c == quote {
                quote = 0;
            }
            i += 1;
            continue;
        }
        match c {
            b'\\' => i += 1,
            b'\'' | b'"' => quote = c,
            b'$' if b.get(i + 1) == Some(&b'{') => {
                param += 1;
                i += 1;
            }
            b'{' if param > 0 => param += 1,
            b'}' if param > 0 => param -= 1,
            b'{' if stage == 0 => stage = 1,
            b',' if stage == 1 => stage = 2,
            b'.' if stage == 1 && b.get(i + 1) == Some(&b'.') => stage = 2,
            b'}' if stage == 2 => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether `needle` occurs in `b` outside quotes and escapes.
fn contains_unquoted(b: &[u8], needle: &[u8]) -> bool {
    let mut quote = 0u8;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
        } else if c == b'\\' {
            i += 1;
        } else if c == b'\'' || c == b'"' {
            quote = c;
        } else if b.get(i..).is_some_and(|r| r.starts_with(needle)) {
            return true;
        }
        i += 1;
    }
    false
}

/// Constructs whose interplay with brace expansion is not modelled.
fn unmodelled(b: &[u8]) -> Option<&'static str> {
    let mut quote = 0u8;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let next = b.get(i + 1).copied();
        match (quote, c) {
            (b'\'', b'\'') | (b'"', b'"') => quote = 0,
            (b'\'', _) => {}
            (_, b'\\') => i += 1,
            (_, b'`') => return Some("a brace expansion next to backticks"),
            (_, b'$' | b'<' | b'>') if next == Some(b'(') => {
                return Some("a brace expansion next to a substitution")
            }
            (0, b'$') if matches!(next, Some(b'\'' | b'"')) => {
                return Some("a brace expansion next to $'...' or $\"...\"")
            }
            (0, b'\'' | b'"') => quote = c,
            (0, b'(' | b')') => return Some("a brace expansion next to a pattern"),
            (0, c) if c.is_ascii_whitespace() => {
                return Some("a brace expansion in a word with whitespace")
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Bash's brace scanner: from `i`, the index of the next `want` byte at level 0 outside
/// quotes (`{` and `}` nest; `${` opens a level that is not a candidate). With `want` `}` it
/// also says whether a comma or `..` stood at level 0 before it.
fn gobble(b: &[u8], mut i: usize, want: u8) -> Option<(usize, bool)> {
    let mut level = 0usize;
    let mut quote = 0u8;
    let mut separated = false;
    while let Some(&c) = b.get(i) {
        if quote != 0 {
            if c == b'\\' && quote == b'"' {
                i += 2;
                continue;
            }
            if c == quote {
                quote = 0;
            }
            i += 1;
            continue;
        }
        match c {
            b'\\' => {
                i += 2;
                continue;
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                level += 1;
                i += 2;
                continue;
            }
            b'\'' | b'"' => quote = c,
            _ if c == want && level == 0 => return Some((i, separated)),
            b'{' => level += 1,
            b'}' if level > 0 => level -= 1,
            b',' if level == 0 => separated = true,
            b'.' if level == 0 && b.get(i + 1) == Some(&b'.') && b.get(i + 2) != Some(&b'}') => {
                separated = true;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first `{` at or after `from` that begins an expansion, with its matching `}`.
fn first_candidate(b: &[u8], mut from: usize) -> Option<(usize, usize)> {
    loop {
        let (open, _) = gobble(b, from, b'{')?;
        if let Some((close, true)) = gobble(b, open + 1, b'}') {
            return Some((open, close));
        }
        from = open + 1;
    }
}

/// The words of `text` under brace expansion (empty ones kept, for the caller to drop).
fn expand_text(text: &str, room: usize, depth: usize) -> Result<Vec<String>, Braces> {
    if depth > MAX_BRACE_NESTING {
        return Err(Braces::Unmodelled("braces nested too deeply to expand"));
    }
    let b = text.as_bytes();
    let mut out = vec![String::new()];
    let mut from = 0;
    // The postscript after each expansion is scanned in turn (a loop, not recursion).
    while let Some((open, close)) = first_candidate(b, from) {
        let (pre, amble) = match (text.get(from..open), text.get(open + 1..close)) {
            (Some(p), Some(a)) => (p, a),
            _ => {
                return Err(Braces::Unmodelled(
                    "a brace expansion the analysis could not split",
                ))
            }
        };
        let tack = if has_comma(amble) {
            let mut tack = Vec::new();
            for element in split_commas(amble) {
                tack.extend(expand_text(element, room, depth + 1)?);
                if tack.len() > room {
                    return Err(Braces::TooMany);
                }
            }
            tack
        } else {
            match sequence(amble, room)? {
                Some(seq) => seq,
                // Bash leaves some of these as written and expands others (`{+1..3}`):
                // not guessed.
                None => {
                    return Err(Braces::Unmodelled(
                        "a brace sequence the analysis does not model",
                    ))
                }
            }
        };
        if out.len().saturating_mul(tack.len()) > room {
            return Err(Braces::TooMany);
        }
        out = out
            .iter()
            .flat_map(|w| tack.iter().map(move |t| format!("{w}{pre}{t}")))
            .collect();
        from = close + 1;
    }
    let rest = text.get(from..).unwrap_or_default();
    for w in &mut out {
        w.push_str(rest);
    }
    Ok(out)
}

/// Whether the amble has a comma bash counts (only a backslash hides one here; quotes are
/// honoured when the elements are split).
fn has_comma(amble: &str) -> bool {
    let b = amble.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 1,
            b',' => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The amble's elements: split at commas at level 0 outside quotes.
fn split_commas(amble: &str) -> Vec<&str> {
    let b = amble.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while let Some((comma, _)) = gobble(b, start, b',') {
        out.push(amble.get(start..comma).unwrap_or_default());
        start = comma + 1;
    }
    out.push(amble.get(start..).unwrap_or_default());
    out
}

/// An integer end of a sequence: its value and whether it is zero-padded.
fn integer(s: &str) -> Option<(i64, bool)> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    let padded = digits.len() > 1 && digits.starts_with('0');
    Some((if s.starts_with('-') { -v } else { v }, padded))
}

/// `X..Y` or `X..Y..N` (integers or single letters of one case); `Ok(None)` for any other
/// amble.
fn sequence(amble: &str, room: usize) -> Result<Option<Vec<String>>, Braces> {
    let parts: Vec<&str> = amble.split("..").collect();
    let (lhs, rhs, incr) = match parts.as_slice() {
        [l, r] => (*l, *r, None),
        [l, r, n] => (*l, *r, Some(*n)),
        _ => return Ok(None),
    };
    let step = match incr {
        None => 1,
        Some(n) => match integer(n) {
            Some((v, _)) => v.unsigned_abs().max(1),
            None => return Ok(None),
        },
    };
    if let (Some((x, xp)), Some((y, yp))) = (integer(lhs), integer(rhs)) {
        let count = x.abs_diff(y) / step + 1;
        if count > room as u64 {
            return Err(Braces::TooMany);
        }
        if (xp || yp) && (x < 0 || y < 0) {
            return Err(Braces::Unmodelled(
                "a zero-padded sequence with a negative end",
            ));
        }
        let width = if xp || yp {
            lhs.len().max(rhs.len())
        } else {
            0
        };
        let mut out = Vec::new();
        let mut v = i128::from(x);
        let step = i128::from(step);
        for _ in 0..count {
            out.push(format!("{v:0width$}"));
            v += if x <= y { step } else { -step };
        }
        return Ok(Some(out));
    }
    let (lb, rb) = (lhs.as_bytes(), rhs.as_bytes());
    if let ([l], [r]) = (lb, rb) {
        if !l.is_ascii_alphabetic() || !r.is_ascii_alphabetic() {
            return Ok(None);
        }
        if l.is_ascii_uppercase() != r.is_ascii_uppercase() {
            return Err(Braces::Unmodelled("a sequence of letters across cases"));
        }
        let count = u64::from(l.abs_diff(*r)) / step + 1;
        if count > room as u64 {
            return Err(Braces::TooMany);
        }
        let mut out = Vec::new();
        let mut v = i64::from(*l);
        let step = i64::try_from(step).unwrap_or(i64::MAX);
        for _ in 0..count {
            out.push(char::from(u8::try_from(v).unwrap_or(b'?')).to_string());
            v += if l <= r { step } else { -step };
        }
        return Ok(Some(out));
    }
    Ok(None)
}

/// Where [`leading_words`] stands: in code (the line, `$(...)` or backticks) or in double
/// quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Code, with its unclosed `(` and what ends it.
    Code { parens: usize, end: End },
    /// Double quotes.
    Quoted,
}

/// What ends a frame of code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The end of the line.
    Line,
    /// The `)` of `$(`.
    Paren,
    /// A backtick.
    Backtick,
}

/// Whether bash ends an unquoted word at `c`.
fn ends_word(c: u8) -> bool {
    c.is_ascii_whitespace() || b";&|()<>`".contains(&c)
}

/// The unquoted words of the command line `src` that begin with `{`, as byte ranges: at the
/// start of the line, after a blank, an operator, `(` or a backtick, in code and in the
/// `$(...)` and backticks of double quotes; not in single quotes or comments. Bash
/// brace-expands such a word wherever it stands, also where it names the program
/// (`{s,}udo id` runs `sudo udo id`), but the grammar reads the `{` there as the start of a
/// group. A superset is harmless: the caller only expands what [`expand`] expands. One pass,
/// linear in the length of `src`.
#[must_use]
pub fn leading_words(src: &str) -> Vec<std::ops::Range<usize>> {
    let b = src.as_bytes();
    let mut stack = vec![Frame::Code {
        parens: 0,
        end: End::Line,
    }];
    let mut words = Vec::new();
    // The word being read: where it starts and the frame depth it started in.
    let mut open: Option<(usize, usize)> = None;
    let starts_word = |i: usize| i == 0 || b.get(i - 1).is_some_and(|&p| ends_word(p));
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let next = b.get(i + 1).copied();
        let depth = stack.len();
        match stack.last_mut() {
            None => break,
            Some(Frame::Quoted) => match c {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'$' if next == Some(b'(') => {
                    stack.push(Frame::Code {
                        parens: 0,
                        end: End::Paren,
                    });
                    i += 1;
                }
                b'`' => stack.push(Frame::Code {
                    parens: 0,
                    end: End::Backtick,
                }),
                _ => {}
            },
            Some(Frame::Code { parens, end }) => {
                if ends_word(c) && open.is_some_and(|(_, d)| d == depth) {
                    if let Some((start, _)) = open.take() {
                        words.push(start..i);
                    }
                }
                match c {
                    b'\\' => i += 1,
                    b'\'' => {
                        // `$'...'` honours backslash escapes; `'...'` nothing.
                        let ansi = i > 0 && b.get(i - 1) == Some(&b'$');
                        i += 1;
                        while let Some(&q) = b.get(i) {
                            if q == b'\'' {
                                break;
                            }
                            if ansi && q == b'\\' {
                                i += 1;
                            }
                            i += 1;
                        }
                    }
                    b'"' => stack.push(Frame::Quoted),
                    b'$' if next == Some(b'(') => {
                        stack.push(Frame::Code {
                            parens: 0,
                            end: End::Paren,
                        });
                        i += 1;
                    }
                    b'`' if *end == End::Backtick => {
                        stack.pop();
                    }
                    b'`' => stack.push(Frame::Code {
                        parens: 0,
                        end: End::Backtick,
                    }),
                    b'(' => *parens += 1,
                    b')' if *parens > 0 => *parens -= 1,
                    b')' if *end == End::Paren => {
                        stack.pop();
                    }
                    b'#' if open.is_none() && starts_word(i) => {
                        while b.get(i + 1).is_some_and(|&n| n != b'\n') {
                            i += 1;
                        }
                    }
                    b'{' if open.is_none() && starts_word(i) => open = Some((i, depth)),
                    _ => {}
                }
            }
        }
        i += 1;
    }
    if let Some((start, _)) = open {
        words.push(start..b.len());
    }
    words
}

/// The value of an expanded word's source text after quote removal, or `None` when it has an
/// expansion (`$x`, `${x}`); and whether it holds an unquoted glob character.
#[must_use]
pub fn unquote(raw: &str) -> (Option<String>, bool) {
    let mut out = String::with_capacity(raw.len());
    let mut glob = false;
    let mut dynamic = false;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            },
            '\'' => {
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    out.push(q);
                }
            }
            '"' => {
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(n @ ('$' | '`' | '"' | '\\')) => out.push(n),
                            Some('\n') => {}
                            Some(n) => {
                                out.push('\\');
                                out.push(n);
                            }
                            None => out.push('\\'),
                        },
                        '$' | '`' => {
                            dynamic = true;
                            out.push(q);
                        }
                        q => out.push(q),
                    }
                }
            }
            '$' | '`' => {
                dynamic = true;
                out.push(c);
            }
            '<' | '>' if chars.clone().next() == Some('(') => {
                dynamic = true;
                out.push(c);
            }
            '*' | '?' | '[' => {
                glob = true;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    ((!dynamic).then_some(out), glob)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(raw: &str) -> Vec<String> {
        match expand(raw, 64) {
            Braces::Words(w) => w.iter().filter_map(|w| unquote(w).0).collect(),
            Braces::Plain => vec![unquote(raw).0.unwrap_or_default()],
            other => panic!("{raw}: {other:?}"),
        }
    }

    #[test]
    fn expands_like_bash() {
        // Each expected list was printed by bash 5.2 (`set -f; printf '<%s>' WORD`).
        for (raw, want) in [
            ("-{r,f}", &["-r", "-f"][..]),
            ("{0,}777", &["0777", "777"]),
            ("{{a,b}}", &["{a}", "{b}"]),
            ("{a{b,c}}", &["{ab}", "{ac}"]),
            ("{'a,b'}", &["{a,b}"]),
            ("x{a}y{b,c}", &["x{a}yb", "x{a}yc"]),
            ("{a..c}", &["a", "b", "c"]),
            ("{1..10..3}", &["1", "4", "7", "10"]),
            ("{a}{b,c}", &["{a}b", "{a}c"]),
            ("a{,}b", &["ab", "ab"]),
            ("{1..3,x}", &["1..3", "x"]),
            ("\"{a,b}\"", &["{a,b}"]),
            ("\\{a,b}", &["{a,b}"]),
            ("{a\\,b}", &["{a,b}"]),
            ("{a,b\\}", &["{a,b}"]),
            ("{a..c..2}", &["a", "c"]),
            ("{z..w}", &["z", "y", "x", "w"]),
            ("{01..3}", &["01", "02", "03"]),
            ("{-2..1}", &["-2", "-1", "0", "1"]),
            ("{1..3}{a,b}", &["1a", "1b", "2a", "2b", "3a", "3b"]),
            ("{s,}udo", &["sudo", "udo"]),
            ("{a,'b c'}", &["a", "b c"]),
            ("{}", &["{}"]),
            ("{a}", &["{a}"]),
            ("{x,{y,z}}w", &["xw", "yw", "zw"]),
        ] {
            assert_eq!(words(raw), want, "{raw}");
        }
        assert_eq!(expand("{,}", 64), Braces::Words(vec![]));
        assert_eq!(expand("${x:-{a,b}}", 64), Braces::Plain);
        assert_eq!(expand("find", 64), Braces::Plain);
    }

    #[test]
    fn expansions_bash_may_do_differently_fail_closed() {
        for raw in [
            "{a,$(id)}",
            "{a,`id`}",
            "{a,<(id)}",
            "{$'a',b}",
            "{Z..a}",
            "{!..%}",
            "{-01..3}",
            "{a,@(b)}",
            "{a..1}",
            "{+1..3}",
            "{1..3..}",
            "b0b{}},,}",
            "x{},a}",
        ] {
            assert!(matches!(expand(raw, 64), Braces::Unmodelled(_)), "{raw}");
        }
    }

    #[test]
    fn the_word_count_is_capped_at_its_edge() {
        let at = format!("{{1..{POLICY_ANALYSIS_MAX_BRACE_WORDS}}}");
        assert!(
            matches!(expand(&at, POLICY_ANALYSIS_MAX_BRACE_WORDS), Braces::Words(w) if w.len() == POLICY_ANALYSIS_MAX_BRACE_WORDS)
        );
        let over = format!("{{0..{POLICY_ANALYSIS_MAX_BRACE_WORDS}}}");
        assert_eq!(
            expand(&over, POLICY_ANALYSIS_MAX_BRACE_WORDS),
            Braces::TooMany
        );
        assert_eq!(expand("{1..999999999999}", 64), Braces::TooMany);
        assert_eq!(expand(&"{a,b}".repeat(7), 64), Braces::TooMany);
        assert_eq!(expand(&"{a,b}".repeat(6), 64).words_len(), Some(64));
        let long = format!(
            "{{a,b}}{}",
            "x".repeat(POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES)
        );
        assert_eq!(expand(&long, 64), Braces::TooLong);
        let edge = format!(
            "{{a,b}}{}",
            "x".repeat(POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES - 5)
        );
        assert_eq!(expand(&edge, 64).words_len(), Some(2));
    }

    #[test]
    fn hostile_words_stay_bounded() {
        let n = POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES / 6;
        for raw in [
            "{a..1}".repeat(n),
            "{".repeat(POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES),
            format!("{}a,b{}", "{".repeat(40), "}".repeat(40)),
            "{a}".repeat(n),
        ] {
            let _ = expand(&raw, 64);
        }
    }

    #[test]
    fn finds_the_words_that_begin_with_a_brace() {
        fn found(src: &str) -> Vec<&str> {
            leading_words(src)
                .into_iter()
                .filter_map(|r| src.get(r))
                .collect()
        }
        assert_eq!(found("{s,}udo id"), ["{s,}udo"]);
        assert_eq!(found("ls;{s,}udo id|{a,b}"), ["{s,}udo", "{a,b}"]);
        assert_eq!(
            found("echo \"$({s,}udo id)\" `{a,b}`"),
            ["{s,}udo", "{a,b}"]
        );
        assert_eq!(found("{ {a,'b c'} x; }"), ["{", "{a,'b c'}"]);
        assert_eq!(
            found("echo x{a,b} '{a,b}' \"{a,b}\" \\{a,b} $'\\' {a,b}'"),
            Vec::<&str>::new()
        );
        assert_eq!(found("ls # {a,b}\n{c,d}"), ["{c,d}"]);
        assert_eq!(found("(x) {a,b}"), ["{a,b}"]);
    }

    impl Braces {
        fn words_len(&self) -> Option<usize> {
            match self {
                Braces::Words(w) => Some(w.len()),
                _ => None,
            }
        }
    }
}
