//! A tournament arbiter's assistant built on the FIDE Laws of Chess, compiled
//! by lawgen from `build.rs` into the typed module [`fide_laws_chess`].
//!
//! [`evaluate`] runs the compiled (ascent) program on a facts file;
//! [`findings`] walks every institutional predicate through the typed API —
//! the `*_all()` iterators, the verdict functions and the `explain_*`
//! methods — and [`render`] prints what an arbiter reads.

lawgen_runtime::include_package!(fide_laws_chess);
lawgen_runtime::include_package!(ru_chess_competition);

use fide_laws_chess::{
    Arbiter, CastlingSide, Conclusions, Facts, Game, GamePlayState, GamePlayTransition, Piece,
    Player, Situation,
};
use lawgen_runtime::program::{Section, Value};
use lawgen_runtime::{Error, Explanation, Policy, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A scenario bundled into the binary.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
    /// The facts file (docs/reference.md#facts-files).
    pub facts: &'static str,
}

macro_rules! scenarios {
    ($($name:literal: $description:literal;)*) => {
        /// Every bundled scenario, in the order `--list` shows them.
        pub const SCENARIOS: &[Scenario] = &[$(Scenario {
            name: $name,
            description: $description,
            facts: include_str!(concat!("../scenarios/", $name, ".facts.json")),
        }),*];
    };
}

scenarios! {
    "checkmate": "White checkmates Black: the game is won (Art. 5.1.1)";
    "seventy-five-move-draw": "75 moves by each player without a pawn move or capture: drawn automatically (Art. 9.6.2)";
    "checkmate-at-move-75": "Checkmate delivered on the 75th move: the checkmate takes precedence over the 75-move draw (Art. 9.6.2)";
    "stalemate": "The player to move has no legal move and is not in check: drawn (Art. 5.2.1)";
    "resignation-opponent-can-mate": "Black resigns and White could still checkmate: Black loses (Art. 5.1.2)";
    "resignation-opponent-cannot-mate": "Black resigns but White cannot checkmate by any series of legal moves: drawn (Art. 5.1.2)";
    "castling-legal": "King and both rooks unmoved, paths clear and not attacked: castling legal on both sides (Art. 3.8.2)";
    "castling-blocked": "A piece stands between king and queenside rook: castling legal on the kingside only (Art. 3.8.2.2)";
    "touched-piece-pending": "White may have touched the knight: the touch-move duty is pending the arbiter's judgment (Art. 4.3.1)";
}

/// Scenarios of the Russian competition rules (`--package ru`).
pub const RU_SCENARIOS: &[Scenario] = &[Scenario {
    name: "ru-seventy-five-moves",
    description: "75 moves by each player without a pawn move or capture: the competition rules know no automatic 75-move draw (Art. 9.6), so the FIDE rule is set aside",
    facts: include_str!("../scenarios/ru-seventy-five-moves.facts.json"),
}];

/// The bundled scenario called `name` (of either package).
pub fn scenario(name: &str) -> Option<&'static Scenario> {
    SCENARIOS
        .iter()
        .chain(RU_SCENARIOS)
        .find(|s| s.name == name)
}

