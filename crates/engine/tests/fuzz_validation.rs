//! Fuzzing of JSON Schema validation: the schema walk and compile (strict and not), the
//! instance walk and validation, and JSON text parsing. Random schemas built from the
//! drafts' keywords (with `$ref`s between definitions, cycles included), random instances,
//! and hostile JSON text: deep nesting, lone surrogates, huge numbers, duplicate keys,
//! truncation and stray bytes. Nothing may panic or overflow the stack; every outcome is
//! `Ok` or a list of issues. `PRISM_FUZZ_SECONDS` sets each target's budget.

mod common;

use fastrand::Rng;
use prism_engine::validation::json_text::{self, ParseError};
use prism_engine::validation::{
    CompileSettings, Options, RawOptions, RefPolicy, SchemaValidator, ValidationLimitsInput,
};
use serde_json::{json, Map, Value};

/// The hard cap on nesting (schema and instance): one past it must be refused, not recursed.
const HARD_DEPTH: usize = 128;

fn strict_validator() -> SchemaValidator {
    SchemaValidator::new(Options {
        max_compiled_schemas: 8,
        ..Options::default()
    })
}

/// A validator at the hard caps, so wide and deep instances reach validation itself.
fn wide_validator() -> SchemaValidator {
    let raw = RawOptions {
        limits: ValidationLimitsInput {
            max_errors: Some(64.0),
            max_depth: Some(128.0),
            max_properties: Some(100_000.0),
            max_string_length: Some(8_388_608.0),
            max_array_length: Some(100_000.0),
            ..ValidationLimitsInput::default()
        },
        ..RawOptions::default()
    };
    match Options::resolve(&raw) {
        Ok(options) => SchemaValidator::new(options),
        Err(e) => panic!("hard caps must resolve: {e}"),
    }
}

fn loose_validator() -> SchemaValidator {
    let options = Options {
        strict: false,
        max_compiled_schemas: 8,
        ..Options::default()
    };
    let settings = CompileSettings {
        validate_formats: true,
        ..CompileSettings::default()
    };
    SchemaValidator::with_settings(options, settings, RefPolicy::FragmentOnly)
}

const WORDS: &[&str] = &[
    "a",
    "b",
    "c",
    "foo",
    "",
    "x-y",
    "__proto__",
    "\u{202e}",
    "a/b",
    "~0",
];
const TYPES: &[&str] = &[
    "string", "number", "integer", "object", "array", "boolean", "null", "nope",
];
const PATTERNS: &[&str] = &[
    "^a+$",
    "(a+)+$",
    "^(a|aa)+$",
    "[",
    "\\p{L}",
    "(?=a)a",
    "^.*$",
    "\\d{2,}",
    "(a*)*b",
];
const FORMATS: &[&str] = &[
    "email",
    "date-time",
    "uri",
    "regex",
    "ipv4",
    "hostname",
    "unknown",
];

fn word(rng: &mut Rng) -> String {
    WORDS[rng.usize(..WORDS.len())].to_owned()
}

fn number(rng: &mut Rng) -> Value {
    match rng.u8(..8) {
        0 => json!(0),
        1 => json!(rng.i64(..)),
        2 => json!(rng.f64() * 10.0),
        3 => json!(f64::MAX),
        4 => json!(f64::MIN_POSITIVE),
        5 => json!(1e-300),
        6 => json!(-(rng.u32(..100) as i64)),
        _ => json!(0.1 * f64::from(rng.u8(..30))),
    }
}

