//! The shell's output accumulator: counts every byte and line, keeps a rolling tail of
//! 2×`maxBytes` (trimmed when it passes 4×), and spills the full output to a 0600 file
//! `<tmpdir>/<prefix>-<32hex>.log` once the output passes `maxBytes` or `maxLines`.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use crate::coding::error::CodingError;
use crate::coding::fsio::random_hex;
use crate::coding::size::format_size;
use crate::coding::truncate::truncate_tail;

/// Where the accumulator spills and how much it keeps.
#[derive(Debug, Clone)]
pub struct AccumulatorConfig {
    /// Line cap of the shown tail.
    pub max_lines: u64,
    /// Byte cap of the shown tail.
    pub max_bytes: u64,
    /// Output beyond this aborts the command.
    pub max_total_bytes: u64,
    /// Spill file name prefix: `[A-Za-z0-9._-]+` ([`AccumulatorConfig::check`]).
    pub temp_prefix: String,
    /// Directory of the spill file.
    pub temp_dir: PathBuf,
}

impl AccumulatorConfig {
    /// Checks the configuration the host chose: the output bound at least the tail's byte cap,
    /// and a prefix of `[A-Za-z0-9._-]+` only (so the spill file stays in `temp_dir`).
    ///
    /// # Errors
    /// [`CodingError::TotalBelowTail`] or [`CodingError::TempPrefix`].
    pub fn check(&self) -> Result<(), CodingError> {
        check_output_options(self.max_bytes, self.max_total_bytes, &self.temp_prefix)
    }
}

/// [`AccumulatorConfig::check`] on the three options it reads (for a host that checks them
/// when a tool is created, before any command runs).
///
/// # Errors
/// [`CodingError::TotalBelowTail`] or [`CodingError::TempPrefix`].
pub fn check_output_options(
    max_bytes: u64,
    max_total_bytes: u64,
    temp_prefix: &str,
) -> Result<(), CodingError> {
    if max_total_bytes < max_bytes {
        return Err(CodingError::TotalBelowTail { max_bytes });
    }
    let prefix_ok = !temp_prefix.is_empty()
        && temp_prefix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if prefix_ok {
        Ok(())
    } else {
        Err(CodingError::TempPrefix)
    }
}

/// What one [`OutputAccumulator::push`] led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Push {
    /// Stored.
    Stored,
    /// The total passed `maxTotalOutputBytes` (the chunk was not stored).
    LimitExceeded,
    /// The spill file could not be created or written.
    SpillFailed,
}

/// A bounded record of a command's output.
#[derive(Debug)]
pub struct OutputAccumulator {
    cfg: AccumulatorConfig,
    tail: Vec<u8>,
    /// The tail was trimmed (its first line may be partial).
    tail_trimmed: bool,
    total_bytes: u64,
    newlines: u64,
    /// Bytes since the last LF.
    current_line_bytes: u64,
    /// A chunk went past `maxTotalOutputBytes` (only the part up to the cap was kept).
    exceeded: bool,
    spill: Option<(PathBuf, File)>,
}

/// The tail as shown, with its footer and numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The shown tail.
    pub content: String,
    /// `"\n\n[Showing …]"` when truncated, else empty.
    pub footer: String,
    /// The output passed a cap.
    pub truncated: bool,
    /// `"lines"`, `"bytes"` or `None`.
    pub truncated_by: Option<&'static str>,
    /// Lines in the whole output.
    pub total_lines: u64,
    /// Bytes in the whole output (up to `maxTotalOutputBytes`).
    pub total_bytes: u64,
    /// Whether `total_bytes` is all of it (false once output went past the cap).
    pub total_bytes_known: bool,
    /// Lines shown.
    pub output_lines: u64,
    /// Bytes shown.
    pub output_bytes: u64,
    /// Only the end of the last line is shown.
    pub last_line_partial: bool,
}

impl OutputAccumulator {
    /// An empty accumulator.
    #[must_use]
    pub fn new(cfg: AccumulatorConfig) -> Self {
        Self {
            cfg,
            tail: Vec::new(),
            tail_trimmed: false,
            total_bytes: 0,
            newlines: 0,
            current_line_bytes: 0,
            exceeded: false,
            spill: None,
        }
    }

    /// Bytes kept so far: at most `maxTotalOutputBytes`, since a chunk that crosses the cap is
    /// kept only up to it.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Lines of the output so far: each LF ends one, and text after the last LF is one more
    /// (so a final LF does not start an empty line, and empty output has none).
    #[must_use]
    pub fn total_lines(&self) -> u64 {
        self.newlines + u64::from(self.current_line_bytes > 0)
    }

