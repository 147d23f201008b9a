//! Ajv strict-mode parity checks, run before compilation when `strict` is on (the default).
//!
//! Ajv (`strict: true, allowUnionTypes: true`) refuses at compile time: unknown keywords
//! (`x-*` too), keywords whose type the schema does not declare (strictTypes), `required`
//! names not defined in `properties` (strictRequired), open tuples (strictTuples), `nullable`
//! without `type`, and every `format` (the reference loads no formats). The messages and
//! `"#/..."` paths are Ajv's, so hosts that match on them keep working.

use jsonschema::Draft;
use serde_json::{Map, Value};

use super::issue::Issue;
use super::keywords::{applies_to, is_known, is_rule, RULE_ORDER};

/// Runs the strict checks over a whole schema.
///
/// # Errors
/// The first violation, in Ajv's wording.
pub fn check_strict(schema: &Value, draft: Draft) -> Result<(), Issue> {
    let walk = Strict { draft };
    walk.schema(schema, &mut String::from("#"), &[], &[])
}

struct Strict {
    draft: Draft,
}

fn fail<T>(message: String) -> Result<T, Issue> {
    Err(Issue::message(message))
}

fn types_of(map: &Map<String, Value>) -> Vec<&str> {
    let mut types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if map.get("nullable") == Some(&Value::Bool(true)) && !types.contains(&"null") {
        types.push("null");
    }
    types
}

fn includes_type(types: &[&str], t: &str) -> bool {
    types.contains(&t) || (t == "integer" && types.contains(&"number"))
}

fn has_applicable_type(types: &[&str], keyword_type: &str) -> bool {
    types.contains(&keyword_type) || (keyword_type == "number" && types.contains(&"integer"))
}

/// Appends a JSON-pointer segment (`~` and `/` escaped).
fn push_segment(path: &mut String, segment: &str) {
    path.push('/');
    path.push_str(&segment.replace('~', "~0").replace('/', "~1"));
}

impl Strict {
    /// Whether a subschema can fail (Ajv's `alwaysValidSchema` is false): `false`, or an
    /// object with at least one rule.
    fn can_fail(&self, schema: &Value) -> bool {
        match schema {
            Value::Bool(b) => !b,
            Value::Object(map) => map.keys().any(|k| is_rule(k, self.draft)),
            _ => true,
        }
    }

    /// Checks one subschema. `context` holds the types an in-place parent declared;
    /// `defined` the property names in-place parents define.
    fn schema(
        &self,
        schema: &Value,
        path: &mut String,
        context: &[&str],
        defined: &[&str],
    ) -> Result<(), Issue> {
        let Value::Object(map) = schema else {
            return Ok(());
        };
        if let Some(key) = map.keys().find(|k| !is_known(k, self.draft)) {
            return fail(format!("strict mode: unknown keyword: \"{key}\""));
        }
        if map.get("nullable") == Some(&Value::Bool(true)) && !map.contains_key("type") {
            return fail("\"nullable\" cannot be used without \"type\"".to_owned());
        }
        let types = self.data_types(map, path, context)?;
        for keyword in RULE_ORDER {
            let wanted = applies_to(keyword);
            if map.contains_key(*keyword)
                && !wanted.is_empty()
                && !wanted.iter().any(|t| has_applicable_type(&types, t))
            {
                return fail(format!(
                    "strict mode: missing type \"{}\" for keyword \"{keyword}\" at \"{path}\" (strictTypes)",
                    wanted.join(",")
                ));
            }
        }
        let mut here: Vec<&str> = defined.to_vec();
        if let Some(Value::Object(props)) = map.get("properties") {
            here.extend(props.keys().map(String::as_str));
        }
        self.in_place(map, path, &types, &here)?;
        self.format(map, path)?;
        self.additional_items(map)?;
        self.tuples(map, path)?;
        self.contains(map)?;
        self.required(map, path, &here)?;
        self.matching_properties(map)?;
        self.recursive_anchor(map)?;
        self.children(map, path)
    }

