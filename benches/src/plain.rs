//! The chess package's 47 rules written by hand in plain Rust, for one game:
//! the practical limit a compiled rule engine can approach.
//!
//! Written from the package's rules (not from lawgen's lowered program), under
//! The semantics of docs/reference.md#what-a-package-means restricted to what the package uses:
//!
//! * Strict rules whose bodies are facts (or conclusions of such rules) are
//!   plain boolean conditions: +Δ = +∂ = +Σ.
//! * Closures (docs/reference.md#closures) make "not stated and in the checked domain" an
//!   explicit negative: [`Tri::negated`].
//! * `game_drawn` is the one contested predicate. Eight strict rules and the
//!   defeasible `SeventyFiveAutomaticDraw` support it; the defeasible
//!   `CheckmateTakesPrecedenceOverSeventyFive` supports `~game_drawn` and beats
//!   the 75-move rule (the package's one priority). So `game_drawn` is +∂ when
//!   a strict rule applies (+Δ) or the 75-move rule applies and no checkmate
//!   was delivered; `~game_drawn` is +∂ when a checkmate was delivered and no
//!   strict rule for `game_drawn` applies (those are +Δ and beaten by
//!   nothing); `game_drawn` is +Σ when any of its rules applies. Every body
//!   here is made of facts, so both conflict policies give the same answers.
//! * The game-play state machine reads `entered_state` and `valid_transition`
//!   as *supported* items: `entered_state` holds (+Δ) as soon as the
//!   transition that enters the state is +Σ, and `ConcludeByDrawnClaim` is
//!   +∂ / +Σ exactly when `game_drawn` is.
//! * Judgments (docs/reference.md#undecided-judgments): an undecided atom holds in neither direction in
//!   the certain model, so what depends on it is pending, not concluded; only
//!   a decided "yes" concludes.
//!
//! The output is what the generated `Conclusions::concluded_counts()` gives:
//! for each institutional literal `p` / `~p`, the number of tuples that are
//! +∂ (concluded) in the certain model. It allocates nothing.

use crate::cases::{ChessCase, Judgment, Tri, T_CONCLUDE0, T_MOVE, T_START};

/// The institutional literals, in the order of the generated
/// `Conclusions::concluded_counts()`.
pub const LITERALS: [&str; 40] = [
    "agreed_draw_has_ended_the_game",
    "~agreed_draw_has_ended_the_game",
    "arbiter_competent_to_decide",
    "~arbiter_competent_to_decide",
    "arbiter_shall_see_laws_observed",
    "~arbiter_shall_see_laws_observed",
    "castling_legal",
    "~castling_legal",
    "checkmate_has_been_delivered",
    "~checkmate_has_been_delivered",
    "dead_position_has_ended_the_game",
    "~dead_position_has_ended_the_game",
    "en_passant_capture_legal",
    "~en_passant_capture_legal",
    "entered_state",
    "~entered_state",
    "fifty_move_claim_correct",
    "~fifty_move_claim_correct",
    "game_drawn",
    "~game_drawn",
    "game_lost_by",
    "~game_lost_by",
    "game_won_by",
    "~game_won_by",
    "illegal_move",
    "~illegal_move",
    "legal_move",
    "~legal_move",
    "must_move_first_touched_piece",
    "~must_move_first_touched_piece",
    "resignation_has_ended_the_game",
    "~resignation_has_ended_the_game",
    "second_illegal_move_has_ended_the_game",
    "~second_illegal_move_has_ended_the_game",
    "stalemate_has_ended_the_game",
    "~stalemate_has_ended_the_game",
    "threefold_claim_correct",
    "~threefold_claim_correct",
    "valid_transition",
    "~valid_transition",
];

/// Concluded tuples per literal of [`LITERALS`].
pub type Counts = [u32; 40];

