//! The read tool's file operation: a bounded image, or one streamed text page.
//!
//! The file is read in [`STREAM_CHUNK_BYTES`] chunks and never held whole: lines before the
//! page are only counted, the page is kept up to `maxLines`/`maxBytes`, and lines after it are
//! counted (for the "of T" footer) until `maxScanBytes` have been read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::coding::error::CodingError;
use crate::coding::fsio::read_bounded;
use crate::coding::image::sniff_image_mime;
use crate::coding::size::format_size;
use crate::limits::{IMAGE_SNIFF_BYTES, STREAM_CHUNK_BYTES};

/// How to look for `findText`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindText {
    /// The text to find (non-empty).
    pub text: String,
    /// Compare lower-cased.
    pub case_insensitive: bool,
}

/// One read, with every bound already resolved by the caller.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    /// The 1-based first line (default 1).
    pub offset: Option<u64>,
    /// At most this many lines of the file (the caller's `limit`).
    pub limit: Option<u64>,
    /// Line cap of one page.
    pub max_lines: u64,
    /// Byte cap of one page.
    pub max_bytes: u64,
    /// Bytes a text read may scan.
    pub max_scan_bytes: u64,
    /// Largest image returned.
    pub max_image_bytes: u64,
    /// Start the page at the first line (from `offset`) containing this text.
    pub find: Option<FindText>,
    /// Sniff images (off when the host reads text only).
    pub sniff_images: bool,
    /// The path as the caller spelt it, for messages.
    pub display_path: String,
}

/// How a text page was cut, as the reference's `TruncationResult` (without `content`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Truncation {
    /// The page was cut by a cap.
    pub truncated: bool,
    /// `"lines"`, `"bytes"` or `None`.
    pub truncated_by: Option<&'static str>,
    /// Lines in the file (when known; otherwise lines seen).
    pub total_lines: u64,
    /// Whether the scan reached the end of the file.
    pub total_lines_known: bool,
    /// Bytes in the file.
    pub total_bytes: u64,
    /// Lines on the page.
    pub output_lines: u64,
    /// Bytes on the page.
    pub output_bytes: u64,
    /// Always false for a read page (lines are never cut).
    pub last_line_partial: bool,
    /// The first line alone exceeds `maxBytes`.
    pub first_line_exceeds_limit: bool,
    /// The line cap used.
    pub max_lines: u64,
    /// The byte cap used.
    pub max_bytes: u64,
}

/// A text page: its content, the footer to append, how it was cut and what was scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPage {
    /// The page text (lines joined by LF; a final LF kept when the page reaches the end).
    pub content: String,
    /// The footer (`"\n\n[Showing lines …]"` and so on), or empty.
    pub footer: String,
    /// How the page was cut.
    pub truncation: Truncation,
    /// Bytes read from the file.
    pub scanned_bytes: u64,
}

/// What a read produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOutcome {
    /// An image within the bound.
    Image {
        /// Its sniffed MIME type.
        mime_type: &'static str,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// A text page.
    Text(TextPage),
}

/// Reads `path` as `req` says: an image (stat-checked before it is read, re-checked after) or
/// a text page.
///
/// # Errors
/// [`CodingError::Io`], [`CodingError::ImageTooLarge`], [`CodingError::OffsetBeyondEnd`],
/// [`CodingError::ScanLimit`], [`CodingError::TextNotFound`].
pub fn read_path(path: &Path, req: &ReadRequest) -> Result<ReadOutcome, CodingError> {
    let mut file = File::open(path).map_err(|e| CodingError::io(&e, "open", path))?;
    let meta = file
        .metadata()
        .map_err(|e| CodingError::io(&e, "fstat", path))?;
    if meta.is_dir() {
        let e = std::io::Error::from_raw_os_error(libc::EISDIR);
        return Err(CodingError::io(&e, "read", path));
    }
    let mut head = Vec::with_capacity(IMAGE_SNIFF_BYTES);
    if req.sniff_images {
        (&mut file)
            .take(IMAGE_SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|e| CodingError::io(&e, "read", path))?;
        if let Some(mime_type) = sniff_image_mime(&head) {
            return read_image(file, head, meta.len(), mime_type, req.max_image_bytes, path);
        }
    }
    read_text_page(head.as_slice().chain(file), meta.len(), req).map(ReadOutcome::Text)
}

