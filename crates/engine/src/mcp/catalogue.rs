//! The tool catalogue of one server: every `tools/list` page checked against the bounds
//! (pages, tools, cursor/name/description bytes, per-tool and aggregate schema size, depth and
//! properties, repeated cursors) before anything leaves the engine.

use std::collections::HashSet;

/// Whether a tool's listing requires it to be called as a task (`execution.taskSupport` is
/// `"required"`; `"optional"`, `"forbidden"` and none are called plainly).
#[must_use]
pub fn requires_task(tool: &Value) -> bool {
    tool.get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str)
        == Some("required")
}

use serde_json::{Map, Value};

use super::measure::{measure_bounded_json, JsonBounds};
use super::{McpError, McpLimits};

/// One remote tool as listed (already within every bound).
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// The remote name (no prefix).
    pub name: String,
    /// The description, if any.
    pub description: Option<String>,
    /// The raw `inputSchema`, if any.
    pub input_schema: Option<Value>,
    /// The raw `outputSchema`, if any: calls' `structuredContent` is checked against it.
    pub output_schema: Option<Value>,
    /// Whether its listing requires it to be called as a task (`execution.taskSupport`).
    pub task_required: bool,
    /// Its raw `_meta`, kept only by a listing for MCP Apps ([`CatalogueBuilder::keeping_meta`]),
    /// where the app judgement (`apps::app_tool`) bounds and reads it.
    pub meta: Option<Value>,
}

impl ListedTool {
    /// `{name, description?, inputSchema?, _meta?}` for the binding.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        if let Some(d) = &self.description {
            m.insert("description".into(), Value::String(d.clone()));
        }
        if let Some(s) = &self.input_schema {
            m.insert("inputSchema".into(), sdk_input_schema_order(s));
        }
        if let Some(meta) = &self.meta {
            m.insert("_meta".into(), meta.clone());
        }
        Value::Object(m)
    }
}

/// The members the official MCP SDK client's tool schema declares for `inputSchema`, in its
/// order.
const SDK_INPUT_SCHEMA_FIRST: [&str; 3] = ["type", "properties", "required"];

