//! Explanations on the chess package: derivations, anchors, attackers,
//! closures, pending judgments and failures.

use lawgen::driver::{self, Evaluated, Loaded};
use lawgen_runtime::explain::{self, Explanation, NodeKind, Outcome};
use lawgen_runtime::formats::facts::read_facts;
use lawgen_runtime::Policy;
use lawgen_test_support as support;
use std::sync::OnceLock;

fn loaded() -> &'static Loaded {
    static L: OnceLock<Loaded> = OnceLock::new();
    L.get_or_init(|| {
        let bytes = support::read(support::CHESS);
        driver::load_bytes(&bytes, &Default::default()).unwrap()
    })
}

fn eval(scenario: &str, policy: Policy) -> Evaluated {
    let path = support::path(support::CHESS_SCENARIOS).join(format!("{scenario}.facts.json"));
    let facts = read_facts(&std::fs::read(path).unwrap(), &loaded().catalog).unwrap();
    driver::evaluate(loaded(), &facts, policy).unwrap()
}

fn run(scenario: &str, query: &str) -> (Explanation, String, String) {
    run_with(scenario, Policy::Blocking, query)
}

fn run_with(scenario: &str, policy: Policy, query: &str) -> (Explanation, String, String) {
    let ev = eval(scenario, policy);
    let q = explain::parse_query(&loaded().catalog, query).unwrap();
    let e = explain_q(&ev, &q);
    let text = e.text();
    let json = e.to_json();
    println!("{text}");
    (e, text, json)
}

fn explain_q(ev: &Evaluated, q: &explain::Query) -> Explanation {
    explain::explain(&ev.program, &ev.store, ev.conclusions.policy, q, "en")
}

fn walk<'a>(nodes: &'a [explain::Node], out: &mut Vec<&'a explain::Node>) {
    for n in nodes {
        out.push(n);
        walk(&n.children, out);
    }
}

fn all_nodes(e: &Explanation) -> Vec<&explain::Node> {
    let mut v = Vec::new();
    walk(&e.tree, &mut v);
    v
}

#[test]
fn seventy_five_move_draw_names_rule_anchor_and_discarded_attacker() {
    let (e, text, json) = run("seventy_five_move_automatic_draw", "game_drawn(g1)");
    assert_eq!(e.verdict(), "defeasibly");
    assert!(
        text.starts_with("game_drawn(g1): DEFEASIBLY holds"),
        "{text}"
    );
    assert!(
        text.contains("rule SeventyFiveAutomaticDraw (defeasible)"),
        "{text}"
    );
    assert!(text.contains("anchor: article/9"), "{text}");
    assert!(
        text.contains("9.6.2 any series of at least 75 moves"),
        "{text}"
    );
    assert!(
        text.contains("moves_by_each_without_pawn_or_capture(g1, 75): given as a fact"),
        "{text}"
    );
    assert!(text.contains("75 ≥ 75"), "{text}");
    assert!(
        text.contains(
            "CheckmateTakesPrecedenceOverSeventyFive (defeasible): discarded — \
             checkmate_delivered(g1, _) is not established"
        ),
        "{text}"
    );
    let discarded = all_nodes(&e).into_iter().any(|n| {
        matches!(&n.kind, NodeKind::Attacker { rule, outcome: Outcome::Discarded { .. } }
            if rule.name == "CheckmateTakesPrecedenceOverSeventyFive")
    });
    assert!(discarded);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["verdict"], "defeasibly");
    assert_eq!(v["tree"][0]["rule"]["name"], "SeventyFiveAutomaticDraw");
    assert_eq!(v["tree"][0]["rule"]["anchors"][0]["locator"], "article/9");
}

#[test]
fn seventy_five_moves_with_a_fifty_move_claim_is_definite() {
    let (e, text, _) = run("seventy_five_move_automatic_draw", "game_drawn(g3)");
    assert_eq!(e.verdict(), "definitely");
    assert!(text.contains("rule FiftyMoveClaimDraws (strict)"), "{text}");
    assert!(
        text.contains("fifty_move_claim_correct(g3, w3): definitely by rule FiftyMoveClaimCorrect"),
        "{text}"
    );
}

