//! A deterministic generator of synthetic chess cases: case `i` of a seed is
//! one game, drawn so that across cases nearly every one of the package's 47
//! rules fires (see `tests/agree.rs`, which checks the coverage).
//!
//! A case is one compact [`ChessCase`]; adapters turn it into the inputs of
//! each engine: [`to_facts`] (the generated module's typed `Facts`),
//! [`fill_case`] (its nameless `Case`, ids instead of names),
//! [`to_json`] (a facts file, docs/reference.md#facts-files, for the reference interpreter), and the
//! plain-Rust evaluator reads a `ChessCase` directly (`crate::plain`).
//!
//! Every case names the same entities (`g`, `white`, `black`, ...): cases are
//! independent evaluations, so names need not be unique across them.

use std::fmt::Write as _;

/// A three-valued empirical fact: not stated, stated (`p`), or its explicit
/// negation stated (`~p`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Tri {
    #[default]
    Unknown,
    Yes,
    No,
}

impl Tri {
    /// Whether `~p` is definitely true when the closure over `p` (docs/reference.md#closures)
    /// applies exactly when `checked`: stated, or closed and `p` not stated.
    #[inline]
    pub fn negated(self, checked: bool) -> bool {
        self == Tri::No || (checked && self != Tri::Yes)
    }
}

/// An authority's decision on a judgment atom (docs/reference.md#undecided-judgments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Judgment {
    /// Not decided: the atom holds in neither direction until it is.
    #[default]
    Undecided,
    Yes,
    No,
}

/// One of the two players (`white`, `black`) and their facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerCase {
    /// `player_of(g, who)`.
    pub of_game: bool,
    /// `player_has_the_move(g, who)`.
    pub has_move: bool,
    /// `player_resigned(who)`.
    pub resigned: bool,
    /// `draw_claimed(who)`.
    pub claimed_draw: bool,
    /// `checkmate_delivered(g, who)`.
    pub mates: bool,
    /// `king_cannot_be_checkmated(who)`, closed over `checked_player`.
    pub cannot_be_mated: Tri,
    /// `checked_player(who)`.
    pub checked: bool,
    /// `completed_illegal_move_count(who, n)`; negative: not stated.
    pub illegal_moves: i8,
    /// `king_of(who, king)`.
    pub king_of: bool,
    /// `piece_has_moved(king)`, closed over `checked_piece`.
    pub king_moved: Tri,
    /// `checked_piece(king)`.
    pub king_checked: bool,
}

/// One castling side (king side, queen side) of one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideCase {
    /// `castling_side_of(g, who, side, rook)`.
    pub present: bool,
    /// `rook_of(who, rook)`.
    pub rook_of: bool,
    /// `piece_has_moved(rook)`, closed over `checked_piece`.
    pub rook_moved: Tri,
    /// `checked_piece(rook)`.
    pub rook_checked: bool,
    /// `castling_path_blocked(side)`, closed over `checked_castling_side`.
    pub blocked: Tri,
    /// `castling_path_attacked(side)`, closed over `checked_castling_side`.
    pub attacked: Tri,
    /// `checked_castling_side(side)`.
    pub checked: bool,
}

/// A touched piece (Art. 4.3): `own_piece_of`, `piece_can_be_moved` and the
/// arbiter's judgment `piece_touched_intentionally(who, piece)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touch {
    pub present: bool,
    /// Index into [`PLAYERS`].
    pub who: u8,
    /// Index into [`PIECES`]; the two touches of a case touch different pieces.
    pub piece: u8,
    pub intent: Judgment,
    /// `own_piece_of(who, piece)`.
    pub own: bool,
    /// `piece_can_be_moved(piece)`.
    pub can_move: bool,
}

