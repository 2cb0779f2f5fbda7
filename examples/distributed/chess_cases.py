"""Synthetic chess games in the facts layout of lawgen's Python modules.

A port of the bench generator (benches/src/cases.rs): case i of a seed is
drawn from a splitmix64 stream seeded by the seed and i alone, so any
partition can be written on its own, in any process, and always holds the
same games. Each game has two players, kings, rooks with castling sides
(blocked, attacked, moved: stated, explicitly negated or closed), pawns that
may capture en passant, move counts around 75, an ending drawn from ten kinds,
attempted state-machine transitions, touched pieces with the arbiter's
judgment undecided / yes / no, and an unregulated situation.

`partition(seed, first, count)` returns the facts of games first..first+count
as a pyarrow.RecordBatch: columns case, predicate (dictionary-encoded), e0..e3,
n0..n3 (see docs/python.md).
"""

import pyarrow as pa

M = (1 << 64) - 1
SEED = 0x5EED_C4E5_5000_0005
ARITY = 4
PLAYERS = ["white", "black"]
PIECES = ["wK", "bK", "wRk", "wRq", "bRk", "bRq", "p1", "p2", "wN", "bN"]
SIDES = ["wk", "wq", "bk", "bq"]
ROOK0, PAWN0 = 2, 6
TRANSITIONS = [
    "StartPlay",
    "PlayMove",
    "ConcludeByAgreement",
    "ConcludeByCheckmate",
    "ConcludeByDeadPosition",
    "ConcludeByDrawnClaim",
    "ConcludeByResignation",
    "ConcludeBySecondIllegalMove",
    "ConcludeByStalemate",
]
UNKNOWN, YES, NO = 0, 1, 2
UNDECIDED = 0


class Rng:
    def __init__(self, seed, i):
        self.s = (seed ^ (i * 0x9E3779B97F4A7C15)) & M
        self.next()

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32

    def pct(self, p):
        return self.below(100) < p

    def range(self, lo, hi):
        return lo + self.below(hi - lo + 1)

    def tri(self, yes, no):
        r = self.below(100)
        return YES if r < yes else NO if r < yes + no else UNKNOWN

    def judgment(self):
        return self.below(3)  # undecided, yes, no


