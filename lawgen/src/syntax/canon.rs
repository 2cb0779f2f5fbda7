//! The canonical JSON of a package (compact, keys sorted: the serialization
//! content hashes are taken over, and the reference package's own bytes) and
//! the recomputation of every hash in it, for `lawgen fmt` and `convert`.

use super::hash::canonical_json;
use super::text::rehash_node;
use crate::diagnostics::Diagnostics;
use serde_json::Value;

/// A hash that `rehash` changed: what [`crate::format::canonical`] and
/// [`crate::format::convert`] report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashChange {
    /// Index of the node in `nodes`.
    pub index: usize,
    /// The node's id, if it has one.
    pub id: Option<String>,
    /// `None`: the node's `contentHash`; `Some(i)`: the hash of fragment text `i`.
    pub text: Option<usize>,
}

impl HashChange {
    /// JSON pointer of the hash that changed.
    pub fn pointer(&self) -> String {
        match self.text {
            None => format!("/nodes/{}/contentHash", self.index),
            Some(t) => format!("/nodes/{}/texts/{t}/contentHash", self.index),
        }
    }
}

/// Parses package JSON without checking it (syntax only, depth-limited).
pub fn parse(bytes: &[u8]) -> Result<Value, Diagnostics> {
    let mut diags = Diagnostics::new();
    if let Some(d) = super::read::scan(bytes, &super::ReadLimits::default()) {
        diags.push(d);
        return Err(diags);
    }
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(e) => {
            diags.push(lawgen_runtime::formats::json_error(&e));
            Err(diags)
        }
    }
}

/// The canonical serialization (no trailing newline, as the reference package).
pub fn serialize(v: &Value) -> String {
    canonical_json(v)
}

/// Recomputes every fragment text hash that is present and every node's
/// `contentHash` (adding it to a node object that has none, since the reader
/// requires it). Returns what changed, in node order.
pub fn rehash(package: &mut Value) -> Vec<HashChange> {
    let mut out = Vec::new();
    let Some(Value::Array(nodes)) = package.get_mut("nodes") else {
        return out;
    };
    for (index, n) in nodes.iter_mut().enumerate() {
        let Value::Object(m) = n else { continue };
        let added = !m.contains_key("contentHash");
        if added {
            m.insert("contentHash".to_owned(), Value::Null);
        }
        let id = m.get("id").and_then(Value::as_str).map(str::to_owned);
        for text in rehash_node(m) {
            out.push(HashChange {
                index,
                id: id.clone(),
                text,
            });
        }
    }
    out
}

/// The strings that occur in some node of the package other than the node
/// whose `id` they are: the ids that something refers to (`lawgen lint`'s
/// "declared but unused"). Unparsable input gives the empty set.
pub fn mentioned_elsewhere(bytes: &[u8]) -> std::collections::HashSet<String> {
    fn strings<'a>(v: &'a Value, out: &mut std::collections::HashSet<&'a str>) {
        match v {
            Value::String(s) => {
                out.insert(s);
            }
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut out = std::collections::HashSet::new();
    let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
        return out;
    };
    // A package with imports is held as a closure bundle: every package of
    // it counts (a `.law` file in it is read as the JSON it stands for).
    let mut packages: Vec<Value> = Vec::new();
    match v.get("files").and_then(Value::as_array) {
        Some(files) if v.get("nodes").is_none() => {
            for f in files {
                if let Some(p) = f.get("package") {
                    packages.push(p.clone());
                } else if let Some(t) = f.get("text").and_then(Value::as_str) {
                    // A `.law` file, or (the root) the JSON it was converted to.
                    if let Ok(json) = serde_json::from_str::<Value>(t) {
                        packages.push(json);
                    } else if let Ok(parsed) = super::text::parse(t) {
                        packages.push(parsed.json);
                    }
                }
            }
        }
        _ => packages.push(v),
    }
    let nodes = packages
        .iter()
        .filter_map(|p| p.get("nodes").and_then(Value::as_array))
        .flatten();
    for n in nodes {
        let own = n.get("id").and_then(Value::as_str);
        let mut seen = std::collections::HashSet::new();
        strings(n, &mut seen);
        for s in seen {
            if Some(s) != own {
                out.insert(s.to_owned());
            }
        }
    }
    out
}

/// Diagnostics as a JSON array (`lawgen lint --format json`): one object per
/// diagnostic with `code`, `severity`, `message`, `node`, `pointer`, `line`,
/// `column` (null when not read from a `.law` file) and `help`.
pub fn diagnostics_json(d: &Diagnostics) -> String {
    let list: Vec<Value> = d
        .iter()
        .map(|d| {
            serde_json::json!({
                "code": d.code.as_str(),
                "severity": d.code.severity(),
                "message": d.message,
                "node": d.location.node,
                "pointer": d.location.pointer,
                "line": d.location.line.map(|l| l.0),
                "column": d.location.line.map(|l| l.1),
                "help": d.help,
            })
        })
        .collect();
    let mut s = canonical_json(&Value::Array(list));
    s.push('\n');
    s
}
