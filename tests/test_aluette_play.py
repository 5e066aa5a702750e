"""Aluette in play: properties over thousands of random matches, no-leak checks,
the heuristic's documented behaviour in hand-made positions, and its strength."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.engine import contract, make_game
from slagwerk.engine.aluette import kernels as K
from slagwerk.engine.bits import derive_seed, make_rng, popcount
from slagwerk.engine.cards import ALUETTE_DECK
from slagwerk.engine.records import load_record, record_of, replay, replay_result
from slagwerk.engine.state import (
    DEAL_POINTS,
    DEALER,
    LAST_TRICK_WINNER,
    LEADER,
    NOBODY,
    OUTCOME,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)

# ------------------------------------------------------------- properties


@njit(cache=True)
def _expected_score(winners):
    """Deal winner and points from nine trick winners, computed from the rule's words.

    Most tricks; among those tied, the one who reached that count at the
    earliest trick; 2 points when it won no trick before some k <= 8 and
    every trick from k through 9.
    """
    counts = np.zeros(4, np.int64)
    reached = np.zeros(4, np.int64)
    for index in range(9):
        w = winners[index]
        if w >= 0:
            counts[w] += 1
            reached[w] = index
    best = -1
    for s in range(4):
        if counts[s] > 0 and (best < 0 or counts[s] > counts[best]
                              or (counts[s] == counts[best] and reached[s] < reached[best])):
            best = s
    if best < 0:
        return -1, 0
    k = 0
    while winners[k] != best:
        k += 1
    for index in range(k, 9):
        if winners[index] != best:
            return best, 1
    return best, 2 if k <= 7 else 1


@njit(cache=True)
def _check_random_matches(rng, matches, first_dealer, stats):
    """Play ``matches`` random matches in the kernels; 0 if every invariant holds,
    else the number of the first broken one. ``stats`` counts deals, Mordiennes
    and spoiled tricks."""
    state = np.zeros(K.STATE_SIZE, np.int64)
    options = np.array([first_dealer, K.DECK_SIZE, K.HAND_SIZE], np.int64)  # the full game
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    winners = np.zeros(9, np.int64)
    for _ in range(matches):
        K.init_match(state, options)
        totals = np.zeros(2, np.int64)
        for d in range(K.DEALS_PER_MATCH):
            if state[PHASE] != PHASE_DEAL_PENDING or state[DEALER] != (first_dealer + d) % 4:
                return 1
            K.random_deal(state, rng, deal)
            K.apply_deal(state, deal)
            if state[TO_MOVE] != (state[DEALER] + 1) % 4:
                return 2
            dealt = np.uint64(0)
            for s in range(4):
                dealt |= np.uint64(state[K.HANDS + s])
            if popcount(dealt) != 36 or popcount(dealt | np.uint64(state[K.UNDEALT])) != 48:
                return 3
            actions = 0
            while state[PHASE] == PHASE_PLAY:
                before = state[TRICKS_DONE]
                leader = state[LEADER]
                seat = state[TO_MOVE]
                card = K.random_action(state, rng)
                if (np.uint64(state[K.HANDS + seat]) >> np.uint64(card)) & np.uint64(1) == 0:
                    return 4
                K.apply_action(state, card)
                actions += 1
                if state[TRICKS_DONE] > before:
                    w = state[LAST_TRICK_WINNER]
                    winners[before] = w
                    if (w == NOBODY and state[LEADER] != leader) or (w != NOBODY and state[LEADER] != w):
                        return 5
            if actions != 36 or np.uint64(state[K.GONE]) != dealt or state[TRICKS_DONE] != 9:
                return 6
            won = 0
            for s in range(4):
                won += state[K.TRICKS_WON + s]
                if state[K.HANDS + s] != 0:
                    return 7
            if won + state[K.SPOILED] != 9:
                return 8
            best, points = _expected_score(winners)
            for s in range(4):
                expected = points if best >= 0 and s % 2 == best % 2 else 0
                if state[DEAL_POINTS + s] != expected:
                    return 9
            if best >= 0:
                totals[best % 2] += points
            for s in range(4):
                if state[TOTALS + s] != totals[s % 2]:
                    return 10
            stats[0] += 1
            stats[1] += points == 2
            stats[2] += state[K.SPOILED]
        if state[PHASE] != PHASE_MATCH_OVER:
            return 11
        for s in range(4):
            mine, theirs = totals[s % 2], totals[1 - s % 2]
            if state[OUTCOME + s] != (2 if mine > theirs else (1 if mine == theirs else 0)):
                return 12
    return 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62), first_dealer=st.integers(0, 3))
def test_random_matches_keep_every_invariant(seed, first_dealer):
    """docs/rules.md §4.2, §4.5, §4.6, §4.7, §4.8, §4.9: thousands of random deals follow the deal, trick,
    scoring, rotation and match rules."""
    # 25 x 100 matches = 12,500 deals: 36 cards played, tricks + spoiled = 9,
    # points 0/1/2 to one team exactly as the rule's words give them, five deals
    stats = np.zeros(3, np.int64)
    assert _check_random_matches(make_rng(seed), 100, first_dealer, stats) == 0
    assert stats[0] == 500


def test_random_play_produces_mordiennes_and_spoiled_tricks():
    """docs/rules.md §4.5, §4.7: random play produces pourri tricks and Mordiennes, scored by the rules."""
    stats = np.zeros(3, np.int64)
    assert _check_random_matches(make_rng(1), 400, 0, stats) == 0
    assert stats[1] >= 5 and stats[2] > 100  # Mordienne (about 1 deal in 150) and pourri occur


@njit(cache=True)
def _kernel_match(seed_rng, first_dealer):
    state = np.zeros(K.STATE_SIZE, np.int64)
    K.init_match(state, np.array([first_dealer, K.DECK_SIZE, K.HAND_SIZE], np.int64))  # the full game
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    while state[PHASE] != PHASE_MATCH_OVER:
        if state[PHASE] == PHASE_DEAL_PENDING:
            K.random_deal(state, seed_rng, deal)
            K.apply_deal(state, deal)
        else:
            K.apply_action(state, K.random_action(state, seed_rng))
    return state


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62))
def test_same_seed_same_match_and_record_round_trip(seed):
    """docs/rules.md §0.6, docs/records.md: the same seed plays the same match, and its record replays it."""
    assert np.array_equal(_kernel_match(make_rng(seed), 1), _kernel_match(make_rng(seed), 1))
    game = make_game("aluette")
    agents = [make("random", game, seed=derive_seed(seed, s)) for s in range(4)]
    state = play_match(game, agents, seed=seed)
    assert record_of(play_match(game, agents, seed=seed)) == record_of(state)
    record = json.loads(json.dumps(record_of(state)))
    assert np.array_equal(load_record(record).array, state.array)
    assert replay(record) == replay_result(state)
    for log in state.deals:
        assert len(log.actions) == 36 and len(log.trick_winners) == 9
        assert log.points in ([0] * 4, [1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 2, 0], [0, 2, 0, 2])


# ------------------------------------------------------------------ no leak


def _mid_deal(seed: int):
    """A seeded state in the middle of a random deal, and the seat to move."""
    game = make_game("aluette")
    state = game.new_match(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 33))):
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    return state, state.to_move, rng


def _swap_hidden(state, seat, rng):
    """A copy where the other hands and the unused cards are redealt (sizes kept)."""
    other = state.clone()
    places = [K.HANDS + s for s in range(4) if s != seat] + [K.UNDEALT]
    pool = [c for c in range(48) if any(int(other.array[p]) >> c & 1 for p in places)]
    rng.shuffle(pool)
    start = 0
    for p in places:
        size = bin(int(other.array[p])).count("1")
        other.array[p] = sum(1 << c for c in pool[start : start + size])
        start += size
    return other


@pytest.mark.parametrize("seed", range(8))
def test_view_and_heuristic_ignore_cards_hidden_from_the_seat(seed):
    """docs/design.md §4: views and the heuristic ignore the cards hidden from the seat."""
    state, seat, rng = _mid_deal(seed)
    other = _swap_hidden(state, seat, rng)
    assert not np.array_equal(other.array, state.array)
    assert other.view(seat) == state.view(seat)
    # the kernel policy on the true states, and the agent on the views
    for k in range(3):
        assert contract.heuristic_action(other.array.copy(), make_rng(k)) == contract.heuristic_action(
            state.array.copy(), make_rng(k)
        )
    agent = make("heuristic", state.game, seed=seed)
    assert agent.act(other.view(seat)) == agent.act(state.view(seat))
    for s in range(4):
        shown = json.dumps(state.view(s))
        for hidden in range(4):
            if hidden != s:
                for card in ALUETTE_DECK.names(int(state.array[K.HANDS + hidden])):
                    assert f'"{card}"' not in shown, f"seat {s}'s view shows {card} of seat {hidden}"


def test_determinize_keeps_what_the_seat_sees_and_is_uniform():
    """docs/design.md §4: determinize keeps what the seat sees and deals the rest uniformly."""
    state, seat, _ = _mid_deal(3)
    arr = state.array
    others = [s for s in range(4) if s != seat]
    pool = int(arr[K.UNDEALT])
    for s in others:
        pool |= int(arr[K.HANDS + s])
    kept = [K.HANDS + seat, K.GONE, K.N_IN_TRICK, TRICKS_DONE, LEADER, TO_MOVE]
    kept += list(range(K.TRICK, K.TRICK + 4)) + list(range(K.TRICKS_WON, K.SPOILED + 1))
    counts = np.zeros(48)
    rng = make_rng(9)
    rounds = 2000
    for _ in range(rounds):
        world = arr.copy()
        contract.determinize(world, seat, rng)
        assert all(world[i] == arr[i] for i in kept)
        redealt = int(world[K.UNDEALT])
        for s in others:
            assert bin(int(world[K.HANDS + s])).count("1") == bin(int(arr[K.HANDS + s])).count("1")
            redealt |= int(world[K.HANDS + s])
        assert redealt == pool
        for c in range(48):
            counts[c] += int(world[K.HANDS + others[0]]) >> c & 1
    hidden = [c for c in range(48) if pool >> c & 1]
    expected = bin(int(arr[K.HANDS + others[0]])).count("1") / len(hidden)
    assert np.all(np.abs(counts[hidden] / rounds - expected) < 0.05)


# -------------------------------------------------------------- heuristic


def position(seat_hand, trick, leader, won, first, last, tricks_done=0, dealer=0):
    """A kernel state from a hand-made view of the seat to move; the cards of the
    tricks already played are the weakest ones left (so the strong ones are unseen)."""
    game = make_game("aluette")
    used = set(seat_hand) | set(trick)
    free = sorted((c for c in ALUETTE_DECK.names(ALUETTE_DECK.all_mask) if c not in used),
                  key=lambda c: int(K.STRENGTH[ALUETTE_DECK.parse(c)]))
    played = free[: 4 * tricks_done]
    seat = (leader + len(trick)) % 4
    view = {
        "game": "aluette", "options": {}, "seat": seat, "dealer": dealer, "deal_number": 1,
        "to_move": seat, "leader": leader, "tricks_done": len(played) // 4,
        "totals": [0, 0, 0, 0], "deal_points": [0, 0, 0, 0], "history": [],
        "hand": seat_hand, "trick": trick, "played": played,
        "tricks_won": won, "first_win": first, "last_win": last,
    }
    return game.state_from_view(view, seed=0)


def test_heuristic_miss_chance_is_the_hypergeometric_product():
    """The heuristic's chance that ``drawn`` random cards of ``pool`` miss ``marked``
    ones (from log-factorials) equals the product of quotients, for every count."""
    for pool in range(K.DECK_SIZE + 1):
        for marked in range(pool + 1):
            for drawn in range(2 * K.HAND_SIZE + 1):
                product = 1.0 if marked == 0 or drawn == 0 else 0.0 if pool - marked < drawn else np.prod(
                    [(pool - marked - i) / (pool - i) for i in range(drawn)])
                assert K._none_drawn(pool, marked, drawn) == pytest.approx(product, rel=1e-12, abs=1e-15)


def _race_winner_by_scan(won, first, last, index, taker):
    """The deal's leader if trick ``index`` goes to ``taker`` (``NOBODY``: spoiled),
    as the heuristic's docstring words it, one seat after another: most tricks,
    ties to whoever got there first (its latest trick earlier), the earlier seat
    among equal standings. Returns (leader, its tricks, its first trick)."""
    won, first, last = list(won), list(first), list(last)
    if taker != NOBODY:
        won[taker] += 1
        last[taker] = index
        first[taker] = index if first[taker] < 0 else first[taker]
    best = NOBODY
    for s in range(4):
        ahead = best == NOBODY or won[s] > won[best] or (won[s] == won[best] and last[s] < last[best])
        if won[s] and ahead:
            best = s
    return best, (won[best] if best != NOBODY else 0), (first[best] if best != NOBODY else 0)


def _expected_outcome_value(state, taker, team, urgency, trick_weight, run_seat):
    index = int(state[TRICKS_DONE])
    won, first, last = (state[K.TRICKS_WON:K.TRICKS_WON + 4], state[K.FIRST_WIN:K.FIRST_WIN + 4],
                        state[K.LAST_WIN:K.LAST_WIN + 4])
    leader, leader_won, leader_first = _race_winner_by_scan(won, first, last, index, taker)
    margin = 0.0
    if leader != NOBODY:
        run = leader_won >= 2 and leader_won == index + 1 - leader_first and leader != run_seat
        points = 2.0 if run else 1.0
        margin = points if leader % 2 == team else -points
    value = K.RACE_WEIGHT * urgency * margin
    if taker != NOBODY:
        value += trick_weight if taker % 2 == team else -trick_weight
    return value


def test_heuristic_outcome_values_follow_the_race_one_seat_at_a_time():
    """The heuristic judges, in one pass, the deal's race for every seat taking the
    trick, a spoiled trick and the mover without its Mordienne: each value is what
    a plain pass over the seats gives (most tricks, ties to who got there first),
    exactly, in thousands of positions of half-random play (docs/rules.md §4.6, §4.7)."""
    game = make_game("aluette")
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(150):
        state = game.new_match(seed=seed)
        while state.to_move >= 0:
            if state.phase == PHASE_PLAY:
                a = state.array
                mover, team = int(a[TO_MOVE]), int(a[TO_MOVE]) % 2
                urgency, trick_weight = 1.0 / (9 - int(a[TRICKS_DONE])), 0.25 * rng.random()
                values = K._outcome_values(a, team, urgency, trick_weight, mover)
                judged = (team, urgency, trick_weight)
                expected = [_expected_outcome_value(a, taker, *judged, NOBODY) for taker in range(4)]
                assert list(values[:4]) == expected
                assert values[K.SPOILED_INDEX] == _expected_outcome_value(a, NOBODY, *judged, NOBODY)
                assert values[K.MOVER_NO_RUN_INDEX] == _expected_outcome_value(a, mover, *judged, mover)
                checked += 1
            legal = state.legal_actions()
            if rng.random() < 0.5:
                state.apply(int(K.heuristic_action(state.array, make_rng(0))))
            else:
                state.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 5000


def test_heuristic_scores_of_the_legal_actions_in_any_order():
    """``action_scores`` gives each legal action its ``card_scores`` entry, for the
    legal actions as listed (scored without a per-card buffer) and for any other
    order or subset of them."""
    rng = np.random.default_rng(4)
    by_card = np.empty(K.DECK_SIZE)
    out = np.empty(K.MAX_ACTIONS + 1)
    compared = 0
    for seed in range(60):
        state, _, _ = _mid_deal(seed)
        if state.to_move < 0:
            continue
        K.card_scores(state.array, by_card)
        legal = np.array(state.legal_actions(), dtype=np.int64)
        orders = [legal, legal[::-1].copy(), rng.permutation(legal)]
        orders += [np.delete(legal, i) for i in range(len(legal)) if len(legal) > 1]  # one card short
        for actions in orders:
            out[:] = np.nan
            K.action_scores(state.array, make_rng(0), actions, len(actions), out)
            assert list(out[: len(actions)]) == [by_card[c] for c in actions]
            assert np.isnan(out[len(actions):]).all(), "a score written past the actions"
            compared += 1
    assert compared > 200


def heuristic_card(state) -> str:
    return ALUETTE_DECK.name(int(contract.heuristic_action(state.array, make_rng(0))))


def test_heuristic_wins_a_trick_with_its_cheapest_winning_card():
    # seat 0 plays last to the first trick; the opponent's king holds it
    state = position(["3o", "Ab", "Jb", "8c", "4b", "5b", "6b", "7b", "8b"], ["Kc", "4e", "5o"],
                     leader=1, won=[0] * 4, first=[None] * 4, last=[None] * 4)
    assert heuristic_card(state) == "Ab"  # not Monsieur; the knave cannot win


def test_heuristic_leaves_a_trick_its_partner_holds_safely_alone():
    hand = ["3c", "Ab", "Jb", "8c", "4b", "5b", "6b", "7b", "8b"]
    # last to play: the partner's Monsieur wins whatever happens
    state = position(hand, ["Kc", "3o", "5o"], leader=1, won=[0] * 4, first=[None] * 4, last=[None] * 4)
    assert heuristic_card(state) == "4b"
    # third to play, an opponent still to come: Monsieur cannot be beaten or tied
    state = position(hand, ["3o", "5o"], leader=2, won=[0] * 4, first=[None] * 4, last=[None] * 4,
                     dealer=1)
    assert heuristic_card(state) == "4b"


def test_heuristic_spoils_with_an_equal_card_to_keep_its_team_ahead():
    # trick 8: seat 3 (three tricks, reached after seat 2's three) holds it with an ace;
    # seat 0 cannot beat it but can tie: spoiling keeps its partner first to three
    state = position(["Ae", "4b"], ["5c", "6c", "Ac"], leader=1,
                     won=[0, 1, 3, 3], first=[None, 6, 0, 1], last=[None, 6, 4, 5], tricks_done=7)
    assert heuristic_card(state) == "Ae"


def test_heuristic_spoils_to_break_an_opponents_mordienne_run_but_not_for_nothing():
    # seat 1 won tricks 4-7 in a row and leads the 8th with an ace: a tie breaks the run
    run = position(["Ae", "4b"], ["Ab", "5c", "6c"], leader=1,
                   won=[1, 4, 1, 1], first=[0, 3, 1, 2], last=[0, 6, 1, 2], tricks_done=7)
    assert heuristic_card(run) == "Ae"
    # without a run to break, the same tie changes nothing that matters: keep the ace
    no_run = position(["Ae", "4b"], ["Ab", "5c", "6c"], leader=1,
                      won=[1, 4, 2, 0], first=[1, 0, 2, None], last=[1, 6, 3, None], tricks_done=7)
    assert heuristic_card(no_run) == "4b"


def test_heuristic_lets_its_partner_extend_a_winning_run():
    # the partner (seat 2) won tricks 5-7 and leads the 8th with le Borgne; seat 0
    # could take it with Monsieur but that would end the partner's Mordienne run
    state = position(["3o", "4b"], ["2o", "5c"], leader=2,
                     won=[1, 2, 3, 1], first=[0, 1, 4, 3], last=[0, 2, 6, 3], tricks_done=7)
    assert state.to_move == 0
    assert heuristic_card(state) == "4b"


@njit(cache=True)
def _duplicate_deals(start, deals, rng):
    """Match-point margin per deal of a heuristic team over a random team, each
    deal played twice with the teams swapped."""
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    margin = 0.0
    for _ in range(deals):
        K.random_deal(start, rng, deal)
        for heuristic_team in range(2):
            state = start.copy()
            K.apply_deal(state, deal)
            while state[PHASE] == PHASE_PLAY:
                if state[TO_MOVE] % 2 == heuristic_team:
                    card = K.heuristic_action(state, rng)
                else:
                    card = K.random_action(state, rng)
                K.apply_action(state, card)
            margin += state[DEAL_POINTS + heuristic_team] - state[DEAL_POINTS + 1 - heuristic_team]
    return margin / (2 * deals)


def test_heuristic_team_outscores_a_random_team_on_duplicate_deals():
    start = make_game("aluette").new_match().array
    margin = _duplicate_deals(start, 3000, make_rng(17))
    assert margin > 0.3, f"heuristic team gains only {margin:.3f} match points per deal"


def test_heuristic_beats_random_over_seat_rotated_matches():
    game = make_game("aluette")
    score = 0.0
    matches = 24
    for m in range(matches):
        team = m % 2  # the heuristic team alternates between the two partnerships
        agents = [make("heuristic" if s % 2 == team else "random", game, seed=derive_seed(m, s))
                  for s in range(4)]
        score += play_match(game, agents, seed=derive_seed(55, m // 2)).outcome[team]
    # equal teams score half; the heuristic team should win most matches
    assert score / matches > 0.7, f"heuristic team scored only {score}/{matches}"


def test_random_action_draws_every_card_of_the_movers_hand():
    """docs/rules.md §4.4: any card of the hand may be played."""
    state = make_game("aluette").new_match(seed=2)
    rng = make_rng(4)
    draws = [int(K.random_action(state.array, rng)) for _ in range(900)]
    assert set(draws) == set(state.legal_actions())
    assert max(np.bincount(draws)) < 150  # about 100 each
