//! The read tool's file operation: a bounded image, or one streamed text page.
//!
//! The file is read in [`STREAM_CHUNK_BYTES`] chunks and never held whole: lines before the
//! page are only counted, the page is kept up to its line cap (`limit`, else `maxLines`) and
//! `maxBytes`, and reading stops with the chunk that completes the page, so a one-line page of
//! a huge file scans one chunk. The lines after the page are counted only within that chunk:
//! the footer says "of T" when the whole file was scanned.
//!
//! A host backend (`ReadOperations.readText`) returns the same page facts ([`PageFacts`]);
//! [`page_from_backend`] checks them against the bounds asked for and renders them with the
//! same footer, and [`find_step`] pages a backend through `findText`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::coding::confine::Confined;
use crate::coding::error::CodingError;
use crate::coding::fsio::{open_regular, read_bounded};
use crate::coding::image::sniff_image_mime;
use crate::coding::size::format_size;
use crate::limits::{FIND_TEXT_MAX_PAGES, IMAGE_SNIFF_BYTES, STREAM_CHUNK_BYTES};

/// How to look for `findText`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindText {
    /// The text to find (non-empty).
    pub text: String,
    /// Compare lower-cased.
    pub case_insensitive: bool,
}

impl FindText {
    /// The needle as compared (lower-cased when case-insensitive).
    fn needle(&self) -> Vec<u8> {
        if self.case_insensitive {
            self.text.to_lowercase().into_bytes()
        } else {
            self.text.clone().into_bytes()
        }
    }

    /// Whether `line` contains the needle.
    fn matches(&self, needle: &[u8], line: &[u8]) -> bool {
        if self.case_insensitive {
            let lower = String::from_utf8_lossy(line).to_lowercase();
            memchr::memmem::find(lower.as_bytes(), needle).is_some()
        } else {
            memchr::memmem::find(line, needle).is_some()
        }
    }

    fn not_found(&self, path: &str) -> CodingError {
        CodingError::TextNotFound {
            find_json: serde_json::to_string(&self.text).unwrap_or_default(),
            path: path.to_owned(),
        }
    }
}

/// One read, with every bound already resolved by the caller.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    /// The 1-based first line (default 1).
    pub offset: Option<u64>,
    /// At most this many lines (the caller's `limit`; it replaces `maxLines` as the page's
    /// line cap).
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
    /// With a host document reader, its `maxInputBytes`: a file that is not an image is then
    /// returned whole, as [`ReadOutcome::Document`], from the same confined handle.
    pub document_max_bytes: Option<u64>,
    /// The path as the caller spelt it, for messages.
    pub display_path: String,
}

impl ReadRequest {
    /// The page's line cap: `limit`, else `maxLines`.
    fn target_lines(&self) -> u64 {
        self.limit.unwrap_or(self.max_lines)
    }
}

/// How a text page was cut, as the reference's `TruncationResult` (without `content`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Truncation {
    /// The page was cut by a cap.
    pub truncated: bool,
    /// `"lines"`, `"bytes"` or `None`.
    pub truncated_by: Option<&'static str>,
    /// Lines in the file when known; otherwise the last line shown, plus one when more follow.
    pub total_lines: u64,
    /// Whether `total_lines` is exact.
    pub total_lines_known: bool,
    /// Bytes in the file (when known; otherwise bytes scanned).
    pub total_bytes: u64,
    /// Whether `total_bytes` is exact.
    pub total_bytes_known: bool,
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
    /// What follows the content in the tool's text: `"\n\n[Showing lines …]"` and so on, the
    /// whole text (`"[Line N exceeds …]"`) when the first line does not fit, or empty.
    pub footer: String,
    /// How the page was cut.
    pub truncation: Truncation,
    /// Bytes read from the file.
    pub scanned_bytes: u64,
}

