//! What a word of the syntax tree says: its text, unquoted value and whether it is a glob
//! pattern, read off the grammar's nodes.

use std::borrow::Cow;

use tree_sitter::Node;

pub(super) fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Removes the backslashes of an unquoted word (borrowed when it has none).
pub(super) fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Removes the backslashes that escape inside double quotes.
pub(super) fn unescape_dq(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The value of a word without expansions, or `None`.
pub(super) fn static_value<'a>(node: Node, src: &'a str) -> Option<Cow<'a, str>> {
    match node.kind() {
        "word" | "number" => Some(unescape(text(node, src))),
        "raw_string" => {
            let t = text(node, src);
            Some(Cow::Borrowed(
                t.strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(t),
            ))
        }
        "string" => {
            // The grammar's `string_content` leaves out the blanks at either end (`" /"`);
            // the value is everything between the quotes, as bash reads it.
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content")
            {
                return None;
            }
            let t = text(node, src);
            let inner = t.strip_prefix('"').unwrap_or(t);
            Some(unescape_dq(inner.strip_suffix('"').unwrap_or(inner)))
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let mut s = String::new();
            for child in node.children(&mut cursor) {
                if child.is_named() {
                    s.push_str(&static_leaf(child, src)?);
                } else {
                    s.push_str(&unescape(text(child, src)));
                }
            }
            Some(Cow::Owned(s))
        }
        _ => None,
    }
}

/// [`static_value`] of a part of a concatenation (not itself a concatenation).
pub(super) fn static_leaf<'a>(node: Node, src: &'a str) -> Option<Cow<'a, str>> {
    if node.kind() == "concatenation" {
        return None;
    }
    static_value(node, src)
}

/// Whether the unquoted text `s` has a glob (`*`, `?`, `[...]`) or a brace expansion
/// (`{a,b}`, `{1..3}`) bash would expand.
pub(super) fn unquoted_pattern(s: &str) -> bool {
    let b = s.as_bytes();
    let mut open = 0usize;
    let mut listy = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 1,
            b'*' | b'?' => return true,
            b'[' if b.get(i + 1..).is_some_and(|r| r.contains(&b']')) => return true,
            b'{' => open += 1,
            b',' if open > 0 => listy = true,
            b'.' if open > 0 && b.get(i + 1) == Some(&b'.') => listy = true,
            b'}' if open > 0 => {
                if listy {
                    return true;
                }
                open -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether a word node may expand into other words (see [`Word::pattern`]).
pub(super) fn is_pattern(node: Node, src: &str) -> bool {
    match node.kind() {
        "word" => unquoted_pattern(text(node, src)),
        "concatenation" => {
            let mut cursor = node.walk();
            let mut unquoted = String::new();
            for child in node.children(&mut cursor) {
                match child.kind() {
                    "word" => unquoted.push_str(text(child, src)),
                    "brace_expression" | "extglob_pattern" => return true,
                    _ if !child.is_named() => unquoted.push_str(text(child, src)),
                    _ => unquoted.push('x'),
                }
            }
            unquoted_pattern(&unquoted)
        }
        "brace_expression" | "extglob_pattern" => true,
        _ => false,
    }
}

/// Whether a static value holds command text that bash could run when it evaluates the value
/// as an arithmetic expression or a subscript (`a[$(id)]`).
pub(super) fn holds_code(value: &str) -> bool {
    value.contains("$(") || value.contains('`')
}

/// Lexically normalises an absolute path (`/dev/./sda`, `//dev/../dev/sda` are `/dev/sda`).
pub(super) fn normalize_absolute(p: &str) -> Option<String> {
    if !p.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    Some(format!("/{}", parts.join("/")))
}
