//! How each compiler stage scales with the package (nothing may
//! explode). Builds synthetic packages of size k, 2k and 4k, times load
//! (read + check + size check), lower, the interpreter on one entity, and
//! emit, and prints each stage's time ratio 4k/k: about 4 is linear, about 16
//! quadratic. Each stage ran into a quadratic or cubic path on one of these
//! shapes before it was fixed; this is how to see one come back.
//!
//! ```text
//! cargo run --release -p lawgen-benches --bin scale [-- K]   # K defaults to 1000
//! ```
//!
//! Shapes:
//! * `chain`    — `q0 <= e`, `q_i <= q_(i-1)`: k defeasible rules, k predicates;
//! * `conflict` — k defeasible rules for `q`, k for `~q`, `p_i > n_i`;
//!   loaded with `max_rule_body` raised, since by default it is refused.

use lawgen::driver::load_bytes;
use lawgen::driver::ReadLimits;
use lawgen::generate as emit;
use lawgen::internals::syntax::hash::node_hash;
use lawgen::EmitOptions;
use lawgen_runtime::formats::facts::read_facts;
use serde_json::{json, Value as J};
use std::time::{Duration, Instant};

fn hashed(mut n: J) -> J {
    let h = node_hash(n.as_object().expect("a node is an object"));
    n["contentHash"] = J::from(h);
    n
}

fn pred(name: &str, kind: &str) -> J {
    hashed(
        json!({"id": format!("urn:s#{name}"), "kind": "symbol_decl", "symbolKind": "relation",
        "name": name, "relationKind": kind,
        "parameters": [{"name": "a", "type": {"name": "urn:s#T"}}], "labels": []}),
    )
}

fn rule(id: &str, head: &str, negative: bool, body: &str) -> J {
    let lit = |p: &str, neg: bool| {
        json!({"kind": "literal", "predicate": format!("urn:s#{p}"),
            "polarity": if neg { "negative" } else { "positive" },
            "args": [{"kind": "var", "var": "x"}]})
    };
    hashed(
        json!({"id": format!("urn:s#{id}"), "kind": "rule", "strength": "defeasible",
        "head": lit(head, negative),
        "body": {"kind": "status", "status": "established", "formula": lit(body, false)},
        "variables": [{"id": "x", "type": {"name": "urn:s#T"}}], "anchors": [], "labels": [],
        "scope": {"kind": "boolean", "value": true}}),
    )
}

fn package(shape: &str, k: usize) -> Vec<u8> {
    let mut nodes = vec![
        hashed(
            json!({"id": "urn:s#T", "kind": "type_decl", "name": "T", "typeKind": "entity", "labels": []}),
        ),
        pred("e", "empirical"),
    ];
    match shape {
        "chain" => {
            for i in 0..k {
                nodes.push(pred(&format!("q{i}"), "institutional"));
                let body = if i == 0 {
                    "e".to_owned()
                } else {
                    format!("q{}", i - 1)
                };
                nodes.push(rule(&format!("r{i}"), &format!("q{i}"), false, &body));
            }
        }
        _ => {
            nodes.push(pred("q", "institutional"));
            for i in 0..k {
                nodes.push(rule(&format!("p{i}"), "q", false, "e"));
                nodes.push(rule(&format!("n{i}"), "q", true, "e"));
                nodes.push(hashed(
                    json!({"id": format!("urn:s#pr{i}"), "kind": "priority_rule",
                    "priorityKind": "direct",
                    "higher": {"kind": "const_ref", "id": format!("urn:s#p{i}")},
                    "lower": {"kind": "const_ref", "id": format!("urn:s#n{i}")},
                    "condition": {"kind": "boolean", "value": true}, "labels": []}),
                ));
            }
        }
    }
    serde_json::to_vec(&json!({"schemaVersion": "law.core.ir/0.2",
        "package": {"name": "scale", "namespace": "urn:s", "version": "0.0.1"},
        "imports": [], "strata": [], "nodes": nodes}))
    .expect("serializable")
}

/// Seconds of load, lower, eval and emit for one package.
fn stages(bytes: &[u8]) -> [Duration; 4] {
    let limits = ReadLimits::default().max_rule_body(2000);
    let t = Instant::now();
    let loaded = load_bytes(bytes, &limits).unwrap_or_else(|d| panic!("{}", d.render()));
    let load = t.elapsed();
    let t = Instant::now();
    let program = lawgen::driver::lower(&loaded).expect("lowers");
    let lower = t.elapsed();
    let facts = read_facts(br#"{"facts": {"e": [["a"]]}}"#, &loaded.catalog).expect("facts");
    let t = Instant::now();
    let store =
        lawgen_runtime::interp::evaluate(&program, &facts, lawgen_runtime::Policy::Blocking);
    let eval = t.elapsed();
    std::hint::black_box(store);
    let t = Instant::now();
    let emitted = emit(&loaded, &EmitOptions::default()).expect("emits");
    let emit = t.elapsed();
    std::hint::black_box(emitted);
    [load, lower, eval, emit]
}

fn main() {
    let k: usize = std::env::args()
        .nth(1)
        .map(|a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("usage: scale [K]   (K: the smallest size, default 1000)");
                std::process::exit(2)
            })
        })
        .unwrap_or(1000);
    println!("shape     size      load     lower      eval      emit   (seconds)");
    for shape in ["chain", "conflict"] {
        // conflict's rules per side are capped so its +∂ rule stays under the
        // 2,000-item ceiling of max_rule_body.
        let base = if shape == "conflict" { k.min(490) } else { k };
        let mut first = None;
        let mut last = [Duration::ZERO; 4];
        for size in [base, 2 * base, 4 * base] {
            let s = stages(&package(shape, size));
            println!(
                "{shape:<8} {size:>6} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
                s[0].as_secs_f64(),
                s[1].as_secs_f64(),
                s[2].as_secs_f64(),
                s[3].as_secs_f64()
            );
            first.get_or_insert(s);
            last = s;
        }
        let first = first.expect("three sizes ran");
        let ratio = |i: usize| last[i].as_secs_f64() / first[i].as_secs_f64().max(1e-6);
        println!(
            "{shape:<8}  4×/1× {:>8.1}× {:>8.1}× {:>8.1}× {:>8.1}×   (linear ≈ 4, quadratic ≈ 16)",
            ratio(0),
            ratio(1),
            ratio(2),
            ratio(3)
        );
    }
}
