"""Koetsieren: properties over thousands of random matches, conformance,
information sets (no leaks, determinize), views, the heuristic and pure.py."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.engine import InvalidViewError, contract, make_game
from slagwerk.engine.bits import bit, derive_seed, has, make_rng, popcount
from slagwerk.engine.cards import KOETSIEREN_DECK
from slagwerk.engine.koetsieren import kernels as K
from slagwerk.engine.koetsieren import pure
from slagwerk.engine.records import load_record, record_of, replay, replay_result
from slagwerk.engine.state import (
    DEAL_POINTS,
    DEALER,
    LEADER,
    OBJECTIVE_DEAL,
    OUTCOME,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)

# ------------------------------------------------ invariants inside numba

OK = 0
BAD_CARDS = 1  # slots, played and undealt cards are not a partition of the deck
BAD_LIVE = 2  # the live-slot bits disagree with the slots
BAD_HOLDING = 3  # a seat holds the wrong number of cards for the trick
BAD_LEGAL = 4  # no legal action, or the random action is not among them
BAD_HOOK = 5  # the hook's bid is offered, or the bids total 5 (the deal's tricks)
BAD_DEAL_LENGTH = 6  # a deal did not take 1 + n + 5n decisions and five tricks (hand: 1 + n + hand n)
BAD_SCORE = 7  # penalty, totals or returns inconsistent with bids and tricks
BAD_MATCH_END = 8  # the match ended (or not) against the rule, or a wrong outcome
BAD_ROTATION = 9  # the dealer, trump maker or first player is wrong


@njit(cache=True)
def _cards_code(state, n):
    """Card conservation and slot bookkeeping of a state in a deal (of the deck in play;
    a small variant's slots not dealt stay empty, docs/rules.md §2.15)."""
    hand = state[K.DEALT_HAND]
    gone = np.uint64(state[K.GONE])
    undealt = np.uint64(state[K.UNDEALT])
    if gone & undealt != np.uint64(0):
        return BAD_CARDS
    seen = gone | undealt
    count = popcount(gone) + popcount(undealt)
    in_trick = state[K.N_IN_TRICK] if state[PHASE] == PHASE_PLAY else 0
    for t in range(n):
        held = 0
        for slot in range(K.SLOTS_PER_SEAT):
            c = K.slot_card(state, t, slot)
            live = (state[K.LIVE + t] >> slot) & 1
            if (c != K.EMPTY_SLOT) != (live == 1):
                return BAD_LIVE
            if live and not (K.DEALT_MASKS[hand] >> slot) & 1:
                return BAD_LIVE
            if c != K.EMPTY_SLOT:
                if has(seen, c):
                    return BAD_CARDS
                seen |= bit(c)
                count += 1
                held += 1
        expected = hand - state[TRICKS_DONE]
        if (t - state[LEADER]) % n < in_trick:
            expected -= 1
        if held != expected:
            return BAD_HOLDING
    if count != popcount(np.uint64(state[K.DECK])) or seen != np.uint64(state[K.DECK]):
        return BAD_CARDS
    return OK


@njit(cache=True)
def _deal_code(state, n, dealer, rng, actions, totals_before, rewards):
    """Play one random deal through the contract, checking every step."""
    maker = (dealer + 1) % n
    hand = state[K.DEALT_HAND]
    if state[DEALER] != dealer or state[K.TRUMP_MAKER] != maker or state[TO_MOVE] != maker:
        return BAD_ROTATION
    steps = 0
    while state[PHASE] != PHASE_DEAL_PENDING and state[PHASE] != PHASE_MATCH_OVER:
        code = _cards_code(state, n)
        if code != OK:
            return code
        count = K.legal_actions(state, actions)
        if count == 0:
            return BAD_LEGAL
        if state[PHASE] == K.PHASE_BID and state[TO_MOVE] == maker:
            barred = hand - state[K.BID_SUM]
            for i in range(count):
                if actions[i] == K.BID_BASE + barred:
                    return BAD_HOOK
        if state[PHASE] == PHASE_PLAY and steps == 1 + n and state[TO_MOVE] != maker:
            return BAD_ROTATION  # the trump maker leads the first trick
        action = K.random_action(state, rng)
        legal = False
        for i in range(count):
            legal = legal or actions[i] == action
        if not legal:
            return BAD_LEGAL
        K.apply_action(state, action)
        steps += 1
    if steps != 1 + n + hand * n or state[TRICKS_DONE] != hand:
        return BAD_DEAL_LENGTH
    bids = 0
    tricks = 0
    highest = 0
    for s in range(n):
        bids += state[K.BIDS + s]
        tricks += state[K.TRICKS_WON + s]
        penalty = abs(state[K.BIDS + s] - state[K.TRICKS_WON + s])
        if state[DEAL_POINTS + s] != penalty or state[TOTALS + s] != totals_before[s] + penalty:
            return BAD_SCORE
        highest = max(highest, state[TOTALS + s])
    if bids == hand:
        return BAD_HOOK
    if tricks != hand or np.uint64(state[K.GONE]) | np.uint64(state[K.UNDEALT]) != np.uint64(state[K.DECK]):
        return BAD_CARDS
    K.returns(state, OBJECTIVE_DEAL, rewards)
    for s in range(n):
        if abs(rewards[s] - (1.0 - state[DEAL_POINTS + s] / hand)) > 1e-12:
            return BAD_SCORE
    if highest >= K.LOSING_TOTAL:
        if state[PHASE] != PHASE_MATCH_OVER:
            return BAD_MATCH_END
        for s in range(n):
            if state[OUTCOME + s] != (0 if state[TOTALS + s] == highest else 2):
                return BAD_MATCH_END
    elif state[PHASE] != PHASE_DEAL_PENDING or state[DEALER] != (dealer + 1) % n:
        return BAD_MATCH_END if state[PHASE] != PHASE_DEAL_PENDING else BAD_ROTATION
    return OK


@njit(cache=True)
def check_random_matches(players, first_dealer, matches, rng, stats, ranks=8, hand=5):
    """Play ``matches`` random matches; return the first failure code or OK.

    ``stats`` (int64[3]) receives the deals played, the matches played and
    the matches that ended in a shared loss. ``ranks`` and ``hand``: a small
    variant's options (docs/rules.md §2.15).
    """
    options = np.array([players, first_dealer, ranks, hand], np.int64)
    state = np.zeros(K.STATE_SIZE, np.int64)
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    actions = np.zeros(K.MAX_ACTIONS, np.int64)
    totals = np.zeros(players, np.int64)
    rewards = np.zeros(players)
    for _ in range(matches):
        K.init_match(state, options)
        dealer = first_dealer
        while state[PHASE] != PHASE_MATCH_OVER:
            for s in range(players):
                totals[s] = state[TOTALS + s]
            K.random_deal(state, rng, deal)
            K.apply_deal(state, deal)
            code = _deal_code(state, players, dealer, rng, actions, totals, rewards)
            if code != OK:
                return code
            dealer = (dealer + 1) % players
            stats[0] += 1
        stats[1] += 1
        losers = 0
        for s in range(players):
            losers += state[OUTCOME + s] == 0
        stats[2] += losers > 1
    return OK


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62), players=st.integers(2, 6), first_dealer=st.integers(0, 5))
def test_thousands_of_random_matches_keep_every_invariant(seed, players, first_dealer):
    """docs/rules.md §2.2, §2.4, §2.7, §2.9, §2.10, §2.11: over thousands of random matches the cards, the
    hook, the lead, the penalties, the rotation and the match end follow the rules."""
    stats = np.zeros(3, np.int64)
    code = check_random_matches(players, first_dealer % players, 200, make_rng(seed), stats)
    assert code == OK, f"invariant {code} broken ({players} players, seed {seed})"
    assert stats[1] == 200 and stats[0] >= 200 * 2  # a match lasts at least two deals


