//! Cuts a package into importing layers (docs/reference.md#imports): the layers together mean
//! what the package meant, so evaluating the top layer must give the
//! unsplit package's canonical output byte for byte.
//!
//! Nodes are put in a random topological order (each after the nodes it
//! refers to) and the order is cut into layers at random points (mostly
//! just before a rule), so a node
//! only refers to its own layer or lower ones (an `external_decl` goes with
//! its judgment predicate, so that each layer checks on its own). Layer `k < top` gets the namespace
//! `<ns>:layer<k>`, the name `<name>.layer<k>` and its ids rewritten
//! accordingly; the top layer keeps the package's name, version and
//! namespace. Each layer imports the layer below it, and sometimes others
//! lower still (so one package is reached twice); every import pins the
//! imported layer's `semanticHash`. Content hashes are recomputed.

use super::gen::Rng;
use lawgen::internals::syntax::hash::node_hash;
use serde_json::{json, Map, Value as J};
use std::collections::{BTreeMap, HashMap};

/// One layer: its file name and package JSON.
pub struct Layer {
    pub file: String,
    pub json: J,
}

/// The layers of `package` (no imports of its own), lowest first; the last
/// one is the package to load. `layers` is 2 or more.
pub fn split(package: &[u8], layers: usize, rng: &mut Rng) -> (Vec<Layer>, Renames) {
    let pkg: J = serde_json::from_slice(package).expect("a generated package is JSON");
    let nodes = pkg["nodes"].as_array().expect("nodes").clone();
    let header = &pkg["package"];
    let ns = header["namespace"].as_str().expect("namespace").to_owned();
    let name = header["name"].as_str().expect("name").to_owned();
    let version = header["version"].as_str().expect("version").to_owned();
    let ids: HashMap<String, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n["id"].as_str().expect("id").to_owned(), i))
        .collect();
    // What each node refers to: every string in it that is another node's id.
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
    // A random topological order (every node after what it refers to),
    // cut into `layers` contiguous runs: a node's references then lie in its
    // own layer or below. Nodes on a reference cycle (none are expected)
    // go last, to the top layer.
    let n = nodes.len();
    let mut waiting: Vec<usize> = deps.iter().map(|d| d.len()).collect();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, d) in deps.iter().enumerate() {
        for &j in d {
            users[j].push(i);
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let i = ready.swap_remove(rng.below(ready.len()));
        order.push(i);
        for &u in &users[i] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                ready.push(u);
            }
        }
    }
    let placed: std::collections::HashSet<usize> = order.iter().copied().collect();
    order.extend((0..n).filter(|i| !placed.contains(i)));
    // Mostly cut between rules, so that layers hold rules of their own
    // (declarations come early in the order, rules later, priorities last).
    let rule_positions: Vec<usize> = (0..n)
        .filter(|&pos| nodes[order[pos]]["kind"] == "rule")
        .collect();
    let mut cuts: Vec<usize> = (0..layers - 1)
        .map(|_| {
            if rule_positions.len() >= 2 && rng.chance(75) {
                rule_positions[1 + rng.below(rule_positions.len() - 1)]
            } else {
                rng.below(n + 1)
            }
        })
        .collect();
    cuts.sort();
    let mut layer = vec![0usize; n];
    for (pos, &i) in order.iter().enumerate() {
        layer[i] = cuts.iter().filter(|&&c| c <= pos).count();
    }
    // A judgment predicate's external_decl goes with it, so that each layer
    // checks on its own (nothing refers to an external_decl).
    for (i, node) in nodes.iter().enumerate() {
        if node["kind"] == "external_decl" {
            if let Some(&s) = node["symbol"].as_str().and_then(|s| ids.get(s)) {
                layer[i] = layer[s];
            }
        }
    }
    let top = layers - 1;
    let layer_ns = |k: usize| {
        if k == top {
            ns.clone()
        } else {
            format!("{ns}:layer{k}")
        }
    };
    let mut renames = Renames::default();
    for (id, &i) in &ids {
        let local = id
            .strip_prefix(&format!("{ns}#"))
            .expect("generated ids begin with the namespace");
        let new = format!("{}#{local}", layer_ns(layer[i]));
        if new != *id {
            renames.ids.insert(id.clone(), new);
        }
    }
    let mut out: Vec<Layer> = Vec::new();
    for k in 0..layers {
        let mut these = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            if layer[i] != k {
                continue;
            }
            let mut n = renames.apply(n);
            n["package"] = J::from(layer_ns(k));
            let Some(obj) = n.as_object_mut() else {
                unreachable!("a node is an object")
            };
            obj.remove("contentHash");
            let hash = node_hash(obj);
            obj.insert("contentHash".into(), J::from(hash));
            these.push(n);
        }
        let mut imports = Vec::new();
        if k > 0 {
            let mut below = vec![k - 1];
            for j in 0..k - 1 {
                if rng.chance(40) {
                    below.push(j);
                }
            }
            for j in below {
                let l: &Layer = &out[j];
                imports.push(json!({
                    "name": l.json["package"]["name"],
                    "namespace": l.json["package"]["namespace"],
                    "version": l.json["package"]["version"],
                    "semanticHash": l.json["semanticHash"],
                }));
            }
        }
        let (lname, lversion) = if k == top {
            (name.clone(), version.clone())
        } else {
            (format!("{name}.layer{k}"), "0.0.0-layer".to_owned())
        };
        let mut hashes: Vec<&str> = these
            .iter()
            .map(|n| n["contentHash"].as_str().expect("hashed"))
            .collect();
        hashes.sort();
        let semantic = format!(
            "sha256:{}",
            lawgen::internals::syntax::hash::sha256_hex(hashes.join("\n").as_bytes())
        );
        let mut json = pkg.clone();
        json["package"] = json!({"name": lname, "namespace": layer_ns(k), "version": lversion});
        json["semanticHash"] = J::from(semantic);
        json["imports"] = J::Array(imports);
        json["nodes"] = J::Array(these);
        out.push(Layer {
            file: format!("layer{k}.json"),
            json,
        });
    }
    (out, renames)
}

