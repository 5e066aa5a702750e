"""Kozel under play: invariants over thousands of random matches, legal sets
against the plain-Python reference, hidden information (views, determinize,
the heuristic), the heuristic's strength, and the pure-Python playout."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.engine import contract, make_game
from slagwerk.engine.bits import bit, derive_seed, make_rng, rand_below
from slagwerk.engine.kozel import kernels as K
from slagwerk.engine.kozel import pure
from slagwerk.engine.records import load_record, record_of, replay_result
from slagwerk.engine.state import (
    DEAL_POINTS,
    OBJECTIVE_DEAL,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)

GAME = make_game("kozel")
FULL_OPTIONS = (0, K.N_RANKS, K.HAND_SIZE, K.STOCK_SIZE)
"""The kernels' option array of the full game: first_dealer, ranks, hand, stock."""


# ------------------------------------------------- invariants inside numba


@njit(cache=True)
def molodka_rich_deal(rng, out):
    """A random deal; two times in three the hands are dealt suit by suit (so most
    hold a molodka), and one time in three the stock is also arranged so that
    each seat's draws share a suit."""
    state = np.zeros(K.STATE_SIZE, np.int64)
    K.init_match(state, np.array(FULL_OPTIONS, np.int64))
    K.random_deal(state, rng, out)
    mode = rand_below(rng, 3)
    if mode >= 1:  # insertion sort of the 16 hand cards by suit
        for i in range(1, 16):
            j = i
            while j > 0 and out[j - 1] // 9 > out[j] // 9:
                tmp = out[j]
                out[j] = out[j - 1]
                out[j - 1] = tmp
                j -= 1
    if mode == 2:
        by_suit = np.sort(out[16:36] // 9 * 100 + out[16:36]) % 100
        for i in range(20):
            out[16 + i] = by_suit[(i % 4) * 5 + i // 4]


@njit(cache=True)
def broken_invariant(state):
    """0 if the state in play is consistent, else a number naming the broken rule."""
    seen = np.uint64(0)
    for p in range(4):
        h = np.uint64(state[K.HANDS + p])
        if h & seen:
            return 1  # a card in two hands
        seen |= h
    for t in range(state[TRICKS_DONE] + 1):
        for p in range(4):
            c = np.uint64(state[K.PLAYED + t * 4 + p])
            if c & seen:
                return 2  # a played card also elsewhere
            seen |= c
    for i in range(state[K.STOCK_NEXT], K.STOCK_SIZE):
        b = bit(state[K.STOCK + i])
        if b & seen:
            return 3  # a stock card also elsewhere
        seen |= b
    if seen != K.ALL_CARDS:
        return 4  # a card is nowhere
    piles = np.uint64(state[K.PILES]) | np.uint64(state[K.PILES + 1])
    taken = np.uint64(0)
    for t in range(state[TRICKS_DONE]):
        for p in range(4):
            taken |= np.uint64(state[K.PLAYED + t * 4 + p])
    if piles != taken or np.uint64(state[K.PILES]) & np.uint64(state[K.PILES + 1]):
        return 5  # piles are not exactly the completed tricks
    size = -1  # hand sizes: equal for seats yet to play, one set smaller for the others
    for p in range(4):
        n = K.popcount(np.uint64(state[K.HANDS + p]))
        if state[K.PLAY_KIND + state[TRICKS_DONE] * 4 + p] != 0:
            n += state[K.SET_SIZE]
        if size >= 0 and n != size:
            return 6
        size = n
    if state[PHASE] == K.PHASE_QUESTION and not K.holds_molodka(state[K.HANDS + state[TO_MOVE]]):
        return 7  # asked without a molodka
    return 0


@njit(cache=True)
def broken_deal_end(state, totals_before):
    """0 if a just-finished deal was scored by the rules, else a number."""
    p0 = K.card_points(state[K.PILES])
    p1 = K.card_points(state[K.PILES + 1])
    if np.uint64(state[K.PILES]) | np.uint64(state[K.PILES + 1]) != K.ALL_CARDS:
        return 10  # not every card ended in a pile
    if np.uint64(state[K.PILES]) & np.uint64(state[K.PILES + 1]):
        return 11  # a card in both piles
    if p0 + p1 != 120:
        return 12
    for s in range(4):
        if state[DEAL_POINTS + s] != (p0 if s % 2 == 0 else p1):
            return 13
    for team in range(2):
        mine, theirs = (p0, p1) if team == 0 else (p1, p0)
        expected = 0
        if mine < theirs:
            expected = K.deal_penalty(mine, state[K.TEAM_TRICKS + team])
        for s in range(team, 4, 2):
            if state[TOTALS + s] - totals_before[s] != expected:
                return 14
    return 0


@njit(cache=True)
def random_matches(n_matches, seed_rng, heuristic_share):
    """Play matches (random or heuristic decisions, molodka-rich deals) and check
    invariants at every step. Returns (error, matches, deals, questions, molodkas)."""
    state = np.zeros(K.STATE_SIZE, np.int64)
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    actions = np.zeros(K.MAX_ACTIONS, np.int64)
    options = np.array(FULL_OPTIONS, np.int64)
    totals_before = np.zeros(6, np.int64)
    deals = questions = molodkas = 0
    for _ in range(n_matches):
        options[0] = rand_below(seed_rng, 4)
        K.init_match(state, options)
        while state[PHASE] != PHASE_MATCH_OVER:
            if state[PHASE] == PHASE_DEAL_PENDING:
                molodka_rich_deal(seed_rng, deal)
                K.apply_deal(state, deal)
                deals += 1
                totals_before[:] = state[TOTALS : TOTALS + 6]
                continue
            error = broken_invariant(state)
            if error:
                return error, 0, 0, 0, 0
            n = K.legal_actions(state, actions)
            if n == 0:
                return 20, 0, 0, 0, 0  # someone to move without a legal action
            if rand_below(seed_rng, 100) < heuristic_share:
                action = K.heuristic_action(state, seed_rng)
            else:
                action = K.random_action(state, seed_rng)
            legal = False
            for i in range(n):
                legal = legal or actions[i] == action
            if not legal:
                return 21, 0, 0, 0, 0  # an action outside the legal set
            questions += state[PHASE] == K.PHASE_QUESTION
            molodkas += action == K.MOLODKA
            K.apply_action(state, action)
            if state[PHASE] == PHASE_DEAL_PENDING or state[PHASE] == PHASE_MATCH_OVER:
                error = broken_deal_end(state, totals_before)
                if error:
                    return error, 0, 0, 0, 0
        if max(state[TOTALS], state[TOTALS + 1]) < K.LOSING_PENALTY:
            return 30, 0, 0, 0, 0
    return 0, n_matches, deals, questions, molodkas


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**62), st.sampled_from([0, 30, 100]))
def test_invariants_over_many_random_matches(seed, heuristic_share):
    """docs/rules.md §3.8, §3.11, §3.12, §3.15, §3.16: invariants of cards, piles, hands, questions and
    scoring over thousands of random matches."""
    error, matches, deals, questions, molodkas = random_matches(200, make_rng(seed), heuristic_share)
    assert error == 0
    assert matches == 200 and deals >= 200 and questions > 0 and molodkas > 0