def test_every_player_count_plays_thousands_of_matches():
    """docs/rules.md §2.1, §2.12: every player count from 2 to 6 plays; shared highest totals occur and
    all of them lose."""
    for players in range(2, 7):
        stats = np.zeros(3, np.int64)
        assert check_random_matches(players, players - 1, 1000, make_rng(players), stats) == OK
        assert stats[2] > 0, "shared losses happen and are scored by the tie ruling"


@pytest.mark.parametrize("players, ranks, hand", [(2, 2, 2), (2, 2, 1), (3, 4, 3), (2, 3, 4), (3, 3, 4),
                                                   (6, 8, 1), (4, 8, 4)])
def test_small_variants_play_hundreds_of_matches_keeping_every_invariant(players, ranks, hand):
    """docs/rules.md §2.15: in a small variant every deal deals ``hand`` slots a seat from the deck in
    play and has ``hand`` tricks; the hook bars the sum ``hand``; the deal objective is ``1 - penalty /
    hand``; the match still ends at ten, the highest total losing (the invariants above, in numba)."""
    stats = np.zeros(3, np.int64)
    code = check_random_matches(players, players - 1, 300, make_rng(ranks * 10 + hand), stats, ranks, hand)
    assert code == OK, f"invariant {code} broken ({players} players, ranks={ranks}, hand={hand})"
    assert stats[1] == 300 and stats[0] >= 300 * ((9 + hand) // hand)  # a match's deals cost hand at most


@njit(cache=True)
def _random_match(players, rng):
    state = np.zeros(K.STATE_SIZE, np.int64)
    K.init_match(state, np.array([players, 0, K.N_RANKS, K.SLOTS_PER_SEAT], np.int64))
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    steps = 0
    while state[PHASE] != PHASE_MATCH_OVER:
        if state[PHASE] == PHASE_DEAL_PENDING:
            K.random_deal(state, rng, deal)
            K.apply_deal(state, deal)
        else:
            K.apply_action(state, K.random_action(state, rng))
            steps += 1
    return state, steps


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**62), players=st.integers(2, 6))
def test_same_seed_same_match(seed, players):
    """docs/rules.md §0.6: the same seed plays the same match."""
    first, steps = _random_match(players, make_rng(seed))
    again, steps_again = _random_match(players, make_rng(seed))
    assert steps == steps_again and np.array_equal(first, again)


