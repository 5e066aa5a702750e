"""Kozel: a view's deal history as a replay script (:mod:`slagwerk.engine.replay`)."""

from __future__ import annotations

import numpy as np

from ..replay import OpponentModel, ReplayScript, deal_start, script
from ..state import TRICKS_DONE
from . import kernels as K

MODEL = OpponentModel(score_weight=0.0611, best_weight=1.5865, temperature=4.0, particles=256)
"""This game's opponent model for ``belief=inferred`` (how it was chosen: docs/beliefs.md)."""


def replay_script(game, view: dict) -> ReplayScript:
    """Answers and plays are actions as they are; another seat's face-down
    discard is only its size (the key ``observed_actions`` gives it). The
    deal's first trick was led (before any molodka) by the seat whose lead
    the history shows first, unless a molodka came before any lead; then
    the trick's recorded leader stands in (a world where that is wrong fails
    to replay). Penalties are scored when the deal ends, so the totals are
    those the deal began with. ``deal_from_world`` needs no template."""
    entries = []
    for item in view["history"]:
        seat, text = item["seat"], item["action"]
        kind, _, rest = text.partition(":")
        if kind == "discard" and rest.isdigit():
            entries.append((seat, (K.KIND_UNSEEN_DISCARD << K.KIND_SHIFT) | int(rest), 1))
        else:
            entries.append((seat, game.action_of_text(text), 0))
    start = deal_start(game, view, view["totals"])
    start[K.NEXT_LEADER] = _first_leader(view)
    return script(start, np.zeros(1, dtype=np.int64), entries, MODEL)


def _first_leader(view: dict) -> int:
    if view["tricks_done"] == 0 and view["trick"] is not None:
        return view["trick"]["original_leader"]
    for item in view["history"]:
        if item["action"] == "molodka":
            break
        if item["action"] != "pass":
            return item["seat"]
    return view["tricks"][0]["leader"] if view["tricks"] else view["leader"]


def card_places(array) -> np.ndarray:
    """Where each card is in a state, for measuring beliefs: the seat holding it
    (0..3), a seat's face-down discards this deal (4..7), the stock (8), a small variant's
    unused cards (9, docs/rules.md §3.18), or -1 (played face up, or out of the deck)."""
    places = np.full(K.DECK_SIZE, -1, dtype=np.int64)
    for i in range(int(array[K.STOCK_NEXT]), int(array[K.STOCK_LEN])):
        places[int(array[K.STOCK + i])] = 2 * K.N_SEATS
    for card in range(K.DECK_SIZE):
        if int(array[K.UNDEALT]) >> card & 1:
            places[card] = 2 * K.N_SEATS + 1
    rows = min(int(array[TRICKS_DONE]) + 1, K.MAX_TRICKS)
    for seat in range(K.N_SEATS):
        for card in range(K.DECK_SIZE):
            if int(array[K.HANDS + seat]) >> card & 1:
                places[card] = seat
        for t in range(rows):
            cell = t * K.N_SEATS + seat
            if int(array[K.PLAY_KIND + cell]) == K.KIND_DISCARD:
                for card in range(K.DECK_SIZE):
                    if int(array[K.PLAYED + cell]) >> card & 1:
                        places[card] = K.N_SEATS + seat
    return places