/// The report for the Russian competition rules, explained in `lang`
/// (`ru` or `en`): every institutional literal that is concluded, pending
/// or only supported, through the generic API (`concluded_counts` names the
/// institutional literals, `explain_in` explains one by its text). Each step
/// of an explanation names the layer of the law — the FIDE Laws or the
/// competition rules — that decided it.
pub fn render_competition(
    title: &str,
    facts_json: &[u8],
    policy: Policy,
    lang: &str,
) -> Result<String, Error> {
    let c = ru_chess_competition::Facts::from_json(facts_json)?.evaluate(policy)?;
    let institutional: BTreeSet<&str> = c.concluded_counts().iter().map(|(l, _)| *l).collect();
    let canonical = c.to_canonical()?;
    let mut out = format!(
        "{} ({} {}, imports fide.laws.chess 0.1.0), policy: {}\n{title}\n",
        if lang == "ru" {
            "Правила соревнований по шахматам"
        } else {
            "Russian chess competition rules"
        },
        ru_chess_competition::PACKAGE_NAME,
        ru_chess_competition::PACKAGE_VERSION,
        policy.as_str()
    );
    let mut seen = BTreeSet::new();
    for section in [Section::Defeasibly, Section::Pending, Section::Supported] {
        let Some(lits) = canonical.sections.get(&section) else {
            continue;
        };
        for (lit, rows) in lits {
            if !institutional.contains(lit.as_str()) {
                continue;
            }
            for row in rows {
                let args: Vec<String> = row
                    .iter()
                    .map(|v| match v {
                        Value::Entity(s) => format!("{s:?}"),
                        Value::Int(i) => i.to_string(),
                    })
                    .collect();
                let query = format!("{lit}({})", args.join(", "));
                if seen.insert(query.clone()) {
                    out.push('\n');
                    out.push_str(&c.explain_in(&query, lang)?.text());
                }
            }
        }
    }
    if seen.is_empty() {
        out.push_str("\nThe rules conclude nothing on these facts.\n");
    }
    Ok(out)
}

/// Reads a facts file and evaluates it with the compiled program.
/// The facts are returned too: they name the entities of the conclusions.
pub fn evaluate(facts_json: &[u8], policy: Policy) -> Result<(Facts, Conclusions), Error> {
    let facts = Facts::from_json(facts_json)?;
    let conclusions = facts.evaluate(policy)?;
    Ok((facts, conclusions))
}

/// One institutional literal that is concluded, pending or only supported.
pub struct Finding {
    /// The predicate's local name (`game_drawn`).
    pub predicate: &'static str,
    /// `~game_drawn(...)` rather than `game_drawn(...)`.
    pub negative: bool,
    /// Entity names, in argument order.
    pub args: Vec<String>,
    pub verdict: Verdict,
    pub explanation: Explanation,
}

impl Finding {
    /// The literal as text: `~game_drawn(g1)`.
    pub fn literal(&self) -> String {
        format!(
            "{}{}({})",
            if self.negative { "~" } else { "" },
            self.predicate,
            self.args.join(", ")
        )
    }

    /// The labels (article and summary) of the rules at the top of the
    /// explanation: the rules that conclude, or support, the literal.
    pub fn articles(&self) -> Vec<String> {
        let mut labels: Vec<String> = Vec::new();
        for rule in self.explanation.deciding_rules() {
            let l = rule.label.as_deref().unwrap_or(&rule.name);
            if !labels.iter().any(|x| x == l) {
                labels.push(l.to_owned());
            }
        }
        labels
    }
}

fn entity_name<E: lawgen_runtime::Entity>(c: &Conclusions, e: E) -> String {
    c.name(e).unwrap_or("?").to_owned()
}

/// Rows of the canonical output's `pending` and `supported` sections, by
/// literal (`game_drawn`, `~game_drawn`): the typed `*_all()` iterators list
/// only concluded tuples.
type Index = BTreeMap<String, BTreeSet<Vec<String>>>;

fn index(c: &Conclusions) -> Result<Index, Error> {
    let canonical = c.to_canonical()?;
    let mut index = Index::new();
    for section in [Section::Pending, Section::Supported] {
        for (literal, rows) in canonical.sections.get(&section).into_iter().flatten() {
            for row in rows {
                let args = row
                    .iter()
                    .map(|v| match v {
                        Value::Entity(s) => s.clone(),
                        Value::Int(i) => i.to_string(),
                    })
                    .collect();
                index.entry(literal.clone()).or_default().insert(args);
            }
        }
    }
    Ok(index)
}

