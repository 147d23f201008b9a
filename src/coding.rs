//! Node-API glue for the engine's `coding` module: read, write and edit (the shell's runs are
//! `coding_shell.rs`).
//!
//! Each tool call makes one call here after its arguments have passed the engine's checks
//! (`coding_arguments.rs`) and the execution policy has allowed it. The file work runs on
//! libuv's thread pool (`off_thread.rs`), the shell's process work on tokio's blocking pool,
//! never on the JS thread. Expected failures come back as data (`error`), since the tools
//! return error results instead of throwing.

use std::path::PathBuf;

use napi::bindgen_prelude::AsyncTask;
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::args::non_negative;
use crate::errors::NativeError;
use crate::off_thread::{off_thread, OffThread};
use prism_engine::coding::edit::{edit_file, edit_text, Replacement};
use prism_engine::coding::image::sniff_image_mime;
use prism_engine::coding::read::{find_step, page_from_backend, FindStep, PageFacts, TextPage};
use prism_engine::coding::read::{read_path, FindText, ReadOutcome, ReadRequest, Truncation};
use prism_engine::coding::{format_size_js, CodingError};

/// `formatSize(bytes)`: `"<b>B"`, `"<x.x>KB"` or `"<x.x>MB"`, in floating point as the
/// reference computes it; a `TypeError` when `bytes` is not a number.
#[napi(js_name = "codingFormatSize", ts_args_type = "bytes: number")]
pub fn coding_format_size(env: napi::Env, bytes: napi::Unknown<'_>) -> napi::Result<String> {
    let bytes = crate::args::number(&env, &bytes, "bytes")?;
    Ok(format_size_js(bytes))
}

/// Runs `work` on tokio's blocking pool, for work that may last long (a shell run; a task
/// that panicked is `ERR_PRISM_INTERNAL`).
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, NativeError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| NativeError::internal(format!("coding task failed: {e}")))
}

// --- read ----------------------------------------------------------------------------------

/// One read (every bound already validated by the facade).
#[napi(object)]
pub struct CodingReadRequest {
    /// Absolute path.
    pub path: String,
    /// The path as the caller spelt it (for messages).
    pub display_path: String,
    /// 1-based first line.
    pub offset: Option<f64>,
    /// Lines wanted.
    pub limit: Option<f64>,
    /// Line cap of the page.
    pub max_lines: f64,
    /// Byte cap of the page.
    pub max_bytes: f64,
    /// Scan bound.
    pub max_scan_bytes: f64,
    /// Image bound.
    pub max_image_bytes: f64,
    /// Text to find.
    pub find_text: Option<String>,
    /// `findMode === "case-insensitive"`.
    pub case_insensitive: Option<bool>,
    /// The host document reader's `maxInputBytes`, when it has one: a file that is not an
    /// image then comes back whole as `document` (read from the same confined handle), or
    /// as the document-size error.
    pub document_max_bytes: Option<f64>,
}

/// A page's truncation record (the reference's `TruncationResult` without `content`).
#[napi(object)]
pub struct CodingTruncation {
    /// Cut by a cap.
    pub truncated: bool,
    /// `"lines"`, `"bytes"` or null.
    pub truncated_by: Option<String>,
    /// Lines in the file (or output).
    pub total_lines: f64,
    /// Whether `totalLines` is exact.
    pub total_lines_known: bool,
    /// Bytes in the file (or output).
    pub total_bytes: f64,
    /// Whether `totalBytes` is exact.
    pub total_bytes_known: bool,
    /// Lines shown.
    pub output_lines: f64,
    /// Bytes shown.
    pub output_bytes: f64,
    /// Only the end of the last line is shown.
    pub last_line_partial: bool,
    /// The first line alone exceeds `maxBytes`.
    pub first_line_exceeds_limit: bool,
    /// Line cap.
    pub max_lines: f64,
    /// Byte cap.
    pub max_bytes: f64,
}

