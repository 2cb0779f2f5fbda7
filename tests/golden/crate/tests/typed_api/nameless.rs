// The typed-API tests of the facts path without names (`Case`,
// `evaluate_cases`, `Columns`) of one chess module (`chess` in the
// including module), included once per engine by `typed_api.rs`.

use self::chess::{Case, Columns, GamePlayTransition as T, Piece};

fn game() -> Game {
    Game::from_index(0)
}

fn players() -> (Player, Player) {
    (Player::from_index(0), Player::from_index(1))
}

/// What `nameless_case` states, through named `Facts` whose names are the
/// ones conclusions give a nameless case's entities.
fn named_like_nameless(i: usize) -> Facts {
    let mut f = Facts::new();
    let g = f.game("Game#0");
    let (w, b) = (f.player("Player#0"), f.player("Player#1"));
    let k = f.piece("Piece#0");
    f.player_of(g, w).player_of(g, b).procedure_instance(g);
    f.attempted_transition(g, T::START_PLAY);
    state(i, g, w, b, k, &mut |s| match s {
        Stmt::Mate(g, p) => {
            f.checkmate_delivered(g, p);
        }
        Stmt::Moves(g, n) => {
            f.moves_by_each_without_pawn_or_capture(g, n);
        }
        Stmt::Stalemate(g, yes) => {
            if yes {
                f.stalemate_arisen(g);
            } else {
                f.not_stalemate_arisen(g);
            }
        }
        Stmt::Touch(g, p, k) => {
            f.own_piece_of(p, k).piece_can_be_moved(k).player_has_the_move(g, p);
        }
        Stmt::Decide(p, k, yes) => {
            f.decide_piece_touched_intentionally(p, k, yes);
        }
    });
    f
}

/// Case `i` as a nameless `Case`.
fn nameless_case(i: usize, c: &mut Case) {
    let g = game();
    let (w, b) = players();
    let k = Piece::from_index(0);
    c.player_of(g, w).player_of(g, b).procedure_instance(g);
    c.attempted_transition(g, T::START_PLAY);
    state(i, g, w, b, k, &mut |s| match s {
        Stmt::Mate(g, p) => {
            c.checkmate_delivered(g, p);
        }
        Stmt::Moves(g, n) => {
            c.moves_by_each_without_pawn_or_capture(g, n);
        }
        Stmt::Stalemate(g, yes) => {
            if yes {
                c.stalemate_arisen(g);
            } else {
                c.not_stalemate_arisen(g);
            }
        }
        Stmt::Touch(g, p, k) => {
            c.own_piece_of(p, k).piece_can_be_moved(k).player_has_the_move(g, p);
        }
        Stmt::Decide(p, k, yes) => {
            c.decide_piece_touched_intentionally(p, k, yes);
        }
    });
}

/// One fact of the cases below, whatever API states it.
enum Stmt {
    Mate(Game, Player),
    Moves(Game, i64),
    Stalemate(Game, bool),
    Touch(Game, Player, Piece),
    Decide(Player, Piece, bool),
}

/// Case `i`'s facts besides the players: checkmate, 75 moves, both, a
/// stalemate (contradicted in every other one), a touched piece (decided
/// either way or not at all).
fn state(i: usize, g: Game, w: Player, b: Player, k: Piece, out: &mut dyn FnMut(Stmt)) {
    match i % 5 {
        0 => out(Stmt::Mate(g, w)),
        1 => out(Stmt::Moves(g, 70 + i as i64 % 10)),
        2 => {
            out(Stmt::Moves(g, 75));
            out(Stmt::Mate(g, b));
        }
        3 => {
            out(Stmt::Stalemate(g, true));
            if i % 2 == 1 {
                out(Stmt::Stalemate(g, false));
            }
        }
        _ => {
            out(Stmt::Touch(g, w, k));
            match i % 3 {
                0 => out(Stmt::Decide(w, k, true)),
                1 => out(Stmt::Decide(w, k, false)),
                _ => {}
            }
        }
    }
}

/// A nameless case concludes what named facts conclude, and names its
/// entities `Type#index`: the canonical output of one is the other's, byte
/// for byte, when the named facts use those very names.
#[test]
fn a_nameless_case_concludes_what_named_facts_do() {
    for i in 0..10 {
        let mut case = Case::new();
        nameless_case(i, &mut case);
        let nameless = case.evaluate(Policy::Blocking);
        let named = named_like_nameless(i).evaluate(Policy::Blocking);
        match (nameless, named) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.to_json().unwrap(), b.to_json().unwrap(), "case {i}");
                assert_eq!(a.requests(), b.requests(), "case {i}");
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "case {i}"),
            (a, b) => panic!("case {i}: nameless {a:?}, named {b:?}"),
        }
    }
}

