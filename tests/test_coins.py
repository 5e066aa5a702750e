"""Coins (docs/rules.md §1): every rule and ruling, properties, views, strength."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from paths import EXAMPLES
from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.engine import (
    CardError,
    IllegalActionError,
    InvalidRecordError,
    InvalidViewError,
    OptionError,
    contract,
    make_game,
)
from slagwerk.engine.bits import derive_seed, make_rng
from slagwerk.engine.cards import COINS_DECK
from slagwerk.engine.coins import kernels as K
from slagwerk.engine.records import load_record, record_of, replay
from slagwerk.engine.state import OBJECTIVE_DEAL

card = COINS_DECK.parse


def winner(a: str, b: str, c: str) -> int:
    return int(K.trick_winner_position(card(a), card(b), card(c)))


# ------------------------------------------------------------------ tricks

@pytest.mark.parametrize(
    "cards, expected, why",
    [
        # three suits: the missing suit beats the next one in the cycle, whose card wins
        (("2c", "Ao", "Ae"), 0, "missing clubs: cups > coins > swords, cups win"),
        (("Ao", "2e", "Kb"), 0, "missing cups: coins > swords > clubs, coins win"),
        (("Ac", "2e", "Kb"), 1, "missing coins: swords > clubs > cups, swords win"),
        (("Ac", "Ko", "2b"), 2, "missing swords: clubs > cups > coins, clubs win"),
        (("3o", "2b", "Ac"), 1, "missing swords: clubs win even led second and low"),
        # two of a suit: the higher of the pair wins, the odd card never does
        (("5e", "9e", "Ac"), 1, "pair of swords: 9e beats 5e; the cup is odd"),
        (("Kb", "Ao", "2b"), 0, "pair of clubs: Kb wins; Ao is odd and loses"),
        (("2o", "Ae", "3o"), 2, "pair of coins: 3o beats 2o"),
        (("Jc", "Nc", "Ab"), 1, "pair of cups: knight beats knave; clubs would beat cups but are odd"),
        # one suit: highest wins
        (("Jo", "Ko", "No"), 1, "king beats knight beats knave"),
        (("Ab", "2b", "3b"), 0, "ace is the highest rank"),
        (("9e", "Je", "8e"), 1, "knave (sota) beats 9"),
    ],
)
def test_trick_winner(cards, expected, why):
    """docs/rules.md §1.5, §1.2, §1.1: three suits (the top of the cycle's chain), a pair and an odd card
    (the pair's higher card), one suit (the highest)."""
    assert winner(*cards) == expected, why


def test_trick_winner_is_a_function_of_suits_and_ranks_only():
    """docs/rules.md §1.5, over every trick of three cards: the pair's higher card, the highest of one
    suit, the suit the absent one beats."""
    # exhaustive: the winner is always one of the same-suit cards when a pair exists
    for a in range(48):
        for b in range(48):
            for c in range(48):
                if len({a, b, c}) < 3:
                    continue
                w = K.trick_winner_position(a, b, c)
                suits = [x // 12 for x in (a, b, c)]
                trio = (a, b, c)
                if len(set(suits)) == 2:
                    shared = max(set(suits), key=suits.count)
                    assert suits[w] == shared
                    assert trio[w] == max(x for x in trio if x // 12 == shared)
                elif len(set(suits)) == 1:
                    assert trio[w] == max(trio)
                else:
                    missing = ({0, 1, 2, 3} - set(suits)).pop()
                    assert suits[w] == (missing + 1) % 4


# ----------------------------------------------------------- a whole deal

HANDS_BY_SUIT = [
    # seat 0: all cups and four coins; seat 1: swords and four coins; seat 2: clubs and four coins
    [f"{r}c" for r in "23456789JNKA"] + ["2o", "3o", "4o", "5o"],
    [f"{r}e" for r in "23456789JNKA"] + ["6o", "7o", "8o", "9o"],
    [f"{r}b" for r in "23456789JNKA"] + ["Jo", "No", "Ko", "Ao"],
]


def coins_record(actions, dealer=0, target=10, deals=None):
    return {
        "game": "coins",
        "options": {"target": target},
        "deals": deals or [{"dealer": dealer, "hands": HANDS_BY_SUIT, "actions": actions}],
    }


def test_left_of_dealer_leads_first_and_winner_leads_next():
    """docs/rules.md §1.3, §1.6, §1.8: with first_dealer 2 seat 0 (on the dealer's left) leads; the winner
    scores the trick's coins and leads next."""
    game = make_game("coins", first_dealer=2)
    state = game.new_match()
    state.deal(game.deal_from_json({"hands": HANDS_BY_SUIT}))
    assert state.dealer == 2 and state.to_move == 0  # left of seat 2 is seat 0
    # 2c (cups), 6o (coins), 2b (clubs): missing swords -> clubs > cups > coins: seat 2 wins
    for text in ("2c", "6o", "2b"):
        state.apply(text)
    assert state.deals[-1].trick_winners == [2]
    assert state.to_move == 2 and state.leader == 2
    assert state.deal_points == [0, 0, 1]  # one coin in the trick


def test_winner_scores_one_point_per_coin_in_the_trick():
    """docs/rules.md §1.6: the trick's winner scores one point per coin in it."""
    # dealer 0, so seat 1 leads 6o, seat 2 plays Jo, seat 0 plays 2o: all coins, Jo wins
    result = replay(coins_record(["6o", "Jo", "2o"]))
    assert result["deals"][0]["trick_winners"] == [2]
    assert result["totals"] == [0, 0, 3]
    assert result["deals"][0]["points"] is None  # unfinished deal


def test_match_ends_the_moment_the_target_is_reached_mid_deal():
    """docs/rules.md §1.7: the match ends the moment a score reaches the target, mid-deal; the record ends
    there (docs/records.md)."""
    # target 3: the first trick (three coins) ends the match at once
    state = load_record(coins_record(["6o", "Jo", "2o"], target=3))
    assert state.is_terminal and state.outcome == [0, 0, 1]
    result = replay(coins_record(["6o", "Jo", "2o"], target=3))
    assert result["deals"][0]["points"] == [0, 0, 3]  # the deal counts as scored
    with pytest.raises(InvalidRecordError, match=r"deal 1, action 3 \('2e'\): the match is already over"):
        load_record(coins_record(["6o", "Jo", "2o", "2e"], target=3))


def test_next_dealer_is_right_of_the_last_trick_winner():
    """docs/rules.md §1.7: the next dealer sits right of the last trick's winner, who then leads first."""
    game = make_game("coins", target=1000)
    state = game.new_match()
    rng = make_rng(5)
    state.deal(rng=rng)
    while not state.deal_pending:
        state.apply(state.legal_actions()[0])
    last = state.deals[-1].trick_winners[-1]
    assert state.dealer == (last - 1) % 3
    state.deal(rng=rng)
    assert state.to_move == last  # the last winner, left of the new dealer, leads


def test_wrong_dealer_in_record_is_an_error():
    """docs/rules.md §0.4, §1.8: a record's first dealer is its first deal's dealer; a first_dealer option
    that disagrees is an error."""
    record = coins_record([], dealer=0)
    record["deals"][0]["dealer"] = 0
    full = load_record(record)
    assert full.dealer == 0
    record["options"]["first_dealer"] = 1
    with pytest.raises(InvalidRecordError, match="first_dealer=1 disagrees"):
        load_record(record)


def test_dealer_of_a_later_deal_must_follow_the_last_trick_winner():
    """docs/rules.md §1.7: a later deal's dealer in a record must be the one the rules name
    (docs/records.md)."""
    example = EXAMPLES / "coins-1001.json"
    record = json.loads(example.read_text())["record"]
    assert load_record(record).deal_number == 2
    record["deals"][1]["dealer"] = 1  # the last trick of deal 1 went to seat 1: dealer must be 0
    with pytest.raises(InvalidRecordError, match=r"deal 2: dealer 1 contradicts the rules .*seat 0"):
        load_record(record)


def test_deal_after_unfinished_deal_is_an_error():
    """docs/records.md: no deal may follow an unfinished one."""
    deal = {"dealer": 0, "hands": HANDS_BY_SUIT, "actions": ["6o"]}
    with pytest.raises(InvalidRecordError, match="deal 1 is unfinished"):
        load_record(coins_record(None, deals=[deal, dict(deal)]))


def test_illegal_action_error_names_deal_index_action_and_reason():
    """docs/records.md: an illegal action's error names the deal, the action's index, the action and why."""
    with pytest.raises(InvalidRecordError) as err:
        load_record(coins_record(["6o", "2c"]))  # 2c is seat 0's card; seat 2 is to move
    text = str(err.value)
    assert "deal 1" in text and "action 1" in text and "'2c'" in text and "not legal for seat 2" in text


def test_bad_cards_and_options_are_clear_errors():
    """docs/rules.md §0.7, §1.9: card notation; unknown options and cards dealt twice are clear errors
    (docs/records.md)."""
    with pytest.raises(CardError, match="rank 'Z'"):
        COINS_DECK.parse("Zo")
    with pytest.raises(CardError, match="suit 'x'"):
        COINS_DECK.parse("Ax")
    with pytest.raises(OptionError, match="unknown option 'players'"):
        make_game("coins", players=4)
    with pytest.raises(OptionError, match="unknown game 'chess'"):
        make_game("chess")
    bad = [list(h) for h in HANDS_BY_SUIT]
    bad[0][0] = bad[1][0]
    with pytest.raises(InvalidRecordError, match="dealt twice"):
        load_record(coins_record([], deals=[{"dealer": 0, "hands": bad, "actions": []}]))


def test_apply_checks_legality_and_names_the_legal_actions():
    """docs/rules.md §1.4: a player plays a card of their own hand."""
    state = make_game("coins").new_match(seed=1)
    with pytest.raises(IllegalActionError, match="not legal for seat 1"):
        state.apply(state.deals[-1].vector[0].item())  # a card of seat 0


RANKS_HIGH_TO_LOW = "AKNJ98765432"  # the rule book's order (§1.1), not the engine's indices


@pytest.mark.parametrize("suit", "ocbe")
def test_every_rank_beats_every_lower_rank_of_its_suit(suit):
    """docs/rules.md §1.1, §1.5: within a suit the ranks go A K N J 9 8 7 6 5 4 3 2; of two cards of one
    suit with an odd card beside them, the higher rank wins, whichever of them was played first."""
    odd = "2o" if suit != "o" else "2c"
    for i, high in enumerate(RANKS_HIGH_TO_LOW):
        for low in RANKS_HIGH_TO_LOW[i + 1:]:
            assert winner(low + suit, high + suit, odd) == 1, f"{high}{suit} beats {low}{suit}"
            assert winner(high + suit, odd, low + suit) == 0, f"{high}{suit} beats {low}{suit}"


def test_a_follower_may_play_any_card_even_holding_the_suit_led():
    """docs/rules.md §1.4: no duty to follow suit: the second and third players may play any card of
    their hand, including another suit while they hold the suit led."""
    checked = 0
    for seed in range(40):
        state = make_game("coins").new_match(seed=seed)
        rng = make_rng(seed)
        while not state.is_terminal and not state.deal_pending and state.tricks_done < 6:
            view = state.view(state.to_move)
            if view["trick"]:
                led_suit = view["trick"][0][-1]
                hand = view["hand"]
                assert sorted(state.legal_texts()) == sorted(hand)
                if any(c[-1] == led_suit for c in hand) and any(c[-1] != led_suit for c in hand):
                    checked += 1
            state.apply(int(contract.random_action(state.array, rng, np.zeros(64, np.int64))))
    assert checked > 100  # positions that hold the suit led and another suit


def test_the_default_target_is_ten():
    """docs/rules.md §1.7: the option `target` defaults to 10: a match ends when a score first reaches 10."""
    game = make_game("coins")
    assert game.options["target"] == 10
    for seed in range(5):
        state = game.new_match(seed=seed)
        rng = make_rng(seed)
        while not state.is_terminal:
            if state.deal_pending:
                state.deal(rng=rng)
                continue
            assert max(state.totals) < 10
            state.apply(int(contract.random_action(state.array, rng, np.zeros(64, np.int64))))
        assert max(state.totals) >= 10 and sorted(state.outcome) == [0, 0, 1]


def test_a_target_reached_on_the_last_trick_of_a_deal_ends_the_match():
    """docs/rules.md §1.7: a score that reaches the target with the deal's last trick ends the match:
    no further deal, the winner alone scores 1."""
    found = 0
    for seed in range(200):
        first = make_game("coins", target=1000).new_match(seed=seed)
        rng = make_rng(seed)
        actions = []
        while not first.deal_pending:
            action = int(contract.random_action(first.array, rng, np.zeros(64, np.int64)))
            actions.append(action)
            first.apply(action)
        last = first.deals[-1].trick_winners[-1]
        totals = first.totals
        before = list(totals)
        before[last] -= sum(COINS_DECK.name(a).endswith("o") for a in actions[-3:])
        # the last trick takes its winner past everyone's score: a target there is first reached then
        if max(before) >= totals[last] or sorted(totals)[-2] >= totals[last]:
            continue
        state = make_game("coins", target=totals[last]).new_match(seed=seed)
        for action in actions[:-1]:
            state.apply(action)
            assert not state.is_terminal
        state.apply(actions[-1])
        assert state.is_terminal and not state.deal_pending
        assert state.outcome == [1 if s == last else 0 for s in range(3)]
        found += 1
    assert found >= 5


# ------------------------------------------------------------- properties

def _play_random_deals(seed: int, deals: int):
    game = make_game("coins", target=1000)
    state = game.new_match()
    rng = make_rng(seed)
    for _ in range(deals):
        state.deal(rng=rng)
        totals_before = state.totals
        played: list[int] = []
        while not state.deal_pending:
            before = state.totals
            action = int(contract.random_action(state.array, rng, np.zeros(64, np.int64)))
            state.apply(action)
            played.append(action)
            assert all(a >= b for a, b in zip(state.totals, before)), "scores never decrease"
        assert sorted(played) == list(range(48)), "every card played exactly once"
        assert sum(state.deal_points) == 12, "12 coins per complete deal"
        assert [t - b for t, b in zip(state.totals, totals_before)] == state.deal_points
        assert len(state.deals[-1].trick_winners) == 16
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**62))
def test_random_deals_conserve_cards_and_coins(seed):
    """docs/rules.md §1.3, §1.6: a deal plays all 48 cards in 16 tricks and scores exactly its 12 coins."""
    _play_random_deals(seed, deals=50)  # 40 x 50 = 2000 deals


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**62), target=st.integers(1, 30))
def test_match_ends_exactly_when_the_target_is_reached(seed, target):
    """docs/rules.md §1.7, §0.6: the match ends exactly when a score reaches the target and that player
    alone wins; the same seed plays the same match."""
    game = make_game("coins", target=target)
    agents = [make("random", game, seed=derive_seed(seed, s)) for s in range(3)]
    checks = []

    def on_action(state, seat, text):
        reached = max(state.totals) >= target
        checks.append(reached == state.is_terminal)

    state = play_match(game, agents, seed=seed, on_action=on_action)
    assert all(checks)
    assert max(state.totals) >= target and sorted(state.totals)[-2] < target
    assert state.outcome[state.totals.index(max(state.totals))] == 1
    assert sum(state.outcome) == 1
    # same seed, same match; the record replays it exactly
    assert record_of(play_match(game, agents, seed=seed)) == record_of(state)
    assert np.array_equal(load_record(record_of(state)).array, state.array)




