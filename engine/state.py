"""The flat game state: one int64 array with named fields.

Every game's state starts with the same :data:`COMMON_FIELDS` at the same
offsets, so generic code (search, replay, the tournament) reads the player to
move, the phase, scores and trick results without knowing the game. A game
appends its own fields with :func:`build_layout`, which derives offsets from
an ordered ``(name, size)`` list; kernels use the derived constants, never
literal indices.

Card masks are stored as int64 bit patterns (cards use at most 48 bits, so
the sign bit is never set); kernels read them with ``np.uint64(state[X])``.
"""

from __future__ import annotations

MAX_SEATS = 6

# Phases every game shares; games number their own from PHASE_GAME_BASE.
PHASE_DEAL_PENDING = 0
"""Chance: the next deal must be dealt (``deal``); nobody is to move."""
PHASE_PLAY = 1
"""Card play: ``TO_MOVE`` plays to the current trick."""
PHASE_MATCH_OVER = 2
"""Terminal: the match has ended; ``OUTCOME`` holds the result."""
PHASE_GAME_BASE = 3

# Values of TO_MOVE when nobody is to move.
CHANCE = -1
TERMINAL = -2

# Value of LAST_TRICK_WINNER for a trick nobody won (spoiled in Aluette).
NOBODY = -1

# Objectives for ``returns``: the deal's own normalised score, or the match.
OBJECTIVE_DEAL = 0
OBJECTIVE_MATCH = 1

COMMON_FIELDS = [
    ("game", 1),  # game id (engine.dispatch)
    ("n_players", 1),
    ("phase", 1),  # PHASE_* constant
    ("to_move", 1),  # seat, CHANCE or TERMINAL
    ("dealer", 1),  # dealer of the current (or pending) deal
    ("leader", 1),  # seat that led (or leads) the current trick
    ("deal_number", 1),  # deals begun so far (0 before the first deal)
    ("deal_complete", 1),  # 1 once the current deal has been scored
    ("tricks_done", 1),  # completed tricks in the current deal
    ("last_trick_winner", 1),  # seat that won the last completed trick, or NOBODY
    ("totals", MAX_SEATS),  # match totals per seat, docs/records.md meaning
    ("deal_points", MAX_SEATS),  # this deal's points per seat, docs/records.md meaning
    ("outcome", MAX_SEATS),  # twice the outcome per seat: 2 win, 1 draw, 0 loss
]


class Layout:
    """Offsets and sizes of the fields of a state, from a ``(name, size)`` list.

    >>> lay = Layout([("a", 1), ("b", 3)])
    >>> lay.offset["b"], lay.size
    (1, 4)
    """

    def __init__(self, fields):
        self.fields = list(fields)
        self.offset: dict[str, int] = {}
        self.width: dict[str, int] = {}
        pos = 0
        for name, size in self.fields:
            if name in self.offset:
                raise ValueError(f"field {name!r} appears twice in a state layout")
            self.offset[name] = pos
            self.width[name] = size
            pos += size
        self.size = pos

    def describe(self, state) -> dict:
        """The state as a dict of named fields (scalars or lists): for debugging."""
        out = {}
        for name, size in self.fields:
            start = self.offset[name]
            values = [int(v) for v in state[start : start + size]]
            out[name] = values[0] if size == 1 else values
        return out


def build_layout(game_fields) -> Layout:
    """The layout of a game's state: the common header, then ``game_fields``."""
    return Layout(COMMON_FIELDS + list(game_fields))


def card_play_fields(n_seats: int) -> list[tuple[str, int]]:
    """The fields of a game in which each seat plays one card to a trick (Coins, Aluette, the toy
    game): the cards of the current trick in play order, how many there are, and the mask of every
    card played this deal (public)."""
    return [("trick", n_seats), ("n_in_trick", 1), ("gone", 1)]


_COMMON = Layout(COMMON_FIELDS)
GAME = _COMMON.offset["game"]
N_PLAYERS = _COMMON.offset["n_players"]
PHASE = _COMMON.offset["phase"]
TO_MOVE = _COMMON.offset["to_move"]
DEALER = _COMMON.offset["dealer"]
LEADER = _COMMON.offset["leader"]
DEAL_NUMBER = _COMMON.offset["deal_number"]
DEAL_COMPLETE = _COMMON.offset["deal_complete"]
TRICKS_DONE = _COMMON.offset["tricks_done"]
LAST_TRICK_WINNER = _COMMON.offset["last_trick_winner"]
TOTALS = _COMMON.offset["totals"]
DEAL_POINTS = _COMMON.offset["deal_points"]
OUTCOME = _COMMON.offset["outcome"]
COMMON_SIZE = _COMMON.size
