//! The `imports` target: one of the seed packages cut into layers that
//! import one another (docs/imports.md), generated together, then the import
//! graph broken on purpose, and the files read as a closure bundle
//! (`driver::load_bytes`, the in-memory search of `lawgen::internals::imports`).
//!
//! A layer `k` below the top gets the namespace `<ns>:layer<k>`, the name
//! `<name>.layer<k>` and its nodes' ids renamed into it; the top layer keeps
//! the package's name and namespace. Every layer imports the one below it,
//! and sometimes one lower still (a package reached twice), each import
//! pinning the imported layer's `semanticHash`. The recipe then picks
//! breakages: an import dropped, doubled or pointed at a missing package, a
//! version, namespace or hash changed, a cycle, a node moved to another
//! layer or declared in two, a layer written in the text form, bytes of a
//! file changed, files of another version or of no package added.
//!
//! What must hold: no panic, every refusal renders; and while nothing was
//! broken, the layers mean what the package meant: the same canonical
//! output on the same synthetic facts, under both policies.

use crate::mutate::{rehash, seeds};
use arbitrary::{Result, Unstructured};
use lawgen::driver::{self, Loaded};
use lawgen::internals::model::Model;
use lawgen_runtime::interp::Facts;
use lawgen_runtime::Policy;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The files of one closure, root first, and whether the recipe left the
/// import graph as generated.
pub struct Layers {
    pub files: Vec<(String, Vec<u8>)>,
    pub seed: usize,
    pub intact: bool,
    pub ops: Vec<String>,
    /// Original ids of the rules the layers' derogations set aside: the
    /// layers then mean what the package means with them (and every
    /// priority naming one) deleted.
    pub set_aside: BTreeSet<String>,
}

/// Every string in `v` (keys aside), depth first.
fn strings<'a>(v: &'a Value, f: &mut dyn FnMut(&'a str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|c| strings(c, f)),
        Value::Object(m) => m.values().for_each(|c| strings(c, f)),
        _ => {}
    }
}

fn rename(v: &mut Value, ids: &HashMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(n) = ids.get(s.as_str()) {
                *s = n.clone();
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| rename(c, ids)),
        Value::Object(m) => m.values_mut().for_each(|c| rename(c, ids)),
        _ => {}
    }
}