def game(seed, i, out):
    """Appends the facts of game i to `out` (a function of predicate and values)."""
    r = Rng(seed, i)
    procedure, started, arbiter, both_moved = r.pct(92), r.pct(88), r.pct(80), r.pct(70)
    checked_game = r.pct(55)
    en_passant, move_meets = r.tri(30, 20), r.tri(60, 15)
    pawns = r.below(3)
    moves = r.range(40, 100) if r.pct(65) else -1
    occurrences = r.range(1, 4) if r.pct(30) else -1
    draw_agreed = r.tri(4, 10)
    dead, stalemate = r.pct(3), r.pct(3)
    situation = None if r.below(5) < 2 else r.judgment()
    m = r.below(20)
    mover = None if m < 2 else 2 if m == 2 else m & 1
    players = []
    for k in range(2):
        players.append(
            dict(
                of_game=r.pct(95),
                has_move=mover == k or mover == 2,
                resigned=r.pct(3),
                claimed=r.pct(8),
                mates=r.pct(2),
                cannot_be_mated=r.tri(10, 20),
                checked=r.pct(50),
                illegal=r.range(0, 1) if r.pct(25) else -1,
                king_of=r.pct(95),
                king_moved=r.tri(25, 25),
                king_checked=r.pct(50),
            )
        )
    sides = []
    for _ in range(4):
        sides.append(
            dict(
                present=r.pct(60),
                rook_of=r.pct(92),
                rook_moved=r.tri(20, 30),
                rook_checked=r.pct(50),
                blocked=r.tri(25, 25),
                attacked=r.tri(20, 30),
                checked=r.pct(55),
            )
        )
    actor = 0 if mover is None else mover & 1
    ending = r.below(10)
    conclude = None
    if ending == 1:  # checkmate, 40% of them on or after move 75
        players[actor]["mates"] = True
        if r.pct(40):
            moves = r.range(75, 90)
        conclude = 3
    elif ending == 2:
        stalemate, conclude = True, 8
    elif ending == 3:
        players[actor]["resigned"] = True
        players[actor]["cannot_be_mated"] = r.tri(35, 30)
        conclude = 6
    elif ending == 4:
        draw_agreed, both_moved = YES, r.pct(75)
        conclude = 2 if r.pct(50) else 5
    elif ending == 5:
        dead = True
        conclude = 4 if r.pct(70) else 5
    elif ending == 6:
        players[actor]["claimed"] = True
        if r.pct(50):
            moves = r.range(44, 80)
        else:
            occurrences = r.range(1, 5)
        conclude = 5
    elif ending == 7:
        players[actor]["illegal"] = r.range(2, 3)
        players[actor]["cannot_be_mated"] = r.tri(35, 30)
        conclude = 7 if r.pct(70) else 5
    elif ending == 8:
        moves, conclude = r.range(75, 95), 5
    elif ending == 9:
        occurrences, conclude = r.range(5, 6), 5
    attempted = 0
    if r.pct(88):
        attempted |= 1
    if r.pct(75):
        attempted |= 2
    if conclude is not None and r.pct(80):
        attempted |= 1 << conclude
    if r.pct(15):
        attempted |= 1 << (2 + r.below(7))
    touches = []
    n_touch, first = r.below(3), r.below(len(PIECES))
    for k in range(n_touch):
        piece = first if k == 0 else (first + 1 + r.below(len(PIECES) - 1)) % len(PIECES)
        touches.append(
            dict(
                who=actor if r.pct(80) else 1 - actor,
                piece=piece,
                intent=r.judgment(),
                own=r.pct(85),
                can_move=r.pct(80),
            )
        )

    # The pieces the game mentions are declared (the domain of undecided judgments).
    used = set()
    for k, p in enumerate(players):
        if p["king_of"] or p["king_moved"] != UNKNOWN or p["king_checked"]:
            used.add(k)
    for s, side in enumerate(sides):
        if side["present"] or side["rook_of"] or side["rook_moved"] != UNKNOWN or side["rook_checked"]:
            used.add(ROOK0 + s)
    used.update(PAWN0 + k for k in range(pawns))
    used.update(t["piece"] for t in touches)
    for name in PLAYERS:
        out("@Player", name)
    for k in sorted(used):
        out("@Piece", PIECES[k])

    def tri(pred, v, *args):
        if v == YES:
            out(pred, *args)
        elif v == NO:
            out("~" + pred, *args)

    g = "g"
    if procedure:
        out("procedure_instance", g)
    if started:
        out("play_started", g)
    if arbiter:
        out("arbiter_of", g, "arbiter")
    if both_moved:
        out("both_players_have_moved", g)
    tri("draw_agreed", draw_agreed, g)
    if dead:
        out("dead_position_arisen", g)
    if stalemate:
        out("stalemate_arisen", g)
    if checked_game:
        out("checked_game", g)
    tri("en_passant_right_open", en_passant, g)
    tri("move_meets_articles_3_1_to_3_9", move_meets, g)
    for k in range(pawns):
        out("capturing_pawn_on_adjacent_file", g, PIECES[PAWN0 + k])
    if moves >= 0:
        out("moves_by_each_without_pawn_or_capture", g, moves)
    if occurrences >= 0:
        out("position_occurrence_count", g, occurrences)
    for t, name in enumerate(TRANSITIONS):
        if attempted & (1 << t):
            out("attempted_transition", g, name)
    if situation is not None:
        out("@Situation", "s")
        tri("case_not_precisely_regulated", situation, "s")
    for k, p in enumerate(players):
        who = PLAYERS[k]
        if p["of_game"]:
            out("player_of", g, who)
        if p["has_move"]:
            out("player_has_the_move", g, who)
        if p["resigned"]:
            out("player_resigned", who)
        if p["claimed"]:
            out("draw_claimed", who)
        if p["mates"]:
            out("checkmate_delivered", g, who)
        tri("king_cannot_be_checkmated", p["cannot_be_mated"], who)
        if p["checked"]:
            out("checked_player", who)
        if p["illegal"] >= 0:
            out("completed_illegal_move_count", who, p["illegal"])
        if p["king_of"]:
            out("king_of", who, PIECES[k])
        if k in used:
            tri("piece_has_moved", p["king_moved"], PIECES[k])
            if p["king_checked"]:
                out("checked_piece", PIECES[k])
    for s, side in enumerate(sides):
        who, rook = PLAYERS[s // 2], PIECES[ROOK0 + s]
        if side["rook_of"]:
            out("rook_of", who, rook)
        if ROOK0 + s in used:
            tri("piece_has_moved", side["rook_moved"], rook)
            if side["rook_checked"]:
                out("checked_piece", rook)
        if not (side["present"] or side["blocked"] != UNKNOWN or side["attacked"] != UNKNOWN or side["checked"]):
            continue
        cs = SIDES[s]
        if side["present"]:
            out("castling_side_of", g, who, cs, rook)
        tri("castling_path_blocked", side["blocked"], cs)
        tri("castling_path_attacked", side["attacked"], cs)
        if side["checked"]:
            out("checked_castling_side", cs)
    for t in touches:
        who, p = PLAYERS[t["who"]], PIECES[t["piece"]]
        if t["own"]:
            out("own_piece_of", who, p)
        if t["can_move"]:
            out("piece_can_be_moved", p)
        tri("piece_touched_intentionally", t["intent"], who, p)


def partition(seed, first, count, malformed=()):
    """Games first..first+count as a facts batch. A game whose index is in
    `malformed` gets one row that does not fit the package (a move count
    given as a string), to show that it fails alone."""
    case, pred = [], []
    ents = [[] for _ in range(ARITY)]
    ints = [[] for _ in range(ARITY)]
    for i in range(first, first + count):

        def out(p, *values, i=i):
            case.append(i)
            pred.append(p)
            for j in range(ARITY):
                v = values[j] if j < len(values) else None
                if isinstance(v, int):
                    ents[j].append(None)
                    ints[j].append(v)
                else:
                    ents[j].append(v)
                    ints[j].append(None)

        game(seed, i, out)
        if i in malformed:
            out("moves_by_each_without_pawn_or_capture", "g", "seventy-five")
    columns = {"case": pa.array(case, pa.int64()), "predicate": pa.array(pred, pa.string()).dictionary_encode()}
    for j in range(ARITY):
        columns[f"e{j}"] = pa.array(ents[j], pa.string())
    for j in range(ARITY):
        columns[f"n{j}"] = pa.array(ints[j], pa.int64())
    return pa.record_batch(columns)
