//! Property tests over random packages with judgments (SPEC §4.6 soundness and
//! consistency), through the whole pipeline: JSON → check → lower → interp.
//!
//! A small deterministic generator (no external crates) builds packages with
//! entity and integer columns, empirical / institutional / judgment predicates,
//! strict / defeasible / defeater rules of both polarities, supported items,
//! `not` items, priorities and closures. Packages the checker refuses (e.g.
//! unstratifiable ones) are skipped and counted; the test insists enough pass.

use lawgen::driver::{self, Loaded};
use lawgen::interp::{Conclusions, Policy};
use lawgen::model::Value;
use lawgen::program::Section;
use lawgen::syntax::facts::read_facts;
use lawgen::syntax::node_hash;
use lawgen::syntax::RelationKind;
use serde_json::{json, Value as J};
use std::collections::BTreeSet;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

const NS: &str = "urn:t";

fn hashed(mut node: J) -> J {
    let h = node_hash(node.as_object().unwrap());
    node["contentHash"] = J::from(h);
    node
}

struct PredSpec {
    name: String,
    kind: &'static str,
    cols: Vec<bool>, // true = Integer column
}

/// Generates a package and a facts file.
fn generate(rng: &mut Rng) -> (Vec<u8>, Vec<u8>) {
    let mut preds = Vec::new();
    let kinds = [
        ("e", "empirical", 3 + rng.below(3)),
        ("j", "judgment", 1 + rng.below(2)),
        ("q", "institutional", 3 + rng.below(3)),
    ];
    for (prefix, kind, n) in kinds {
        for i in 0..n {
            let arity = rng.below(3);
            let cols = (0..arity).map(|_| rng.chance(15)).collect();
            preds.push(PredSpec {
                name: format!("{prefix}{i}"),
                kind,
                cols,
            });
        }
    }
    let mut nodes = vec![hashed(
        json!({"id": format!("{NS}#Thing"), "kind": "type_decl", "name": "Thing", "typeKind": "entity"}),
    )];
    let ty = |int: bool| {
        if int {
            "urn:law:std#Integer".to_owned()
        } else {
            format!("{NS}#Thing")
        }
    };
    for p in &preds {
        let params: Vec<J> = p
            .cols
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"name": format!("a{i}"), "type": {"name": ty(*c)}}))
            .collect();
        nodes.push(hashed(json!({"id": format!("{NS}#{}", p.name), "kind": "symbol_decl", "symbolKind": "relation",
            "name": p.name, "relationKind": p.kind, "parameters": params})));
        if p.kind == "judgment" {
            nodes.push(hashed(json!({"id": format!("{NS}#{}/external", p.name), "kind": "external_decl",
                "symbol": format!("{NS}#{}", p.name), "authority": {"kind": "const_ref", "id": format!("{NS}#Court")},
                "capability": "judgment:Court", "effect": "judgment"})));
        }
    }
    nodes.push(hashed(json!({"id": format!("{NS}#k0"), "kind": "symbol_decl", "symbolKind": "constant", "name": "k0",
        "parameters": [], "returnType": {"name": format!("{NS}#Thing")}})));
    let inst: Vec<usize> = (0..preds.len())
        .filter(|&i| preds[i].kind == "institutional")
        .collect();
    let mut rules: Vec<(String, usize, bool)> = Vec::new();
    let nrules = 4 + rng.below(6);
    for r in 0..nrules {
        let h = inst[rng.below(inst.len())];
        let neg = rng.chance(35);
        let strength = ["strict", "defeasible", "defeasible", "defeater"][rng.below(4)];
        // Variables: one per head column plus a few more, typed by first use.
        let mut vars: Vec<(String, bool)> = Vec::new();
        let mut items = Vec::new();
        let nbody = 1 + rng.below(3);
        let mut bound_vars: Vec<usize> = Vec::new();
        for _ in 0..nbody {
            let b = rng.below(preds.len());
            let args: Vec<J> = preds[b]
                .cols
                .iter()
                .map(|&int| {
                    // Reuse a variable of the same type, or make a new one.
                    let same: Vec<usize> = (0..vars.len()).filter(|&v| vars[v].1 == int).collect();
                    let v = if !same.is_empty() && rng.chance(60) {
                        same[rng.below(same.len())]
                    } else {
                        vars.push((format!("v{}", vars.len()), int));
                        vars.len() - 1
                    };
                    if !bound_vars.contains(&v) {
                        bound_vars.push(v);
                    }
                    json!({"kind": "var", "var": vars[v].0})
                })
                .collect();
            let status = if rng.chance(20) {
                "supported"
            } else {
                "established"
            };
            let polarity = if rng.chance(20) {
                "negative"
            } else {
                "positive"
            };
            items.push(json!({"kind": "status", "status": status, "formula":
                {"kind": "literal", "predicate": format!("{NS}#{}", preds[b].name), "polarity": polarity, "args": args}}));
        }
        if rng.chance(15) {
            // A `not` item over an empirical predicate with fresh (existential) variables.
            let b = rng.below(preds.iter().filter(|p| p.kind == "empirical").count());
            let args: Vec<J> = preds[b]
                .cols
                .iter()
                .map(|&int| {
                    vars.push((format!("v{}", vars.len()), int));
                    json!({"kind": "var", "var": vars[vars.len() - 1].0})
                })
                .collect();
            items.push(json!({"kind": "not", "item": {"kind": "status", "status": "established", "formula":
                {"kind": "literal", "predicate": format!("{NS}#{}", preds[b].name), "polarity": "positive", "args": args}}}));
        }
        let int_vars: Vec<usize> = bound_vars.iter().copied().filter(|&v| vars[v].1).collect();
        if !int_vars.is_empty() && rng.chance(40) {
            let v = int_vars[rng.below(int_vars.len())];
            let op = ["ge", "lt", "eq", "ne"][rng.below(4)];
            items.push(json!({"kind": "comparison", "left": {"kind": "var", "var": vars[v].0},
                "op": op, "right": {"kind": "value", "type": {"name": "urn:law:std#Integer"}, "value": 1}}));
        }
        // Head arguments: bound variables of the right type, or the constant.
        let head_args: Option<Vec<J>> = preds[h]
            .cols
            .iter()
            .map(|&int| {
                let cands: Vec<usize> = bound_vars
                    .iter()
                    .copied()
                    .filter(|&v| vars[v].1 == int)
                    .collect();
                if cands.is_empty() {
                    (!int).then(|| json!({"kind": "const_ref", "id": format!("{NS}#k0")}))
                } else {
                    Some(json!({"kind": "var", "var": vars[cands[rng.below(cands.len())]].0}))
                }
            })
            .collect();
        let Some(head_args) = head_args else { continue };
        let id = format!("{NS}#r{r}");
        let variables: Vec<J> = vars
            .iter()
            .map(|(n, int)| json!({"id": n, "type": {"name": ty(*int)}}))
            .collect();
        nodes.push(hashed(json!({"id": id, "kind": "rule", "strength": strength,
            "head": {"kind": "literal", "predicate": format!("{NS}#{}", preds[h].name), "polarity": if neg {"negative"} else {"positive"}, "args": head_args},
            "body": {"kind": "and", "items": items}, "variables": variables, "anchors": [], "labels": [],
            "scope": {"kind": "boolean", "value": true}})));
        rules.push((id, h, neg));
    }
    // Priorities between conflicting rules, from earlier to later (acyclic).
    for a in 0..rules.len() {
        for b in a + 1..rules.len() {
            if rules[a].1 == rules[b].1 && rules[a].2 != rules[b].2 && rng.chance(50) {
                let (hi, lo) = if rng.chance(50) { (a, b) } else { (b, a) };
                nodes.push(hashed(json!({"id": format!("{NS}#prio{a}_{b}"), "kind": "priority_rule",
                    "higher": {"kind": "const_ref", "id": rules[hi].0}, "lower": {"kind": "const_ref", "id": rules[lo].0},
                    "priorityKind": "direct", "condition": {"kind": "boolean", "value": true}})));
            }
        }
    }
    // A closure between two empirical predicates of the same signature.
    let emp: Vec<usize> = (0..preds.len())
        .filter(|&i| preds[i].kind == "empirical")
        .collect();
    for &a in &emp {
        for &b in &emp {
            if a != b && preds[a].cols == preds[b].cols && rng.chance(30) {
                nodes.push(hashed(json!({"id": format!("{NS}#close_{}", preds[a].name), "kind": "closure_policy",
                    "predicate": format!("{NS}#{}", preds[a].name), "domain": {"kind": "const_ref", "id": format!("{NS}#{}", preds[b].name)},
                    "deriveExplicitNegative": true, "snapshot": "snap", "completeAsOf": "2026-01-01"})));
                break;
            }
        }
    }
    let pkg = json!({"schemaVersion": "law.core.ir/0.2", "package": {"name": "random", "namespace": NS, "version": "0.0.1"},
        "imports": [], "strata": [], "nodes": nodes});
    // Facts: empirical rows and some decided judgments.
    let ents = ["a", "b", "k0"];
    let mut facts = serde_json::Map::new();
    for p in &preds {
        if p.kind == "institutional" {
            continue;
        }
        let mut pos = Vec::new();
        let mut neg = Vec::new();
        for _ in 0..rng.below(4) {
            let row: Vec<J> = p
                .cols
                .iter()
                .map(|&int| {
                    if int {
                        J::from(rng.below(3) as i64)
                    } else {
                        J::from(ents[rng.below(3)])
                    }
                })
                .collect();
            let pct = if p.kind == "judgment" { 40 } else { 25 };
            if rng.chance(pct) {
                neg.push(J::Array(row))
            } else {
                pos.push(J::Array(row))
            }
        }
        neg.retain(|r| !pos.contains(r));
        if !pos.is_empty() {
            facts.insert(p.name.clone(), J::Array(pos));
        }
        if !neg.is_empty() {
            facts.insert(format!("~{}", p.name), J::Array(neg));
        }
    }
    let facts = json!({"facts": facts});
    (
        serde_json::to_vec(&pkg).unwrap(),
        serde_json::to_vec(&facts).unwrap(),
    )
}