const AGREED_DRAW_HAS_ENDED: usize = 0;
const ARBITER_COMPETENT: usize = 2;
const ARBITER_SHALL_SEE: usize = 4;
const CASTLING_LEGAL: usize = 6;
const CHECKMATE_DELIVERED: usize = 8;
const DEAD_POSITION_HAS_ENDED: usize = 10;
const EN_PASSANT_LEGAL: usize = 12;
const ENTERED_STATE: usize = 14;
const FIFTY_MOVE_CLAIM: usize = 16;
const GAME_DRAWN: usize = 18;
const NOT_GAME_DRAWN: usize = 19;
const GAME_LOST_BY: usize = 20;
const GAME_WON_BY: usize = 22;
const ILLEGAL_MOVE: usize = 24;
const LEGAL_MOVE: usize = 26;
const MUST_MOVE_TOUCHED: usize = 28;
const RESIGNATION_HAS_ENDED: usize = 30;
const SECOND_ILLEGAL_HAS_ENDED: usize = 32;
const STALEMATE_HAS_ENDED: usize = 34;
const THREEFOLD_CLAIM: usize = 36;
const VALID_TRANSITION: usize = 38;

/// The package's rules, for coverage reports ([`rules_applicable`]).
pub const RULES: [&str; 47] = [
    "AgreedDraw",
    "AgreedDrawEndsTheGame",
    "ArbiterSeesLawsObserved",
    "CastlingLegal",
    "CheckmateEndsTheGame",
    "CheckmateTakesPrecedenceOverSeventyFive",
    "CheckmateWins",
    "DeadPositionDraws",
    "DeadPositionEndsTheGame",
    "EnPassantCaptureLegal",
    "FiftyMoveClaimCorrect",
    "FiftyMoveClaimDraws",
    "FivefoldAutomaticDraw",
    "GamePlay/StartPlay/valid",
    "GamePlay/PlayMove/valid",
    "GamePlay/ConcludeByAgreement/valid",
    "GamePlay/ConcludeByCheckmate/valid",
    "GamePlay/ConcludeByDeadPosition/valid",
    "GamePlay/ConcludeByDrawnClaim/valid",
    "GamePlay/ConcludeByResignation/valid",
    "GamePlay/ConcludeBySecondIllegalMove/valid",
    "GamePlay/ConcludeByStalemate/valid",
    "GamePlay/StartPlay/enters",
    "GamePlay/PlayMove/enters",
    "GamePlay/ConcludeByAgreement/enters",
    "GamePlay/ConcludeByCheckmate/enters",
    "GamePlay/ConcludeByDeadPosition/enters",
    "GamePlay/ConcludeByDrawnClaim/enters",
    "GamePlay/ConcludeByResignation/enters",
    "GamePlay/ConcludeBySecondIllegalMove/enters",
    "GamePlay/ConcludeByStalemate/enters",
    "GamePlay/initial",
    "MoveIsIllegal",
    "MoveIsLegal",
    "MustMoveFirstTouchedPiece",
    "ResignationDrawnIfMateImpossible",
    "ResignationEndsTheGame",
    "ResignationLoses",
    "SecondIllegalMoveDrawnIfMateImpossible",
    "SecondIllegalMoveEndsTheGame",
    "SecondIllegalMoveLoses",
    "SeventyFiveAutomaticDraw",
    "StalemateDraws",
    "StalemateEndsTheGame",
    "ThreefoldClaimCorrect",
    "ThreefoldClaimDraws",
    "UnregulatedCaseDecidedByArbiter",
];

// Indices into RULES of the rules whose applicability is recorded in a loop.
const R_VALID0: usize = 13;
const R_ENTERS0: usize = 22;

/// The concluded counts of one game.
#[inline]
pub fn evaluate(c: &ChessCase) -> Counts {
    eval::<false>(c, &mut 0)
}

/// Which rules of [`RULES`] are applicable (every body item satisfied in the
/// certain model, at the +Σ level: a rule that is applicable but defeated
/// counts) on this game, as a bit set. For coverage reports.
pub fn rules_applicable(c: &ChessCase) -> u64 {
    let mut fired = 0;
    eval::<true>(c, &mut fired);
    fired
}