impl From<Truncation> for CodingTruncation {
    fn from(t: Truncation) -> Self {
        Self {
            truncated: t.truncated,
            truncated_by: t.truncated_by.map(str::to_owned),
            total_lines: t.total_lines as f64,
            total_lines_known: t.total_lines_known,
            total_bytes: t.total_bytes as f64,
            total_bytes_known: t.total_bytes_known,
            output_lines: t.output_lines as f64,
            output_bytes: t.output_bytes as f64,
            last_line_partial: t.last_line_partial,
            first_line_exceeds_limit: t.first_line_exceeds_limit,
            max_lines: t.max_lines as f64,
            max_bytes: t.max_bytes as f64,
        }
    }
}

/// What a read produced: an error message, an image, or a text page.
#[napi(object)]
pub struct CodingReadResult {
    /// The failure message.
    pub error: Option<String>,
    /// The engine's error code.
    pub error_code: Option<String>,
    /// Whether the failure is a missing file (`ENOENT`), as the engine decides it.
    pub missing: Option<bool>,
    /// An image's MIME type.
    pub mime_type: Option<String>,
    /// An image's bytes.
    pub data: Option<Buffer>,
    /// A document's bytes, for the host's document reader (with `documentMaxBytes`).
    pub document: Option<Buffer>,
    /// The page text.
    pub content: Option<String>,
    /// The page footer.
    pub footer: Option<String>,
    /// The page's truncation record.
    pub truncation: Option<CodingTruncation>,
    /// Bytes read.
    pub scanned_bytes: Option<f64>,
    /// `codingReadBatch` only: the execution policy did not allow the read outright (the
    /// tool's own `execute` asks it).
    pub declined: Option<bool>,
}

fn error_fields(e: &CodingError) -> (Option<String>, Option<String>) {
    (Some(e.to_string()), Some(e.code().to_owned()))
}

/// Reads one image or text page off the JS thread; with `beneath` (the root an execution
/// policy approved the read beneath), the file is opened from that root's directory handle.
#[napi(ts_return_type = "Promise<CodingReadResult>")]
pub fn coding_read(
    req: CodingReadRequest,
    beneath: Option<CodingBeneath>,
) -> AsyncTask<OffThread<CodingReadResult>> {
    let path = PathBuf::from(&req.path);
    let engine_req = engine_read_request(req);
    off_thread(move || {
        let outcome = confined(beneath, &path)
            .and_then(|confined| read_path(&path, &engine_req, confined.as_ref()));
        Ok(read_result(outcome))
    })
}

/// What one read gives the facade: the failure (its message, code and whether the file was
/// missing), the image, the text page or the document.
pub(crate) fn read_result(outcome: Result<ReadOutcome, CodingError>) -> CodingReadResult {
    let mut out = empty_read_result();
    match outcome {
        Err(e) => {
            (out.error, out.error_code) = error_fields(&e);
            out.missing = Some(e.is_missing());
        }
        Ok(ReadOutcome::Image { mime_type, data }) => {
            out.mime_type = Some(mime_type.to_owned());
            out.data = Some(data.into());
        }
        Ok(ReadOutcome::Text(page)) => set_page(&mut out, page),
        Ok(ReadOutcome::Document { data }) => out.document = Some(data.into()),
    }
    out
}

/// A call whose arguments were refused: the refusal is its error message (no code, as the
/// tool's own check gives it).
pub(crate) fn refused_read(message: String) -> CodingReadResult {
    let mut out = empty_read_result();
    out.error = Some(message);
    out
}

fn set_page(out: &mut CodingReadResult, page: TextPage) {
    out.content = Some(page.content);
    out.footer = Some(page.footer);
    out.truncation = Some(page.truncation.into());
    out.scanned_bytes = Some(page.scanned_bytes as f64);
}

