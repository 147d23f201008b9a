//! The little languages on a command line that can run commands or write files: sed scripts
//! (GNU sed's `e` command and `s///e` flag run commands; `w`, `W` and `s///w` write files) and
//! awk programs (`system()`, pipes to and from commands, `print > "file"`). Read cautiously: a
//! command sed does not know, or an awk redirection to a target that is not a string literal,
//! counts as code.

/// What a script does besides its text processing.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ScriptEffects {
    /// It runs commands (or could: something it does the reading does not know).
    pub code: bool,
    /// Files it writes, as written in the script.
    pub writes: Vec<String>,
}

/// What a GNU sed script does.
pub(super) fn sed(script: &str) -> ScriptEffects {
    let mut out = ScriptEffects::default();
    let b = script.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b';' | b'{' | b'}' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = line_end(b, i);
                continue;
            }
            _ => {}
        }
        i = address(b, i);
        if b.get(i) == Some(&b',') {
            i = address(b, i + 1);
        }
        while matches!(b.get(i), Some(b' ' | b'\t' | b'!')) {
            i += 1;
        }
        let Some(&cmd) = b.get(i) else {
            break;
        };
        i += 1;
        match cmd {
            b'{' | b'}' | b';' | b'\n' => {}
            b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'x'
            | b'z' | b'F' | b'l' | b'q' | b'Q' | b'L' | b':' | b'b' | b't' | b'T' | b'v' => {
                i = separator(b, i)
            }
            b'a' | b'i' | b'c' | b'r' | b'R' => i = text_end(b, i),
            b'w' | b'W' => {
                let end = line_end(b, i);
                out.writes.push(file_name(b, i, end));
                i = end;
            }
            b'e' => {
                out.code = true;
                i = line_end(b, i);
            }
            b's' | b'y' => {
                let Some(&delim) = b.get(i) else {
                    out.code = true;
                    break;
                };
                i = delimited(b, i + 1, delim);
                i = delimited(b, i, delim);
                if cmd == b'y' {
                    continue;
                }
                while let Some(&f) = b.get(i) {
                    match f {
                        b'e' => out.code = true,
                        b'w' => {
                            let end = line_end(b, i + 1);
                            out.writes.push(file_name(b, i + 1, end));
                            i = end;
                            break;
                        }
                        b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => {}
                        _ => break,
                    }
                    i += 1;
                }
            }
            _ => {
                out.code = true;
                break;
            }
        }
    }
    out
}

/// Past a sed address at `i` (a line number, `$`, `first~step`, `+N`, `/re/` or `\cREc` with
/// its `I`/`M` flags), or `i` when there is none.
fn address(b: &[u8], mut i: usize) -> usize {
    match b.get(i) {
        Some(b'/') => i = delimited(b, i + 1, b'/'),
        Some(b'\\') => {
            if let Some(&d) = b.get(i + 1) {
                i = delimited(b, i + 2, d);
            }
        }
        Some(b'$') => i += 1,
        _ => {
            while matches!(b.get(i), Some(b'0'..=b'9' | b'~' | b'+')) {
                i += 1;
            }
            return i;
        }
    }
    while matches!(b.get(i), Some(b'I' | b'M')) {
        i += 1;
    }
    i
}

/// Past the next unescaped `delim` from `i`.
fn delimited(b: &[u8], mut i: usize, delim: u8) -> usize {
    while let Some(&c) = b.get(i) {
        i += 1;
        if c == b'\\' {
            i += 1;
        } else if c == delim {
            break;
        }
    }
    i
}

/// The end of the line at `i` (a newline or the end).
fn line_end(b: &[u8], i: usize) -> usize {
    b.iter()
        .skip(i)
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// The end of a sed text argument at `i`: the line, continued by a backslash before the
/// newline.
fn text_end(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if c == b'\\' {
            i += 2;
            continue;
        }
        if c == b'\n' {
            break;
        }
        i += 1;
    }
    i
}

/// Past the rest of a sed command without arguments that matter (a label, a number).
fn separator(b: &[u8], i: usize) -> usize {
    b.iter()
        .skip(i)
        .position(|&c| matches!(c, b';' | b'\n' | b'}'))
        .map_or(b.len(), |p| i + p)
}