/// The rest of an image after its sniffed `head`, bounded by `limit` before and after reading.
fn read_image(
    mut file: File,
    mut head: Vec<u8>,
    size: u64,
    mime_type: &'static str,
    limit: u64,
    path: &Path,
) -> Result<ReadOutcome, CodingError> {
    if size > limit {
        return Err(CodingError::ImageTooLarge { size, limit });
    }
    let rest = read_bounded(&mut file, limit.saturating_sub(head.len() as u64), path)?;
    head.extend_from_slice(&rest);
    let read = head.len() as u64;
    if read > limit {
        return Err(CodingError::ImageTooLarge { size: read, limit });
    }
    Ok(ReadOutcome::Image {
        mime_type,
        data: head,
    })
}

/// Where the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Counting lines up to the first page line.
    Skip,
    /// Looking for the first line (from `offset`) that contains `findText`.
    Find,
    /// Keeping page lines.
    Collect,
    /// Counting the lines after the page.
    Count,
}

/// The streaming state of one page read.
struct Scanner<'a> {
    req: &'a ReadRequest,
    phase: Phase,
    /// Newlines seen so far (the 0-based index of the current line).
    line: u64,
    /// 0-based first page line.
    start: u64,
    /// The current line's bytes while finding or collecting.
    current: Vec<u8>,
    /// The page so far (lines joined by LF).
    page: Vec<u8>,
    /// Lines on the page.
    page_lines: u64,
    /// Lines of the selection consumed (page lines and, once cut, the line that did not fit).
    selected: u64,
    truncated_by: Option<&'static str>,
    first_line_exceeds: bool,
    /// `findText` lower-cased when case-insensitive.
    needle: Option<Vec<u8>>,
}

impl<'a> Scanner<'a> {
    fn new(req: &'a ReadRequest) -> Self {
        let start = req.offset.unwrap_or(1).saturating_sub(1);
        let needle = req.find.as_ref().map(|f| {
            if f.case_insensitive {
                f.text.to_lowercase().into_bytes()
            } else {
                f.text.clone().into_bytes()
            }
        });
        let phase = match (&needle, start) {
            (Some(_), _) => Phase::Find,
            (None, 0) => Phase::Collect,
            (None, _) => Phase::Skip,
        };
        Self {
            req,
            phase,
            line: 0,
            start,
            current: Vec::new(),
            page: Vec::new(),
            page_lines: 0,
            selected: 0,
            truncated_by: None,
            first_line_exceeds: false,
            needle,
        }
    }