    /// Adds one chunk of output. The part of a chunk beyond `maxTotalOutputBytes` is dropped
    /// and the push reports [`Push::LimitExceeded`] (as does every push after it).
    pub fn push(&mut self, data: &[u8]) -> Push {
        let room = self.cfg.max_total_bytes.saturating_sub(self.total_bytes);
        let keep = usize::try_from(room).unwrap_or(usize::MAX).min(data.len());
        let stored = self.store(&data[..keep]);
        if keep < data.len() {
            self.exceeded = true;
        }
        match stored {
            Push::Stored if self.exceeded => Push::LimitExceeded,
            other => other,
        }
    }

    fn store(&mut self, data: &[u8]) -> Push {
        if data.is_empty() {
            return Push::Stored;
        }
        self.total_bytes += data.len() as u64;
        let lf = memchr::memchr_iter(b'\n', data).count() as u64;
        self.newlines += lf;
        self.current_line_bytes = match memchr::memrchr(b'\n', data) {
            Some(at) => (data.len() - at - 1) as u64,
            None => self.current_line_bytes + data.len() as u64,
        };
        if self.spill.is_none() && self.over_caps() {
            // Until now the output fit in maxBytes, so the tail still holds all of it.
            if self.open_spill().is_err() {
                return Push::SpillFailed;
            }
        }
        if let Some((_, file)) = &mut self.spill {
            if file.write_all(data).is_err() {
                return Push::SpillFailed;
            }
        }
        self.tail.extend_from_slice(data);
        let keep = usize::try_from(self.cfg.max_bytes.saturating_mul(2))
            .unwrap_or(usize::MAX)
            .max(1);
        if self.tail.len() > keep.saturating_mul(2) {
            let cut = self.tail.len() - keep;
            // The kept tail starts on a line boundary only when the byte before it is an LF.
            self.tail_trimmed = self.tail.get(cut - 1) != Some(&b'\n');
            self.tail.drain(..cut);
        }
        Push::Stored
    }

    fn over_caps(&self) -> bool {
        self.exceeded
            || self.total_bytes > self.cfg.max_bytes
            || self.total_lines() > self.cfg.max_lines
    }

