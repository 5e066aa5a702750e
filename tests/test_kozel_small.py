"""Kozel's small variants (docs/rules.md §3.18 to §3.21): the options ``ranks``, ``hand`` and
``stock``, with hand-built deals for every rule and ruling; deals, records, views, determinize,
the heuristic, belief replay and the OpenSpiel adapter on the variants."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import islice

import numpy as np
import pytest

from slagwerk.engine import InvalidRecordError, InvalidViewError, OptionError, make_game
from slagwerk.engine.bits import derive_seed, make_rng
from slagwerk.engine.cards import KOZEL_DECK
from slagwerk.engine.game import State
from slagwerk.engine.kozel import kernels as K
from slagwerk.engine.records import load_record, record_of
from slagwerk.engine.state import OBJECTIVE_DEAL
from slagwerk.search.belief import DEAL_TRIES

SMALLEST = {"ranks": 2, "hand": 2, "stock": 0}
WITH_STOCK = {"ranks": 4, "hand": 2, "stock": 4}
"""16 cards: hands of two, a stock of four, four cards unused."""
mask = KOZEL_DECK.mask


def names(value) -> set[str]:
    return set(KOZEL_DECK.names(int(value)))


def start(options, hands, trump, stock=(), dealer=0):
    """A match of ``options`` whose first deal is these hands (and stock, top first),
    ``trump`` the card shown."""
    game = make_game("kozel", first_dealer=dealer, **options)
    state = game.new_match()
    deal = {"dealer": dealer, "hands": hands, "trump_card": trump}
    if options["stock"]:
        deal["stock"] = list(stock)
    state.deal(game.deal_from_json(deal))
    return state


def play(state, *texts):
    for text in texts:
        state.apply(text)
    return state


def deal_rewards(state) -> list[float]:
    out = np.zeros(4)
    K.returns(state.array, OBJECTIVE_DEAL, out)
    return [float(x) for x in out]


# --------------------------------------------------------- §3.18 the options


def test_a_small_deck_is_the_top_ranks_of_every_suit_dealt_to_hands_and_a_stock():
    """docs/rules.md §3.18: ranks=4 is the deck A T K Q of each suit; hand=2 deals two cards to each
    player and stock=4 four to the stock; the other four cards lie unused, listed as undealt in the
    record, and no card outside the deck is dealt."""
    game = make_game("kozel", **WITH_STOCK)
    deck = {rank + suit for rank in "ATKQ" for suit in "cdhs"}
    assert {game.deck.name(c) for c in game.cards_in_play()} == deck
    for seed in range(40):
        state = game.new_match(seed=seed)
        record = game.deal_to_json(state.deals[-1].vector)
        hands = [set(h) for h in record["hands"]]
        assert [len(h) for h in hands] == [2, 2, 2, 2] and len(record["stock"]) == 4
        assert record["trump_card"] in record["stock"][1:3]  # the middle of four (§3.5)
        dealt = set().union(*hands) | set(record["stock"])
        assert len(dealt) == 12 and dealt <= deck
        assert set(record["undealt"]) == deck - dealt
        assert names(state.array[K.UNDEALT]) == deck - dealt
        view = state.view(1)
        assert view["stock_size"] == 4 and view["hand_sizes"] == [2, 2, 2, 2]


def test_every_small_deal_is_equally_likely():
    """docs/rules.md §3.18, §3.19, §0.6: the smallest variant has 5,040 deals (2,520 ways to deal
    the hands, times the dealer's two cards to show); seeded deals fall on them uniformly (a
    chi-squared check on seat 0's hand and the card shown, 56 equally likely pairs)."""
    game = make_game("kozel", **SMALLEST)
    assert game.deal_count() == 5040
    counts = Counter()
    draws = 5600
    for seed in range(draws):
        state = game.new_match(seed=seed)
        counts[int(state.array[K.HANDS]), int(state.array[K.TRUMP_CARD])] += 1
    assert len(counts) == 56
    expected = draws / 56
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 93.2  # the 99.9% point of chi-squared with 55 degrees of freedom


@pytest.mark.parametrize(
    "options, message",
    [
        ({"stock": 6}, "kozel option stock=6 is not a multiple of 4"),
        ({"ranks": 3, "hand": 2}, "kozel option stock=20 is too many with hand=2: a deck of 3 ranks has "
                                  "12 cards, at most 4 for the stock"),
        ({"ranks": 2, "hand": 3, "stock": 0}, "stock=0 is too many with hand=3: a deck of 2 ranks has 8"),
        ({"hand": 1}, r"kozel option hand=1 is out of range \(2..4"),
        ({"ranks": 1}, r"kozel option ranks=1 is out of range \(2..9"),
        ({"stock": 24}, r"kozel option stock=24 is out of range \(0..20"),
    ],
)
def test_impossible_options_are_one_line_errors(options, message):
    """docs/rules.md §3.18: a stock of a multiple of four (§3.12), hands and stock no more than the
    deck, hands of two to four cards: otherwise a one-line error naming the option and its limit."""
    with pytest.raises(OptionError, match=message) as caught:
        make_game("kozel", **options)
    assert "\n" not in str(caught.value)


def test_a_small_stock_is_drawn_from_and_the_deal_ends_when_cards_run_out():
    """docs/rules.md §3.18, §3.12, §3.5: with a stock of four the dealer shows its second or third
    card; after a trick the players draw from the top, the winner first, as long as it lasts; the
    deal is over when the stock and every hand are empty."""
    game = make_game("kozel", **WITH_STOCK)
    places = Counter(int(game.new_match(seed=s).deals[0].vector[K.DEAL_TRUMP_POSITION]) for s in range(400))
    assert sorted(places) == [1, 2] and min(places.values()) > 150
    hands = [["Ac", "Kd"], ["Tc", "Kh"], ["Ad", "Ks"], ["Td", "Kc"]]
    state = start(WITH_STOCK, hands, "Th", stock=["Ah", "As", "Th", "Ts"])
    assert state.to_move == 1 and int(state.array[K.TRUMP_SUIT]) == "cdhs".index("h")
    assert state.view(1)["stock_size"] == 4
    play(state, "lead:Tc", "discard:Ks", "discard:Kc", "beat:Ac")  # seat 0 takes the trick
    assert [names(state.array[K.HANDS + s]) for s in range(4)] == [
        {"Kd", "Ah"}, {"Kh", "As"}, {"Ad", "Th"}, {"Td", "Ts"}]
    assert state.view(2)["stock_size"] == 0 and state.to_move == 0
    play(state, "lead:Kd", "discard:As", "beat:Ad", "discard:Ts")  # seat 2 takes it; nothing to draw
    assert not state.deal_pending and state.to_move == 2
    assert [len(names(state.array[K.HANDS + s])) for s in range(4)] == [1, 1, 1, 1]
    play(state, "lead:Th", "discard:Td", "discard:Ah", "discard:Kh")
    assert state.deal_pending and state.deals[-1].trick_winners == [0, 2, 2]


def test_a_deal_of_the_smallest_variant_is_one_or_two_tricks():
    """docs/rules.md §3.18: hands of two and no stock: a deal is one trick of two cards a player or
    two of one card, and every card dealt ends in a pile."""
    game = make_game("kozel", **SMALLEST)
    tricks = Counter()
    for seed in range(60):
        state = game.new_match(seed=seed)
        rng = random.Random(seed)
        while not state.deal_pending:
            state.apply(rng.choice(state.legal_actions()))
        tricks[len(state.deals[-1].trick_winners)] += 1
        piles = int(state.array[K.PILES]) | int(state.array[K.PILES + 1])
        assert names(piles) == {rank + suit for rank in "AT" for suit in "cdhs"}
    assert set(tricks) == {1, 2}


def test_hidden_cards_are_dealt_again_only_from_the_deck_in_play():
    """docs/rules.md §3.18: the cards a seat cannot see (other hands, the stock, and the unused cards,
    which nobody sees) are dealt again by determinize, or from a view, only from the deck in play;
    as many stay unused, and an unused card may come back as a dealt one."""
    game = make_game("kozel", **WITH_STOCK)
    deck = sum(1 << c for c in game.cards_in_play())
    swapped = 0
    for seed in range(40):
        state = game.new_match(seed=seed)
        truth = int(state.array[K.UNDEALT])
        for world in (state.clone(), game.state_from_view(state.view(0), seed=seed)):
            K.determinize(world.array, 0, make_rng(seed))
            assert {k: v for k, v in world.view(0).items() if k != "history"} == {
                k: v for k, v in state.view(0).items() if k != "history"}
            held = [int(world.array[K.HANDS + s]) for s in range(4)]
            stock = [int(c) for c in world.array[K.STOCK: K.STOCK + 4]]
            unused = int(world.array[K.UNDEALT])
            assert held[0] == int(state.array[K.HANDS])
            assert all(h & ~deck == 0 for h in held) and all(deck >> c & 1 for c in stock)
            assert unused & ~deck == 0 and bin(unused).count("1") == 4
            swapped += unused != truth
    assert swapped > 0


def test_a_view_naming_a_card_outside_the_deck_is_refused():
    """docs/rules.md §3.18: a view of a small variant holding a card outside its deck is impossible."""
    state = start(SMALLEST, TRUMP_HANDS, "Ah")
    view = json.loads(json.dumps(state.view(1)))
    view["hand"] = ["Ad", "Ks"]
    with pytest.raises(InvalidViewError, match=r"Ks is not in the deck of these options \(the top 2 ranks"):
        state.game.state_from_view(view)


def test_the_heuristic_counts_as_unseen_only_cards_of_the_deck_in_play():
    """docs/rules.md §3.18: the heuristic's unseen cards are the deck's (unused ones included),
    never cards out of it."""
    game = make_game("kozel", **WITH_STOCK)
    deck = sum(1 << c for c in game.cards_in_play())
    for seed in range(20):
        state = game.new_match(seed=seed)
        seat = state.to_move
        unseen = int(K._unseen_by(state.array, seat))
        assert unseen & ~deck == 0
        assert unseen == deck & ~int(state.array[K.HANDS + seat])
        assert int(K.heuristic_action(state.array, make_rng(seed))) in state.legal_actions()


# ------------------------------------------------- §3.19 the dealer's card


TRUMP_HANDS = [["Tc", "Ah"], ["Ad", "Ts"], ["Td", "As"], ["Ac", "Th"]]
"""Dealer 0 shows its Ah: hearts are trumps; seat 1 leads; nobody holds a suit's both cards."""


@pytest.mark.parametrize("dealer", range(4))
def test_without_a_stock_the_dealer_shows_its_last_card(dealer):
    """docs/rules.md §3.19: without a stock the card shown is the dealer's last dealt card; its suit
    is trump and it stays in the dealer's hand."""
    game = make_game("kozel", first_dealer=dealer, **SMALLEST)
    for seed in range(20):
        state = game.new_match(seed=seed)
        vector = state.deals[-1].vector
        trump = int(state.array[K.TRUMP_CARD])
        assert trump == int(vector[dealer * 2 + 1]) and int(vector[K.DEAL_TRUMP_POSITION]) == dealer * 2 + 1
        assert int(state.array[K.TRUMP_SUIT]) == K.suit_of(trump)
        assert int(state.array[K.HANDS + dealer]) >> trump & 1
        assert game.deal_to_json(vector)["trump_card"] == state.view(dealer)["trump_card"]


def test_the_dealers_shown_card_is_hidden_once_discarded_face_down():
    """docs/rules.md §3.19, §3.6: every seat knows the shown card and that the dealer was dealt it;
    discarded face down, nobody else learns whether it was: another seat's view shows '??', and
    determinize puts it in the dealer's hand or in the dealer's discard, never elsewhere."""
    state = start(SMALLEST, TRUMP_HANDS, "Ah")
    assert int(state.array[K.TRUMP_SUIT]) == "cdhs".index("h")
    for seat in (1, 2, 3):
        view = state.view(seat)
        assert view["trump_card"] == "Ah" and "Ah" not in view["shown"] and view["known_cards"][0] == []
    play(state, "lead:Ad", "discard:Td", "beat:Th")
    assert "beat:Ah" in state.legal_texts()  # the dealer could beat with it, and discards it
    play(state, "discard:Ah")
    view = state.view(1)
    assert view["tricks"][0]["plays"][3] == {"seat": 0, "kind": "discard", "cards": ["??"]}
    assert "Ah" not in view["shown"] and "Ah" in state.view(0)["tricks"][0]["plays"][3]["cards"]
    places = Counter()
    for seed in range(60):
        world = state.clone()
        K.determinize(world.array, 1, make_rng(seed))
        assert world.view(1) == view
        where = [s for s in range(4) if int(world.array[K.HANDS + s]) >> KOZEL_DECK.parse("Ah") & 1]
        in_discard = int(world.array[K.PLAYED + 0]) >> KOZEL_DECK.parse("Ah") & 1
        assert where in ([0], []) and (where == [0]) != bool(in_discard)
        places["hand" if where else "discard"] += 1
        rebuilt = state.game.state_from_view(view, seed=seed)
        assert int(rebuilt.array[K.HANDS + 0] | rebuilt.array[K.PLAYED + 0]) >> KOZEL_DECK.parse("Ah") & 1
    assert places["hand"] > 10 and places["discard"] > 10


def test_a_view_that_puts_the_dealers_card_elsewhere_is_refused():
    """docs/rules.md §3.19: a view in which the shown card is another seat's is impossible."""
    state = start(SMALLEST, TRUMP_HANDS, "Ah")
    view = json.loads(json.dumps(state.view(1)))
    view["hand"], view["trump_card"] = ["Ad", "Ts"], "Ad"
    with pytest.raises(InvalidViewError, match=r"the trump card Ad is the dealer's \(seat 0\), not seat 1's"):
        state.game.state_from_view(view)
    play(state, "lead:Ad")
    view = json.loads(json.dumps(state.view(2)))
    view["trump_card"] = "Ad"
    with pytest.raises(InvalidViewError, match="the trump card Ad is the dealer's, not seat 1's"):
        state.game.state_from_view(view)


def test_a_stockless_record_names_the_dealers_card_as_trump():
    """docs/rules.md §3.19, docs/records.md: a record without a stock names the trump card among the
    dealer's cards (it is written last in the dealer's hand); a card of another hand is refused,
    whether the deal names its dealer or the record leaves it to the rules."""
    deal = {"dealer": 0, "hands": [["Ah", "Tc"], *TRUMP_HANDS[1:]], "trump_card": "Ah",
            "actions": ["lead:Ad"]}
    record = {"game": "kozel", "options": SMALLEST, "deals": [deal]}
    state = load_record(record)
    again = record_of(state)["deals"][0]
    assert again["hands"][0] == ["Tc", "Ah"] and again["trump_card"] == "Ah" and "stock" not in again
    assert (load_record(json.loads(json.dumps(record_of(state)))).array == state.array).all()
    for bad in ({**deal, "trump_card": "Ad"}, {k: v for k, v in {**deal, "trump_card": "Ad"}.items()
                                               if k != "dealer"}):
        with pytest.raises(InvalidRecordError, match="'trump_card' 'Ad' is not in seat 0's hand"):
            load_record({**record, "deals": [bad]})
    with pytest.raises(InvalidRecordError, match="'stock' has 1 cards, not 0"):
        load_record({**record, "deals": [{**deal, "stock": ["As"]}]})
    with pytest.raises(InvalidRecordError, match="Ks is not in the deck"):
        load_record({**record, "deals": [{**deal, "hands": [["Ah", "Ks"], *TRUMP_HANDS[1:]]}]})


# ------------------------------------------------------ §3.20 the scoring


def test_a_small_deal_is_won_by_more_points_and_rewarded_out_of_the_points_dealt():
    """docs/rules.md §3.20, §3.15: of the 84 points dealt, the team with more wins; a loser without a
    trick takes 6; the deal objective's reward is a team's points over the points dealt."""
    state = play(start(SMALLEST, TRUMP_HANDS, "Ah"), "lead:Ad", "discard:Td", "beat:Th", "discard:Ah")
    play(state, "lead:Ac", "discard:Tc", "discard:Ts", "discard:As")  # seat 3 takes both tricks
    assert state.deal_points == [0, 84, 0, 84] and state.totals == [6, 0, 6, 0]
    assert deal_rewards(state) == [0.0, 1.0, 0.0, 1.0]


def test_equal_piles_of_a_small_deal_are_eggs():
    """docs/rules.md §3.20, §3.15: 42 and 42 of 84 are eggs: no penalty, a half each."""
    state = play(start(SMALLEST, TRUMP_HANDS, "Ah"), "lead:Ad", "discard:Td", "discard:Th", "discard:Ah")
    play(state, "lead:Ts", "beat:As", "discard:Ac", "discard:Tc")
    assert state.deal_points == [42, 42, 42, 42] and state.totals == [0, 0, 0, 0]
    assert deal_rewards(state) == [0.5] * 4


def test_a_small_deals_penalties_are_shares_of_the_points_dealt():
    """docs/rules.md §3.20: with queens and aces dealt (56 points, the tens and kings unused) a team
    that took a trick of 12 points, a quarter or fewer, takes 4; rewards are out of 56, not of the
    deck's 112; the thresholds are the full game's shares (61 and 31 of 120)."""
    options = {"ranks": 4, "hand": 2, "stock": 0}
    hands = [["Qc", "As"], ["Qd", "Ac"], ["Qh", "Ad"], ["Qs", "Ah"]]
    state = play(start(options, hands, "As"), "lead:Qd", "discard:Qh", "discard:Qs", "discard:Qc")
    play(state, "lead:Ac", "discard:Ad", "discard:Ah", "beat:As")
    assert state.deal_points == [44, 12, 44, 12] and state.totals == [0, 4, 0, 4]
    assert deal_rewards(state) == [44 / 56, 12 / 56, 44 / 56, 12 / 56]
    assert set(record_of(state)["deals"][0]["undealt"]) == {r + s for r in "TK" for s in "cdhs"}
    assert [K.deal_penalty(p, 1, 84) for p in (21, 22)] == [4, 2] and K.deal_penalty(0, 0, 84) == 6
    for points in range(60):  # out of 120 the shares are §3.15's own thresholds
        assert K.deal_penalty(points, 1, 120) == (2 if points >= 31 else 4)


def test_a_deal_of_cards_without_points_is_eggs():
    """docs/rules.md §3.20: when no card dealt has points (low ranks, the rest unused) nobody takes a
    penalty and each team's reward is a half."""
    options = {"ranks": 9, "hand": 2, "stock": 0}
    hands = [["6c", "7s"], ["6d", "7c"], ["6h", "7d"], ["6s", "7h"]]
    state = start(options, hands, "7s")
    while not state.deal_pending:
        state.apply(state.legal_actions()[0])
    assert state.deal_points == [0, 0, 0, 0] and state.totals == [0, 0, 0, 0]
    assert deal_rewards(state) == [0.5] * 4


# ---------------------------------------------- §3.21 the molodka of a full hand


MOLODKA_HANDS = [["Tc", "Ah"], ["Ac", "Ts"], ["Ad", "Td"], ["As", "Th"]]
"""Dealer 0 shows its Ah; seat 2 holds both diamonds, a full hand of one suit."""


def test_a_molodka_is_a_full_hand_of_one_suit():
    """docs/rules.md §3.21, §3.10, §3.11: with hands of two, two cards of one suit are a molodka: its
    holder is asked before the lead; declared, it is the lead of both cards, answered with two
    cards each, and nobody is asked again."""
    state = start(SMALLEST, MOLODKA_HANDS, "Ah")
    assert state.phase == K.PHASE_QUESTION and state.to_move == 2
    assert state.legal_texts() == ["molodka", "pass"]
    play(state, "molodka")
    assert state.leader == 2 and state.to_move == 3
    assert state.view(1)["trick"]["plays"] == [{"seat": 2, "kind": "molodka", "cards": ["Ad", "Td"]}]
    assert state.legal_texts() == ["discard:As,Th"]  # the Th beats only one diamond: no beat
    play(state, "discard:As,Th", "discard:Ah,Tc", "discard:Ac,Ts")
    assert state.deal_pending and state.totals == [0, 6, 0, 6]  # seat 2 took every card


def test_a_full_hand_molodka_after_a_play_sends_it_back():
    """docs/rules.md §3.21, §3.11: a seat that passed is asked again after the lead; declaring sends
    the led card back, and everyone knows where it went."""
    state = play(start(SMALLEST, MOLODKA_HANDS, "Ah"), "pass", "lead:Ac")
    assert state.phase == K.PHASE_QUESTION and state.to_move == 2
    play(state, "molodka")
    assert names(state.array[K.HANDS + 1]) == {"Ac", "Ts"} and state.view(3)["known_cards"][1] == ["Ac"]
    assert K.holds_molodka(mask(["Ad", "Td"]), 2) and not K.holds_molodka(mask(["Ad", "Td"]))


# ----------------------------------------------- every deal, and the adapter


def test_all_deals_lists_every_deal_once_with_its_shown_card():
    """docs/rules.md §3.18, §3.19: the smallest variant's deals are its 5,040 (hands as sets, each of
    the dealer's cards shown), each once; a variant with a stock lists its stock in every order and
    each middle place of the card shown."""
    game = make_game("kozel", first_dealer=2, **SMALLEST)
    deals = list(game.all_deals())
    assert len(deals) == game.deal_count() == 5040
    assert len({tuple(int(c) for c in d) for d in deals}) == 5040
    keys = set()
    for vector in deals:
        state = game.new_match()
        state.deal(vector)
        assert int(state.array[K.TRUMP_CARD]) == int(vector[int(vector[K.DEAL_TRUMP_POSITION])])
        assert int(state.array[K.HANDS + 2]) >> int(state.array[K.TRUMP_CARD]) & 1
        keys.add((tuple(int(state.array[K.HANDS + s]) for s in range(4)), int(state.array[K.TRUMP_CARD])))
    assert len(keys) == 5040
    game = make_game("kozel", ranks=3, hand=2, stock=4)
    assert game.deal_count() == 1_247_400 * 24 * 2  # hands from the 12 cards, the last 4 in order, 2 places
    first = list(islice(game.all_deals(), 48))
    assert len({tuple(int(c) for c in d) for d in first}) == 48
    assert {int(d[K.DEAL_TRUMP_POSITION]) for d in first} == {1, 2}


def _positions(game, count, seed):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.new_match(seed=derive_seed(seed, len(found)))
        while not state.deal_pending and len(found) < count:
            if rng.random() < 0.4:
                found.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return found


def _replays(game, view, world, template, seed) -> tuple[bool, bool]:
    """Whether a deal rebuilt from ``world`` (deal_from_world; a world with draws may be dealt in
    several ways, tried as the beliefs try them) replays the history of ``view`` to ``view``
    itself; and, if none does, whether one went astray at a molodka question (a seat asked or not
    asked against the history)."""
    seat = view["seat"]
    script = game.replay_script(view)
    rng = make_rng(seed)
    at_question = False
    for _ in range(DEAL_TRIES):
        deal = np.zeros(K.DEAL_SIZE, np.int64)
        assert K.deal_from_world(world, template, rng, deal)
        replay = State(game, script.start.copy())
        replay.deal(deal.copy())
        for who, key in zip(script.seats, script.keys):
            action = int(K.history_action(world, replay.array, key))
            if replay.to_move != who or action not in replay.legal_actions():
                at_question |= replay.phase == K.PHASE_QUESTION or action in (K.MOLODKA, K.PASS)
                break
            replay.apply(action)
        else:
            if replay.view(seat) == view:
                return True, False
    return False, at_question


@pytest.mark.parametrize("options", [SMALLEST, WITH_STOCK], ids=["smallest", "with-stock"])
def test_worlds_of_a_small_variant_are_dealt_again_and_replay_the_history(options):
    """docs/rules.md §3.18, §3.19, §3.21: deal_from_world rebuilds a deal that dealt a world (the
    unused cards and the dealer's shown card in their places), in which the seat's history
    replays to the view it was given. Where one does not, it went astray only at a molodka
    question: a full hand of one suit in a rebuilt deal (which of a seat's cards it was dealt and
    which it drew is a guess), or one of an earlier trick that determinize does not read (it
    reads the current trick's, docs/rules.md §3.11); the beliefs' replay drops those worlds."""
    game = make_game("kozel", **options)
    astray = {"true": 0, "determinized": 0}
    positions = _positions(game, 120, seed=5)
    for number, state in enumerate(positions):
        seat = state.to_move
        view = state.view(seat)
        script = game.replay_script(view)
        world = game.state_from_view(view, seed=number).array.copy()
        K.determinize(world, seat, make_rng(derive_seed(number, 1)))
        for kind, array in (("true", state.array), ("determinized", world)):
            replayed, at_question = _replays(game, view, array, script.template, number)
            assert replayed or at_question, f"position {number}: a {kind} world fails to replay its history"
            astray[kind] += not replayed
    assert astray["true"] <= len(positions) // 10 and astray["determinized"] <= len(positions) // 2, astray


def test_the_openspiel_adapter_deals_a_small_variant_whole_or_card_by_card():
    """docs/rules.md §3.18, §3.19: through the OpenSpiel adapter, chance="deal" makes each of the
    smallest variant's 5,040 deals one equally likely chance outcome (named with its card shown), and
    pyspiel's random simulation test passes on it; card by card, the smallest deals only its deck
    and a variant with a stock also chooses the shown card's middle place."""
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (extra [openspiel])")
    import pyspiel

    from slagwerk.envs import openspiel as sw_openspiel

    game = sw_openspiel.load_game("kozel", objective="deal", chance="deal", **SMALLEST)
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert game.max_chance_outcomes() == len(outcomes) == 5040
    assert len({p for _, p in outcomes}) == 1 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    texts = {state.action_to_string(outcome) for outcome, _ in outcomes}
    assert len(texts) == 5040 and all(" trump_card " in text for text in texts)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)

    card = sw_openspiel.load_game("kozel", objective="deal", **SMALLEST)
    state = card.new_initial_state()
    drawn = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 8 - drawn
        assert all(state.action_to_string(c).split()[1][0] in "AT" for c, _ in outcomes)
        state.apply_action(outcomes[0][0])
        drawn += 1
    assert drawn == 7  # the eighth card is what is left, and the dealer's last is shown
    pyspiel.random_sim_test(card, num_sims=3, serialize=True, verbose=False)

    stocked = sw_openspiel.load_game("kozel", objective="deal", ranks=3, hand=2, stock=4)
    state = stocked.new_initial_state()
    for _ in range(11):
        state.apply_action(state.chance_outcomes()[0][0])
    assert [c for c, _ in state.chance_outcomes()] == [1, 2]  # the middle of a stock of four
    pyspiel.random_sim_test(stocked, num_sims=2, serialize=True, verbose=False)
