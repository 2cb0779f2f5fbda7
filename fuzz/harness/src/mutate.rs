//! Structure-aware mutation of a valid package (docs/reference.md#a-package), driven by the
//! fuzzer's bytes through `arbitrary::Unstructured`.
//!
//! A mutant starts from one of [`crate::SEEDS`], goes through a few
//! mutations (see [`Op`]), and is then re-hashed — every node's `contentHash`
//! and every fragment text's hash recomputed — so that it gets past the
//! reader's integrity check and reaches the checker, lowering, interpreter
//! and emitter.
//!
//! Two flavours: [`Flavour::Wild`] (`package_structured`) applies every kind
//! of mutation, most of which the checker must refuse; [`Flavour::Valid`]
//! (`emit`) prefers mutations that tend to keep the package valid (consistent
//! renames to hostile names, flipped polarity and strength, new priorities,
//! duplicated rules under fresh ids), so more mutants reach `emit`.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// Which mix of mutations to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    Wild,
    Valid,
}

/// A path into a JSON tree.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Idx(usize),
}

/// Strings worth injecting: Rust keywords and raw forms, comment and string
/// terminators, attribute and macro syntax, Unicode edge cases, very long.
const STRINGS: &[&str] = &[
    "",
    " ",
    "fn",
    "r#fn",
    "r#type",
    "self",
    "Self",
    "super",
    "crate",
    "_",
    "__",
    "type",
    "match",
    "async",
    "await",
    "dyn",
    "union",
    "try",
    "gen",
    "static",
    "macro_rules",
    "Facts",
    "Conclusions",
    "Verdict",
    "Policy",
    "ascent",
    "lawgen_runtime",
    "std",
    "core",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "main",
    "0",
    "1abc",
    "123",
    "-1",
    "a-b",
    "a.b",
    "a b",
    "A",
    "a",
    "not_a",
    "not_",
    "decide_a",
    "explain_a",
    "~a",
    "~",
    "#",
    "urn:t#",
    "urn:t##x",
    "urn:law:std#Integer",
    "urn:law:std#Boolean",
    "urn:law:std#String",
    "\"); std::process::exit(1); //",
    "*/ fn evil() {} /*",
    "/*",
    "*/",
    "//",
    "///",
    "//!",
    "\"#",
    "\"##",
    "r#\"",
    "`",
    "```rust\nstd::process::exit(1);\n```",
    "#[cfg(any())]",
    "#![no_std]",
    "}",
    "{",
    "\n",
    "\r\n",
    "\t",
    "\\",
    "\\u0000",
    "\u{0}",
    "\u{7f}",
    "\u{feff}",
    "\u{200b}",
    "\u{202e}",
    "\u{2028}",
    "é",
    "e\u{301}",
    "ß",
    "ǅ",
    "Ⅻ",
    "日本語",
    "𝔘𝔫𝔦",
    "🦀",
    "İ",
    "ﬁ",
    "$crate",
    "{}",
    "{0}",
    "%s",
    "${x}",
    "<script>",
    "\u{10ffff}",
];

/// Enumeration values the reader and checker know, plus near misses.
const ENUMS: &[&str] = &[
    "literal",
    "and",
    "or",
    "not",
    "status",
    "comparison",
    "var",
    "const_ref",
    "entity_ref",
    "value",
    "boolean",
    "positive",
    "negative",
    "established",
    "supported",
    "strict",
    "defeasible",
    "defeater",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "empirical",
    "institutional",
    "judgment",
    "constant",
    "relation",
    "function",
    "entity",
    "enum",
    "type_decl",
    "symbol_decl",
    "rule",
    "priority_rule",
    "closure_policy",
    "external_decl",
    "source_work",
    "source_edition",
    "publication",
    "fragment",
    "direct",
    "conditional",
    "article",
    "official",
    "unofficial",
    "Strict",
    "POSITIVE",
    "",
];

/// The parsed seeds, parsed once per process.
pub(crate) fn seeds() -> &'static [Value] {
    static SEEDS: OnceLock<Vec<Value>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        crate::SEEDS
            .iter()
            .map(|(_, b)| serde_json::from_slice(b).expect("seed parses"))
            .collect()
    })
}

/// The mutant package and how it was made (for the log of a crash).
pub struct Mutant {
    pub bytes: Vec<u8>,
    pub seed: &'static str,
    pub ops: Vec<String>,
}

