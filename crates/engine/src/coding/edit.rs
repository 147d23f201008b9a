//! The edit tool's file operation: several replacements in one call, matched against the
//! original file (exact first; whitespace- and punctuation-tolerant when any edit misses),
//! with the file's BOM and line endings kept, written atomically.

use std::path::Path;

use crate::coding::confine::Confined;
use crate::coding::diff::{edit_diff, EditDiff, Splice};
use crate::coding::error::CodingError;
use crate::coding::fsio::{open_regular, read_bounded, write_atomic};
use crate::limits::{
    over_byte_limit, NEARBY_LINE_CHARS, NEARBY_MAX_LINES, NEARBY_MIN_PROBE_CHARS,
    NEARBY_PROBE_CHARS,
};

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The text to find (unique in the file).
    pub old_text: String,
    /// Its replacement.
    pub new_text: String,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    /// Replacements applied.
    pub replaced: usize,
    /// The fuzzy matcher was needed.
    pub fuzzy: bool,
    /// The diff of the change.
    pub diff: EditDiff,
}

/// Applies `edits` to the file at `path` (at most `max_file_bytes` long); `display_path`
/// names it in messages.
///
/// # Errors
/// [`CodingError::Edit`] with the reference's text, or [`CodingError::Io`] when the write fails.
pub fn edit_file(
    path: &Path,
    edits: &[Replacement],
    max_file_bytes: u64,
    display_path: &str,
    confined: Option<&Confined>,
) -> Result<EditOutcome, CodingError> {
    check_access(path, display_path)?;
    let too_large = |size: u64| too_large(size, max_file_bytes);
    let (mut file, size) = open_regular(path, confined, "edit", display_path)?;
    if size > max_file_bytes {
        return Err(too_large(size));
    }
    let raw = read_bounded(&mut file, max_file_bytes, size, path)?;
    if raw.len() as u64 > max_file_bytes {
        return Err(too_large(raw.len() as u64));
    }
    drop(file);
    let text = match String::from_utf8(raw) {
        Ok(t) => t,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let (out, applied) = edit_text(&text, edits, display_path)?;
    match confined {
        Some(c) => c.write(out.as_bytes())?,
        None => write_atomic(path, out.as_bytes())?,
    }
    Ok(EditOutcome {
        replaced: edits.len(),
        fuzzy: applied.fuzzy,
        diff: applied.diff,
    })
}

/// The refusal of an edit target of `size` bytes, over `max_file_bytes`.
#[must_use]
pub fn too_large(size: u64, max_file_bytes: u64) -> CodingError {
    CodingError::Edit {
        kind: "too_large",
        message: over_byte_limit("Edit target", size, max_file_bytes),
    }
}

/// `Could not edit file: <path>. <detail>.`: the refusal of a target that cannot be read and
/// written (`detail` is `Error code: <errno>` for a filesystem error).
#[must_use]
pub fn access_failure_message(display_path: &str, detail: &str) -> String {
    format!("Could not edit file: {display_path}. {detail}.")
}

/// `Error code: <code>`: the detail of an access failure with an errno name.
#[must_use]
pub fn error_code_detail(code: &str) -> String {
    format!("Error code: {code}")
}

/// The text of a successful edit: `Successfully replaced <n> block(s) in <path>.`, with
/// ` (fuzzy match)` before the period when the fuzzy matcher was needed.
#[must_use]
pub fn summary(replaced: usize, display_path: &str, fuzzy: bool) -> String {
    let how = if fuzzy { " (fuzzy match)" } else { "" };
    format!("Successfully replaced {replaced} block(s) in {display_path}{how}.")
}

/// Applies `edits` to a whole file's `text`: the BOM is set aside, line endings normalised to
/// LF for matching, and both restored in the returned text.
///
/// # Errors
/// [`CodingError::Edit`] as [`apply_edits`].
pub fn edit_text(
    text: &str,
    edits: &[Replacement],
    display_path: &str,
) -> Result<(String, Applied), CodingError> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let crlf = uses_crlf(body);
    let base = normalize_to_lf(body);
    let applied = apply_edits(&base, edits, display_path)?;
    let mut out = String::with_capacity(applied.text.len() + bom.len());
    out.push_str(bom);
    if crlf {
        out.push_str(&applied.text.replace('\n', "\r\n"));
    } else {
        out.push_str(&applied.text);
    }
    Ok((out, applied))
}

