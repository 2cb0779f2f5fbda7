//! Derogations on random packages (docs/reference.md#derogations): a
//! package is cut into importing layers (`split`), and the top layer sets
//! some rules of the layers below aside with derogation nodes. The same
//! package with those rules, and every priority naming one, deleted by hand
//! must mean exactly the same: byte-equal canonical output.

use super::gen::Rng;
use super::split::{split, Layer, Renames};
use lawgen::internals::syntax::hash::{node_hash, sha256_hex};
use serde_json::{json, Value as J};
use std::collections::BTreeSet;

/// A split package one of whose layers (often the top one, sometimes one
/// in the middle that the top imports) derogates some rules of the layers
/// below it.
pub struct Derogated {
    /// Lowest first; the last one is the root.
    pub layers: Vec<Layer>,
    /// The layer that holds the derogations.
    pub at: usize,
    pub renames: Renames,
    /// The unsplit package with the set-aside rules (and the priorities
    /// naming them) deleted.
    pub deleted: Vec<u8>,
    /// Original ids of the rules set aside.
    pub set_aside: BTreeSet<String>,
    /// Derogation nodes written (one or two; a rule may be listed by both,
    /// or twice by one).
    pub derogations: usize,
    /// Per derogation, the original ids of the rules it lists and of the
    /// fragments of dated editions it is anchored to (none: it is timeless).
    pub lists: Vec<(Vec<String>, Vec<String>)>,
}

/// `None` when no layer below the top holds a rule.
pub fn derogate(package: &[u8], layers: usize, rng: &mut Rng) -> Option<Derogated> {
    derogate_in(package, layers, rng, false)
}

/// [`derogate`] on a dated package (`GenConfig::dated`): most derogations
/// are anchored to one or two fragments of its dated editions, besides
/// their own undated article, so they are in force on some dates only
/// (docs/reference.md#as-of-evaluation); some stay timeless. `deleted` and
/// `set_aside` are then what a timeless reading would delete: the meaning
/// on a date is for the caller to compute from `lists`.
pub fn derogate_dated(package: &[u8], layers: usize, rng: &mut Rng) -> Option<Derogated> {
    derogate_in(package, layers, rng, true)
}