/// A random JSON value (an instance, `const`, `enum` item or `default`).
fn value(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth == 0 || rng.u8(..3) == 0;
    match if leaf { rng.u8(..4) } else { rng.u8(..6) } {
        0 => Value::Null,
        1 => Value::Bool(rng.bool()),
        2 => number(rng),
        3 => {
            let mut s = word(rng);
            if rng.u8(..10) == 0 {
                s = "a".repeat(rng.usize(..64)) + "b";
            }
            Value::String(s)
        }
        4 => Value::Array((0..rng.usize(..5)).map(|_| value(rng, depth - 1)).collect()),
        _ => Value::Object(
            (0..rng.usize(..5))
                .map(|_| (word(rng), value(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// A random schema: mostly well-typed keywords, sometimes wrong ones, with `$ref`s to
/// definitions `d0`..`d3` (which may refer to each other and to themselves).
fn schema(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 || rng.u8(..6) == 0 {
        return match rng.u8(..4) {
            0 => Value::Bool(rng.bool()),
            1 => json!({ "$ref": format!("#/definitions/d{}", rng.u8(..5)) }),
            2 => json!({ "type": TYPES[rng.usize(..TYPES.len())] }),
            _ => json!({}),
        };
    }
    let mut map = Map::new();
    for _ in 0..rng.usize(1..5) {
        let sub = |rng: &mut Rng| schema(rng, depth - 1);
        let (key, val): (&str, Value) = match rng.u8(..34) {
            0 => ("type", json!(TYPES[rng.usize(..TYPES.len())])),
            1 => ("type", json!(["string", "null"])),
            2 => ("properties", {
                let props: Map<String, Value> =
                    (0..rng.usize(..4)).map(|_| (word(rng), sub(rng))).collect();
                Value::Object(props)
            }),
            3 => ("required", json!([word(rng), word(rng)])),
            4 => ("additionalProperties", sub(rng)),
            5 => ("items", sub(rng)),
            6 => ("items", json!([sub(rng), sub(rng)])),
            7 => ("additionalItems", sub(rng)),
            8 => ("anyOf", json!([sub(rng), sub(rng)])),
            9 => ("oneOf", json!([sub(rng), sub(rng)])),
            10 => ("allOf", json!([sub(rng)])),
            11 => ("not", sub(rng)),
            12 => ("if", sub(rng)),
            13 => ("then", sub(rng)),
            14 => ("else", sub(rng)),
            15 => ("contains", sub(rng)),
            16 => ("minContains", json!(rng.u8(..3))),
            17 => ("maxContains", json!(rng.u8(..3))),
            18 => ("multipleOf", number(rng)),
            19 => ("minimum", number(rng)),
            20 => ("maxLength", json!(rng.u8(..5))),
            21 => ("pattern", json!(PATTERNS[rng.usize(..PATTERNS.len())])),
            22 => ("patternProperties", {
                let mut m = Map::new();
                m.insert(PATTERNS[rng.usize(..PATTERNS.len())].to_owned(), sub(rng));
                Value::Object(m)
            }),
            23 => ("enum", json!([value(rng, 2), value(rng, 2)])),
            24 => ("const", value(rng, 2)),
            25 => ("uniqueItems", json!(rng.bool())),
            26 => ("format", json!(FORMATS[rng.usize(..FORMATS.len())])),
            27 => ("$ref", json!(format!("#/definitions/d{}", rng.u8(..5)))),
            28 => (
                "$ref",
                json!(
                    [
                        "#",
                        "#/",
                        "#/properties",
                        "#/definitions",
                        "#%2Fx",
                        "#/definitions/d0/not"
                    ][rng.usize(..6)]
                ),
            ),
            29 => ("nullable", json!(rng.bool())),
            30 => ("propertyNames", sub(rng)),
            31 => ("dependencies", json!({ "a": sub(rng), "b": ["a"] })),
            32 => ("minimum", json!("wrong type")),
            _ => ("x-unknown", json!(1)),
        };
        map.insert(key.to_owned(), val);
    }
    Value::Object(map)
}

/// A root schema with definitions, sometimes under another draft.
fn root_schema(rng: &mut Rng) -> Value {
    let mut root = schema(rng, 4);
    if let Value::Object(map) = &mut root {
        let defs: Map<String, Value> = (0..rng.usize(..5))
            .map(|i| (format!("d{i}"), schema(rng, 3)))
            .collect();
        map.insert("definitions".into(), Value::Object(defs));
        match rng.u8(..6) {
            0 => {
                map.insert(
                    "$schema".into(),
                    json!("https://json-schema.org/draft/2020-12/schema"),
                );
            }
            1 => {
                map.insert(
                    "$schema".into(),
                    json!("https://json-schema.org/draft/2019-09/schema"),
                );
            }
            _ => {}
        }
    }
    root
}

fn check_both(schema_text: &str, instance_text: &str) {
    for mut v in [strict_validator(), loose_validator()] {
        let _ = v.validate(schema_text, instance_text);
        // A second time goes through the compile cache.
        let _ = v.validate(schema_text, instance_text);
    }
}

#[test]
fn fuzz_schema_walk_and_compile() {
    common::fuzz::run("schema_walk", |rng| {
        let schema = root_schema(rng);
        let text = schema.to_string();
        for _ in 0..3 {
            let instance = value(rng, 4).to_string();
            if std::env::var_os("PRISM_FUZZ_VERBOSE").is_some() {
                eprintln!("schema {text}\ninstance {instance}");
            }
            check_both(&text, &instance);
        }
    });
}

#[test]
fn fuzz_instance_walk() {
    let schemas = [
        json!({}),
        json!({"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}}),
        json!({"type": "array", "uniqueItems": true, "items": {"type": ["number", "string", "object", "array", "null", "boolean"]}}),
        json!({"anyOf": [{"type": "string", "pattern": "(a+)+$"}, {"type": "number", "multipleOf": 0.01}]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/t"}}, "definitions": {"t": {"type": "array", "items": {"$ref": "#/definitions/t"}}}}),
    ];
    let texts: Vec<String> = schemas.iter().map(Value::to_string).collect();
    common::fuzz::run("instance_walk", |rng| {
        let mut instance = value(rng, 6);
        match rng.u8(..6) {
            // Wide: many items (with duplicates far apart) or many properties.
            0 => {
                let n = rng.usize(..100_000);
                let mut items: Vec<Value> = (0..n).map(|i| json!(i)).collect();
                if n > 1 && rng.bool() {
                    items[1] = json!(0);
                }
                instance = Value::Array(items);
            }
            1 => {
                let n = rng.usize(..3_000);
                instance = Value::Object((0..n).map(|i| (format!("k{i}"), json!(i))).collect());
            }
            // Deep: around the hard cap.
            2 => {
                for _ in 0..rng.usize(HARD_DEPTH - 4..HARD_DEPTH + 4) {
                    instance = json!([instance]);
                }
            }
            // Long strings.
            3 => instance = Value::String("a".repeat(rng.usize(..2_000_000)) + "!"),
            _ => {}
        }
        let text = instance.to_string();
        let mut v = wide_validator();
        for schema in &texts {
            let _ = v.validate(schema, &text);
        }
    });
}

/// Hostile JSON text, derived from a random value's text.
fn hostile_text(rng: &mut Rng) -> String {
    let mut text = value(rng, 5).to_string();
    match rng.u8(..10) {
        0 => {
            let n = rng.usize(..50_000);
            let open = if rng.bool() { "[" } else { "{\"a\":" };
            text = open.repeat(n) + "1" + &if open == "[" { "]" } else { "}" }.repeat(n);
        }
        1 => {
            let unit = [
                "\\ud800",
                "\\udc00",
                "\\ud83d\\ude00",
                "\\uDFFF",
                "\\u00",
                "\\",
            ][rng.usize(..6)];
            text = format!("{{\"{unit}\":\"x{unit}{unit}\"}}");
        }
        2 => {
            text = [
                "1e400",
                "-1e400",
                "1e-400",
                "123456789012345678901234567890",
                "-0",
                "1.0",
                "0.1e1",
            ][rng.usize(..7)]
            .to_owned()
        }
        3 => text = r#"{"a":1,"a":2,"a":{"a":[1,1]}}"#.to_owned(),
        4 => {
            let mut cut = rng.usize(..=text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        5 => {
            let mut bytes = text.into_bytes();
            for _ in 0..rng.usize(1..4) {
                if !bytes.is_empty() {
                    let i = rng.usize(..bytes.len());
                    bytes[i] = {
                        let pool = b"[]{}\",:\\u0";
                        pool[rng.usize(..pool.len())]
                    };
                }
            }
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        6 => text = "\"".to_owned() + &"\\[".repeat(rng.usize(..10_000)) + "\"",
        7 => text = "[".repeat(rng.usize(..300)),
        _ => {}
    }
    text
}

#[test]
fn fuzz_json_text() {
    common::fuzz::run("json_text", |rng| {
        let text = hostile_text(rng);
        match json_text::parse(&text, HARD_DEPTH + 1) {
            Ok(_) | Err(ParseError::Invalid(_)) => {}
            Err(ParseError::TooDeep) => assert!(json_text::nesting_depth(&text) > HARD_DEPTH + 1),
        }
        let _ = json_text::nesting_depth(&text);
        // As an instance and as a schema.
        check_both(r#"{"type":"object"}"#, &text);
        check_both(&text, "{}");
    });
}