fn empty_read_result() -> CodingReadResult {
    CodingReadResult {
        error: None,
        error_code: None,
        missing: None,
        mime_type: None,
        data: None,
        document: None,
        content: None,
        footer: None,
        truncation: None,
        scanned_bytes: None,
        declined: None,
    }
}

/// A batch read its execution policy did not allow outright.
pub(crate) fn declined_read() -> CodingReadResult {
    let mut out = empty_read_result();
    out.declined = Some(true);
    out
}

/// The engine's read request for `req` (`codingRead`'s and each call of `codingReadBatch`).
pub(crate) fn engine_read_request(req: CodingReadRequest) -> ReadRequest {
    ReadRequest {
        offset: req.offset.map(non_negative),
        limit: req.limit.map(non_negative),
        max_lines: non_negative(req.max_lines),
        max_bytes: non_negative(req.max_bytes),
        max_scan_bytes: non_negative(req.max_scan_bytes),
        max_image_bytes: non_negative(req.max_image_bytes),
        find: req.find_text.map(|text| FindText {
            text,
            case_insensitive: req.case_insensitive.unwrap_or(false),
        }),
        sniff_images: true,
        document_max_bytes: req.document_max_bytes.map(non_negative),
        display_path: req.display_path,
    }
}

/// The image MIME type of a file whose first bytes are `head`, or null (for host
/// `ReadOperations` backends).
#[napi]
pub fn coding_sniff_image(head: &[u8]) -> Option<String> {
    sniff_image_mime(head).map(str::to_owned)
}

/// One page as a host `ReadOperations.readText` returned it (the reference's
/// `ReadTextResult`; the facade has checked each field's type).
#[napi(object)]
pub struct CodingBackendPage {
    /// The page text.
    pub content: String,
    /// Its first line (1-based).
    pub start_line: f64,
    /// Lines on the page.
    pub output_lines: f64,
    /// More of the file follows.
    pub has_more: bool,
    /// Where the next page starts.
    pub next_offset: Option<f64>,
    /// `"lines"`, `"bytes"` or null.
    pub truncated_by: Option<String>,
    /// The first line alone exceeds `maxBytes`.
    pub first_line_exceeds_limit: bool,
    /// Bytes the backend read.
    pub scanned_bytes: f64,
    /// Lines in the file, when known.
    pub total_lines: Option<f64>,
    /// Bytes in the file, when known.
    pub total_bytes: Option<f64>,
}

fn page_facts(p: CodingBackendPage) -> PageFacts {
    PageFacts {
        content: p.content,
        start_line: non_negative(p.start_line),
        output_lines: non_negative(p.output_lines),
        has_more: p.has_more,
        next_offset: p.next_offset.map(non_negative),
        truncated_by: match p.truncated_by.as_deref() {
            Some("lines") => Some("lines"),
            Some("bytes") => Some("bytes"),
            _ => None,
        },
        first_line_exceeds_limit: p.first_line_exceeds_limit,
        scanned_bytes: non_negative(p.scanned_bytes),
        total_lines: p.total_lines.map(non_negative),
        total_bytes: p.total_bytes.map(non_negative),
    }
}

/// A host backend's page checked against the bounds of `req` and rendered as a local page
/// (content, footer, truncation record). Bounded string work on the calling thread.
#[napi]
pub fn coding_page_from_backend(
    page: CodingBackendPage,
    req: CodingReadRequest,
) -> CodingReadResult {
    let engine_req = engine_read_request(req);
    let mut out = empty_read_result();
    match page_from_backend(&page_facts(page), &engine_req) {
        Ok(page) => set_page(&mut out, page),
        Err(e) => (out.error, out.error_code) = error_fields(&e),
    }
    out
}

/// What one backend page says about `findText`: the line to read from, the offset of the
/// next page to ask for, or why the search ends.
#[napi(object)]
pub struct CodingFindStep {
    /// The first matching line.
    pub hit: Option<f64>,
    /// The next page's offset.
    pub next: Option<f64>,
    /// Why the search ends (not found, scan limit, no progress).
    pub error: Option<String>,
    /// Its `ERR_PRISM_CODING_*` code.
    pub error_code: Option<String>,
}

