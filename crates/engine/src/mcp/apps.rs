//! MCP Apps (the `io.modelcontextprotocol/ui` extension): which tools the model sees and which
//! only an app may call, the `ui://` HTML resources with their CSP and permission metadata,
//! each bounded by the bridge's limits and refused closed when malformed.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::capability::{parse_incoming, CapabilityError, Incoming};
use super::measure::{measure_bounded_json, JsonBound, JsonBounds};
use super::McpLimits;

pub use super::capability::MCP_APPS_EXTENSION;
/// The MIME type of an app's HTML resource.
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";
use crate::limits::{
    MCP_APP_MAX_CSP_ORIGINS as MAX_CSP_ORIGINS,
    MCP_APP_MAX_CSP_ORIGIN_BYTES as MAX_CSP_ORIGIN_BYTES,
    MCP_APP_MAX_DOMAIN_BYTES as MAX_DOMAIN_BYTES, MCP_APP_MAX_UI_URI_BYTES as MAX_UI_URI_BYTES,
};
/// The refusal of MCP Apps without the server's acknowledgement (also the facade's word).
pub const NOT_NEGOTIATED: &str = "MCP Apps extension was not negotiated";

/// Everything MCP Apps refuses, with the reference's messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AppsError {
    /// The server did not acknowledge the extension.
    #[error("{NOT_NEGOTIATED}")]
    NotNegotiated,
    /// A `ui://` URI that does not parse or is not a plain `ui://host/...`.
    #[error("{label} is invalid")]
    InvalidUri {
        /// Which URI.
        label: String,
    },
    /// Metadata (`_meta.ui`) of the wrong shape; `what` names the field.
    #[error("{label} has invalid MCP Apps {what}")]
    InvalidMeta {
        /// Whose metadata.
        label: String,
        /// Which field.
        what: &'static str,
    },
    /// A CSP origin that is not a bare `https:` (or, to connect, `wss:`) origin.
    #[error("MCP Apps CSP origin is invalid")]
    InvalidCspOrigin,
    /// A JSON bound broken.
    #[error("{label} {bound}")]
    Bound {
        /// What was measured.
        label: String,
        /// Which bound broke.
        bound: JsonBound,
    },
    /// A name or cursor longer than its limit.
    #[error("{label} exceeds {limit} bytes")]
    TooLong {
        /// What was measured.
        label: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A resource description that is not a string.
    #[error("MCP App resource description is invalid")]
    InvalidDescription,
    /// More app resources than `maxTools`.
    #[error("MCP Apps resources/list exceeds configured item limit")]
    TooManyItems,
    /// More pages than `maxListPages`.
    #[error("MCP Apps resources/list exceeds {limit} pages")]
    TooManyPages {
        /// `maxListPages`.
        limit: u64,
    },
    /// A cursor sent twice.
    #[error("MCP Apps resources/list repeated a pagination cursor")]
    RepeatedCursor,
    /// A listing page or read result not shaped as the protocol says.
    #[error("MCP Apps {what} is invalid")]
    InvalidPage {
        /// Which.
        what: &'static str,
    },
    /// No app tool names this tool (app-visible) or this resource.
    #[error("MCP App {what} is unavailable")]
    Unavailable {
        /// `tool` or `resource`.
        what: &'static str,
    },
    /// The read content is not declared as the app's HTML.
    #[error("MCP App resource must be declared HTML")]
    NotDeclaredHtml,
    /// The read content has no body or two.
    #[error("MCP App resource requires one HTML body")]
    NotOneBody,
    /// The body is larger than `maxResultBytes` or not an HTML5 document.
    #[error("MCP App resource is not bounded HTML5")]
    NotHtml5,
    /// A `blob` body that is not base64 of UTF-8.
    #[error("MCP App HTML blob is invalid")]
    InvalidBlob,
}