#[test]
fn nameless_entities_have_indexes_and_rendered_names() {
    let (g, (w, b)) = (game(), players());
    let mut case = Case::new();
    case.player_of(g, w)
        .player_of(g, b)
        .moves_by_each_without_pawn_or_capture(g, 75)
        .checkmate_delivered(g, w);
    let c = case.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.game_won_by(g, w), Verdict::Definitely);
    assert_eq!(c.game_drawn(g), Verdict::SupportedOnly);
    assert_eq!(c.game_won_by_all().collect::<Vec<_>>(), vec![(g, w)]);
    // A game and a player may share an id: they are told apart by type.
    assert_eq!(g.index(), Some(0));
    assert_eq!(w.index(), Some(0));
    assert_eq!(chess::GamePlayState::ENDED.index(), None);
    assert_eq!(c.name(w), None);
    assert_eq!(c.entity_name(w).as_deref(), Some("Player#0"));
    assert_eq!(c.entity_name(g).as_deref(), Some("Game#0"));
    assert_eq!(c.name(chess::GamePlayState::ENDED), Some("Ended"));
    assert_eq!(c.get::<Player>("Player#1"), Some(b));
    assert_eq!(c.get::<Game>("Player#1"), None);
    assert_eq!(c.get::<Player>("Player#01"), None);
    assert_eq!(c.get::<chess::GamePlayState>("Ended"), Some(chess::GamePlayState::ENDED));
    assert!(c.facts().is_none());
    let json = c.to_json().unwrap();
    assert!(json.contains("[\"Game#0\", \"Player#0\"]"), "{json}");
    // Explanations read the same names.
    let e = c.explain("~game_drawn(Game#0)").unwrap();
    assert_eq!(e.verdict(), "defeasibly");
    assert_eq!(c.explain_game_won_by(g, w).unwrap().verdict(), "definitely");
    // Named conclusions keep their names and facts.
    let mut f = Facts::new();
    let g1 = f.game("g1");
    let c = f.evaluate(Policy::Blocking).unwrap();
    assert_eq!(c.entity_name(g1).as_deref(), Some("g1"));
    assert!(c.facts().is_some());
}

#[test]
fn a_contradiction_in_a_nameless_case_names_its_entities() {
    let mut case = Case::new();
    case.stalemate_arisen(game()).not_stalemate_arisen(game());
    assert_eq!(
        case.evaluate(Policy::Blocking).unwrap_err(),
        Error::Contradiction {
            predicate: "stalemate_arisen",
            args: vec![Arg::Entity("Game#0".into())]
        }
    );
}

/// `from_index` past the last index gives an id no case accepts: the case
/// fails, naming the method and which of its facts, and nothing runs.
#[test]
fn an_id_out_of_range_is_an_error_not_a_verdict() {
    let huge = Player::from_index(u32::MAX);
    assert_eq!(huge.index(), None);
    let mut case = Case::new();
    case.player_of(game(), players().0).player_of(game(), huge);
    let err = case.evaluate(Policy::Blocking).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid facts:\n`player_of`, fact 1 of the case (counting from 0), value 2: the Player \
         id 4294967295 is out of range: `Player::from_index` takes indexes up to 4294967281 (a \
         larger index gives this id)"
    );
    // The largest index is fine.
    let last = Player::from_index(4_294_967_281);
    assert_eq!(last.index(), Some(4_294_967_281));
    let mut case = Case::new();
    case.player_of(game(), last);
    let c = case.evaluate(Policy::Blocking).unwrap();
    assert!(c.to_json().unwrap().contains("Player#4294967281"));

    // Named facts refuse an id they did not issue (it has no name).
    let mut f = Facts::new();
    let g = f.game("g1");
    f.player_of(g, Player::from_index(7));
    assert_eq!(
        f.evaluate(Policy::Blocking).unwrap_err().to_string(),
        "invalid facts:\n`player_of`, fact 0 of the case (counting from 0), value 2: the Player \
         with id 19 was not named in these facts (they have 13 entities, constants included): \
         use the ids their methods return, or evaluate a nameless `Case`"
    );
    // Batches fail that case alone.
    let mut got = Vec::new();
    chess::evaluate_cases(
        3,
        Policy::Blocking,
        &lawgen_runtime::Batching {
            batch_size: 8,
            threads: 1,
        },
        |i, c| {
            c.player_of(game(), if i == 1 { huge } else { players().0 });
        },
        |i, r| (i, r.is_ok()),
        |_, v| got.push(v),
    );
    assert_eq!(got, vec![(0, true), (1, false), (2, true)]);
}