/// Looks for `req.findText` in `page`, read at `offset` as the `pages`-th page.
#[napi]
pub fn coding_find_step(
    page: CodingBackendPage,
    req: CodingReadRequest,
    offset: f64,
    pages: f64,
) -> CodingFindStep {
    let engine_req = engine_read_request(req);
    let step = find_step(
        &page_facts(page),
        &engine_req,
        non_negative(offset),
        non_negative(pages),
    );
    let mut out = CodingFindStep {
        hit: None,
        next: None,
        error: None,
        error_code: None,
    };
    match step {
        Ok(FindStep::Hit(line)) => out.hit = Some(line as f64),
        Ok(FindStep::Next(offset)) => out.next = Some(offset as f64),
        Err(e) => (out.error, out.error_code) = error_fields(&e),
    }
    out
}

// --- write ---------------------------------------------------------------------------------

/// Why a coding operation failed: the message (the tool result's) and its code.
#[napi(object)]
pub struct CodingFailure {
    /// The message.
    pub message: String,
    /// The `ERR_PRISM_CODING_*` code.
    pub code: String,
}

impl From<&CodingError> for CodingFailure {
    fn from(e: &CodingError) -> Self {
        Self {
            message: e.to_string(),
            code: e.code().to_owned(),
        }
    }
}

/// `<subject> is <size>, exceeds <limit> limit.` for `subject` `"document"` or
/// `"transformedImage"` (sizes in bytes, printed as `codingFormatSize` prints them).
#[napi]
pub fn coding_over_size_limit(subject: String, size: f64, limit: f64) -> String {
    prism_engine::coding::size::over_size_limit(&subject, non_negative(size), non_negative(limit))
}

/// The failure of an image whose `size` exceeds `limit` (`maxImageBytes`), for a host
/// backend's image read.
#[napi]
pub fn coding_image_too_large(size: f64, limit: f64) -> CodingFailure {
    CodingFailure::from(&CodingError::ImageTooLarge {
        size: non_negative(size),
        limit: non_negative(limit),
    })
}

/// The failure of a document whose `size` exceeds the reader's `limit` (`maxInputBytes`),
/// for a host backend's document read.
#[napi]
pub fn coding_document_too_large(size: f64, limit: f64) -> CodingFailure {
    CodingFailure::from(&CodingError::DocumentTooLarge {
        size: non_negative(size),
        limit: non_negative(limit),
    })
}

/// Writes `content` to `path` atomically (mkdir -p, temp file, rename). Resolves to the
/// failure, or null.
#[napi(ts_return_type = "Promise<CodingFailure | null>")]
pub fn coding_write(
    path: String,
    content: String,
    beneath: Option<CodingBeneath>,
) -> AsyncTask<OffThread<Option<CodingFailure>>> {
    off_thread(move || {
        let path = PathBuf::from(path);
        let result = confined(beneath, &path).and_then(|confined| {
            prism_engine::coding::write::write_file(&path, content.as_bytes(), confined.as_ref())
        });
        Ok(result.err().as_ref().map(CodingFailure::from))
    })
}

/// The root an execution policy approved a write or edit beneath (`decision.writeBeneath`):
/// the file is then opened and replaced through that root's directory handle.
#[napi(object)]
pub struct CodingBeneath {
    /// The real path of the trusted root.
    pub root: String,
    /// The real path of the target, beneath `root`.
    pub path: String,
}

/// The confined opener beneath the root a policy approved, when it approved one.
pub(crate) fn confined(
    beneath: Option<CodingBeneath>,
    path: &std::path::Path,
) -> Result<Option<prism_engine::coding::confine::Confined>, prism_engine::coding::CodingError> {
    beneath
        .map(|b| {
            // The policy resolved the path it approved; confine that path, or the tool's own
            // when the policy gave none.
            let target = if b.path.is_empty() {
                path.to_path_buf()
            } else {
                PathBuf::from(b.path)
            };
            prism_engine::coding::confine::Confined::new(std::path::Path::new(&b.root), &target)
        })
        .transpose()
}

