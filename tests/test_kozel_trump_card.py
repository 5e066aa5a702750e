"""Kozel's shown trump card comes from the middle of the stock (docs/rules.md §3.5,
§3.6): random deals never show the top or the bottom card, and determinized
worlds only put the card where it can be."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from slagwerk.engine import contract, make_game
from slagwerk.engine.bits import derive_seed, make_rng
from slagwerk.engine.cards import KOZEL_DECK
from slagwerk.engine.kozel import kernels as K
from slagwerk.engine.records import record_of

GAME = make_game("kozel")
MIDDLE = range(K.TRUMP_FIRST_PLACE, K.TRUMP_LAST_PLACE + 1)


def test_the_middle_is_every_place_but_the_top_and_the_bottom():
    """docs/rules.md §3.5: positions 1 to 18 of the 20-card stock (0 is the top)."""
    assert K.STOCK_SIZE == 20 and list(MIDDLE) == list(range(1, 19))


def test_random_deals_show_a_middle_card_uniformly():
    """docs/rules.md §3.5: over many seeded random deals the shown card's position
    is never the top (0) or the bottom (19), and every middle position occurs
    about equally often."""
    deals = 9000
    state = GAME.new_match().array  # waiting for its first deal
    out = np.zeros(K.DEAL_SIZE, np.int64)
    rng = make_rng(2024)
    counts = Counter()
    for _ in range(deals):
        K.random_deal(state, rng, out)
        counts[int(out[K.DEAL_TRUMP_POSITION])] += 1
    assert set(counts) == set(MIDDLE)
    expected = deals / len(MIDDLE)  # 500 each, standard deviation about 22
    assert max(abs(n - expected) for n in counts.values()) < 5 * expected**0.5


def test_seeded_matches_record_a_middle_trump_card():
    """docs/rules.md §3.5: the public path (a seeded match, its record) shows a middle card."""
    places = set()
    for seed in range(300):
        deal = record_of(GAME.new_match(seed=seed))["deals"][0]
        place = deal["stock"].index(deal["trump_card"])
        assert place in MIDDLE, f"seed {seed}: trump card at stock position {place}"
        places.add(place)
    assert places == set(MIDDLE)


def _stock(arr):
    """The cards left in the stock, with their positions in the deal's stock."""
    return {int(arr[K.STOCK + i]): i for i in range(int(arr[K.STOCK_NEXT]), K.STOCK_SIZE)}


def test_determinized_worlds_keep_the_trump_card_in_the_middle():
    """docs/rules.md §3.5, §3.6: in random matches, every seat's determinized
    worlds that leave the shown card in the stock leave it at a middle
    position; after draws the top card of what is left may be it, the bottom
    card never is."""
    rnd = random.Random(5)
    places = Counter()
    checked = 0
    for m in range(12):
        state = GAME.new_match(seed=derive_seed(77, m))
        for step in range(400):
            if state.is_terminal:
                break
            if state.deal_pending:
                state.deal(rng=make_rng(derive_seed(77, m, step)))
                continue
            if step % 3 == 0:
                for seat in range(K.N_SEATS):
                    world = state.clone()
                    contract.determinize(world.array, seat, make_rng(derive_seed(m, step, seat)))
                    arr = world.array
                    stock = _stock(arr)
                    trump = int(arr[K.TRUMP_CARD])
                    if trump in stock:
                        drawn = int(arr[K.STOCK_NEXT])
                        places[stock[trump] - drawn] += 1  # counted from the top of what is left
                        assert max(drawn, 1) <= stock[trump] <= K.TRUMP_LAST_PLACE
                    checked += 1
            state.apply(rnd.choice(state.legal_actions()))
    assert checked > 500
    assert places[0] > 0  # the top card of a stock already drawn from
    assert max(places) < K.STOCK_SIZE - 1


def _first_trick_played():
    """Dealer 0; seat 1 leads a single card and the others discard one each, so
    seat 1 takes the trick and draws the stock's top card (position 0); seats
    2, 3 and 0 draw positions 1, 2 and 3. The shown card lies at position 10."""
    cards = KOZEL_DECK.names(KOZEL_DECK.all_mask)
    hands = [[cards[s + 4 * k] for k in range(4)] for s in range(K.N_SEATS)]  # no molodka
    stock = cards[16:]
    state = GAME.new_match()
    state.deal(GAME.deal_from_json({"hands": hands, "stock": stock, "trump_card": stock[10]}))
    state.apply(f"lead:{hands[1][0]}")
    for seat in (2, 3, 0):
        state.apply(f"discard:{hands[seat][0]}")
    assert state.tricks_done == 1 and state.to_move == 1
    assert int(state.array[K.STOCK_NEXT]) == 4
    return state


def test_determinize_weighs_each_unseen_middle_place_alike():
    """docs/rules.md §3.5, §3.6: after the first trick, seat 0 has not seen the shown
    card. It lay at one of the 17 middle positions seat 0 did not draw: 15 still in
    the stock (4 to 18), and those seats 2 and 3 drew (1 and 2). Seat 1 drew only
    the top card, which was never the shown one, and a first-trick discard was
    made before any draw."""
    state = _first_trick_played()
    trump = int(state.array[K.TRUMP_CARD])
    worlds = 3400
    where = Counter()
    places = set()
    for k in range(worlds):
        world = state.clone()
        contract.determinize(world.array, 0, make_rng(k))
        arr = world.array
        stock = _stock(arr)
        holders = [p for p in range(K.N_SEATS) if int(arr[K.HANDS + p]) >> trump & 1]
        discarded = any(int(arr[K.PLAYED + p]) >> trump & 1 for p in range(K.N_SEATS))
        assert not discarded
        if trump in stock:
            where["stock"] += 1
            places.add(stock[trump])
        else:
            (holder,) = holders
            where[holder] += 1
    assert places == set(range(4, K.TRUMP_LAST_PLACE + 1))
    assert where[1] == 0 and where[0] == 0
    for key, share in (("stock", 15 / 17), (2, 1 / 17), (3, 1 / 17)):
        sd = (share * (1 - share) / worlds) ** 0.5
        assert abs(where[key] / worlds - share) < 5 * sd, (key, where)