/// `access(R_OK | W_OK)`, with the reference's message on failure.
fn check_access(path: &Path, display_path: &str) -> Result<(), CodingError> {
    crate::os::files::check_read_write(path).map_err(|io| {
        let code = match CodingError::io(&io, "access", path) {
            CodingError::Io { code, .. } => code,
            _ => "EIO".to_owned(),
        };
        CodingError::Edit {
            kind: "access",
            message: access_failure_message(display_path, &error_code_detail(&code)),
        }
    })
}

/// Whether the first line break of `text` is CRLF.
fn uses_crlf(text: &str) -> bool {
    match memchr::memchr(b'\n', text.as_bytes()) {
        Some(at) => at > 0 && text.as_bytes()[at - 1] == b'\r',
        None => false,
    }
}

/// CRLF and lone CR as LF.
fn normalize_to_lf(text: &str) -> String {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// The fuzzy form of `text`: trailing whitespace cut from every line, typographic quotes,
/// dashes and spaces as their ASCII forms.
#[must_use]
pub fn normalize_fuzzy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for c in line.trim_end().chars() {
            out.push(match c {
                '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' => '\'',
                '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' => '"',
                '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
                '\u{a0}' | '\u{2002}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
                other => other,
            });
        }
    }
    out
}

/// The edited text (LF line endings), whether it needed fuzzy matching, and its diff.
#[derive(Debug)]
pub struct Applied {
    /// The new text.
    pub text: String,
    /// Fuzzy matching was used.
    pub fuzzy: bool,
    /// The diff against the matched base.
    pub diff: EditDiff,
}