fn batchings() -> [lawgen_runtime::Batching; 4] {
    [(1, 1), (7, 1), (16, 2), (1000, 2)].map(|(batch_size, threads)| lawgen_runtime::Batching {
        batch_size,
        threads,
    })
}

/// `evaluate_cases` computes what each `Case` computes alone, for any
/// batching; a contradictory case fails alone.
#[test]
fn evaluate_cases_equals_one_by_one_for_any_batching() {
    let n = 103;
    let expected: Vec<Result<String, Error>> = (0..n)
        .map(|i| {
            let mut c = Case::new();
            nameless_case(i, &mut c);
            c.evaluate(Policy::Propagating).map(|c| c.to_json().unwrap())
        })
        .collect();
    assert!(expected.iter().any(|e| e.is_err()) && expected.iter().any(|e| e.is_ok()));
    for batching in batchings() {
        let mut got: Vec<Option<Result<String, Error>>> = vec![None; n];
        chess::evaluate_cases(
            n,
            Policy::Propagating,
            &batching,
            nameless_case,
            |_, c| c.map(|c| c.to_json().unwrap()),
            |i, v| got[i] = Some(v),
        );
        let got: Vec<Result<String, Error>> = got.into_iter().map(Option::unwrap).collect();
        assert_eq!(got, expected, "{batching:?}");
    }
}

/// A `Case` swapped for another inside `fill` is noticed: none of its
/// batch is evaluated (the rows of the cases before it were in it).
#[test]
fn a_case_replaced_inside_fill_fails_its_batch() {
    let mut got = Vec::new();
    chess::evaluate_cases(
        4,
        Policy::Blocking,
        &lawgen_runtime::Batching {
            batch_size: 2,
            threads: 1,
        },
        |i, c| {
            c.player_of(game(), players().0);
            if i == 1 {
                *c = Case::new();
            }
        },
        |i, r| (i, r.map(|_| ()).map_err(|e| e.to_string())),
        |_, v| got.push(v),
    );
    let lost = Err("invalid facts:\nthe `Case` that `fill` got for case 1 was replaced by another \
                    one (cases 0 to 1 were not evaluated): state a case's facts through the \
                    methods of the `Case` given"
        .to_owned());
    assert_eq!(got, vec![(0, lost.clone()), (1, lost), (2, Ok(())), (3, Ok(()))]);
}

/// The cases of `nameless_case` as columns (the first `n`), in case order
/// or not.
struct Cols {
    player_of: (Vec<u32>, Vec<Game>, Vec<Player>),
    procedure_instance: (Vec<u32>, Vec<Game>),
    attempted: (Vec<u32>, Vec<Game>, Vec<T>),
    mate: (Vec<u32>, Vec<Game>, Vec<Player>),
    moves: (Vec<u32>, Vec<Game>, Vec<i64>),
    stalemate: (Vec<u32>, Vec<Game>),
    not_stalemate: (Vec<u32>, Vec<Game>),
    own: (Vec<u32>, Vec<Player>, Vec<Piece>),
    can_move: (Vec<u32>, Vec<Piece>),
    has_move: (Vec<u32>, Vec<Game>, Vec<Player>),
    decide: (Vec<u32>, Vec<Player>, Vec<Piece>, Vec<bool>),
}

impl Cols {
    fn new(n: usize, shuffled: bool) -> Self {
        let mut cols = Cols {
            player_of: Default::default(),
            procedure_instance: Default::default(),
            attempted: Default::default(),
            mate: Default::default(),
            moves: Default::default(),
            stalemate: Default::default(),
            not_stalemate: Default::default(),
            own: Default::default(),
            can_move: Default::default(),
            has_move: Default::default(),
            decide: Default::default(),
        };
        // Later cases first when shuffled.
        let order: Vec<usize> = if shuffled {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        };
        for &i in &order {
            let c = i as u32;
            let (g, (w, b), k) = (game(), players(), Piece::from_index(0));
            for p in [w, b] {
                cols.player_of.0.push(c);
                cols.player_of.1.push(g);
                cols.player_of.2.push(p);
            }
            cols.procedure_instance.0.push(c);
            cols.procedure_instance.1.push(g);
            cols.attempted.0.push(c);
            cols.attempted.1.push(g);
            cols.attempted.2.push(T::START_PLAY);
            state(i, g, w, b, k, &mut |s| match s {
                Stmt::Mate(g, p) => {
                    cols.mate.0.push(c);
                    cols.mate.1.push(g);
                    cols.mate.2.push(p);
                }
                Stmt::Moves(g, m) => {
                    cols.moves.0.push(c);
                    cols.moves.1.push(g);
                    cols.moves.2.push(m);
                }
                Stmt::Stalemate(g, true) => {
                    cols.stalemate.0.push(c);
                    cols.stalemate.1.push(g);
                }
                Stmt::Stalemate(g, false) => {
                    cols.not_stalemate.0.push(c);
                    cols.not_stalemate.1.push(g);
                }
                Stmt::Touch(g, p, k) => {
                    cols.own.0.push(c);
                    cols.own.1.push(p);
                    cols.own.2.push(k);
                    cols.can_move.0.push(c);
                    cols.can_move.1.push(k);
                    cols.has_move.0.push(c);
                    cols.has_move.1.push(g);
                    cols.has_move.2.push(p);
                }
                Stmt::Decide(p, k, yes) => {
                    cols.decide.0.push(c);
                    cols.decide.1.push(p);
                    cols.decide.2.push(k);
                    cols.decide.3.push(yes);
                }
            });
        }
        cols
    }

