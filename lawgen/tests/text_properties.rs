//! The text form's round trip as properties over generated inputs, the way
//! rustfmt checks idempotence on every file rather than on a list of cases:
//!
//! * **text → JSON → text → JSON**: a text the reader accepts, with any JSON
//!   value (spelled any way JSON allows: `-0`, `1E+2`, `0.10`, big integers,
//!   `\u` escapes, non-ASCII and hostile keys) in every place a statement
//!   takes JSON, prints back as text that reads as the same package JSON;
//!   printing that again gives the same text (idempotence).
//! * **JSON → text → JSON**: a package whose fields, extra fields, raw nodes
//!   and `value(…)` terms hold any JSON value prints as text that reads back
//!   as the same value (hashes recomputed).
//!
//! Each property runs on a few thousand inputs drawn from fixed seeds, so a
//! failure names the seed and the text that broke it.

mod support;

use lawgen::internals::syntax::{canon, text};
use serde_json::{json, Map, Number, Value};
use support::gen::Rng;

/// Inputs per property (a few seconds in a debug build).
const CASES: u64 = 2000;

// ---- JSON values --------------------------------------------------------

/// Characters chosen to hit every escaping rule: quotes, backslash, slash,
/// controls (including DEL and NUL), the JSON-only line separators, a BOM,
/// non-ASCII of 2, 3 and 4 bytes, and the text form's own punctuation.
const CHARS: &[char] = &[
    'a',
    'Z',
    '_',
    '0',
    '9',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\r',
    '\t',
    '\u{0}',
    '\u{1}',
    '\u{1f}',
    '\u{7f}',
    '\u{80}',
    '\u{2028}',
    '\u{2029}',
    '\u{feff}',
    'é',
    'ß',
    'ж',
    '中',
    '😀',
    '\u{10ffff}',
    '#',
    ':',
    '-',
    '~',
    '(',
    ')',
    '[',
    ']',
    '{',
    '}',
    ',',
    '=',
    '<',
    '>',
    '?',
    '*',
    '\'',
    '`',
];

/// Keys: names the text form writes bare, its keywords (which must be
/// quoted), and keys that are no names at all.
const KEYS: &[&str] = &[
    "a", "x1", "features", "metadata", "strata", "rule", "node", "set", "with", "without",
    "unhashed", "label", "true", "null", "value", "Integer", "", " ", "a b", "a/b", "a//b", "/a",
    "1a", "-", "é", "ключ", "键", "😀", "\"", "\\", "\n", "\u{0}", "\u{2028}", "//",
];

fn string(r: &mut Rng) -> String {
    let n = r.below(6);
    (0..n).map(|_| *r.pick(CHARS)).collect()
}

fn key(r: &mut Rng) -> String {
    if r.chance(70) {
        r.pick(KEYS).to_string()
    } else {
        string(r)
    }
}

/// A finite f64 from the interesting places: zeros, edges, subnormals,
/// short decimals, and arbitrary bit patterns.
fn float(r: &mut Rng) -> f64 {
    let f = match r.below(10) {
        0 => -0.0,
        1 => 0.0,
        2 => *r.pick(&[
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            -5e-324,
        ]),
        3 => *r.pick(&[0.1, 0.2, 0.3, 1.5, -2.25, 1e21, 1e22, 1e-7, 123456789.125]),
        4 => (r.next() as i64 as f64) / 1000.0,
        5 => 9007199254740993.0,
        _ => f64::from_bits(r.next()),
    };
    if f.is_finite() {
        f
    } else {
        1.0
    }
}

fn number(r: &mut Rng) -> Number {
    match r.below(6) {
        0 => Number::from(*r.pick(&[0i64, 1, -1, i64::MIN, i64::MAX, 75, -3])),
        1 => Number::from(*r.pick(&[u64::MAX, i64::MAX as u64 + 1])),
        2 => Number::from(r.next() as i64),
        _ => Number::from_f64(float(r)).expect("finite"),
    }
}

fn value(r: &mut Rng, depth: usize) -> Value {
    let leaf = depth == 0 || r.chance(40);
    match r.below(if leaf { 4 } else { 6 }) {
        0 => Value::Null,
        1 => Value::Bool(r.chance(50)),
        2 => Value::Number(number(r)),
        3 => Value::String(string(r)),
        4 => Value::Array((0..r.below(4)).map(|_| value(r, depth - 1)).collect()),
        _ => Value::Object(object(r, depth - 1)),
    }
}

fn object(r: &mut Rng, depth: usize) -> Map<String, Value> {
    (0..r.below(4)).map(|_| (key(r), value(r, depth))).collect()
}

// ---- JSON spellings -----------------------------------------------------

