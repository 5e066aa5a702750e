"""Koetsieren: a view's deal history as a replay script (:mod:`slagwerk.engine.replay`)."""

from __future__ import annotations

import numpy as np

from ..replay import ReplayScript, deal_start, script
from . import kernels as K

MODEL = (0.46, 48, False)
"""The opponent model's temperature, the worlds an inferred belief replays, and
whether ``belief=inferred`` is the default (only where measured stronger).

The temperature fitted to the built-in agents' moves by maximum likelihood
(``slagwerk.experiments.belief_model``) is about 0.47 in every game, but a
belief that sharp located the hidden cards worse than ``uniform`` (it
trusts a model that is only approximately right, and Kozel's and
Koetsieren's replays guess when cards were drawn or which slot a card came
from); 1.5 measured better in every game (``slagwerk experiment belief``,
see the README). The worlds keep a 1,000-iteration decision near 1.5 times
its ``uniform`` cost (``slagwerk bench``).

Koetsieren keeps the fitted 0.46: with it and 48 worlds ``belief=inferred``
beat ``uniform`` in SPRTs at 1,000 ISMCTS iterations (accept H1, 261 duplicate
groups, seed 1, Elo +45.5 [+3.1, +87.9]) and in PIMC with 40 worlds x 25
iterations (accept H1, 163 groups, +60.3 [+6.4, +114.2]), but not at the
``ismcts`` agent's default 10,000 iterations (accept H0, 95 groups, -25.6
[-95.2, +43.9]) nor at 10 ms a move (accept H0, 124 groups): so ``uniform``
stays the default."""

SUIT_LETTERS = "cdhs"


def replay_script(game, view: dict) -> ReplayScript:
    """Trump and bids are actions as they are; a play is the card it showed
    (``CARD_KEY + card``: the replay finds the slot holding it). The
    template (see ``kernels.deal_from_world``) marks each seat's played slots
    (empty in the view) and lists the cards it played. Penalty points are
    scored when the deal ends, so the totals are those the deal began with."""
    size = K.N_SEATS * K.SLOTS_PER_SEAT
    template = np.full(2 * size, -1, dtype=np.int64)
    for t, hand in enumerate(view["hands"]):
        slots = [*hand["table"], *hand["forehead"], hand["hidden"]]
        for slot, text in enumerate(slots):
            if text is None:
                template[t * K.SLOTS_PER_SEAT + slot] = -2
    filled = [0] * K.N_SEATS
    entries = []
    for item in view["history"]:
        seat, text = item["seat"], item["action"]
        if text.startswith("trump:"):
            key = K.TRUMP_BASE + SUIT_LETTERS.index(text[6:])
        elif text.startswith("bid:"):
            key = K.BID_BASE + int(text[4:])
        elif text in K.SLOT_NAMES:  # a slot whose card the history does not name
            key = K.SLOT_NAMES.index(text)
        else:
            card = game.deck.parse(text)
            key = K.CARD_KEY + card
            template[size + seat * K.SLOTS_PER_SEAT + filled[seat]] = card
            filled[seat] += 1
        entries.append((seat, key, 0))
    return script(deal_start(game, view, view["totals"]), template, entries, MODEL)


def card_places(array) -> np.ndarray:
    """Where each card is in a state, for measuring beliefs: its slot (``seat * 5 +
    slot``), ``N_SEATS * 5`` (undealt) or -1 (played)."""
    places = np.full(K.DECK_SIZE, -1, dtype=np.int64)
    for card in range(K.DECK_SIZE):
        if int(array[K.UNDEALT]) >> card & 1:
            places[card] = K.N_SEATS * K.SLOTS_PER_SEAT
    for at in range(K.N_SEATS * K.SLOTS_PER_SEAT):
        card = int(array[K.SLOTS + at])
        if card != K.EMPTY_SLOT:
            places[card] = at
    return places