/// Builds a mutant from the fuzzer's bytes.
pub fn mutant(data: &[u8], flavour: Flavour) -> Result<Mutant> {
    let mut u = Unstructured::new(data);
    // The small packages three times as often as chess: a chess mutant that
    // loads costs ~10x more to evaluate and emit.
    let seed_ix = match u.int_in_range(0..=7u8)? {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    };
    let mut doc = seeds()[seed_ix].clone();
    let n_ops = u.int_in_range(1..=8u8)?;
    let mut ops = Vec::new();
    for _ in 0..n_ops {
        if u.is_empty() {
            break;
        }
        if let Some(done) = apply(&mut u, &mut doc, flavour)? {
            ops.push(done);
        }
    }
    rehash(&mut doc);
    let bytes = if u.ratio(1u8, 4u8)? {
        serde_json::to_vec_pretty(&doc)
    } else {
        serde_json::to_vec(&doc)
    }
    .expect("serialize mutant");
    Ok(Mutant {
        bytes,
        seed: crate::SEEDS[seed_ix].0,
        ops,
    })
}

/// Recomputes every hash the reader verifies (docs/reference.md#integrity).
pub fn rehash(doc: &mut Value) {
    let Some(nodes) = doc.get_mut("nodes").and_then(Value::as_array_mut) else {
        return;
    };
    for node in nodes.iter_mut() {
        let Some(m) = node.as_object_mut() else {
            continue;
        };
        if let Some(texts) = m.get_mut("texts").and_then(Value::as_array_mut) {
            for t in texts.iter_mut() {
                if let Some(o) = t.as_object_mut() {
                    if let Some(text) = o.get("text").and_then(Value::as_str) {
                        let h = format!(
                            "sha256:{}",
                            lawgen::internals::syntax::hash::sha256_hex(text.as_bytes())
                        );
                        o.insert("contentHash".into(), Value::String(h));
                    }
                }
            }
        }
        let h = lawgen::internals::syntax::hash::node_hash(m);
        m.insert("contentHash".into(), Value::String(h));
    }
}

// ---------------------------------------------------------------------------
// Navigation