/// Writes `v` as JSON text, choosing among the spellings JSON allows for the
/// same value: whitespace (and what looks like a comment inside a string),
/// `\u` escapes for any character, exponents and trailing zeros.
fn spell(r: &mut Rng, v: &Value, out: &mut String) {
    let ws = |r: &mut Rng, out: &mut String| {
        if r.chance(20) {
            const WS: [&str; 4] = [" ", "\n", "\t", "  \r\n  "];
            out.push_str(WS[r.below(WS.len())]);
        }
    };
    ws(r, out);
    match v {
        Value::Null | Value::Bool(_) => out.push_str(&v.to_string()),
        Value::Number(n) => out.push_str(&spell_number(r, n)),
        Value::String(s) => spell_string(r, s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                spell(r, item, out);
            }
            ws(r, out);
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(r, out);
                spell_string(r, k, out);
                ws(r, out);
                out.push(':');
                spell(r, item, out);
            }
            ws(r, out);
            out.push('}');
        }
    }
    ws(r, out);
}

fn spell_number(r: &mut Rng, n: &Number) -> String {
    if let Some(i) = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from)) {
        return match r.below(4) {
            // A negative zero, which JSON reads as the float -0.0.
            0 if i == 0 => "-0".to_owned(),
            // Integers past u64 are read as floats: spell one.
            1 if i != 0 => format!("{i}{:03}", r.below(1000)),
            _ => i.to_string(),
        };
    }
    let f = n.as_f64().expect("a number is i64, u64 or f64");
    match r.below(4) {
        0 => format!("{f:e}"),
        1 => format!("{:E}", f).replace('E', "E+").replace("E+-", "E-"),
        2 if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}0"),
        _ => n.to_string(),
    }
}