/// The layer of each node: a topological order of the nodes (each after the
/// nodes it names) cut at points the recipe picks, so that a node refers
/// only to its own layer or lower ones. An `external_decl` stays with the
/// predicate it declares external (each layer must check on its own).
fn assign(u: &mut Unstructured, nodes: &[Value], layers: usize) -> Result<Vec<usize>> {
    let ids: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((n.get("id")?.as_str()?, i)))
        .collect();
    let deps: Vec<Vec<usize>> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut out = Vec::new();
            strings(n, &mut |s| {
                if let Some(&j) = ids.get(s) {
                    if j != i {
                        out.push(j);
                    }
                }
            });
            out
        })
        .collect();
    // Kahn's algorithm, the recipe choosing among the ready nodes.
    let mut indegree: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            users[d].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..nodes.len()).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(nodes.len());
    while !ready.is_empty() {
        let k = if u.is_empty() {
            0
        } else {
            u.choose_index(ready.len())?
        };
        let i = ready.swap_remove(k);
        order.push(i);
        for &j in &users[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    let mut layer = vec![layers - 1; nodes.len()];
    // Cut points, ascending: order[..cut[0]] is layer 0, and so on.
    let mut cuts: Vec<usize> = (0..layers - 1)
        .map(|_| {
            if u.is_empty() {
                Ok(order.len() / 2)
            } else {
                u.int_in_range(0..=order.len())
            }
        })
        .collect::<Result<_>>()?;
    cuts.sort_unstable();
    for (pos, &i) in order.iter().enumerate() {
        layer[i] = cuts.iter().filter(|&&c| pos >= c).count();
    }
    // Nodes on a reference cycle (none expected) go to the top layer.
    for (i, l) in layer.iter_mut().enumerate() {
        if !order.contains(&i) {
            *l = layers - 1;
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        if n.get("kind").and_then(Value::as_str) == Some("external_decl") {
            if let Some(&p) = n
                .get("symbol")
                .and_then(Value::as_str)
                .and_then(|s| ids.get(s))
            {
                layer[i] = layer[p];
            }
        }
    }
    Ok(layer)
}

fn semantic_hash(doc: &Value) -> String {
    // Any stable function of the content: the import pins it, nothing
    // recomputes it.
    format!(
        "sha256:{}",
        lawgen::internals::syntax::hash::sha256_hex(
            lawgen::internals::syntax::canon::serialize(doc).as_bytes()
        )
    )
}

/// Builds the closure's files from the fuzzer's bytes.
pub fn layers(data: &[u8]) -> Result<Layers> {
    let mut u = Unstructured::new(data);
    let seed = match u.int_in_range(0..=7u8)? {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    };
    let pkg = &seeds()[seed];
    let n_layers = usize::from(u.int_in_range(2..=4u8)?);
    let nodes = pkg["nodes"].as_array().cloned().unwrap_or_default();
    let header = &pkg["package"];
    let ns = header["namespace"].as_str().unwrap_or("urn:t").to_owned();
    let name = header["name"].as_str().unwrap_or("t").to_owned();
    let layer_of = assign(&mut u, &nodes, n_layers)?;
    let layer_ns = |k: usize| {
        if k + 1 == n_layers {
            ns.clone()
        } else {
            format!("{ns}:layer{k}")
        }
    };
    let layer_name = |k: usize| {
        if k + 1 == n_layers {
            name.clone()
        } else {
            format!("{name}.layer{k}")
        }
    };
    let mut renames = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let Some(id) = n.get("id").and_then(Value::as_str) else {
            continue;
        };
        let local = id.split_once('#').map_or(id, |(_, l)| l);
        let new = format!("{}#{local}", layer_ns(layer_of[i]));
        if new != id {
            renames.insert(id.to_owned(), new);
        }
    }
    let mut docs: Vec<Value> = (0..n_layers)
        .map(|k| {
            let mut d = pkg.clone();
            d["package"]["namespace"] = json!(layer_ns(k));
            d["package"]["name"] = json!(layer_name(k));
            d["imports"] = json!([]);
            d["nodes"] = json!([]);
            d
        })
        .collect();
    for (i, n) in nodes.iter().enumerate() {
        let mut n = n.clone();
        rename(&mut n, &renames);
        if let Some(m) = n.as_object_mut() {
            m.insert("package".into(), json!(layer_ns(layer_of[i])));
        }
        docs[layer_of[i]]["nodes"].as_array_mut().unwrap().push(n);
    }
    // Imports: the layer below, and sometimes one lower still.
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for k in 1..n_layers {
        edges.push((k, k - 1));
        if k >= 2 && !u.is_empty() && u.ratio(1u8, 3u8)? {
            edges.push((k, u.int_in_range(0..=k - 2)?));
        }
    }
    let mut ops = Vec::new();
    let mut intact = true;
    let mut extra: Vec<(String, Vec<u8>)> = Vec::new();
    let mut text_form = vec![false; n_layers];
    let mut corrupt: Vec<(usize, usize, u8)> = Vec::new();
    // Breakages on the graph and the nodes, before hashing.
    let n_ops = if u.is_empty() {
        0
    } else {
        u.int_in_range(0..=4u8)?
    };
    let mut entry_ops: Vec<(usize, u8, String)> = Vec::new();
    let mut derogations = 0usize;
    let mut set_aside = BTreeSet::new();
    let back: HashMap<&str, &str> = renames
        .iter()
        .map(|(old, new)| (new.as_str(), old.as_str()))
        .collect();
    let original = |id: &str| back.get(id).map_or(id, |o| *o).to_owned();
    for _ in 0..n_ops {
        if u.is_empty() {
            break;
        }
        let op = u.int_in_range(0..=13u8)?;
        let k = u.choose_index(n_layers)?;
        match op {
            0 if !edges.is_empty() => {
                let e = edges.remove(u.choose_index(edges.len())?);
                ops.push(format!("drop import {e:?}"));
                intact = false;
            }
            1 if !edges.is_empty() => {
                let e = edges[u.choose_index(edges.len())?];
                edges.push(e);
                ops.push(format!("import twice {e:?}"));
                intact = false;
            }
            2 => {
                // A cycle: a lower layer imports a higher one (or itself).
                let to = u.int_in_range(k..=n_layers - 1)?;
                edges.push((k, to));
                ops.push(format!("cycle {k} -> {to}"));
                intact = false;
            }
            3..=6 => {
                // Change one import entry of layer k: name, version,
                // namespace or hash (applied when the entries are written).
                let len = u.int_in_range(0..=8usize)?;
                let what = String::from_utf8_lossy(u.bytes(len)?).into_owned();
                entry_ops.push((k, op, what.clone()));
                ops.push(format!("entry {op} of layer {k}: {what:?}"));
                intact = false;
            }
            7 => {
                // Move a node to another layer: references break or point
                // up the import graph.
                let from = &mut docs[k]["nodes"];
                let len = from.as_array().map_or(0, Vec::len);
                if len > 0 {
                    let i = u.choose_index(len)?;
                    let n = from.as_array_mut().unwrap().remove(i);
                    let to = u.choose_index(n_layers)?;
                    docs[to]["nodes"].as_array_mut().unwrap().push(n);
                    ops.push(format!("move node {i} of layer {k} to {to}"));
                    intact = false;
                }
            }
            8 => {
                // The same id declared in two packages.
                let len = docs[k]["nodes"].as_array().map_or(0, Vec::len);
                if len > 0 {
                    let i = u.choose_index(len)?;
                    let n = docs[k]["nodes"][i].clone();
                    let to = u.choose_index(n_layers)?;
                    docs[to]["nodes"].as_array_mut().unwrap().push(n);
                    ops.push(format!("copy node {i} of layer {k} to {to}"));
                    intact = false;
                }
            }
            9 => {
                // Meaning-preserving: the layer in the text form.
                text_form[k] = true;
                ops.push(format!("layer {k} as text"));
            }
            10 => {
                let at = u.arbitrary::<u16>()? as usize;
                let b = u.arbitrary::<u8>()?;
                corrupt.push((k, at, b));
                ops.push(format!("byte {at} of layer {k} := {b}"));
                intact = false;
            }
            12 | 13 if k > 0 => {
                // A derogation in layer k (docs/reference.md#derogations):
                // of rules of the layers below (meaning-preserving against
                // the package with them deleted), or broken: one of its own
                // rules, an unknown id, a node that is no rule, no anchors,
                // a rule list that is no list.
                let below: Vec<String> = docs[..k]
                    .iter()
                    .flat_map(|d| d["nodes"].as_array().cloned().unwrap_or_default())
                    .filter(|n| n["kind"] == "rule")
                    .filter_map(|n| n["id"].as_str().map(str::to_owned))
                    .collect();
                if below.is_empty() && op == 12 {
                    // Nothing to set aside: a derogation of nothing is E106.
                    continue;
                }
                let mut list: Vec<String> = Vec::new();
                for id in &below {
                    if u.ratio(1u8, 3u8)? {
                        list.push(id.clone());
                    }
                }
                if list.is_empty() {
                    if let Some(id) = below.first() {
                        list.push(id.clone());
                    }
                }
                let broken = if op == 13 {
                    u.int_in_range(0..=4u8)?
                } else {
                    u8::MAX
                };
                let own = |kind: &str| {
                    docs[k]["nodes"]
                        .as_array()
                        .and_then(|ns| ns.iter().find(|n| n["kind"] == kind))
                        .and_then(|n| n["id"].as_str())
                        .map(str::to_owned)
                };
                match broken {
                    0 => list.extend(own("rule")),
                    1 => list.push(format!("{}#NoSuchRule", layer_ns(k))),
                    2 => list.extend(own("type_decl")),
                    _ => {}
                }
                let lns = layer_ns(k);
                let n = derogations;
                derogations += 1;
                let text = "Article D. The rules listed are replaced by this article.";
                let fragment = json!({
                    "id": format!("{lns}#DerogatingArticle{n}"), "kind": "fragment",
                    "package": lns, "fragmentKind": "article", "locator": format!("article/D{n}"),
                    "texts": [{"language": "en", "text": text}],
                });
                let rules: Value = if broken == 4 {
                    json!({"kind": "rule_ref", "id": list.first()})
                } else {
                    list.iter()
                        .map(|id| json!({"kind": "rule_ref", "id": id}))
                        .collect()
                };
                let anchors = if broken == 3 {
                    json!([])
                } else {
                    json!([format!("{lns}#DerogatingArticle{n}")])
                };
                let node = json!({
                    "id": format!("{lns}#Derogation{n}"), "kind": "derogation", "package": lns,
                    "rules": rules, "anchors": anchors,
                    "labels": [{"language": "en", "text": format!("derogation {n}")}],
                });
                let nodes = docs[k]["nodes"].as_array_mut().unwrap();
                nodes.push(fragment);
                nodes.push(node);
                if broken == u8::MAX {
                    set_aside.extend(list.iter().map(|id| original(id)));
                } else {
                    intact = false;
                }
                ops.push(format!("derogation in layer {k} ({broken}) of {list:?}"));
            }
            _ => {
                // Another file: the same package in another version, a
                // file of no package, or a layer again under another name
                // (the first found wins; none of these changes the meaning).
                let (file, bytes) = match u.int_in_range(0..=2u8)? {
                    0 => {
                        let mut d = docs[k].clone();
                        d["package"]["version"] = json!("9.9.9");
                        (format!("other-{k}.json"), serde_json::to_vec(&d).unwrap())
                    }
                    1 => {
                        let len = u.int_in_range(0..=64usize)?;
                        ("junk.json".to_owned(), u.bytes(len)?.to_vec())
                    }
                    _ => (
                        format!("again-{k}.json"),
                        serde_json::to_vec(&docs[k]).unwrap(),
                    ),
                };
                ops.push(format!("extra file {file}"));
                extra.push((file, bytes));
            }
        }
    }
    // Hashes bottom-up: an import pins the imported layer's semanticHash,
    // so a layer's own hash covers what it imports.
    for k in 0..n_layers {
        let mut entries = Vec::new();
        for &(_, to) in edges.iter().filter(|(f, _)| *f == k) {
            let imported = &docs[to];
            entries.push(json!({
                "name": imported["package"]["name"],
                "namespace": imported["package"]["namespace"],
                "version": imported["package"]["version"],
                "semanticHash": imported.get("semanticHash").cloned().unwrap_or(Value::Null),
            }));
        }
        for (l, op, what) in &entry_ops {
            if *l != k || entries.is_empty() {
                continue;
            }
            let i = what.len() % entries.len();
            let e = &mut entries[i];
            let key = ["name", "version", "namespace", "semanticHash"][usize::from(op - 3)];
            e[key] = json!(what);
        }
        docs[k]["imports"] = Value::Array(entries);
        rehash(&mut docs[k]);
        let h = semantic_hash(&docs[k]);
        docs[k]["semanticHash"] = json!(h);
    }
    let mut files = Vec::new();
    for k in (0..n_layers).rev() {
        let base = layer_name(k);
        let (file, mut bytes) = if text_form[k] {
            match lawgen::internals::syntax::text::print(&docs[k]) {
                Ok(t) => (format!("{base}.law"), t.into_bytes()),
                Err(_) => (
                    format!("{base}.json"),
                    serde_json::to_vec(&docs[k]).unwrap(),
                ),
            }
        } else {
            (
                format!("{base}.json"),
                serde_json::to_vec(&docs[k]).unwrap(),
            )
        };
        for &(l, at, b) in &corrupt {
            if l == k && !bytes.is_empty() {
                let i = at % bytes.len();
                bytes[i] = b;
            }
        }
        files.push((file, bytes));
    }
    files.extend(extra);
    Ok(Layers {
        files,
        seed,
        intact,
        ops,
        set_aside,
    })
}

/// `facts` of `from` as facts of `to`: the same rows, predicates and types
/// found by local name (the layers rename ids, not local names).
fn carry(facts: &Facts, from: &Model, to: &Model) -> Option<Facts> {
    let preds: HashMap<&str, usize> = to
        .preds
        .iter()
        .enumerate()
        .map(|(i, p)| (p.local.as_str(), i))
        .collect();
    let types: HashMap<&str, usize> = to
        .types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), i))
        .collect();
    let mut out = Facts::default();
    for (lit, rows) in &facts.rows {
        let p = preds.get(from.preds[lit.pred.0 as usize].local.as_str())?;
        let mut l = *lit;
        l.pred.0 = *p as u32;
        out.rows.insert(l, rows.clone());
    }
    let mut entities = BTreeMap::new();
    for (t, names) in &facts.entities {
        let k = types.get(from.types[t.0 as usize].name.as_str())?;
        let mut t = *t;
        t.0 = *k as u32;
        entities.insert(t, names.clone());
    }
    out.entities = entities;
    out.duplicates = facts.duplicates;
    Some(out)
}