    fn columns(&self) -> Columns<'_> {
        Columns {
            player_of: (&self.player_of.0, &self.player_of.1, &self.player_of.2),
            procedure_instance: (&self.procedure_instance.0, &self.procedure_instance.1),
            attempted_transition: (&self.attempted.0, &self.attempted.1, &self.attempted.2),
            checkmate_delivered: (&self.mate.0, &self.mate.1, &self.mate.2),
            moves_by_each_without_pawn_or_capture: (&self.moves.0, &self.moves.1, &self.moves.2),
            stalemate_arisen: (&self.stalemate.0, &self.stalemate.1),
            not_stalemate_arisen: (&self.not_stalemate.0, &self.not_stalemate.1),
            own_piece_of: (&self.own.0, &self.own.1, &self.own.2),
            piece_can_be_moved: (&self.can_move.0, &self.can_move.1),
            player_has_the_move: (&self.has_move.0, &self.has_move.1, &self.has_move.2),
            decide_piece_touched_intentionally: (
                &self.decide.0,
                &self.decide.1,
                &self.decide.2,
                &self.decide.3,
            ),
            ..Columns::default()
        }
    }
}

/// Column-wise input concludes what each case does alone, whether its rows
/// come in case order or not, for any batching.
#[test]
fn columns_equal_cases_in_and_out_of_order() {
    let n = 61;
    let expected: Vec<Result<String, Error>> = (0..n)
        .map(|i| {
            let mut c = Case::new();
            nameless_case(i, &mut c);
            c.evaluate(Policy::Blocking).map(|c| c.to_json().unwrap())
        })
        .collect();
    for shuffled in [false, true] {
        let cols = Cols::new(n, shuffled);
        for batching in batchings() {
            let mut got: Vec<Option<Result<String, Error>>> = vec![None; n];
            chess::evaluate_columns(
                n,
                &cols.columns(),
                Policy::Blocking,
                &batching,
                |_, c| c.map(|c| c.to_json().unwrap()),
                |i, v| got[i] = Some(v),
            )
            .unwrap();
            let got: Vec<Result<String, Error>> = got.into_iter().map(Option::unwrap).collect();
            assert_eq!(got, expected, "shuffled {shuffled}, {batching:?}");
        }
    }
    // A case with no row at all is a case with no facts.
    let mut got = Vec::new();
    chess::evaluate_columns(
        2,
        &Columns::default(),
        Policy::Blocking,
        &lawgen_runtime::Batching::default(),
        |_, c| c.unwrap().requests().len(),
        |i, v| got.push((i, v)),
    )
    .unwrap();
    got.sort();
    assert_eq!(got, vec![(0, 0), (1, 0)]);
}