impl AppsError {
    /// The stable error code (`err.code` in JavaScript).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotNegotiated => "ERR_PRISM_MCP_APPS_NOT_NEGOTIATED",
            Self::Bound { .. } => "ERR_PRISM_MCP_JSON_BOUND",
            Self::TooLong { .. } => "ERR_PRISM_MCP_TOO_LARGE",
            Self::TooManyItems => "ERR_PRISM_MCP_TOO_MANY_ITEMS",
            Self::TooManyPages { .. } => "ERR_PRISM_MCP_TOO_MANY_PAGES",
            Self::RepeatedCursor => "ERR_PRISM_MCP_REPEATED_CURSOR",
            Self::Unavailable { .. } => "ERR_PRISM_MCP_APP_UNAVAILABLE",
            Self::InvalidUri { .. }
            | Self::InvalidMeta { .. }
            | Self::InvalidCspOrigin
            | Self::InvalidDescription
            | Self::InvalidPage { .. }
            | Self::NotDeclaredHtml
            | Self::NotOneBody
            | Self::NotHtml5
            | Self::InvalidBlob => "ERR_PRISM_MCP_APP_INVALID",
        }
    }
}

impl From<CapabilityError> for AppsError {
    fn from(e: CapabilityError) -> Self {
        match e {
            CapabilityError::Bound { label, bound } => Self::Bound { label, bound },
            _ => Self::InvalidPage { what: "message" },
        }
    }
}

/// Fails unless the server's `capabilities` acknowledge [`MCP_APPS_EXTENSION`].
///
/// # Errors
/// [`AppsError::NotNegotiated`].
pub fn assert_negotiated(capabilities: &Value) -> Result<(), AppsError> {
    let ack = capabilities
        .get("extensions")
        .and_then(Value::as_object)
        .and_then(|e| e.get(MCP_APPS_EXTENSION));
    match ack {
        None | Some(Value::Null | Value::Bool(false)) => Err(AppsError::NotNegotiated),
        Some(_) => Ok(()),
    }
}

fn result_bounds(limits: &McpLimits) -> JsonBounds {
    limits.result_bounds()
}

/// `_meta.ui` of `meta`, after bounding `meta` (by `maxToolDescriptionBytes`).
fn ui_record<'a>(
    meta: Option<&'a Value>,
    limits: &McpLimits,
    label: &str,
) -> Result<Option<&'a Map<String, Value>>, AppsError> {
    let Some(meta) = meta else { return Ok(None) };
    let bounds = JsonBounds {
        max_bytes: limits.max_tool_description_bytes,
        max_depth: limits.max_json_depth,
        max_properties: limits.max_json_properties,
    };
    measure_bounded_json(meta, bounds).map_err(|bound| AppsError::Bound {
        label: format!("{label} MCP Apps metadata"),
        bound,
    })?;
    match meta.as_object().and_then(|m| m.get("ui")) {
        None => Ok(None),
        Some(Value::Object(ui)) => Ok(Some(ui)),
        Some(_) => Err(AppsError::InvalidMeta {
            label: label.into(),
            what: "metadata",
        }),
    }
}

/// Checks a `ui://` URI: it parses, has a host, no credentials or fragment, and is at most
/// 4 KiB.
///
/// # Errors
/// [`AppsError::InvalidUri`] naming `label`.
pub fn assert_ui_uri(value: &str, label: &str) -> Result<(), AppsError> {
    let invalid = || AppsError::InvalidUri {
        label: label.into(),
    };
    let url = url::Url::parse(value).map_err(|_| invalid())?;
    let ok = url.scheme() == "ui"
        && url.host_str().is_some_and(|h| !h.is_empty())
        && url.username().is_empty()
        && url.password().is_none()
        && url.fragment().is_none_or(str::is_empty)
        && value.len() <= MAX_UI_URI_BYTES;
    if ok {
        Ok(())
    } else {
        Err(invalid())
    }
}

