//! The MCP capability client's rules beyond tools: resources and prompts listed page by page,
//! read and got; roots, sampling and elicitation answered for the server. Every message either
//! way is bounded by `maxCapabilityBytes`, a depth of 64 and 10 000 properties.
//!
//! Whoever does the I/O (the native session, or a host's own client through the binding)
//! hands each value here; nothing of it is used before it passed.

use std::collections::HashSet;

/// The MCP Apps extension's key in `capabilities.extensions` (declared by the client,
/// acknowledged by the server).
pub const MCP_APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

use serde_json::{Map, Value};

use super::host_client::HostValueFault;
use super::measure::{measure_bounded_json, JsonBound, JsonBounds};
use crate::limits as l;
use crate::validation::json_text::{self, ParseError};

/// The refusal of a capability the server did not declare, `{capability}` its name (also
/// the facade's word, for `McpUnsupportedCapabilityError`).
pub const UNSUPPORTED_TEMPLATE: &str = "Unsupported MCP capability: {capability}";

/// Everything the capability client refuses, with the reference's messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CapabilityError {
    /// The server did not declare the capability (`resources`, `prompts`, ...).
    #[error("{}", UNSUPPORTED_TEMPLATE.replace("{capability}", capability))]
    Unsupported {
        /// The capability's name in the server's capabilities.
        capability: String,
    },
    /// A message broke a JSON bound.
    #[error("{label} {bound}")]
    Bound {
        /// What was measured.
        label: String,
        /// Which bound broke.
        bound: JsonBound,
    },
    /// A value the host returned has no JSON text.
    #[error("{label} {fault}")]
    NotJson {
        /// What was converted.
        label: String,
        /// Why it has no JSON text.
        fault: HostValueFault,
    },
    /// A listing holds more items than allowed.
    #[error("MCP {list} exceeds {limit} items")]
    TooManyItems {
        /// `resources/list` or `prompts/list`.
        list: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A listing kept paging.
    #[error("MCP {list} exceeds {limit} pages")]
    TooManyPages {
        /// `resources/list` or `prompts/list`.
        list: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A listing sent a cursor it had sent before.
    #[error("MCP {list} repeated a pagination cursor")]
    RepeatedCursor {
        /// `resources/list` or `prompts/list`.
        list: &'static str,
    },
    /// A page or result is not shaped as the protocol says.
    #[error("MCP {what} is invalid: {reason}")]
    Invalid {
        /// The page or result.
        what: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// The host's roots are more than [`l::MCP_MAX_ROOTS`].
    #[error("MCP roots exceed {limit} items")]
    TooManyRoots {
        /// The limit.
        limit: u64,
    },
    /// A root's URI does not parse.
    #[error("Invalid MCP root URI: {uri}")]
    InvalidRootUri {
        /// The URI as the host gave it.
        uri: String,
    },
    /// A root that is not a `file:` URI.
    #[error("MCP roots must use file: URIs approved by the host")]
    RootNotFile,
    /// The host's elicitation answer has no `action`.
    #[error("Invalid MCP elicitation result")]
    InvalidElicitationResult,
    /// An accepted elicitation without the host's `humanInteraction: true` mark.
    #[error("Accepted MCP elicitation requires explicit human interaction")]
    HumanInteractionRequired,
    /// An accepting decision without an elicitation payload.
    #[error("Accepted MCP elicitation requires an elicitation payload")]
    PayloadRequired,
    /// Elicitation params that are not an object.
    #[error("MCP elicitation params must be an object")]
    ParamsNotObject,
    /// A text field that is not a string.
    #[error("{label} must be a string")]
    NotString {
        /// The field.
        label: &'static str,
    },
    /// A server request the host gave no callback for.
    #[error("MCP {request} is not handled by this client")]
    NotHandled {
        /// `roots`, `sampling` or `elicitation`.
        request: &'static str,
    },
    /// The server cancelled its request, or the session closed, before the host answered.
    #[error("MCP {request} request was cancelled")]
    Cancelled {
        /// `roots`, `sampling` or `elicitation`.
        request: &'static str,
    },
    /// A text field longer than its limit.
    #[error("{label} exceeds {limit} bytes")]
    TooLong {
        /// The field.
        label: String,
        /// The limit.
        limit: u64,
    },
}

impl CapabilityError {
    /// The stable error code (`err.code` in JavaScript).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unsupported { .. } => "ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY",
            Self::Bound { .. } => "ERR_PRISM_MCP_JSON_BOUND",
            Self::NotJson { .. } => "ERR_PRISM_MCP_INVALID_VALUE",
            Self::TooManyItems { .. } | Self::TooManyRoots { .. } => "ERR_PRISM_MCP_TOO_MANY_ITEMS",
            Self::TooManyPages { .. } => "ERR_PRISM_MCP_TOO_MANY_PAGES",
            Self::RepeatedCursor { .. } => "ERR_PRISM_MCP_REPEATED_CURSOR",
            Self::Invalid { .. } => "ERR_PRISM_MCP_INVALID_PAGE",
            Self::TooLong { .. } => "ERR_PRISM_MCP_TOO_LARGE",
            Self::NotHandled { .. } => "ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY",
            Self::Cancelled { .. } => "ERR_PRISM_MCP_ABORTED",
            Self::InvalidRootUri { .. } | Self::RootNotFile => "ERR_PRISM_MCP_INVALID_ROOT",
            Self::InvalidElicitationResult
            | Self::HumanInteractionRequired
            | Self::PayloadRequired
            | Self::ParamsNotObject
            | Self::NotString { .. } => "ERR_PRISM_MCP_INVALID_ELICITATION",
        }
    }
}

