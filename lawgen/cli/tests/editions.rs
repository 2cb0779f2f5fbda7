//! As-of evaluation (docs/reference.md#as-of-evaluation): every refusal of a
//! case's date with its exact message (`tests/ui/editions/<case>/`: a
//! package, a facts file and the extra arguments of `lawgen eval`), and the
//! meaning on a date compared with the package with what is not in force
//! deleted by hand.
//!
//! To accept new messages: `LAWGEN_BLESS=1 cargo test -p lawgen-cli --test editions`.

use lawgen_test_support as support;

use lawgen::driver;
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::Policy;
use serde_json::Value as J;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;
use support::gen::{generate, package_seed, GenConfig};

#[test]
fn every_refused_date_has_its_exact_message() {
    let ui = support::workspace().join("tests/ui/editions");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&ui)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("tests/ui/editions/{name}");
        let args: Vec<String> = std::fs::read_to_string(dir.join("args"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
            .current_dir(support::workspace())
            .args([
                "eval",
                &format!("{rel}/root.json"),
                "--facts",
                &format!("{rel}/facts.json"),
            ])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() != Some(1) {
            failures.push(format!(
                "{name}: exit {:?} (1 expected):\n{stderr}",
                out.status.code()
            ));
            continue;
        }
        let code = name.split('_').next().unwrap().to_ascii_uppercase();
        if !stderr.starts_with(&format!("error[{code}]")) {
            failures.push(format!("{name}: the first error is not {code}:\n{stderr}"));
        }
        let expected_path = ui.join(format!("{name}.stderr"));
        if support::bless() {
            std::fs::write(&expected_path, &stderr).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(e) if e == stderr => {}
            Ok(e) => failures.push(format!("{name}: expected\n{e}\nactual\n{stderr}")),
            Err(_) => failures.push(format!(
                "{name}: no {name}.stderr (LAWGEN_BLESS=1):\n{stderr}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// SPEC §8, read independently of lawgen's `law` module: is edition `e` in
/// force on `d` (dates as `YYYY-MM-DD`, which order as strings)?
fn edition_in_force(eds: &BTreeMap<String, Ed>, e: &str, d: &str) -> bool {
    let ed = &eds[e];
    if ed.repealed.iter().any(|r| r.as_str() <= d) {
        return false;
    }
    ed.in_force.iter().any(|x| {
        x.as_str() <= d
            && !eds.iter().any(|(o, oe)| {
                o != e && oe.work == ed.work && oe.in_force.iter().any(|y| x < y && y.as_str() <= d)
            })
    })
}

struct Ed {
    work: String,
    in_force: Vec<String>,
    repealed: Vec<String>,
}

/// On every date a facts file gives, a dated package means what the same
/// package means with the rules and priorities not in force on that date
/// deleted by hand (and the priorities naming a deleted rule): SPEC §8,
/// "exactly as if deleted". Random dated packages, several dates each.
#[test]
fn the_meaning_on_a_date_is_the_package_with_what_is_not_in_force_deleted() {
    let (mut compared, mut by_date) = (0usize, 0usize);
    for i in 0..60u64 {
        let mut cfg = GenConfig::new(package_seed(0xed17_0000_0000, i));
        cfg.dated = true;
        cfg.facts_files = 4;
        (cfg.min_rules, cfg.max_rules) = (3, 8);
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            continue;
        };
        let pkg: J = serde_json::from_slice(&g.package).unwrap();
        let nodes = pkg["nodes"].as_array().unwrap();
        let mut eds: BTreeMap<String, Ed> = BTreeMap::new();
        let mut frag_edition: BTreeMap<String, String> = BTreeMap::new();
        for n in nodes {
            let id = n["id"].as_str().unwrap().to_owned();
            match n["kind"].as_str().unwrap() {
                "source_edition" => {
                    let (mut in_force, mut repealed) = (Vec::new(), Vec::new());
                    for st in n["lifecycle"].as_array().into_iter().flatten() {
                        let x = st["extent"].as_str().unwrap().to_owned();
                        match st["status"].as_str().unwrap() {
                            "in_force" => in_force.push(x),
                            "repealed" => repealed.push(x),
                            _ => {}
                        }
                    }
                    let work = n["work"].as_str().unwrap().to_owned();
                    eds.insert(
                        id,
                        Ed {
                            work,
                            in_force,
                            repealed,
                        },
                    );
                }
                "fragment" => {
                    if let Some(e) = n["edition"].as_str() {
                        frag_edition.insert(id, e.to_owned());
                    }
                }
                _ => {}
            }
        }
        let current = eds
            .values()
            .flat_map(|e| e.in_force.iter().cloned())
            .max()
            .unwrap();
        let node_in_force = |n: &J, d: &str| {
            let dated: Vec<&String> = n["anchors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| frag_edition.get(a.as_str()?))
                .filter(|e| !eds[*e].in_force.is_empty())
                .collect();
            dated.is_empty() || dated.iter().any(|e| edition_in_force(&eds, e, d))
        };
        for (k, facts_bytes) in g.facts.iter().enumerate() {
            let facts: J = serde_json::from_slice(facts_bytes).unwrap();
            let d = facts["asOf"]
                .as_str()
                .map_or(current.clone(), str::to_owned);
            let removed: BTreeSet<&str> = nodes
                .iter()
                .filter(|n| n["kind"] == "rule" && !node_in_force(n, &d))
                .map(|n| n["id"].as_str().unwrap())
                .collect();
            let kept: Vec<J> = nodes
                .iter()
                .filter(|n| match n["kind"].as_str().unwrap() {
                    "rule" => !removed.contains(n["id"].as_str().unwrap()),
                    "priority_rule" => {
                        node_in_force(n, &d)
                            && !removed.contains(n["higher"]["id"].as_str().unwrap())
                            && !removed.contains(n["lower"]["id"].as_str().unwrap())
                    }
                    _ => true,
                })
                .cloned()
                .collect();
            let mut deleted = pkg.clone();
            deleted["nodes"] = J::Array(kept);
            let deleted =
                driver::load_bytes(&serde_json::to_vec(&deleted).unwrap(), &Default::default())
                    .unwrap_or_else(|e| {
                        panic!("package {i}, date {d}: deleting by hand: {}", e.render())
                    });
            for policy in [Policy::Blocking, Policy::Propagating] {
                let run = |l: &lawgen::driver::Loaded, bytes: &[u8]| {
                    let f = read_facts(bytes, &l.catalog).unwrap();
                    driver::evaluate(l, &f, policy).unwrap().conclusions
                };
                let dated = run(&loaded, facts_bytes);
                let by_hand = run(&deleted, facts_bytes);
                assert_eq!(
                    (&dated.sections, &dated.requests),
                    (&by_hand.sections, &by_hand.requests),
                    "package {i} (seed {:#x}), facts {k}, as of {d}, {policy:?}: {}",
                    cfg.seed,
                    g.description
                );
                assert_eq!(dated.as_of.map(|x| x.to_string()), Some(d.clone()));
                compared += 1;
                // Does the date matter here? (The test must be able to fail.)
                let mut undated: J = facts.clone();
                undated.as_object_mut().unwrap().remove("asOf");
                let now = run(&loaded, &serde_json::to_vec(&undated).unwrap());
                if now.sections != dated.sections {
                    by_date += 1;
                }
            }
        }
    }
    assert!(compared >= 200, "only {compared} outputs compared");
    assert!(
        by_date >= 20,
        "only {by_date} of {compared} outputs depend on the date"
    );
    eprintln!("{compared} outputs compared with their packages deleted by hand, {by_date} depend on the date");
}
