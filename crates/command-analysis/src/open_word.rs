//! Words whose value bash decides at run time: a glob (`tou?h`, `sud[o]`) or an expansion
//! (`$CMD`, `` `pwd` ``, `"$x"`). A deny rule must hold whatever such a word becomes, so the
//! question here is whether a word could become a given name (fail closed: when unsure, yes).
//!
//! A glob is read as a superset of what bash matches: `*` is any text, `?` and every bracket
//! expression (`[c]`, `[!c]`, `[[:alpha:]]`) are any one character. So a "no" is certain and
//! a "yes" may be too cautious, never too lax.

use crate::limits::POLICY_OPEN_WORD_MAX_STEPS;

use crate::wrappers::program;

/// One piece of a word read as a glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// `*`: any text.
    Star,
    /// `?` or a bracket expression: any one character.
    One,
    /// That character.
    Char(char),
}

/// The pieces of `word` read as a glob (`glob` true) or as literal text.
fn pieces(word: &str, glob: bool) -> Vec<Piece> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        if !glob {
            out.push(Piece::Char(c));
            continue;
        }
        match c {
            '\\' => {
                if let Some(&next) = chars.get(i) {
                    out.push(Piece::Char(next));
                    i += 1;
                } else {
                    out.push(Piece::Char(c));
                }
            }
            '*' => {
                if out.last() != Some(&Piece::Star) {
                    out.push(Piece::Star);
                }
            }
            '?' => out.push(Piece::One),
            '[' => match bracket_end(&chars, i) {
                Some(end) => {
                    out.push(Piece::One);
                    i = end + 1;
                }
                None => out.push(Piece::Char(c)),
            },
            _ => out.push(Piece::Char(c)),
        }
    }
    out
}

/// The index of the `]` closing a bracket expression whose body starts at `from` (a `]` first
/// in the body, after an optional `!` or `^`, is a member; `[:class:]` is skipped whole).
fn bracket_end(chars: &[char], from: usize) -> Option<usize> {
    let mut i = from;
    if matches!(chars.get(i), Some('!' | '^')) {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while let Some(&c) = chars.get(i) {
        match c {
            ']' => return Some(i),
            '[' if chars.get(i + 1) == Some(&':') => {
                let close = (i + 2..chars.len().saturating_sub(1))
                    .find(|&j| chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&']'));
                i = close.map_or(i + 1, |j| j + 2);
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether some text matches both piece lists (each `*` any text, each `One` any character).
fn meet(a: &[Piece], b: &[Piece]) -> bool {
    let (n, m) = (a.len(), b.len());
    if (n + 1).saturating_mul(m + 1) > POLICY_OPEN_WORD_MAX_STEPS {
        return true;
    }
    // reach[i][j]: the first i pieces of `a` and the first j of `b` can spell the same text.
    let mut reach = vec![vec![false; m + 1]; n + 1];
    reach[0][0] = true;
    for i in 0..=n {
        for j in 0..=m {
            if !reach[i][j] {
                continue;
            }
            let (pa, pb) = (a.get(i), b.get(j));
            // A star may spell nothing, or take the other side's next piece and stay.
            if pa == Some(&Piece::Star) {
                reach[i + 1][j] = true;
                if j < m {
                    reach[i][j + 1] = true;
                }
            }
            if pb == Some(&Piece::Star) {
                reach[i][j + 1] = true;
                if i < n {
                    reach[i + 1][j] = true;
                }
            }
            if let (Some(x), Some(y)) = (pa, pb) {
                let one = match (x, y) {
                    (Piece::Star, _) | (_, Piece::Star) => false,
                    (Piece::Char(p), Piece::Char(q)) => p == q,
                    _ => true,
                };
                if one {
                    reach[i + 1][j + 1] = true;
                }
            }
        }
    }
    reach[n][m]
}

/// Whether the glob `pattern` could expand to the literal `name` (as a whole word).
#[must_use]
pub fn glob_could_be(pattern: &str, name: &str) -> bool {
    meet(&pieces(pattern, true), &pieces(name, false))
}

/// Whether the glob `pattern` and the glob `other` could expand to one same word (a rule
/// that matches a family of names, `mkfs.*`, against a word that is a glob).
#[must_use]
pub fn globs_could_meet(pattern: &str, other: &str) -> bool {
    meet(&pieces(pattern, true), &pieces(other, true))
}

/// Whether a command's program word, the glob `pattern`, could run the program `name` (a
/// bare name or a path): the whole glob could be it, or the glob's last path component
/// could be its last.
#[must_use]
pub fn program_could_be(pattern: &str, name: &str) -> bool {
    glob_could_be(pattern, name) || glob_could_be(program(pattern), program(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_meet_the_names_bash_could_expand_them_to() {
        for (pattern, name) in [
            ("tou?h", "touch"),
            ("tou[c]h", "touch"),
            ("tou[!x]h", "touch"),
            ("tou[[:alpha:]]h", "touch"),
            ("t*", "touch"),
            ("*", "sudo"),
            ("s?", "sh"),
            ("sud[o]", "sudo"),
            ("\\sudo", "sudo"),
            ("[]]x", "]x"),
        ] {
            assert!(glob_could_be(pattern, name), "{pattern} {name}");
        }
        for (pattern, name) in [
            ("ls?", "touch"),
            ("tou?h", "touc"),
            ("s?", "sudo"),
            ("x*", "sudo"),
            ("t\\*", "touch"),
            ("[abc]", "ab"),
        ] {
            assert!(!glob_could_be(pattern, name), "{pattern} {name}");
        }
    }

    #[test]
    fn program_words_meet_by_path_or_last_component() {
        assert!(program_could_be("/usr/bin/tou?h", "touch"));
        assert!(program_could_be("/usr/*/sud?", "sudo"));
        assert!(program_could_be("/bin/s?", "sh"));
        assert!(!program_could_be("/bin/l?", "sh"));
        assert!(program_could_be("/usr/bin/tou?h", "/usr/bin/touch"));
    }

    #[test]
    fn two_globs_meet_when_some_word_matches_both() {
        assert!(globs_could_meet("mk?s.ext4", "mkfs.*"));
        assert!(globs_could_meet("*", "mkfs.*"));
        assert!(!globs_could_meet("mkfs", "mkfs.*"));
        assert!(!globs_could_meet("ls*", "mkfs.*"));
    }

    #[test]
    fn a_long_pattern_fails_closed_at_the_step_cap() {
        let side = (POLICY_OPEN_WORD_MAX_STEPS as f64).sqrt() as usize + 2;
        let long = "x".repeat(side);
        let other = "y".repeat(side);
        assert!(
            glob_could_be(&long, &other),
            "past the cap the answer is yes"
        );
        let short = "x".repeat(side - 4);
        assert!(!glob_could_be(&short, &"y".repeat(side - 4)));
    }
}