fn spell_string(r: &mut Rng, s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        let must = matches!(c, '"' | '\\') || (c as u32) < 0x20;
        if must || r.chance(15) {
            match (c, r.below(3)) {
                ('"', _) => out.push_str("\\\""),
                ('\\', _) => out.push_str("\\\\"),
                ('/', 0) => out.push_str("\\/"),
                ('\n', 0) => out.push_str("\\n"),
                _ => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{:04X}", u));
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
}

fn spelled(r: &mut Rng, v: &Value) -> String {
    let mut s = String::new();
    spell(r, v, &mut s);
    s
}

/// A key as the text form takes it: a bare name where that reads as the
/// key, else a string.
fn spell_key(r: &mut Rng, k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if bare && r.chance(50) {
        k.to_owned()
    } else {
        let mut s = String::new();
        spell_string(r, k, &mut s);
        s
    }
}

// ---- Property 1: text → JSON → text → JSON ------------------------------

/// A text with a random JSON value in each place a statement takes one.
fn random_text(r: &mut Rng) -> String {
    let mut t = String::from("schema \"law.core.ir/0.2\"\n");
    t.push_str("package \"t.p\" namespace \"urn:t\" version \"0.1.0\"");
    for _ in 0..r.below(3) {
        let (k, v) = (key(r), value(r, 3));
        t.push_str(&format!(
            "\n  with {} = {}",
            spell_key(r, &k),
            spelled(r, &v)
        ));
    }
    t.push('\n');
    if r.chance(50) {
        let (k, v) = (key(r), value(r, 2));
        let k = spell_key(r, &k);
        t.push_str(&format!(
            "import \"t.q\" version \"1\" with {k} = {}\n",
            spelled(r, &v)
        ));
    }
    let mut set = std::collections::BTreeSet::new();
    for _ in 0..r.below(4) {
        let k = key(r);
        let header = matches!(
            k.as_str(),
            "nodes" | "package" | "imports" | "schemaVersion"
        );
        if header || !set.insert(k.clone()) {
            continue;
        }
        let v = value(r, 3);
        t.push_str(&format!("set {} = {}\n", spell_key(r, &k), spelled(r, &v)));
    }
    if r.chance(50) {
        let v = value(r, 2);
        t.push_str(&format!("default package {}\n", spelled(r, &v)));
    }
    if r.chance(30) {
        let v = Value::Object(object(r, 2));
        let mut m = v;
        if let Value::Object(o) = &mut m {
            o.remove("text");
            o.remove("contentHash");
        }
        t.push_str(&format!("default label {}\n", spelled(r, &m)));
    }
    t.push_str("\ntype Game\n  label \"game\"\n");
    t.push_str("relation empirical p(g: Game, n: Integer)\n");
    for i in 0..1 + r.below(4) {
        match r.below(4) {
            0 => {
                let (k, v) = (key(r), value(r, 3));
                let k = spell_key(r, &k);
                t.push_str(&format!("\ntype T{i}\n  with {k} = {}\n", spelled(r, &v)));
            }
            1 => {
                let (a, b) = (value(r, 2), value(r, 2));
                t.push_str(&format!(
                    "\nrule R{i} strict\n  p(g, value(Game, {})) :- p(g, n), n >= value(Integer, {})\n  vars [g: Game, n: Integer]\n",
                    spelled(r, &a),
                    spelled(r, &b)
                ));
            }
            2 => {
                if r.chance(10) {
                    // Not a node at all (the JSON reader refuses it later).
                    let v = value(r, 1);
                    t.push_str(&format!("\nnode {}\n", spelled(r, &v)));
                    continue;
                }
                let mut m = object(r, 3);
                if r.chance(70) {
                    m.insert("kind".to_owned(), json!(string(r)));
                    m.insert("id".to_owned(), json!(format!("urn:t#raw{i}")));
                }
                let unhashed = if r.chance(30) { " unhashed" } else { "" };
                t.push_str(&format!(
                    "\nnode {}{unhashed}\n",
                    spelled(r, &Value::Object(m))
                ));
            }
            _ => {
                let mut attrs = object(r, 2);
                attrs.remove("text");
                attrs.remove("contentHash");
                let label = json!(string(r));
                t.push_str(&format!(
                    "\nwork W{i}\n  label {} {}\n",
                    spelled(r, &Value::Object(attrs)),
                    spelled(r, &label)
                ));
            }
        }
    }
    t
}

fn parse(t: &str, what: &str) -> Value {
    match text::parse(t) {
        Ok(p) => p.json,
        Err(e) => panic!("{what} does not parse:\n{}\n{t}", e.render("case.law")),
    }
}

#[test]
fn every_text_that_reads_prints_back_as_text_that_reads_the_same() {
    let mut read = 0;
    for seed in 0..CASES {
        let mut r = Rng::new(0x7e47_0000 + seed);
        let t = random_text(&mut r);
        // Only what the reader accepts is the property's domain (a key the
        // reader refuses, such as `nodes`, is its own error).
        let Ok(first) = text::parse(&t) else {
            continue;
        };
        read += 1;
        let printed = text::print(&first.json).expect("parsed text has nodes");
        let again = parse(&printed, &format!("seed {seed}: the printed text"));
        assert_eq!(
            again, first.json,
            "seed {seed}: print → parse changed the package\n--- text\n{t}\n--- printed\n{printed}"
        );
        let reprinted = text::print(&again).expect("parsed text has nodes");
        assert_eq!(
            reprinted, printed,
            "seed {seed}: printing is not idempotent\n--- text\n{t}"
        );
    }
    // The generator writes only what the reader takes: nearly all read.
    assert!(read * 100 > CASES * 97, "only {read} of {CASES} texts read");
}

// ---- Property 2: JSON → text → JSON --------------------------------------

fn random_package(r: &mut Rng) -> Value {
    let mut top = Map::new();
    top.insert("schemaVersion".to_owned(), json!("law.core.ir/0.2"));
    let mut pkg = Map::new();
    pkg.insert("name".to_owned(), json!("t.p"));
    pkg.insert("namespace".to_owned(), json!("urn:t"));
    if r.chance(50) {
        pkg.insert(key(r), value(r, 3));
    }
    top.insert("package".to_owned(), Value::Object(pkg));
    for _ in 0..r.below(4) {
        let k = key(r);
        if k != "nodes" {
            top.insert(k, value(r, 3));
        }
    }
    let mut nodes = vec![json!({
        "id": "urn:t#p", "kind": "symbol_decl", "package": "urn:t", "name": "p",
        "symbolKind": "relation", "relationKind": "empirical",
        "parameters": [{"name": "g", "type": {"name": "urn:t#Game"}}],
        "contentHash": null,
    })];
    for i in 0..1 + r.below(4) {
        let n = match r.below(3) {
            0 => json!({
                "id": format!("urn:t#R{i}"), "kind": "rule", "package": "urn:t",
                "strength": "strict", "scope": {"kind": "boolean", "value": true},
                "interpretations": [], "variables": [{"id": "g", "type": {"name": "urn:t#Game"}}],
                "head": {"kind": "literal", "predicate": "urn:t#p", "polarity": "positive",
                    "args": [{"kind": "value", "type": {"name": "urn:t#Game"}, "value": value(r, 3)}]},
                "body": {"kind": "comparison", "op": "eq",
                    "left": {"kind": "var", "var": "g"},
                    "right": {"kind": "value", "type": {"name": "urn:law:std#Integer"}, "value": value(r, 2)}},
                "contentHash": null,
            }),
            1 => {
                let mut m = object(r, 3);
                m.insert("id".to_owned(), json!(format!("urn:t#N{i}")));
                m.insert("kind".to_owned(), json!("type_decl"));
                m.insert("name".to_owned(), json!(format!("N{i}")));
                m.insert("typeKind".to_owned(), json!("entity"));
                m.insert("contentHash".to_owned(), Value::Null);
                Value::Object(m)
            }
            // Anything at all: a node the printer can only write raw.
            _ => value(r, 3),
        };
        nodes.push(n);
    }
    top.insert("nodes".to_owned(), Value::Array(nodes));
    let mut v = Value::Object(top);
    canon::rehash(&mut v);
    v
}

#[test]
fn every_json_value_prints_as_text_that_reads_the_same() {
    for seed in 0..CASES {
        let mut r = Rng::new(0x4a50_0000 + seed);
        let v = random_package(&mut r);
        let printed = text::print(&v).expect("a package with nodes prints");
        let mut back = parse(&printed, &format!("seed {seed}: the printed package"));
        canon::rehash(&mut back);
        assert_eq!(
            back,
            v,
            "seed {seed}: JSON → text → JSON changed the package\n--- json\n{}\n--- printed\n{printed}",
            canon::serialize(&v)
        );
    }
}