# ------------------------------------------------------------------ no leak

def _swap_hidden(state, seat, rng):
    """A copy where the two other hands exchange cards (sizes kept)."""
    other = state.clone()
    a, b = [s for s in range(3) if s != seat]
    pool = int(other.array[K.HANDS + a]) | int(other.array[K.HANDS + b])
    cards = [c for c in range(48) if pool >> c & 1]
    rng.shuffle(cards)
    size_a = bin(int(other.array[K.HANDS + a])).count("1")
    other.array[K.HANDS + a] = sum(1 << c for c in cards[:size_a])
    other.array[K.HANDS + b] = sum(1 << c for c in cards[size_a:])
    return other


@pytest.mark.parametrize("seed", range(6))
def test_view_and_heuristic_ignore_cards_hidden_from_the_seat(seed):
    """docs/design.md §4: a view and the heuristic ignore the cards hidden from the seat."""
    game = make_game("coins")
    state = game.new_match(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 30))):
        state.apply(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
    seat = state.to_move
    other = _swap_hidden(state, seat, rng)
    assert not np.array_equal(other.array, state.array)
    assert other.view(seat) == state.view(seat)
    heuristic = make("heuristic", game, seed=3)
    assert heuristic.act(other.view(seat)) == heuristic.act(state.view(seat))
    for s in range(3):
        if s != seat:
            assert "??" not in str(state.view(s)["hand"])
            hidden = set(COINS_DECK.names(int(state.array[K.HANDS + seat])))
            assert not hidden & set(state.view(s)["hand"]), "a view shows another seat's card"


def test_determinize_keeps_what_the_seat_sees_and_is_uniform():
    """docs/design.md §4: determinize keeps what the seat sees and deals the rest uniformly."""
    game = make_game("coins")
    state = game.new_match(seed=4)
    for _ in range(7):
        state.apply(state.legal_actions()[0])
    seat = state.to_move
    first, second = [s for s in range(3) if s != seat]
    hand_of = lambda s: int(state.array[K.HANDS + s])  # noqa: E731
    pool = [c for c in range(48) if (hand_of(first) | hand_of(second)) >> c & 1]
    counts = np.zeros(48)
    rng = make_rng(9)
    for _ in range(3000):
        world = state.array.copy()
        contract.determinize(world, seat, rng)
        assert world[K.HANDS + seat] == state.array[K.HANDS + seat]
        assert world[K.GONE] == state.array[K.GONE]
        for c in range(48):
            counts[c] += int(world[K.HANDS + first]) >> c & 1
    share = counts[pool] / 3000
    expected = bin(hand_of(first)).count("1") / len(pool)
    assert np.all(np.abs(share - expected) < 0.05), "each hidden card equally likely in each hand"


def test_state_from_view_rejects_impossible_views():
    game = make_game("coins")
    view = game.new_match(seed=2).view(1)
    bad = dict(view, hand=view["hand"][:-1])
    with pytest.raises(InvalidViewError, match="should hold 16 cards"):
        game.state_from_view(bad)
    with pytest.raises(InvalidViewError, match="appears twice"):
        game.state_from_view(dict(view, trick=[view["hand"][0]]))
    with pytest.raises(InvalidViewError, match="unknown field 'cheat'"):
        game.state_from_view(dict(view, cheat=1))
    with pytest.raises(InvalidViewError, match="needs the field 'hand'"):
        game.state_from_view({k: v for k, v in view.items() if k != "hand"})


def _balance(won: bool, coins: int) -> float:
    return coins if won else -K.COINS_GIVEN_WEIGHT * coins


def _expected_balance(array, card: int) -> float:
    """The heuristic's value of ``card`` for the seat to move, card by card."""
    seat = int(array[K.TO_MOVE])
    unseen = (1 << 48) - 1 & ~int(array[K.HANDS + seat]) & ~int(array[K.GONE])
    cards = [c for c in range(48) if unseen >> c & 1]
    trick = [int(c) for c in array[K.TRICK:K.TRICK + int(array[K.N_IN_TRICK])]]
    if len(trick) == 2:
        outcomes = [(trick[0], trick[1], card)]
    elif len(trick) == 1:
        outcomes = [(trick[0], card, c2) for c2 in cards]
    else:
        outcomes = [(card, c1, c2) for c1 in cards for c2 in cards if c1 != c2]
    total = sum(_balance(int(K.TRICK_WINNER[t]) == len(trick), int(K.coins_in(*t))) for t in outcomes)
    return total / len(outcomes) - K.RANK_COST * (card % 12)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 47))
