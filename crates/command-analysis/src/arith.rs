//! Where bash evaluates arithmetic, and whether an arithmetic text can run code.
//!
//! Bash evaluates an arithmetic expression in `$((...))`, `$[...]`, `((...))`, the header of
//! `for ((...))`, the arguments of `let`, the operands of `-eq`, `-ne`, `-lt`, `-le`, `-gt`
//! and `-ge` (in `[[ ]]`, `[ ]` and `test`), the subscript of an indexed array (`a[i]=`,
//! `${a[i]}`, the operand of `-v`), the offset and length of `${x:off:len}`, the values
//! assigned to a `declare -i` name and the numeric arguments of `printf`. A variable named
//! there is not read as a number: its value is evaluated as an expression in turn, and a value
//! such as `a[$(id)]` runs `id`. So a name in arithmetic is code unless its value is known to
//! be a number: every assignment of the line to it is an integer literal (`i=0`,
//! `for i in 1 2 3`) or arithmetic itself (`((i++))`), and the line uses it in no other way
//! (`read i`, `printf -v i`, `i=$x` could give it any text). A name the line never assigns
//! comes from the environment and is code too, except bash's own numeric variables
//! (`RANDOM`, `SECONDS`, ...). Quotes, subscripts and substitutions inside arithmetic are not
//! modelled at all: the command needs approval.

/// Bash's variables whose value bash itself keeps numeric.
const NUMERIC_SPECIALS: &[&str] = &[
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "EPOCHSECONDS",
    "PPID",
    "UID",
    "EUID",
];

/// Why an arithmetic text can run code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Risk {
    /// A quote, subscript, substitution or parameter expansion the analysis does not model.
    Unmodelled,
    /// A variable whose value is not known to be a number.
    Name(String),
}

impl Risk {
    /// The analysis's `unsupported` text for this risk in `context` (`arithmetic`, `let`, ...).
    pub(super) fn reason(&self, context: &str) -> String {
        match self {
            Risk::Unmodelled => format!(
                "{context} with a quote, subscript or substitution (bash may run code in it)"
            ),
            Risk::Name(name) => format!(
                "{context} names the variable {name}, whose value bash evaluates as code (it is not known to be a number)"
            ),
        }
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The risk of the arithmetic expression `expr` in the command source `src` (where its
/// variables' assignments are looked up), or `None` when it can only compute a number.
/// Double quotes are removed first, as bash removes them.
pub(super) fn risk(expr: &str, src: &str) -> Option<Risk> {
    let expr = expr.replace('"', "");
    if expr.contains(['\'', '`', '[', ']', '\\']) || expr.contains("$(") {
        return Some(Risk::Unmodelled);
    }
    let b = expr.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii_digit() {
            // A literal, any base: `0x1f`, `16#ff`, `36#zz`, `2#1_0`? (letters after `#`).
            while b
                .get(i)
                .is_some_and(|&d| is_ident(d) || d == b'#' || d == b'@')
            {
                i += 1;
            }
            continue;
        }
        if c == b'$' {
            match b.get(i + 1) {
                Some(b'{') => {
                    // Only `${name}` is modelled.
                    let rest = expr.get(i + 2..).unwrap_or("");
                    let n = rest.bytes().take_while(|&d| is_ident(d)).count();
                    let name = rest.get(..n).unwrap_or("");
                    if n == 0
                        || !name.as_bytes().first().copied().is_some_and(is_ident_start)
                        || rest.as_bytes().get(n) != Some(&b'}')
                    {
                        return Some(Risk::Unmodelled);
                    }
                    if !known_numeric(src, name) {
                        return Some(Risk::Name(name.to_string()));
                    }
                    i += 3 + n;
                    continue;
                }
                Some(b'#' | b'?' | b'$' | b'!') => {
                    i += 2;
                    continue;
                }
                Some(d) if d.is_ascii_digit() || matches!(d, b'@' | b'*' | b'-') => {
                    // A positional parameter holds whatever the caller passed.
                    return Some(Risk::Name(format!("${}", *d as char)));
                }
                Some(&d) if is_ident_start(d) => {
                    i += 1;
                    continue;
                }
                _ => return Some(Risk::Unmodelled),
            }
        }
        if is_ident_start(c) {
            let start = i;
            while b.get(i).copied().is_some_and(is_ident) {
                i += 1;
            }
            let name = expr.get(start..i).unwrap_or("");
            if !known_numeric(src, name) {
                return Some(Risk::Name(name.to_string()));
            }
            continue;
        }
        i += 1;
    }
    None
}

/// The byte ranges of `src` that are arithmetic text: `((...))` (with `$((` and `for ((`),
/// `$[...]`, and the arguments of `let` up to the end of its command.
fn regions(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let at = |k: usize| b.get(k).copied();
        if at(i) == Some(b'(') && at(i + 1) == Some(b'(') {
            let end = closing(b, i + 2, b'(', b')');
            out.push((i, end));
            i += 2;
            continue;
        }
        if at(i) == Some(b'$') && at(i + 1) == Some(b'[') {
            let end = closing(b, i + 2, b'[', b']');
            out.push((i, end));
            i += 2;
            continue;
        }
        if src.get(i..).is_some_and(|r| r.starts_with("let "))
            && (i == 0 || at(i - 1).is_some_and(|p| !is_ident(p) && p != b'$'))
        {
            let end = src
                .get(i..)
                .and_then(|r| r.find([';', '\n', '&', '|', ')']))
                .map_or(b.len(), |e| i + e);
            out.push((i + 4, end));
        }
        i += 1;
    }
    out
}

/// The end of the bracket opened before `from` (depth counted naively), or the end of `b`.
fn closing(b: &[u8], from: usize, open: u8, close: u8) -> usize {
    let mut depth = 1usize;
    let mut i = from;
    while let Some(&c) = b.get(i) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        }
        i += 1;
    }
    b.len()
}

