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
    let lines = Lines {
        base,
        starts: &starts,
    };
    let blocks = merge_blocks(splices, &lines);
    let mut out = Output {
        patch: format!("--- {path}\n+++ {path}\n"),
        diff: String::new(),
    };
    let mut delta: i64 = 0;
    let last_line = starts.len() - 1;
    let mut hunk_start = 0;
    while hunk_start < blocks.len() {
        let mut hunk_end = hunk_start + 1;
        while hunk_end < blocks.len()
            && blocks[hunk_end].first <= blocks[hunk_end - 1].last + 2 * CONTEXT_LINES + 1
        {
            hunk_end += 1;
        }
        let hunk = &blocks[hunk_start..hunk_end];
        let ctx_from = hunk[0].first.saturating_sub(CONTEXT_LINES);
        let ctx_to = (hunk[hunk.len() - 1].last + CONTEXT_LINES).min(last_line);
        let old_count = ctx_to - ctx_from + 1;
        let hunk_delta: i64 = hunk
            .iter()
            .map(|b| b.new_lines.len() as i64 - b.old_len() as i64)
            .sum();
        let new_start = ctx_from as i64 + 1 + delta;
        let new_count = old_count as i64 + hunk_delta;
        out.patch.push_str(&format!(
            "@@ -{},{old_count} +{new_start},{new_count} @@\n",
            ctx_from + 1
        ));
        if hunk_start > 0 {
            out.diff.push_str("...\n");
        }
        let mut line = ctx_from;
        for block in hunk {
            for i in line..block.first {
                out.context(lines.get(i), i as i64 + 1 + delta);
            }
            for i in block.first..=block.last {
                out.line('-', lines.get(i), i as i64 + 1);
            }
            let new_first = block.first as i64 + 1 + delta;
            for (k, l) in block.new_lines.iter().enumerate() {
                out.line('+', l, new_first + k as i64);
            }
            delta += block.new_lines.len() as i64 - block.old_len() as i64;
            line = block.last + 1;
        }
        for i in line..=ctx_to {
            out.context(lines.get(i), i as i64 + 1 + delta);
        }
        hunk_start = hunk_end;
    }
    if out.diff.ends_with('\n') {
        out.diff.pop();
    }
    EditDiff {
        diff: out.diff,
        patch: out.patch,
        first_changed_line: blocks.first().map_or(0, |b| b.first as u64 + 1),
    }
}

/// The base text by line.
struct Lines<'a> {
    base: &'a str,
    starts: &'a [usize],
}

impl<'a> Lines<'a> {
    fn of(&self, pos: usize) -> usize {
        self.starts.partition_point(|&s| s <= pos).saturating_sub(1)
    }

    fn start(&self, line: usize) -> usize {
        self.starts[line]
    }

    fn end(&self, line: usize) -> usize {
        self.starts
            .get(line + 1)
            .map_or(self.base.len(), |&s| s - 1)
    }

    fn get(&self, line: usize) -> &'a str {
        &self.base[self.start(line)..self.end(line)]
    }
}

/// The diff and patch being written.
struct Output {
    patch: String,
    diff: String,
}

impl Output {
    fn context(&mut self, text: &str, new_line: i64) {
        self.patch.push_str(&format!(" {text}\n"));
        self.diff.push_str(&format!(" {new_line} {text}\n"));
    }

    fn line(&mut self, sign: char, text: &str, number: i64) {
        self.patch.push_str(&format!("{sign}{text}\n"));
        self.diff.push_str(&format!("{sign}{number} {text}\n"));
    }
}

/// Splices that share lines, as one changed block: old lines `first..=last` become
/// `new_lines`.
struct Block {
    first: usize,
    last: usize,
    new_lines: Vec<String>,
}

impl Block {
    fn old_len(&self) -> usize {
        self.last - self.first + 1
    }
}

fn merge_blocks(splices: &[Splice<'_>], lines: &Lines<'_>) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < splices.len() {
        let first = lines.of(splices[i].start);
        let mut last = lines.of(splices[i].end);
        let mut j = i + 1;
        while j < splices.len() && lines.of(splices[j].start) <= last {
            last = last.max(lines.of(splices[j].end));
            j += 1;
        }
        let mut text = String::new();
        let mut at = lines.start(first);
        for s in &splices[i..j] {
            text.push_str(&lines.base[at..s.start]);
            text.push_str(s.new_text);
            at = s.end;
        }
        text.push_str(&lines.base[at..lines.end(last)]);
        blocks.push(Block {
            first,
            last,
            new_lines: text.split('\n').map(str::to_owned).collect(),
        });
        i = j;
    }
    blocks
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