/// One listed tool as an app tool: `{ name, description?, inputSchema, resourceUri?,
/// visibility }` (the binding adds the prefixed name).
///
/// # Errors
/// Metadata over its bound or malformed: visibility, resource URI.
pub fn app_tool(tool: &Value, limits: &McpLimits) -> Result<Value, AppsError> {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
    let label = format!("MCP tool {name}");
    let meta = tool.get("_meta");
    let ui = ui_record(meta, limits, &label)?;
    let nested = ui.and_then(|u| u.get("resourceUri"));
    let flat = meta.and_then(|m| m.get("ui/resourceUri"));
    // Nested metadata supersedes the deprecated flat key.
    let resource_uri = match nested.filter(|v| !v.is_null()).or(flat) {
        None | Some(Value::Null) => None,
        Some(Value::String(uri)) => {
            assert_ui_uri(uri, &format!("{label} MCP Apps resource URI"))?;
            Some(uri.clone())
        }
        Some(_) => {
            return Err(AppsError::InvalidMeta {
                label,
                what: "resource URI",
            })
        }
    };
    let visibility = match ui.and_then(|u| u.get("visibility")) {
        None => Value::Array(vec!["model".into(), "app".into()]),
        Some(Value::Array(items)) if visibility_ok(items) => Value::Array(items.clone()),
        Some(_) => {
            return Err(AppsError::InvalidMeta {
                label,
                what: "visibility",
            })
        }
    };
    let mut out = Map::new();
    out.insert("name".into(), Value::String(name.into()));
    if let Some(d) = tool.get("description").filter(|d| !d.is_null()) {
        out.insert("description".into(), d.clone());
    }
    out.insert(
        "inputSchema".into(),
        tool.get("inputSchema").cloned().unwrap_or(Value::Null),
    );
    if let Some(uri) = resource_uri {
        out.insert("resourceUri".into(), Value::String(uri));
    }
    out.insert("visibility".into(), visibility);
    Ok(Value::Object(out))
}

fn visibility_ok(items: &[Value]) -> bool {
    let mut seen = HashSet::new();
    (1..=2).contains(&items.len())
        && items
            .iter()
            .all(|i| matches!(i.as_str(), Some("model" | "app")) && seen.insert(i.as_str()))
}

/// Whether an app tool (as [`app_tool`] shaped it) is visible to the model.
#[must_use]
pub fn model_visible(app_tool: &Value) -> bool {
    visible_to(app_tool, "model")
}

fn visible_to(app_tool: &Value, who: &str) -> bool {
    app_tool
        .get("visibility")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|i| i == who))
}

/// The app tool named `name` that an app may call.
///
/// # Errors
/// [`AppsError::Unavailable`] when none.
pub fn app_callable<'a>(tools: &'a [Value], name: &str) -> Result<&'a Value, AppsError> {
    tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name) && visible_to(t, "app"))
        .ok_or(AppsError::Unavailable { what: "tool" })
}

fn csp_origin_ok(value: &str, key: &str) -> bool {
    let Ok(url) = url::Url::parse(value) else {
        return false;
    };
    let scheme_ok = match key {
        "connectDomains" => matches!(url.scheme(), "https" | "wss"),
        _ => url.scheme() == "https",
    };
    scheme_ok
        && url.username().is_empty()
        && url.password().is_none()
        && url.path() == "/"
        && url.query().is_none_or(str::is_empty)
        && url.fragment().is_none_or(str::is_empty)
        && !url.host_str().unwrap_or_default().contains('*')
        && value.len() <= MAX_CSP_ORIGIN_BYTES
}

fn domain_ok(d: &str) -> bool {
    let b = d.as_bytes();
    let edge = |c: &u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && b.len() <= MAX_DOMAIN_BYTES
        && b.first().is_some_and(edge)
        && b.last().is_some_and(edge)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'-')
}

