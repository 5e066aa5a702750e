"""Constructed positions with a known right move: ISMCTS, PIMC and the cheat find it.

Each position is built directly in the kernel state (the deal's earlier
tricks are summarised by the fields the rules need), and the searches get
the seat's view, so what they find comes from the seat's information set.
"""

from __future__ import annotations

import numpy as np

from slagwerk.agents import make
from slagwerk.engine import make_game
from slagwerk.engine.state import (
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LAST_TRICK_WINNER,
    LEADER,
    PHASE,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)
from slagwerk.search.ismcts import ismcts

SEARCHES = (
    "ismcts:iterations=300",
    "pimc:worlds=6,iterations_per_world=50",
    "pimc:worlds=6,iterations_per_world=50,flat=true",
)


def _start(game, *, dealer, leader, to_move, tricks_done):
    """A fresh state in the middle of deal 1: the header fields of a position."""
    state = game.new_match()
    a = state.array
    a[PHASE] = PHASE_PLAY
    a[DEAL_NUMBER] = 1
    a[DEALER] = dealer
    a[LEADER] = leader
    a[TO_MOVE] = to_move
    a[TRICKS_DONE] = tricks_done
    a[LAST_TRICK_WINNER] = leader
    return state


def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def _check_position(game, state, seat, right, objectives=("deal", "match")):
    view = state.view(seat)
    assert right in view["legal_actions"] and len(view["legal_actions"]) > 1
    for objective in objectives:
        for spec in SEARCHES:
            decision = make(f"{spec},objective={objective}", game, seed=3).decide(view)
            assert decision.action == right, (spec, objective, decision.stats)
        cheat = make(f"cheat:iterations=300,objective={objective}", game, seed=3)
        assert cheat.decide_true_state(state).action == right, objective


# ------------------------------------------------------------------ Coins


def coins_match_point():
    """Coins, target 10, seat 0 (9 points) plays last to a trick: seat 1 (9
    points) led Ko, seat 2 played 2e. Seat 0 holds Ao 2o 3b 7b.

    Ao beats Ko (two coins, the higher wins): seat 0 takes 2 coins and wins
    the match. 2o loses to Ko; 3b and 7b leave coins the winning suit (cups
    missing): each hands seat 1 the trick and the match.
    """
    from slagwerk.engine.coins import kernels as K

    game = make_game("coins", target=10)
    p = game.deck.parse
    hands = [[p(c) for c in h] for h in (["Ao", "2o", "3b", "7b"], ["4c", "5c", "6c"], ["7c", "8c", "9c"])]
    trick = [p("Ko"), p("2e")]
    used = {c for h in hands for c in h} | set(trick)
    played = [c for c in range(game.deck.size) if c not in used]
    state = _start(game, dealer=0, leader=1, to_move=0, tricks_done=12)
    a = state.array
    a[TOTALS : TOTALS + 3] = [9, 9, 8]
    a[DEAL_POINTS : DEAL_POINTS + 3] = [4, 3, 2]  # the 9 coins among the played cards
    for seat, hand in enumerate(hands):
        a[K.HANDS + seat] = _mask(hand)
    a[K.TRICK : K.TRICK + 2] = trick
    a[K.N_IN_TRICK] = 2
    a[K.GONE] = _mask(played + trick)
    return game, state


def test_coins_the_card_that_wins_the_match():
    game, state = coins_match_point()
    _check_position(game, state, 0, "Ao")
    # the match ends with this trick, so the match values are exact
    result = ismcts(state, iterations=200, seed=1, objective="match")
    values = dict(zip(result.actions, result.values))
    assert values.pop(game.deck.parse("Ao")) == 1.0 and set(values.values()) == {0.0}


# ---------------------------------------------------------------- Aluette


def aluette_spoil():
    """Aluette, trick 8 of 9: seat 1 led Ab, seats 2 and 3 played low. Seat 0
    holds Ac and 4o; it has 3 tricks (the third won at trick 5), seat 1 has 2.

    Ac ties Ab for strongest: the trick is spoiled, seat 1 can reach at most
    3 tricks, later than seat 0, so seat 0 wins the deal whatever happens.
    4o lets seat 1 take its third trick now; then if seat 1 also wins the
    last trick, it has the most tricks and its team wins the deal. Strong
    cards are still unseen (in the true deal seat 1 keeps 3o, Monsieur), so
    spoiling is right.
    """
    from slagwerk.engine.aluette import kernels as K

    game = make_game("aluette")
    p = game.deck.parse
    hands = [["Ac", "4o"], ["3o"], ["Ke"], ["6b"]]
    trick = ["Ab", "4b", "5e"]
    undealt = ["3c", "2o", "2c", "9c", "9o", "2b", "2e", "Kc", "Ko", "Kb", "Nc", "No"]
    used = {p(c) for c in sum(hands, []) + trick + undealt}
    played = [c for c in range(game.deck.size) if c not in used]
    state = _start(game, dealer=3, leader=1, to_move=0, tricks_done=7)
    a = state.array
    for seat, hand in enumerate(hands):
        a[K.HANDS + seat] = _mask(p(c) for c in hand)
    a[K.UNDEALT] = _mask(p(c) for c in undealt)
    a[K.TRICK : K.TRICK + 3] = [p(c) for c in trick]
    a[K.N_IN_TRICK] = 3
    a[K.GONE] = _mask(played) | _mask(p(c) for c in trick)
    # tricks 0..6 won by seats 0 1 0 2 0 3 1
    a[K.TRICKS_WON : K.TRICKS_WON + 4] = [3, 2, 1, 1]
    a[K.FIRST_WIN : K.FIRST_WIN + 4] = [0, 1, 3, 5]
    a[K.LAST_WIN : K.LAST_WIN + 4] = [4, 6, 3, 5]
    return game, state