/// Collects the findings of one literal (`p` or `~p`) of one predicate.
macro_rules! literal {
    ($c:ident, $index:ident, $out:ident; $pred:ident, $negative:expr,
     $verdict:ident, $all:ident, $explain:ident, ($($arg:ident: $ty:ident),+)) => {{
        let (c, index, out) = ($c, &$index, &mut $out);
        let key = if $negative { concat!("~", stringify!($pred)) } else { stringify!($pred) };
        let mut rows = index.get(key).cloned().unwrap_or_default();
        for ($($arg,)+) in c.$all() {
            rows.insert(vec![$(entity_name(c, $arg)),+]);
        }
        for row in rows {
            let mut names = row.iter();
            $(
                let name = names.next().map_or("", String::as_str);
                // Every name in the conclusions is one of their entities.
                let Some($arg) = c.get::<$ty>(name) else { continue };
            )+
            let verdict = c.$verdict($($arg),+);
            if verdict == Verdict::NotConcluded {
                continue;
            }
            let explanation = c.$explain($($arg),+)?;
            out.push(Finding {
                predicate: stringify!($pred),
                negative: $negative,
                args: row,
                verdict,
                explanation,
            });
        }
    }};
}

/// The institutional predicates of the package, in the order an arbiter reads
/// them: results first, then how the game ended, claims, moves, duties, the
/// game-play state machine.
macro_rules! institutional {
    ($($pred:ident / $not:ident ($($arg:ident: $ty:ident),+)
        all $all:ident / $not_all:ident explain $ex:ident / $not_ex:ident;)*) => {
        /// The institutional predicates [`findings`] covers, in report order.
        pub const INSTITUTIONAL: &[&str] = &[$(stringify!($pred)),*];

        /// Every institutional literal that is concluded, pending or only
        /// supported, with its typed verdict and explanation.
        pub fn findings(c: &Conclusions) -> Result<Vec<Finding>, Error> {
            let index = index(c)?;
            let mut out = Vec::new();
            $(
                literal!(c, index, out; $pred, false, $pred, $all, $ex,
                    ($($arg: $ty),+));
                literal!(c, index, out; $pred, true, $not, $not_all, $not_ex,
                    ($($arg: $ty),+));
            )*
            Ok(out)
        }
    };
}

institutional! {
    game_won_by / not_game_won_by (game: Game, who: Player)
        all game_won_by_all / not_game_won_by_all
        explain explain_game_won_by / explain_not_game_won_by;
    game_lost_by / not_game_lost_by (game: Game, who: Player)
        all game_lost_by_all / not_game_lost_by_all
        explain explain_game_lost_by / explain_not_game_lost_by;
    game_drawn / not_game_drawn (game: Game)
        all game_drawn_all / not_game_drawn_all
        explain explain_game_drawn / explain_not_game_drawn;
    checkmate_has_been_delivered / not_checkmate_has_been_delivered (game: Game)
        all checkmate_has_been_delivered_all / not_checkmate_has_been_delivered_all
        explain explain_checkmate_has_been_delivered / explain_not_checkmate_has_been_delivered;
    stalemate_has_ended_the_game / not_stalemate_has_ended_the_game (game: Game)
        all stalemate_has_ended_the_game_all / not_stalemate_has_ended_the_game_all
        explain explain_stalemate_has_ended_the_game / explain_not_stalemate_has_ended_the_game;
    dead_position_has_ended_the_game / not_dead_position_has_ended_the_game (game: Game)
        all dead_position_has_ended_the_game_all / not_dead_position_has_ended_the_game_all
        explain explain_dead_position_has_ended_the_game / explain_not_dead_position_has_ended_the_game;
    resignation_has_ended_the_game / not_resignation_has_ended_the_game (game: Game)
        all resignation_has_ended_the_game_all / not_resignation_has_ended_the_game_all
        explain explain_resignation_has_ended_the_game / explain_not_resignation_has_ended_the_game;
    agreed_draw_has_ended_the_game / not_agreed_draw_has_ended_the_game (game: Game)
        all agreed_draw_has_ended_the_game_all / not_agreed_draw_has_ended_the_game_all
        explain explain_agreed_draw_has_ended_the_game / explain_not_agreed_draw_has_ended_the_game;
    second_illegal_move_has_ended_the_game / not_second_illegal_move_has_ended_the_game (game: Game)
        all second_illegal_move_has_ended_the_game_all / not_second_illegal_move_has_ended_the_game_all
        explain explain_second_illegal_move_has_ended_the_game / explain_not_second_illegal_move_has_ended_the_game;
    threefold_claim_correct / not_threefold_claim_correct (game: Game, who: Player)
        all threefold_claim_correct_all / not_threefold_claim_correct_all
        explain explain_threefold_claim_correct / explain_not_threefold_claim_correct;
    fifty_move_claim_correct / not_fifty_move_claim_correct (game: Game, who: Player)
        all fifty_move_claim_correct_all / not_fifty_move_claim_correct_all
        explain explain_fifty_move_claim_correct / explain_not_fifty_move_claim_correct;
    legal_move / not_legal_move (game: Game)
        all legal_move_all / not_legal_move_all
        explain explain_legal_move / explain_not_legal_move;
    illegal_move / not_illegal_move (game: Game)
        all illegal_move_all / not_illegal_move_all
        explain explain_illegal_move / explain_not_illegal_move;
    castling_legal / not_castling_legal (game: Game, who: Player, side: CastlingSide)
        all castling_legal_all / not_castling_legal_all
        explain explain_castling_legal / explain_not_castling_legal;
    en_passant_capture_legal / not_en_passant_capture_legal (game: Game, pawn: Piece)
        all en_passant_capture_legal_all / not_en_passant_capture_legal_all
        explain explain_en_passant_capture_legal / explain_not_en_passant_capture_legal;
    must_move_first_touched_piece / not_must_move_first_touched_piece (who: Player, piece: Piece)
        all must_move_first_touched_piece_all / not_must_move_first_touched_piece_all
        explain explain_must_move_first_touched_piece / explain_not_must_move_first_touched_piece;
    arbiter_shall_see_laws_observed / not_arbiter_shall_see_laws_observed (arb: Arbiter, game: Game)
        all arbiter_shall_see_laws_observed_all / not_arbiter_shall_see_laws_observed_all
        explain explain_arbiter_shall_see_laws_observed / explain_not_arbiter_shall_see_laws_observed;
    arbiter_competent_to_decide / not_arbiter_competent_to_decide (situation: Situation)
        all arbiter_competent_to_decide_all / not_arbiter_competent_to_decide_all
        explain explain_arbiter_competent_to_decide / explain_not_arbiter_competent_to_decide;
    valid_transition / not_valid_transition (instance: Game, transition: GamePlayTransition)
        all valid_transition_all / not_valid_transition_all
        explain explain_valid_transition / explain_not_valid_transition;
    entered_state / not_entered_state (instance: Game, state: GamePlayState)
        all entered_state_all / not_entered_state_all
        explain explain_entered_state / explain_not_entered_state;
}