/// The CSP, permission, domain and border metadata of a resource's `_meta`, or `None`.
///
/// # Errors
/// Metadata over its bound or malformed.
pub fn ui_resource_metadata(
    meta: Option<&Value>,
    limits: &McpLimits,
    label: &str,
) -> Result<Option<Value>, AppsError> {
    let Some(ui) = ui_record(meta, limits, label)? else {
        return Ok(None);
    };
    let invalid = |what| AppsError::InvalidMeta {
        label: label.into(),
        what,
    };
    let mut csp = Map::new();
    let csp_source = ui.get("csp").and_then(Value::as_object);
    for key in [
        "connectDomains",
        "resourceDomains",
        "frameDomains",
        "baseUriDomains",
    ] {
        let Some(value) = csp_source.and_then(|c| c.get(key)) else {
            continue;
        };
        let Some(items) = value.as_array().filter(|a| a.len() <= MAX_CSP_ORIGINS) else {
            return Err(invalid("CSP"));
        };
        for item in items {
            let Some(origin) = item.as_str() else {
                return Err(invalid("CSP"));
            };
            if !csp_origin_ok(origin, key) {
                return Err(AppsError::InvalidCspOrigin);
            }
        }
        csp.insert(key.into(), value.clone());
    }
    let mut out = Map::new();
    if !csp.is_empty() {
        out.insert("csp".into(), Value::Object(csp));
    }
    if let Some(source) = ui.get("permissions").and_then(Value::as_object) {
        let mut permissions = Map::new();
        for key in ["camera", "microphone", "geolocation", "clipboardWrite"] {
            if source.get(key).is_some_and(Value::is_object) {
                permissions.insert(key.into(), Value::Bool(true));
            }
        }
        if !permissions.is_empty() {
            out.insert("permissions".into(), Value::Object(permissions));
        }
    }
    match ui.get("domain") {
        None => {}
        Some(Value::String(d)) if domain_ok(d) => {
            out.insert("domain".into(), Value::String(d.clone()));
        }
        Some(_) => return Err(invalid("domain")),
    }
    match ui.get("prefersBorder") {
        None => {}
        Some(b @ Value::Bool(_)) => {
            out.insert("prefersBorder".into(), b.clone());
        }
        Some(_) => return Err(invalid("border preference")),
    }
    Ok((!out.is_empty()).then_some(Value::Object(out)))
}

/// A listed resource as an app resource descriptor, or `None` when it is not an app's HTML.
///
/// # Errors
/// A `ui://` URI, name, description or metadata that breaks a rule.
pub fn resource_descriptor(value: &Value, limits: &McpLimits) -> Result<Option<Value>, AppsError> {
    let Some(resource) = value.as_object() else {
        return Ok(None);
    };
    let (Some(Value::String(uri)), Some(Value::String(name))) =
        (resource.get("uri"), resource.get("name"))
    else {
        return Ok(None);
    };
    if resource.get("mimeType").and_then(Value::as_str) != Some(MCP_APP_MIME_TYPE) {
        return Ok(None);
    }
    assert_ui_uri(uri, "MCP App resource URI")?;
    if name.len() as u64 > limits.max_tool_name_bytes {
        return Err(AppsError::TooLong {
            label: "MCP App resource name",
            limit: limits.max_tool_name_bytes,
        });
    }
    let description = resource.get("description");
    if description.is_some_and(|d| !d.is_string()) {
        return Err(AppsError::InvalidDescription);
    }
    let ui = ui_resource_metadata(resource.get("_meta"), limits, "MCP App resource")?;
    let mut out = Map::new();
    out.insert("uri".into(), Value::String(uri.clone()));
    out.insert("name".into(), Value::String(name.clone()));
    if let Some(d) = description {
        out.insert("description".into(), d.clone());
    }
    out.insert("mimeType".into(), MCP_APP_MIME_TYPE.into());
    if let Some(ui) = ui {
        out.insert("ui".into(), ui);
    }
    Ok(Some(Value::Object(out)))
}

/// One `resources/list` walk for MCP Apps, within the bridge's list limits.
#[derive(Debug)]
pub struct AppResourceListing {
    limits: McpLimits,
    pages: u64,
    resources: Vec<Value>,
    seen: HashSet<String>,
}