/// One game: everything the chess package reads about it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChessCase {
    pub players: [PlayerCase; 2],
    /// White king side, white queen side, black king side, black queen side.
    pub sides: [SideCase; 4],
    pub touches: [Touch; 2],
    /// `moves_by_each_without_pawn_or_capture(g, n)`; negative: not stated.
    pub moves: i16,
    /// `position_occurrence_count(g, n)`; negative: not stated.
    pub occurrences: i8,
    /// `capturing_pawn_on_adjacent_file(g, p1..)`: how many pawns (0..=2).
    pub pawns: u8,
    /// `attempted_transition(g, t)`: bit `t` for `t` in [`TRANSITIONS`].
    pub attempted: u16,
    /// `procedure_instance(g)`.
    pub procedure_instance: bool,
    /// `play_started(g)`.
    pub play_started: bool,
    /// `arbiter_of(g, arbiter)`.
    pub arbiter: bool,
    /// `both_players_have_moved(g)`.
    pub both_moved: bool,
    /// `draw_agreed(g)`, or its explicit negation (which no rule reads).
    pub draw_agreed: Tri,
    /// `dead_position_arisen(g)`.
    pub dead_position: bool,
    /// `stalemate_arisen(g)`.
    pub stalemate: bool,
    /// `checked_game(g)`: closes `en_passant_right_open` and
    /// `move_meets_articles_3_1_to_3_9`.
    pub checked_game: bool,
    /// `en_passant_right_open(g)`.
    pub en_passant: Tri,
    /// `move_meets_articles_3_1_to_3_9(g)`.
    pub move_meets: Tri,
    /// The situation `s` and the judgment `case_not_precisely_regulated(s)`;
    /// `None`: no situation is mentioned at all.
    pub situation: Option<Judgment>,
}

/// Player names, by index (white, black).
pub const PLAYERS: [&str; 2] = ["white", "black"];
/// Piece names, by index: the kings (by player), the rooks (by castling
/// side), two pawns that may capture en passant, two knights.
pub const PIECES: [&str; 10] = [
    "wK", "bK", "wRk", "wRq", "bRk", "bRq", "p1", "p2", "wN", "bN",
];
/// Castling side names, by index; side `s` belongs to player `s / 2` and its
/// rook is piece `ROOK0 + s`.
pub const SIDES: [&str; 4] = ["wk", "wq", "bk", "bq"];
/// The first rook in [`PIECES`].
pub const ROOK0: usize = 2;
/// The first pawn in [`PIECES`].
pub const PAWN0: usize = 6;

/// The game play transitions, in the bit order of [`ChessCase::attempted`].
pub const TRANSITIONS: [&str; 9] = [
    "StartPlay",
    "PlayMove",
    "ConcludeByAgreement",
    "ConcludeByCheckmate",
    "ConcludeByDeadPosition",
    "ConcludeByDrawnClaim",
    "ConcludeByResignation",
    "ConcludeBySecondIllegalMove",
    "ConcludeByStalemate",
];
pub const T_START: usize = 0;
pub const T_MOVE: usize = 1;
/// The first of the seven concluding transitions.
pub const T_CONCLUDE0: usize = 2;

/// The seed the tests, benches and throughput binary use.
pub const SEED: u64 = 0x5eed_c4e5_5000_0005;

/// splitmix64: a tiny, good-enough generator with O(1) random access.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, i: u64) -> Self {
        let mut r = Rng(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }
    /// True with probability `pct`%.
    fn pct(&mut self, pct: u32) -> bool {
        self.below(100) < pct
    }
    fn range(&mut self, lo: i32, hi_incl: i32) -> i32 {
        lo + self.below((hi_incl - lo + 1) as u32) as i32
    }
    /// Yes / No / Unknown with the given percentages (the rest Unknown).
    fn tri(&mut self, yes: u32, no: u32) -> Tri {
        let r = self.below(100);
        if r < yes {
            Tri::Yes
        } else if r < yes + no {
            Tri::No
        } else {
            Tri::Unknown
        }
    }
    fn judgment(&mut self) -> Judgment {
        match self.below(3) {
            0 => Judgment::Undecided,
            1 => Judgment::Yes,
            _ => Judgment::No,
        }
    }
}

/// How a generated game ends, which decides the facts drawn most often.
#[derive(Clone, Copy)]
enum Ending {
    Ongoing,
    Checkmate,
    Stalemate,
    Resignation,
    Agreement,
    DeadPosition,
    Claim,
    SecondIllegalMove,
    SeventyFive,
    Fivefold,
}

const ENDINGS: [Ending; 10] = [
    Ending::Ongoing,
    Ending::Checkmate,
    Ending::Stalemate,
    Ending::Resignation,
    Ending::Agreement,
    Ending::DeadPosition,
    Ending::Claim,
    Ending::SecondIllegalMove,
    Ending::SeventyFive,
    Ending::Fivefold,
];