/// What one page read found, before it is rendered: the shape of the reference's
/// `ReadTextResult`, which host backends return.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageFacts {
    /// The page text.
    pub content: String,
    /// Its first line (1-based).
    pub start_line: u64,
    /// Lines on the page.
    pub output_lines: u64,
    /// More of the file follows the page.
    pub has_more: bool,
    /// Where the next page starts, when more follows.
    pub next_offset: Option<u64>,
    /// `"lines"`, `"bytes"` or `None`.
    pub truncated_by: Option<&'static str>,
    /// The first line alone exceeds `maxBytes` (the content is then empty).
    pub first_line_exceeds_limit: bool,
    /// Bytes read to make the page.
    pub scanned_bytes: u64,
    /// Lines in the file, when known.
    pub total_lines: Option<u64>,
    /// Bytes in the file, when known.
    pub total_bytes: Option<u64>,
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
    /// The whole file, for the host's document reader (`document_max_bytes`).
    Document {
        /// Its bytes (at most `document_max_bytes`).
        data: Vec<u8>,
    },
}

/// Reads `path` as `req` says: an image (stat-checked before it is read, re-checked after) or
/// a text page. With `confined`, the file is opened beneath the root the execution policy
/// approved, from that root's directory handle. Only a regular file is read: a FIFO, socket
/// or device is refused before any read (it is opened non-blocking to look).
///
/// # Errors
/// [`CodingError::Io`], [`CodingError::PathEscape`], [`CodingError::NotRegularFile`],
/// [`CodingError::ImageTooLarge`], [`CodingError::OffsetBeyondEnd`],
/// [`CodingError::ScanLimit`], [`CodingError::FindScanLimit`], [`CodingError::TextNotFound`].
pub fn read_path(
    path: &Path,
    req: &ReadRequest,
    confined: Option<&Confined>,
) -> Result<ReadOutcome, CodingError> {
    let (mut file, size) = open_regular(path, confined, "read", &req.display_path)?;
    let mut head = Vec::with_capacity(IMAGE_SNIFF_BYTES);
    if req.sniff_images {
        (&mut file)
            .take(IMAGE_SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|e| CodingError::io(&e, "read", path))?;
        if let Some(mime_type) = sniff_image_mime(&head) {
            return read_image(file, head, size, mime_type, req.max_image_bytes, path);
        }
    }
    if let Some(limit) = req.document_max_bytes {
        return read_document(file, head, size, limit, path);
    }
    read_text_page(head.as_slice().chain(file), size, req).map(ReadOutcome::Text)
}

/// The rest of an image after its sniffed `head`, bounded by `limit` (`maxImageBytes`).
fn read_image(
    file: File,
    head: Vec<u8>,
    size: u64,
    mime_type: &'static str,
    limit: u64,
    path: &Path,
) -> Result<ReadOutcome, CodingError> {
    let too_large = |size, limit| CodingError::ImageTooLarge { size, limit };
    let data = read_whole(file, head, size, limit, path, too_large)?;
    Ok(ReadOutcome::Image { mime_type, data })
}

/// The rest of a document after its sniffed `head`, bounded by the reader's `maxInputBytes`.
fn read_document(
    file: File,
    head: Vec<u8>,
    size: u64,
    limit: u64,
    path: &Path,
) -> Result<ReadOutcome, CodingError> {
    let too_large = |size, limit| CodingError::DocumentTooLarge { size, limit };
    let data = read_whole(file, head, size, limit, path, too_large)?;
    Ok(ReadOutcome::Document { data })
}

/// `head` and the rest of `file`, bounded by `limit` before reading (the size on the handle)
/// and after (a file that grew meanwhile is still seen as too large).
fn read_whole(
    mut file: File,
    mut head: Vec<u8>,
    size: u64,
    limit: u64,
    path: &Path,
    too_large: impl Fn(u64, u64) -> CodingError,
) -> Result<Vec<u8>, CodingError> {
    if size > limit {
        return Err(too_large(size, limit));
    }
    let rest_limit = limit.saturating_sub(head.len() as u64);
    let rest_expected = size.saturating_sub(head.len() as u64);
    let rest = read_bounded(&mut file, rest_limit, rest_expected, path)?;
    head.extend_from_slice(&rest);
    let read = head.len() as u64;
    if read > limit {
        return Err(too_large(read, limit));
    }
    Ok(head)
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
    /// The page is full by lines: counting the LFs left in the current chunk, then stopping.
    Count,
    /// The page ended on a line that does not fit `maxBytes`: stop at once.
    Stop,
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
    /// Bytes the page costs against `maxBytes`: each kept line with its LF.
    retained: u64,
    /// Lines on the page.
    page_lines: u64,
    truncated_by: Option<&'static str>,
    first_line_exceeds: bool,
    /// `findText` as compared.
    needle: Option<Vec<u8>>,
}

