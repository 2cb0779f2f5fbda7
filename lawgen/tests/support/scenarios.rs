//! Hand-derived scenarios (`tests/scenarios/<set>/NAME.facts.json` beside
//! `NAME.expected.json`): the reference evaluator's institutional
//! conclusions and requests must equal each expectation exactly.

use lawgen::driver::{self, Loaded};
use lawgen::interp::Policy;
use lawgen::model::Value;
use lawgen::syntax::facts::read_facts;
use lawgen::syntax::RelationKind;
use serde_json::Value as J;
use std::path::Path;

fn row_json(row: &[Value]) -> J {
    J::Array(
        row.iter()
            .map(|v| match v {
                Value::Int(i) => J::from(*i),
                Value::Entity(e) => J::from(e.as_str()),
            })
            .collect(),
    )
}

/// Checks every scenario of `dir` against `loaded` (at least `min` of
/// them); panics with every mismatch at once.
pub fn check_all(loaded: &Loaded, dir: &Path, min: usize) {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_suffix(".expected.json").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= min, "only {} scenarios", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let expected: J = serde_json::from_slice(
            &std::fs::read(dir.join(format!("{name}.expected.json"))).unwrap(),
        )
        .unwrap();
        let facts_bytes = std::fs::read(dir.join(format!("{name}.facts.json"))).unwrap();
        let facts = read_facts(&facts_bytes, &loaded.catalog)
            .unwrap_or_else(|d| panic!("{name}: {}", d.render()));
        let policy = match expected["policy"].as_str() {
            Some("propagating") => Policy::Propagating,
            _ => Policy::Blocking,
        };
        let ev = driver::evaluate(loaded, &facts, policy).unwrap();
        let mut actual = serde_json::Map::new();
        for (sec, preds) in &ev.conclusions.sections {
            let mut m = serde_json::Map::new();
            for (lit, rows) in preds {
                let p = loaded
                    .model
                    .pred_by_name(lit.trim_start_matches('~'))
                    .unwrap();
                if loaded.model.pred(p).kind != RelationKind::Institutional {
                    continue;
                }
                m.insert(
                    lit.clone(),
                    J::Array(rows.iter().map(|r| row_json(r)).collect()),
                );
            }
            actual.insert(sec.as_str().to_owned(), J::Object(m));
        }
        let reqs: Vec<J> = ev
            .conclusions
            .requests
            .iter()
            .map(|r| {
                serde_json::json!({"predicate": r.predicate, "args": row_json(&r.args),
                                   "authority": r.authority, "capability": r.capability})
            })
            .collect();
        actual.insert("requests".into(), J::Array(reqs));
        for key in [
            "definitely",
            "defeasibly",
            "supported",
            "pending",
            "requests",
        ] {
            let want = match expected.get(key) {
                Some(v) if !v.is_null() => v.clone(),
                _ if key == "requests" => J::Array(vec![]),
                _ => J::Object(Default::default()),
            };
            if actual[key] != want {
                failures.push(format!(
                    "{name} [{key}]\n  expected: {want}\n  actual:   {}",
                    actual[key]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