fn get_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in path {
        cur = match (s, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Seg::Idx(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn get<'a>(v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    let mut cur = v;
    for s in path {
        cur = match (s, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get(k)?,
            (Seg::Idx(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Every path in `v` (pre-order), with the key it hangs from, if any.
fn paths(v: &Value) -> Vec<Vec<Seg>> {
    fn walk(v: &Value, cur: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
        out.push(cur.clone());
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    cur.push(Seg::Key(k.clone()));
                    walk(c, cur, out);
                    cur.pop();
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    cur.push(Seg::Idx(i));
                    walk(c, cur, out);
                    cur.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn last_key(p: &[Seg]) -> Option<&str> {
    match p.last() {
        Some(Seg::Key(k)) => Some(k),
        _ => None,
    }
}

fn pick_path<'a>(
    u: &mut Unstructured,
    all: &'a [Vec<Seg>],
    doc: &Value,
    keep: impl Fn(&[Seg], &Value) -> bool,
) -> Result<Option<&'a Vec<Seg>>> {
    let hits: Vec<&Vec<Seg>> = all
        .iter()
        .filter(|p| get(doc, p).is_some_and(|v| keep(p, v)))
        .collect();
    if hits.is_empty() {
        return Ok(None);
    }
    Ok(Some(hits[u.choose_index(hits.len())?]))
}

fn nodes(doc: &mut Value) -> &mut Vec<Value> {
    if !doc.get("nodes").is_some_and(Value::is_array) {
        doc["nodes"] = json!([]);
    }
    doc["nodes"].as_array_mut().unwrap()
}

fn node_ixs(doc: &Value, kind: Option<&str>) -> Vec<usize> {
    doc.get("nodes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .enumerate()
                // Objects only: a splice may have made a node a string, and
                // indexing a string by key would panic in the mutator itself.
                .filter(|(_, n)| n.is_object())
                .filter(|(_, n)| {
                    kind.is_none_or(|k| n.get("kind").and_then(Value::as_str) == Some(k))
                })
                .map(|(i, _)| i)
                .collect()
        })
        .unwrap_or_default()
}

fn ids(doc: &Value, kind: Option<&str>) -> Vec<String> {
    let all = &doc["nodes"];
    node_ixs(doc, kind)
        .into_iter()
        .filter_map(|i| all[i].get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

fn pick<'a, T>(u: &mut Unstructured, v: &'a [T]) -> Result<Option<&'a T>> {
    if v.is_empty() {
        Ok(None)
    } else {
        Ok(Some(&v[u.choose_index(v.len())?]))
    }
}

/// The namespace prefix of the package's ids (`urn:t#`).
fn prefix(doc: &Value) -> String {
    ids(doc, None)
        .first()
        .and_then(|i| i.split_once('#'))
        .map(|(p, _)| format!("{p}#"))
        .unwrap_or_else(|| "urn:t#".into())
}

// ---------------------------------------------------------------------------
// Values

fn string(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=4 => STRINGS[u.choose_index(STRINGS.len())?].to_owned(),
        5 => {
            let s: &str = u.arbitrary()?;
            s.to_owned()
        }
        6 => {
            let a = STRINGS[u.choose_index(STRINGS.len())?];
            let b = STRINGS[u.choose_index(STRINGS.len())?];
            format!("{a}{b}")
        }
        7 => {
            // Very long: past any fixed buffer, below the 1 MiB string limit
            // most of the time, above it sometimes.
            let n = [100usize, 1000, 65_536, (1 << 20) + 1][u.choose_index(4)?];
            let c = STRINGS[u.choose_index(STRINGS.len())?];
            let c = if c.is_empty() { "x" } else { c };
            c.repeat(n.div_ceil(c.len()).max(1))
        }
        8 => ENUMS[u.choose_index(ENUMS.len())?].to_owned(),
        _ => format!("x{}", u.int_in_range(0..=99u8)?),
    })
}

fn integer(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=12u8)? {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(1),
        3 => json!(i64::MAX),
        4 => json!(i64::MIN),
        5 => json!(u64::MAX),
        6 => json!(i64::MAX as u64 + 1),
        7 => json!(1.5),
        8 => json!(-0.0),
        9 => json!(1e308),
        10 => json!(u.arbitrary::<i64>()?),
        11 => json!(u.arbitrary::<i32>()?),
        _ => json!(u.int_in_range(-3..=80i64)?),
    })
}

/// Some JSON value of any shape.
fn any_value(u: &mut Unstructured, doc: &Value, all: &[Vec<Seg>]) -> Result<Value> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => integer(u)?,
        3 => Value::String(string(u)?),
        4 => json!([]),
        5 => json!({}),
        _ => {
            // A subtree from elsewhere in the package (splice).
            let p = &all[u.choose_index(all.len())?];
            get(doc, p).cloned().unwrap_or(Value::Null)
        }
    })
}

/// Replaces every string equal to `from` (values and object keys alike are
/// left alone except string values) by `to`: a consistent rename.
fn rename_all(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) if s == from => *s = to.to_owned(),
        Value::Array(a) => a.iter_mut().for_each(|c| rename_all(c, from, to)),
        Value::Object(m) => m.values_mut().for_each(|c| rename_all(c, from, to)),
        _ => {}
    }
}