impl<'a> Scanner<'a> {
    fn new(req: &'a ReadRequest) -> Self {
        let start = req.offset.unwrap_or(1).saturating_sub(1);
        let needle = req.find.as_ref().map(FindText::needle);
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
            retained: 0,
            page_lines: 0,
            truncated_by: None,
            first_line_exceeds: false,
            needle,
        }
    }

    /// Whether reading can stop.
    fn done(&self) -> bool {
        matches!(self.phase, Phase::Count | Phase::Stop)
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
                Phase::Stop => &[],
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
            self.start_page_here(true);
        } else {
            self.current.clear();
        }
        self.line += 1;
        rest
    }

    /// The current line matched `findText`: the page starts with it.
    fn start_page_here(&mut self, ended: bool) {
        self.start = self.line;
        self.phase = Phase::Collect;
        let line = std::mem::take(&mut self.current);
        self.complete_line(&line, ended);
    }

    fn current_matches(&self) -> bool {
        match (&self.needle, &self.req.find) {
            (Some(needle), Some(find)) => find.matches(needle, &self.current),
            _ => false,
        }
    }

    fn collect<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        let (part, rest, ended) = split_line(chunk);
        self.current.extend_from_slice(part);
        if self.retained + self.current.len() as u64 > self.req.max_bytes {
            // The line cannot fit, with or without the rest of it: the page ends before it.
            self.current = Vec::new();
            self.cut_by_bytes();
            return &[];
        }
        if !ended {
            return rest;
        }
        let line = std::mem::take(&mut self.current);
        self.complete_line(&line, true);
        self.line += 1;
        rest
    }

    fn cut_by_bytes(&mut self) {
        self.first_line_exceeds = self.page_lines == 0;
        self.truncated_by = Some("bytes");
        self.phase = Phase::Stop;
    }

    /// One whole line of the page: `ended` when an LF closed it (it then costs one byte more),
    /// not at the end of the file.
    fn complete_line(&mut self, line: &[u8], ended: bool) {
        let cost = line.len() as u64 + u64::from(ended);
        if self.retained + cost > self.req.max_bytes {
            self.cut_by_bytes();
            return;
        }
        if self.page_lines > 0 {
            self.page.push(b'\n');
        }
        self.page.extend_from_slice(line);
        self.retained += cost;
        self.page_lines += 1;
        if ended && self.page_lines >= self.req.target_lines() {
            if self.req.limit.is_none() {
                self.truncated_by = Some("lines");
            }
            self.phase = Phase::Count;
        }
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
                    self.start_page_here(false);
                    return Ok(());
                }
                let path = &self.req.display_path;
                Err(match &self.req.find {
                    Some(f) => f.not_found(path),
                    None => CodingError::TextNotFound {
                        find_json: "\"\"".into(),
                        path: path.clone(),
                    },
                })
            }
            Phase::Collect => {
                let line = std::mem::take(&mut self.current);
                self.complete_line(&line, false);
                Ok(())
            }
            Phase::Count | Phase::Stop => Ok(()),
        }
    }

    /// The facts of the finished page; `eof` when the whole file was read.
    fn facts(self, eof: bool, total_bytes: u64, scanned: u64) -> PageFacts {
        let has_more = !eof || self.phase != Phase::Collect;
        let whole_file = eof || scanned >= total_bytes;
        let total_lines = match self.phase {
            Phase::Stop => None,
            _ if whole_file => Some(self.line + 1),
            _ => None,
        };
        PageFacts {
            content: if self.first_line_exceeds {
                String::new()
            } else {
                String::from_utf8_lossy(&self.page).into_owned()
            },
            start_line: self.start + 1,
            output_lines: self.page_lines,
            has_more,
            next_offset: has_more.then_some(self.start + 1 + self.page_lines),
            truncated_by: self.truncated_by,
            first_line_exceeds_limit: self.first_line_exceeds,
            scanned_bytes: scanned,
            total_lines,
            total_bytes: Some(if eof { scanned } else { total_bytes }),
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
/// [`CodingError::FindScanLimit`], [`CodingError::TextNotFound`].
pub fn read_text_page<R: Read>(
    mut input: R,
    total_bytes: u64,
    req: &ReadRequest,
) -> Result<TextPage, CodingError> {
    let mut scanner = Scanner::new(req);
    let mut buf = vec![0u8; STREAM_CHUNK_BYTES];
    let mut scanned: u64 = 0;
    let mut eof = false;
    while scanned < req.max_scan_bytes && !scanner.done() {
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
    if !eof && !scanner.done() {
        // The bound was reached: the file may still end exactly here.
        let mut probe = [0u8; 1];
        eof = matches!(input.read(&mut probe), Ok(0));
        if !eof {
            return Err(if scanner.phase == Phase::Find {
                CodingError::FindScanLimit {
                    limit: req.max_scan_bytes,
                }
            } else {
                CodingError::ScanLimit {
                    limit: req.max_scan_bytes,
                }
            });
        }
    }
    if eof {
        scanner.finish_at_eof()?;
    }
    Ok(render(&scanner.facts(eof, total_bytes, scanned), req))
}

/// The page as the tool shows it: its text, the footer and the truncation record, from the
/// facts of a local read or of a host backend.
#[must_use]
pub fn render(f: &PageFacts, req: &ReadRequest) -> TextPage {
    let start = f.start_line;
    let output_bytes = f.content.len() as u64;
    let truncation = Truncation {
        truncated: f.truncated_by.is_some(),
        truncated_by: f.truncated_by,
        total_lines: f
            .total_lines
            .unwrap_or_else(|| (start + f.output_lines + u64::from(f.has_more)).saturating_sub(1)),
        total_lines_known: f.total_lines.is_some(),
        total_bytes: f.total_bytes.unwrap_or(f.scanned_bytes),
        total_bytes_known: f.total_bytes.is_some(),
        output_lines: f.output_lines,
        output_bytes,
        last_line_partial: false,
        first_line_exceeds_limit: f.first_line_exceeds_limit,
        max_lines: req.max_lines,
        max_bytes: req.max_bytes,
    };
    let limit_note = if f.truncated_by == Some("bytes") {
        format!(" ({} limit)", format_size(req.max_bytes))
    } else {
        String::new()
    };
    let footer = match (f.first_line_exceeds_limit, f.has_more, f.next_offset) {
        (true, _, _) => format!(
            "[Line {start} exceeds {} limit. Use the shell tool: sed -n '{start}p' {} | head -c {}]",
            format_size(req.max_bytes),
            req.display_path,
            req.max_bytes
        ),
        (false, true, Some(next)) => {
            let end = (start + f.output_lines).saturating_sub(1);
            match f.total_lines {
                Some(total) if f.truncated_by.is_some() => format!(
                    "\n\n[Showing lines {start}-{end} of {total}{limit_note}. Use offset={next} to continue.]"
                ),
                Some(total) => format!(
                    "\n\n[{} more lines in file. Use offset={next} to continue.]",
                    total.saturating_sub(end)
                ),
                None => format!(
                    "\n\n[Showing lines {start}-{end}{limit_note}. Use offset={next} to continue.]"
                ),
            }
        }
        _ => String::new(),
    };
    TextPage {
        content: f.content.clone(),
        footer,
        truncation,
        scanned_bytes: f.scanned_bytes,
    }
}

/// A host backend's page checked against the bounds it was asked for, then rendered as a
/// local page would be.
///
/// # Errors
/// [`CodingError::Backend`] when its text is over `maxBytes` or it has more lines than the
/// page's line cap.
pub fn page_from_backend(f: &PageFacts, req: &ReadRequest) -> Result<TextPage, CodingError> {
    if f.content.len() as u64 > req.max_bytes || f.output_lines > req.target_lines() {
        return Err(CodingError::Backend {
            message: "ReadOperations.readText returned data beyond the requested bounds".into(),
        });
    }
    Ok(render(f, req))
}

/// What one backend page says about `findText`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindStep {
    /// The first matching line (1-based): read the page from there.
    Hit(u64),
    /// No match yet: ask for the page at this offset.
    Next(u64),
}

/// Looks for `findText` in one backend page read at `offset` (the `pages`-th page asked
/// for, from 1). Lines of a page whose first line did not fit are not searched.
///
/// # Errors
/// [`CodingError::TextNotFound`] at the end of the file, [`CodingError::FindScanLimit`]
/// once the backend has scanned `maxScanBytes`, [`CodingError::Backend`] when the backend
/// does not advance or pages go past [`FIND_TEXT_MAX_PAGES`].
pub fn find_step(
    f: &PageFacts,
    req: &ReadRequest,
    offset: u64,
    pages: u64,
) -> Result<FindStep, CodingError> {
    let Some(find) = &req.find else {
        return Ok(FindStep::Hit(offset));
    };
    if !f.first_line_exceeds_limit && !f.content.is_empty() {
        let needle = find.needle();
        for (i, line) in f.content.split('\n').enumerate() {
            if find.matches(&needle, line.as_bytes()) {
                return Ok(FindStep::Hit(f.start_line + i as u64));
            }
        }
    }
    let next = match f.next_offset {
        Some(n) if f.has_more => n,
        _ => return Err(find.not_found(&req.display_path)),
    };
    if f.scanned_bytes >= req.max_scan_bytes {
        return Err(CodingError::FindScanLimit {
            limit: req.max_scan_bytes,
        });
    }
    if next <= offset {
        return Err(CodingError::Backend {
            message: format!("findText could not advance past line {offset}"),
        });
    }
    if pages >= FIND_TEXT_MAX_PAGES {
        return Err(CodingError::Backend {
            message: "findText exceeded iteration guard".into(),
        });
    }
    Ok(FindStep::Next(next))
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
            document_max_bytes: None,
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
            "\n\n[Showing lines 1-1 (5B limit). Use offset=2 to continue.]"
        );
        // Each kept line costs its LF too.
        let p = page("ab\ncd\n", &r)?;
        assert_eq!(p.content, "ab");
        assert_eq!(p.truncation.truncated_by, Some("bytes"));
        assert!(!p.truncation.total_lines_known);
        Ok(())
    }

    #[test]
    fn a_page_stops_reading_at_the_chunk_that_completes_it() -> Result<(), CodingError> {
        let r = ReadRequest {
            limit: Some(1),
            ..req()
        };
        let endless = b"first\nsecond\n".chain(std::io::repeat(0));
        let p = read_text_page(endless, 4 << 30, &r)?;
        assert_eq!(p.content, "first");
        assert_eq!(
            p.footer,
            "\n\n[Showing lines 1-1. Use offset=2 to continue.]"
        );
        assert!(p.scanned_bytes <= STREAM_CHUNK_BYTES as u64);
        assert!(!p.truncation.total_lines_known);
        assert_eq!(p.truncation.total_lines, 2);
        assert_eq!(p.truncation.total_bytes, 4 << 30);
        Ok(())
    }

    #[test]
    fn limit_replaces_max_lines_as_the_line_cap() -> Result<(), CodingError> {
        let r = ReadRequest {
            limit: Some(3),
            max_lines: 2,
            ..req()
        };
        let p = page("1\n2\n3\n4\n", &r)?;
        assert_eq!(p.content, "1\n2\n3");
        assert_eq!(p.truncation.truncated_by, None);
        assert_eq!(
            p.footer,
            "\n\n[2 more lines in file. Use offset=4 to continue.]"
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
        assert_eq!(p.content, "");
        assert_eq!(
            p.footer,
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

    #[test]
    fn find_text_past_the_scan_bound_names_find_text() {
        let text = "x\n".repeat(100);
        let r = ReadRequest {
            find: Some(FindText {
                text: "y".into(),
                case_insensitive: false,
            }),
            max_scan_bytes: 50,
            ..req()
        };
        assert_eq!(
            page(&text, &r).err().map(|e| e.to_string()),
            Some("findText did not match within 50B scan limit".into())
        );
    }

    fn facts(content: &str, start: u64, lines: u64, next: Option<u64>) -> PageFacts {
        PageFacts {
            content: content.into(),
            start_line: start,
            output_lines: lines,
            has_more: next.is_some(),
            next_offset: next,
            scanned_bytes: 10,
            ..PageFacts::default()
        }
    }

    #[test]
    fn backend_pages_are_held_to_the_bounds_asked_for() -> Result<(), CodingError> {
        let r = ReadRequest {
            max_bytes: 4,
            max_lines: 2,
            ..req()
        };
        let over = "ReadOperations.readText returned data beyond the requested bounds";
        let e = page_from_backend(&facts("abcde", 1, 1, None), &r).err();
        assert_eq!(e.map(|e| e.to_string()), Some(over.into()));
        let e = page_from_backend(&facts("a\nb\nc", 1, 3, None), &r).err();
        assert_eq!(e.map(|e| e.to_string()), Some(over.into()));
        let p = page_from_backend(&facts("a\nb", 3, 2, Some(5)), &r)?;
        assert_eq!(
            p.footer,
            "\n\n[Showing lines 3-4. Use offset=5 to continue.]"
        );
        assert_eq!(p.truncation.total_lines, 5);
        Ok(())
    }

    #[test]
    fn find_steps_through_backend_pages() {
        let r = ReadRequest {
            find: Some(FindText {
                text: "NEEDLE".into(),
                case_insensitive: false,
            }),
            max_scan_bytes: 50,
            ..req()
        };
        assert_eq!(
            find_step(&facts("a\nb", 1, 2, Some(3)), &r, 1, 1).ok(),
            Some(FindStep::Next(3))
        );
        assert_eq!(
            find_step(&facts("c\nd NEEDLE", 3, 2, Some(5)), &r, 3, 2).ok(),
            Some(FindStep::Hit(4))
        );
        let msg =
            |f: PageFacts, offset, n| find_step(&f, &r, offset, n).err().map(|e| e.to_string());
        assert_eq!(
            msg(facts("e", 5, 1, None), 5, 3),
            Some("Could not find \"NEEDLE\" in f.txt.".into())
        );
        let mut scanned = facts("e", 5, 1, Some(6));
        scanned.scanned_bytes = 50;
        assert_eq!(
            msg(scanned, 5, 3),
            Some("findText did not match within 50B scan limit".into())
        );
        assert_eq!(
            msg(facts("e", 5, 1, Some(5)), 5, 3),
            Some("findText could not advance past line 5".into())
        );
        assert_eq!(
            msg(facts("e", 5, 1, Some(6)), 5, FIND_TEXT_MAX_PAGES),
            Some("findText exceeded iteration guard".into())
        );
    }

    #[test]
    fn a_document_is_read_whole_within_its_bound() -> Result<(), CodingError> {
        let dir = std::env::temp_dir().join(format!("prism-read-doc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| CodingError::io(&e, "mkdir", &dir))?;
        let doc = dir.join("a.pdf");
        std::fs::write(&doc, b"%PDF-1.7 body").map_err(|e| CodingError::io(&e, "write", &doc))?;
        let at = |limit| ReadRequest {
            sniff_images: true,
            document_max_bytes: Some(limit),
            ..req()
        };
        let whole = read_path(&doc, &at(13), None)?;
        assert_eq!(
            whole,
            ReadOutcome::Document {
                data: b"%PDF-1.7 body".to_vec()
            }
        );
        let over = read_path(&doc, &at(12), None).err();
        assert_eq!(
            over,
            Some(CodingError::DocumentTooLarge {
                size: 13,
                limit: 12
            })
        );
        assert_eq!(
            over.map(|e| e.to_string()),
            Some("Document is 13B, exceeds 12B limit.".into())
        );
        // An image is still an image, and without a reader the file is a text page.
        let png = dir.join("a.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR....")
            .map_err(|e| CodingError::io(&e, "write", &png))?;
        assert!(matches!(
            read_path(&png, &at(1), None)?,
            ReadOutcome::Image { .. }
        ));
        let text = ReadRequest {
            sniff_images: true,
            ..req()
        };
        assert!(matches!(
            read_path(&doc, &text, None)?,
            ReadOutcome::Text(_)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