/// Case `i` of `seed`: the same case every time, on every machine.
pub fn case(seed: u64, i: u64) -> ChessCase {
    let mut r = Rng::new(seed, i);
    let mut c = ChessCase {
        procedure_instance: r.pct(92),
        play_started: r.pct(88),
        arbiter: r.pct(80),
        both_moved: r.pct(70),
        checked_game: r.pct(55),
        en_passant: r.tri(30, 20),
        move_meets: r.tri(60, 15),
        pawns: r.below(3) as u8,
        moves: if r.pct(65) {
            r.range(40, 100) as i16
        } else {
            -1
        },
        occurrences: if r.pct(30) { r.range(1, 4) as i8 } else { -1 },
        draw_agreed: r.tri(4, 10),
        dead_position: r.pct(3),
        stalemate: r.pct(3),
        situation: match r.below(5) {
            0 | 1 => None,
            _ => Some(r.judgment()),
        },
        ..ChessCase::default()
    };
    let mover = match r.below(20) {
        0 | 1 => None,
        2 => Some(2), // both (not a real game, but the rules allow it)
        n => Some((n & 1) as usize),
    };
    for (k, p) in c.players.iter_mut().enumerate() {
        *p = PlayerCase {
            of_game: r.pct(95),
            has_move: mover == Some(k) || mover == Some(2),
            resigned: r.pct(3),
            claimed_draw: r.pct(8),
            mates: r.pct(2),
            cannot_be_mated: r.tri(10, 20),
            checked: r.pct(50),
            illegal_moves: if r.pct(25) { r.range(0, 1) as i8 } else { -1 },
            king_of: r.pct(95),
            king_moved: r.tri(25, 25),
            king_checked: r.pct(50),
        };
    }
    for s in c.sides.iter_mut() {
        *s = SideCase {
            present: r.pct(60),
            rook_of: r.pct(92),
            rook_moved: r.tri(20, 30),
            rook_checked: r.pct(50),
            blocked: r.tri(25, 25),
            attacked: r.tri(20, 30),
            checked: r.pct(55),
        };
    }
    // The player to move (or white) does the scenario's deciding act; the
    // other is the opponent.
    let actor = mover.map_or(0, |m| m & 1);
    let ending = ENDINGS[r.below(ENDINGS.len() as u32) as usize];
    let mut conclude = None;
    match ending {
        Ending::Ongoing => {}
        Ending::Checkmate => {
            c.players[actor].mates = true;
            if r.pct(40) {
                // Checkmate on (or after) the 75th move: Art. 9.6.2 precedence.
                c.moves = r.range(75, 90) as i16;
            }
            conclude = Some(3);
        }
        Ending::Stalemate => {
            c.stalemate = true;
            conclude = Some(8);
        }
        Ending::Resignation => {
            let p = &mut c.players[actor];
            p.resigned = true;
            p.cannot_be_mated = r.tri(35, 30);
            conclude = Some(6);
        }
        Ending::Agreement => {
            c.draw_agreed = Tri::Yes;
            c.both_moved = r.pct(75);
            conclude = Some(if r.pct(50) { 2 } else { 5 });
        }
        Ending::DeadPosition => {
            c.dead_position = true;
            conclude = Some(if r.pct(70) { 4 } else { 5 });
        }
        Ending::Claim => {
            c.players[actor].claimed_draw = true;
            if r.pct(50) {
                c.moves = r.range(44, 80) as i16;
            } else {
                c.occurrences = r.range(1, 5) as i8;
            }
            conclude = Some(5);
        }
        Ending::SecondIllegalMove => {
            let p = &mut c.players[actor];
            p.illegal_moves = r.range(2, 3) as i8;
            p.cannot_be_mated = r.tri(35, 30);
            conclude = Some(if r.pct(70) { 7 } else { 5 });
        }
        Ending::SeventyFive => {
            c.moves = r.range(75, 95) as i16;
            conclude = Some(5);
        }
        Ending::Fivefold => {
            c.occurrences = r.range(5, 6) as i8;
            conclude = Some(5);
        }
    }
    if r.pct(88) {
        c.attempted |= 1 << T_START;
    }
    if r.pct(75) {
        c.attempted |= 1 << T_MOVE;
    }
    if let Some(t) = conclude {
        if r.pct(80) {
            c.attempted |= 1 << t;
        }
    }
    if r.pct(15) {
        c.attempted |= 1 << (T_CONCLUDE0 as u32 + r.below(7));
    }
    let touches = r.below(3) as usize;
    let first = r.below(PIECES.len() as u32) as u8;
    for (k, t) in c.touches.iter_mut().enumerate().take(touches) {
        let piece = if k == 0 {
            first
        } else {
            (first + 1 + r.below(PIECES.len() as u32 - 1) as u8) % PIECES.len() as u8
        };
        *t = Touch {
            present: true,
            who: if r.pct(80) {
                actor as u8
            } else {
                1 - actor as u8
            },
            piece,
            intent: r.judgment(),
            own: r.pct(85),
            can_move: r.pct(80),
        };
    }
    c
}