impl AppResourceListing {
    /// Starts a walk under `limits`.
    #[must_use]
    pub fn new(limits: McpLimits) -> Self {
        Self {
            limits,
            pages: 0,
            resources: Vec::new(),
            seen: HashSet::new(),
        }
    }

    /// Checks one raw page; returns the next cursor, or `None` when the walk is complete.
    ///
    /// # Errors
    /// A bound, the item or page limit, a repeated or long cursor, a malformed page or
    /// descriptor.
    pub fn add_page(&mut self, page: Incoming<'_>) -> Result<Option<String>, AppsError> {
        let label = "MCP Apps resources/list";
        let page = parse_bounded_by(page, result_bounds(&self.limits), label)?;
        let invalid = AppsError::InvalidPage {
            what: "resources/list page",
        };
        let Some(items) = page.get("resources").and_then(Value::as_array) else {
            return Err(invalid);
        };
        for item in items {
            if let Some(r) = resource_descriptor(item, &self.limits)? {
                self.resources.push(r);
            }
            if self.resources.len() as u64 > self.limits.max_tools {
                return Err(AppsError::TooManyItems);
            }
        }
        self.pages += 1;
        let cursor = match page.get("nextCursor") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(c)) if c.is_empty() => return Ok(None),
            Some(Value::String(c)) => c.clone(),
            Some(_) => return Err(invalid),
        };
        if cursor.len() as u64 > self.limits.max_cursor_bytes {
            return Err(AppsError::TooLong {
                label: "MCP Apps resources/list cursor",
                limit: self.limits.max_cursor_bytes,
            });
        }
        if !self.seen.insert(cursor.clone()) {
            return Err(AppsError::RepeatedCursor);
        }
        if self.pages >= self.limits.max_list_pages {
            return Err(AppsError::TooManyPages {
                limit: self.limits.max_list_pages,
            });
        }
        Ok(Some(cursor))
    }

    /// The app resources found, in the server's order.
    #[must_use]
    pub fn finish(self) -> Vec<Value> {
        self.resources
    }
}

fn parse_bounded_by(
    incoming: Incoming<'_>,
    bounds: JsonBounds,
    label: &str,
) -> Result<Value, AppsError> {
    let value = parse_incoming(incoming, label, bounds.max_depth)?;
    measure_bounded_json(&value, bounds).map_err(|bound| AppsError::Bound {
        label: label.into(),
        bound,
    })?;
    Ok(value)
}

/// The app tool whose resource is `uri`, before reading it.
///
/// # Errors
/// An invalid `ui://` URI, or no app tool names it.
pub fn readable<'a>(tools: &'a [Value], uri: &str) -> Result<&'a Value, AppsError> {
    assert_ui_uri(uri, "MCP App resource URI")?;
    tools
        .iter()
        .find(|t| t.get("resourceUri").and_then(Value::as_str) == Some(uri))
        .ok_or(AppsError::Unavailable { what: "resource" })
}

/// Bounds a raw `resources/read` result (before the listing that follows it).
///
/// # Errors
/// A bound or a value with no JSON text.
pub fn read_result(incoming: Incoming<'_>, limits: &McpLimits) -> Result<Value, AppsError> {
    parse_bounded_by(incoming, result_bounds(limits), "MCP Apps resources/read")
}

