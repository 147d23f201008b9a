//! The key order of JSON text. Ajv reports errors in the order the schema lists its
//! properties and the instance lists its keys; this light tree keeps only the schema's order
//! (leaves are dropped), read from the schema text once per compiled schema, for sorting
//! errors. (It was written when `serde_json::Value` sorted object keys; with `preserve_order`
//! it no longer does, and the instance's order is read from its parsed value.)

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::limits::VALIDATION_ORDERED_MAX_NESTING as MAX_NESTING;

/// Object keys in text order, array items, or a leaf.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Ordered {
    /// An object's entries in text order.
    Object(Vec<(String, Ordered)>),
    /// An array's items.
    Array(Vec<Ordered>),
    /// Anything else.
    #[default]
    Leaf,
}

impl Ordered {
    /// Parses JSON text (lone surrogates tolerated); a leaf when it is not JSON or nests
    /// deeper than any bound allows.
    #[must_use]
    pub fn parse(text: &str) -> Ordered {
        use super::json_text::{nesting_depth, parse_unbounded, replace_lone_surrogates};
        if nesting_depth(text) > MAX_NESTING {
            return Ordered::Leaf;
        }
        parse_unbounded(text)
            .or_else(|_| parse_unbounded(&replace_lone_surrogates(text)))
            .unwrap_or_default()
    }

    /// The child named by one JSON-pointer segment (already unescaped), and its position.
    #[must_use]
    pub fn child(&self, segment: &str) -> Option<(usize, &Ordered)> {
        match self {
            Ordered::Object(entries) => entries
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (k, _))| k == segment)
                .map(|(i, (_, v))| (i, v)),
            Ordered::Array(items) => {
                let i = segment.parse::<usize>().ok()?;
                items.get(i).map(|v| (i, v))
            }
            Ordered::Leaf => None,
        }
    }

    /// The node at a JSON pointer (`""` is the root).
    #[must_use]
    pub fn pointer(&self, pointer: &str) -> Option<&Ordered> {
        let mut node = self;
        for raw in pointer.split('/').skip(1) {
            let segment = raw.replace("~1", "/").replace("~0", "~");
            node = node.child(&segment)?.1;
        }
        Some(node)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Ordered, E> {
        Ok(Ordered::Leaf)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Ordered, E> {
        Ok(Ordered::Leaf)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Ordered, E> {
        Ok(Ordered::Leaf)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Ordered, E> {
        Ok(Ordered::Leaf)
    }
    fn visit_str<E>(self, _: &str) -> Result<Ordered, E> {
        Ok(Ordered::Leaf)
    }
    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Leaf)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Ordered>()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value::<Ordered>()?));
        }
        Ok(Ordered::Object(entries))
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_text_order() {
        let o = Ordered::parse(r#"{"b":1,"a":{"z":[1,{"y":2}],"c":3}}"#);
        assert_eq!(o.child("a").map(|(i, _)| i), Some(1));
        assert!(o.pointer("/a/c").is_some());
        assert_eq!(
            o.pointer("/a/z/1")
                .and_then(|n| n.child("y"))
                .map(|(i, _)| i),
            Some(0)
        );
    }
}