/// Old id → new id.
#[derive(Default)]
pub struct Renames {
    pub ids: BTreeMap<String, String>,
}

impl Renames {
    /// `v` with every string that is a renamed id replaced.
    pub fn apply(&self, v: &J) -> J {
        match v {
            J::String(s) => J::from(self.ids.get(s).unwrap_or(s).as_str()),
            J::Array(a) => J::Array(a.iter().map(|x| self.apply(x)).collect()),
            J::Object(m) => J::Object(
                m.iter()
                    .map(|(k, x)| (k.clone(), self.apply(x)))
                    .collect::<Map<_, _>>(),
            ),
            other => other.clone(),
        }
    }

    /// A facts file for the layers: keys that name a predicate (or type) by
    /// a renamed full id are renamed; values are entity names and stay.
    pub fn facts(&self, facts: &[u8]) -> Vec<u8> {
        let mut f: J = serde_json::from_slice(facts).expect("generated facts are JSON");
        for section in ["facts", "entities"] {
            if let Some(m) = f.get_mut(section).and_then(J::as_object_mut) {
                let old = std::mem::take(m);
                for (k, v) in old {
                    let (tilde, bare) = match k.strip_prefix('~') {
                        Some(b) => ("~", b),
                        None => ("", k.as_str()),
                    };
                    let key = match self.ids.get(bare) {
                        Some(new) => format!("{tilde}{new}"),
                        None => k.clone(),
                    };
                    m.insert(key, v);
                }
            }
        }
        serde_json::to_vec(&f).expect("JSON")
    }
}

fn strings(v: &J, f: &mut dyn FnMut(&str)) {
    match v {
        J::String(s) => f(s),
        J::Array(a) => a.iter().for_each(|x| strings(x, f)),
        J::Object(m) => m.values().for_each(|x| strings(x, f)),
        _ => {}
    }
}