    /// Ajv's checkContextTypes: own types must fit the context; the result narrows it.
    fn data_types<'a>(
        &self,
        map: &'a Map<String, Value>,
        path: &str,
        context: &[&'a str],
    ) -> Result<Vec<&'a str>, Issue> {
        let own = types_of(map);
        if own.is_empty() {
            return Ok(context.to_vec());
        }
        if context.is_empty() {
            return Ok(own);
        }
        for t in &own {
            if !includes_type(context, t) {
                return fail(format!(
                    "strict mode: type \"{t}\" not allowed by context \"{}\" at \"{path}\" (strictTypes)",
                    context.join(",")
                ));
            }
        }
        Ok(context
            .iter()
            .filter_map(|t| {
                if includes_type(&own, t) {
                    Some(*t)
                } else if own.contains(&"integer") && *t == "number" {
                    Some("integer")
                } else {
                    None
                }
            })
            .collect())
    }

    /// Subschemas evaluated against the same data: they inherit types and defined names.
    fn in_place(
        &self,
        map: &Map<String, Value>,
        path: &mut String,
        types: &[&str],
        defined: &[&str],
    ) -> Result<(), Issue> {
        let has_if = map.contains_key("if");
        let (has_then, has_else) = (map.contains_key("then"), map.contains_key("else"));
        for keyword in ["not", "anyOf", "oneOf", "allOf", "if", "then", "else"] {
            match keyword {
                "if" if has_if && !has_then && !has_else => {
                    return fail(
                        "strict mode: \"if\" without \"then\" and \"else\" is ignored".into(),
                    );
                }
                // Ajv compiles `if` only when a `then` or `else` can fail.
                "if" if !map.get("then").is_some_and(|s| self.can_fail(s))
                    && !map.get("else").is_some_and(|s| self.can_fail(s)) =>
                {
                    continue;
                }
                "then" | "else" if map.contains_key(keyword) && !has_if => {
                    return fail(format!(
                        "strict mode: \"{keyword}\" without \"if\" is ignored"
                    ));
                }
                _ => {}
            }
            match map.get(keyword) {
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        let len = path.len();
                        push_segment(path, keyword);
                        push_segment(path, &i.to_string());
                        self.schema(item, path, types, defined)?;
                        path.truncate(len);
                    }
                }
                Some(item) => {
                    let len = path.len();
                    push_segment(path, keyword);
                    self.schema(item, path, types, defined)?;
                    path.truncate(len);
                }
                None => {}
            }
        }
        Ok(())
    }

    /// Ajv: `additionalItems` beside a non-array `items` (or none) is ignored, so refused.
    fn additional_items(&self, map: &Map<String, Value>) -> Result<(), Issue> {
        if self.draft == Draft::Draft202012
            || !map.contains_key("additionalItems")
            || map.get("items").is_some_and(Value::is_array)
        {
            return Ok(());
        }
        fail(
            "strict mode: \"additionalItems\" is ignored when \"items\" is not an array of schemas"
                .into(),
        )
    }

    /// Ajv (2019-09 and later): `minContains`/`maxContains` need `contains`; `minContains: 0`
    /// alone disables `contains`; `minContains > maxContains` can never pass.
    fn contains(&self, map: &Map<String, Value>) -> Result<(), Issue> {
        if !matches!(self.draft, Draft::Draft201909 | Draft::Draft202012) {
            return Ok(());
        }
        let min = map.get("minContains").and_then(Value::as_f64);
        let max = map.get("maxContains").and_then(Value::as_f64);
        if map.contains_key("contains") {
            let min = min.unwrap_or(1.0);
            match max {
                None if min == 0.0 => {
                    return fail("strict mode: \"minContains\" == 0 without \"maxContains\": \"contains\" keyword ignored".into());
                }
                Some(max) if min > max => {
                    return fail(
                        "strict mode: \"minContains\" > \"maxContains\" is always invalid".into(),
                    );
                }
                _ => {}
            }
            return Ok(());
        }
        for keyword in ["maxContains", "minContains"] {
            if map.contains_key(keyword) {
                return fail(format!(
                    "strict mode: \"{keyword}\" without \"contains\" is ignored"
                ));
            }
        }
        Ok(())
    }

    /// Ajv: a `properties` name that a `patternProperties` pattern also matches is refused
    /// (`allowMatchingProperties` is off). Patterns whose schemas cannot fail are skipped in
    /// draft-07, as Ajv skips the keyword then.
    fn matching_properties(&self, map: &Map<String, Value>) -> Result<(), Issue> {
        let (Some(Value::Object(patterns)), Some(Value::Object(props))) =
            (map.get("patternProperties"), map.get("properties"))
        else {
            return Ok(());
        };
        let tracks_evaluated = matches!(self.draft, Draft::Draft201909 | Draft::Draft202012);
        if props.is_empty() || (!tracks_evaluated && !patterns.values().any(|s| self.can_fail(s))) {
            return Ok(());
        }
        for pattern in patterns.keys() {
            let Ok(matcher) = jsonschema::validator_for(&serde_json::json!({ "pattern": pattern }))
            else {
                // An invalid pattern fails compilation with the crate's message.
                return Ok(());
            };
            if let Some(name) = props
                .keys()
                .find(|name| matcher.is_valid(&Value::String((*name).clone())))
            {
                return fail(format!(
                    "strict mode: property {name} matches pattern {pattern} (use allowMatchingProperties)"
                ));
            }
        }
        Ok(())
    }

    /// Ajv (2019-09): `$recursiveAnchor: false` does nothing, so it is refused.
    fn recursive_anchor(&self, map: &Map<String, Value>) -> Result<(), Issue> {
        if self.draft == Draft::Draft201909
            && map.get("$recursiveAnchor") == Some(&Value::Bool(false))
        {
            return fail("strict mode: $recursiveAnchor: false is ignored".into());
        }
        Ok(())
    }

    fn format(&self, map: &Map<String, Value>, path: &str) -> Result<(), Issue> {
        match map.get("format") {
            Some(Value::String(name)) => fail(format!(
                "unknown format \"{name}\" ignored in schema at path \"{path}\""
            )),
            _ => Ok(()),
        }
    }

    fn tuples(&self, map: &Map<String, Value>, path: &str) -> Result<(), Issue> {
        let (keyword, extra) = if self.draft == Draft::Draft202012 {
            ("prefixItems", "items")
        } else {
            ("items", "additionalItems")
        };
        let Some(Value::Array(tuple)) = map.get(keyword) else {
            return Ok(());
        };
        let len = Value::from(tuple.len());
        let full = map.get("minItems") == Some(&len)
            && (map.get("maxItems") == Some(&len) || map.get(extra) == Some(&Value::Bool(false)));
        if full {
            return Ok(());
        }
        fail(format!(
            "strict mode: \"{keyword}\" is {}-tuple, but minItems or maxItems/{extra} are not specified or different at path \"{path}\"",
            tuple.len()
        ))
    }

    fn required(
        &self,
        map: &Map<String, Value>,
        path: &str,
        defined: &[&str],
    ) -> Result<(), Issue> {
        let Some(Value::Array(names)) = map.get("required") else {
            return Ok(());
        };
        for name in names.iter().filter_map(Value::as_str) {
            if !defined.contains(&name) {
                return fail(format!(
                    "strict mode: required property \"{name}\" is not defined at \"{path}\" (strictRequired)"
                ));
            }
        }
        Ok(())
    }

    /// Subschemas of other data (properties, items, ...) and definitions: a fresh context.
    fn children(&self, map: &Map<String, Value>, path: &mut String) -> Result<(), Issue> {
        for (keyword, value) in map {
            let len = path.len();
            push_segment(path, keyword);
            match keyword.as_str() {
                "propertyNames" => self.schema(value, path, &["string"], &[])?,
                "additionalProperties"
                | "additionalItems"
                | "contains"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "contentSchema" => {
                    self.schema(value, path, &[], &[])?;
                }
                "items" | "prefixItems" => self.each(value, path)?,
                "properties" | "patternProperties" | "$defs" | "definitions"
                | "dependentSchemas" | "dependencies" => {
                    if let Value::Object(entries) = value {
                        for (name, sub) in entries {
                            let len = path.len();
                            push_segment(path, name);
                            self.schema(sub, path, &[], &[])?;
                            path.truncate(len);
                        }
                    }
                }
                _ => {}
            }
            path.truncate(len);
        }
        Ok(())
    }

    fn each(&self, value: &Value, path: &mut String) -> Result<(), Issue> {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    push_segment(path, &i.to_string());
                    self.schema(item, path, &[], &[])?;
                    path.truncate(len);
                }
                Ok(())
            }
            other => self.schema(other, path, &[], &[]),
        }
    }
}