#[inline(always)]
fn eval<const TRACE: bool>(c: &ChessCase, fired: &mut u64) -> Counts {
    let mut n: Counts = [0; 40];
    let mut rule = |r: &str, applies: bool| -> bool {
        if TRACE && applies {
            let i = RULES.iter().position(|x| *x == r).expect("a rule name");
            *fired |= 1 << i;
        }
        applies
    };
    let [w, b] = &c.players;
    let any_to_move = w.has_move || b.has_move;

    // Art. 5.2.3: an agreed draw (both players have moved) ends the game.
    let agreed = c.both_moved && c.draw_agreed == Tri::Yes;
    rule("AgreedDrawEndsTheGame", agreed);
    n[AGREED_DRAW_HAS_ENDED] = agreed as u32;

    // Art. 12.1 / 12.2: the arbiter decides what is not precisely regulated
    // (a judgment: concluded only once decided yes).
    let unregulated = c.situation == Some(Judgment::Yes);
    rule("UnregulatedCaseDecidedByArbiter", unregulated);
    n[ARBITER_COMPETENT] = unregulated as u32;

    let sees = c.arbiter && c.play_started;
    rule("ArbiterSeesLawsObserved", sees);
    n[ARBITER_SHALL_SEE] = sees as u32;

    // Art. 3.8.2: castling, per side of the player to move: king and rook
    // unmoved, path neither blocked nor attacked.
    let mut castling = 0;
    for (s, side) in c.sides.iter().enumerate() {
        let p = &c.players[s / 2];
        let legal = side.present
            && p.king_of
            && p.king_moved.negated(p.king_checked)
            && side.rook_of
            && side.rook_moved.negated(side.rook_checked)
            && side.blocked.negated(side.checked)
            && side.attacked.negated(side.checked)
            && p.has_move;
        castling += rule("CastlingLegal", legal) as u32;
    }
    n[CASTLING_LEGAL] = castling;

    // Art. 5.1.1: checkmate wins and ends the game.
    let mate = w.mates || b.mates;
    rule("CheckmateEndsTheGame", mate);
    n[CHECKMATE_DELIVERED] = mate as u32;
    n[GAME_WON_BY] = rule("CheckmateWins", w.mates) as u32 + rule("CheckmateWins", b.mates) as u32;

    let dead = c.dead_position;
    rule("DeadPositionEndsTheGame", dead);
    n[DEAD_POSITION_HAS_ENDED] = dead as u32;

    // Art. 3.7.3.1: en passant, for each pawn that can capture.
    let en_passant = c.en_passant == Tri::Yes && any_to_move;
    rule("EnPassantCaptureLegal", en_passant && c.pawns > 0);
    n[EN_PASSANT_LEGAL] = if en_passant { u32::from(c.pawns) } else { 0 };

    // Art. 9.2 / 9.3: claims by the player to move.
    let fifty = [
        c.moves >= 50 && w.claimed_draw && w.has_move,
        c.moves >= 50 && b.claimed_draw && b.has_move,
    ];
    let threefold = [
        c.occurrences >= 3 && w.claimed_draw && w.has_move,
        c.occurrences >= 3 && b.claimed_draw && b.has_move,
    ];
    n[FIFTY_MOVE_CLAIM] = rule("FiftyMoveClaimCorrect", fifty[0]) as u32
        + rule("FiftyMoveClaimCorrect", fifty[1]) as u32;
    n[THREEFOLD_CLAIM] = rule("ThreefoldClaimCorrect", threefold[0]) as u32
        + rule("ThreefoldClaimCorrect", threefold[1]) as u32;

    // Art. 5.1.2 / 7.5.5: resignation and a second illegal move end the game;
    // they lose, or draw when the player's king cannot be checkmated.
    let resigned = [w.of_game && w.resigned, b.of_game && b.resigned];
    let second_illegal = [
        w.of_game && w.illegal_moves >= 2,
        b.of_game && b.illegal_moves >= 2,
    ];
    let resignation_ends = resigned[0] || resigned[1];
    rule("ResignationEndsTheGame", resignation_ends);
    n[RESIGNATION_HAS_ENDED] = resignation_ends as u32;
    let illegal_ends = second_illegal[0] || second_illegal[1];
    rule("SecondIllegalMoveEndsTheGame", illegal_ends);
    n[SECOND_ILLEGAL_HAS_ENDED] = illegal_ends as u32;
    let mut resignation_draws = false;
    let mut illegal_draws = false;
    let mut lost = 0;
    for (k, p) in c.players.iter().enumerate() {
        let cannot = p.cannot_be_mated == Tri::Yes;
        let can = p.cannot_be_mated.negated(p.checked);
        resignation_draws |= rule("ResignationDrawnIfMateImpossible", resigned[k] && cannot);
        illegal_draws |= rule(
            "SecondIllegalMoveDrawnIfMateImpossible",
            second_illegal[k] && cannot,
        );
        let by_resignation = rule("ResignationLoses", resigned[k] && can);
        let by_illegal = rule("SecondIllegalMoveLoses", second_illegal[k] && can);
        lost += (by_resignation || by_illegal) as u32;
    }
    n[GAME_LOST_BY] = lost;

    let stalemate = c.stalemate;
    rule("StalemateEndsTheGame", stalemate);
    n[STALEMATE_HAS_ENDED] = stalemate as u32;

    // Art. 3.10: legal and illegal moves (the latter needs the closure).
    let legal = c.move_meets == Tri::Yes;
    rule("MoveIsLegal", legal);
    n[LEGAL_MOVE] = legal as u32;
    let illegal = c.checked_game && c.move_meets.negated(c.checked_game);
    rule("MoveIsIllegal", illegal);
    n[ILLEGAL_MOVE] = illegal as u32;

    // Art. 4.3.1: touch-move, once the arbiter decided the touch intentional.
    let mut must_move = 0;
    for t in &c.touches {
        let applies = t.present
            && t.intent == Judgment::Yes
            && t.own
            && t.can_move
            && c.players[t.who as usize].has_move;
        must_move += rule("MustMoveFirstTouchedPiece", applies) as u32;
    }
    n[MUST_MOVE_TOUCHED] = must_move;

    // game_drawn, the contested predicate.
    let strict_draw = rule("AgreedDraw", agreed)
        | rule("DeadPositionDraws", dead)
        | rule("FiftyMoveClaimDraws", fifty[0] || fifty[1])
        | rule("FivefoldAutomaticDraw", c.occurrences >= 5)
        | rule("ResignationDrawnIfMateImpossible", resignation_draws)
        | rule("SecondIllegalMoveDrawnIfMateImpossible", illegal_draws)
        | rule("StalemateDraws", stalemate)
        | rule("ThreefoldClaimDraws", threefold[0] || threefold[1]);
    let seventy_five = rule("SeventyFiveAutomaticDraw", c.moves >= 75);
    rule("CheckmateTakesPrecedenceOverSeventyFive", mate);
    let drawn = strict_draw || (seventy_five && !mate); // +∂
    let drawn_supported = strict_draw || seventy_five; // +Σ
    n[GAME_DRAWN] = drawn as u32;
    n[NOT_GAME_DRAWN] = (mate && !strict_draw) as u32;

    // The game-play state machine (Art. 1, 5, 9): transitions are valid from
    // a state that is at least supported; a valid (even merely supported)
    // transition enters its target state.
    let attempted = |t: usize| c.attempted & (1 << t) != 0;
    let not_started = rule("GamePlay/initial", c.procedure_instance);
    let start = attempted(T_START) && not_started && c.play_started;
    let playing = rule("GamePlay/StartPlay/valid", start);
    rule("GamePlay/StartPlay/enters", playing);
    // PlayMove needs Playing already, so it adds nothing to Playing's
    // least fixpoint.
    let play_move = rule(
        "GamePlay/PlayMove/valid",
        attempted(T_MOVE) && playing && legal,
    );
    rule("GamePlay/PlayMove/enters", play_move);
    // Agreement, checkmate, dead position, drawn claim, resignation, second
    // illegal move, stalemate: (condition +Σ, condition +∂).
    let conditions = [
        (agreed, agreed),
        (mate, mate),
        (dead, dead),
        (drawn_supported, drawn),
        (resignation_ends, resignation_ends),
        (illegal_ends, illegal_ends),
        (stalemate, stalemate),
    ];
    let mut ended = false;
    let mut valid = start as u32 + play_move as u32;
    for (k, (supported, established)) in conditions.into_iter().enumerate() {
        let open = attempted(T_CONCLUDE0 + k) && playing;
        let applies = rule(RULES[R_VALID0 + 2 + k], open && supported);
        ended |= rule(RULES[R_ENTERS0 + 2 + k], applies);
        valid += (open && established) as u32;
    }
    n[VALID_TRANSITION] = valid;
    n[ENTERED_STATE] = not_started as u32 + playing as u32 + ended as u32;
    n
}

/// Adds `b` into `a`.
pub fn add(a: &mut [u64; 40], b: &Counts) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += u64::from(*y);
    }
}
