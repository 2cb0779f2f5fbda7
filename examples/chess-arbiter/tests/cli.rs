//! The `chess-arbiter` binary against lawgen's reference interpreter, and the
//! verdicts the FIDE Laws give on the bundled scenarios.

use chess_arbiter::fide_laws_chess::{Conclusions, Facts};
use chess_arbiter::{evaluate, findings, SCENARIOS};
use lawgen::driver::Loaded;
use lawgen_runtime::program::RelationKind;
use lawgen_runtime::{Policy, Request, Verdict};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const POLICIES: [Policy; 2] = [Policy::Blocking, Policy::Propagating];

fn package_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json")
}

fn package() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        lawgen::driver::load_file(&package_path(), &Default::default())
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// `lawgen eval PACKAGE --facts FACTS --policy P`, in process.
fn reference_json(facts: &[u8], policy: Policy) -> String {
    let loaded = package();
    let facts = lawgen_runtime::formats::facts::read_facts(facts, &loaded.catalog)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let ev = lawgen::driver::evaluate(loaded, &facts, policy).expect("lowering");
    lawgen_runtime::formats::output::canonical_json(&ev.conclusions)
}

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
        .args(args)
        // Bundled scenarios are embedded: any working directory will do.
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run chess-arbiter")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 stderr")
}

fn scenario_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.facts.json"))
}

#[test]
fn json_output_matches_the_reference_interpreter_byte_for_byte() {
    for s in SCENARIOS {
        for policy in POLICIES {
            let expected = reference_json(s.facts.as_bytes(), policy);
            let out = arbiter(&["--json", "--policy", policy.as_str(), s.name]);
            assert!(out.status.success(), "{}: {}", s.name, stderr(&out));
            assert_eq!(stdout(&out), expected, "{} under {policy}", s.name);
        }
    }
}

#[test]
fn a_facts_file_path_gives_the_same_output_as_the_bundled_name() {
    for s in SCENARIOS {
        let file = scenario_file(s.name);
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            s.facts,
            "{} is embedded verbatim",
            s.name
        );
        let by_path = arbiter(&["--json", file.to_str().unwrap()]);
        let by_name = arbiter(&["--json", s.name]);
        assert!(by_path.status.success(), "{}", stderr(&by_path));
        assert_eq!(by_path.stdout, by_name.stdout, "{}", s.name);
    }
}

#[test]
fn every_scenario_is_bundled_and_described() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix(".facts.json").map(str::to_owned))
        .collect();
    let bundled: BTreeSet<String> = SCENARIOS
        .iter()
        .chain(chess_arbiter::RU_SCENARIOS)
        .map(|s| s.name.to_owned())
        .collect();
    assert_eq!(on_disk, bundled);

    for args in [&[][..], &["--list"][..]] {
        let out = arbiter(args);
        assert!(out.status.success());
        let text = stdout(&out);
        for s in SCENARIOS {
            assert!(
                text.contains(s.name) && text.contains(s.description),
                "{text}"
            );
        }
    }
}

#[test]
fn the_report_covers_every_institutional_predicate_of_the_package() {
    let declared: BTreeSet<&str> = package()
        .catalog
        .preds
        .iter()
        .filter(|p| p.kind == RelationKind::Institutional)
        .map(|p| p.local.as_str())
        .collect();
    let covered: BTreeSet<&str> = chess_arbiter::INSTITUTIONAL.iter().copied().collect();
    assert_eq!(covered, declared);
}

/// The findings (typed API) list exactly the institutional literals the
/// canonical output has in `defeasibly`, `pending` or `supported`.
#[test]
fn findings_are_the_institutional_rows_of_the_canonical_output() {
    let institutional: BTreeSet<&str> = chess_arbiter::INSTITUTIONAL.iter().copied().collect();
    for s in SCENARIOS {
        for policy in POLICIES {
            let (_, c) = evaluate(s.facts.as_bytes(), policy).unwrap();
            let found: BTreeSet<String> =
                findings(&c).unwrap().iter().map(|f| f.literal()).collect();
            let out: serde_json::Value = serde_json::from_str(&c.to_json().unwrap()).unwrap();
            let mut expected = BTreeSet::new();
            for section in ["defeasibly", "pending", "supported"] {
                for (lit, rows) in out[section].as_object().unwrap() {
                    if !institutional.contains(lit.trim_start_matches('~')) {
                        continue;
                    }
                    for row in rows.as_array().unwrap() {
                        let args: Vec<&str> = row
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_str().unwrap())
                            .collect();
                        expected.insert(format!("{lit}({})", args.join(", ")));
                    }
                }
            }
            assert_eq!(found, expected, "{} under {policy}", s.name);
        }
    }
}

fn bundled(name: &str) -> &'static str {
    chess_arbiter::scenario(name)
        .unwrap_or_else(|| panic!("no scenario {name}"))
        .facts
}

/// The typed facts and conclusions of a bundled scenario.
fn run(name: &str, policy: Policy) -> (Facts, Conclusions) {
    evaluate(bundled(name).as_bytes(), policy).unwrap()
}