/// Whether `w` is an integer literal (an optional sign, then decimal digits).
fn integer(w: &str) -> bool {
    let d = w.strip_prefix(['-', '+']).unwrap_or(w);
    !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
}

/// Whether the value of variable `name` in `src` is known to be a number (see the module's
/// overview): every occurrence of the name is a read (`$name`, `${name}`, `${#name}`), an
/// integer assignment (`name=5`, `for name in 1 2`) or inside arithmetic; and the line assigns
/// it at least once, unless bash keeps it numeric itself.
pub(super) fn known_numeric(src: &str, name: &str) -> bool {
    let b = src.as_bytes();
    let arith = regions(src);
    let mut assigned = false;
    let mut from = 0;
    while let Some(off) = src.get(from..).and_then(|r| r.find(name)) {
        let start = from + off;
        let end = start + name.len();
        from = end;
        let before = start.checked_sub(1).and_then(|k| b.get(k).copied());
        if before.is_some_and(is_ident) || b.get(end).copied().is_some_and(is_ident) {
            continue;
        }
        if arith.iter().any(|&(s, e)| s <= start && end <= e) {
            // Inside arithmetic: a read (checked where that arithmetic is) or an assignment of
            // a computed number.
            let rest = src.get(end..).unwrap_or("").trim_start();
            let assigns = (rest.starts_with('=') && !rest.starts_with("=="))
                || rest.starts_with("++")
                || rest.starts_with("--")
                || ["+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="]
                    .iter()
                    .any(|op| rest.starts_with(op))
                || src.get(..start).unwrap_or("").trim_end().ends_with("++")
                || src.get(..start).unwrap_or("").trim_end().ends_with("--");
            assigned |= assigns;
            continue;
        }
        if before == Some(b'$') {
            continue;
        }
        let braced = src
            .get(..start)
            .is_some_and(|p| p.ends_with("${") || p.ends_with("${#"));
        if braced && b.get(end) == Some(&b'}') {
            continue;
        }
        let word_start = before.is_none_or(|p| p.is_ascii_whitespace() || b";&|(".contains(&p));
        if word_start {
            let rest = src.get(end..).unwrap_or("");
            if let Some(v) = rest.strip_prefix('=').or_else(|| rest.strip_prefix("+=")) {
                let value = v
                    .split(|c: char| c.is_ascii_whitespace() || ";&|)".contains(c))
                    .next()
                    .unwrap_or("");
                if integer(value) {
                    assigned = true;
                    continue;
                }
                return false;
            }
            if src.get(..start).unwrap_or("").trim_end().ends_with("for")
                && rest.trim_start().starts_with("in ")
            {
                let list = rest.trim_start().get(3..).unwrap_or("");
                let list = list.split([';', '\n']).next().unwrap_or("");
                let words: Vec<&str> = list.split_whitespace().collect();
                if !words.is_empty() && words.iter().all(|w| integer(w)) {
                    assigned = true;
                    continue;
                }
            }
        }
        return false;
    }
    assigned || NUMERIC_SPECIALS.contains(&name)
}

/// The arithmetic operands of a `test`/`[`/`[[` word list: the words on either side of
/// `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge`.
pub(super) fn test_operands<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if matches!(*w, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge") {
            if let Some(l) = i.checked_sub(1).and_then(|k| words.get(k)) {
                out.push(*l);
            }
            if let Some(r) = words.get(i + 1) {
                out.push(*r);
            }
        }
    }
    out
}

/// The subscript of a `-v`/`-R` operand or of a variable name given to a builtin
/// (`a[i]` → `i`), if it has one.
pub(super) fn subscript(word: &str) -> Option<&str> {
    let open = word.find('[')?;
    let close = word.rfind(']')?;
    (close > open).then(|| word.get(open + 1..close)).flatten()
}