/// Cases `0..n` of `seed`.
pub fn cases(seed: u64, n: usize) -> Vec<ChessCase> {
    (0..n as u64).map(|i| case(seed, i)).collect()
}

impl ChessCase {
    /// The pieces this case mentions, as a bit set over [`PIECES`]. Both
    /// adapters declare exactly these (the domain of undecided judgments).
    pub fn pieces(&self) -> u16 {
        let mut m = 0u16;
        for (k, p) in self.players.iter().enumerate() {
            if p.king_of || p.king_moved != Tri::Unknown || p.king_checked {
                m |= 1 << k;
            }
        }
        for (s, side) in self.sides.iter().enumerate() {
            if side.present || side.rook_of || side.rook_moved != Tri::Unknown || side.rook_checked
            {
                m |= 1 << (ROOK0 + s);
            }
        }
        for k in 0..self.pawns as usize {
            m |= 1 << (PAWN0 + k);
        }
        for t in self.touches.iter().filter(|t| t.present) {
            m |= 1 << t.piece;
        }
        m
    }
}

/// An entity of a named adapter: interned (and declared) by name.
macro_rules! named_entity {
    ($f:ident, $method:ident, $ty:ident, $name:expr, $index:expr) => {
        $f.$method($name)
    };
}

/// An entity of a nameless adapter: its index in the case, declared.
macro_rules! nameless_entity {
    ($f:ident, $method:ident, $ty:ident, $name:expr, $index:expr) => {{
        let e = $ty::from_index($index as u32);
        $f.$method(e);
        e
    }};
}

