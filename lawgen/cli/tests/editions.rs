//! As-of evaluation (docs/reference.md#as-of-evaluation): every refusal of a
//! case's date with its exact message (`tests/ui/editions/<case>/`: a
//! package, a facts file and the extra arguments of `lawgen eval`), and the
//! meaning on a date compared with the package with what is not in force
//! deleted by hand, dated derogations included
//! (`tests/editions/dated-derogation/` is a small one to read).
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
use support::derogate::{bundle, derogate_dated};
use support::gen::{generate, package_seed, GenConfig, Rng};

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
        let (eds, frag_edition) = dating(nodes);
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

/// SPEC §8 on dated derogations: a derogation anchored to a dated edition
/// is in force on the dates one of its dated anchors' editions is, and on
/// those dates only its rules (and the priorities naming them) are left out,
/// exactly as if deleted; a timeless one leaves them out on every date.
/// Random dated packages cut into layers whose top (or a middle) layer
/// derogates with dated anchors, compared on every date of their facts
/// files with the unsplit package with what is not in force deleted by
/// hand.
#[test]
fn dated_derogations_leave_their_rules_out_only_on_the_dates_they_are_in_force() {
    let (mut compared, mut by_derogation, mut packages) = (0usize, 0usize, 0usize);
    for i in 0..80u64 {
        let mut cfg = GenConfig::new(package_seed(0xed17_de70_0000, i));
        cfg.dated = true;
        cfg.facts_files = 4;
        (cfg.min_rules, cfg.max_rules) = (3, 8);
        let g = generate(&cfg);
        if driver::load_bytes(&g.package, &Default::default()).is_err() {
            continue;
        }
        let mut rng = Rng::new(cfg.seed ^ 0xd47e);
        let Some(d) = derogate_dated(&g.package, 2 + (i as usize % 2), &mut rng) else {
            continue;
        };
        let closure = driver::load_bytes(&bundle(&d.layers), &Default::default())
            .unwrap_or_else(|e| panic!("package {i}: the derogating layers: {}", e.render()));
        packages += 1;
        let pkg: J = serde_json::from_slice(&g.package).unwrap();
        let nodes = pkg["nodes"].as_array().unwrap();
        let (eds, frag_edition) = dating(nodes);
        let current = eds
            .values()
            .flat_map(|e| e.in_force.iter().cloned())
            .max()
            .unwrap();
        // A node (or derogation) anchored to `anchors` is in force on `d`.
        let in_force = |anchors: &mut dyn Iterator<Item = &str>, d: &str| {
            let dated: Vec<&String> = anchors
                .filter_map(|a| frag_edition.get(a))
                .filter(|e| !eds[*e].in_force.is_empty())
                .collect();
            dated.is_empty() || dated.iter().any(|e| edition_in_force(&eds, e, d))
        };
        let anchors_of = |n: &J| -> Vec<String> {
            n["anchors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| Some(a.as_str()?.to_owned()))
                .collect()
        };
        for (k, facts_bytes) in g.facts.iter().enumerate() {
            let facts: J = serde_json::from_slice(facts_bytes).unwrap();
            let date = facts["asOf"]
                .as_str()
                .map_or(current.clone(), str::to_owned);
            let mut removed: BTreeSet<String> = nodes
                .iter()
                .filter(|n| {
                    n["kind"] == "rule"
                        && !in_force(&mut anchors_of(n).iter().map(String::as_str), &date)
                })
                .map(|n| n["id"].as_str().unwrap().to_owned())
                .collect();
            let before = removed.len();
            for (rules, anchors) in &d.lists {
                if in_force(&mut anchors.iter().map(String::as_str), &date) {
                    removed.extend(rules.iter().cloned());
                }
            }
            let derogated = removed.len() > before;
            let kept: Vec<J> = nodes
                .iter()
                .filter(|n| match n["kind"].as_str().unwrap() {
                    "rule" => !removed.contains(n["id"].as_str().unwrap()),
                    "priority_rule" => {
                        in_force(&mut anchors_of(n).iter().map(String::as_str), &date)
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
                        panic!("package {i}, date {date}: deleting by hand: {}", e.render())
                    });
            let renamed = d.renames.facts(facts_bytes);
            for policy in [Policy::Blocking, Policy::Propagating] {
                let run = |l: &lawgen::driver::Loaded, bytes: &[u8]| {
                    let f = read_facts(bytes, &l.catalog).unwrap();
                    driver::evaluate(l, &f, policy).unwrap().conclusions
                };
                let layered = run(&closure, &renamed);
                let by_hand = run(&deleted, facts_bytes);
                assert_eq!(
                    (&layered.sections, &layered.requests),
                    (&by_hand.sections, &by_hand.requests),
                    "package {i} (seed {:#x}), facts {k}, as of {date}, {policy:?}, derogations {:?}: {}",
                    cfg.seed,
                    d.lists,
                    g.description
                );
                compared += 1;
                by_derogation += usize::from(derogated);
            }
        }
    }
    assert!(packages >= 40, "only {packages} packages derogated");
    assert!(compared >= 200, "only {compared} outputs compared");
    // Not vacuous: on many dates a derogation in force left rules out.
    assert!(
        by_derogation >= 40,
        "only {by_derogation} of {compared} outputs with a derogation in force"
    );
    eprintln!("{compared} outputs of {packages} derogating packages compared, {by_derogation} with a derogation in force");
}

/// The editions (by id) and the edition of each fragment, from a package's
/// nodes.
fn dating(nodes: &[J]) -> (BTreeMap<String, Ed>, BTreeMap<String, String>) {
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
    (eds, frag_edition)
}

/// `tests/editions/dated-derogation/`: article 9 of the 2024 edition of
/// MORE sets article 1 of the imported RULES aside; the 2020 edition does
/// not. On 2023-12-31 what is seen is known, on 2024-01-01 it is not, and
/// the why-not names the derogation in force and its edition; `analyze
/// --compare-dates` names the rule leaving force and the derogation
/// entering it; `lawgen check` lists the derogation with its edition and
/// the editions with their dates.
#[test]
fn a_dated_derogation_sets_its_rule_aside_from_the_day_its_edition_enters_into_force() {
    let dir = "tests/editions/dated-derogation";
    let lawgen = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
            .current_dir(support::workspace())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let root = format!("{dir}/root.json");
    let facts = format!("{dir}/facts.json");
    let known = |date: &str| -> J {
        let out: J = serde_json::from_str(&lawgen(&[
            "eval", &root, "--facts", &facts, "--as-of", date,
        ]))
        .unwrap();
        out["definitely"]["known"].clone()
    };
    assert_eq!(known("2023-12-31"), serde_json::json!([["t1"], ["t2"]]));
    assert_eq!(known("2024-01-01"), serde_json::json!([["t2"]]));
    assert_eq!(known("2031-06-01"), serde_json::json!([["t2"]]));
    let why = lawgen(&[
        "explain",
        &root,
        "--facts",
        &facts,
        "--as-of",
        "2024-01-01",
        "known(t1)",
    ]);
    assert!(
        why.contains("SeenIsKnown (strict) — what is seen is known: not in force on 2024-01-01\n"),
        "{why}"
    );
    assert!(
        why.contains("set aside by derogation [ui.top 1.0.0] NotSeen — what is seen is not known (edition MORE 2024, in force from 2024-01-01)\n"),
        "{why}"
    );
    let ru = lawgen(&[
        "explain",
        &root,
        "--facts",
        &facts,
        "--as-of",
        "2024-01-01",
        "known(t1)",
        "--lang",
        "ru",
    ]);
    assert!(
        ru.contains("исключено изъятием [ui.top 1.0.0] NotSeen — what is seen is not known (редакция MORE 2024, действует с 2024-01-01)"),
        "{ru}"
    );
    let before = lawgen(&[
        "explain",
        &root,
        "--facts",
        &facts,
        "--as-of",
        "2023-12-31",
        "known(t1)",
    ]);
    assert!(
        before.starts_with("known(t1): DEFINITELY holds"),
        "{before}"
    );
    let check = lawgen(&["check", &root]);
    assert!(
        check.contains("  NotSeen [ui.top 1.0.0] (article/9) sets aside, while edition MORE_1 is in force, SeenIsKnown [ui.base 1.0.0]\n"),
        "{check}"
    );
    let doc =
        std::env::temp_dir().join(format!("lawgen-dated-derogation-{}.md", std::process::id()));
    lawgen(&[
        "doc",
        &root,
        "--format",
        "markdown",
        "--out",
        doc.to_str().unwrap(),
    ]);
    let doc_text = std::fs::read_to_string(&doc).unwrap();
    let _ = std::fs::remove_file(&doc);
    assert!(
        doc_text.contains("rule “SeenIsKnown” of package “ui.base” does not apply, nor do the priorities that name it. It is in force only while edition MORE_1 is in force.\n"),
        "{doc_text}"
    );
    assert!(
        doc_text.contains("2024-01-01: edition enters into force: “MORE_1”.\n\nEnters into force: derogation “NotSeen”"),
        "{doc_text}"
    );
    let compare = lawgen(&[
        "analyze",
        &root,
        "--compare-dates",
        "2023-12-31",
        "2024-01-01",
    ]);
    assert!(
        compare.contains("rules that leave force after 2023-12-31: 1\n  SeenIsKnown [ui.base 1.0.0] (edition RULES_1)\nderogations that enter force on 2024-01-01: 1\n  NotSeen [ui.top 1.0.0] (edition MORE_1)\n"),
        "{compare}"
    );
    assert!(
        compare.contains("| `known` | `known(thing1)` | definitely | not concluded | SeenIsKnown (leaves force after 2023-12-31) |"),
        "{compare}"
    );
    assert!(
        check.contains("editions (3):\n  MORE: MORE_0 in force from 2020-01-01 to 2023-12-31\n  MORE: MORE_1 in force from 2024-01-01\n  RULES: RULES_1 undated (what is anchored to it is timeless)\n"),
        "{check}"
    );
}

/// `lawgen eval --as-of D --backend compiled` prints what the interpreter
/// prints as of D (the date overrides the facts file's `asOf` in the
/// compiled binary too), and refuses a date no law governs the same way.
#[test]
fn eval_as_of_a_date_agrees_between_the_backends() {
    use support::harness::{generated_dir, lawgen_command};
    let dir = "tests/editions/dated-derogation";
    let root = format!("{dir}/root.json");
    let facts = format!("{dir}/facts.json");
    let cache = generated_dir();
    let cache = cache.to_str().unwrap();
    let eval = |date: &str, backend: &[&str]| {
        let out = lawgen_command(env!("CARGO_BIN_EXE_lawgen"))
            .current_dir(support::workspace())
            .args(["eval", &root, "--facts", &facts, "--as-of", date])
            .args(["--cache-dir", cache])
            .args(backend)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter(|l| !l.starts_with("lawgen: "))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    };
    for date in ["2023-12-31", "2024-01-01", "2019-12-31"] {
        let interp = eval(date, &[]);
        let compiled = eval(date, &["--backend", "compiled"]);
        assert_eq!(compiled, interp, "as of {date}");
        if date == "2019-12-31" {
            assert_eq!(interp.0, Some(1));
            assert!(
                interp.2.starts_with(
                    "error[E088]: no edition of the work `MORE` is in force on 2019-12-31"
                ),
                "{}",
                interp.2
            );
        } else {
            assert_eq!(interp.0, Some(0));
            assert!(
                interp.1.contains(&format!("\"asOf\": \"{date}\"")),
                "{}",
                interp.1
            );
        }
    }
}