/// A value from the host or the server: its JSON text, or why it has none.
#[derive(Debug, Clone, Copy)]
pub enum Incoming<'a> {
    /// JSON text.
    Text(&'a str),
    /// A value with no JSON text.
    Fault(HostValueFault),
}

/// The bounds of every capability message under `max_bytes`.
#[must_use]
pub fn capability_bounds(max_bytes: u64) -> JsonBounds {
    JsonBounds {
        max_bytes,
        max_depth: l::MCP_CAPABILITY_DEPTH,
        max_properties: l::MCP_CAPABILITY_PROPERTIES,
    }
}

/// Checks `value` against the capability bounds, naming it `label` in the error.
///
/// # Errors
/// [`CapabilityError::Bound`].
pub fn bounded(value: &Value, max_bytes: u64, label: &str) -> Result<(), CapabilityError> {
    measure_bounded_json(value, capability_bounds(max_bytes))
        .map(|_| ())
        .map_err(|bound| CapabilityError::Bound {
            label: label.to_owned(),
            bound,
        })
}

/// Parses `incoming`, naming it `label` in the error (a value nested too deep to convert
/// breaks `max_depth`).
///
/// # Errors
/// [`CapabilityError::NotJson`] or [`CapabilityError::Bound`] (depth).
pub fn parse_incoming(
    incoming: Incoming<'_>,
    label: &str,
    max_depth: u64,
) -> Result<Value, CapabilityError> {
    match incoming {
        Incoming::Text(text) => {
            let nesting = usize::try_from(max_depth).unwrap_or(usize::MAX);
            json_text::parse(text, nesting).map_err(|e| match e {
                ParseError::TooDeep => CapabilityError::Bound {
                    label: label.to_owned(),
                    bound: JsonBound::Depth(max_depth),
                },
                ParseError::Invalid(_) => CapabilityError::NotJson {
                    label: label.to_owned(),
                    fault: HostValueFault::NotJson,
                },
            })
        }
        Incoming::Fault(HostValueFault::TooDeep) => Err(CapabilityError::Bound {
            label: label.to_owned(),
            bound: JsonBound::Depth(max_depth),
        }),
        Incoming::Fault(fault) => Err(CapabilityError::NotJson {
            label: label.to_owned(),
            fault,
        }),
    }
}