fn derogate_in(package: &[u8], layers: usize, rng: &mut Rng, dated: bool) -> Option<Derogated> {
    let (mut files, renames) = split(package, layers, rng);
    let top = files.len() - 1;
    // Every layer imports the one below it, so everything below a layer is
    // in its closure: a middle layer may derogate too, and its derogation
    // holds for the root that imports it (docs/reference.md#derogations).
    let at = if top > 1 && rng.chance(35) {
        1 + rng.below(top - 1)
    } else {
        top
    };
    let ns = files[at].json["package"]["namespace"]
        .as_str()
        .expect("namespace")
        .to_owned();
    // Rules of the layers below, by their original id (the split renamed them).
    let mut below: Vec<(String, String)> = Vec::new();
    for l in &files[..at] {
        for n in l.json["nodes"].as_array().expect("nodes") {
            if n["kind"] == "rule" {
                let new = n["id"].as_str().expect("id").to_owned();
                let old = renames
                    .ids
                    .iter()
                    .find(|(_, v)| **v == new)
                    .map(|(k, _)| k.clone())
                    .expect("a lower layer's ids are renamed");
                below.push((old, new));
            }
        }
    }
    if below.is_empty() {
        return None;
    }
    let mut chosen: Vec<usize> = (0..below.len()).filter(|_| rng.chance(45)).collect();
    if chosen.is_empty() {
        chosen.push(rng.below(below.len()));
    }
    // One derogation, or two that share the list between them (sometimes
    // listing a rule in both); sometimes a rule twice in one list.
    let two = chosen.len() > 1 && rng.chance(40);
    let mut lists: Vec<Vec<String>> = vec![Vec::new(); if two { 2 } else { 1 }];
    for (k, &c) in chosen.iter().enumerate() {
        let id = below[c].1.clone();
        let d = if two { k % 2 } else { 0 };
        lists[d].push(id.clone());
        if rng.chance(15) {
            lists[d].push(id.clone());
        }
        if two && rng.chance(25) {
            lists[1 - d].push(id);
        }
    }
    let text = "Article D. The rules listed are replaced by this article.";
    let mut fragment = json!({
        "id": format!("{ns}#DerogatingArticle"), "kind": "fragment", "package": ns,
        "fragmentKind": "article", "locator": "article/D",
        "labels": [{"language": "en", "text": "the derogating article"}],
        "texts": [{"language": "en", "text": text,
                   "contentHash": format!("sha256:{}", sha256_hex(text.as_bytes()))}],
    });
    let mut added = vec![hashed(&mut fragment)];
    // The fragments of dated editions a derogation of layer `at` can name
    // (in it or below): (id in the layers, original id).
    let mut dated_fragments: Vec<(String, String)> = Vec::new();
    if dated {
        for l in &files[..=at] {
            for n in l.json["nodes"].as_array().expect("nodes") {
                if n["kind"] == "fragment" && n.get("edition").is_some_and(|e| e.is_string()) {
                    let new = n["id"].as_str().expect("id").to_owned();
                    let old = renames
                        .ids
                        .iter()
                        .find(|(_, v)| **v == new)
                        .map_or_else(|| new.clone(), |(k, _)| k.clone());
                    dated_fragments.push((new, old));
                }
            }
        }
    }
    let mut anchored: Vec<Vec<String>> = Vec::new();
    for (d, list) in lists.iter().enumerate() {
        let mut anchors = vec![format!("{ns}#DerogatingArticle")];
        let mut originals = Vec::new();
        if !dated_fragments.is_empty() && rng.chance(80) {
            for _ in 0..1 + usize::from(rng.chance(30)) {
                let (new, old) = &dated_fragments[rng.below(dated_fragments.len())];
                if !originals.contains(old) {
                    anchors.push(new.clone());
                    originals.push(old.clone());
                }
            }
        }
        anchored.push(originals);
        let mut node = json!({
            "id": format!("{ns}#Derogation{d}"), "kind": "derogation", "package": ns,
            "rules": list.iter().map(|id| json!({"kind": "rule_ref", "id": id})).collect::<Vec<_>>(),
            "anchors": anchors,
            "labels": [{"language": "en", "text": format!("derogation {d}")}],
        });
        added.push(hashed(&mut node));
    }
    // The lists by original id.
    let original = |id: &String| {
        renames
            .ids
            .iter()
            .find(|(_, v)| *v == id)
            .map_or_else(|| id.clone(), |(k, _)| k.clone())
    };
    let lists_by_original: Vec<(Vec<String>, Vec<String>)> = lists
        .iter()
        .zip(anchored)
        .map(|(l, a)| (l.iter().map(original).collect(), a))
        .collect();
    let derogations = lists.len();
    files[at].json["nodes"]
        .as_array_mut()
        .expect("nodes")
        .extend(added);
    if at < top {
        repin(&mut files, at);
    }

    let set_aside: BTreeSet<String> = chosen.iter().map(|&c| below[c].0.clone()).collect();
    let mut pkg: J = serde_json::from_slice(package).expect("a generated package is JSON");
    let names = |n: &J, key: &str| {
        n[key]["id"]
            .as_str()
            .is_some_and(|id| set_aside.contains(id))
    };
    pkg["nodes"]
        .as_array_mut()
        .expect("nodes")
        .retain(|n| match n["kind"].as_str() {
            Some("rule") => !set_aside.contains(n["id"].as_str().unwrap_or_default()),
            Some("priority_rule") => !names(n, "higher") && !names(n, "lower"),
            _ => true,
        });
    Some(Derogated {
        at,
        layers: files,
        renames,
        deleted: serde_json::to_vec(&pkg).expect("JSON"),
        set_aside,
        derogations,
        lists: lists_by_original,
    })
}

/// Layer `at` changed: recompute its `semanticHash` (as `split` computes
/// it) and pin the new value in every import of it.
fn repin(files: &mut [Layer], at: usize) {
    let mut hashes: Vec<&str> = files[at].json["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["contentHash"].as_str().expect("hashed"))
        .collect();
    hashes.sort();
    let semantic = format!("sha256:{}", sha256_hex(hashes.join("\n").as_bytes()));
    let name = files[at].json["package"]["name"].clone();
    files[at].json["semanticHash"] = J::from(semantic.as_str());
    for l in files.iter_mut() {
        for i in l.json["imports"].as_array_mut().expect("imports") {
            if i["name"] == name {
                i["semanticHash"] = J::from(semantic.as_str());
            }
        }
    }
}

fn hashed(node: &mut J) -> J {
    let obj = node.as_object_mut().expect("a node is an object");
    let hash = node_hash(obj);
    obj.insert("contentHash".into(), J::from(hash));
    node.clone()
}

/// The layers as one closure bundle (the root first), which
/// `driver::load_bytes` reads like a package with imports.
pub fn bundle(layers: &[Layer]) -> Vec<u8> {
    let bytes: Vec<(String, Vec<u8>)> = layers
        .iter()
        .rev()
        .map(|l| (l.file.clone(), serde_json::to_vec(&l.json).expect("JSON")))
        .collect();
    let files: Vec<(String, &[u8])> = bytes.iter().map(|(n, b)| (n.clone(), &b[..])).collect();
    lawgen::internals::syntax::files::write_bundle(&files).into_bytes()
}