/// `schema` with its top-level keys in the order the official MCP SDK client hands a tool's
/// `inputSchema` on (and so the reference, whose parameters are that object): the SDK parses
/// it as an object with declared members `type`, `properties` and `required`, which come
/// first (those present), and every other member after them in the server's order. Keys
/// deeper down keep the server's order, as in the SDK.
fn sdk_input_schema_order(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::with_capacity(map.len());
    for key in SDK_INPUT_SCHEMA_FIRST {
        if let Some(v) = map.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    for (key, v) in map {
        if !SDK_INPUT_SCHEMA_FIRST.contains(&key.as_str()) {
            out.insert(key.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// Accumulates the pages of one listing.
#[derive(Debug)]
pub struct CatalogueBuilder {
    limits: McpLimits,
    pages: u64,
    tools: Vec<ListedTool>,
    cursors: HashSet<String>,
    schema_bytes: u64,
    keep_meta: bool,
}

fn check_bytes(label: impl FnOnce() -> String, s: &str, limit: u64) -> Result<(), McpError> {
    if s.len() as u64 > limit {
        return Err(McpError::TooManyBytes {
            label: label(),
            limit,
        });
    }
    Ok(())
}

/// Whether `c` must not appear in a tool name: a control character (C0, DEL, C1), a
/// bidirectional formatting character (embeddings, overrides, isolates and marks, which can
/// make a name display as another), or a line or paragraph separator.
#[must_use]
pub fn is_forbidden_name_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Checks a remote tool name: non-empty, at most `max_bytes`, and free of control and
/// bidirectional characters ([`is_forbidden_name_char`]). Every path that registers remote
/// tools calls this, so a name is judged the same way whichever client listed it.
///
/// # Errors
/// [`McpError::InvalidPage`] for an empty name or a forbidden character (the message gives
/// the character's code point, never the name itself), [`McpError::TooManyBytes`] for a long one.
pub fn check_tool_name(name: &str, max_bytes: u64) -> Result<(), McpError> {
    if name.is_empty() {
        return Err(McpError::InvalidPage {
            reason: "a tool has no name".into(),
        });
    }
    check_bytes(|| "MCP tool name".into(), name, max_bytes)?;
    if let Some((at, c)) = name
        .char_indices()
        .find(|(_, c)| is_forbidden_name_char(*c))
    {
        return Err(McpError::InvalidPage {
            reason: format!(
                "a tool name contains the control or bidirectional character U+{:04X} at byte {at}",
                u32::from(c)
            ),
        });
    }
    Ok(())
}

impl CatalogueBuilder {
    /// An empty listing with these bounds.
    #[must_use]
    pub fn new(limits: McpLimits) -> Self {
        Self {
            limits,
            pages: 0,
            tools: Vec::new(),
            cursors: HashSet::new(),
            schema_bytes: 0,
            keep_meta: false,
        }
    }

    /// With `keep` (a bridge with MCP Apps), each tool keeps its raw `_meta`: the app
    /// judgement needs `_meta.ui`. The page holding it is already within the transport's bound;
    /// the judgement bounds the metadata itself, as for a host's client.
    #[must_use]
    pub fn keeping_meta(mut self, keep: bool) -> Self {
        self.keep_meta = keep;
        self
    }

    /// Adds one page (the raw `tools/list` result) and returns the cursor of the next page,
    /// or `None` when the listing is complete.
    ///
    /// # Errors
    /// The first bound the page breaks, or [`McpError::InvalidPage`].
    pub fn add_page(&mut self, page: &Value) -> Result<Option<String>, McpError> {
        self.pages += 1;
        let tools =
            page.get("tools")
                .and_then(Value::as_array)
                .ok_or_else(|| McpError::InvalidPage {
                    reason: "missing tools array".into(),
                })?;
        if (self.tools.len() + tools.len()) as u64 > self.limits.max_tools {
            return Err(McpError::TooManyTools {
                limit: self.limits.max_tools,
            });
        }
        for tool in tools {
            let tool = self.check_tool(tool)?;
            self.tools.push(tool);
        }
        let cursor = match page.get("nextCursor") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(c)) if c.is_empty() => return Ok(None),
            Some(Value::String(c)) => c.clone(),
            Some(_) => {
                return Err(McpError::InvalidPage {
                    reason: "nextCursor is not a string".into(),
                })
            }
        };
        check_bytes(
            || "MCP tools/list cursor".into(),
            &cursor,
            self.limits.max_cursor_bytes,
        )?;
        if self.pages >= self.limits.max_list_pages {
            return Err(McpError::TooManyPages {
                limit: self.limits.max_list_pages,
            });
        }
        if !self.cursors.insert(cursor.clone()) {
            return Err(McpError::RepeatedCursor);
        }
        Ok(Some(cursor))
    }

    fn check_tool(&mut self, tool: &Value) -> Result<ListedTool, McpError> {
        let name =
            tool.get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| McpError::InvalidPage {
                    reason: "a tool has no name".into(),
                })?;
        check_tool_name(name, self.limits.max_tool_name_bytes)?;
        let description = match tool.get("description") {
            Some(Value::String(d)) => {
                check_bytes(
                    || format!("MCP tool {name} description"),
                    d,
                    self.limits.max_tool_description_bytes,
                )?;
                Some(d.clone())
            }
            _ => None,
        };
        let bounds = JsonBounds {
            max_bytes: self.limits.max_tool_schema_bytes,
            max_depth: self.limits.max_json_depth,
            max_properties: self.limits.max_json_properties,
        };
        let mut bytes = 0u64;
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                let left = JsonBounds {
                    max_bytes: bounds.max_bytes.saturating_sub(bytes),
                    ..bounds
                };
                let m = measure_bounded_json(schema, left).map_err(|b| McpError::JsonBound {
                    label: format!("MCP tool {name} schema"),
                    bound: match b {
                        super::measure::JsonBound::Bytes(_) => {
                            super::measure::JsonBound::Bytes(bounds.max_bytes)
                        }
                        other => other,
                    },
                })?;
                bytes += m.bytes;
            }
        }
        self.schema_bytes += bytes;
        if self.schema_bytes > self.limits.max_total_tool_schema_bytes {
            return Err(McpError::AggregateSchemaBytes {
                limit: self.limits.max_total_tool_schema_bytes,
            });
        }
        Ok(ListedTool {
            name: name.to_owned(),
            description,
            input_schema: tool.get("inputSchema").cloned(),
            output_schema: tool.get("outputSchema").cloned(),
            task_required: requires_task(tool),
            meta: if self.keep_meta {
                tool.get("_meta").filter(|m| !m.is_null()).cloned()
            } else {
                None
            },
        })
    }

    /// The listed tools, in the server's order.
    #[must_use]
    pub fn finish(self) -> Vec<ListedTool> {
        self.tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits(f: impl FnOnce(&mut McpLimits)) -> McpLimits {
        let mut l = McpLimits::default();
        f(&mut l);
        l
    }

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
    }

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    #[test]
    fn input_schemas_reach_the_binding_in_the_sdk_clients_key_order() {
        let mut c = CatalogueBuilder::new(McpLimits::default());
        let schema = json!({
            "description": "d",
            "required": ["z"],
            "additionalProperties": false,
            "properties": {"z": {"type": "string", "title": "t"}, "a": {"type": "object", "properties": {"y": {}, "b": {}}}},
            "type": "object",
        });
        let page = json!({"tools": [{"name": "t", "inputSchema": schema}, {"name": "u", "inputSchema": {"z": 1, "type": "object"}}]});
        assert_eq!(c.add_page(&page), Ok(None));
        let tools = c.finish();
        let raw = tools[0].input_schema.clone().unwrap_or_default();
        assert_eq!(
            keys(&raw),
            [
                "description",
                "required",
                "additionalProperties",
                "properties",
                "type"
            ],
            "kept as listed"
        );
        let listed = tools[0].to_json();
        let given = &listed["inputSchema"];
        assert_eq!(
            keys(given),
            [
                "type",
                "properties",
                "required",
                "description",
                "additionalProperties"
            ]
        );
        assert_eq!(keys(&given["properties"]), ["z", "a"]);
        assert_eq!(keys(&given["properties"]["z"]), ["type", "title"]);
        assert_eq!(keys(&given["properties"]["a"]["properties"]), ["y", "b"]);
        assert_eq!(keys(&tools[1].to_json()["inputSchema"]), ["type", "z"]);
    }

    #[test]
    fn meta_is_kept_only_for_apps() {
        let page = json!({"tools": [{"name": "a", "_meta": {"ui": {"visibility": ["app"]}}}]});
        let mut plain = CatalogueBuilder::new(McpLimits::default());
        assert_eq!(plain.add_page(&page), Ok(None));
        assert_eq!(plain.finish()[0].to_json(), json!({"name": "a"}));
        let mut apps = CatalogueBuilder::new(McpLimits::default()).keeping_meta(true);
        assert_eq!(apps.add_page(&page), Ok(None));
        assert_eq!(
            apps.finish()[0].to_json(),
            json!({"name": "a", "_meta": {"ui": {"visibility": ["app"]}}})
        );
    }

    #[test]
    fn pages_until_no_cursor() {
        let mut c = CatalogueBuilder::new(McpLimits::default());
        assert_eq!(
            c.add_page(&json!({"tools": [tool("a")], "nextCursor": "2"})),
            Ok(Some("2".into()))
        );
        assert_eq!(c.add_page(&json!({"tools": [tool("b")]})), Ok(None));
        let names: Vec<_> = c.finish().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn page_limit_at_its_edge() {
        let mut c = CatalogueBuilder::new(limits(|l| l.max_list_pages = 2));
        assert!(c.add_page(&json!({"tools": [], "nextCursor": "1"})).is_ok());
        assert_eq!(
            c.add_page(&json!({"tools": [], "nextCursor": "2"}))
                .map_err(|e| e.to_string()),
            Err("MCP tools/list exceeds 2 pages".into())
        );
        let mut ok = CatalogueBuilder::new(limits(|l| l.max_list_pages = 2));
        assert!(ok
            .add_page(&json!({"tools": [], "nextCursor": "1"}))
            .is_ok());
        assert_eq!(ok.add_page(&json!({"tools": []})), Ok(None));
    }

    #[test]
    fn repeated_cursor_is_refused() {
        let mut c = CatalogueBuilder::new(McpLimits::default());
        assert!(c
            .add_page(&json!({"tools": [], "nextCursor": "same"}))
            .is_ok());
        assert_eq!(
            c.add_page(&json!({"tools": [], "nextCursor": "same"})),
            Err(McpError::RepeatedCursor)
        );
    }

    #[test]
    fn tool_count_name_description_cursor_bounds() {
        let mut c = CatalogueBuilder::new(limits(|l| l.max_tools = 1));
        assert_eq!(
            c.add_page(&json!({"tools": [tool("a"), tool("b")]}))
                .map_err(|e| e.to_string()),
            Err("MCP tools/list exceeds 1 tools".into())
        );
        let mut c = CatalogueBuilder::new(limits(|l| l.max_tool_name_bytes = 3));
        assert!(c.add_page(&json!({"tools": [tool("abc")]})).is_ok());
        assert_eq!(
            c.add_page(&json!({"tools": [tool("abcd")]}))
                .map_err(|e| e.to_string()),
            Err("MCP tool name exceeds 3 bytes".into())
        );
        let mut c = CatalogueBuilder::new(limits(|l| l.max_tool_description_bytes = 1));
        assert_eq!(
            c.add_page(&json!({"tools": [{"name": "x", "description": "ab"}]}))
                .map_err(|e| e.to_string()),
            Err("MCP tool x description exceeds 1 bytes".into())
        );
        let mut c = CatalogueBuilder::new(limits(|l| l.max_cursor_bytes = 2));
        assert!(c
            .add_page(&json!({"tools": [], "nextCursor": "ab"}))
            .is_ok());
        assert_eq!(
            c.add_page(&json!({"tools": [], "nextCursor": "abc"}))
                .map_err(|e| e.to_string()),
            Err("MCP tools/list cursor exceeds 2 bytes".into())
        );
    }

    #[test]
    fn control_and_bidi_characters_in_names_are_refused() {
        for (name, code) in [
            ("a\u{0}b", "U+0000 at byte 1"),
            ("a\nb", "U+000A at byte 1"),
            ("\u{7f}", "U+007F at byte 0"),
            ("x\u{85}", "U+0085 at byte 1"),
            ("ab\u{202E}cd", "U+202E at byte 2"),
            ("\u{2066}x", "U+2066 at byte 0"),
            ("x\u{200F}", "U+200F at byte 1"),
            ("x\u{2028}", "U+2028 at byte 1"),
        ] {
            let mut c = CatalogueBuilder::new(McpLimits::default());
            assert_eq!(
                c.add_page(&json!({"tools": [tool(name)]}))
                    .map_err(|e| e.to_string()),
                Err(format!(
                    "MCP tools/list returned an invalid page: a tool name contains the control or bidirectional character {code}"
                ))
            );
        }
        // Ordinary non-ASCII names stay valid.
        for ok in ["caf\u{e9}", "\u{65e5}\u{672c}", "a.b-c_d", "\u{5d0}\u{5d1}"] {
            assert_eq!(check_tool_name(ok, 256), Ok(()), "{ok}");
        }
        assert!(check_tool_name("", 256).is_err());
    }

    #[test]
    fn schema_bounds_per_tool_and_aggregate() {
        let schema_len = 17; // {"type":"object"}
        let mut c = CatalogueBuilder::new(limits(|l| l.max_tool_schema_bytes = schema_len));
        assert!(c.add_page(&json!({"tools": [tool("a")]})).is_ok());
        let mut c = CatalogueBuilder::new(limits(|l| l.max_tool_schema_bytes = schema_len - 1));
        assert_eq!(
            c.add_page(&json!({"tools": [tool("a")]}))
                .map_err(|e| e.to_string()),
            Err("MCP tool a schema exceeds 16 bytes".into())
        );
        let mut c = CatalogueBuilder::new(limits(|l| {
            l.max_total_tool_schema_bytes = schema_len * 2 - 1
        }));
        assert_eq!(
            c.add_page(&json!({"tools": [tool("a"), tool("b")]}))
                .map_err(|e| e.to_string()),
            Err("MCP tool schemas exceed 33 aggregate bytes".into())
        );
        let mut c = CatalogueBuilder::new(limits(|l| l.max_json_depth = 1));
        assert_eq!(
            c.add_page(&json!({"tools": [tool("a")]}))
                .map_err(|e| e.to_string()),
            Err("MCP tool a schema exceeds depth 1".into())
        );
    }
}