/// Parses `incoming` and bounds it as a capability message.
///
/// # Errors
/// [`CapabilityError::NotJson`] or [`CapabilityError::Bound`].
pub fn parse_bounded(
    incoming: Incoming<'_>,
    max_bytes: u64,
    label: &str,
) -> Result<Value, CapabilityError> {
    let value = parse_incoming(incoming, label, l::MCP_CAPABILITY_DEPTH)?;
    bounded(&value, max_bytes, label)?;
    Ok(value)
}

/// The client capabilities declared in `initialize` for the host's selections: the MCP Apps
/// extension, roots (with `listChanged`), sampling, elicitation (form and URL modes).
#[must_use]
pub fn client_capabilities(apps: bool, roots: bool, sampling: bool, elicitation: bool) -> Value {
    let mut caps = Map::new();
    if apps {
        let mut ext = Map::new();
        ext.insert(MCP_APPS_EXTENSION.into(), Value::Object(Map::new()));
        caps.insert("extensions".into(), Value::Object(ext));
    }
    if roots {
        caps.insert("roots".into(), serde_json::json!({ "listChanged": true }));
    }
    if sampling {
        caps.insert("sampling".into(), Value::Object(Map::new()));
    }
    if elicitation {
        caps.insert(
            "elicitation".into(),
            serde_json::json!({ "form": {}, "url": {} }),
        );
    }
    Value::Object(caps)
}

/// Which capability listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// `resources/list`, items under `resources`.
    Resources,
    /// `resources/templates/list`, items under `resourceTemplates`.
    ResourceTemplates,
    /// `prompts/list`, items under `prompts`.
    Prompts,
}

impl ListKind {
    /// The capability the server must declare.
    #[must_use]
    pub fn capability(self) -> &'static str {
        match self {
            Self::Resources | Self::ResourceTemplates => "resources",
            Self::Prompts => "prompts",
        }
    }

    /// The request method.
    #[must_use]
    pub fn method(self) -> &'static str {
        match self {
            Self::Resources => "resources/list",
            Self::ResourceTemplates => "resources/templates/list",
            Self::Prompts => "prompts/list",
        }
    }

    /// The key of a page's items.
    #[must_use]
    pub fn items_key(self) -> &'static str {
        match self {
            Self::Resources => "resources",
            Self::ResourceTemplates => "resourceTemplates",
            Self::Prompts => "prompts",
        }
    }

    /// The kind named by the binding (`"resources"`, `"resourceTemplates"`, `"prompts"`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "resources" => Some(Self::Resources),
            "resourceTemplates" => Some(Self::ResourceTemplates),
            "prompts" => Some(Self::Prompts),
            _ => None,
        }
    }
}

/// Fails unless `capabilities` (the server's, an object) declares `name`.
///
/// # Errors
/// [`CapabilityError::Unsupported`].
///
/// A dotted name (`resources.subscribe`) needs its object and a `true` flag in it.
pub fn require_capability(capabilities: &Value, name: &str) -> Result<(), CapabilityError> {
    let declared = match name.split_once('.') {
        Some((object, flag)) => capabilities
            .get(object)
            .and_then(|o| o.get(flag))
            .is_some_and(|f| f == &Value::Bool(true)),
        None => capabilities.get(name).is_some(),
    };
    if declared {
        Ok(())
    } else {
        Err(CapabilityError::Unsupported {
            capability: name.to_owned(),
        })
    }
}

/// One resources or prompts listing, page by page.
#[derive(Debug)]
pub struct CapabilityListing {
    kind: ListKind,
    max_bytes: u64,
    pages: u64,
    items: Vec<Value>,
    seen: HashSet<String>,
}

impl CapabilityListing {
    /// Starts a listing of `kind` whose pages are bounded by `max_bytes`.
    #[must_use]
    pub fn new(kind: ListKind, max_bytes: u64) -> Self {
        Self {
            kind,
            max_bytes,
            pages: 0,
            items: Vec::new(),
            seen: HashSet::new(),
        }
    }