/// The file name of a `w` command or flag: the rest of the line, trimmed.
fn file_name(b: &[u8], start: usize, end: usize) -> String {
    String::from_utf8_lossy(b.get(start..end).unwrap_or_default())
        .trim()
        .to_string()
}

/// What an awk program does: `system(`, a pipe (`|`, `|&`; not `||`), and output
/// redirections of `print`/`printf` (`>`, `>>`) to a string literal (a write) or anything else
/// (code: the target is decided when it runs). String literals and regular expressions are
/// skipped.
pub(super) fn awk(program: &str) -> ScriptEffects {
    let mut out = ScriptEffects::default();
    let b = program.as_bytes();
    let mut i = 0;
    // The last significant byte, to tell a regular expression from a division.
    let mut prev: Option<u8> = None;
    // Where the current statement started (after `{`, `;`, a newline).
    let mut statement = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                i = delimited(b, i + 1, b'"');
                prev = Some(b'"');
                continue;
            }
            b'/' if prev.is_none_or(|p| b"(,{};!~&|\n".contains(&p)) => {
                i = delimited(b, i + 1, b'/');
                prev = Some(b'/');
                continue;
            }
            b'{' | b';' | b'\n' | b'}' => statement = i + 1,
            b'|' => {
                if b.get(i + 1) == Some(&b'|') {
                    i += 2;
                    prev = Some(b'|');
                    continue;
                }
                out.code = true;
            }
            b'>' => {
                let head = String::from_utf8_lossy(b.get(statement..i).unwrap_or_default());
                let head = head.trim_start();
                if (head.starts_with("print") || head.starts_with("printf"))
                    && b.get(i + 1) != Some(&b'=')
                {
                    let mut j = i + 1;
                    if b.get(j) == Some(&b'>') {
                        j += 1;
                    }
                    while matches!(b.get(j), Some(b' ' | b'\t')) {
                        j += 1;
                    }
                    if b.get(j) == Some(&b'"') {
                        let end = delimited(b, j + 1, b'"');
                        let target = b.get(j + 1..end.saturating_sub(1)).unwrap_or_default();
                        out.writes
                            .push(String::from_utf8_lossy(target).into_owned());
                        i = end;
                        prev = Some(b'"');
                        continue;
                    }
                    out.code = true;
                }
            }
            b's' if program[i..].starts_with("system")
                && program[i + 6..].trim_start().starts_with('(') =>
            {
                out.code = true;
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() || c == b'\n' {
            prev = Some(c);
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        for s in [
            "1,5p",
            "s/a/b/g",
            "/x/d",
            "s|/|_|g",
            "y/abc/xyz/",
            "$!N;P;D",
            "/^#/!s/e/w/2",
            "a\\\nexec",
        ] {
            assert_eq!(sed(s), ScriptEffects::default(), "{s}");
        }
        for s in ["e id", "1e id", "s/x/id/e", "/x/{e ls\n}", "s/a/b/ge"] {
            assert!(sed(s).code, "{s}");
        }
        assert_eq!(sed("w /tmp/x").writes, vec!["/tmp/x"]);
        assert_eq!(sed("s/a/b/w ~/.x").writes, vec!["~/.x"]);
        assert_eq!(sed("/a/W out").writes, vec!["out"]);
        assert!(sed("k").code, "an unknown command counts as code");
    }

    #[test]
    fn awk_programs() {
        for p in [
            "{print $1}",
            "$3 > 1000 {print $1}",
            "/a|b/ {n++} END {print n}",
            "$1 >= 2 || $2 ~ /x/",
        ] {
            assert_eq!(awk(p), ScriptEffects::default(), "{p}");
        }
        for p in [
            "BEGIN{system(\"id\")}",
            "{print | \"sh\"}",
            "BEGIN{\"id\" | getline x}",
            "{print > $2}",
            "BEGIN { system (\"x\") }",
        ] {
            assert!(awk(p).code, "{p}");
        }
        assert_eq!(awk("{print > \"/etc/x\"}").writes, vec!["/etc/x"]);
        assert_eq!(awk("{printf \"%s\", $0 >> \"o\"}").writes, vec!["o"]);
        assert!(!awk("{print \"a|b\"}").code);
    }
}