#[test]
fn checkmate_at_seventy_five_moves_game_drawn_is_only_supported() {
    let (e, text, json) = run("checkmate_at_seventy_five_moves", "game_drawn(g1)");
    assert_eq!(e.verdict(), "supported");
    assert!(text.contains("rule SeventyFiveAutomaticDraw"), "{text}");
    assert!(
        text.contains(
            "SeventyFiveAutomaticDraw is defeated by CheckmateTakesPrecedenceOverSeventyFive \
             under priority CheckmateOverSeventyFiveMoves"
        ),
        "{text}"
    );
    assert!(
        text.contains("checkmate_delivered(g1, white): given as a fact"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["verdict"], "supported");

    // The other side: ~game_drawn holds defeasibly, its attacker is defeated.
    let (e, text, _) = run("checkmate_at_seventy_five_moves", "~game_drawn(g1)");
    assert_eq!(e.verdict(), "defeasibly");
    assert!(
        text.contains(
            "SeventyFiveAutomaticDraw (defeasible): defeated by \
             CheckmateTakesPrecedenceOverSeventyFive under priority CheckmateOverSeventyFiveMoves"
        ),
        "{text}"
    );
}

#[test]
fn blocked_castling_path_is_why_castling_is_not_legal() {
    let (e, text, _) = run(
        "castling_path_blocked",
        "castling_legal(g1, white, white_queenside)",
    );
    assert_eq!(e.verdict(), "not_concluded");
    assert!(
        text.contains("~castling_path_blocked(white_queenside) is not"),
        "{text}"
    );
    assert!(
        text.contains("castling_path_blocked(white_queenside) is given as a fact"),
        "{text}"
    );
    let unsatisfied = all_nodes(&e).into_iter().any(|n| {
        matches!(&n.kind, NodeKind::Unsatisfied { rule, item, .. }
            if rule.name == "CastlingLegal" && item.text("en") == "~castling_path_blocked(white_queenside)")
    });
    assert!(unsatisfied);
    // The kingside is legal, and its clear path comes from the closure.
    let (e, text, _) = run(
        "castling_path_blocked",
        "castling_legal(g1, white, white_kingside)",
    );
    assert_eq!(e.verdict(), "definitely");
    assert!(
        text.contains("by closure policy CastlingBlockClosure"),
        "{text}"
    );
}

#[test]
fn closure_derived_negative_names_snapshot_and_date() {
    let (e, text, json) = run(
        "castling_legal_by_closures",
        "~castling_path_blocked(white_kingside)",
    );
    assert_eq!(e.verdict(), "definitely");
    assert!(text.contains("CastlingBlockClosure"), "{text}");
    assert!(
        text.contains("urn:fide:snapshot:castling-block:2023-01-01"),
        "{text}"
    );
    assert!(text.contains("2023-01-01T00:00:00Z"), "{text}");
    assert!(
        text.contains("checked_castling_side(white_kingside): given as a fact"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["tree"][0]["kind"], "closure");
    assert_eq!(v["tree"][0]["completeAsOf"], "2023-01-01T00:00:00Z");
}

#[test]
fn undecided_touch_move_is_pending_with_its_request() {
    let (e, text, json) = run(
        "touch_move_undecided",
        "must_move_first_touched_piece(white, knight_g1)",
    );
    assert_eq!(e.verdict(), "pending");
    assert!(text.contains("rule MustMoveFirstTouchedPiece"), "{text}");
    assert!(
        text.contains("piece_touched_intentionally(white, knight_g1): undecided judgment"),
        "{text}"
    );
    assert_eq!(e.requests.len(), 1);
    assert_eq!(e.requests[0].predicate, "piece_touched_intentionally");
    assert_eq!(e.requests[0].authority, "FIDEArbiter");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["requests"][0]["predicate"], "piece_touched_intentionally");
    assert_eq!(v["verdict"], "pending");
}

#[test]
fn not_concluded_literal_says_which_item_fails() {
    let (e, text, _) = run("seventy_five_move_automatic_draw", "game_drawn(g2)");
    assert_eq!(e.verdict(), "not_concluded");
    assert!(text.contains("74 ≥ 75 is false"), "{text}");
    let (e, text, _) = run("no_facts", "game_drawn(g1)");
    assert_eq!(e.verdict(), "not_concluded");
    assert!(text.contains("does not apply"), "{text}");
}

#[test]
fn recursive_state_machine_derivations_terminate() {
    let ev = eval("state_machine_checkmate", Policy::Blocking);
    let lit = loaded().catalog.lit_of("entered_state").unwrap();
    let rows = ev.conclusions.sections[&lawgen_runtime::program::Section::Definitely]
        .get("entered_state")
        .cloned()
        .unwrap_or_default();
    assert!(!rows.is_empty());
    for row in rows {
        let q = explain::Query {
            lit,
            args: row.clone(),
        };
        let e = explain_q(&ev, &q);
        assert_eq!(e.verdict(), "definitely");
        let text = e.text();
        assert!(!text.contains("… ("), "{text}");
    }
}

#[test]
fn query_parse_errors_say_how_to_fix() {
    let m = &loaded().catalog;
    let e = explain::parse_query(m, "game_drawm(g1)").unwrap_err();
    assert!(e.contains("did you mean game_drawn"), "{e}");
    let e = explain::parse_query(m, "game_drawn(g1, g2)").unwrap_err();
    assert!(e.contains("takes 1 argument"), "{e}");
    let e = explain::parse_query(m, "moves_by_each_without_pawn_or_capture(g1, many)").unwrap_err();
    assert!(e.contains("must be an integer"), "{e}");
    let q = explain::parse_query(m, "~game_drawn(\"g1\")").unwrap();
    assert!(q.lit.negative);
    assert_eq!(
        q.args,
        vec![lawgen_runtime::program::Value::Entity("g1".into())]
    );
    let q = explain::parse_query(m, " moves_by_each_without_pawn_or_capture( g1 , 75 ) ").unwrap();
    assert_eq!(q.args[1], lawgen_runtime::program::Value::Int(75));
    assert!(explain::parse_query(m, "game_drawn(g1").is_err());
}

#[test]
fn every_concluded_literal_of_every_scenario_is_explained() {
    let dir = support::path(support::CHESS_SCENARIOS);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_suffix(".facts.json").map(str::to_owned)
        })
        .collect();
    names.sort();
    for name in names {
        for policy in [Policy::Blocking, Policy::Propagating] {
            let ev = eval(&name, policy);
            for (section, lits) in &ev.conclusions.sections {
                for (lit, rows) in lits {
                    let concluded = loaded().catalog.lit_of(lit).unwrap();
                    for row in rows {
                        for l in [concluded, concluded.complement()] {
                            let q = explain::Query {
                                lit: l,
                                args: row.clone(),
                            };
                            let e = explain_q(&ev, &q);
                            let text = e.text();
                            let _ = e.to_json();
                            assert!(
                                !text.contains("please report") && !text.contains("… ("),
                                "{name} {section:?}:\n{text}"
                            );
                            if l == concluded {
                                // The strongest section that holds the row,
                                // ranked here on its own (not by the runtime).
                                use lawgen_runtime::program::Section::*;
                                let holds = |s| {
                                    ev.conclusions.sections[&s]
                                        .get(lit)
                                        .is_some_and(|rs| rs.contains(row))
                                };
                                let expect = [Definitely, Defeasibly, Pending, Supported]
                                    .into_iter()
                                    .find(|&s| holds(s))
                                    .map_or("not_concluded", |s| s.as_str());
                                assert!(holds(*section), "{name}");
                                assert_eq!(e.verdict(), expect, "{name} {section:?}: {text}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn supported_only_because_the_complement_is_definite() {
    let (e, text, _) = run_with(
        "fivefold_and_checkmate_propagating",
        Policy::Propagating,
        "~game_drawn(g1)",
    );
    assert_eq!(e.verdict(), "supported");
    assert_eq!(e.policy, Policy::Propagating);
    assert!(
        text.contains("game_drawn(g1) is definitely concluded"),
        "{text}"
    );
    assert!(text.contains("FivefoldAutomaticDraw"), "{text}");
}

/// An undecided judgment atom is requested only where a rule instance whose
/// other items may hold reads it; the explanation of one that no rule needs
/// says so instead of claiming a request (`bishop_c1` cannot be moved, so
/// the touch-move rule never reads whether it was touched on purpose).
#[test]
fn an_undecided_atom_no_rule_reads_is_not_claimed_requested() {
    let (e, text, json) = run(
        "touch_move_decided_no",
        "piece_touched_intentionally(white, bishop_c1)",
    );
    assert_eq!(e.verdict(), "undecided");
    assert!(e.requests.is_empty(), "{:?}", e.requests);
    assert!(text.contains("no decision is requested"), "{text}");
    assert!(text.contains("not requested from FIDEArbiter"), "{text}");
    assert!(json.contains("\"requested\": false"), "{json}");

    // `pawn_e7` can be moved, but it is black's, and white has the move.
    let (e, text, _) = run(
        "touch_move_decided_no",
        "piece_touched_intentionally(black, pawn_e7)",
    );
    assert!(
        e.requests.is_empty() && text.contains("not requested"),
        "{text}"
    );

    // An atom the rule does read is requested.
    let ev = eval("touch_move_undecided", Policy::Blocking);
    let requested = &ev.conclusions.requests;
    assert!(!requested.is_empty(), "the scenario requests a decision");
    let r = &requested[0];
    let query = format!(
        "{}({})",
        r.predicate,
        r.args
            .iter()
            .map(explain::fmt_value)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (e, text, json) = run("touch_move_undecided", &query);
    assert_eq!(e.requests.len(), 1, "{text}");
    assert!(text.contains("a decision is requested"), "{text}");
    assert!(
        text.contains("requested from FIDEArbiter") && !text.contains("not requested"),
        "{text}"
    );
    assert!(json.contains("\"requested\": true"), "{json}");
}

/// docs/reference.md#derogations: the why-not of a literal names each rule a
/// derogation set aside that would conclude it, whether its conditions hold
/// here, and the derogation with its package, label and anchor.
#[test]
fn a_set_aside_rule_is_named_in_the_why_not_with_its_derogation() {
    let path = std::path::Path::new("../docs/examples/derogation/package.ir.json");
    let loaded = driver::load_file(path, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    let explain_in = |facts: &str, query: &str, lang: &str| {
        let facts = read_facts(facts.as_bytes(), &loaded.catalog).unwrap();
        let ev = driver::evaluate(&loaded, &facts, Policy::Blocking).unwrap();
        let q = explain::parse_query(&loaded.catalog, query).unwrap();
        explain::explain(&ev.program, &ev.store, ev.conclusions.policy, &q, lang)
    };
    let aside = |e: &Explanation| -> Vec<(String, bool, Vec<String>)> {
        all_nodes(e)
            .into_iter()
            .filter_map(|n| match &n.kind {
                NodeKind::SetAside { rule, by, applies } => Some((
                    rule.name.clone(),
                    *applies,
                    by.iter().map(|d| d.name.clone()).collect(),
                )),
                _ => None,
            })
            .collect()
    };
    let five = r#"{"facts": {"position_repeated": [["g1", 5]]}}"#;
    let e = explain_in(five, "game_drawn(g1)", "en");
    assert_eq!(e.verdict(), "not_concluded");
    assert_eq!(
        aside(&e),
        [(
            "FivefoldDraws".to_owned(),
            true,
            vec!["NoFivefoldDraw".to_owned()]
        )]
    );
    let text = e.text();
    assert!(
        text.contains("[example.base 1.0.0] FivefoldDraws (strict)"),
        "{text}"
    );
    assert!(
        text.contains("its conditions hold here, so it would conclude this"),
        "{text}"
    );
    assert!(
        text.contains(
            "set aside by derogation [example.national 1.0.0] NoFivefoldDraw — Article 9"
        ),
        "{text}"
    );
    assert!(
        text.contains("anchor: [example.national 1.0.0] article/9"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
    let node = &json["tree"][1];
    assert_eq!(node["kind"], "set_aside", "{json}");
    assert_eq!(node["applies"], true);
    assert_eq!(
        node["derogations"][0]["id"],
        "urn:example:national#NoFivefoldDraw"
    );
    assert_eq!(node["derogations"][0]["anchors"][0]["locator"], "article/9");
    let ru = explain_in(five, "game_drawn(g1)", "ru").text();
    assert!(
        ru.contains("исключено — его условия здесь выполнены"),
        "{ru}"
    );
    assert!(
        ru.contains("исключено изъятием [example.national 1.0.0] NoFivefoldDraw — Статья 9"),
        "{ru}"
    );
    // Two repetitions: the rule would not apply either, and says so.
    let two = r#"{"facts": {"position_repeated": [["g1", 2]]}}"#;
    let e = explain_in(two, "game_drawn(g1)", "en");
    assert_eq!(
        aside(&e),
        [(
            "FivefoldDraws".to_owned(),
            false,
            vec!["NoFivefoldDraw".to_owned()]
        )]
    );
    assert!(
        e.text().contains("its conditions do not hold here either"),
        "{}",
        e.text()
    );
    // A claim after three repetitions draws: nothing is not concluded.
    let claim = r#"{"facts": {"position_repeated": [["g1", 5]], "draw_claimed": [["g1"]]}}"#;
    let e = explain_in(claim, "game_drawn(g1)", "en");
    assert_eq!(e.verdict(), "definitely");
    assert!(aside(&e).is_empty());
}
