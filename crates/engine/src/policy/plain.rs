//! The fast path of the shell analysis, for the common case: `;`, newline, `&&`, `||` and `|`
//! joining simple commands of plain words (letters, digits, `_./:=,+@%^-*?~`, single-quoted
//! strings, and double-quoted strings without `$`, backquotes, backslashes or `!`). Such a
//! line is split here without the grammar; anything else (any other character outside quotes,
//! an empty command, a first word that is a reserved word, a declaration or an assignment)
//! goes to tree-sitter. A unit test checks that both paths agree on every corpus command that
//! qualifies.

use super::shell::Word;

/// Longest line the fast path looks at.
use crate::limits::POLICY_PLAIN_MAX_BYTES as MAX_PLAIN_BYTES;

const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "in", "while", "until", "do", "done", "case",
    "esac", "function", "select", "time", "coproc", "!", "{", "}", "[", "[[", "]]", "]", "export",
    "declare", "local", "readonly", "typeset", "unset",
];

fn plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_./:=,+@%^-*?~".contains(&b)
}

/// A pipeline: its commands, each as its words.
pub type Pipeline = Vec<Vec<Word>>;

/// The pipelines of `src` (in order) when it is a plain list, otherwise `None`.
#[must_use]
pub fn split(src: &str) -> Option<Vec<Pipeline>> {
    if src.len() > MAX_PLAIN_BYTES {
        return None;
    }
    let bytes = src.as_bytes();
    let mut list: Vec<Pipeline> = vec![Vec::new()];
    let mut start = 0;
    let mut i = 0;
    while i <= bytes.len() {
        let (sep_len, new_pipeline) = match bytes.get(i) {
            None => (0, false),
            Some(b';' | b'\n') => (1, true),
            Some(b'&') if bytes.get(i + 1) == Some(&b'&') => (2, true),
            Some(b'|') if bytes.get(i + 1) == Some(&b'|') => (2, true),
            Some(b'|') if bytes.get(i + 1) == Some(&b'&') => return None,
            Some(b'|') => (1, false),
            Some(&q @ (b'\'' | b'"')) => {
                i = bytes.get(i + 1..)?.iter().position(|&c| c == q)? + i + 2;
                continue;
            }
            Some(_) => {
                i += 1;
                continue;
            }
        };
        let words = words(src, start, i)?;
        list.last_mut()?.push(words);
        if new_pipeline {
            list.push(Vec::new());
        }
        i += sep_len.max(1);
        start = i;
    }
    Some(list)
}

/// The words of `src[from..to]`: one non-empty simple command of plain words, or `None`.
fn words(src: &str, from: usize, to: usize) -> Option<Vec<Word>> {
    let bytes = src.as_bytes();
    let mut words = Vec::new();
    let mut i = from;
    while i < to {
        while i < to && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        if i >= to {
            break;
        }
        let start = i;
        let mut value = String::new();
        let mut pattern = false;
        while i < to && bytes[i] != b' ' && bytes[i] != b'\t' {
            let b = bytes[i];
            if plain_byte(b) {
                pattern |= b == b'*' || b == b'?';
                value.push(char::from(b));
                i += 1;
            } else if b == b'\'' || b == b'"' {
                let close = bytes.get(i + 1..to)?.iter().position(|&c| c == b)? + i + 1;
                let inner = src.get(i + 1..close)?;
                if inner.contains('\n') || (b == b'"' && inner.contains(['$', '`', '\\', '!'])) {
                    return None;
                }
                value.push_str(inner);
                i = close + 1;
            } else {
                return None;
            }
        }
        let raw = src.get(start..i)?;
        if words.is_empty()
            && (value.contains('=')
                || RESERVED.contains(&value.as_str())
                || raw.starts_with(['-', '~']))
        {
            return None;
        }
        words.push(Word {
            value: Some(value),
            raw: raw.to_string(),
            start,
            end: i,
            pattern,
        });
    }
    (!words.is_empty()).then_some(words)
}