def _random_state_match(players, seed, stop_after=None):
    """A match played by random integer actions through the Python State."""
    game = make_game("koetsieren", players=players, first_dealer=seed % players)
    state = game.new_match()
    rng = make_rng(seed)
    actions = np.zeros(K.MAX_ACTIONS, np.int64)
    steps = 0
    while not state.is_terminal and (stop_after is None or steps < stop_after):
        if state.deal_pending:
            state.deal(rng=rng)
            continue
        state.apply(int(contract.random_action(state.array, rng, actions)))
        steps += 1
    return state


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62), players=st.integers(2, 6))
def test_record_round_trip(seed, players):
    """docs/records.md, docs/rules.md §2.9: records replay random matches exactly; each deal scores the
    distance between bid and tricks."""
    state = _random_state_match(players, seed)
    record = json.loads(json.dumps(record_of(state)))
    rebuilt = load_record(record)
    assert np.array_equal(rebuilt.array, state.array)
    assert replay(record) == replay_result(state)
    assert record_of(rebuilt) == record
    for log in state.deals:
        assert len(log.trick_winners) == K.TRICKS_PER_DEAL
        tricks = np.bincount(log.trick_winners, minlength=players)
        assert log.points == [abs(b - t) for b, t in zip(_bids_of(log, players), tricks)]


def _bids_of(log, players):
    bids = [0] * players
    for seat, text in zip(log.seats, log.texts):
        if text.startswith("bid:"):
            bids[seat] = int(text[4:])
    return bids


def test_unfinished_match_record_round_trip():
    """docs/records.md: a record may stop mid-deal; that deal's points are null."""
    state = _random_state_match(5, 99, stop_after=40)
    record = record_of(state)
    assert np.array_equal(load_record(record).array, state.array)
    assert replay(record)["deals"][-1]["points"] is None


# ------------------------------------------------------------------ no leak

