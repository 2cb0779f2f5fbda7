//! Content hashes (docs/reference.md#integrity).
//!
//! A node's `contentHash` is `sha256:` + hex SHA-256 of the node without its
//! `contentHash` field, serialized as compact JSON with object keys sorted,
//! UTF-8, non-ASCII left as is. We serialize ourselves rather than trusting
//! `serde_json`'s map order, which a `preserve_order` feature anywhere in a
//! dependent's build would silently change.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// Hex SHA-256 of `bytes`, lower case.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `sha256:<hex>` of the node with its `contentHash` field removed.
pub fn node_hash(node: &serde_json::Map<String, Value>) -> String {
    let mut out = String::new();
    write_object(&mut out, node, Some("contentHash"));
    format!("sha256:{}", sha256_hex(out.as_bytes()))
}

/// Compact JSON with sorted keys (the canonical form hashes are taken over).
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map, None),
    }
}

fn write_object(out: &mut String, map: &serde_json::Map<String, Value>, skip: Option<&str>) {
    let mut keys: Vec<&String> = map.keys().filter(|k| Some(k.as_str()) != skip).collect();
    // Byte order of UTF-8 equals code point order, which is what sort_keys uses.
    keys.sort();
    out.push('{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, k);
        out.push(':');
        write_value(out, &map[k]);
    }
    out.push('}');
}

pub(crate) use lawgen_runtime::formats::write_string;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_sorts_keys_and_keeps_non_ascii() {
        let v: Value = serde_json::from_str(r#"{"b":1,"a":["ж","\n",true,null]}"#).unwrap();
        assert_eq!(
            canonical_json(&v),
            "{\"a\":[\"ж\",\"\\n\",true,null],\"b\":1}"
        );
    }

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