    /// Checks one raw page; returns the cursor of the next, or `None` when the listing is
    /// complete.
    ///
    /// # Errors
    /// A bound, the item or page guard, a repeated cursor or a malformed page.
    pub fn add_page(&mut self, page: Incoming<'_>) -> Result<Option<String>, CapabilityError> {
        let list = self.kind.method();
        let page = parse_bounded(page, self.max_bytes, &format!("MCP {list}"))?;
        let invalid = |reason| CapabilityError::Invalid {
            what: "listing page",
            reason,
        };
        let Value::Object(mut page) = page else {
            return Err(invalid("not an object"));
        };
        let Some(Value::Array(items)) = page.remove(self.kind.items_key()) else {
            return Err(invalid("no item array"));
        };
        if self.items.len() + items.len() > l::MCP_MAX_CAPABILITY_ITEMS as usize {
            return Err(CapabilityError::TooManyItems {
                list,
                limit: l::MCP_MAX_CAPABILITY_ITEMS,
            });
        }
        self.items.extend(items);
        self.pages += 1;
        let cursor = match page.remove("nextCursor") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(c)) if c.is_empty() => return Ok(None),
            Some(Value::String(c)) => c,
            Some(_) => return Err(invalid("nextCursor is not a string")),
        };
        if self.seen.contains(&cursor) {
            return Err(CapabilityError::RepeatedCursor { list });
        }
        if self.pages >= l::MCP_MAX_CAPABILITY_PAGES {
            return Err(CapabilityError::TooManyPages {
                list,
                limit: l::MCP_MAX_CAPABILITY_PAGES,
            });
        }
        self.seen.insert(cursor.clone());
        Ok(Some(cursor))
    }

    /// The items of every page, in the server's order.
    #[must_use]
    pub fn finish(self) -> Vec<Value> {
        self.items
    }
}

/// The host's roots as the `roots/list` result: at most [`l::MCP_MAX_ROOTS`], each with a
/// `file:` URI.
///
/// # Errors
/// A bound, too many roots, or a URI that does not parse or is not `file:`.
pub fn roots_answer(roots: Incoming<'_>, max_bytes: u64) -> Result<Value, CapabilityError> {
    let roots = parse_bounded(roots, max_bytes, "MCP roots")?;
    let Value::Array(items) = roots else {
        return Err(CapabilityError::Invalid {
            what: "roots",
            reason: "not an array",
        });
    };
    if items.len() as u64 > l::MCP_MAX_ROOTS {
        return Err(CapabilityError::TooManyRoots {
            limit: l::MCP_MAX_ROOTS,
        });
    }
    for root in &items {
        let uri = root.get("uri");
        let text = uri.and_then(Value::as_str);
        let Some(parsed) = text.and_then(|t| url::Url::parse(t).ok()) else {
            return Err(CapabilityError::InvalidRootUri {
                uri: match uri {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => "undefined".into(),
                },
            });
        };
        if parsed.scheme() != "file" {
            return Err(CapabilityError::RootNotFile);
        }
    }
    let mut out = Map::new();
    out.insert("roots".into(), Value::Array(items));
    Ok(Value::Object(out))
}