def test_same_seed_same_match():
    """docs/rules.md §0.6: the same seed plays the same match."""
    results = [random_matches(20, make_rng(99), 50) for _ in range(2)]
    assert results[0] == results[1]
    agents = [make("heuristic" if s % 2 else "random", GAME, seed=s) for s in range(4)]
    first, second = (record_of(play_match(GAME, agents, seed=5)) for _ in range(2))
    assert first == second


# ------------------------------------------- legal sets against pure Python


def _pure_legal(state):
    """The legal actions by the plain-Python reference's enumeration (as kernel ints)."""
    arr = state.array
    if state.phase == K.PHASE_QUESTION:
        return {K.MOLODKA, K.PASS}
    seat = state.to_move
    hand = [(c % 9, "cdhs"[c // 9]) for c in range(36) if int(arr[K.HANDS + seat]) >> c & 1]
    trump = "cdhs"[int(arr[K.TRUMP_SUIT])]
    if int(arr[K.N_PLAYED]) == 0:
        options = pure.lead_options(hand)
    else:
        winning = [(c % 9, "cdhs"[c // 9]) for c in range(36) if int(arr[K.WINNING_SET]) >> c & 1]
        options = pure.response_options(hand, int(arr[K.SET_SIZE]), winning, trump)
    kinds = {"lead": K.KIND_LEAD, "beat": K.KIND_BEAT, "discard": K.KIND_DISCARD}
    return {
        kinds[kind] << K.KIND_SHIFT | sum(1 << ("cdhs".index(s) * 9 + r) for r, s in cards)
        for kind, cards in options
    }


def _molodka_rich_vector(rng_seed):
    out = np.zeros(K.DEAL_SIZE, np.int64)
    molodka_rich_deal(make_rng(rng_seed), out)
    return out


def _visited_states(n_matches, seed, every=3):
    """Mid-deal states of random matches on molodka-rich deals (one in ``every``)."""
    rng = random.Random(seed)
    for m in range(n_matches):
        state = GAME.new_match()
        step = 0
        while not state.is_terminal:
            if state.deal_pending:
                state.deal(_molodka_rich_vector(derive_seed(seed, m, state.deal_number)))
                continue
            step += 1
            if step % every == 0:
                yield state
            state.apply(rng.choice(state.legal_actions()))


def test_legal_sets_match_the_pure_python_rules_and_random_action_covers_them():
    """docs/rules.md §3.7, §3.8, §3.11: the legal leads, beats, discards and answers agree with the
    plain-Python rules."""
    rng = make_rng(1)
    checked = 0
    for state in _visited_states(6, seed=11):
        legal = state.legal_actions()
        assert len(legal) == len(set(legal)) <= K.MAX_ACTIONS <= contract.MAX_ACTIONS
        assert set(legal) == _pure_legal(state)
        picks = {int(K.random_action(state.array, rng)) for _ in range(40 * len(legal))}
        assert picks == set(legal)
        checked += 1
    assert checked > 100


# ---------------------------------------------------------- hidden information


def _scramble(state, seat, rng):
    """A copy of ``state`` where only cards hidden from ``seat`` changed places:
    other hands, other seats' face-down discards and the stock (sizes kept;
    no rule is respected on purpose)."""
    arr = state.array.copy()
    face_up = int(arr[K.FACE_UP])
    cells, pool = [], []
    for p in range(4):
        if p == seat:
            continue
        places = [K.HANDS + p] + [
            K.PLAYED + t * 4 + p for t in range(state.tricks_done + 1)
            if arr[K.PLAY_KIND + t * 4 + p] == K.KIND_DISCARD
        ]
        for index in places:
            hidden = int(arr[index]) & ~face_up
            cells.append((index, bin(hidden).count("1")))
            pool += [c for c in range(36) if hidden >> c & 1]
    stock = range(K.STOCK + int(arr[K.STOCK_NEXT]), K.STOCK + K.STOCK_SIZE)
    pool += [int(arr[i]) for i in stock]
    rng.shuffle(pool)
    for index, count in cells:
        arr[index] = (int(arr[index]) & face_up) | sum(1 << pool.pop() for _ in range(count))
    for i in stock:
        arr[i] = pool.pop()
    out = state.clone()
    out.array[:] = arr
    return out


def _seen_by(state, seat):
    """Everything ``seat`` saw, read from the true state."""
    arr = state.array
    face_up = int(arr[K.FACE_UP])
    rows = range(min(state.tricks_done + 1, K.MAX_TRICKS))
    return (
        int(arr[K.HANDS + seat]),
        face_up,
        [int(arr[K.HANDS + p]) & face_up for p in range(4)],
        [int(arr[K.PLAYED + t * 4 + p]) if p == seat or arr[K.PLAY_KIND + t * 4 + p] != K.KIND_DISCARD
         else int(arr[K.PLAYED + t * 4 + p]) & face_up for t in rows for p in range(4)],
        [int(arr[K.PLAY_KIND + t * 4 + p]) for t in rows for p in range(4)],
        [bin(int(arr[K.HANDS + p])).count("1") for p in range(4)],
        int(arr[K.STOCK_NEXT]),
        int(arr[K.TRUMP_CARD]),
    )


def test_no_leak_view_and_decisions_ignore_hidden_cards():
    """docs/design.md §4: views and decisions ignore the cards hidden from the seat."""
    rng = random.Random(5)
    checked = 0
    for state in _visited_states(5, seed=21, every=4):
        for seat in range(4):
            other = _scramble(state, seat, rng)
            assert other.view(seat) == state.view(seat)
            if seat == state.to_move:
                mine = contract.heuristic_action(state.array.copy(), make_rng(3))
                assert contract.heuristic_action(other.array.copy(), make_rng(3)) == mine
                view = json.loads(json.dumps(state.view(seat)))
                agent = make("heuristic", GAME, seed=8)
                assert agent.act(view) == agent.act(json.loads(json.dumps(other.view(seat))))
                checked += 1
    assert checked > 30


def test_determinize_keeps_every_card_the_seat_saw_and_what_it_knows():
    """docs/rules.md §3.6, docs/design.md §4: determinize keeps what the seat saw and knows: the shown
    trump card stays in the stock until the first trick."""
    checked = 0
    for i, state in enumerate(_visited_states(5, seed=31, every=4)):
        for seat in range(4):
            world = state.clone()
            contract.determinize(world.array, seat, make_rng(derive_seed(i, seat)))
            assert _seen_by(world, seat) == _seen_by(state, seat)
            assert world.view(seat) == state.view(seat)
            assert broken_invariant(world.array) == 0
            arr = world.array
            trump = int(arr[K.TRUMP_CARD])
            if world.tricks_done == 0:  # the trump card is still in the stock
                stock = [int(c) for c in arr[K.STOCK + int(arr[K.STOCK_NEXT]) : K.STOCK + K.STOCK_SIZE]]
                assert trump in stock
            else:  # never in a first-trick discard: it was in the stock then
                assert not any(int(arr[K.PLAYED + p]) >> trump & 1 for p in range(4))
            must, must_not = K._molodka_constraints(state.array, seat)
            for p in range(4):
                if must >> p & 1:
                    assert K.holds_molodka(arr[K.HANDS + p])
            checked += 1
    assert checked > 100


def test_determinize_redeals_the_hidden_cards():
    """docs/design.md §4: determinize redeals the hidden hands and the stock."""
    state = next(s for s in _visited_states(1, seed=41, every=1)
                 if s.tricks_done >= 2 and int(s.array[K.STOCK_NEXT]) <= 12)
    worlds = set()
    for k in range(20):
        world = state.clone()
        contract.determinize(world.array, 0, make_rng(k))
        worlds.add(tuple(world.array[K.HANDS + 1 : K.HANDS + 4]) + tuple(world.array[K.STOCK : K.STOCK + 20]))
    assert len(worlds) == 20




# ------------------------------------------------------------------ heuristic


def _decide(hands, actions, trump="7s"):
    """The heuristic's action after ``actions`` in a deal with these hands
    (dealer 0, so seat 1 leads; the rest of the deck is the stock)."""
    used = {c for hand in hands for c in hand}
    stock = [c for c in GAME.deck.names(GAME.deck.all_mask) if c not in used]
    state = GAME.new_match()
    state.deal(GAME.deal_from_json({"hands": hands, "stock": stock, "trump_card": trump}))
    for text in actions:
        state.apply(text)
    action = int(contract.heuristic_action(state.array.copy(), make_rng(0)))
    return GAME.action_text(state, action)


# Spades are trumps (the 7s is shown); seat 1 leads.
RULE_HANDS = [
    ["6s", "As", "7d", "6h"], ["Tc", "7h", "8h", "Jd"], ["6c", "9d", "Qh", "8d"], ["7c", "8c", "9h", "Kd"]
]


def test_heuristic_trumps_a_rich_trick_with_its_cheapest_trump():
    assert _decide(RULE_HANDS, ["lead:Tc", "discard:6c", "discard:7c"]) == "beat:6s"


def test_heuristic_keeps_its_trumps_when_the_trick_is_poor():
    assert _decide(RULE_HANDS, ["lead:7h", "discard:6c", "discard:7c"]) in ("discard:7d", "discard:6h")


def test_heuristic_smears_points_onto_its_partners_sure_trick():
    hands = [["6s", "Th", "7d", "Ac"]] + RULE_HANDS[1:]
    assert _decide(hands, ["lead:7h", "beat:Qh", "discard:7c"]) == "discard:Ac"


def test_heuristic_does_not_overbeat_its_partner_with_a_trump():
    hands = [
        ["As", "7d", "6h", "Kd"], ["Ah", "7h", "8h", "Jd"], ["6c", "9d", "Qh", "8d"], ["6s", "7c", "8c", "9h"]
    ]
    assert _decide(hands, ["lead:Ah", "discard:6c"]).startswith("discard:")


def test_heuristic_declares_a_molodka():
    hands = [
        ["6c", "7c", "8c", "9c"], ["Ad", "Kd", "6h", "7h"], ["6s", "8s", "Qh", "Th"], ["Ah", "Kh", "Jh", "Js"]
    ]
    assert _decide(hands, [], trump="Td") == "molodka"


@pytest.mark.parametrize("heuristic_team", [0, 1])
def test_heuristic_beats_random_clearly(heuristic_team):
    wins = 0
    matches = 8
    for m in range(matches):
        seed = derive_seed(2024, m)
        agents = [
            make("heuristic" if s % 2 == heuristic_team else "random", GAME, seed=derive_seed(seed, s))
            for s in range(4)
        ]
        state = play_match(GAME, agents, seed=seed)
        wins += state.outcome[heuristic_team] == 1
    assert wins >= matches - 1


# ------------------------------------------------------------- odds and ends


def test_returns_are_shares_of_the_card_points_and_partners_are_equal():
    out = np.zeros(4)
    for state in _visited_states(2, seed=51, every=5):
        K.returns(state.array, OBJECTIVE_DEAL, out)
        assert out[0] == out[2] and out[1] == out[3] and out.min() >= 0 and out.max() <= 1
        assert out[0] + out[1] <= 1


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_records_round_trip_through_json(seed):
    """docs/records.md: records of random matches replay exactly."""
    state = GAME.new_match()
    rng = random.Random(seed)
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(_molodka_rich_vector(derive_seed(seed, state.deal_number)))
            continue
        state.apply(rng.choice(state.legal_actions()))
    record = json.loads(json.dumps(record_of(state)))
    rebuilt = load_record(record)
    assert np.array_equal(rebuilt.array, state.array)
    assert replay_result(rebuilt) == replay_result(state)
    assert record_of(rebuilt) == record


def test_molodkas_appear_in_records():
    """docs/records.md, docs/rules.md §3.17: molodka and pass appear in records."""
    state = GAME.new_match()
    rng = random.Random(3)
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(_molodka_rich_vector(state.deal_number + 70))
            continue
        state.apply(rng.choice(state.legal_actions()))
    record = record_of(state)
    assert any("molodka" in deal["actions"] for deal in record["deals"])
    assert any("pass" in deal["actions"] for deal in record["deals"])


def test_pure_python_playouts_obey_the_rules():
    """docs/rules.md §3.2, §3.15: the plain-Python reference counts 120 card points and charges the
    penalty bands."""
    rng = random.Random(17)
    for _ in range(150):
        result = pure.random_playout(rng)
        points, penalties, winners = result["points"], result["penalties"], result["trick_winners"]
        assert points[0] + points[1] == 120 and points[:2] == points[2:]
        assert penalties[:2] == penalties[2:] and min(penalties[:2]) == 0
        assert 3 <= len(winners) <= 9  # 36 cards, 4 to 16 per trick
        if points[0] == 60:
            assert penalties == [0, 0, 0, 0]
        else:
            loser = 0 if points[0] < 60 else 1
            tricks = sum(1 for w in winners if w % 2 == loser)
            assert penalties[loser] == pure.deal_penalty(points[loser], tricks)
