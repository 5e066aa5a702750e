"""Koetsieren: a view's deal history as a replay script (:mod:`slagwerk.engine.replay`)."""

from __future__ import annotations

import numpy as np

from ..replay import OpponentModel, ReplayScript, deal_start, script
from . import kernels as K

MODEL = OpponentModel(score_weight=0.0, best_weight=2.1739, temperature=1.0, particles=256,
                       inferred_by_default=True, reads_play=False)
"""This game's opponent model for ``belief=inferred`` (how it was chosen: docs/beliefs.md)."""

SUIT_LETTERS = "cdhs"


def replay_script(game, view: dict) -> ReplayScript:
    """Trump and bids are actions as they are; a play is the card it showed
    (``CARD_KEY + card``: the replay finds the slot holding it). The
    template (see ``kernels.deal_from_world``) marks each seat's played slots
    (empty in the view) and lists the cards it played. Penalty points are
    scored when the deal ends, so the totals are those the deal began with."""
    size = K.N_SEATS * K.SLOTS_PER_SEAT
    template = np.full(2 * size, -1, dtype=np.int64)
    dealt = game.dealt_slots()  # a small variant's other slots are never dealt (§2.15)
    for t, hand in enumerate(view["hands"]):
        slots = [*hand["table"], *hand["forehead"], hand["hidden"]]
        for slot, text in enumerate(slots):
            if text is None and slot in dealt:
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
    slot``), ``N_SEATS * 5`` (undealt) or -1 (played, or out of a small variant's deck)."""
    places = np.full(K.DECK_SIZE, -1, dtype=np.int64)
    for card in range(K.DECK_SIZE):
        if int(array[K.UNDEALT]) >> card & 1:
            places[card] = K.N_SEATS * K.SLOTS_PER_SEAT
    for at in range(K.N_SEATS * K.SLOTS_PER_SEAT):
        card = int(array[K.SLOTS + at])
        if card != K.EMPTY_SLOT:
            places[card] = at
    return places