/// Article 9.6.2, last sentence: "If the last move resulted in checkmate,
/// that shall take precedence." The game is won, not drawn, under both
/// policies.
#[test]
fn checkmate_at_move_75_is_a_win_not_a_draw() {
    for policy in POLICIES {
        let (mut facts, c) = run("checkmate-at-move-75", policy);
        let (g1, white, black) = (
            facts.game("g1"),
            facts.player("white"),
            facts.player("black"),
        );
        assert_eq!(c.game_won_by(g1, white), Verdict::Definitely);
        assert_eq!(c.game_won_by(g1, black), Verdict::NotConcluded);
        assert!(!c.game_drawn(g1).is_concluded());
        assert_eq!(c.game_drawn(g1), Verdict::SupportedOnly);
        assert_eq!(c.not_game_drawn(g1), Verdict::Defeasibly);
        assert_eq!(c.game_drawn_all().count(), 0);
        assert_eq!(c.not_game_drawn_all().collect::<Vec<_>>(), vec![(g1,)]);
        let why = c.explain_not_game_drawn(g1).unwrap().to_string();
        assert!(why.contains("CheckmateOverSeventyFiveMoves"), "{why}");
    }
}

#[test]
fn seventy_five_moves_draw_defeasibly_only() {
    let (mut facts, c) = run("seventy-five-move-draw", Policy::Blocking);
    let g1 = facts.game("g1");
    assert_eq!(c.game_drawn(g1), Verdict::Defeasibly);
}

#[test]
fn resignation_loses_unless_the_opponent_cannot_mate() {
    let (mut facts, c) = run("resignation-opponent-can-mate", Policy::Blocking);
    let (g1, black) = (facts.game("g1"), facts.player("black"));
    assert_eq!(c.game_lost_by(g1, black), Verdict::Definitely);
    assert_eq!(c.game_drawn(g1), Verdict::NotConcluded);
    assert_eq!(c.resignation_has_ended_the_game(g1), Verdict::Definitely);

    let (mut facts, c) = run("resignation-opponent-cannot-mate", Policy::Blocking);
    let (g1, black) = (facts.game("g1"), facts.player("black"));
    assert_eq!(c.game_lost_by(g1, black), Verdict::NotConcluded);
    assert_eq!(c.game_drawn(g1), Verdict::Definitely);
    assert_eq!(c.resignation_has_ended_the_game(g1), Verdict::Definitely);
}

#[test]
fn castling_is_prevented_by_a_blocked_path() {
    let (mut facts, c) = run("castling-legal", Policy::Blocking);
    let (g1, white) = (facts.game("g1"), facts.player("white"));
    let (king, queen) = (
        facts.castling_side("white_kingside"),
        facts.castling_side("white_queenside"),
    );
    assert_eq!(c.castling_legal(g1, white, king), Verdict::Definitely);
    assert_eq!(c.castling_legal(g1, white, queen), Verdict::Definitely);

    let (mut facts, c) = run("castling-blocked", Policy::Blocking);
    let (g1, white) = (facts.game("g1"), facts.player("white"));
    let (king, queen) = (
        facts.castling_side("white_kingside"),
        facts.castling_side("white_queenside"),
    );
    assert_eq!(c.castling_legal(g1, white, king), Verdict::Definitely);
    assert_eq!(c.castling_legal(g1, white, queen), Verdict::NotConcluded);
}

/// Article 4.3.1 depends on whether the touch was intentional, which only the
/// arbiter can judge: pending, with a request to FIDEArbiter; deciding it
/// concludes the duty or drops it.
#[test]
fn touched_piece_is_pending_on_the_arbiters_judgment() {
    let facts_json = bundled("touched-piece-pending");
    let expected_request = Request {
        predicate: "piece_touched_intentionally".into(),
        args: vec![
            lawgen_runtime::Arg::Entity("white".into()),
            lawgen_runtime::Arg::Entity("knight_g1".into()),
        ],
        authority: "FIDEArbiter".into(),
        capability: "judgment:FIDEArbiter".into(),
    };
    for policy in POLICIES {
        let (mut facts, c) = evaluate(facts_json.as_bytes(), policy).unwrap();
        let (white, knight, bishop) = (
            facts.player("white"),
            facts.piece("knight_g1"),
            facts.piece("bishop_c1"),
        );
        assert_eq!(
            c.must_move_first_touched_piece(white, knight),
            Verdict::Pending(vec![expected_request.clone()])
        );
        assert_eq!(
            c.must_move_first_touched_piece(white, bishop),
            Verdict::NotConcluded
        );
        assert_eq!(c.must_move_first_touched_piece_all().count(), 0);
        assert_eq!(c.requests(), std::slice::from_ref(&expected_request));
    }

    // The arbiter decides.
    for (intentional, verdict) in [(true, Verdict::Definitely), (false, Verdict::NotConcluded)] {
        let (mut facts, _) = evaluate(facts_json.as_bytes(), Policy::Blocking).unwrap();
        let (white, knight) = (facts.player("white"), facts.piece("knight_g1"));
        facts.decide_piece_touched_intentionally(white, knight, intentional);
        let c = facts.evaluate(Policy::Blocking).unwrap();
        assert_eq!(c.must_move_first_touched_piece(white, knight), verdict);
        assert!(c.requests().is_empty());
    }
}

