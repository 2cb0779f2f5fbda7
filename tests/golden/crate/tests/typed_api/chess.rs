// The typed-API tests of one chess module (`chess` in the including
// module), included once per engine by `typed_api.rs`.

use self::chess::{Facts, Game, Player};
use lawgen_runtime::{Arg, Error, Policy, Verdict};

fn game_with_players(f: &mut Facts) -> (Game, Player, Player) {
    let g1 = f.game("g1");
    let (white, black) = (f.player("white"), f.player("black"));
    f.player_of(g1, white).player_of(g1, black);
    (g1, white, black)
}

/// Article 9.6.2: 75 moves draw the game, "if the last move resulted in
/// checkmate, that shall take precedence".
#[test]
fn checkmate_at_move_75_wins_and_is_not_a_draw() {
    let mut f = Facts::new();
    let (g1, white, black) = game_with_players(&mut f);
    f.moves_by_each_without_pawn_or_capture(g1, 75)
        .checkmate_delivered(g1, white);
    let c = f.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.game_won_by(g1, white), Verdict::Definitely);
    assert_eq!(c.game_won_by(g1, black), Verdict::NotConcluded);
    // The 75-move rule still gives grounds, but the priority defeats it.
    assert_eq!(c.game_drawn(g1), Verdict::SupportedOnly);
    assert!(!c.game_drawn(g1).is_concluded());
    let wins: Vec<(Game, Player)> = c.game_won_by_all().collect();
    assert_eq!(wins, vec![(g1, white)]);
    assert_eq!(c.name(white), Some("white"));
}

#[test]
fn seventy_five_moves_alone_draw_defeasibly_with_the_article_in_the_explanation() {
    let mut f = Facts::new();
    let (g1, ..) = game_with_players(&mut f);
    f.moves_by_each_without_pawn_or_capture(g1, 80);
    let c = f.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.game_drawn(g1), Verdict::Defeasibly);
    let e = c.explain_game_drawn(g1).unwrap();
    assert_eq!(e.verdict(), "defeasibly");
    assert!(e.text().contains("SeventyFiveAutomaticDraw"), "{e}");
    assert!(e.text().contains("9.6.2"), "{e}");
    // The text query gives the same tree.
    assert_eq!(c.explain("game_drawn(g1)").unwrap().text(), e.text());
}

/// Article 4.3: the touched piece must be moved only if touched
/// deliberately — a judgment for the arbiter.
#[test]
fn touched_piece_is_pending_until_the_arbiter_decides() {
    let mut f = Facts::new();
    let (g1, white, black) = game_with_players(&mut f);
    let knight = f.piece("knight_g1");
    let pawn = f.piece("pawn_e7");
    f.own_piece_of(white, knight)
        .own_piece_of(black, pawn)
        .piece_can_be_moved(knight)
        .piece_can_be_moved(pawn)
        .player_has_the_move(g1, white);
    let c = f.evaluate(Policy::Blocking).unwrap();
    let Verdict::Pending(requests) = c.must_move_first_touched_piece(white, knight) else {
        panic!(
            "expected pending, got {}",
            c.must_move_first_touched_piece(white, knight)
        );
    };
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].predicate, "piece_touched_intentionally");
    assert_eq!(requests[0].authority, "FIDEArbiter");
    assert_eq!(
        requests[0].args,
        vec![Arg::Entity("white".into()), Arg::Entity("knight_g1".into())]
    );
    assert_eq!(c.requests(), &requests[..]);
    // Black is not on the move: nothing to decide about the pawn.
    assert_eq!(
        c.must_move_first_touched_piece(black, pawn),
        Verdict::NotConcluded
    );

    let mut yes = f.clone();
    yes.decide_piece_touched_intentionally(white, knight, true);
    let c = yes.evaluate(Policy::Blocking).unwrap();
    assert!(c
        .must_move_first_touched_piece(white, knight)
        .is_concluded());
    assert!(c.requests().is_empty());

    let mut no = f;
    no.decide_piece_touched_intentionally(white, knight, false);
    let c = no.evaluate(Policy::Blocking).unwrap();
    assert_eq!(
        c.must_move_first_touched_piece(white, knight),
        Verdict::NotConcluded
    );
}

#[test]
fn a_fact_and_its_negation_are_refused() {
    let mut f = Facts::new();
    let (g1, ..) = game_with_players(&mut f);
    f.stalemate_arisen(g1).not_stalemate_arisen(g1);
    let err = f.evaluate(Policy::Blocking).expect_err("contradiction");
    assert_eq!(
        err,
        Error::Contradiction {
            predicate: "stalemate_arisen",
            args: vec![Arg::Entity("g1".into())]
        }
    );
    assert!(err.to_string().contains("remove one of them"));
}

