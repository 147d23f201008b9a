//! A line diff of an edit, built from the replacement ranges the edit already knows (no
//! general diff algorithm needed): a unified `patch` and a numbered `diff` for display.

/// One replacement in the base text: bytes `start..end` become `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice<'a> {
    /// Byte offset where the replaced text starts.
    pub start: usize,
    /// Byte offset where it ends (exclusive).
    pub end: usize,
    /// The replacement.
    pub new_text: &'a str,
}

/// The diff of applying `splices` (sorted, disjoint) to `base`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditDiff {
    /// Numbered lines: `-N old`, `+N new`, ` N context`; `...` between hunks.
    pub diff: String,
    /// A unified diff (`--- path`, `+++ path`, `@@ -a,b +c,d @@`).
    pub patch: String,
    /// The 1-based line of the new file where the first change is.
    pub first_changed_line: u64,
}

/// Lines of context around each change.
const CONTEXT_LINES: usize = 3;

/// Builds the diff of `splices` over `base` for `path`.
#[must_use]
pub fn edit_diff(base: &str, splices: &[Splice<'_>], path: &str) -> EditDiff {
    let starts = line_starts(base);
    let line_of = |pos: usize| starts.partition_point(|&s| s <= pos).saturating_sub(1);
    let line_end = |line: usize| starts.get(line + 1).map_or(base.len(), |&s| s - 1);
    let groups = group_splices(splices, &line_of);
    let mut patch = format!("--- {path}\n+++ {path}\n");
    let mut diff = String::new();
    let mut delta: i64 = 0;
    let mut first_changed_line = 0;
    let last_line = starts.len() - 1;
    for (n, group) in groups.iter().enumerate() {
        let (first, last) = (group.first_line, group.last_line);
        let mut new_text = String::new();
        let mut at = starts[first];
        for s in &splices[group.from..group.to] {
            new_text.push_str(&base[at..s.start]);
            new_text.push_str(s.new_text);
            at = s.end;
        }
        new_text.push_str(&base[at..line_end(last)]);
        let old_lines: Vec<&str> = base[starts[first]..line_end(last)].split('\n').collect();
        let new_lines: Vec<&str> = new_text.split('\n').collect();
        let ctx_from = first.saturating_sub(CONTEXT_LINES);
        let ctx_to = (last + CONTEXT_LINES).min(last_line);
        let old_start = ctx_from + 1;
        let new_start = (old_start as i64 + delta).max(1);
        if n == 0 {
            first_changed_line = (first as i64 + 1 + delta).max(1) as u64;
        }
        let old_count = ctx_to - ctx_from + 1;
        let new_count = (first - ctx_from) + new_lines.len() + (ctx_to - last);
        patch.push_str(&format!(
            "@@ -{old_start},{old_count} +{new_start},{new_count} @@\n"
        ));
        if n > 0 {
            diff.push_str("...\n");
        }
        let base_line = |i: usize| &base[starts[i]..line_end(i)];
        for i in ctx_from..first {
            patch.push_str(&format!(" {}\n", base_line(i)));
            diff.push_str(&format!(" {} {}\n", i + 1, base_line(i)));
        }
        for (k, l) in old_lines.iter().enumerate() {
            patch.push_str(&format!("-{l}\n"));
            diff.push_str(&format!("-{} {l}\n", first + 1 + k));
        }
        let new_first = (first as i64 + 1 + delta).max(1) as usize;
        for (k, l) in new_lines.iter().enumerate() {
            patch.push_str(&format!("+{l}\n"));
            diff.push_str(&format!("+{} {l}\n", new_first + k));
        }
        delta += new_lines.len() as i64 - old_lines.len() as i64;
        for i in last + 1..=ctx_to {
            patch.push_str(&format!(" {}\n", base_line(i)));
            diff.push_str(&format!(" {} {}\n", (i as i64 + 1 + delta), base_line(i)));
        }
    }
    if diff.ends_with('\n') {
        diff.pop();
    }
    EditDiff {
        diff,
        patch,
        first_changed_line,
    }
}

/// Splices whose context windows touch, as one hunk.
struct Group {
    from: usize,
    to: usize,
    first_line: usize,
    last_line: usize,
}

fn group_splices(splices: &[Splice<'_>], line_of: &dyn Fn(usize) -> usize) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, s) in splices.iter().enumerate() {
        let (first, last) = (line_of(s.start), line_of(s.end));
        match groups.last_mut() {
            Some(g) if first <= g.last_line + 2 * CONTEXT_LINES + 1 => {
                g.to = i + 1;
                g.last_line = g.last_line.max(last);
            }
            _ => groups.push(Group {
                from: i,
                to: i + 1,
                first_line: first,
                last_line: last,
            }),
        }
    }
    groups
}

/// Byte offsets where each line of `text` starts (the first is 0).
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_change_in_the_middle() {
        let base = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let at = base.find("e").unwrap_or(0);
        let d = edit_diff(
            base,
            &[Splice {
                start: at,
                end: at + 1,
                new_text: "E\nE2",
            }],
            "p",
        );
        assert_eq!(d.first_changed_line, 5);
        assert_eq!(
            d.patch,
            "--- p\n+++ p\n@@ -2,7 +2,8 @@\n b\n c\n d\n-e\n+E\n+E2\n f\n g\n h\n"
        );
        assert!(d
            .diff
            .starts_with(" 2 b\n 3 c\n 4 d\n-5 e\n+5 E\n+6 E2\n 7 f"));
    }

    #[test]
    fn distant_changes_make_two_hunks() {
        let base: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let a = base.find("l2\n").unwrap_or(0);
        let b = base.find("l18\n").unwrap_or(0);
        let splices = [
            Splice {
                start: a,
                end: a + 2,
                new_text: "X",
            },
            Splice {
                start: b,
                end: b + 3,
                new_text: "Y",
            },
        ];
        let d = edit_diff(&base, &splices, "p");
        assert_eq!(d.patch.matches("@@ -").count(), 2);
        assert!(d.diff.contains("...\n"));
        assert_eq!(d.first_changed_line, 2);
    }
}
