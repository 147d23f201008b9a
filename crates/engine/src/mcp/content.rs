//! MCP content blocks to prism content blocks, within a byte budget (API.md section 8).
//!
//! | MCP block | prism block |
//! |---|---|
//! | `text` | `text`, cut to a UTF-8 boundary |
//! | `image` | `image {mimeType, data}` if its decoded size fits, else dropped |
//! | `audio` | text `[audio content <mime>, <n> bytes]` |
//! | `resource` | text `Resource <uri> (<mime>): <text or [blob <mime>]>` |
//! | `resource_link` | text `Resource link <name>: <uri> — <description> — mime=… — size=…` |
//! | anything else | skipped |

use serde_json::{json, Map, Value};

/// The mapped blocks, whether anything was cut or dropped, and the bytes spent.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedContent {
    /// Prism content blocks.
    pub content: Vec<Value>,
    /// Whether a block was cut or dropped to fit the budget.
    pub truncated: bool,
    /// Bytes of the budget used (text bytes plus decoded image bytes).
    pub bytes_used: u64,
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
#[must_use]
pub fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// [`truncate_utf8`] with a cap as a host language's number: a cap at or above the length
/// (`Infinity` included) keeps everything, a fractional cap counts its whole bytes, and a
/// negative or `NaN` cap keeps nothing.
#[must_use]
pub fn truncate_utf8_to(s: &str, max: f64) -> &str {
    if max >= s.len() as f64 {
        return s;
    }
    if max.is_nan() || max <= 0.0 {
        return "";
    }
    truncate_utf8(s, max.floor() as usize)
}

/// Decoded size of a base64 string, from its length and padding.
#[must_use]
pub fn base64_decoded_len(data: &str) -> u64 {
    let trimmed = data.trim_end_matches('=');
    (trimmed.len() as u64 * 3) / 4
}

fn str_field<'a>(block: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    block.get(key).and_then(Value::as_str)
}

/// The text a non-text block turns into (`None` for `text`, `image` and unknown types).
fn block_as_text(kind: &str, block: &Map<String, Value>) -> Option<String> {
    match kind {
        "audio" => {
            let mime = str_field(block, "mimeType").unwrap_or("application/octet-stream");
            let n = str_field(block, "data").map_or(0, base64_decoded_len);
            Some(format!("[audio content {mime}, {n} bytes]"))
        }
        "resource" => {
            let res = block.get("resource").and_then(Value::as_object)?;
            let uri = str_field(res, "uri").unwrap_or("");
            let mime = str_field(res, "mimeType");
            let body = match (str_field(res, "text"), res.contains_key("blob")) {
                (Some(text), _) => text.to_owned(),
                (None, true) => format!("[blob {}]", mime.unwrap_or("application/octet-stream")),
                (None, false) => String::new(),
            };
            Some(match mime {
                Some(m) => format!("Resource {uri} ({m}): {body}"),
                None => format!("Resource {uri}: {body}"),
            })
        }
        "resource_link" => {
            let name = str_field(block, "name").unwrap_or("");
            let uri = str_field(block, "uri").unwrap_or("");
            let mut parts = vec![format!("Resource link {name}: {uri}")];
            if let Some(d) = str_field(block, "description") {
                parts.push(d.to_owned());
            }
            if let Some(m) = str_field(block, "mimeType") {
                parts.push(format!("mime={m}"));
            }
            if let Some(size) = block.get("size").filter(|v| v.is_number()) {
                parts.push(format!("size={size}"));
            }
            Some(parts.join(" — "))
        }
        _ => None,
    }
}

/// Maps `content` (the `content` array of a call result) within `max_bytes`.
#[must_use]
pub fn map_content(content: &[Value], max_bytes: u64) -> MappedContent {
    let mut out = MappedContent {
        content: Vec::new(),
        truncated: false,
        bytes_used: 0,
    };
    for block in content {
        let Some(block) = block.as_object() else {
            continue;
        };
        let kind = str_field(block, "type").unwrap_or("");
        let remaining = max_bytes.saturating_sub(out.bytes_used);
        if kind == "image" {
            let data = str_field(block, "data").unwrap_or("");
            let size = base64_decoded_len(data);
            if size > remaining {
                out.truncated = true;
                continue;
            }
            let mut image = Map::new();
            image.insert("type".into(), json!("image"));
            if let Some(m) = block.get("mimeType") {
                image.insert("mimeType".into(), m.clone());
            }
            image.insert("data".into(), json!(data));
            out.content.push(Value::Object(image));
            out.bytes_used += size;
            continue;
        }
        let text = match kind {
            "text" => str_field(block, "text").unwrap_or("").to_owned(),
            _ => match block_as_text(kind, block) {
                Some(t) => t,
                None => continue,
            },
        };
        if remaining == 0 && !text.is_empty() {
            out.truncated = true;
            continue;
        }
        let cut = truncate_utf8(&text, usize::try_from(remaining).unwrap_or(usize::MAX));
        if cut.len() < text.len() {
            out.truncated = true;
        }
        out.bytes_used += cut.len() as u64;
        out.content.push(json!({"type": "text", "text": cut}));
    }
    out
}