fn run(loaded: &Loaded, facts: &[u8], policy: Policy) -> Conclusions {
    let facts = read_facts(facts, &loaded.model).unwrap_or_else(|d| panic!("{}", d.render()));
    driver::evaluate(loaded, &facts, policy)
        .unwrap()
        .conclusions
}

type LitSet = BTreeSet<(String, Vec<Value>)>;

fn section(c: &Conclusions, s: Section, loaded: &Loaded) -> LitSet {
    c.sections[&s]
        .iter()
        .filter(|(lit, _)| {
            let p = loaded
                .model
                .pred_by_name(lit.trim_start_matches('~'))
                .unwrap();
            loaded.model.pred(p).kind != RelationKind::Judgment
        })
        .flat_map(|(lit, rows)| rows.iter().map(move |r| (lit.clone(), r.clone())))
        .collect()
}

#[test]
fn deciding_a_requested_judgment_only_moves_pending_literals() {
    let mut rng = Rng(0x5eed_1a45);
    let (mut checked, mut decisions, mut with_requests) = (0, 0, 0);
    for _ in 0..400 {
        let (pkg, facts) = generate(&mut rng);
        let Ok(loaded) = driver::load_bytes(&pkg, &Default::default()) else {
            continue;
        };
        checked += 1;
        for policy in [Policy::Blocking, Policy::Propagating] {
            let before = run(&loaded, &facts, policy);
            let concluded = section(&before, Section::Defeasibly, &loaded);
            let pending = section(&before, Section::Pending, &loaded);
            assert!(concluded.is_disjoint(&pending));
            if !before.requests.is_empty() {
                with_requests += 1;
            }
            for req in before.requests.iter().take(3) {
                for yes in [true, false] {
                    let mut f: J = serde_json::from_slice(&facts).unwrap();
                    let key = if yes {
                        req.predicate.clone()
                    } else {
                        format!("~{}", req.predicate)
                    };
                    let row: Vec<J> = req
                        .args
                        .iter()
                        .map(|v| match v {
                            Value::Int(i) => J::from(*i),
                            Value::Entity(e) => J::from(e.as_str()),
                        })
                        .collect();
                    let entry = f["facts"]
                        .as_object_mut()
                        .unwrap()
                        .entry(key)
                        .or_insert(J::Array(vec![]));
                    entry.as_array_mut().unwrap().push(J::Array(row));
                    let after = run(&loaded, &serde_json::to_vec(&f).unwrap(), policy);
                    let now = section(&after, Section::Defeasibly, &loaded);
                    decisions += 1;
                    assert!(
                        concluded.is_subset(&now),
                        "a concluded literal was lost by deciding {req:?} = {yes}\npackage: {}",
                        String::from_utf8_lossy(&pkg)
                    );
                    let gained: Vec<_> = now
                        .difference(&concluded)
                        .filter(|l| !pending.contains(*l))
                        .collect();
                    assert!(gained.is_empty(), "deciding {req:?} = {yes} concluded {gained:?}, which was neither concluded nor pending\npackage: {}", String::from_utf8_lossy(&pkg));
                }
            }
        }
    }
    assert!(
        checked >= 100,
        "only {checked} random packages passed the checker"
    );
    assert!(
        with_requests >= 20 && decisions >= 60,
        "too few judgments exercised: {with_requests} runs with requests, {decisions} decisions"
    );
}

