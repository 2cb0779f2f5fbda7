//! The hand-derived scenarios of the Russian competition rules
//! (tests/scenarios/ru): the reference evaluator's institutional conclusions
//! must equal the expectations exactly.
//!
//! `ru.chess.competition` imports `fide.laws.chess` and sets some of its
//! rules aside with derogations, so it is evaluated through its imports (the
//! FIDE file found on the import path). docs/reference.md#imports defines its
//! meaning as that of the union of the import closure less the rules the
//! derogations set aside and the priorities that name them; this test builds
//! that union by hand (tests/scenarios/ru/flatten.md) and checks that it means
//! the same as the importing package on every scenario.

use lawgen_test_support as support;

use lawgen::driver;
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::Policy;
use serde_json::Value as J;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
// RU_0_1_0 and RU_0_2_0: the earlier versions, kept as fixtures: they show what the
// corrected readings changed (and the analysis tool's drawn-and-lost witness).
use support::{CHESS as FIDE, RU, RU_0_1_0, RU_0_2_0, RU_SCENARIOS as SCENARIOS};

fn read_json(path: &str) -> J {
    serde_json::from_slice(&support::read(path)).unwrap()
}

fn layered(path: &str) -> driver::Loaded {
    driver::load_file_with(
        &support::path(path),
        &Default::default(),
        &[support::path(support::CHESS_DIR)],
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The rule ids the Russian package's derogations set aside.
fn set_aside(ru: &J) -> BTreeSet<String> {
    ru["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "derogation")
        .flat_map(|n| n["rules"].as_array().unwrap().iter())
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The meaning of the importing package written out as one package: its own
/// header, no imports, the FIDE nodes less the rules set aside and the
/// priorities naming them, and its own nodes less the derogations.
fn union_less_derogations() -> Vec<u8> {
    let fide = read_json(FIDE);
    let mut ru = read_json(RU);
    let entry = &ru["imports"][0];
    assert_eq!(entry["name"], fide["package"]["name"]);
    assert_eq!(entry["namespace"], fide["package"]["namespace"]);
    assert_eq!(entry["version"], fide["package"]["version"]);
    assert_eq!(entry["semanticHash"], fide["semanticHash"]);
    let gone = set_aside(&ru);
    let named = |n: &J, k: &str| gone.contains(n[k]["id"].as_str().unwrap_or(""));
    let mut nodes: Vec<J> = fide["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| !gone.contains(n["id"].as_str().unwrap()))
        .filter(|n| n["kind"] != "priority_rule" || !(named(n, "higher") || named(n, "lower")))
        .cloned()
        .collect();
    let fide_rules = fide["nodes"].as_array().unwrap().len() - nodes.len();
    assert!(
        fide_rules >= gone.len(),
        "every id set aside is a FIDE node"
    );
    nodes.extend(
        ru["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["kind"] != "derogation")
            .cloned(),
    );
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

/// Every node that carries labels has a Russian one first and an English one
/// beside it.
#[test]
fn every_node_is_labelled_in_russian_first_and_in_english() {
    let ru = read_json(RU);
    for node in ru["nodes"].as_array().unwrap() {
        let id = node["id"].as_str().unwrap();
        let labels = node["labels"].as_array().unwrap_or_else(|| panic!("{id}"));
        assert_eq!(labels[0]["language"], "ru", "{id}");
        assert!(labels.iter().any(|l| l["language"] == "en"), "{id}");
    }
}

/// The files are serialised like the FIDE package: compact JSON, keys sorted,
/// nodes sorted by id (serde_json's map is ordered by key).
#[test]
fn the_russian_packages_are_serialised_like_the_fide_package() {
    for path in [FIDE, RU, RU_0_1_0, RU_0_2_0] {
        let raw = String::from_utf8(support::read(path)).unwrap();
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

/// The top-level `semanticHash` as the package's README defines it: SHA-256
/// of the nodes' `contentHash` values, sorted and joined by newlines.
#[test]
fn the_semantic_hash_is_the_one_the_readme_defines() {
    for path in [RU, RU_0_1_0, RU_0_2_0] {
        let p = read_json(path);
        let mut hashes: Vec<&str> = p["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["contentHash"].as_str().unwrap())
            .collect();
        hashes.sort_unstable();
        let digest = Sha256::digest(hashes.join("\n").as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let want = format!("sha256:{hex}");
        assert_eq!(p["semanticHash"], want.as_str(), "{path}");
        assert_eq!(p["package"]["semanticHash"], want.as_str(), "{path}");
    }
}

#[test]
fn every_russian_scenario_matches_its_hand_derived_expectation() {
    let loaded = layered(RU);
    assert_eq!(loaded.model().packages.len(), 2);
    support::scenarios::check_all(&loaded, &support::path(SCENARIOS), 45);
}

/// The importing package, resolved on the import path, means exactly what
/// the union less its derogations means: byte-equal canonical output on
/// every scenario, both policies.
#[test]
fn the_importing_package_means_its_union_less_the_rules_set_aside() {
    let union = driver::load_bytes(&union_less_derogations(), &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let layered = layered(RU);
    let mut n = 0;
    for e in std::fs::read_dir(support::path(SCENARIOS)).unwrap() {
        let path = e.unwrap().path();
        if !path.to_string_lossy().ends_with(".facts.json") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        for policy in [Policy::Blocking, Policy::Propagating] {
            let out = |l: &driver::Loaded| {
                let facts = read_facts(&bytes, &l.catalog).unwrap();
                let ev = driver::evaluate(l, &facts, policy).unwrap();
                lawgen_runtime::formats::output::canonical_json(&ev.conclusions)
            };
            assert_eq!(out(&union), out(&layered), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 90);
}

/// A small deterministic generator (no dependency): the same sequence on
/// every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One game, its two players and a random selection of everything that can
/// end it or decide its result, judgments decided yes, no or not at all.
fn random_game(rng: &mut Lcg) -> String {
    let players = ["w1", "b1"];
    let mut facts: Vec<(String, String)> =
        vec![("player_of".into(), r#"["g1","w1"],["g1","b1"]"#.into())];
    let mut add = |pred: &str, row: String| facts.push((pred.to_owned(), row));
    let per_player = [
        "checkmate_delivered",
        "player_resigned_in_game",
        "flag_fall_established",
        "king_cannot_be_checkmated_in_game",
        "draw_claimed_in_game",
        "player_has_the_move",
        "piece_touched_before_draw_claim",
        "quickplay_draw_claim",
    ];
    for pred in per_player {
        for p in players {
            if rng.pick(4) == 0 {
                add(pred, format!(r#"["g1","{p}"]"#));
            }
        }
    }
    for p in players {
        if rng.pick(4) == 0 {
            add("player_resigned", format!(r#"["{p}"]"#));
        }
        if rng.pick(4) == 0 {
            add("king_cannot_be_checkmated", format!(r#"["{p}"]"#));
        }
        if rng.pick(5) == 0 {
            let n = [0, 30, 901][rng.pick(3) as usize];
            add(
                "arrival_after_start_seconds",
                format!(r#"["g1","{p}",{n}]"#),
            );
        }
        if rng.pick(5) == 0 {
            let n = 1 + rng.pick(3);
            add("illegal_moves_in_game", format!(r#"["g1","{p}",{n}]"#));
        }
        if rng.pick(4) == 0 {
            add("claimant_clock_seconds", format!(r#"["g1","{p}",90]"#));
        }
        if rng.pick(8) == 0 {
            add("player_never_arrived", format!(r#"["g1","{p}"]"#));
        }
        // 9.4 per move: a claim and a touch on move 40 or 41.
        if rng.pick(4) == 0 {
            let n = 40 + rng.pick(2);
            add("draw_claimed_on_move", format!(r#"["g1","{p}",{n}]"#));
        }
        if rng.pick(4) == 0 {
            let n = 40 + rng.pick(2);
            add("piece_touched_on_move", format!(r#"["g1","{p}",{n}]"#));
        }
    }
    let per_game = [
        "stalemate_arisen",
        "dead_position_arisen",
        "draw_agreed",
        "both_flags_fallen_order_unknown",
        "all_remaining_moves_period",
        "play_started",
    ];
    for pred in per_game {
        if rng.pick(4) == 0 {
            add(pred, r#"["g1"]"#.into());
        }
    }
    if rng.pick(4) == 0 {
        add("position_occurrence_count", r#"["g1",3]"#.into());
    }
    if rng.pick(4) == 0 {
        add(
            "moves_by_each_without_pawn_or_capture",
            r#"["g1",50]"#.into(),
        );
    }
    if rng.pick(5) == 0 {
        add("regulation_default_time_seconds", r#"["g1",600]"#.into());
    }
    for j in [
        "opponent_not_trying_to_win_normally",
        "game_cannot_be_won_normally",
        "quickplay_decision_postponed",
        "quickplay_claim_rejected",
        "final_position_without_winning_advantage",
        "opponent_made_no_winning_attempts",
    ] {
        match rng.pick(3) {
            0 => add(j, r#"["g1"]"#.into()),
            1 => add(&format!("~{j}"), r#"["g1"]"#.into()),
            _ => {}
        }
    }
    // A 10.2 claim ruled on its own: agreed, postponed, rejected, or any
    // mixture of answers, the contradictory ones included.
    if rng.pick(2) == 0 {
        let p = players[rng.pick(2) as usize];
        add("quickplay_claim_made", format!(r#"["g1","c1","{p}"]"#));
        add("quickplay_claimant_had_the_move", r#"["g1","c1"]"#.into());
        add("quickplay_claim_clock_seconds", r#"["g1","c1",90]"#.into());
        for j in [
            "claim_opponent_not_trying_to_win_normally",
            "claim_game_cannot_be_won_normally",
            "claim_decision_postponed",
            "claim_final_position_without_winning_advantage",
            "claim_opponent_made_no_winning_attempts",
        ] {
            match rng.pick(3) {
                0 => add(j, r#"["g1","c1"]"#.into()),
                1 => add(&format!("~{j}"), r#"["g1","c1"]"#.into()),
                _ => {}
            }
        }
    }
    let mut by_pred: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (p, row) in facts {
        by_pred.entry(p).or_default().push(row);
    }
    let body: Vec<String> = by_pred
        .iter()
        .map(|(p, rows)| format!("{p:?}:[{}]", rows.join(",")))
        .collect();
    format!(r#"{{"facts":{{{}}}}}"#, body.join(","))
}

/// The results of a game exclude each other by construction: on random games
/// no binding is concluded both ways, nor concluded one way and pending the
/// other (a decision could then conclude both).
#[test]
fn the_results_of_a_game_exclude_each_other_on_random_games() {
    let loaded = layered(RU);
    let mut rng = Lcg(0x5eed_2024);
    let mut decided = 0;
    for _ in 0..300 {
        let text = random_game(&mut rng);
        let facts = read_facts(text.as_bytes(), &loaded.catalog)
            .unwrap_or_else(|d| panic!("{text}: {}", d.render()));
        let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
        let out: J = serde_json::from_str(&lawgen_runtime::formats::output::canonical_json(
            &ev.conclusions,
        ))
        .unwrap();
        let rows = |sec: &str, pred: &str| -> BTreeSet<String> {
            out[sec][pred]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r.to_string())
                .collect()
        };
        let concluded = |pred: &str| rows("defeasibly", pred);
        let possible = |pred: &str| {
            let mut s = rows("defeasibly", pred);
            s.extend(rows("pending", pred));
            s
        };
        let drawn = concluded("game_drawn");
        let games = |s: &BTreeSet<String>| -> BTreeSet<String> {
            s.iter()
                .map(|r| serde_json::from_str::<J>(r).unwrap()[0].to_string())
                .collect()
        };
        for (a, b) in [
            ("game_drawn", "game_lost_by"),
            ("game_drawn", "game_won_by"),
            ("game_ended", "game_in_play"),
        ] {
            let (ga, gb) = (games(&concluded(a)), games(&possible(b)));
            assert!(ga.is_disjoint(&gb), "{a} and {b}: {text}");
            let (ga, gb) = (games(&possible(a)), games(&concluded(b)));
            assert!(ga.is_disjoint(&gb), "{a} and {b}: {text}");
        }
        let (won, lost) = (concluded("game_won_by"), concluded("game_lost_by"));
        assert!(
            won.is_disjoint(&possible("game_lost_by")),
            "won and lost: {text}"
        );
        assert!(
            lost.is_disjoint(&possible("game_won_by")),
            "won and lost: {text}"
        );
        assert!(games(&won).len() == won.len(), "won by both: {text}");
        let won_or_pending = possible("game_won_by");
        assert!(
            !won.is_empty() || games(&won_or_pending).len() == won_or_pending.len(),
            "won by both, pending: {text}"
        );
        if !drawn.is_empty() || !won.is_empty() || !lost.is_empty() {
            decided += 1;
        }
    }
    assert!(decided > 60, "only {decided} random games have a result");
}

/// 0.2.0, kept as a fixture, let a pending 10.2.2 draw block the certain
/// draw of 6.11.2 (both flags, order unknown, last period): no result, the
/// game not ended. 0.3.0 concludes the draw and asks nothing.
#[test]
fn the_second_version_left_a_certain_draw_pending() {
    let text = r#"{"facts":{"player_of":[["g1","w1"],["g1","b1"]],
        "all_remaining_moves_period":[["g1"]],"both_flags_fallen_order_unknown":[["g1"]],
        "quickplay_claim_made":[["g1","c1","w1"]],"quickplay_claimant_had_the_move":[["g1","c1"]],
        "quickplay_claim_clock_seconds":[["g1","c1",90]],"claim_decision_postponed":[["g1","c1"]],
        "~claim_game_cannot_be_won_normally":[["g1","c1"]],
        "~claim_opponent_not_trying_to_win_normally":[["g1","c1"]]}}"#;
    let result = |path: &str| {
        let loaded = layered(path);
        let facts = read_facts(text.as_bytes(), &loaded.catalog).unwrap();
        let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
        let out: J = serde_json::from_str(&lawgen_runtime::formats::output::canonical_json(
            &ev.conclusions,
        ))
        .unwrap();
        (
            out["definitely"]["game_drawn"].clone(),
            out["requests"].as_array().unwrap().len(),
        )
    };
    assert_eq!(result(RU_0_2_0), (J::Null, 2));
    assert_eq!(result(RU), (serde_json::json!([["g1"]]), 0));
}

/// 0.1.0, kept as a fixture, reported a game drawn and lost
/// at once: a correct claim and a flag fall of the claimant.
#[test]
fn the_previous_version_drew_and_lost_a_game_at_once() {
    let text = r#"{"facts":{"checked_player":[["w1"]],"player_of":[["g1","w1"],["g1","b1"]],
        "draw_claimed":[["w1"]],"player_has_the_move":[["g1","w1"]],
        "position_occurrence_count":[["g1",3]],"flag_fall_established":[["g1","w1"]]}}"#;
    let result = |path: &str| {
        let loaded = layered(path);
        let facts = read_facts(text.as_bytes(), &loaded.catalog).unwrap();
        let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
        let out: J = serde_json::from_str(&lawgen_runtime::formats::output::canonical_json(
            &ev.conclusions,
        ))
        .unwrap();
        (
            out["defeasibly"]["game_drawn"].clone(),
            out["defeasibly"]["game_lost_by"].clone(),
        )
    };
    let g1 = serde_json::json!([["g1"]]);
    assert_eq!(
        result(RU_0_1_0),
        (g1.clone(), serde_json::json!([["g1", "w1"]]))
    );
    assert_eq!(result(RU), (g1, J::Null));
}

/// The Russian explanation of `query` on scenario `name` of the Russian
/// rules, evaluated under the blocking policy.
fn explain_in_russian(name: &str, query: &str) -> String {
    let loaded = layered(RU);
    let bytes = std::fs::read(support::path(SCENARIOS).join(format!("{name}.facts.json"))).unwrap();
    let facts = read_facts(&bytes, &loaded.catalog).unwrap();
    let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
    let q = lawgen_runtime::explain::parse_query(&loaded.catalog, query).unwrap();
    lawgen_runtime::explain::explain(&ev.program, &ev.store, Policy::Blocking, &q, "ru").text()
}

/// Why a game is not drawn, in Russian: the FIDE rule that would have drawn
/// it, the derogation that sets it aside and the Russian article that governs
/// instead, each marked with its package.
#[test]
fn the_why_not_of_a_fide_draw_names_the_derogation_in_russian() {
    let text = explain_in_russian("fivefold_repetition_set_aside", "game_drawn(g1)");
    assert!(text.starts_with("game_drawn(g1): НЕ УСТАНОВЛЕНО"), "{text}");
    assert!(
        text.contains("правило [fide.laws.chess 0.1.0] FivefoldAutomaticDraw (строгое)"),
        "{text}"
    );
    assert!(
        text.contains("исключено изъятием [ru.chess.competition 0.3.0] SetAsideFideArticle9_6"),
        "{text}"
    );
    assert!(
        text.contains("источник: [ru.chess.competition 0.3.0] article/9.6"),
        "{text}"
    );
    assert!(text.contains("ни пятикратного повторения"), "{text}");
}

/// A rule whose negated condition fails is explained in the reader's
/// language, the condition included: a recorded rejection is why 10.2.1's
/// draw does not apply, and no English word is left in the Russian text.
#[test]
fn a_failing_negated_condition_is_worded_in_russian() {
    let text = explain_in_russian("ruling_rejected_no_flag", "game_drawn(g1)");
    assert!(
        text.contains(
            "не применяется — не установлено claim_ruling_on_record(g1, c1) не выполнено: оно установлено"
        ),
        "{text}"
    );
    assert!(!text.contains("not established"), "{text}");
}

/// `doc_language` picks the rustdoc of the generated module: the Russian
/// labels of the competition rules with `ru`, their English ones by default.
#[test]
fn the_generated_rustdoc_follows_the_doc_language() {
    let layered = layered(RU);
    let emit = |lang: Option<&str>| {
        let opts = lawgen::EmitOptions::default();
        let opts = match lang {
            Some(lang) => opts.doc_language(lang),
            None => opts,
        };
        lawgen::generate(&layered, &opts).unwrap().source
    };
    // Only the doc comments: the embedded program carries every label.
    let docs = |src: String| {
        src.lines()
            .filter(|l| l.trim_start().starts_with("///"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (ru, en) = (docs(emit(Some("ru"))), docs(emit(None)));
    let russian = "партия начата и продолжается";
    assert!(ru.contains(russian), "{ru}");
    assert!(!en.contains(russian));
    assert!(en.contains("the game has started and goes on"), "{en}");
}

/// `lawgen check --lang ru`: the summary in lawgen's Russian words (the
/// package's names untranslated), the derogations listed; a language
/// without words of its own gets English.
#[test]
fn the_check_summary_speaks_russian_and_lists_the_derogations() {
    let layered = layered(RU);
    let ru = lawgen::summary::render(&layered, "ru");
    assert!(
        ru.starts_with(
            "пакет ru.chess.competition 0.3.0 (пространство имён urn:ru:chess:competition)"
        ),
        "{ru}"
    );
    assert!(
        ru.contains("замыкание импортов (пакетов: 2, корневой первым):"),
        "{ru}"
    );
    assert!(
        ru.contains("правила (141): строгих 137, оспоримых 2, опровергающих 2"),
        "{ru}"
    );
    assert!(ru.contains("изъятия (6), исключено правил: 36:"), "{ru}");
    assert!(
        ru.contains("SetAsideFideArticle9_6 [ru.chess.competition 0.3.0] (article/9.6) исключает FivefoldAutomaticDraw [fide.laws.chess 0.1.0]"),
        "{ru}"
    );
    let en = lawgen::summary::render(&layered, "en");
    assert!(
        en.contains("rules (141): 137 strict, 2 defeasible, 2 defeaters"),
        "{en}"
    );
    assert_eq!(en, lawgen::summary::render(&layered, "fr"));
}
