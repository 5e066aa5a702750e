"""Aluette: a view's deal history as a replay script (:mod:`slagwerk.engine.replay`)."""

from __future__ import annotations

import numpy as np

from ..replay import OpponentModel, ReplayScript, deal_start, one_card_history, script
from . import kernels as K

MODEL = OpponentModel(score_weight=1.9367, best_weight=1.6627, temperature=2.0, particles=96)
"""This game's opponent model for ``belief=inferred`` (how it was chosen: docs/beliefs.md)."""


def replay_script(game, view: dict) -> ReplayScript:
    """Every play is a card seen by all; the template puts each played card in
    its player's block of the deal vector. Match points are scored when the
    deal ends, so the totals are those the deal began with."""
    template, entries = one_card_history(game, view, K)
    return script(deal_start(game, view, view["totals"]), template, entries, MODEL)


def card_places(array) -> np.ndarray:
    """Where each card is in a state, for measuring beliefs: the seat holding it,
    ``N_SEATS`` (unused) or -1 (played)."""
    places = np.full(K.DECK_SIZE, -1, dtype=np.int64)
    for card in range(K.DECK_SIZE):
        for seat in range(K.N_SEATS):
            if int(array[K.HANDS + seat]) >> card & 1:
                places[card] = seat
        if int(array[K.UNDEALT]) >> card & 1:
            places[card] = K.N_SEATS
    return places
