//! The hand-derived scenarios of the Russian competition rules
//! (tests/scenarios/ru): the reference evaluator's institutional conclusions
//! must equal the expectations exactly.
//!
//! `ru.chess.competition` imports `fide.laws.chess`. docs/reference.md#imports defines the
//! meaning of an importing package as the meaning (docs/reference.md#what-a-package-means) of the union of its
//! import closure, so this test evaluates that union: the nodes of both files
//! in one package with `imports` emptied (tests/scenarios/ru/flatten.md).
//! Every node keeps its own `contentHash`, which the reader verifies.

mod support;

use lawgen::driver;
use lawgen::interp::Policy;
use lawgen::syntax::facts::read_facts;
use serde_json::Value as J;
use std::path::Path;

const FIDE: &str = "../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";
const RU: &str = "../packages/ru.chess.competition/ru.chess.competition-0.1.0.ir.json";

fn read_json(path: &str) -> J {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The import closure of the Russian package as one package: its own header,
/// no imports, the nodes of both packages.
fn union_of_closure() -> Vec<u8> {
    let fide = read_json(FIDE);
    let mut ru = read_json(RU);
    let entry = &ru["imports"][0];
    assert_eq!(entry["name"], fide["package"]["name"]);
    assert_eq!(entry["namespace"], fide["package"]["namespace"]);
    assert_eq!(entry["version"], fide["package"]["version"]);
    assert_eq!(entry["semanticHash"], fide["semanticHash"]);
    let mut nodes = fide["nodes"].as_array().unwrap().clone();
    nodes.extend(ru["nodes"].as_array().unwrap().iter().cloned());
    ru["imports"] = J::Array(vec![]);
    ru["nodes"] = J::Array(nodes);
    serde_json::to_vec(&ru).unwrap()
}

#[test]
fn every_node_of_the_russian_package_is_its_own() {
    let ru = read_json(RU);
    let ns = ru["package"]["namespace"].as_str().unwrap();
    for node in ru["nodes"].as_array().unwrap() {
        let id = node["id"].as_str().unwrap();
        assert!(id.starts_with(&format!("{ns}#")), "{id}");
        assert_eq!(node["package"], ns, "{id}");
    }
}

/// The file is serialised like the FIDE package: compact JSON, keys sorted,
/// nodes sorted by id (serde_json's map is ordered by key).
#[test]
fn the_russian_package_is_serialised_like_the_fide_package() {
    for path in [FIDE, RU] {
        let raw = std::fs::read_to_string(path).unwrap();
        let value: J = serde_json::from_str(&raw).unwrap();
        assert!(serde_json::to_string(&value).unwrap() == raw, "{path}");
        let ids: Vec<&str> = value["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap())
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{path}");
    }
}

#[test]
fn every_russian_scenario_matches_its_hand_derived_expectation() {
    let loaded = driver::load_bytes(&union_of_closure(), &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    support::scenarios::check_all(&loaded, Path::new("../tests/scenarios/ru"), 15);
}

/// The importing package, resolved on the import path, means exactly what
/// the union means: byte-equal canonical output on every scenario, both
/// policies. And its explanations, in Russian, say which layer decided.
#[test]
fn the_importing_package_means_its_union_and_explains_in_russian() {
    let union = driver::load_bytes(&union_of_closure(), &Default::default()).unwrap();
    let layered = driver::load_file_with(
        Path::new(RU),
        &Default::default(),
        &[Path::new(FIDE).parent().unwrap().to_owned()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(layered.model.packages.len(), 2);
    let dir = Path::new("../tests/scenarios/ru");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if !path.to_string_lossy().ends_with(".facts.json") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        for policy in [Policy::Blocking, Policy::Propagating] {
            let out = |l: &driver::Loaded| {
                let facts = read_facts(&bytes, &l.catalog).unwrap();
                let ev = driver::evaluate(l, &facts, policy).unwrap();
                lawgen::syntax::output::canonical_json(&ev.conclusions)
            };
            assert_eq!(out(&union), out(&layered), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 30);
    let facts = read_facts(
        &std::fs::read(dir.join("seventy_five_moves_no_automatic_draw.facts.json")).unwrap(),
        &layered.catalog,
    )
    .unwrap();
    let ev = driver::evaluate(&layered, &facts, Policy::Blocking).unwrap();
    let q = lawgen::explain::parse_query(&layered.catalog, "game_drawn(g1)").unwrap();
    let text = lawgen::explain::explain(&ev.program, &ev.store, Policy::Blocking, &q, "ru").text();
    assert!(
        text.starts_with("game_drawn(g1): только ОБОСНОВАНО"),
        "{text}"
    );
    assert!(
        text.contains("правило [fide.laws.chess 0.1.0] SeventyFiveAutomaticDraw (оспоримое)"),
        "{text}"
    );
    assert!(
        text.contains("[ru.chess.competition 0.1.0] NoSeventyFiveMoveDraw (опровергающее): применимо и не побеждено"),
        "{text}"
    );
    assert!(text.contains("Партия заканчивается вничью"), "{text}");
}

/// `doc_language` picks the rustdoc of the generated module: the Russian
/// labels of the competition rules with `ru`, their English ones by default.
#[test]
fn the_generated_rustdoc_follows_the_doc_language() {
    let layered = driver::load_file_with(
        Path::new(RU),
        &Default::default(),
        &[Path::new(FIDE).parent().unwrap().to_owned()],
    )
    .unwrap();
    let emit = |lang: Option<&str>| {
        lawgen::emit::emit(
            &layered,
            &lawgen::emit::EmitOptions {
                doc_language: lang.map(str::to_owned),
                ..Default::default()
            },
        )
        .unwrap()
        .source
    };
    // Only the doc comments: the embedded program carries every label.
    let docs = |src: String| {
        src.lines()
            .filter(|l| l.trim_start().starts_with("///"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (ru, en) = (docs(emit(Some("ru"))), docs(emit(None)));
    let russian = "Правила не знают автоматической ничьей после 75 ходов";
    assert!(ru.contains(russian), "{ru}");
    assert!(!en.contains(russian));
}

/// `lawgen check --lang ru`: the summary in lawgen's Russian words (the
/// package's names untranslated); English is unchanged by default.
#[test]
fn the_check_summary_speaks_russian() {
    let layered = driver::load_file_with(
        Path::new(RU),
        &Default::default(),
        &[Path::new(FIDE).parent().unwrap().to_owned()],
    )
    .unwrap();
    let ru = lawgen::summary::render_in(&layered, "ru");
    assert!(
        ru.starts_with(
            "пакет ru.chess.competition 0.1.0 (пространство имён urn:ru:chess:competition)"
        ),
        "{ru}"
    );
    assert!(
        ru.contains("замыкание импортов (пакетов: 2, корневой первым):"),
        "{ru}"
    );
    assert!(
        ru.contains("правила (81): строгих 67, оспоримых 7, опровергающих 7"),
        "{ru}"
    );
    assert!(ru.contains("\nстраты ("), "{ru}");
    let en = lawgen::summary::render(&layered);
    assert!(
        en.contains("rules (81): 67 strict, 7 defeasible, 7 defeaters"),
        "{en}"
    );
    assert_eq!(en, lawgen::summary::render_in(&layered, "en"));
}