/// The statements of an adapter: the case's facts stated on `$f` (a
/// `Facts` or a `Case` of module `$m`), entities made by `$entity`
/// ([`named_entity`] or [`nameless_entity`]). Both adapters state the same
/// rows, so the counts must agree with each other and with plain Rust.
macro_rules! adapter_body {
    ($c:ident, $f:expr, $m:ident, $builder:ident, $entity:ident) => {{
        // The named adapter names no type.
        #[allow(unused_imports)]
        use crate::$m::{
            $builder, Arbiter, CastlingSide, Game, GamePlayTransition as T, Piece, Player,
            Situation,
        };
        const TRANSITION_IDS: [T; 9] = [
            T::START_PLAY,
            T::PLAY_MOVE,
            T::CONCLUDE_BY_AGREEMENT,
            T::CONCLUDE_BY_CHECKMATE,
            T::CONCLUDE_BY_DEAD_POSITION,
            T::CONCLUDE_BY_DRAWN_CLAIM,
            T::CONCLUDE_BY_RESIGNATION,
            T::CONCLUDE_BY_SECOND_ILLEGAL_MOVE,
            T::CONCLUDE_BY_STALEMATE,
        ];
        fn piece_moved(f: &mut $builder, p: Option<Piece>, moved: Tri, checked: bool) {
            let Some(p) = p else { return };
            match moved {
                Tri::Yes => {
                    f.piece_has_moved(p);
                }
                Tri::No => {
                    f.not_piece_has_moved(p);
                }
                Tri::Unknown => {}
            }
            if checked {
                f.checked_piece(p);
            }
        }

        let c: &ChessCase = $c;
        let f = $f;
        let g = $entity!(f, game, Game, "g", 0);
        let players = [
            $entity!(f, player, Player, PLAYERS[0], 0),
            $entity!(f, player, Player, PLAYERS[1], 1),
        ];
        let mut pieces: [Option<Piece>; PIECES.len()] = [None; PIECES.len()];
        let used = c.pieces();
        for (k, slot) in pieces.iter_mut().enumerate() {
            if used & (1 << k) != 0 {
                *slot = Some($entity!(f, piece, Piece, PIECES[k], k));
            }
        }
        let piece = |k: usize| pieces[k].expect("declared by ChessCase::pieces");

        if c.procedure_instance {
            f.procedure_instance(g);
        }
        if c.play_started {
            f.play_started(g);
        }
        if c.arbiter {
            let a = $entity!(f, arbiter, Arbiter, "arbiter", 0);
            f.arbiter_of(g, a);
        }
        if c.both_moved {
            f.both_players_have_moved(g);
        }
        match c.draw_agreed {
            Tri::Yes => {
                f.draw_agreed(g);
            }
            Tri::No => {
                f.not_draw_agreed(g);
            }
            Tri::Unknown => {}
        }
        if c.dead_position {
            f.dead_position_arisen(g);
        }
        if c.stalemate {
            f.stalemate_arisen(g);
        }
        if c.checked_game {
            f.checked_game(g);
        }
        match c.en_passant {
            Tri::Yes => {
                f.en_passant_right_open(g);
            }
            Tri::No => {
                f.not_en_passant_right_open(g);
            }
            Tri::Unknown => {}
        }
        match c.move_meets {
            Tri::Yes => {
                f.move_meets_articles_3_1_to_3_9(g);
            }
            Tri::No => {
                f.not_move_meets_articles_3_1_to_3_9(g);
            }
            Tri::Unknown => {}
        }
        for k in 0..c.pawns as usize {
            f.capturing_pawn_on_adjacent_file(g, piece(PAWN0 + k));
        }
        if c.moves >= 0 {
            f.moves_by_each_without_pawn_or_capture(g, i64::from(c.moves));
        }
        if c.occurrences >= 0 {
            f.position_occurrence_count(g, i64::from(c.occurrences));
        }
        for (t, id) in TRANSITION_IDS.iter().enumerate() {
            if c.attempted & (1 << t) != 0 {
                f.attempted_transition(g, *id);
            }
        }
        if let Some(j) = c.situation {
            let s = $entity!(f, situation, Situation, "s", 0);
            match j {
                Judgment::Undecided => {}
                Judgment::Yes => {
                    f.decide_case_not_precisely_regulated(s, true);
                }
                Judgment::No => {
                    f.decide_case_not_precisely_regulated(s, false);
                }
            }
        }
        for (k, p) in c.players.iter().enumerate() {
            let who = players[k];
            if p.of_game {
                f.player_of(g, who);
            }
            if p.has_move {
                f.player_has_the_move(g, who);
            }
            if p.resigned {
                f.player_resigned(who);
            }
            if p.claimed_draw {
                f.draw_claimed(who);
            }
            if p.mates {
                f.checkmate_delivered(g, who);
            }
            match p.cannot_be_mated {
                Tri::Yes => {
                    f.king_cannot_be_checkmated(who);
                }
                Tri::No => {
                    f.not_king_cannot_be_checkmated(who);
                }
                Tri::Unknown => {}
            }
            if p.checked {
                f.checked_player(who);
            }
            if p.illegal_moves >= 0 {
                f.completed_illegal_move_count(who, i64::from(p.illegal_moves));
            }
            if p.king_of {
                f.king_of(who, piece(k));
            }
            piece_moved(f, pieces[k], p.king_moved, p.king_checked);
        }
        for (s, side) in c.sides.iter().enumerate() {
            let who = players[s / 2];
            if side.rook_of {
                f.rook_of(who, piece(ROOK0 + s));
            }
            piece_moved(f, pieces[ROOK0 + s], side.rook_moved, side.rook_checked);
            let named = side.present
                || side.blocked != Tri::Unknown
                || side.attacked != Tri::Unknown
                || side.checked;
            if !named {
                continue;
            }
            let cs = $entity!(f, castling_side, CastlingSide, SIDES[s], s);
            if side.present {
                f.castling_side_of(g, who, cs, piece(ROOK0 + s));
            }
            match side.blocked {
                Tri::Yes => {
                    f.castling_path_blocked(cs);
                }
                Tri::No => {
                    f.not_castling_path_blocked(cs);
                }
                Tri::Unknown => {}
            }
            match side.attacked {
                Tri::Yes => {
                    f.castling_path_attacked(cs);
                }
                Tri::No => {
                    f.not_castling_path_attacked(cs);
                }
                Tri::Unknown => {}
            }
            if side.checked {
                f.checked_castling_side(cs);
            }
        }
        for t in c.touches.iter().filter(|t| t.present) {
            let who = players[t.who as usize];
            let p = piece(t.piece as usize);
            if t.own {
                f.own_piece_of(who, p);
            }
            if t.can_move {
                f.piece_can_be_moved(p);
            }
            match t.intent {
                Judgment::Undecided => {}
                Judgment::Yes => {
                    f.decide_piece_touched_intentionally(who, p, true);
                }
                Judgment::No => {
                    f.decide_piece_touched_intentionally(who, p, false);
                }
            }
        }
    }};
}