def hidden_from(state, seat):
    """(array index, card) of every unplayed card ``seat`` cannot see, and the
    undealt cards (index None)."""
    arr = state.array
    out = []
    for t in range(state.game.n_players):
        for slot in (K.SLOT_F1, K.SLOT_F2) if t == seat else (K.SLOT_H,):
            index = K.SLOTS + t * K.SLOTS_PER_SEAT + slot
            if arr[index] != K.EMPTY_SLOT:
                out.append((index, int(arr[index])))
    undealt = int(arr[K.UNDEALT])
    out += [(None, c) for c in range(32) if undealt >> c & 1]
    return out


def swap_hidden(state, seat, rng):
    """A copy of ``state`` whose cards hidden from ``seat`` are permuted."""
    hidden = hidden_from(state, seat)
    cards = [c for _, c in hidden]
    for _ in range(20):
        rng.shuffle(cards)
        other = state.clone()
        slots = [index for index, _ in hidden if index is not None]
        for index, c in zip(slots, cards):
            other.array[index] = c
        other.array[K.UNDEALT] = sum(1 << c for c in cards[len(slots) :])
        if not np.array_equal(other.array, state.array):
            return other
    return None


def _random_midgame_states(seed, count):
    rng = random.Random(seed)
    for k in range(count):
        players = rng.randint(2, 6)
        state = _random_state_match(players, derive_seed(seed, k), stop_after=rng.randint(0, 40))
        if not state.is_terminal and not state.deal_pending:
            yield state, rng


def test_views_never_show_hidden_cards_and_ignore_them():
    """docs/rules.md §2.2, docs/design.md §4: a view shows only the slots its seat sees, and decisions
    ignore the rest."""
    checked = 0
    heuristic_checked = 0
    for state, rng in _random_midgame_states(5, 60):
        game = state.game
        for seat in range(game.n_players):
            view = state.view(seat)
            text = json.dumps(view)
            for _, c in hidden_from(state, seat):
                assert f'"{KOETSIEREN_DECK.name(c)}"' not in text, "a view shows a card its seat cannot see"
            other = swap_hidden(state, seat, rng)
            if other is None:
                continue
            assert other.view(seat) == view
            checked += 1
            if state.to_move == seat:
                a = contract.heuristic_action(state.array, make_rng(1))
                b = contract.heuristic_action(other.array, make_rng(1))
                assert a == b, "the heuristic read a card its seat cannot see"
                agent = make("heuristic", game, seed=2)
                assert agent.act(view) == agent.act(other.view(seat))
                heuristic_checked += 1
    assert checked > 100 and heuristic_checked > 20


def test_determinize_never_changes_a_card_the_seat_sees():
    """docs/design.md §4: determinize changes only cards the seat cannot see."""
    for state, _ in _random_midgame_states(6, 40):
        for seat in range(state.game.n_players):
            world = state.array.copy()
            contract.determinize(world, seat, make_rng(seat))
            hidden = {index for index, _ in hidden_from(state, seat)}
            changed = [i for i in range(K.STATE_SIZE) if world[i] != state.array[i]]
            assert set(changed) <= hidden | {K.UNDEALT}
            assert sorted(c for _, c in hidden_from(state, seat)) == sorted(
                c for _, c in hidden_from(state.game.state_from_array(world), seat)
            )
            assert state.game.view(state.game.state_from_array(world), seat) == \
                state.game.view(state.game.state_from_array(state.array), seat)


def test_determinize_deals_the_unseen_cards_uniformly():
    """docs/design.md §4: determinize deals the unseen cards uniformly."""
    state = _random_state_match(4, 21, stop_after=10)  # in the first tricks
    arr = state.array
    seat = next(s for s in range(4) if arr[K.SLOTS + s * 5 + K.SLOT_F1] != K.EMPTY_SLOT)
    pool = sorted(c for _, c in hidden_from(state, seat))
    counts = dict.fromkeys(pool, 0)
    rng = make_rng(3)
    draws = 4000
    for _ in range(draws):
        world = arr.copy()
        contract.determinize(world, seat, rng)
        counts[int(world[K.SLOTS + seat * 5 + K.SLOT_F1])] += 1
    share = np.array([counts[c] for c in pool]) / draws
    assert np.all(np.abs(share - 1 / len(pool)) < 0.03), "each unseen card equally likely on F1"