fn canonical(loaded: &Loaded, facts: &Facts, policy: Policy) -> String {
    match driver::evaluate(loaded, facts, policy) {
        Ok(ev) => lawgen_runtime::formats::output::canonical_json(&ev.conclusions),
        Err(e) => panic!("lowering a checked package failed: {e}"),
    }
}

/// The target.
pub fn imports(data: &[u8]) {
    let Ok(l) = layers(data) else {
        return;
    };
    if std::env::var_os("LAWGEN_FUZZ_VERBOSE").is_some() {
        eprintln!("seed {}: {:#?}", l.seed, l.ops);
    }
    let refs: Vec<(String, &[u8])> = l.files.iter().map(|(n, b)| (n.clone(), &b[..])).collect();
    let bundle = lawgen::internals::syntax::files::write_bundle(&refs);
    crate::dump(bundle.as_bytes());
    let loaded = match driver::load_bytes(bundle.as_bytes(), &Default::default()) {
        Ok(loaded) => loaded,
        Err(d) => {
            assert!(!d.is_empty(), "a refused closure has no diagnostic");
            let _ = d.render();
            assert!(!l.intact, "an intact closure is refused:\n{}", d.render());
            return;
        }
    };
    let _ = lawgen::summary::render(&loaded, "en");
    crate::evaluate_all(&loaded, &Facts::default(), 0);
    if !l.intact {
        return;
    }
    // The layers mean what the package meant, less what their derogations
    // set aside: the package with those rules, and every priority naming
    // one, deleted by hand.
    let deleted;
    let whole = if l.set_aside.is_empty() {
        crate::seed(l.seed)
    } else {
        let mut pkg = seeds()[l.seed].clone();
        let names = |n: &Value, key: &str| {
            n[key]["id"]
                .as_str()
                .is_some_and(|id| l.set_aside.contains(id))
        };
        if let Some(nodes) = pkg["nodes"].as_array_mut() {
            nodes.retain(|n| match n["kind"].as_str() {
                Some("rule") => !l.set_aside.contains(n["id"].as_str().unwrap_or_default()),
                Some("priority_rule") => !names(n, "higher") && !names(n, "lower"),
                _ => true,
            });
        }
        rehash(&mut pkg);
        let bytes = serde_json::to_vec(&pkg).expect("a package serializes");
        deleted = match driver::load_bytes(&bytes, &Default::default()) {
            Ok(d) => d,
            Err(d) => panic!(
                "the package without the rules set aside is refused, but its layers with derogations load:\n{}",
                d.render()
            ),
        };
        &deleted
    };
    let opts = lawgen::synth::SynthOptions {
        seed: data.len() as u64,
        ..Default::default()
    };
    let Ok(synth) = lawgen::synth::Synth::new(whole, opts) else {
        return;
    };
    let facts = synth.case(0);
    let Some(carried) = carry(&facts, whole.model(), loaded.model()) else {
        panic!("the layers lost a predicate or type of the package");
    };
    for policy in [Policy::Blocking, Policy::Propagating] {
        assert_eq!(
            canonical(&loaded, &carried, policy),
            canonical(whole, &facts, policy),
            "the layers do not mean what the package means ({policy:?})"
        );
    }
}