/// The host's elicitation answer as the protocol result: an object with an `action`; an
/// accepting one only with `humanInteraction: true`, which is removed. An accepted form
/// (`params` without a `mode`, or `mode: "form"`) gets each `default` of the requested
/// schema's top-level properties its content omits (SEP-1034), within the byte bound.
///
/// # Errors
/// A bound, a malformed answer, or an acceptance without the mark.
pub fn elicitation_answer(
    answer: Incoming<'_>,
    params: &Value,
    max_bytes: u64,
) -> Result<Value, CapabilityError> {
    let answer = parse_bounded(answer, max_bytes, "MCP elicitation result")?;
    let Value::Object(mut answer) = answer else {
        return Err(CapabilityError::InvalidElicitationResult);
    };
    let Some(action) = answer.get("action") else {
        return Err(CapabilityError::InvalidElicitationResult);
    };
    let accepted = action == "accept";
    let marked = answer.get("humanInteraction") == Some(&Value::Bool(true));
    if accepted && !marked {
        return Err(CapabilityError::HumanInteractionRequired);
    }
    answer.remove("humanInteraction");
    if accepted {
        apply_defaults(&mut answer, params);
    }
    let answer = Value::Object(answer);
    bounded(&answer, max_bytes, "MCP elicitation result")?;
    Ok(answer)
}