#[test]
fn the_report_names_the_verdict_and_the_article() {
    let out = arbiter(&["checkmate-at-move-75"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "game_won_by(g1, white): DEFINITELY (Article 5.1.1.",
        "~game_drawn(g1): DEFEASIBLY (Article 9.6.2. If the last move resulted in checkmate, that shall take precedence)",
        "game_drawn(g1): SUPPORTED ONLY (Article 9.6.2.",
        "anchor: article/9",
        "under priority CheckmateOverSeventyFiveMoves",
        "Judgment requests: none.",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }

    let out = arbiter(&["--policy", "propagating", "touched-piece-pending"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "conflict policy: propagating",
        "must_move_first_touched_piece(white, knight_g1): PENDING (Article 4.3.1.",
        "anchor: article/4",
        "FIDEArbiter must decide piece_touched_intentionally(white, knight_g1) [judgment:FIDEArbiter]",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

fn temp_facts(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chess-arbiter-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn invalid_facts_exit_1_naming_the_key() {
    let bad = temp_facts(
        "bad.facts.json",
        r#"{"facts": {"player_off": [["g1", "white"]], "checkmate_delivered": [["g1"]]}}"#,
    );
    for json in [false, true] {
        let path = bad.to_str().unwrap();
        let args: Vec<&str> = if json {
            vec!["--json", path]
        } else {
            vec![path]
        };
        let out = arbiter(&args);
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(err.contains("unknown predicate `player_off`"), "{err}");
        assert!(err.contains("/facts/checkmate_delivered/0"), "{err}");
    }

    let contradiction = temp_facts(
        "contradiction.facts.json",
        r#"{"facts": {"stalemate_arisen": [["g1"]], "~stalemate_arisen": [["g1"]]}}"#,
    );
    let out = arbiter(&[contradiction.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("stalemate_arisen(g1)"),
        "{}",
        stderr(&out)
    );

    let out = arbiter(&["no-such-scenario"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read the facts file `no-such-scenario`"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--policy", "lenient", "checkmate"][..],
        &["--policy"][..],
        &["--frobnicate", "checkmate"][..],
        &["checkmate", "stalemate"][..],
    ] {
        let out = arbiter(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("usage: chess-arbiter"), "{args:?}");
    }
}

/// The Russian competition rules import the FIDE Laws and set aside the FIDE
/// rules whose articles they replace; their bundled scenario is explained
/// in Russian, each step naming the layer of the law that decided it: after
/// 75 moves without a pawn move or capture the game goes on, and why it is
/// not drawn names the FIDE rule, the derogation and its anchor.
#[test]
fn the_competition_rules_set_the_seventy_five_move_draw_aside_in_russian() {
    let out = arbiter(&["ru-seventy-five-moves"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("game_in_play(g1): установлено ОПРЕДЕЛЁННО"),
        "{text}"
    );
    assert!(
        text.contains("[ru.chess.competition 0.3.0] GameInPlayStarted (строгое)"),
        "{text}"
    );
    // The same in English on request, and the canonical output has no draw.
    let en = stdout(&arbiter(&["--lang", "en", "ru-seventy-five-moves"]));
    assert!(en.contains("game_in_play(g1): DEFINITELY"), "{en}");
    let json = stdout(&arbiter(&["--json", "ru-seventy-five-moves"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["package"], "ru.chess.competition");
    for section in ["definitely", "defeasibly", "supported", "pending"] {
        assert!(v[section].get("game_drawn").is_none(), "{json}");
    }
    // Why the game is not drawn, through the generated API.
    let facts = chess_arbiter::scenario("ru-seventy-five-moves")
        .unwrap()
        .facts;
    let c = chess_arbiter::ru_chess_competition::Facts::from_json(facts.as_bytes())
        .unwrap()
        .evaluate(Policy::Blocking)
        .unwrap();
    let why = c.explain_in("game_drawn(\"g1\")", "ru").unwrap().text();
    assert!(why.starts_with("game_drawn(g1): НЕ УСТАНОВЛЕНО"), "{why}");
    assert!(
        why.contains("правило [fide.laws.chess 0.1.0] SeventyFiveAutomaticDraw (оспоримое)"),
        "{why}"
    );
    assert!(
        why.contains("исключено изъятием [ru.chess.competition 0.3.0] SetAsideFideArticle9_6"),
        "{why}"
    );
    assert!(why.contains("article/9.6"), "{why}");
    // Bad uses of the new options say what to write.
    let bad = arbiter(&["--package", "uscf", "checkmate"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).starts_with("error: unknown package `uscf`: fide or ru"),
        "{}",
        stderr(&bad)
    );
    let bad = arbiter(&["--lang", "ru", "checkmate"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        stderr(&bad),
        "error: the FIDE report is in English; --lang applies to the competition rules (--package ru)\n"
    );
}