/// Ajv's outcome for a cycle of pure references (`{"$ref": ...}` with no other rule, each
/// pointing at the next): resolving one follows the next forever, and the compile fails with
/// the JavaScript engine's stack-overflow message. The crate would accept every value
/// instead. Only references Ajv compiles count: those reachable from the root through
/// applicators, not unused `definitions`.
pub const REF_CYCLE_MESSAGE: &str = "Maximum call stack size exceeded";

/// Refuses a schema in which a reachable `$ref` starts a cycle of pure references.
///
/// # Errors
/// [`REF_CYCLE_MESSAGE`].
///
/// With `strict` under draft-07 it also refuses, as the reference's Ajv (`addUsedSchema:
/// false`) does, a reachable `$ref` to the root (`#`) of a root without `$id`: `can't resolve
/// reference # from id #`.
pub fn check_ref_cycles(schema: &Value, draft: Draft, strict: bool) -> Result<(), Issue> {
    let mut walk = RefWalk {
        root: schema,
        draft,
        visited: Vec::new(),
        root_refs_fail: strict
            && draft == Draft::Draft7
            && !schema.get("$id").is_some_and(Value::is_string),
        inside_id: 0,
    };
    walk.schema(schema)
}

struct RefWalk<'a> {
    root: &'a Value,
    draft: Draft,
    /// Reference targets already walked (the walk follows each once).
    visited: Vec<&'a str>,
    /// Whether `#` fails to resolve in the root resource.
    root_refs_fail: bool,
    /// How many subschemas with their own `$id` enclose the current one.
    inside_id: usize,
}