/// Whether a `printf` format (static) has a conversion that reads its argument as a number
/// (`%d`, `%i`, `%o`, `%u`, `%x`, `%X`) or a `*` width: bash evaluates such an argument as
/// arithmetic.
pub(super) fn printf_numeric(format: &str) -> bool {
    let b = format.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        i += 1;
        if c != b'%' {
            continue;
        }
        while let Some(&f) = b.get(i) {
            match f {
                b'*' => return true,
                b'-'
                | b'+'
                | b' '
                | b'#'
                | b'0'..=b'9'
                | b'.'
                | b'l'
                | b'h'
                | b'j'
                | b'z'
                | b't'
                | b'L'
                | b'q' => i += 1,
                b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => return true,
                _ => {
                    i += 1;
                    break;
                }
            }
        }
    }
    false
}

/// The arithmetic parts of a `${...}` expansion's text: the offset and length of
/// `${x:off:len}` (as one text), or `None` when it has none.
pub(super) fn substring_part(expansion: &str) -> Option<&str> {
    let inner = expansion.strip_prefix("${")?.strip_suffix('}')?;
    let b = inner.as_bytes();
    let mut i = match b.first()? {
        c if is_ident_start(*c) => b.iter().take_while(|&&c| is_ident(c)).count(),
        c if c.is_ascii_digit() => b.iter().take_while(|c| c.is_ascii_digit()).count(),
        b'@' | b'*' => 1,
        _ => return None,
    };
    if b.get(i) == Some(&b'[') {
        i = closing(b, i + 1, b'[', b']') + 1;
    }
    let rest = inner.get(i..)?;
    let after = rest.strip_prefix(':')?;
    if after.starts_with(['-', '=', '?', '+']) {
        return None;
    }
    Some(after)
}

/// Whether a `${...}` expansion is an indirection `${!name}` (the value of `name` names the
/// variable read, subscript included: code unless modelled).
pub(super) fn indirect(expansion: &str) -> bool {
    expansion
        .strip_prefix("${!")
        .and_then(|r| r.strip_suffix('}'))
        .is_some_and(|n| {
            !n.is_empty()
                && n.bytes().all(|c| is_ident(c) || c.is_ascii_digit())
                && !n.ends_with(['@', '*'])
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_code_unless_the_line_makes_it_a_number() {
        assert_eq!(risk("x", "echo $((x))"), Some(Risk::Name("x".into())));
        assert_eq!(risk("x", "x=5; echo $((x))"), None);
        assert_eq!(risk("i*2", "for i in 1 2 3; do echo $((i*2)); done"), None);
        assert_eq!(
            risk("x", "for x in 'a[$(touch M)]'; do ls $((x)); done"),
            Some(Risk::Name("x".into()))
        );
        assert_eq!(risk("i<3", "i=0; while ((i<3)); do ((i++)); done"), None);
        assert_eq!(
            risk("x", "x=5; read x; echo $((x))"),
            Some(Risk::Name("x".into()))
        );
        assert_eq!(risk("x", "x=y; echo $((x))"), Some(Risk::Name("x".into())));
        assert_eq!(risk("RANDOM % 6", "echo $((RANDOM % 6))"), None);
        assert_eq!(risk("1 + 0x1f + 16#ff + 36#zz", ""), None);
        assert_eq!(risk("$1 + 1", ""), Some(Risk::Name("$1".into())));
        assert_eq!(risk("$# + $?", ""), None);
        assert_eq!(risk("a[$(id)]", ""), Some(Risk::Unmodelled));
        assert_eq!(risk("'1'", ""), Some(Risk::Unmodelled));
        assert_eq!(risk("\"5\"", ""), None);
        assert_eq!(risk("${#x}", ""), Some(Risk::Unmodelled));
    }

    #[test]
    fn substring_offsets_and_indirection_are_found() {
        assert_eq!(substring_part("${x:x:1}"), Some("x:1"));
        assert_eq!(substring_part("${a[@]:o}"), Some("o"));
        assert_eq!(substring_part("${x: -1}"), Some(" -1"));
        assert_eq!(substring_part("${x:-d}"), None);
        assert_eq!(substring_part("${x}"), None);
        assert!(indirect("${!x}"));
        assert!(!indirect("${!x*}"));
        assert!(!indirect("${x}"));
    }

    #[test]
    fn printf_formats_with_numeric_conversions() {
        assert!(printf_numeric("%d\n"));
        assert!(printf_numeric("%-5.2x"));
        assert!(printf_numeric("%*s"));
        assert!(!printf_numeric("%s %%d"));
        assert_eq!(test_operands(&["x", "-eq", "1"]), vec!["x", "1"]);
        assert_eq!(subscript("a[$(id)]"), Some("$(id)"));
    }
}
