//! `truncateTail`: the last lines of a text within a line and a byte cap; a single last line
//! that is too long keeps its end, cut on a character boundary.

/// What [`truncate_tail`] kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailCut {
    /// The kept text.
    pub content: String,
    /// `"lines"`, `"bytes"` or `None` when nothing was cut.
    pub truncated_by: Option<&'static str>,
    /// Lines kept.
    pub output_lines: u64,
    /// Bytes kept.
    pub output_bytes: u64,
    /// Only the end of the last line was kept.
    pub last_line_partial: bool,
}

/// The lines of `text` as they are counted: each LF ends a line, a final LF starts no new one,
/// and an empty text has none.
fn counted_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// The last lines of `text` that fit `max_lines` and `max_bytes` (lines joined by LF; a cut
/// text loses its final LF, an uncut one keeps it).
#[must_use]
pub fn truncate_tail(text: &str, max_lines: u64, max_bytes: u64) -> TailCut {
    let lines = counted_lines(text);
    if lines.len() as u64 <= max_lines && text.len() as u64 <= max_bytes {
        return TailCut {
            content: text.to_owned(),
            truncated_by: None,
            output_lines: lines.len() as u64,
            output_bytes: text.len() as u64,
            last_line_partial: false,
        };
    }
    let mut kept = 0u64;
    let mut bytes = 0u64;
    let mut truncated_by = "lines";
    let mut from = lines.len();
    let mut partial: Option<&str> = None;
    while from > 0 && kept < max_lines {
        let line = lines[from - 1];
        let cost = line.len() as u64 + u64::from(kept > 0);
        if bytes + cost > max_bytes {
            truncated_by = "bytes";
            if kept == 0 {
                partial = Some(tail_on_char_boundary(line, max_bytes));
            }
            break;
        }
        bytes += cost;
        kept += 1;
        from -= 1;
    }
    let content = match partial {
        Some(p) => p.to_owned(),
        None => lines[from..].join("\n"),
    };
    TailCut {
        output_lines: if partial.is_some() { 1 } else { kept },
        output_bytes: content.len() as u64,
        content,
        truncated_by: Some(truncated_by),
        last_line_partial: partial.is_some(),
    }
}

/// The longest suffix of `line` of at most `max_bytes` bytes that starts on a character.
fn tail_on_char_boundary(line: &str, max_bytes: u64) -> &str {
    let mut at = line
        .len()
        .saturating_sub(usize::try_from(max_bytes).unwrap_or(usize::MAX));
    while !line.is_char_boundary(at) {
        at += 1;
    }
    &line[at..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_within_caps() {
        let t = truncate_tail("a\nb\n", 2, 10);
        assert_eq!(
            (t.content.as_str(), t.truncated_by, t.output_lines),
            ("a\nb\n", None, 2)
        );
        assert_eq!(truncate_tail("", 1, 1).output_lines, 0);
    }

    #[test]
    fn keeps_last_lines_by_count_and_bytes() {
        let t = truncate_tail("1\n2\n3\n4", 2, 100);
        assert_eq!(
            (t.content.as_str(), t.truncated_by, t.output_lines),
            ("3\n4", Some("lines"), 2)
        );
        let t = truncate_tail("1\n2\n3\n", 2, 100);
        assert_eq!((t.content.as_str(), t.output_lines), ("2\n3", 2));
        let t = truncate_tail("aaaa\nbb\ncc", 10, 5);
        assert_eq!(
            (t.content.as_str(), t.truncated_by),
            ("bb\ncc", Some("bytes"))
        );
    }

    #[test]
    fn cuts_a_long_last_line_on_a_char_boundary() {
        let t = truncate_tail("x\nabcé", 10, 2);
        assert_eq!(t.content, "é");
        assert!(t.last_line_partial);
        let t = truncate_tail("x\nabcdé", 10, 3);
        assert_eq!(t.content, "dé");
    }
}