@example(seed=7121, moves=39)  # the match is over after 39 moves
def test_heuristic_counts_every_reply_exactly(seed, moves):
    """The heuristic's expected balances, counted per suit, equal the averages
    over every third card (second hand) and every ordered pair of replies
    (lead), and it plays the first best card."""
    game = make_game("coins")
    state = game.new_match(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal:  # a seat can reach the target within the first deal
            break
        state.apply(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
    assume(not state.is_terminal)
    actions = np.array(sorted(int(a) for a in state.legal_actions()), dtype=np.int64)
    scores = np.empty(len(actions))
    K.action_scores(state.array, make_rng(0), actions, len(actions), scores)
    expected = [_expected_balance(state.array, int(a)) for a in actions]
    assert scores == pytest.approx(expected, abs=1e-12)
    assert K.heuristic_action(state.array, make_rng(0)) == actions[int(np.argmax(scores))]


# ----------------------------------------------------------------- strength

def test_heuristic_beats_random_over_seat_rotated_matches():
    game = make_game("coins")
    wins = 0
    matches = 24
    for m in range(matches):
        seat = m % 3
        agents = [
            make("heuristic" if s == seat else "random", game, seed=derive_seed(m, s))
            for s in range(3)
        ]
        wins += play_match(game, agents, seed=derive_seed(77, m)).outcome[seat]
    # an equal player wins a third; the heuristic should win most matches
    assert wins / matches > 0.6, f"heuristic won only {wins}/{matches}"


# ------------------------------------------------------------------ small variants (§1.10)


def test_a_small_deck_is_the_top_ranks_of_every_suit_and_deals_only_from_it():
    """docs/rules.md §1.10: with ranks=3 the deck is A K N of each suit (12 cards); with hand=3 every
    seat gets three of them, and the other three lie unused, listed as undealt in the record."""
    game = make_game("coins", ranks=3, hand=3)
    assert sorted(game.deck.name(c) for c in game.cards_in_play()) == sorted(
        rank + suit for rank in "AKN" for suit in "coeb")
    for seed in range(40):
        state = game.new_match(seed=seed)
        hands = [game.deck.names(int(state.array[K.HANDS + s])) for s in range(3)]
        assert all(len(hand) == 3 for hand in hands)
        assert all(card[0] in "AKN" for hand in hands for card in hand)
        record = game.deal_to_json(state.deals[-1].vector)
        assert len(record["undealt"]) == 3 and not set(record["undealt"]) & {c for h in hands for c in h}


def test_every_small_deal_is_equally_likely():
    """docs/rules.md §1.10, §0.6: the smallest variant (ranks=2, hand=2) has 2,520 deals; seeded deals
    fall on them uniformly (a chi-squared check on the hand of seat 0, 28 hands)."""
    game = make_game("coins", ranks=2, hand=2)
    counts = {}
    draws = 5600
    for seed in range(draws):
        state = game.new_match(seed=seed)
        hand = int(state.array[K.HANDS])
        counts[hand] = counts.get(hand, 0) + 1
    assert len(counts) == 28  # C(8, 2) hands for seat 0
    expected = draws / 28
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 55.5  # the 99.9% point of chi-squared with 27 degrees of freedom


def test_a_small_deal_ends_after_hand_tricks_and_scores_coins_over_ranks():
    """docs/rules.md §1.10, §1.6: a deal of hand=2 ends after two tricks; its rewards are coins taken
    divided by the deck's coins (ranks), dealt or not."""
    game = make_game("coins", ranks=3, hand=2)
    for seed in range(30):
        state = game.new_match(seed=seed)
        rng = np.random.default_rng(seed)
        plays = 0
        while not state.deal_pending and not state.is_terminal:
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            plays += 1
        assert plays == 6 and state.tricks_done in (0, 2)  # the count resets when a deal ends
        rewards = np.zeros(3)
        K.returns(state.array, OBJECTIVE_DEAL, rewards)
        assert np.allclose(rewards, np.array(state.deal_points) / 3)


def test_too_many_cards_for_a_small_deck_and_cards_outside_it_are_one_line_errors():
    """docs/rules.md §1.10: three hands may not need more cards than the deck has; a record or view
    naming a card outside the deck is refused."""
    with pytest.raises(OptionError, match="hand=3 is too many"):
        make_game("coins", ranks=2, hand=3)
    game = make_game("coins", ranks=2, hand=2)
    with pytest.raises(InvalidRecordError, match="2c is not in the deck"):
        game.deal_from_json({"hands": [["2c", "Ac"], ["Ao", "Ko"], ["Ae", "Ke"]]})
    state = game.new_match(seed=3)
    view = state.view(state.to_move)
    view["hand"][0] = "2b"
    with pytest.raises(InvalidViewError, match="2b is not in the deck"):
        game.state_from_view(view)


def test_a_small_variant_deals_hidden_cards_only_from_its_deck():
    """docs/rules.md §1.10: the cards a seat cannot see, dealt again by determinize or from a view,
    come from the deck in play (its unused cards included), never from outside it."""
    game = make_game("coins", ranks=2, hand=2)
    deck = sum(1 << c for c in game.cards_in_play())
    for seed in range(50):
        state = game.new_match(seed=seed)
        world = state.array.copy()
        K.determinize(world, 0, make_rng(seed))
        held = [int(world[K.HANDS + s]) for s in range(3)]
        assert held[0] == int(state.array[K.HANDS])
        assert all(h & ~deck == 0 and bin(h).count("1") == 2 for h in held)
        from_view = game.state_from_view(state.view(1), seed=seed)
        assert all(int(from_view.array[K.HANDS + s]) & ~deck == 0 for s in range(3))