    /// Feeds one chunk.
    fn feed(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            chunk = match self.phase {
                Phase::Skip => self.skip(chunk),
                Phase::Find => self.find(chunk),
                Phase::Collect => self.collect(chunk),
                Phase::Count => {
                    self.line += memchr::memchr_iter(b'\n', chunk).count() as u64;
                    &[]
                }
            };
        }
    }

    fn skip<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        let need = self.start - self.line;
        for (seen, at) in memchr::memchr_iter(b'\n', chunk).enumerate() {
            if seen as u64 + 1 == need {
                self.line = self.start;
                self.phase = Phase::Collect;
                return &chunk[at + 1..];
            }
        }
        self.line += memchr::memchr_iter(b'\n', chunk).count() as u64;
        &[]
    }

    fn find<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        let (part, rest, ended) = split_line(chunk);
        if self.line >= self.start {
            self.current.extend_from_slice(part);
        }
        if !ended {
            return rest;
        }
        if self.line >= self.start && self.current_matches() {
            self.start = self.line;
            self.phase = Phase::Collect;
            let line = std::mem::take(&mut self.current);
            self.complete_line(&line);
        } else {
            self.current.clear();
        }
        self.line += 1;
        rest
    }

    fn current_matches(&self) -> bool {
        let Some(needle) = &self.needle else {
            return false;
        };
        let case_insensitive = self.req.find.as_ref().is_some_and(|f| f.case_insensitive);
        if case_insensitive {
            let lower = String::from_utf8_lossy(&self.current).to_lowercase();
            memchr::memmem::find(lower.as_bytes(), needle).is_some()
        } else {
            memchr::memmem::find(&self.current, needle).is_some()
        }
    }

    fn collect<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        let (part, rest, ended) = split_line(chunk);
        self.current.extend_from_slice(part);
        if self.current.len() as u64 > self.req.max_bytes {
            // The line cannot fit: the page ends here whether or not the line does.
            self.current = Vec::new();
            self.close_page_on_overflow();
            self.line += u64::from(ended);
            return rest;
        }
        if !ended {
            return rest;
        }
        let line = std::mem::take(&mut self.current);
        self.complete_line(&line);
        self.line += 1;
        rest
    }

    /// A page line that does not fit in `maxBytes` by itself.
    fn close_page_on_overflow(&mut self) {
        if self.selection_full() {
            self.phase = Phase::Count;
            return;
        }
        if self.page_lines >= self.req.max_lines {
            self.truncated_by = Some("lines");
        } else {
            self.first_line_exceeds = self.page_lines == 0;
            self.truncated_by = Some("bytes");
        }
        self.phase = Phase::Count;
    }

    fn selection_full(&self) -> bool {
        self.req.limit.is_some_and(|l| self.selected >= l)
    }

    /// One whole line of the selection (called at its newline, or at the end of the file).
    fn complete_line(&mut self, line: &[u8]) {
        if self.selection_full() {
            self.phase = Phase::Count;
            return;
        }
        if self.page_lines >= self.req.max_lines {
            self.truncated_by = Some("lines");
            self.phase = Phase::Count;
            return;
        }
        let sep = u64::from(self.page_lines > 0);
        if self.page.len() as u64 + sep + line.len() as u64 > self.req.max_bytes {
            if self.page_lines == 0 {
                self.first_line_exceeds = true;
            }
            self.truncated_by = Some("bytes");
            self.phase = Phase::Count;
            return;
        }
        if sep == 1 {
            self.page.push(b'\n');
        }
        self.page.extend_from_slice(line);
        self.page_lines += 1;
        self.selected += 1;
    }

    /// End of input: the last line (after the last LF, maybe empty) is a line too.
    fn finish_at_eof(&mut self) -> Result<(), CodingError> {
        match self.phase {
            Phase::Skip => Err(CodingError::OffsetBeyondEnd {
                offset: self.start + 1,
                total: self.line + 1,
            }),
            Phase::Find => {
                if self.line >= self.start && self.current_matches() {
                    self.start = self.line;
                    self.phase = Phase::Collect;
                    let line = std::mem::take(&mut self.current);
                    self.complete_line(&line);
                    return Ok(());
                }
                let find = self
                    .req
                    .find
                    .as_ref()
                    .map(|f| f.text.as_str())
                    .unwrap_or_default();
                Err(CodingError::TextNotFound {
                    find_json: serde_json::to_string(find).unwrap_or_default(),
                    path: self.req.display_path.clone(),
                })
            }
            Phase::Collect => {
                let line = std::mem::take(&mut self.current);
                self.complete_line(&line);
                Ok(())
            }
            Phase::Count => Ok(()),
        }
    }
}

/// Splits `chunk` at its first LF: (bytes before it, bytes after it, whether an LF was found).
fn split_line(chunk: &[u8]) -> (&[u8], &[u8], bool) {
    match memchr::memchr(b'\n', chunk) {
        Some(at) => (&chunk[..at], &chunk[at + 1..], true),
        None => (chunk, &[], false),
    }
}

/// Streams `input` (a file of `total_bytes`) into one page.
///
/// # Errors
/// [`CodingError::Io`], [`CodingError::OffsetBeyondEnd`], [`CodingError::ScanLimit`],
/// [`CodingError::TextNotFound`].
pub fn read_text_page<R: Read>(
    mut input: R,
    total_bytes: u64,
    req: &ReadRequest,
) -> Result<TextPage, CodingError> {
    let mut scanner = Scanner::new(req);
    let mut buf = vec![0u8; STREAM_CHUNK_BYTES];
    let mut scanned: u64 = 0;
    let mut eof = false;
    while scanned < req.max_scan_bytes {
        let want = (req.max_scan_bytes - scanned).min(buf.len() as u64) as usize;
        let n = match input.read(&mut buf[..want]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CodingError::io(&e, "read", Path::new(&req.display_path))),
        };
        if n == 0 {
            eof = true;
            break;
        }
        scanned += n as u64;
        scanner.feed(&buf[..n]);
    }
    if !eof {
        // The bound was reached: the file may still end exactly here.
        let mut probe = [0u8; 1];
        eof = matches!(input.read(&mut probe), Ok(0));
    }
    if eof {
        scanner.finish_at_eof()?;
    } else if scanner.phase != Phase::Count {
        return Err(CodingError::ScanLimit {
            limit: req.max_scan_bytes,
        });
    }
    Ok(build_page(scanner, eof, total_bytes, scanned))
}