/// Pairs of rule ids whose heads are the same predicate with opposite
/// polarity.
fn conflicting_rules(doc: &Value) -> Vec<(String, String)> {
    let heads: Vec<(String, String, String)> = doc["nodes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|n| n.get("kind").and_then(Value::as_str) == Some("rule"))
                .filter_map(|n| {
                    Some((
                        n.get("id")?.as_str()?.to_owned(),
                        n.get("head")?.get("predicate")?.as_str()?.to_owned(),
                        n.get("head")?.get("polarity")?.as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for (i, (a, pa, sa)) in heads.iter().enumerate() {
        for (b, pb, sb) in &heads[i + 1..] {
            if pa == pb && sa != sb {
                out.push((a.clone(), b.clone()));
            }
        }
    }
    out
}

/// Variable names used in a rule (declared ones).
fn rule_vars(rule: &Value) -> Vec<(String, Value)> {
    rule.get("variables")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| {
                    Some((
                        v.get("id")?.as_str()?.to_owned(),
                        v.get("type").cloned().unwrap_or(Value::Null),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn body_items(rule: &mut Value) -> Option<&mut Vec<Value>> {
    let body = rule.get_mut("body")?;
    if body.get("kind").and_then(Value::as_str) != Some("and") {
        let old = body.take();
        *body = json!({"kind": "and", "items": [old]});
    }
    body.get_mut("items")?.as_array_mut()
}

// ---------------------------------------------------------------------------
// Mutations

/// The mutations, by number. `Valid` draws mostly from the first group.
const VALID_OPS: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7];
const N_OPS: u8 = 23;

fn apply(u: &mut Unstructured, doc: &mut Value, flavour: Flavour) -> Result<Option<String>> {
    let op = match flavour {
        Flavour::Valid if !u.ratio(1u8, 8u8)? => VALID_OPS[u.choose_index(VALID_OPS.len())?],
        _ => u.int_in_range(0..=N_OPS - 1)?,
    };
    let all = paths(doc);
    let pre = prefix(doc);
    Ok(match op {
        // --- mostly validity-preserving -----------------------------------
        0 => {
            // Consistent rename of an id, name, variable or label text to a
            // hostile string (keeping the namespace prefix on ids).
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string()
                    && matches!(
                        last_key(p),
                        Some("id" | "name" | "var" | "text" | "predicate" | "package")
                    )
            })?
            else {
                return Ok(None);
            };
            let from = get(doc, p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let inj = string(u)?;
            let to = match from.split_once('#') {
                Some((ns, _)) if u.ratio(3u8, 4u8)? => format!("{ns}#{inj}"),
                _ => inj,
            };
            rename_all(doc, &from, &to);
            Some(format!("rename {from:?} -> {to:?}"))
        }
        1 => {
            // Flip a polarity (literal in a head or body).
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string() && last_key(p) == Some("polarity")
            })?
            else {
                return Ok(None);
            };
            let v = get_mut(doc, p).unwrap();
            let new = if v == "positive" {
                "negative"
            } else {
                "positive"
            };
            *v = json!(new);
            Some(format!("polarity -> {new}"))
        }
        2 => {
            // Flip a rule's strength.
            let rules = node_ixs(doc, Some("rule"));
            let Some(&r) = pick(u, &rules)? else {
                return Ok(None);
            };
            let s = ["strict", "defeasible", "defeater"][u.choose_index(3)?];
            nodes(doc)[r]["strength"] = json!(s);
            Some(format!("strength of node {r} -> {s}"))
        }
        3 => {
            // A new priority between two rules (maybe a cycle, maybe a
            // priority of a rule over itself, maybe conditional).
            let rules = ids(doc, Some("rule"));
            // Mostly between rules that conflict (same predicate, opposite
            // polarity), which the checker accepts; sometimes any two.
            let conflicts = conflicting_rules(doc);
            let (a, b) = match pick(u, &conflicts)? {
                Some((a, b)) if u.ratio(3u8, 4u8)? => {
                    if u.arbitrary()? {
                        (a.clone(), b.clone())
                    } else {
                        (b.clone(), a.clone())
                    }
                }
                _ => {
                    let (Some(a), Some(b)) = (pick(u, &rules)?.cloned(), pick(u, &rules)?.cloned())
                    else {
                        return Ok(None);
                    };
                    (a, b)
                }
            };
            let anchors = doc["nodes"]
                .as_array()
                .and_then(|n| n.iter().find(|n| n["id"] == json!(a)))
                .and_then(|n| n.get("anchors").cloned())
                .unwrap_or(json!([]));
            let n = nodes(doc).len();
            let id = format!("{pre}Prio{n}");
            let condition = if u.ratio(1u8, 4u8)? {
                // Conditions are not supported in the core profile; the
                // checker must say so.
                json!({"kind": "literal", "predicate": format!("{pre}drawn"), "polarity": "positive", "args": []})
            } else {
                json!({"kind": "boolean", "value": true})
            };
            let ns = doc["package"]["namespace"].clone();
            nodes(doc).push(json!({
                "id": id, "kind": "priority_rule", "package": ns,
                "labels": [{"language": "en", "status": "official", "text": "fuzz priority"}],
                "higher": {"kind": "const_ref", "id": a}, "lower": {"kind": "const_ref", "id": b},
                "reason": format!("{pre}lex_specialis"), "priorityKind": "direct",
                "condition": condition, "anchors": anchors, "contentHash": ""
            }));
            Some(format!("priority {a} > {b}"))
        }
        4 => {
            // Duplicate a rule (or any node) under a fresh id.
            let ns = node_ixs(
                doc,
                if u.ratio(3u8, 4u8)? {
                    Some("rule")
                } else {
                    None
                },
            );
            let Some(&i) = pick(u, &ns)? else {
                return Ok(None);
            };
            let mut node = doc["nodes"][i].clone();
            let n = nodes(doc).len();
            let id = format!("{pre}Dup{n}");
            node["id"] = json!(id);
            nodes(doc).push(node);
            Some(format!("duplicate node {i} as {id}"))
        }
        5 => {
            // Change an integer constant (comparison values).
            let Some(p) = pick_path(u, &all, doc, |_, v| v.is_number())? else {
                return Ok(None);
            };
            let v = integer(u)?;
            *get_mut(doc, p).unwrap() = v.clone();
            Some(format!("integer -> {v}"))
        }
        6 => {
            // Inject a string into a label or fragment text (not an id).
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string() && matches!(last_key(p), Some("text" | "locator" | "uri" | "reason"))
            })?
            else {
                return Ok(None);
            };
            let s = string(u)?;
            *get_mut(doc, p).unwrap() = json!(s);
            Some("inject text".into())
        }
        7 => {
            // Swap two rules' heads (new dependencies, maybe cycles).
            let rules = node_ixs(doc, Some("rule"));
            let (Some(&a), Some(&b)) = (pick(u, &rules)?, pick(u, &rules)?) else {
                return Ok(None);
            };
            let ns = nodes(doc);
            let ha = ns[a].get("head").cloned().unwrap_or(Value::Null);
            let hb = ns[b].get("head").cloned().unwrap_or(Value::Null);
            ns[a]["head"] = hb;
            ns[b]["head"] = ha;
            // Keep variables declared: merge both rules' declarations.
            let va = rule_vars(&ns[a]);
            let vb = rule_vars(&ns[b]);
            for (r, extra) in [(a, vb), (b, va)] {
                let have: Vec<String> = rule_vars(&ns[r]).into_iter().map(|(v, _)| v).collect();
                if let Some(vars) = ns[r].get_mut("variables").and_then(Value::as_array_mut) {
                    for (v, t) in extra {
                        if !have.contains(&v) {
                            vars.push(json!({"id": v, "type": t}));
                        }
                    }
                }
            }
            Some(format!("swap heads of nodes {a} and {b}"))
        }
        // --- mostly refused by the checker --------------------------------
        8 => {
            // Swap the ids of two nodes.
            let ns = node_ixs(doc, None);
            let (Some(&a), Some(&b)) = (pick(u, &ns)?, pick(u, &ns)?) else {
                return Ok(None);
            };
            let nodes = nodes(doc);
            let ia = nodes[a].get("id").cloned().unwrap_or(Value::Null);
            let ib = nodes[b].get("id").cloned().unwrap_or(Value::Null);
            nodes[a]["id"] = ib;
            nodes[b]["id"] = ia;
            Some(format!("swap ids of nodes {a} and {b}"))
        }
        9 => {
            // Drop a node.
            let ns = node_ixs(doc, None);
            let Some(&i) = pick(u, &ns)? else {
                return Ok(None);
            };
            nodes(doc).remove(i);
            Some(format!("drop node {i}"))
        }
        10 => {
            // Duplicate a node, same id.
            let ns = node_ixs(doc, None);
            let Some(&i) = pick(u, &ns)? else {
                return Ok(None);
            };
            let n = doc["nodes"][i].clone();
            nodes(doc).push(n);
            Some(format!("duplicate node {i} (same id)"))
        }
        11 => {
            // Change an arity: add, remove or duplicate a parameter, argument,
            // variable or body item.
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_array()
                    && matches!(
                        last_key(p),
                        Some("parameters" | "args" | "variables" | "items")
                    )
            })?
            else {
                return Ok(None);
            };
            let p = p.clone();
            let key = last_key(&p).unwrap_or_default().to_owned();
            let fresh = match key.as_str() {
                "parameters" => json!({"name": string(u)?, "type": {"name": format!("{pre}Game")}}),
                "args" => match u.int_in_range(0..=2u8)? {
                    0 => {
                        let v = ["g", "p", "n", "v0", "v1", "zz"][u.choose_index(6)?];
                        json!({"kind": "var", "var": v})
                    }
                    1 => {
                        json!({"kind": "value", "type": {"name": "urn:law:std#Integer"}, "value": integer(u)?})
                    }
                    _ => json!({"kind": "const_ref", "id": format!("{pre}White")}),
                },
                "variables" => json!({"id": string(u)?, "type": {"name": "urn:law:std#Integer"}}),
                _ => {
                    json!({"kind": "comparison", "left": {"kind": "var", "var": "g"}, "op": "eq", "right": {"kind": "var", "var": "g"}})
                }
            };
            let arr = get_mut(doc, &p).unwrap().as_array_mut().unwrap();
            match u.int_in_range(0..=2u8)? {
                0 if !arr.is_empty() => {
                    let i = u.choose_index(arr.len())?;
                    arr.remove(i);
                }
                1 if !arr.is_empty() => {
                    let i = u.choose_index(arr.len())?;
                    let c = arr[i].clone();
                    arr.push(c);
                }
                _ => arr.push(fresh),
            }
            Some(format!("arity of {key}"))
        }
        12 => {
            // Change a type reference.
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string()
                    && p.len() >= 2
                    && matches!(&p[p.len() - 2], Seg::Key(k) if k == "type" || k == "returnType")
            })?
            else {
                return Ok(None);
            };
            let p = p.clone();
            let mut choices = ids(doc, Some("type_decl"));
            choices.extend(
                [
                    "urn:law:std#Integer",
                    "urn:law:std#Boolean",
                    "urn:law:std#String",
                    "urn:law:std#Decimal",
                ]
                .map(String::from),
            );
            choices.extend(ids(doc, Some("symbol_decl")).into_iter().take(3));
            let t = if u.ratio(1u8, 5u8)? {
                string(u)?
            } else {
                pick(u, &choices)?.cloned().unwrap_or_default()
            };
            *get_mut(doc, &p).unwrap() = json!(t);
            Some(format!("type -> {t}"))
        }
        13 => {
            // A dependency cycle: rule a's body mentions rule b's head and
            // vice versa, possibly through `not`, possibly under `supported`.
            let rules = node_ixs(doc, Some("rule"));
            let (Some(&a), Some(&b)) = (pick(u, &rules)?, pick(u, &rules)?) else {
                return Ok(None);
            };
            let neg_a = u.ratio(1u8, 3u8)?;
            let neg_b = u.ratio(1u8, 3u8)?;
            let status = ["established", "supported"][u.choose_index(2)?];
            let ns = nodes(doc);
            let ha = ns[a].get("head").cloned().unwrap_or(Value::Null);
            let hb = ns[b].get("head").cloned().unwrap_or(Value::Null);
            for (r, h, neg, other) in [(a, hb, neg_a, b), (b, ha, neg_b, a)] {
                let mut item = json!({"kind": "status", "status": status, "formula": h});
                if neg {
                    item = json!({"kind": "not", "item": item});
                }
                let extra = rule_vars(&ns[other]);
                let have: Vec<String> = rule_vars(&ns[r]).into_iter().map(|(v, _)| v).collect();
                if let Some(vars) = ns[r].get_mut("variables").and_then(Value::as_array_mut) {
                    for (v, t) in extra {
                        if !have.contains(&v) {
                            vars.push(json!({"id": v, "type": t}));
                        }
                    }
                }
                if let Some(items) = body_items(&mut ns[r]) {
                    items.push(item);
                }
            }
            Some(format!(
                "cycle between nodes {a} and {b} (not: {neg_a}/{neg_b}, {status})"
            ))
        }
        14 => {
            // Set an enumeration field to another value.
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string()
                    && matches!(
                        last_key(p),
                        Some(
                            "kind"
                                | "status"
                                | "op"
                                | "relationKind"
                                | "symbolKind"
                                | "typeKind"
                                | "strength"
                                | "priorityKind"
                                | "effect"
                                | "polarity"
                                | "fragmentKind"
                                | "language"
                                | "capability"
                        )
                    )
            })?
            else {
                return Ok(None);
            };
            let e = ENUMS[u.choose_index(ENUMS.len())?];
            *get_mut(doc, p).unwrap() = json!(e);
            Some(format!("enum -> {e}"))
        }
        15 => {
            // Point a predicate / const_ref / symbol reference at another id.
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string()
                    && matches!(
                        last_key(p),
                        Some("predicate" | "id" | "symbol" | "work" | "edition" | "authority")
                    )
                    && p.len() > 2
            })?
            else {
                return Ok(None);
            };
            let p = p.clone();
            let all_ids = ids(doc, None);
            let Some(t) = pick(u, &all_ids)?.cloned() else {
                return Ok(None);
            };
            *get_mut(doc, &p).unwrap() = json!(t);
            Some(format!("reference -> {t}"))
        }
        16 => {
            // A rule whose head predicate is in its own body (self-cycle),
            // maybe negated (unstratifiable).
            let rules = node_ixs(doc, Some("rule"));
            let Some(&r) = pick(u, &rules)? else {
                return Ok(None);
            };
            let neg = u.ratio(1u8, 2u8)?;
            let ns = nodes(doc);
            let h = ns[r].get("head").cloned().unwrap_or(Value::Null);
            let mut item = json!({"kind": "status", "status": "established", "formula": h});
            if neg {
                item = json!({"kind": "not", "item": item});
            }
            if let Some(items) = body_items(&mut ns[r]) {
                items.push(item);
            }
            Some(format!("self-cycle on node {r} (not: {neg})"))
        }
        17 => {
            // A closure policy on some predicate over some domain.
            let preds = ids(doc, Some("symbol_decl"));
            let (Some(p), Some(d)) = (pick(u, &preds)?.cloned(), pick(u, &preds)?.cloned()) else {
                return Ok(None);
            };
            let n = nodes(doc).len();
            let derive = u.arbitrary::<bool>()?;
            let ns = doc["package"]["namespace"].clone();
            nodes(doc).push(json!({
                "id": format!("{pre}Closure{n}"), "kind": "closure_policy",
                "package": ns,
                "labels": [{"language": "en", "status": "official", "text": "fuzz closure"}],
                "predicate": p, "domain": {"kind": "const_ref", "id": d},
                "deriveExplicitNegative": derive, "snapshot": "urn:t:snapshot:2024-01-01",
                "completeAsOf": "2024-01-01T00:00:00Z", "contentHash": ""
            }));
            Some(format!("closure on {p} over {d}"))
        }
        18 => {
            // Replace any string value.
            let Some(p) = pick_path(u, &all, doc, |_, v| v.is_string())? else {
                return Ok(None);
            };
            let p = p.clone();
            let s = string(u)?;
            *get_mut(doc, &p).unwrap() = json!(s);
            Some("replace a string".into())
        }
        19 => {
            // Splice: any subtree replaced by a value (often another subtree).
            let p = all[u.choose_index(all.len())?].clone();
            let v = any_value(u, doc, &all)?;
            if p.is_empty() {
                return Ok(None);
            }
            if let Some(slot) = get_mut(doc, &p) {
                *slot = v;
            }
            Some("splice".into())
        }
        20 => {
            // Delete a key of some object.
            let Some(p) = pick_path(u, &all, doc, |_, v| {
                v.as_object().is_some_and(|m| !m.is_empty())
            })?
            else {
                return Ok(None);
            };
            let p = p.clone();
            let m: &mut Map<String, Value> = get_mut(doc, &p).unwrap().as_object_mut().unwrap();
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = &keys[u.choose_index(keys.len())?];
            m.remove(k);
            Some(format!("delete key {k}"))
        }
        21 => {
            // Add a key to some object.
            let Some(p) = pick_path(u, &all, doc, |_, v| v.is_object())? else {
                return Ok(None);
            };
            let p = p.clone();
            let k = if u.arbitrary()? {
                [
                    "kind",
                    "id",
                    "args",
                    "items",
                    "negated",
                    "when",
                    "value",
                    "type",
                    "contentHash",
                ][u.choose_index(9)?]
                .to_owned()
            } else {
                string(u)?
            };
            let v = any_value(u, doc, &all)?;
            get_mut(doc, &p)
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert(k.clone(), v);
            Some(format!("add key {k:?}"))
        }
        _ => {
            // Rename a variable occurrence (maybe to an undeclared one), or
            // retype a variable declaration.
            let Some(p) = pick_path(u, &all, doc, |p, v| {
                v.is_string() && matches!(last_key(p), Some("var"))
            })?
            else {
                return Ok(None);
            };
            let p = p.clone();
            let s = ["g", "p", "n", "v0", "v1", "v2", "undeclared", "_"][u.choose_index(8)?];
            *get_mut(doc, &p).unwrap() = json!(s);
            Some(format!("var -> {s}"))
        }
    })
}