impl<'a> RefWalk<'a> {
    fn schema(&mut self, schema: &'a Value) -> Result<(), Issue> {
        let Value::Object(map) = schema else {
            return Ok(());
        };
        let own_id =
            !std::ptr::eq(schema, self.root) && map.get("$id").is_some_and(Value::is_string);
        self.inside_id += usize::from(own_id);
        let result = self.keywords(map);
        self.inside_id -= usize::from(own_id);
        result
    }

    fn keywords(&mut self, map: &'a Map<String, Value>) -> Result<(), Issue> {
        if let Some(Value::String(reference)) = map.get("$ref") {
            if self.root_refs_fail
                && self.inside_id == 0
                && matches!(reference.as_str(), "#" | "#/")
            {
                return fail(format!("can't resolve reference {reference} from id #"));
            }
            self.reference(reference)?;
        }
        for (keyword, value) in map {
            match keyword.as_str() {
                "not"
                | "if"
                | "then"
                | "else"
                | "additionalProperties"
                | "propertyNames"
                | "additionalItems"
                | "contains"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "items"
                | "prefixItems"
                | "anyOf"
                | "oneOf"
                | "allOf" => match value {
                    Value::Array(items) => {
                        for item in items {
                            self.schema(item)?;
                        }
                    }
                    other => self.schema(other)?,
                },
                "properties" | "patternProperties" | "dependencies" | "dependentSchemas" => {
                    if let Value::Object(entries) = value {
                        for sub in entries.values() {
                            self.schema(sub)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Follows the chain of pure references from `reference`; a repeat is a cycle. Then walks
    /// the target once.
    fn reference(&mut self, reference: &'a str) -> Result<(), Issue> {
        let mut chain: Vec<&str> = Vec::new();
        let mut current = reference;
        let mut target = None;
        while let Some(found) = resolve_fragment(self.root, current) {
            if chain.contains(&current) {
                return fail(REF_CYCLE_MESSAGE.to_owned());
            }
            chain.push(current);
            target = Some((current, found));
            match found {
                Value::Object(map)
                    if !map.keys().any(|k| k != "$ref" && is_rule(k, self.draft)) =>
                {
                    match map.get("$ref") {
                        Some(Value::String(next)) => current = next,
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        if let Some((pointer, found)) = target {
            if !self.visited.contains(&pointer) {
                self.visited.push(pointer);
                self.schema(found)?;
            }
        }
        Ok(())
    }
}

/// The subschema a `#/...` reference names in `root` (percent-decoded JSON pointer); `None`
/// for other references (`#`, anchors, remote) and for missing targets.
fn resolve_fragment<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let pointer = reference.strip_prefix('#')?;
    if !pointer.starts_with('/') {
        return None;
    }
    root.pointer(&percent_decode(pointer)?)
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Refuses a schema whose `$ref`s, expanded, amount to more than
/// [`SCHEMA_MAX_EXPANSION`](crate::limits::SCHEMA_MAX_EXPANSION) subschemas: validation work
/// grows with that expansion, so a few shared definitions could otherwise make it exponential.
/// Iterative (explicit stacks), so no schema can exhaust the stack here.
///
/// # Errors
/// `schema expands to more than N subschemas through $ref`.
pub fn check_expansion(schema: &Value) -> Result<(), Issue> {
    let cap = crate::limits::SCHEMA_MAX_EXPANSION;
    // Targets: 0 is the root; the others are `#/...` reference targets, by pointer.
    let mut pointers: Vec<&str> = vec![""];
    let mut nodes: Vec<&Value> = vec![schema];
    // Per target: its own subschema count and the targets its `$ref`s name.
    let mut local: Vec<u64> = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        let (count, refs) = local_walk(nodes[i]);
        let mut out = Vec::with_capacity(refs.len());
        for reference in refs {
            let Some(target) = resolve_fragment(schema, reference) else {
                continue;
            };
            let index = match pointers.iter().position(|p| *p == reference) {
                Some(index) => index,
                None => {
                    pointers.push(reference);
                    nodes.push(target);
                    nodes.len() - 1
                }
            };
            out.push(index);
        }
        local.push(count);
        edges.push(out);
        i += 1;
    }
    // Post-order over the target graph; an edge back to a target in progress counts nothing
    // (that recursion descends into the data, or is a cycle refused or cut elsewhere).
    let n = nodes.len();
    let mut cost: Vec<Option<u64>> = vec![None; n];
    let mut in_progress = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    in_progress[0] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&child) = edges[node].get(*next) {
            *next += 1;
            if cost[child].is_none() && !in_progress[child] {
                in_progress[child] = true;
                stack.push((child, 0));
            }
            continue;
        }
        let total = edges[node]
            .iter()
            .filter_map(|&c| cost[c])
            .fold(local[node], u64::saturating_add);
        if total > cap {
            return fail(format!(
                "schema expands to more than {cap} subschemas through $ref"
            ));
        }
        cost[node] = Some(total);
        in_progress[node] = false;
        stack.pop();
    }
    Ok(())
}

/// The subschema objects in one target (definitions left out: they count where referenced)
/// and the `$ref`s among them.
fn local_walk(root: &Value) -> (u64, Vec<&str>) {
    let mut count = 0u64;
    let mut refs = Vec::new();
    let mut stack = vec![root];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                count += 1;
                for (key, child) in map {
                    match key.as_str() {
                        "$ref" => {
                            if let Value::String(r) = child {
                                refs.push(r.as_str());
                            }
                        }
                        "definitions" | "$defs" | "const" | "enum" | "default" | "examples" => {}
                        _ => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    (count, refs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(schema: Value) -> Result<(), String> {
        check_strict(&schema, Draft::Draft7).map_err(|e| e.message)
    }

    #[test]
    fn rejects_what_ajv_strict_rejects() {
        assert_eq!(
            strict(json!({"x-a": 1})),
            Err("strict mode: unknown keyword: \"x-a\"".into())
        );
        assert_eq!(
            strict(json!({"properties": {"a": {"type": "string"}}})),
            Err("strict mode: missing type \"object\" for keyword \"properties\" at \"#\" (strictTypes)".into())
        );
        assert_eq!(
            strict(json!({"type": "object", "required": ["b"], "properties": {"a": {}}})),
            Err(
                "strict mode: required property \"b\" is not defined at \"#\" (strictRequired)"
                    .into()
            )
        );
        assert_eq!(
            strict(
                json!({"type": "object", "properties": {"e": {"type": "string", "format": "email"}}})
            ),
            Err("unknown format \"email\" ignored in schema at path \"#/properties/e\"".into())
        );
        assert_eq!(
            strict(json!({"type": "array", "items": [{"type": "string"}]})),
            Err("strict mode: \"items\" is 1-tuple, but minItems or maxItems/additionalItems are not specified or different at path \"#\"".into())
        );
    }

    #[test]
    fn accepts_what_ajv_strict_accepts() {
        for ok in [
            json!({"type": ["string", "null"], "minLength": 2}),
            json!({"type": "string", "nullable": true, "default": "x"}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "integer"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {"type": "integer"}}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"maxLength": 3}}),
            json!({"type": "object", "properties": {"a": {}}, "anyOf": [{"required": ["a"]}]}),
        ] {
            assert_eq!(strict(ok.clone()), Ok(()), "{ok}");
        }
    }

    fn strict_in(draft: Draft, schema: Value) -> Result<(), String> {
        check_strict(&schema, draft).map_err(|e| e.message)
    }

    #[test]
    fn refuses_keywords_ajv_would_ignore() {
        let cases = [
            (json!({"if": {"type": "string"}}), "strict mode: \"if\" without \"then\" and \"else\" is ignored"),
            (json!({"then": {}}), "strict mode: \"then\" without \"if\" is ignored"),
            (json!({"else": {"type": "string"}}), "strict mode: \"else\" without \"if\" is ignored"),
            (
                json!({"type": "array", "additionalItems": false}),
                "strict mode: \"additionalItems\" is ignored when \"items\" is not an array of schemas",
            ),
            (
                json!({"type": "object", "properties": {"foo": {}}, "patternProperties": {"^f": {"type": "string"}}}),
                "strict mode: property foo matches pattern ^f (use allowMatchingProperties)",
            ),
        ];
        for (schema, message) in cases {
            assert_eq!(strict(schema.clone()), Err(message.to_owned()), "{schema}");
        }
        // Ajv skips an `if` whose `then`/`else` cannot fail, and patterns that cannot fail.
        assert_eq!(strict(json!({"if": {"x-a": 1}, "then": {}})), Ok(()));
        assert_eq!(
            strict(
                json!({"type": "object", "properties": {"foo": {}}, "patternProperties": {"^f": {}}})
            ),
            Ok(())
        );
    }

    #[test]
    fn contains_limits_follow_ajv_in_modern_drafts() {
        let d = Draft::Draft202012;
        assert_eq!(
            strict_in(d, json!({"type": "array", "minContains": 2})),
            Err("strict mode: \"minContains\" without \"contains\" is ignored".into())
        );
        assert_eq!(
            strict_in(d, json!({"type": "array", "maxContains": 2})),
            Err("strict mode: \"maxContains\" without \"contains\" is ignored".into())
        );
        assert_eq!(
            strict_in(d, json!({"type": "array", "contains": {}, "minContains": 0})),
            Err("strict mode: \"minContains\" == 0 without \"maxContains\": \"contains\" keyword ignored".into())
        );
        assert_eq!(
            strict_in(
                d,
                json!({"type": "array", "contains": {}, "minContains": 3, "maxContains": 2})
            ),
            Err("strict mode: \"minContains\" > \"maxContains\" is always invalid".into())
        );
        assert_eq!(
            strict_in(
                d,
                json!({"type": "array", "contains": {}, "minContains": 2})
            ),
            Ok(())
        );
        assert_eq!(
            strict_in(
                Draft::Draft201909,
                json!({"$recursiveAnchor": false, "type": "string"})
            ),
            Err("strict mode: $recursiveAnchor: false is ignored".into())
        );
    }

    fn cycles(schema: Value, strict: bool) -> Result<(), String> {
        check_ref_cycles(&schema, Draft::Draft7, strict).map_err(|e| e.message)
    }

    #[test]
    fn pure_ref_cycles_fail_as_in_ajv() {
        for schema in [
            json!({"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/a"}}}),
            json!({"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}),
            json!({"allOf": [{"$ref": "#/definitions/a"}], "definitions": {"a": {"title": "t", "$ref": "#/definitions/a%61"}, "aa": {"$ref": "#/definitions/a"}}}),
        ] {
            assert_eq!(
                cycles(schema.clone(), false),
                Err(REF_CYCLE_MESSAGE.into()),
                "{schema}"
            );
        }
        for schema in [
            // Unused, or not pure (a rule beside the `$ref`), or descending into the data.
            json!({"definitions": {"a": {"$ref": "#/definitions/a"}}}),
            json!({"$ref": "#/definitions/a", "definitions": {"a": {"type": "integer", "$ref": "#/definitions/a"}}}),
            json!({"$ref": "#/definitions/n", "definitions": {"n": {"type": "object", "properties": {"c": {"$ref": "#/definitions/n"}}}}}),
        ] {
            assert_eq!(cycles(schema.clone(), true), Ok(()), "{schema}");
        }
    }

    #[test]
    fn root_refs_fail_under_draft7_strict_without_id() {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": "#"}}});
        assert_eq!(
            cycles(schema.clone(), true),
            Err("can't resolve reference # from id #".into())
        );
        assert_eq!(cycles(schema, false), Ok(()));
        let with_id = json!({"$id": "http://example.com/s.json", "type": "object", "properties": {"a": {"$ref": "#"}}});
        assert_eq!(cycles(with_id, true), Ok(()));
        let nested_id = json!({"type": "object", "properties": {"a": {"$id": "http://example.com/t.json", "type": "object", "properties": {"b": {"$ref": "#"}}}}});
        assert_eq!(cycles(nested_id, true), Ok(()));
    }

    #[test]
    fn shared_refs_that_expand_exponentially_are_refused() {
        let mut defs = Map::new();
        for i in 0..40 {
            let next = format!("#/definitions/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("d40".into(), json!({"type": "string"}));
        let schema = json!({"$ref": "#/definitions/d0", "definitions": defs});
        assert_eq!(
            check_expansion(&schema).map_err(|e| e.message),
            Err(format!(
                "schema expands to more than {} subschemas through $ref",
                crate::limits::SCHEMA_MAX_EXPANSION
            ))
        );
        // Recursion through the data, and a definition shared by many properties, are fine.
        let tree = json!({"$ref": "#/definitions/n", "definitions": {"n": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/definitions/n"}}}}}});
        assert_eq!(check_expansion(&tree), Ok(()));
        let props: Map<String, Value> = (0..500)
            .map(|i| (format!("p{i}"), json!({"$ref": "#/definitions/common"})))
            .collect();
        let shared = json!({"type": "object", "properties": props, "definitions": {"common": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}}});
        assert_eq!(check_expansion(&shared), Ok(()));
    }
}