/// The page, its footer and its truncation record.
fn build_page(s: Scanner<'_>, eof: bool, total_bytes: u64, scanned: u64) -> TextPage {
    let req = s.req;
    let total_lines = s.line + 1;
    let first = s.start + 1;
    let mut truncation = Truncation {
        truncated: s.truncated_by.is_some(),
        truncated_by: s.truncated_by,
        total_lines,
        total_lines_known: eof,
        total_bytes,
        output_lines: s.page_lines,
        output_bytes: s.page.len() as u64,
        last_line_partial: false,
        first_line_exceeds_limit: s.first_line_exceeds,
        max_lines: req.max_lines,
        max_bytes: req.max_bytes,
    };
    let limit_note = |by: Option<&str>| {
        if by == Some("bytes") {
            format!(" ({} limit)", format_size(req.max_bytes))
        } else {
            String::new()
        }
    };
    let (content, footer) = if s.first_line_exceeds {
        truncation.output_lines = 0;
        let text = format!(
            "[Line {first} exceeds {} limit. Use the shell tool: sed -n '{first}p' {} | head -c {}]",
            format_size(req.max_bytes),
            req.display_path,
            req.max_bytes
        );
        (text, String::new())
    } else {
        let content = String::from_utf8_lossy(&s.page).into_owned();
        let last = first + s.page_lines.saturating_sub(1);
        let next = last + 1;
        let footer = if s.truncated_by.is_some() {
            let of = if eof {
                format!(" of {total_lines}")
            } else {
                String::new()
            };
            format!(
                "\n\n[Showing lines {first}-{last}{of}{}. Use offset={next} to continue.]",
                limit_note(s.truncated_by)
            )
        } else if req.limit.is_some() && (!eof || s.start + s.selected < total_lines) {
            if eof {
                let remaining = total_lines - (s.start + s.selected);
                format!("\n\n[{remaining} more lines in file. Use offset={next} to continue.]")
            } else {
                format!("\n\n[Showing lines {first}-{last}. Use offset={next} to continue.]")
            }
        } else {
            String::new()
        };
        (content, footer)
    };
    TextPage {
        content,
        footer,
        truncation,
        scanned_bytes: scanned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> ReadRequest {
        ReadRequest {
            offset: None,
            limit: None,
            max_lines: 2000,
            max_bytes: 51_200,
            max_scan_bytes: 64 << 20,
            max_image_bytes: 10_000_000,
            find: None,
            sniff_images: false,
            display_path: "f.txt".into(),
        }
    }

    fn page(text: &str, r: &ReadRequest) -> Result<TextPage, CodingError> {
        read_text_page(text.as_bytes(), text.len() as u64, r)
    }

    #[test]
    fn keeps_trailing_lf_when_not_truncated() -> Result<(), CodingError> {
        let p = page("hello\nworld\n", &req())?;
        assert_eq!(p.content, "hello\nworld\n");
        assert_eq!(p.footer, "");
        assert_eq!(p.truncation.total_lines, 3);
        Ok(())
    }

    #[test]
    fn cuts_by_lines_with_footer() -> Result<(), CodingError> {
        let r = ReadRequest {
            max_lines: 2,
            ..req()
        };
        let p = page("a\nb\nc\nd", &r)?;
        assert_eq!(p.content, "a\nb");
        assert_eq!(
            p.footer,
            "\n\n[Showing lines 1-2 of 4. Use offset=3 to continue.]"
        );
        assert_eq!(p.truncation.truncated_by, Some("lines"));
        Ok(())
    }

    #[test]
    fn line_cap_edge_is_not_truncated() -> Result<(), CodingError> {
        let r = ReadRequest {
            max_lines: 4,
            ..req()
        };
        let p = page("a\nb\nc\nd", &r)?;
        assert_eq!(p.footer, "");
        assert!(!p.truncation.truncated);
        Ok(())
    }

    #[test]
    fn cuts_by_bytes_at_the_edge() -> Result<(), CodingError> {
        let r = ReadRequest {
            max_bytes: 5,
            ..req()
        };
        assert_eq!(page("ab\ncd", &r)?.footer, "");
        let p = page("ab\ncde", &r)?;
        assert_eq!(p.content, "ab");
        assert_eq!(
            p.footer,
            "\n\n[Showing lines 1-1 of 2 (5B limit). Use offset=2 to continue.]"
        );
        Ok(())
    }

    #[test]
    fn first_line_over_max_bytes() -> Result<(), CodingError> {
        let r = ReadRequest {
            max_bytes: 4,
            offset: Some(2),
            ..req()
        };
        let p = page("a\nlonger line\nb", &r)?;
        assert_eq!(
            p.content,
            "[Line 2 exceeds 4B limit. Use the shell tool: sed -n '2p' f.txt | head -c 4]"
        );
        assert!(p.truncation.first_line_exceeds_limit);
        Ok(())
    }

    #[test]
    fn an_overlong_line_after_a_full_page_is_a_line_cut() -> Result<(), CodingError> {
        let r = ReadRequest {
            max_lines: 1,
            max_bytes: 4,
            ..req()
        };
        let p = page("ab\nlong line\n", &r)?;
        assert_eq!(p.truncation.truncated_by, Some("lines"));
        assert_eq!(
            p.footer,
            "\n\n[Showing lines 1-1 of 3. Use offset=2 to continue.]"
        );
        Ok(())
    }

    #[test]
    fn offset_and_limit_with_more_lines_footer() -> Result<(), CodingError> {
        let r = ReadRequest {
            offset: Some(2),
            limit: Some(2),
            ..req()
        };
        let p = page("1\n2\n3\n4\n5", &r)?;
        assert_eq!(p.content, "2\n3");
        assert_eq!(
            p.footer,
            "\n\n[2 more lines in file. Use offset=4 to continue.]"
        );
        Ok(())
    }

    #[test]
    fn offset_edges() -> Result<(), CodingError> {
        let r = ReadRequest {
            offset: Some(3),
            ..req()
        };
        assert_eq!(page("a\nb\n", &r)?.content, "");
        let r = ReadRequest {
            offset: Some(4),
            ..req()
        };
        assert_eq!(
            page("a\nb\n", &r).err().map(|e| e.to_string()),
            Some("Offset 4 is beyond end of file (3 lines total)".into())
        );
        Ok(())
    }

    #[test]
    fn scan_limit_before_page_and_unknown_total_after() -> Result<(), CodingError> {
        let text = "x\n".repeat(100);
        let r = ReadRequest {
            offset: Some(60),
            max_scan_bytes: 100,
            ..req()
        };
        assert_eq!(
            page(&text, &r).err().map(|e| e.to_string()),
            Some("Text read exceeded 100B scan limit before reaching the requested page".into())
        );
        let r = ReadRequest {
            max_lines: 2,
            max_scan_bytes: 100,
            ..req()
        };
        let p = page(&text, &r)?;
        assert_eq!(
            p.footer,
            "\n\n[Showing lines 1-2. Use offset=3 to continue.]"
        );
        assert!(!p.truncation.total_lines_known);
        assert_eq!(p.scanned_bytes, 100);
        Ok(())
    }

    #[test]
    fn find_text_starts_the_page_or_misses() -> Result<(), CodingError> {
        let find = Some(FindText {
            text: "NEEDLE".into(),
            case_insensitive: true,
        });
        let r = ReadRequest {
            find,
            limit: Some(1),
            ..req()
        };
        let p = page("a\nb needle c\nd", &r)?;
        assert_eq!(p.content, "b needle c");
        assert_eq!(
            p.footer,
            "\n\n[1 more lines in file. Use offset=3 to continue.]"
        );
        let find = Some(FindText {
            text: "NEEDLE".into(),
            case_insensitive: false,
        });
        let r = ReadRequest { find, ..req() };
        assert_eq!(
            page("a\nb needle c\nd", &r).err().map(|e| e.to_string()),
            Some("Could not find \"NEEDLE\" in f.txt.".into())
        );
        Ok(())
    }
}