/// A plain-text summary of `content` (an `isError` result's message), at most `max_bytes`.
#[must_use]
pub fn summarize_content(content: &[Value], max_bytes: u64) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in content.iter().filter_map(Value::as_object) {
        let kind = str_field(block, "type").unwrap_or("");
        match kind {
            "text" => parts.push(str_field(block, "text").unwrap_or("").to_owned()),
            "image" => parts.push(format!(
                "[image {}]",
                str_field(block, "mimeType").unwrap_or("application/octet-stream")
            )),
            _ => parts.extend(block_as_text(kind, block)),
        }
    }
    let joined = parts.join("\n");
    truncate_utf8(&joined, usize::try_from(max_bytes).unwrap_or(usize::MAX)).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numeric_cap_reads_as_javascript_compares_it() {
        assert_eq!(truncate_utf8_to("héllo", f64::INFINITY), "héllo");
        assert_eq!(truncate_utf8_to("héllo", 6.0), "héllo");
        assert_eq!(truncate_utf8_to("héllo", 2.9), "h");
        assert_eq!(truncate_utf8_to("héllo", 3.0), "hé");
        assert_eq!(truncate_utf8_to("héllo", -1.0), "");
        assert_eq!(truncate_utf8_to("héllo", f64::NAN), "");
        assert_eq!(truncate_utf8_to("", f64::NAN), "");
    }

    #[test]
    fn maps_every_block_kind() {
        let content = vec![
            json!({"type": "text", "text": "hi"}),
            json!({"type": "image", "mimeType": "image/png", "data": "AAAA"}),
            json!({"type": "audio", "mimeType": "audio/wav", "data": "AAAAAA=="}),
            json!({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "body"}}),
            json!({"type": "resource", "resource": {"uri": "file:///b", "blob": "AA=="}}),
            json!({"type": "resource_link", "name": "n", "uri": "file:///c", "description": "d", "mimeType": "text/x", "size": 7}),
            json!({"type": "mystery"}),
        ];
        let m = map_content(&content, 10_000);
        assert_eq!(
            m.content,
            vec![
                json!({"type": "text", "text": "hi"}),
                json!({"type": "image", "mimeType": "image/png", "data": "AAAA"}),
                json!({"type": "text", "text": "[audio content audio/wav, 4 bytes]"}),
                json!({"type": "text", "text": "Resource file:///a (text/plain): body"}),
                json!({"type": "text", "text": "Resource file:///b: [blob application/octet-stream]"}),
                json!({"type": "text", "text": "Resource link n: file:///c — d — mime=text/x — size=7"}),
            ]
        );
        assert!(!m.truncated);
    }

    #[test]
    fn cuts_text_on_a_char_boundary_and_drops_images_that_do_not_fit() {
        let content = vec![
            json!({"type": "text", "text": "aé"}), // 3 bytes
            json!({"type": "image", "mimeType": "image/png", "data": "AAAA"}),
        ];
        let m = map_content(&content, 2);
        assert_eq!(m.content, vec![json!({"type": "text", "text": "a"})]);
        assert!(m.truncated);
        assert_eq!(m.bytes_used, 1);
        let exact = map_content(&content[..1], 3);
        assert!(!exact.truncated);
        assert_eq!(exact.bytes_used, 3);
    }

    #[test]
    fn summary_is_bounded() {
        let content = vec![
            json!({"type": "text", "text": "boom"}),
            json!({"type": "text", "text": "again"}),
        ];
        assert_eq!(summarize_content(&content, 100), "boom\nagain");
        assert_eq!(summarize_content(&content, 3), "boo");
    }
}