/// Puts each top-level `default` of a form's requested schema that `answer.content` omits.
fn apply_defaults(answer: &mut Map<String, Value>, params: &Value) {
    if !matches!(params.get("mode"), None | Some(Value::Null)) && params["mode"] != "form" {
        return;
    }
    let Some(properties) = params
        .get("requestedSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return;
    };
    let content = answer
        .entry("content")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(content) = content.as_object_mut() else {
        return;
    };
    for (name, schema) in properties {
        if let Some(default) = schema.get("default") {
            if !content.contains_key(name) {
                content.insert(name.clone(), default.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(v: &Value) -> String {
        v.to_string()
    }

    #[test]
    fn a_listing_stops_at_its_item_page_and_cursor_guards() {
        let mut listing = CapabilityListing::new(ListKind::Resources, 1 << 20);
        let page = text(&json!({"resources": [{"name": "a"}], "nextCursor": "c1"}));
        assert_eq!(
            listing.add_page(Incoming::Text(&page)),
            Ok(Some("c1".into()))
        );
        assert_eq!(
            listing.add_page(Incoming::Text(&page)),
            Err(CapabilityError::RepeatedCursor {
                list: "resources/list"
            })
        );

        let mut listing = CapabilityListing::new(ListKind::Prompts, 1 << 20);
        for n in 1..l::MCP_MAX_CAPABILITY_PAGES {
            let page = text(&json!({"prompts": [], "nextCursor": format!("c{n}")}));
            assert!(listing.add_page(Incoming::Text(&page)).is_ok(), "{n}");
        }
        let last = text(&json!({"prompts": [], "nextCursor": "end"}));
        assert_eq!(
            listing
                .add_page(Incoming::Text(&last))
                .map_err(|e| e.to_string()),
            Err("MCP prompts/list exceeds 20 pages".into())
        );

        let mut listing = CapabilityListing::new(ListKind::Prompts, 1 << 20);
        let full = text(&json!({"prompts": vec![json!({}); 500]}));
        assert_eq!(listing.add_page(Incoming::Text(&full)), Ok(None));
        assert_eq!(listing.finish().len(), 500);
        let mut listing = CapabilityListing::new(ListKind::Prompts, 1 << 20);
        let over = text(&json!({"prompts": vec![json!({}); 501]}));
        assert_eq!(
            listing
                .add_page(Incoming::Text(&over))
                .map_err(|e| e.to_string()),
            Err("MCP prompts/list exceeds 500 items".into())
        );
    }

    #[test]
    fn bytes_depth_and_properties_at_their_edges() {
        let v = json!({"a": "xx"}); // {"a":"xx"} = 10 bytes
        assert!(bounded(&v, 10, "L").is_ok());
        assert_eq!(
            bounded(&v, 9, "L").map_err(|e| e.to_string()),
            Err("L exceeds 9 bytes".into())
        );
        let mut deep = json!(1);
        for _ in 0..63 {
            deep = json!([deep]);
        }
        assert!(bounded(&deep, 1 << 20, "L").is_ok());
        let deeper = json!([deep]);
        assert_eq!(
            bounded(&deeper, 1 << 20, "L").map_err(|e| e.to_string()),
            Err("L exceeds depth 64".into())
        );
        let wide = Value::Array(vec![json!(0); 10_000]);
        assert!(bounded(&wide, 1 << 20, "L").is_ok());
        let wider = Value::Array(vec![json!(0); 10_001]);
        assert_eq!(
            bounded(&wider, 1 << 20, "L").map_err(|e| e.to_string()),
            Err("L exceeds 10000 properties".into())
        );
    }

    #[test]
    fn roots_are_file_uris_at_most_500() {
        let ok = text(&Value::Array(vec![json!({"uri": "file:///w"}); 500]));
        assert!(roots_answer(Incoming::Text(&ok), 1 << 20).is_ok());
        let over = text(&Value::Array(vec![json!({"uri": "file:///w"}); 501]));
        assert_eq!(
            roots_answer(Incoming::Text(&over), 1 << 20).map_err(|e| e.to_string()),
            Err("MCP roots exceed 500 items".into())
        );
        let http = text(&json!([{"uri": "https://example.test/"}]));
        assert_eq!(
            roots_answer(Incoming::Text(&http), 1 << 20),
            Err(CapabilityError::RootNotFile)
        );
        let bad = text(&json!([{"uri": "not a uri"}]));
        assert_eq!(
            roots_answer(Incoming::Text(&bad), 1 << 20).map_err(|e| e.to_string()),
            Err("Invalid MCP root URI: not a uri".into())
        );
    }

    #[test]
    fn an_accepted_elicitation_needs_the_mark_which_never_goes_on_the_wire() {
        let accept = text(&json!({"action": "accept", "content": {}}));
        assert_eq!(
            elicitation_answer(Incoming::Text(&accept), &Value::Null, 1 << 20),
            Err(CapabilityError::HumanInteractionRequired)
        );
        let marked = text(&json!({"action": "accept", "content": {}, "humanInteraction": true}));
        assert_eq!(
            elicitation_answer(Incoming::Text(&marked), &Value::Null, 1 << 20),
            Ok(json!({"action": "accept", "content": {}}))
        );
        let decline = text(&json!({"action": "decline", "humanInteraction": false}));
        assert_eq!(
            elicitation_answer(Incoming::Text(&decline), &Value::Null, 1 << 20),
            Ok(json!({"action": "decline"}))
        );
        assert_eq!(
            elicitation_answer(Incoming::Text("null"), &Value::Null, 1 << 20),
            Err(CapabilityError::InvalidElicitationResult)
        );
        let params = json!({"message": "m", "requestedSchema": {"type": "object",
            "properties": {"a": {"type": "string", "default": "d"}, "b": {"type": "integer", "default": 3}}}});
        let partial =
            text(&json!({"action": "accept", "content": {"b": 4}, "humanInteraction": true}));
        assert_eq!(
            elicitation_answer(Incoming::Text(&partial), &params, 1 << 20),
            Ok(json!({"action": "accept", "content": {"b": 4, "a": "d"}}))
        );
        // The bound applies to the answer with its defaults: at the edge, and one byte under.
        let long = "d".repeat(100);
        let wide = json!({"message": "m", "requestedSchema": {"type": "object",
            "properties": {"a": {"type": "string", "default": long}}}});
        let filled = json!({"action": "accept", "content": {"b": 4, "a": long}});
        let edge = filled.to_string().len() as u64;
        assert_eq!(
            elicitation_answer(Incoming::Text(&partial), &wide, edge),
            Ok(filled)
        );
        assert_eq!(
            elicitation_answer(Incoming::Text(&partial), &wide, edge - 1)
                .map_err(|e| e.to_string()),
            Err(format!("MCP elicitation result exceeds {} bytes", edge - 1))
        );
        let url =
            json!({"mode": "url", "message": "m", "requestedSchema": params["requestedSchema"]});
        assert_eq!(
            elicitation_answer(Incoming::Text(&partial), &url, 1 << 20),
            Ok(json!({"action": "accept", "content": {"b": 4}}))
        );
    }
}
