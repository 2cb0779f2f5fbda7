//! The generated typed API of the chess package, used the way an arbiter app
//! would: typed facts in, typed verdicts and explanations out. Expected
//! verdicts are read from the FIDE Laws, not from a run. The same tests run
//! on the module of each engine: code that uses the module does not change
//! when the engine does.

mod ascent {
    use lawgen_golden::fide_laws_chess as chess;
    include!("typed_api/chess.rs");
    include!("typed_api/nameless.rs");
}

mod direct {
    use lawgen_golden::fide_laws_chess_direct as chess;
    include!("typed_api/chess.rs");
    include!("typed_api/nameless.rs");
}

use lawgen_runtime::{Arg, Policy};

#[test]
fn hostile_names_compile_to_distinct_safe_identifiers() {
    // Compiling is most of this test. With no facts, the constant `White`
    // is the only player: whether it touched is the one open judgment.
    let f = lawgen_golden::hostile_names::Facts::new();
    let c = f.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.requests().len(), 1);
    assert_eq!(c.requests()[0].predicate, "touched");
    assert_eq!(c.requests()[0].args, vec![Arg::Entity("White".into())]);
}

/// One case holding many games (a tournament's facts file): every table is
/// large, so the Direct engine looks rows up by its indexes instead of
/// scanning, and its unary relations hold ids past their 64-bit words. Both engines must conclude and request exactly the same, and
/// each game's verdicts must be those of the game alone.
#[test]
fn a_case_of_many_games_is_the_same_under_both_engines() {
    macro_rules! tournament {
        ($m:ident) => {{
            use lawgen_golden::$m::{Facts, GamePlayTransition as T};
            let mut f = Facts::new();
            let mut games = Vec::new();
            for i in 0..300 {
                let g = f.game(&format!("g{i}"));
                let (w, b) = (f.player(&format!("w{i}")), f.player(&format!("b{i}")));
                f.player_of(g, w).player_of(g, b).procedure_instance(g);
                f.attempted_transition(g, T::START_PLAY);
                match i % 5 {
                    0 => {
                        f.checkmate_delivered(g, w);
                    }
                    1 => {
                        f.moves_by_each_without_pawn_or_capture(g, 75);
                    }
                    2 => {
                        f.moves_by_each_without_pawn_or_capture(g, 75)
                            .checkmate_delivered(g, b);
                    }
                    3 => {
                        let p = f.piece(&format!("n{i}"));
                        f.own_piece_of(w, p)
                            .piece_can_be_moved(p)
                            .player_has_the_move(g, w);
                    }
                    _ => {
                        f.stalemate_arisen(g);
                    }
                }
                games.push(g);
            }
            let c = f.evaluate(Policy::Blocking).unwrap();
            let drawn: Vec<usize> = (0..300)
                .filter(|&i| c.game_drawn(games[i]).is_concluded())
                .collect();
            (c.to_json().unwrap(), c.requests().len(), drawn)
        }};
    }
    let (a, ra, da) = tournament!(fide_laws_chess);
    let (d, rd, dd) = tournament!(fide_laws_chess_direct);
    assert_eq!(ra, 60, "one touched piece per fifth game is requested");
    assert_eq!(ra, rd);
    // 75 moves without checkmate, and stalemate, draw; checkmate at 75 does not.
    let expected: Vec<usize> = (0..300).filter(|i| i % 5 == 1 || i % 5 == 4).collect();
    assert_eq!(da, expected);
    assert_eq!(dd, expected);
    assert!(a == d, "the engines' canonical outputs differ");
}