/// The app resource of a bounded read result: its one HTML5 body (text, or base64 UTF-8),
/// with the content's metadata over the listing's.
///
/// # Errors
/// Content not declared as the app's HTML, not one body, a bad blob, or not bounded HTML5.
pub fn app_resource(
    uri: &str,
    tool: &Value,
    result: &Value,
    listed: &[Value],
    limits: &McpLimits,
) -> Result<Value, AppsError> {
    let content = result
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|c| {
            c.iter()
                .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
        });
    let Some(content) =
        content.filter(|c| c.get("mimeType").and_then(Value::as_str) == Some(MCP_APP_MIME_TYPE))
    else {
        return Err(AppsError::NotDeclaredHtml);
    };
    let text = content.get("text").and_then(Value::as_str);
    let blob = content.get("blob").and_then(Value::as_str);
    let html = match (text, blob) {
        (Some(t), None) => t.to_owned(),
        (None, Some(b)) => decode_blob(b)?,
        _ => return Err(AppsError::NotOneBody),
    };
    if html.len() as u64 > limits.max_result_bytes || !is_html5(&html) {
        return Err(AppsError::NotHtml5);
    }
    let listed_ui = listed
        .iter()
        .find(|r| r.get("uri").and_then(Value::as_str) == Some(uri))
        .and_then(|r| r.get("ui"))
        .cloned();
    let ui = ui_resource_metadata(content.get("_meta"), limits, "MCP App resource")?.or(listed_ui);
    let mut out = Map::new();
    out.insert("uri".into(), Value::String(uri.into()));
    out.insert(
        "name".into(),
        tool.get("name").cloned().unwrap_or(Value::Null),
    );
    if let Some(d) = tool.get("description") {
        out.insert("description".into(), d.clone());
    }
    out.insert("mimeType".into(), MCP_APP_MIME_TYPE.into());
    out.insert("html".into(), Value::String(html));
    if let Some(ui) = ui {
        out.insert("ui".into(), ui);
    }
    Ok(Value::Object(out))
}

/// `<!doctype html` followed by whitespace or `>`, and `<html` followed by whitespace or `>`,
/// anywhere, case-insensitively.
fn is_html5(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    let followed = |needle: &str, after: fn(char) -> bool| {
        lower
            .match_indices(needle)
            .any(|(i, _)| lower[i + needle.len()..].chars().next().is_some_and(after))
    };
    let space_or_gt = |c: char| c == '>' || c.is_whitespace();
    let doctype = lower.match_indices("<!doctype").any(|(i, _)| {
        let rest = &lower[i + "<!doctype".len()..];
        let trimmed = rest.trim_start();
        trimmed.len() < rest.len()
            && trimmed
                .strip_prefix("html")
                .and_then(|r| r.chars().next())
                .is_some_and(space_or_gt)
    });
    doctype && followed("<html", space_or_gt)
}

fn decode_blob(b64: &str) -> Result<String, AppsError> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|_| AppsError::InvalidBlob)?;
    String::from_utf8(bytes).map_err(|_| AppsError::InvalidBlob)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visibility_and_nested_uri() {
        let limits = McpLimits::default();
        let tool = json!({"name": "w", "inputSchema": {}, "_meta": {"ui": {"resourceUri": "ui://w/v", "visibility": ["app"]}, "ui/resourceUri": "ui://x/flat"}});
        let app = app_tool(&tool, &limits).ok();
        assert_eq!(
            app,
            Some(
                json!({"name": "w", "inputSchema": {}, "resourceUri": "ui://w/v", "visibility": ["app"]})
            )
        );
        assert!(!model_visible(&app.unwrap_or_default()));
        let dup = json!({"name": "w", "_meta": {"ui": {"visibility": ["app", "app"]}}});
        assert_eq!(
            app_tool(&dup, &limits).map_err(|e| e.to_string()),
            Err("MCP tool w has invalid MCP Apps visibility".into())
        );
    }

    #[test]
    fn html5_and_csp() {
        assert!(is_html5("<!DOCTYPE html><html><body></body></html>"));
        assert!(!is_html5("<html><body></body></html>"));
        assert!(!is_html5("<!doctype html><htmlx>"));
        assert!(csp_origin_ok("https://a.example", "resourceDomains"));
        assert!(csp_origin_ok("wss://a.example", "connectDomains"));
        assert!(!csp_origin_ok("wss://a.example", "frameDomains"));
        assert!(!csp_origin_ok("https://a.example/path", "frameDomains"));
        assert!(!csp_origin_ok("https://*.example", "frameDomains"));
        assert_eq!(
            assert_ui_uri("https://x/y", "U").map_err(|e| e.to_string()),
            Err("U is invalid".into())
        );
    }
}