/// Bad columns are refused before any case runs, with the field and row.
#[test]
fn bad_columns_are_errors_naming_the_field_and_row() {
    let run = |n: usize, columns: &Columns<'_>| {
        let mut ran = 0;
        let r = chess::evaluate_columns(
            n,
            columns,
            Policy::Blocking,
            &lawgen_runtime::Batching::default(),
            |_, _| (),
            |_, ()| ran += 1,
        );
        (r.map_err(|e| e.to_string()), ran)
    };
    let (g, (w, b)) = (game(), players());
    // A column of the wrong length.
    let short = Columns {
        player_of: (&[0, 0], &[g, g], &[w]),
        ..Columns::default()
    };
    assert_eq!(
        run(1, &short),
        (
            Err("invalid facts:\n`Columns::player_of`: its columns differ in length: the case \
                 column has 2, `game` has 2, `who` has 1; give every column of a predicate one \
                 value per row"
                .into()),
            0
        )
    );
    let decide = Columns {
        decide_piece_touched_intentionally: (&[0], &[w], &[Piece::from_index(0)], &[]),
        ..Columns::default()
    };
    assert_eq!(
        run(1, &decide).0,
        Err("invalid facts:\n`Columns::decide_piece_touched_intentionally`: its columns differ in \
             length: the case column has 1, `who` has 1, `piece` has 1, `holds` has 0; give every \
             column of a predicate one value per row"
            .into())
    );
    // A case index out of range.
    let far = Columns {
        player_of: (&[0, 3], &[g, g], &[w, b]),
        ..Columns::default()
    };
    assert_eq!(
        run(2, &far),
        (
            Err("invalid facts:\n`Columns::player_of`, row 1: case 3 is out of range: the batch \
                 has 2 cases (indexes 0 to 1)"
                .into()),
            0
        )
    );
    // An id out of range.
    let huge = Columns {
        player_of: (&[0, 0], &[g, g], &[w, Player::from_index(u32::MAX)]),
        ..Columns::default()
    };
    assert_eq!(
        run(1, &huge).0,
        Err("invalid facts:\n`Columns::player_of`, row 1: the Player id 4294967295 is out of \
             range: `Player::from_index` takes indexes up to 4294967281 (a larger index gives this \
             id)"
            .into())
    );
    // No case: nothing to do, and no error.
    assert_eq!(run(0, &Columns::default()), (Ok(()), 0));
}

/// `Columns::as_of`: each case is judged as of its own date, as a `Case`
/// with that date is; a date with no law in force, one that is no calendar
/// day, or a count of dates other than the cases' is refused, naming the
/// case, before any case runs.
#[test]
fn columns_take_a_date_per_case() {
    use lawgen_runtime::__private::Date;
    let n = 7;
    let day = |i: usize| Date::parse(["2023-01-01", "2024-05-01", "2031-12-31"][i % 3]).unwrap();
    let dates: Vec<Date> = (0..n).map(day).collect();
    let expected: Vec<Result<String, Error>> = (0..n)
        .map(|i| {
            let mut c = Case::new();
            nameless_case(i, &mut c);
            c.as_of(day(i)).unwrap();
            c.evaluate(Policy::Blocking).map(|c| c.to_json().unwrap())
        })
        .collect();
    let mut dated = 0;
    for (i, e) in expected.iter().enumerate() {
        if let Ok(e) = e {
            assert!(
                e.contains(&format!("\"asOf\": \"{}\"", day(i))),
                "case {i}: {e}"
            );
            dated += 1;
        }
    }
    assert!(dated >= 3, "only {dated} cases evaluated");
    let cols = Cols::new(n, true);
    for batching in batchings() {
        let mut got: Vec<Option<Result<String, Error>>> = vec![None; n];
        chess::evaluate_columns(
            n,
            &Columns {
                as_of: &dates,
                ..cols.columns()
            },
            Policy::Blocking,
            &batching,
            |_, c| c.map(|c| c.to_json().unwrap()),
            |i, v| got[i] = Some(v),
        )
        .unwrap();
        let got: Vec<Result<String, Error>> = got.into_iter().map(Option::unwrap).collect();
        assert_eq!(got, expected, "{batching:?}");
    }
    let run = |n: usize, as_of: &[Date]| {
        let mut ran = 0;
        let r = chess::evaluate_columns(
            n,
            &Columns {
                as_of,
                ..Columns::default()
            },
            Policy::Blocking,
            &lawgen_runtime::Batching::default(),
            |_, _| (),
            |_, ()| ran += 1,
        );
        (r.map_err(|e| e.to_string()), ran)
    };
    let d = |s: &str| Date::parse(s).unwrap();
    assert_eq!(
        run(2, &[d("2024-05-01"), d("2019-05-01")]),
        (
            Err("invalid facts:\n`Columns::as_of`, case 1: no edition of the work \
                 `FIDE_LAWS_OF_CHESS` is in force on 2019-05-01: it has an edition in force \
                 from 2023-01-01"
                .into()),
            0
        )
    );
    assert_eq!(
        run(2, &[d("2024-05-01")]),
        (
            Err("invalid facts:\n`Columns::as_of` holds 1 dates and the batch 2 cases: give \
                 one date per case, or none"
                .into()),
            0
        )
    );
    assert_eq!(
        run(1, &[Date(20231301)]),
        (
            Err("invalid facts:\n`Columns::as_of`, case 0: `2023-13-01` is not a date: give a \
                 real calendar day (`Date::parse(\"2024-05-01\")`)"
                .into()),
            0
        )
    );
}
