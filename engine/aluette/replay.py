"""Aluette: a view's deal history as a replay script (:mod:`slagwerk.engine.replay`)."""

from __future__ import annotations

import numpy as np

from ..replay import ReplayScript, deal_start, script
from . import kernels as K

MODEL = (1.5, 96, False)
"""The opponent model's temperature, the worlds an inferred belief replays, and
whether ``belief=inferred`` is the default (only where measured stronger).

The temperature fitted to the built-in agents' moves by maximum likelihood
(``slagwerk.experiments.belief_model``) is about 0.47 in every game, but a
belief that sharp located the hidden cards worse than ``uniform`` (it
trusts a model that is only approximately right, and Kozel's and
Koetsieren's replays guess when cards were drawn or which slot a card came
from); 1.5 measured better in every game (``slagwerk experiment belief``,
see the README). The worlds keep a 1,000-iteration decision near 1.5 times
its ``uniform`` cost (``slagwerk bench``)."""


def replay_script(game, view: dict) -> ReplayScript:
    """Every play is a card seen by all; the template puts each played card in
    its player's block of the deal vector. Match points are scored when the
    deal ends, so the totals are those the deal began with."""
    template = np.full(K.DEAL_SIZE, -1, dtype=np.int64)
    filled = [0] * K.N_SEATS
    entries = []
    for item in view["history"]:
        seat, card = item["seat"], game.deck.parse(item["action"])
        template[seat * K.HAND_SIZE + filled[seat]] = card
        filled[seat] += 1
        entries.append((seat, card, 0))
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