// --- edit ----------------------------------------------------------------------------------

/// One replacement.
#[napi(object)]
pub struct CodingReplacement {
    /// The text to find.
    pub old_text: String,
    /// Its replacement.
    pub new_text: String,
}

/// What an edit did, or why it failed.
#[napi(object)]
pub struct CodingEditResult {
    /// The failure message.
    pub error: Option<String>,
    /// The engine's error code.
    pub error_code: Option<String>,
    /// Replacements applied.
    pub replaced: f64,
    /// Fuzzy matching was used.
    pub fuzzy: bool,
    /// Numbered display diff.
    pub diff: String,
    /// Unified diff.
    pub patch: String,
    /// First changed line (1-based).
    pub first_changed_line: f64,
    /// The new file text (`codingEditText` only).
    pub text: Option<String>,
    /// The success text (`Successfully replaced <n> block(s) in <path>.`), empty on failure.
    pub summary: String,
}

/// Applies `edits` to `path` (at most `maxFileBytes`) off the JS thread.
#[napi(ts_return_type = "Promise<CodingEditResult>")]
pub fn coding_edit(
    path: String,
    display_path: String,
    edits: Vec<CodingReplacement>,
    max_file_bytes: f64,
    beneath: Option<CodingBeneath>,
) -> AsyncTask<OffThread<CodingEditResult>> {
    let edits = to_replacements(edits);
    let max = non_negative(max_file_bytes);
    off_thread(move || {
        let path = PathBuf::from(path);
        let outcome = confined(beneath, &path)
            .and_then(|confined| edit_file(&path, &edits, max, &display_path, confined.as_ref()));
        Ok(match outcome {
            Ok(o) => edit_result(o.replaced, o.fuzzy, o.diff, None, &display_path),
            Err(e) => edit_error_result(&e),
        })
    })
}

fn edit_result(
    replaced: usize,
    fuzzy: bool,
    diff: prism_engine::coding::diff::EditDiff,
    text: Option<String>,
    display_path: &str,
) -> CodingEditResult {
    CodingEditResult {
        summary: prism_engine::coding::edit::summary(replaced, display_path, fuzzy),
        error: None,
        error_code: None,
        replaced: replaced as f64,
        fuzzy,
        diff: diff.diff,
        patch: diff.patch,
        first_changed_line: diff.first_changed_line as f64,
        text,
    }
}

fn edit_error_result(e: &CodingError) -> CodingEditResult {
    let (error, error_code) = error_fields(e);
    CodingEditResult {
        error,
        error_code,
        replaced: 0.0,
        fuzzy: false,
        diff: String::new(),
        patch: String::new(),
        first_changed_line: 0.0,
        text: None,
        summary: String::new(),
    }
}

/// Applies `edits` to a whole file's `text` already read by a host backend (BOM and line
/// endings kept); the new file text comes back in `text`. Pure string work on the calling
/// thread, bounded by the edit limits.
#[napi]
pub fn coding_edit_text(
    text: String,
    display_path: String,
    edits: Vec<CodingReplacement>,
) -> CodingEditResult {
    let edits = to_replacements(edits);
    match edit_text(&text, &edits, &display_path) {
        Ok((out, applied)) => edit_result(
            edits.len(),
            applied.fuzzy,
            applied.diff,
            Some(out),
            &display_path,
        ),
        Err(e) => edit_error_result(&e),
    }
}

fn to_replacements(edits: Vec<CodingReplacement>) -> Vec<Replacement> {
    edits
        .into_iter()
        .map(|e| Replacement {
            old_text: e.old_text,
            new_text: e.new_text,
        })
        .collect()
}
