//! The canonical output of `lawgen eval`: one JSON object, keys and
//! rows sorted, one row per line so diffs stay readable.

use super::write_string;
use crate::interp::{Conclusions, Row};
use crate::program::{Section, Value};

/// Renders conclusions as canonical JSON (ends with a newline).
pub fn canonical_json(c: &Conclusions) -> String {
    let mut s = String::from("{\n");
    // Top-level keys in sorted order.
    let mut entries: Vec<(&str, String)> = vec![
        ("package", quoted(&c.package)),
        ("version", quoted(&c.version)),
        ("policy", quoted(c.policy.as_str())),
        ("requests", requests(c)),
        ("asOf", as_of_json(c.as_of)),
        ("editions", editions_json(&c.editions)),
    ];
    for (sec, preds) in &c.sections {
        let mut body = String::from("{");
        for (i, (lit, rows)) in preds.iter().enumerate() {
            body.push_str(if i == 0 { "\n" } else { ",\n" });
            body.push_str("    ");
            write_string(&mut body, lit);
            body.push_str(": [");
            for (j, row) in rows.iter().enumerate() {
                body.push_str(if j == 0 { "\n      " } else { ",\n      " });
                body.push_str(&row_json(row));
            }
            body.push_str("\n    ]");
        }
        body.push_str(if preds.is_empty() { "}" } else { "\n  }" });
        entries.push((section_key(*sec), body));
    }
    entries.sort_by(|a, b| a.0.cmp(b.0));
    for (i, (k, v)) in entries.iter().enumerate() {
        s.push_str("  ");
        write_string(&mut s, k);
        s.push_str(": ");
        s.push_str(v);
        s.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
    }
    s.push_str("}\n");
    s
}

fn section_key(s: Section) -> &'static str {
    s.as_str()
}

fn quoted(s: &str) -> String {
    let mut o = String::new();
    write_string(&mut o, s);
    o
}

/// One row as the canonical output writes it: a JSON array of integers
/// and entity names.
pub fn row_json(row: &Row) -> String {
    let parts: Vec<String> = row
        .iter()
        .map(|v| match v {
            Value::Int(i) => i.to_string(),
            Value::Entity(e) => quoted(e),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The canonical output's `asOf`: the date as a JSON string, or `null`.
pub fn as_of_json(d: Option<crate::law::Date>) -> String {
    d.map_or_else(|| "null".to_owned(), |d| quoted(&d.to_string()))
}

/// The canonical output's `editions`: a JSON array, in the order given.
pub fn editions_json(editions: &[crate::law::EditionInForce]) -> String {
    if editions.is_empty() {
        return "[]".into();
    }
    let mut s = String::from("[");
    for (i, e) in editions.iter().enumerate() {
        s.push_str(if i == 0 { "\n    " } else { ",\n    " });
        // Keys sorted: edition, inForce, work.
        s.push_str(&format!(
            "{{\"edition\": {}, \"inForce\": {}, \"work\": {}}}",
            quoted(&e.edition),
            quoted(&e.in_force),
            quoted(&e.work)
        ));
    }
    s.push_str("\n  ]");
    s
}

fn requests(c: &Conclusions) -> String {
    if c.requests.is_empty() {
        return "[]".into();
    }
    let mut s = String::from("[");
    for (i, r) in c.requests.iter().enumerate() {
        s.push_str(if i == 0 { "\n    " } else { ",\n    " });
        // Keys sorted: args, authority, capability, predicate.
        s.push_str(&format!(
            "{{\"args\": {}, \"authority\": {}, \"capability\": {}, \"predicate\": {}}}",
            row_json(&r.args),
            quoted(&r.authority),
            quoted(&r.capability),
            quoted(&r.predicate)
        ));
    }
    s.push_str("\n  ]");
    s
}