# ------------------------------------------------------------ views back

def test_state_from_view_rebuilds_every_view_between_and_after_deals():
    for players in (2, 3, 6):
        game = make_game("koetsieren", players=players)
        state = game.new_match(seed=players)
        rng = make_rng(players)
        choose = random.Random(players)
        while not state.is_terminal:
            if state.deal_pending:
                for seat in range(players):
                    view = state.view(seat)
                    assert game.view(game.state_from_view(view), seat) == dict(view, history=[])
                state.deal(rng=rng)
            for seat in range(players):
                view = state.view(seat)
                rebuilt = game.state_from_view(view, seed=seat)
                assert game.view(rebuilt, seat) == dict(view, history=[])
            state.apply(choose.choice(state.legal_actions()))
        for seat in range(players):
            view = state.view(seat)
            rebuilt = game.state_from_view(view)
            assert rebuilt.is_terminal and rebuilt.outcome == state.outcome


def _bidding_view():
    state = make_game("koetsieren").new_match(seed=7)
    for text in ("trump:h", "bid:1", "bid:2"):
        state.apply(text)
    return state.view(state.to_move)


def _playing_view():
    state = make_game("koetsieren").new_match(seed=7)
    for text in ("trump:h", "bid:1", "bid:2", "bid:0", "bid:1"):
        state.apply(text)
    state.apply(state.legal_actions()[0])
    return state.view(state.to_move)


def _set_slot(view, owner, key, index, value):
    hands = json.loads(json.dumps(view["hands"]))
    if index is None:
        hands[owner][key] = value
    else:
        hands[owner][key][index] = value
    return dict(view, hands=hands)


@pytest.mark.parametrize(
    "make_bad, message",
    [
        (lambda v: _set_slot(v, v["seat"], "forehead", 0, "7s"), "cannot see that card"),
        (lambda v: _set_slot(v, (v["seat"] + 1) % 4, "hidden", None, "7s"), "cannot see that card"),
        (lambda v: _set_slot(v, 0, "table", 0, "??"), "is '\\?\\?', but seat"),
        (lambda v: _set_slot(v, 0, "table", 1, v["hands"][0]["table"][0]), "appears twice"),
        (lambda v: _set_slot(v, 1, "table", 1, None), "should hold"),
        (lambda v: dict(v, to_move=(v["to_move"] + 1) % 4), "cannot be to move"),
        (lambda v: dict(v, trump_maker=(v["trump_maker"] + 1) % 4), "not left of the deal's dealer"),
        (lambda v: dict(v, bids=[None, 2, 1, None]), "not a prefix of the bidding order"),
        (lambda v: dict(v, trump=None), "bids were made before trump"),
        (lambda v: dict(v, trump="x"), "'trump' must be one of"),
        (lambda v: dict(v, tricks_won=[1, 0, 0, 0]), "do not add up to tricks_done"),
        (lambda v: dict(v, played=["As"]), "no card can have been played|appears twice"),
        (lambda v: dict(v, cheat=1), "unknown field 'cheat'"),
        (lambda v: {k: x for k, x in v.items() if k != "hands"}, "needs the field 'hands'"),
        (lambda v: dict(v, hands=v["hands"][:3]), "must list 4 hands"),
    ],
)
def test_state_from_view_rejects_impossible_bidding_views(make_bad, message):
    game = make_game("koetsieren")
    view = _bidding_view()
    game.state_from_view(view)  # the view itself is fine
    with pytest.raises(InvalidViewError, match=message):
        game.state_from_view(make_bad(view))


def test_state_from_view_rejects_impossible_playing_views():
    game = make_game("koetsieren")
    view = _playing_view()
    game.state_from_view(view)
    with pytest.raises(InvalidViewError, match="add up to 5: the hook forbids that"):
        game.state_from_view(dict(view, bids=[1, 2, 1, 1]))
    unseen = next(c for c in KOETSIEREN_DECK.names(2**32 - 1) if f'"{c}"' not in json.dumps(view))
    with pytest.raises(InvalidViewError, match="do not make 0 complete tricks"):
        game.state_from_view(dict(view, played=[unseen]))
    with pytest.raises(InvalidViewError, match="deal_points"):
        game.state_from_view(dict(view, deal_points=[0, 1, 0, 0]))
    with pytest.raises(InvalidViewError, match="leads the first trick"):
        game.state_from_view(dict(view, leader=0, to_move=1))