/// With several contradictions, every engine names the same one (the Direct
/// engine finds them on its tables, then normalizes to report it).
#[test]
fn the_same_contradiction_is_named_whatever_the_engine() {
    let mut f = Facts::new();
    let (g1, ..) = game_with_players(&mut f);
    f.stalemate_arisen(g1)
        .draw_agreed(g1)
        .not_stalemate_arisen(g1)
        .not_draw_agreed(g1)
        .draw_agreed(g1);
    let err = f.evaluate(Policy::Blocking).expect_err("contradiction");
    assert_eq!(
        err,
        Error::Contradiction {
            predicate: "draw_agreed",
            args: vec![Arg::Entity("g1".into())]
        }
    );
    // Repeated facts are still one fact.
    let mut f = Facts::new();
    let (g1, ..) = game_with_players(&mut f);
    f.stalemate_arisen(g1).stalemate_arisen(g1);
    let c = f.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.game_drawn(g1), Verdict::Definitely);
    assert!(c.to_json().unwrap().contains("\"stalemate_arisen\": [\n      [\"g1\"]\n    ]"));
}

#[test]
fn constants_have_fixed_ids_and_names() {
    let f = Facts::new();
    assert_eq!(f.name(chess::GamePlayState::ENDED), Some("Ended"));
}

#[test]
fn json_round_trip_matches_the_facts_file_format() {
    let facts = br#"{"facts": {"player_of": [["g1","white"],["g1","black"]],
        "checkmate_delivered": [["g1","white"]], "moves_by_each_without_pawn_or_capture": [["g1", 75]]}}"#;
    let c = Facts::from_json(facts)
        .unwrap()
        .evaluate(Policy::Propagating)
        .unwrap();
    let json = c.to_json().unwrap();
    assert!(json.contains("\"policy\": \"propagating\""), "{json}");
    assert!(json.contains("\"game_won_by\""), "{json}");
    let bad = Facts::from_json(br#"{"facts": {"no_such_predicate": [["x"]]}}"#)
        .err()
        .unwrap();
    assert!(
        matches!(bad, Error::Facts(ref d) if d.contains("no_such_predicate")),
        "{bad}"
    );
}

/// The typed canonical output is what `to_json` prints: the same sections,
/// literals and rows, read without a JSON reader.
#[test]
fn the_typed_canonical_output_is_what_to_json_prints() {
    use lawgen_runtime::program::{Section, Value};
    let facts = br#"{"facts": {"player_of": [["g1","white"],["g1","black"]],
        "checkmate_delivered": [["g1","white"]], "moves_by_each_without_pawn_or_capture": [["g1", 75]]}}"#;
    let c = Facts::from_json(facts)
        .unwrap()
        .evaluate(Policy::Blocking)
        .unwrap();
    let typed = c.to_canonical().unwrap();
    assert_eq!(
        lawgen_runtime::formats::output::canonical_json(&typed),
        c.to_json().unwrap()
    );
    let won = &typed.sections[&Section::Definitely]["game_won_by"];
    let row = vec![Value::Entity("g1".into()), Value::Entity("white".into())];
    assert!(won.contains(&row), "{won:?}");
    assert!(typed.sections[&Section::Supported].contains_key("game_drawn"));
    assert_eq!(typed.policy, Policy::Blocking);
}

/// Batches must compute exactly what separate evaluations compute: the
/// case column keeps cases apart even when they share entity names and
/// constants; a contradictory case fails alone.
#[test]
fn evaluate_many_equals_one_by_one_for_any_batching() {
    let make = |i: usize| {
        let mut f = Facts::new();
        let (g, white, black) = game_with_players(&mut f);
        match i % 5 {
            0 => {
                f.checkmate_delivered(g, white);
            }
            1 => {
                f.moves_by_each_without_pawn_or_capture(g, 70 + i as i64 % 10);
            }
            2 => {
                f.moves_by_each_without_pawn_or_capture(g, 75)
                    .checkmate_delivered(g, black);
            }
            3 => {
                f.stalemate_arisen(g);
                if i % 2 == 1 {
                    f.not_stalemate_arisen(g); // contradiction
                }
            }
            _ => {
                let knight = f.piece("knight");
                f.own_piece_of(white, knight)
                    .piece_can_be_moved(knight)
                    .player_has_the_move(g, white);
            }
        }
        f
    };
    let n = 103;
    let expected: Vec<Result<String, Error>> = (0..n)
        .map(|i| {
            make(i)
                .evaluate(Policy::Blocking)
                .map(|c| c.to_json().unwrap())
        })
        .collect();
    assert!(expected.iter().any(|e| e.is_err()) && expected.iter().any(|e| e.is_ok()));
    for (batch_size, threads) in [(1, 1), (7, 1), (16, 2), (1000, 2)] {
        let mut got: Vec<Option<Result<String, Error>>> = vec![None; n];
        chess::evaluate_many(
            (0..n).map(make),
            Policy::Blocking,
            &lawgen_runtime::Batching {
                batch_size,
                threads,
            },
            |i, c| got[i] = Some(c.map(|c| c.to_json().unwrap())),
        );
        let got: Vec<Result<String, Error>> = got.into_iter().map(Option::unwrap).collect();
        assert_eq!(got, expected, "batch {batch_size}, threads {threads}");
    }
}