    fn open_spill(&mut self) -> std::io::Result<()> {
        let path =
            self.cfg
                .temp_dir
                .join(format!("{}-{}.log", self.cfg.temp_prefix, random_hex(16)));
        let mut file =
            crate::os::files::owner_only(OpenOptions::new().write(true).create_new(true))
                .open(&path)?;
        if let Err(e) = file.write_all(&self.tail) {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        self.spill = Some((path, file));
        Ok(())
    }

    /// The spill file's path, if one was opened.
    #[must_use]
    pub fn spill_path(&self) -> Option<&PathBuf> {
        self.spill.as_ref().map(|(p, _)| p)
    }

    /// Closes and deletes the spill file (on failure, or when the output was not truncated).
    pub fn discard_spill(&mut self) {
        if let Some((path, file)) = self.spill.take() {
            drop(file);
            let _ = std::fs::remove_file(path);
        }
    }

    /// Flushes the spill file and returns its path (kept for the host).
    pub fn keep_spill(&mut self) -> Option<PathBuf> {
        self.spill.take().map(|(path, mut file)| {
            let _ = file.flush();
            path
        })
    }

    /// The shown tail and its footer; `full_output` is named in the footer when given.
    #[must_use]
    pub fn snapshot(&self, full_output: Option<&str>) -> Snapshot {
        let text = String::from_utf8_lossy(self.visible_tail());
        let cut = truncate_tail(&text, self.cfg.max_lines, self.cfg.max_bytes);
        let total_lines = self.total_lines();
        let truncated = self.over_caps();
        let truncated_by = truncated.then(|| {
            cut.truncated_by
                .unwrap_or(if self.exceeded || self.total_bytes > self.cfg.max_bytes {
                    "bytes"
                } else {
                    "lines"
                })
        });
        let full = full_output
            .map(|p| format!(" Full output: {p}"))
            .unwrap_or_default();
        let footer = if !truncated {
            String::new()
        } else if cut.last_line_partial {
            format!(
                "\n\n[Showing last {} of line {total_lines} (line is {}).{full}]",
                format_size(cut.output_bytes),
                format_size(self.current_line_bytes)
            )
        } else {
            let start = (total_lines + 1).saturating_sub(cut.output_lines);
            let limit = if truncated_by == Some("bytes") {
                format!(" ({} limit)", format_size(self.cfg.max_bytes))
            } else {
                String::new()
            };
            format!("\n\n[Showing lines {start}-{total_lines} of {total_lines}{limit}.{full}]")
        };
        Snapshot {
            content: cut.content,
            footer,
            truncated,
            truncated_by,
            total_lines,
            total_bytes: self.total_bytes,
            total_bytes_known: !self.exceeded,
            output_lines: cut.output_lines,
            output_bytes: cut.output_bytes,
            last_line_partial: cut.last_line_partial,
        }
    }

    /// The tail without a partial first line (when trimmed and a later LF exists), starting on
    /// a character boundary.
    fn visible_tail(&self) -> &[u8] {
        let mut t = self.tail.as_slice();
        if self.tail_trimmed {
            if let Some(at) = memchr::memchr(b'\n', t) {
                t = &t[at + 1..];
            } else {
                while let Some((&b, rest)) = t.split_first() {
                    if b & 0xc0 != 0x80 {
                        break;
                    }
                    t = rest;
                }
            }
        }
        t
    }
}

impl Drop for OutputAccumulator {
    /// A spill file neither kept nor discarded (an early exit) is removed.
    fn drop(&mut self) {
        self.discard_spill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_options_keep_the_spill_file_in_its_directory() {
        assert!(check_output_options(10, 10, "prism-shell.v1_x").is_ok());
        for bad in ["", "../x", "a/b", "/etc/x", "a b", "é"] {
            assert!(
                matches!(
                    check_output_options(10, 10, bad),
                    Err(CodingError::TempPrefix)
                ),
                "{bad:?}"
            );
        }
        let err = check_output_options(10, 9, "p").unwrap_err();
        assert_eq!(
            err.to_string(),
            "maxTotalOutputBytes must be at least maxBytes (10)"
        );
        assert_eq!(err.code(), "ERR_PRISM_CODING_INVALID_OPTION");
    }

    fn acc(max_lines: u64, max_bytes: u64, total: u64) -> OutputAccumulator {
        OutputAccumulator::new(AccumulatorConfig {
            max_lines,
            max_bytes,
            max_total_bytes: total,
            temp_prefix: "prism-acc-test".into(),
            temp_dir: std::env::temp_dir(),
        })
    }

    #[test]
    fn small_output_is_not_truncated_and_not_spilled() {
        let mut a = acc(10, 100, 1000);
        assert_eq!(a.push(b"hi\nthere"), Push::Stored);
        let s = a.snapshot(None);
        assert_eq!(
            (s.content.as_str(), s.footer.as_str(), s.truncated),
            ("hi\nthere", "", false)
        );
        assert!(a.spill_path().is_none());
    }

    #[test]
    fn spills_past_the_line_cap_and_shows_the_tail() {
        let mut a = acc(2, 100, 1000);
        a.push(b"1\n2\n");
        a.push(b"3\n4");
        let path = a.spill_path().cloned();
        let s = a.snapshot(Some("F"));
        assert_eq!(s.content, "3\n4");
        assert_eq!(s.footer, "\n\n[Showing lines 3-4 of 4. Full output: F]");
        let kept = a.keep_spill();
        assert_eq!(
            kept.as_ref().and_then(|p| std::fs::read(p).ok()),
            Some(b"1\n2\n3\n4".to_vec())
        );
        if let Some(p) = path {
            let _ = std::fs::remove_file(p);
        }
    }

    #[test]
    fn refuses_past_the_total_limit() {
        let mut a = acc(10, 4, 8);
        assert_eq!(a.push(b"1234567"), Push::Stored);
        assert_eq!(a.push(b"89"), Push::LimitExceeded);
        assert_eq!(
            a.total_bytes(),
            8,
            "the crossing chunk is kept up to the cap"
        );
        assert_eq!(a.push(b""), Push::LimitExceeded);
        let s = a.snapshot(None);
        assert!(s.truncated);
        assert_eq!(s.truncated_by, Some("bytes"));
        a.discard_spill();
        assert!(a.spill_path().is_none());
    }

    #[test]
    fn a_final_newline_does_not_count_as_a_line() {
        let mut a = acc(2, 1000, 1 << 20);
        let seq: String = (1..=100).map(|i| format!("{i}\n")).collect();
        a.push(seq.as_bytes());
        let s = a.snapshot(None);
        assert_eq!(s.content, "99\n100");
        assert_eq!(s.total_lines, 100);
        assert_eq!(s.footer, "\n\n[Showing lines 99-100 of 100.]");
        a.discard_spill();
        let mut b = acc(2, 1000, 1 << 20);
        b.push(b"1\n2\n");
        let s = b.snapshot(None);
        assert_eq!(
            (s.content.as_str(), s.truncated, s.total_lines),
            ("1\n2\n", false, 2)
        );
        assert!(
            b.spill_path().is_none(),
            "two lines and a final LF fit two lines"
        );
        let empty = acc(2, 1000, 1 << 20).snapshot(None);
        assert_eq!((empty.total_lines, empty.truncated), (0, false));
    }

    #[test]
    fn keeps_the_end_of_a_long_line() {
        let mut a = acc(10, 4, 1 << 20);
        for _ in 0..100 {
            a.push(b"abcdefgh");
        }
        let s = a.snapshot(None);
        assert_eq!(s.content, "efgh");
        assert_eq!(s.footer, "\n\n[Showing last 4B of line 1 (line is 800B).]");
        a.discard_spill();
    }
}