#[test]
fn never_both_q_and_not_q_defeasibly_unless_both_definitely() {
    let mut rng = Rng(0xdead_beef);
    let mut checked = 0;
    for _ in 0..400 {
        let (pkg, facts) = generate(&mut rng);
        let Ok(loaded) = driver::load_bytes(&pkg, &Default::default()) else {
            continue;
        };
        checked += 1;
        for policy in [Policy::Blocking, Policy::Propagating] {
            let c = run(&loaded, &facts, policy);
            let def = &c.sections[&Section::Definitely];
            let dfs = &c.sections[&Section::Defeasibly];
            for (lit, rows) in dfs.iter().filter(|(l, _)| !l.starts_with('~')) {
                let Some(neg) = dfs.get(&format!("~{lit}")) else {
                    continue;
                };
                for row in rows.intersection(neg) {
                    let both_definite = def.get(lit).is_some_and(|r| r.contains(row))
                        && def.get(&format!("~{lit}")).is_some_and(|r| r.contains(row));
                    assert!(both_definite, "{lit}{row:?} and its negation are both defeasible but not both definite\n{}", String::from_utf8_lossy(&pkg));
                }
            }
            // Inclusions: definitely ⊆ defeasibly ⊆ supported.
            for (a, b) in [
                (Section::Definitely, Section::Defeasibly),
                (Section::Defeasibly, Section::Supported),
            ] {
                for (lit, rows) in &c.sections[&a] {
                    let sup = c.sections[&b].get(lit);
                    assert!(
                        rows.iter().all(|r| sup.is_some_and(|s| s.contains(r))),
                        "{lit}: {a:?} not within {b:?}"
                    );
                }
            }
        }
    }
    assert!(
        checked >= 100,
        "only {checked} random packages passed the checker"
    );
}