def test_aluette_spoiling_wins_the_deal():
    game, state = aluette_spoil()
    _check_position(game, state, 0, "Ac")


# ------------------------------------------------------------- Koetsieren


def koetsieren_duck():
    """Koetsieren, four players, spades trump, trick 4 of 5: seat 1 led Kh,
    seats 2 and 3 played diamonds. Seat 0 bid 1 and has its trick; it holds
    Ah (table) and 7c (hidden). Seat 1's last card, on the table, is 8c.

    Ah takes this trick: two tricks, the bid is missed. Ducking with 7c
    leaves seat 1 to lead 8c to the last trick, where the off-suit Ah cannot
    win: the bid is made. Seat 3's last card is hidden from seat 0.
    """
    from slagwerk.engine.koetsieren import kernels as K

    game = make_game("koetsieren", players=4)
    p = game.deck.parse
    remaining = [{K.SLOT_T1: "Ah", K.SLOT_H: "7c"}, {K.SLOT_T1: "8c"}, {K.SLOT_T2: "9h"}, {K.SLOT_H: "Js"}]
    trick = ["Kh", "8d", "9d"]
    used = {p(c) for r in remaining for c in r.values()} | {p(c) for c in trick}
    rest = [c for c in range(game.deck.size) if c not in used]
    played, undealt = rest[:12], rest[12:]
    state = _start(game, dealer=3, leader=1, to_move=0, tricks_done=3)
    a = state.array
    a[K.TRUMP] = game.deck.suits.index("s")
    a[K.TRUMP_MAKER] = 0
    a[K.BIDS : K.BIDS + 4] = [1, 2, 1, 0]
    a[K.BID_SUM] = 4
    a[K.TRICKS_WON : K.TRICKS_WON + 4] = [1, 2, 0, 0]
    for seat, slots in enumerate(remaining):
        live = 0
        for slot, card in slots.items():
            a[K.SLOTS + seat * K.SLOTS_PER_SEAT + slot] = p(card)
            live |= 1 << slot
        a[K.LIVE + seat] = live
    a[K.UNDEALT] = _mask(undealt)
    a[K.GONE] = _mask(played) | _mask(p(c) for c in trick)
    a[K.TRICK : K.TRICK + 3] = [p(c) for c in trick]
    a[K.N_IN_TRICK] = 3
    a[K.TRICK_BEST] = 0
    return game, state


def test_koetsieren_ducking_makes_the_bid():
    game, state = koetsieren_duck()
    _check_position(game, state, 0, "7c")


# ------------------------------------------------------------------ Kozel


def kozel_rich_trick():
    """Kozel, first trick, spades trump (8s shown): seat 1 leads Ah Th (21
    card points); seats 2 and 3 hold no spade and no heart above them and
    discard. Seat 0 holds 6s 7s 6c 7d: beating with the two small trumps
    takes the trick's 21 points, and discarding gives them to the opponents.

    Built through the public API from a deal vector and the first actions.
    """
    game = make_game("kozel")
    p = game.deck.parse
    hands = [["6s", "7s", "6c", "7d"], ["Ah", "Th", "8c", "9d"], ["6h", "7c", "8d", "Jc"],
             ["7h", "9c", "6d", "Qd"]]
    cards = [p(c) for hand in hands for c in hand]
    stock = [c for c in range(game.deck.size) if c not in cards]
    state = game.new_match()
    state.deal(np.array(cards + stock + [stock.index(p("8s"))], dtype=np.int64))
    for action in ("lead:Ah,Th", "discard:8d,7c", "discard:Qd,6d"):
        state.apply(action)
    return game, state


def test_kozel_beating_a_rich_trick():
    game, state = kozel_rich_trick()
    # the match objective needs larger budgets here: its reward is one bit after many deals
    _check_position(game, state, 0, "beat:7s,6s", objectives=("deal",))