fn headline(v: &Verdict) -> &'static str {
    match v {
        Verdict::Definitely => "DEFINITELY",
        Verdict::Defeasibly => "DEFEASIBLY",
        Verdict::Pending(_) => "PENDING",
        Verdict::SupportedOnly => "SUPPORTED ONLY",
        Verdict::NotConcluded => "NOT CONCLUDED",
    }
}

/// The arbiter's report: every finding with its explanation, then the
/// judgments the authorities are asked to decide.
pub fn render(title: &str, c: &Conclusions, findings: &[Finding]) -> String {
    let package = &fide_laws_chess::PACKAGE;
    let mut out = format!(
        "FIDE Laws of Chess ({} {}), conflict policy: {}\n{title}\n",
        package.name,
        package.version,
        c.policy()
    );
    if findings.is_empty() {
        out.push_str("\nThe Laws conclude nothing on these facts.\n");
    }
    for f in findings {
        let articles = f.articles();
        let _ = write!(out, "\n{}: {}", f.literal(), headline(&f.verdict));
        if !articles.is_empty() {
            let _ = write!(out, " ({})", articles.join("; "));
        }
        out.push('\n');
        // The explanation's first line is its own headline; the tree follows.
        let text = f.explanation.text();
        out.push_str(text.split_once('\n').map_or("", |(_, tree)| tree));
    }
    let requests = c.requests();
    if requests.is_empty() {
        out.push_str("\nJudgment requests: none.\n");
    } else {
        out.push_str("\nJudgment requests (pending verdicts stay open until these are decided):\n");
        for r in requests {
            let args: Vec<String> = r.args.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "  {} must decide {}({}) [{}]",
                r.authority,
                r.predicate,
                args.join(", "),
                r.capability
            );
        }
    }
    out
}