macro_rules! facts_adapter {
    ($(#[$doc:meta])* $name:ident, $m:ident) => {
        $(#[$doc])*
        pub fn $name(c: &ChessCase) -> crate::$m::Facts {
            let mut facts = crate::$m::Facts::new();
            adapter_body!(c, (&mut facts), $m, Facts, named_entity);
            facts
        }
    };
}

macro_rules! case_adapter {
    ($(#[$doc:meta])* $name:ident, $m:ident) => {
        $(#[$doc])*
        pub fn $name(c: &ChessCase, case: &mut crate::$m::Case) {
            adapter_body!(c, case, $m, Case, nameless_entity);
        }
    };
}

facts_adapter!(
    /// The case as the generated module's typed facts. (This is part of what
    /// the generated code's throughput measures: interning names, pushing rows.)
    to_facts,
    fide_laws_chess
);
facts_adapter!(
    /// [`to_facts`] for the module of the Direct engine (the same API).
    to_facts_direct,
    fide_laws_chess_direct
);
#[cfg(feature = "overlay-variants")]
facts_adapter!(
    /// [`to_facts`] for the variant with no priority and strict rules only.
    to_facts_strict,
    fide_laws_chess_strict
);
#[cfg(feature = "overlay-variants")]
facts_adapter!(
    /// [`to_facts`] for the variant with no contested predicate.
    to_facts_uncontested,
    fide_laws_chess_uncontested
);
case_adapter!(
    /// The case as the generated module's nameless `Case`: entities are
    /// indexes (`Game::from_index(0)`, the pieces by their index in
    /// [`PIECES`], …), declared as the named adapter declares them, and
    /// the same rows follow. (What the fast path's throughput measures:
    /// pushing rows, no names.)
    fill_case,
    fide_laws_chess
);
case_adapter!(
    /// [`fill_case`] for the module of the Direct engine.
    fill_case_direct,
    fide_laws_chess_direct
);

/// Rows of a facts file under construction, keyed by literal (`p`, `~p`).
#[derive(Default)]
struct Json {
    rows: std::collections::BTreeMap<String, Vec<String>>,
}

impl Json {
    fn row(&mut self, lit: &str, args: &[&str]) {
        let mut s = String::from("[");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            if a.parse::<i64>().is_ok() {
                s.push_str(a);
            } else {
                let _ = write!(s, "\"{a}\"");
            }
        }
        s.push(']');
        self.rows.entry(lit.to_owned()).or_default().push(s);
    }
    fn tri(&mut self, pred: &str, t: Tri, args: &[&str]) {
        match t {
            Tri::Yes => self.row(pred, args),
            Tri::No => self.row(&format!("~{pred}"), args),
            Tri::Unknown => {}
        }
    }
}

/// The case as a facts file (docs/reference.md#facts-files): the same facts as [`to_facts`], and the
/// same declared entities (players, pieces, the situation).
pub fn to_json(c: &ChessCase) -> String {
    let mut j = Json::default();
    let used = c.pieces();
    if c.procedure_instance {
        j.row("procedure_instance", &["g"]);
    }
    if c.play_started {
        j.row("play_started", &["g"]);
    }
    if c.arbiter {
        j.row("arbiter_of", &["g", "arbiter"]);
    }
    if c.both_moved {
        j.row("both_players_have_moved", &["g"]);
    }
    j.tri("draw_agreed", c.draw_agreed, &["g"]);
    if c.dead_position {
        j.row("dead_position_arisen", &["g"]);
    }
    if c.stalemate {
        j.row("stalemate_arisen", &["g"]);
    }
    if c.checked_game {
        j.row("checked_game", &["g"]);
    }
    j.tri("en_passant_right_open", c.en_passant, &["g"]);
    j.tri("move_meets_articles_3_1_to_3_9", c.move_meets, &["g"]);
    for k in 0..c.pawns as usize {
        j.row("capturing_pawn_on_adjacent_file", &["g", PIECES[PAWN0 + k]]);
    }
    let moves = c.moves.to_string();
    if c.moves >= 0 {
        j.row("moves_by_each_without_pawn_or_capture", &["g", &moves]);
    }
    let occurrences = c.occurrences.to_string();
    if c.occurrences >= 0 {
        j.row("position_occurrence_count", &["g", &occurrences]);
    }
    for (t, name) in TRANSITIONS.iter().enumerate() {
        if c.attempted & (1 << t) != 0 {
            j.row("attempted_transition", &["g", name]);
        }
    }
    match c.situation {
        Some(Judgment::Yes) => j.row("case_not_precisely_regulated", &["s"]),
        Some(Judgment::No) => j.row("~case_not_precisely_regulated", &["s"]),
        _ => {}
    }
    let counts: Vec<String> = c
        .players
        .iter()
        .map(|p| p.illegal_moves.to_string())
        .collect();
    for (k, p) in c.players.iter().enumerate() {
        let who = PLAYERS[k];
        if p.of_game {
            j.row("player_of", &["g", who]);
        }
        if p.has_move {
            j.row("player_has_the_move", &["g", who]);
        }
        if p.resigned {
            j.row("player_resigned", &[who]);
        }
        if p.claimed_draw {
            j.row("draw_claimed", &[who]);
        }
        if p.mates {
            j.row("checkmate_delivered", &["g", who]);
        }
        j.tri("king_cannot_be_checkmated", p.cannot_be_mated, &[who]);
        if p.checked {
            j.row("checked_player", &[who]);
        }
        if p.illegal_moves >= 0 {
            j.row("completed_illegal_move_count", &[who, &counts[k]]);
        }
        if p.king_of {
            j.row("king_of", &[who, PIECES[k]]);
        }
        if used & (1 << k) != 0 {
            j.tri("piece_has_moved", p.king_moved, &[PIECES[k]]);
            if p.king_checked {
                j.row("checked_piece", &[PIECES[k]]);
            }
        }
    }
    for (s, side) in c.sides.iter().enumerate() {
        let who = PLAYERS[s / 2];
        let rook = PIECES[ROOK0 + s];
        if side.rook_of {
            j.row("rook_of", &[who, rook]);
        }
        if used & (1 << (ROOK0 + s)) != 0 {
            j.tri("piece_has_moved", side.rook_moved, &[rook]);
            if side.rook_checked {
                j.row("checked_piece", &[rook]);
            }
        }
        if side.present {
            j.row("castling_side_of", &["g", who, SIDES[s], rook]);
        }
        j.tri("castling_path_blocked", side.blocked, &[SIDES[s]]);
        j.tri("castling_path_attacked", side.attacked, &[SIDES[s]]);
        if side.checked {
            j.row("checked_castling_side", &[SIDES[s]]);
        }
    }
    for t in c.touches.iter().filter(|t| t.present) {
        let who = PLAYERS[t.who as usize];
        let p = PIECES[t.piece as usize];
        if t.own {
            j.row("own_piece_of", &[who, p]);
        }
        if t.can_move {
            j.row("piece_can_be_moved", &[p]);
        }
        match t.intent {
            Judgment::Yes => j.row("piece_touched_intentionally", &[who, p]),
            Judgment::No => j.row("~piece_touched_intentionally", &[who, p]),
            Judgment::Undecided => {}
        }
    }

    let mut out = String::from("{\"entities\":{\"Player\":[\"white\",\"black\"],\"Piece\":[");
    let mut first = true;
    for (k, name) in PIECES.iter().enumerate() {
        if used & (1 << k) != 0 {
            if !first {
                out.push(',');
            }
            first = false;
            let _ = write!(out, "\"{name}\"");
        }
    }
    out.push(']');
    if c.situation.is_some() {
        out.push_str(",\"Situation\":[\"s\"]");
    }
    out.push_str("},\"facts\":{");
    for (i, (lit, rows)) in j.rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{lit}\":[{}]", rows.join(","));
    }
    out.push_str("}}");
    out
}