/// Matches every edit against `content` (LF line endings) and applies them together.
///
/// # Errors
/// [`CodingError::Edit`]: empty `oldText`, not found, ambiguous, overlapping, or no change.
pub fn apply_edits(
    content: &str,
    edits: &[Replacement],
    path: &str,
) -> Result<Applied, CodingError> {
    let total = edits.len();
    let olds: Vec<String> = edits.iter().map(|e| normalize_to_lf(&e.old_text)).collect();
    let news: Vec<String> = edits.iter().map(|e| normalize_to_lf(&e.new_text)).collect();
    for (i, old) in olds.iter().enumerate() {
        if old.is_empty() {
            return Err(edit_error("empty_old_text", empty_message(path, i, total)));
        }
    }
    let all_exact = olds
        .iter()
        .all(|o| memchr::memmem::find(content.as_bytes(), o.as_bytes()).is_some());
    let (base, matched): (_, std::borrow::Cow<'_, [String]>) = if all_exact {
        (std::borrow::Cow::Borrowed(content), olds.as_slice().into())
    } else {
        let fuzzy: Vec<String> = olds.iter().map(|o| normalize_fuzzy(o)).collect();
        (
            std::borrow::Cow::Owned(normalize_fuzzy(content)),
            fuzzy.into(),
        )
    };
    let mut splices: Vec<(Splice<'_>, usize)> = Vec::with_capacity(total);
    for (i, (old, new)) in matched.iter().zip(&news).enumerate() {
        let finder = memchr::memmem::Finder::new(old.as_bytes());
        let mut hits = finder.find_iter(base.as_bytes());
        let Some(start) = hits.next() else {
            return Err(edit_error(
                "not_found",
                not_found_message(content, &olds[i], path, i, total),
            ));
        };
        let more = hits.count();
        if more > 0 {
            return Err(edit_error(
                "ambiguous",
                duplicate_message(path, i, total, more + 1),
            ));
        }
        splices.push((
            Splice {
                start,
                end: start + old.len(),
                new_text: new.as_str(),
            },
            i,
        ));
    }
    splices.sort_by_key(|(s, _)| s.start);
    for pair in splices.windows(2) {
        let ((a, ai), (b, bi)) = (&pair[0], &pair[1]);
        if a.end > b.start {
            return Err(edit_error(
                "overlap",
                format!("edits[{ai}] and edits[{bi}] overlap in {path}. Merge them into one edit or target disjoint regions."),
            ));
        }
    }
    let splices: Vec<Splice<'_>> = splices.into_iter().map(|(s, _)| s).collect();
    let mut text = String::with_capacity(base.len());
    let mut at = 0;
    for s in &splices {
        text.push_str(&base[at..s.start]);
        text.push_str(s.new_text);
        at = s.end;
    }
    text.push_str(&base[at..]);
    if text == base.as_ref() {
        let message = if total == 1 {
            format!("No changes made to {path}. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.")
        } else {
            format!("No changes made to {path}. The replacements produced identical content.")
        };
        return Err(edit_error("no_change", message));
    }
    let diff = edit_diff(&base, &splices, path);
    Ok(Applied {
        text,
        fuzzy: !all_exact,
        diff,
    })
}

fn edit_error(kind: &'static str, message: String) -> CodingError {
    CodingError::Edit { kind, message }
}

fn empty_message(path: &str, i: usize, total: usize) -> String {
    if total == 1 {
        format!("oldText must not be empty in {path}.")
    } else {
        format!("edits[{i}].oldText must not be empty in {path}.")
    }
}

fn duplicate_message(path: &str, i: usize, total: usize, n: usize) -> String {
    if total == 1 {
        format!("Found {n} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique.")
    } else {
        format!("Found {n} occurrences of edits[{i}] in {path}. Each oldText must be unique. Please provide more context to make it unique.")
    }
}

/// The not-found message; when lines of `content` share the start of `old`, up to
/// [`NEARBY_MAX_LINES`] of them follow under `Nearby:` so the caller can correct its text.
fn not_found_message(content: &str, old: &str, path: &str, i: usize, total: usize) -> String {
    let mut msg = if total == 1 {
        format!("Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines.")
    } else {
        format!("Could not find edits[{i}] in {path}. The oldText must match exactly including all whitespace and newlines.")
    };
    if let Some(nearby) = nearby_lines(content, old) {
        msg.push_str("\nNearby:\n");
        msg.push_str(&nearby);
    }
    msg
}

/// The distinct lines of `content` (each cut to [`NEARBY_LINE_CHARS`]) that contain the
/// first [`NEARBY_PROBE_CHARS`] characters of the first non-blank line of `old`, as
/// `"  L<n>: <line>"`, at most [`NEARBY_MAX_LINES`] of them in file order.
fn nearby_lines(content: &str, old: &str) -> Option<String> {
    let first = old.split('\n').map(str::trim).find(|l| !l.is_empty())?;
    let probe_end = first
        .char_indices()
        .nth(NEARBY_PROBE_CHARS)
        .map_or(first.len(), |(at, _)| at);
    let probe = &first[..probe_end];
    if probe.chars().count() < NEARBY_MIN_PROBE_CHARS {
        return None;
    }
    let finder = memchr::memmem::Finder::new(probe.as_bytes());
    let mut seen = std::collections::HashSet::new();
    let mut shown = Vec::new();
    for (k, line) in content.split('\n').enumerate() {
        if shown.len() == NEARBY_MAX_LINES {
            break;
        }
        if finder.find(line.as_bytes()).is_none() {
            continue;
        }
        let cut: String = line.chars().take(NEARBY_LINE_CHARS).collect();
        if seen.insert(cut.clone()) {
            shown.push(format!("  L{}: {cut}", k + 1));
        }
    }
    (!shown.is_empty()).then(|| shown.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(old: &str, new: &str) -> Replacement {
        Replacement {
            old_text: old.into(),
            new_text: new.into(),
        }
    }

    fn msg(res: Result<Applied, CodingError>) -> String {
        res.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn applies_several_exact_edits_against_the_original() -> Result<(), CodingError> {
        let a = apply_edits("one\ntwo\nthree\n", &[r("one", "1"), r("three", "3")], "p")?;
        assert_eq!(a.text, "1\ntwo\n3\n");
        assert!(!a.fuzzy);
        assert_eq!(a.diff.first_changed_line, 1);
        Ok(())
    }

    #[test]
    fn falls_back_to_fuzzy_on_trailing_space_and_quotes() -> Result<(), CodingError> {
        let a = apply_edits(
            "say \u{201c}hi\u{201d}   \nnext\n",
            &[r("say \"hi\"\nnext", "done")],
            "p",
        )?;
        assert_eq!(a.text, "done\n");
        assert!(a.fuzzy);
        Ok(())
    }

    #[test]
    fn reports_each_failure_with_the_reference_text() {
        assert_eq!(
            msg(apply_edits("abc", &[r("zzz", "y")], "p")),
            "Could not find the exact text in p. The old text must match exactly including all whitespace and newlines."
        );
        assert_eq!(
            msg(apply_edits("x\nfoo bar\ny", &[r("a", "b"), r("foo baz", "q")], "p")),
            "Could not find edits[1] in p. The oldText must match exactly including all whitespace and newlines."
        );
        assert!(msg(apply_edits(
            "x\n  foo bar\ny",
            &[r("foo bar\nzzz", "q")],
            "p"
        ))
        .ends_with("\nNearby:\n  L2:   foo bar"));
        // The probe is the first 16 characters of the first non-blank line; lines are shown
        // once each, at most three, cut to 120 characters.
        let long = "x".repeat(130);
        let file = format!("function handle(a) {{\nfunction handle(a) {{\nfunction handle(b) {long}\nfunction handle(c)\nfunction handle(d)");
        let m = msg(apply_edits(
            &file,
            &[r("\n  function handle(ZZZ) {", "q")],
            "p",
        ));
        let cut: String = format!("function handle(b) {long}")
            .chars()
            .take(120)
            .collect();
        assert!(
            m.ends_with(&format!(
                "\nNearby:\n  L1: function handle(a) {{\n  L3: {cut}\n  L4: function handle(c)"
            )),
            "{m}"
        );
        // A probe under four characters shows nothing.
        assert!(!msg(apply_edits("abc\nabd", &[r("abz", "q")], "p")).contains("Nearby"));
        assert_eq!(
            msg(apply_edits("aa aa", &[r("aa", "b")], "p")),
            "Found 2 occurrences of the text in p. The text must be unique. Please provide more context to make it unique."
        );
        assert_eq!(
            msg(apply_edits("abcdef", &[r("abcd", "x"), r("cdef", "y")], "p")),
            "edits[0] and edits[1] overlap in p. Merge them into one edit or target disjoint regions."
        );
        assert_eq!(
            msg(apply_edits("abc", &[r("", "x")], "p")),
            "oldText must not be empty in p."
        );
        assert_eq!(
            msg(apply_edits("abc", &[r("b", "b")], "p")),
            "No changes made to p. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
        );
    }

    #[test]
    fn keeps_bom_and_crlf() -> Result<(), CodingError> {
        let (out, _) = edit_text("\u{feff}a\r\nb\r\nc\r\n", &[r("b\nc", "B\nC")], "p")?;
        assert_eq!(out, "\u{feff}a\r\nB\r\nC\r\n");
        Ok(())
    }

    #[test]
    fn detects_crlf_and_normalizes() {
        assert!(uses_crlf("a\r\nb\n"));
        assert!(!uses_crlf("a\nb\r\n"));
        assert_eq!(normalize_to_lf("a\r\nb\rc"), "a\nb\nc");
    }
}