# ----------------------------------------------------------------- strength

def _penalty_per_round(players, matches, seed):
    """Average deal penalty of the heuristic seat and of the random seats."""
    game = make_game("koetsieren", players=players)
    heuristic, randoms = [], []
    for m in range(matches):
        hero = m % players  # the heuristic's seat rotates
        agents = [make("heuristic" if s == hero else "random", game, seed=derive_seed(seed, m, s))
                  for s in range(players)]
        state = play_match(game, agents, seed=derive_seed(seed, m))
        for log in state.deals:
            heuristic.append(log.points[hero])
            randoms += [p for s, p in enumerate(log.points) if s != hero]
    return np.mean(heuristic), np.mean(randoms), len(heuristic)


@pytest.mark.parametrize("players, matches", [(4, 8), (2, 10), (6, 6)])
def test_heuristic_takes_far_fewer_penalty_points_than_random(players, matches):
    hero, rest, rounds = _penalty_per_round(players, matches, seed=31 + players)
    assert rounds >= 2 * matches
    assert hero < 0.6 * rest, f"heuristic {hero:.2f} vs random {rest:.2f} per round over {rounds} rounds"


def test_heuristic_bids_and_trump_follow_their_documented_rules():
    game = make_game("koetsieren", players=4)
    for seed in range(30):
        state = game.new_match(seed=seed)
        maker = state.to_move
        known = [int(state.array[K.SLOTS + maker * 5 + s]) for s in (K.SLOT_T1, K.SLOT_T2, K.SLOT_H)]
        counts = [sum(c // 8 == suit for c in known) for suit in range(4)]
        action = int(contract.heuristic_action(state.array, make_rng(0)))
        assert counts[action - K.TRUMP_BASE] == max(counts), "trump is the maker's longest known suit"
        state.apply(action)
        while state.phase == K.PHASE_BID:
            seat = state.to_move
            estimate = K.expected_tricks(state.array, seat)
            bid = int(contract.heuristic_action(state.array, make_rng(0))) - K.BID_BASE
            allowed = [b - K.BID_BASE for b in state.legal_actions()]
            assert bid in allowed
            assert abs(bid - estimate) == min(abs(b - estimate) for b in allowed)
            state.apply(K.BID_BASE + bid)


def _documented_trick_estimate(array, seat):
    """``expected_tricks`` as its docstring says: each card's chance as a lead
    (``win_chance``), a trump's in full and another's weighted, each forehead
    card at the average value of the cards the seat cannot see (in card order)."""
    unseen = K.unseen_mask(array, seat)
    shown = np.empty(K.N_SEATS, np.uint64)
    K.shown_cards(array, shown)

    def value(card):
        weight = K.TRUMP_BID_WEIGHT if K.suit_of(card) == array[K.TRUMP] else K.NONTRUMP_BID_WEIGHTS[
            array[K.N_PLAYERS]]
        return K.win_chance(array, seat, card, unseen, True, shown) * weight

    blind = [c for c in range(K.DECK_SIZE) if has(unseen, c)]
    blind_value = 0.0
    for card in blind:
        blind_value += value(card)
    blind_value /= len(blind)
    estimate = 0.0
    for slot in range(K.SLOTS_PER_SEAT):
        estimate += blind_value if K.is_forehead(slot) else value(K.slot_card(array, seat, slot))
    return estimate


@pytest.mark.parametrize("players", [2, 4, 6])
def test_trick_estimate_is_its_documented_formula(players):
    """The heuristic's trick estimate (its bids, and the belief's reading of them)
    equals its documented formula to the last bit, for every seat at every bid
    of random matches."""
    game = make_game("koetsieren", players=players)
    compared = 0
    for seed in range(40):
        state = game.new_match(seed=seed)
        rng = np.random.default_rng(seed)
        while state.phase != PHASE_PLAY:
            for seat in range(players):
                assert K.expected_tricks(state.array, seat) == _documented_trick_estimate(state.array, seat)
                compared += 1
            legal = state.legal_actions()
            state.apply(int(legal[int(rng.integers(len(legal)))]))
    assert compared >= 40 * players * (players + 1)  # the trump, then a bid per seat


def _documented_play_scores(array, seat):
    """``_slot_scores`` as its docstring says, from ``win_chance`` judged both ways for
    every card (forehead cards: averaged over the unseen cards, in card order)."""
    unseen = K.unseen_mask(array, seat)
    shown = np.empty(K.N_SEATS, np.uint64)
    K.shown_cards(array, shown)
    need = array[K.BIDS + seat] - array[K.TRICKS_WON + seat]
    left = K.TRICKS_PER_DEAL - array[K.TRICKS_DONE]
    blind = [c for c in range(K.DECK_SIZE) if has(unseen, c)]
    blind_now = blind_later = 0.0
    for card in blind:
        blind_now += K.win_chance(array, seat, card, unseen, False, shown)
        blind_later += K.win_chance(array, seat, card, unseen, True, shown)
    scores = {}
    for slot in range(K.SLOTS_PER_SEAT):
        card = K.slot_card(array, seat, slot)
        if card == K.EMPTY_SLOT:
            continue
        if K.is_forehead(slot):
            now, later = blind_now / len(blind), blind_later / len(blind)
        else:
            now = K.win_chance(array, seat, card, unseen, False, shown)
            later = K.win_chance(array, seat, card, unseen, True, shown)
        if need >= left:
            scores[slot] = now
        elif need > 0:
            scores[slot] = now - K.SPEND_WEIGHT * later
        else:
            scores[slot] = -now + K.SHED_WEIGHT * later
    return scores


def _random_play_positions(players, matches):
    """Every card decision of ``matches`` random matches (the state, then
    played on at random)."""
    game = make_game("koetsieren", players=players)
    for seed in range(matches):
        state = game.new_match(seed=seed)
        rng = np.random.default_rng(seed)
        deals = 0
        while not state.is_terminal:
            if state.deal_pending:
                state.deal(rng=make_rng(1000 * seed + deals))
                deals += 1
                continue
            legal = state.legal_actions()
            if state.phase == PHASE_PLAY:
                yield state
            state.apply(int(legal[int(rng.integers(len(legal)))]))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_play_scores_are_exactly_their_documented_formula(players):
    # The kernel judges a lead's chance once (it is the chance now when the
    # trick is empty); the scores must stay equal to the last bit.
    compared = 0
    for state in _random_play_positions(players, 8):
        actions = np.array(state.legal_actions(), dtype=np.int64)
        scores = np.empty(K.MAX_ACTIONS)
        K.action_scores(state.array, make_rng(0), actions, len(actions), scores)
        expected = _documented_play_scores(state.array, state.to_move)
        assert [scores[i] for i in range(len(actions))] == [expected[int(a)] for a in actions]
        compared += len(actions)
    assert compared > 500


def _documented_win_chance(array, seat, card, unseen, as_lead):
    """``win_chance`` from its docstring and the trick rule (rules.md §2.8), in
    plain Python: the seats still to play in order, seats with no card left
    skipped, the same arithmetic, so equal to the last bit."""
    n = int(array[K.N_PLAYERS])
    trump = int(array[K.TRUMP])
    played = 0 if as_lead else int(array[K.N_IN_TRICK])
    trick = [int(array[K.TRICK + k]) for k in range(played)]
    led = trick[0] // 8 if trick else card // 8
    if card // 8 not in (led, trump):
        return 0.0
    if trick:
        trumps = [c for c in trick if c // 8 == trump]
        best = max(trumps) if trumps else max(c for c in trick if c // 8 == led)
        if not (card > best if card // 8 == best // 8 else card // 8 == trump):
            return 0.0
    threats = {c for c in range(K.DECK_SIZE) if c // 8 == card // 8 and c > card}
    if card // 8 != trump:
        threats |= {c for c in range(K.DECK_SIZE) if c // 8 == trump}
    pool = {c for c in range(K.DECK_SIZE) if has(unseen, c)} - {card}
    hidden_threat = len(threats & pool) / len(pool) if pool else 0.0
    chance = 1.0
    for k in range(1, n - played):
        t = (seat + k) % n
        slots = [int(array[K.SLOTS + t * K.SLOTS_PER_SEAT + s]) for s in range(K.SLOTS_PER_SEAT)]
        held = sum(c != K.EMPTY_SLOT for c in slots)
        if held == 0:
            continue
        expected = float(len(threats & set(slots[:K.SLOT_H])))
        if slots[K.SLOT_H] != K.EMPTY_SLOT:
            expected += hidden_threat
        chance *= 1.0 - expected / held
    return chance


@pytest.mark.parametrize("players", [2, 4, 6])
def test_win_chance_is_its_documented_formula(players):
    # The kernel judges a card's chance now and as a lead in one pass (the
    # first as a partial product of the second): each must equal its formula.
    compared = 0
    for state in _random_play_positions(players, 6):
        array, seat = state.array, state.to_move
        unseen = K.unseen_mask(array, seat)
        shown = np.empty(K.N_SEATS, np.uint64)
        K.shown_cards(array, shown)
        own = [K.slot_card(array, seat, s) for s in (K.SLOT_T1, K.SLOT_T2, K.SLOT_H)]
        blind = [c for c in range(K.DECK_SIZE) if has(unseen, c)]
        leading = array[K.N_IN_TRICK] == 0
        for card in [c for c in own if c != K.EMPTY_SLOT] + blind:
            lead = _documented_win_chance(array, seat, card, unseen, True)
            now = _documented_win_chance(array, seat, card, unseen, False)
            assert K.win_chance(array, seat, card, unseen, True, shown) == lead, card
            assert K.win_chance(array, seat, card, unseen, False, shown) == now, card
            # The one pass the heuristic runs, mid-trick too.
            assert K._win_chances(array, seat, card, unseen, shown, leading) == (lead, now), card
            compared += 1
    assert compared > 1000


# ------------------------------------------------------------------ pure.py

def test_pure_playouts_obey_the_rules():
    """docs/rules.md §2.4, §2.9: the plain-Python reference keeps the hook and scores |bid - tricks|."""
    rng = random.Random(4)
    for k in range(3000):
        players = 2 + k % 5
        result = pure.random_playout(rng, players=players, dealer=k % players)
        assert sum(result.tricks) == 5 and len(result.trick_winners) == 5
        assert sum(result.bids) != 5, "the hook keeps the bids from totalling 5"
        assert all(0 <= b <= 5 for b in result.bids) and result.trump in "cdhs"
        assert result.penalties == [abs(b - t) for b, t in zip(result.bids, result.tricks)]
        assert result.tricks == [result.trick_winners.count(s) for s in range(players)]


@njit(cache=True)
def _numba_mean_penalty(players, deals, rng):
    state = np.zeros(K.STATE_SIZE, np.int64)
    K.init_match(state, np.array([players, 0, K.N_RANKS, K.SLOTS_PER_SEAT], np.int64))
    start = state.copy()
    deal = np.zeros(K.DEAL_SIZE, np.int64)
    total = 0
    for _ in range(deals):
        state[:] = start
        K.random_deal(state, rng, deal)
        K.apply_deal(state, deal)
        while state[PHASE] != PHASE_DEAL_PENDING and state[PHASE] != PHASE_MATCH_OVER:
            K.apply_action(state, K.random_action(state, rng))
        total += state[DEAL_POINTS]
    return total / deals


def test_pure_and_numba_random_deals_score_alike():
    # the same random process in both: seat 0's mean penalty agrees within noise
    deals = 20000
    rng = random.Random(8)
    pure_mean = np.mean([pure.random_playout(rng).penalties[0] for _ in range(deals)])
    numba_mean = _numba_mean_penalty(4, deals, make_rng(8))
    assert abs(pure_mean - numba_mean) < 0.06, (pure_mean, numba_mean)  # ~5 standard errors
