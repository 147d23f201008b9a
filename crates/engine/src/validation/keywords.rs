//! Ajv's keyword tables: which keywords each draft knows, which instance types a keyword
//! applies to, and the order in which Ajv evaluates them (which decides error order).

use jsonschema::Draft;

/// Keywords every supported draft knows (Ajv's core, metadata, content and extras).
const COMMON: &[&str] = &[
    "$comment",
    "id",
    "$ref",
    "$async",
    "$schema",
    "$id",
    "$defs",
    "$vocabulary",
    "definitions",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "type",
    "nullable",
    "const",
    "enum",
    "not",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
    "format",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxProperties",
    "minProperties",
    "required",
    "maxItems",
    "minItems",
    "uniqueItems",
    "propertyNames",
    "additionalProperties",
    "dependencies",
    "properties",
    "patternProperties",
    "items",
    "contains",
];

/// Added by 2019-09 and 2020-12.
const MODERN: &[&str] = &[
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveAnchor",
    "$recursiveRef",
    "dependentRequired",
    "dependentSchemas",
    "maxContains",
    "minContains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Whether Ajv (for this draft) knows `keyword`.
#[must_use]
pub fn is_known(keyword: &str, draft: Draft) -> bool {
    if COMMON.contains(&keyword) {
        return true;
    }
    match draft {
        Draft::Draft201909 => MODERN.contains(&keyword) || keyword == "additionalItems",
        Draft::Draft202012 => MODERN.contains(&keyword) || keyword == "prefixItems",
        _ => keyword == "additionalItems",
    }
}

/// Whether `keyword` is one of Ajv's rules for this draft (`RULES.all`): a keyword that
/// validates something, as opposed to annotations and containers (`title`, `default`,
/// `definitions`, `$id`, ...). A schema with no rules always passes; one whose only rule is
/// `$ref` is a pure reference.
#[must_use]
pub fn is_rule(keyword: &str, draft: Draft) -> bool {
    is_known(keyword, draft)
        && (RULE_ORDER.contains(&keyword)
            || matches!(
                keyword,
                "$comment"
                    | "id"
                    | "$dynamicAnchor"
                    | "$dynamicRef"
                    | "$recursiveAnchor"
                    | "$recursiveRef"
            ))
}

/// The instance types a keyword applies to (Ajv's `definition.type`); empty for any type.
#[must_use]
pub fn applies_to(keyword: &str) -> &'static [&'static str] {
    match keyword {
        "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" | "multipleOf" => {
            &["number"]
        }
        "maxLength" | "minLength" | "pattern" => &["string"],
        "format" => &["number", "string"],
        "maxItems" | "minItems" | "uniqueItems" | "additionalItems" | "prefixItems" | "items"
        | "contains" | "maxContains" | "minContains" | "unevaluatedItems" => &["array"],
        "maxProperties"
        | "minProperties"
        | "required"
        | "dependentRequired"
        | "propertyNames"
        | "additionalProperties"
        | "dependencies"
        | "properties"
        | "patternProperties"
        | "dependentSchemas"
        | "unevaluatedProperties" => &["object"],
        _ => &[],
    }
}

/// Ajv's rule order (`RULES.all`); the strictTypes check reports the first keyword in it.
pub const RULE_ORDER: &[&str] = &[
    "$ref",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxProperties",
    "minProperties",
    "required",
    "maxItems",
    "minItems",
    "uniqueItems",
    "type",
    "nullable",
    "const",
    "enum",
    "not",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
    "propertyNames",
    "additionalProperties",
    "dependencies",
    "properties",
    "patternProperties",
    "additionalItems",
    "prefixItems",
    "items",
    "contains",
    "format",
    "dependentRequired",
    "dependentSchemas",
    "maxContains",
    "minContains",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Where Ajv evaluates `keyword`'s errors: `type` first, then the untyped keywords, then the
/// number, string, array and object groups, then `unevaluated*`, each in rule order.
#[must_use]
pub fn evaluation_rank(keyword: &str) -> u32 {
    let position = RULE_ORDER
        .iter()
        .position(|k| *k == keyword)
        .map_or(RULE_ORDER.len(), |p| p);
    let group = match keyword {
        "type" => 0,
        "unevaluatedProperties" | "unevaluatedItems" => 7,
        "format" => 3,
        _ => match applies_to(keyword) {
            [] => 1,
            ["number"] => 2,
            ["string"] => 3,
            ["array"] => 4,
            _ => 5,
        },
    };
    // Both factors are small (< 100), so the product cannot overflow.
    group * 100 + u32::try_from(position).unwrap_or(99)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_each_drafts_vocabulary() {
        assert!(is_known("definitions", Draft::Draft7));
        assert!(is_known("nullable", Draft::Draft7));
        assert!(!is_known("prefixItems", Draft::Draft7));
        assert!(!is_known("x-foo", Draft::Draft7));
        assert!(is_known("prefixItems", Draft::Draft202012));
        assert!(!is_known("additionalItems", Draft::Draft202012));
        assert!(is_known("unevaluatedProperties", Draft::Draft201909));
    }

    #[test]
    fn orders_required_before_properties_and_type_first() {
        assert!(evaluation_rank("type") < evaluation_rank("enum"));
        assert!(evaluation_rank("anyOf") < evaluation_rank("minLength"));
        assert!(evaluation_rank("required") < evaluation_rank("additionalProperties"));
        assert!(evaluation_rank("additionalProperties") < evaluation_rank("properties"));
    }
}
