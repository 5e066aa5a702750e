"""Aluette (docs/rules.md §4): every rule and ruling with hand-computed deals, views,
state_from_view, the pure-Python reference and the conformance check.

Scenarios are records: a deal is written trick by trick in play order and
:func:`scripted_deal` hands each card to the seat that plays it (following
the leader chain of the expected winners, which the test states by hand).
"""

from __future__ import annotations

import json
import random
from math import factorial

import numpy as np
import pytest

from paths import EXAMPLES
from slagwerk.engine import InvalidRecordError, InvalidViewError, OptionError, contract, make_game
from slagwerk.engine.aluette import kernels as K
from slagwerk.engine.aluette import pure
from slagwerk.engine.aluette.game import strength, trick_winner
from slagwerk.engine.bits import make_rng
from slagwerk.engine.cards import ALUETTE_DECK
from slagwerk.engine.records import load_record, record_of, replay
from slagwerk.engine.state import LAST_TRICK_WINNER, NOBODY, OBJECTIVE_DEAL

# The rule book's table, strongest class first, written out independently of the engine.
CLASSES = [
    ["3o"], ["3c"], ["2o"], ["2c"], ["9c"], ["9o"], ["2b"], ["2e"],
    ["Ao", "Ac", "Ab", "Ae"],
    ["Ko", "Kc", "Kb", "Ke"],
    ["No", "Nc", "Nb", "Ne"],
    ["Jo", "Jc", "Jb", "Je"],
    ["9b", "9e"],
    ["8o", "8c", "8b", "8e"],
    ["7o", "7c", "7b", "7e"],
    ["6o", "6c", "6b", "6e"],
    ["5o", "5c", "5b", "5e"],
    ["4o", "4c", "4b", "4e"],
    ["3b", "3e"],
]


def scripted_deal(dealer: int, tricks: list[tuple[list[str], int | None]]) -> dict:
    """A record deal from tricks ``(cards in play order, expected winner seat or None)``.

    The first trick is led by the dealer's left; a trick's winner leads the
    next, a spoiled trick (``None``) keeps its leader. Cards not played are
    the undealt ones.
    """
    hands: list[list[str]] = [[] for _ in range(4)]
    leader = (dealer + 1) % 4
    actions = []
    for cards, winner in tricks:
        for k, c in enumerate(cards):
            hands[(leader + k) % 4].append(c)
        actions.extend(cards)
        if winner is not None:
            leader = winner
    used = set(actions)
    assert len(used) == len(actions), "a scripted deal plays a card twice"
    undealt = [ALUETTE_DECK.name(c) for c in range(48) if ALUETTE_DECK.name(c) not in used]
    return {"dealer": dealer, "hands": hands, "undealt": undealt[: 48 - 4 * len(hands[0])],
            "actions": actions}


def record(*deals) -> dict:
    return {"game": "aluette", "options": {}, "deals": list(deals)}


# seat 2 loses the first two tricks, then wins the seven others: Mordienne (k = 3)
MORDIENNE = [
    (["Ao", "4c", "5c", "6c"], 1),  # led by seat 1 (dealer 0): the ace wins
    (["4o", "5o", "Ko", "6o"], 3),
    (["4e", "5e", "6e", "3o"], 2),  # Monsieur, played by seat 2
    (["3c", "7o", "7c", "7e"], 2),
    (["2o", "8o", "8c", "8e"], 2),
    (["2c", "4b", "5b", "6b"], 2),
    (["9c", "7b", "8b", "Jo"], 2),
    (["9o", "Jc", "Je", "Jb"], 2),  # three equal knaves below the top do not spoil
    (["2b", "No", "Nc", "Ne"], 2),
]


# ------------------------------------------------------------------ strength


def test_strength_table_has_19_classes_equal_within_and_strictly_ordered_between():
    """docs/rules.md §4.3, §4.1: nineteen classes cover the 48 cards, equal within a class."""
    assert sorted(c for cls in CLASSES for c in cls) == sorted(ALUETTE_DECK.names(ALUETTE_DECK.all_mask))
    for k, cls in enumerate(CLASSES):
        assert {strength(c) for c in cls} == {18 - k}, f"class {k + 1}: {cls}"


def test_card_order_is_the_strength_table_with_its_names():
    """docs/rules.md §4.3: the order a page shows is the table, strongest first, and
    names the eight unique top cards."""
    classes, names = make_game("aluette").card_order()
    assert [sorted(c) for c in classes] == [sorted(c) for c in CLASSES]
    assert names == {"3o": "Monsieur", "3c": "Madame", "2o": "le Borgne", "2c": "la Vache",
                     "9c": "Grand-neuf", "9o": "Petit-neuf", "2b": "Deux de chêne", "2e": "Deux d'écrit"}
    assert all(make_game(g).card_order() is None for g in ("coins", "koetsieren", "kozel"))


# (the fours over 3b 3e need two fillers weaker than a four: there are none, so
# that last step is covered by the table test only)
@pytest.mark.parametrize("k", range(len(CLASSES) - 2))
def test_each_class_beats_the_next_in_a_trick(k):
    """docs/rules.md §4.3, §4.5: each class beats the next."""
    stronger, weaker = CLASSES[k][0], CLASSES[k + 1][-1]
    fillers = [c for c in ("3b", "3e", "4o", "4c") if c != weaker][:2]
    assert trick_winner([weaker, stronger, *fillers], leader=0) == 1
    assert trick_winner([stronger, weaker, *fillers], leader=2) == 2


@pytest.mark.parametrize("cls", [c for c in CLASSES[:-1] if len(c) > 1], ids=lambda c: c[0][0] + "-group")
def test_equal_group_cards_tie_and_spoil_the_trick(cls):
    """docs/rules.md §4.3, §4.5: two cards of one class tie at the top and spoil the trick."""
    # every pair of the group ties at the top over the two weakest cards
    for i, a in enumerate(cls):
        for b in cls[i + 1 :]:
            assert trick_winner([a, "3b", b, "3e"], leader=0) is None, (a, b)


def test_trick_winner_examples():
    """docs/rules.md §4.5: the single strongest card wins; a tie at the top is pourri, a tie below it
    harmless."""
    assert trick_winner(["Ab", "Kc", "3o", "4e"], leader=1) == 3  # Monsieur wins
    assert trick_winner(["9c", "9o", "9b", "9e"], leader=0) == 0  # Grand-neuf > Petit-neuf > 9b = 9e
    assert trick_winner(["2e", "2b", "2c", "2o"], leader=3) == 2  # le Borgne is the top two
    assert trick_winner(["Ab", "Ae", "4o", "4c"], leader=0) is None  # two aces tie: pourri
    assert trick_winner(["Nb", "Ne", "No", "4c"], leader=0) is None  # three knights tie
    assert trick_winner(["Kb", "Ke", "Ko", "Kc"], leader=0) is None  # four kings tie
    assert trick_winner(["Ao", "Ac", "3o", "4e"], leader=0) == 2  # a tie below the top is harmless


# --------------------------------------------------------------- one deal


def test_deal_left_of_dealer_leads_and_the_winner_leads_next():
    """docs/rules.md §4.2, §4.5: the dealer's left leads first; a trick's winner leads next."""
    game = make_game("aluette", first_dealer=2)
    state = game.new_match()
    deal = scripted_deal(2, MORDIENNE)  # same cards; the seats follow from dealer 2
    state.deal(game.deal_from_json(deal))
    assert state.to_move == 3 and state.leader == 3
    for text in deal["actions"][:4]:
        state.apply(text)
    assert state.deals[-1].trick_winners == [3] and state.to_move == 3


def test_mordienne_scores_two():
    """docs/rules.md §4.7: a run of the last seven tricks after two lost is a Mordienne: 2 points."""
    result = replay(record(scripted_deal(0, MORDIENNE)))
    assert result["deals"][0]["trick_winners"] == [1, 3, 2, 2, 2, 2, 2, 2, 2]
    assert result["deals"][0]["points"] == [2, 0, 2, 0]
    assert result["totals"] == [2, 0, 2, 0] and result["outcome"] is None


def test_a_spoiled_last_trick_breaks_mordienne_with_four_tied_cards():
    """docs/rules.md §4.7: a pourri last trick breaks the run."""
    tricks = MORDIENNE[:8] + [(["Nb", "No", "Nc", "Ne"], None)]  # four knights: pourri
    result = replay(record(scripted_deal(0, tricks)))
    assert result["deals"][0]["trick_winners"] == [1, 3, 2, 2, 2, 2, 2, 2, None]
    assert result["deals"][0]["points"] == [1, 0, 1, 0]


def test_a_last_trick_won_by_another_seat_breaks_mordienne():
    """docs/rules.md §4.6, §4.7: a last trick won by another seat breaks the run; the deal still scores 1."""
    tricks = MORDIENNE[:8] + [(["Nc", "2b", "Ne", "Nb"], 3)]  # seat 3's 2b beats the knights
    result = replay(record(scripted_deal(0, tricks)))
    assert result["deals"][0]["trick_winners"] == [1, 3, 2, 2, 2, 2, 2, 2, 3]
    assert result["deals"][0]["points"] == [1, 0, 1, 0]  # seat 2 still has the most tricks


def test_a_win_before_the_run_breaks_mordienne():
    """docs/rules.md §4.7: a trick won before the run breaks it."""
    tricks = [
        (["4c", "Ao", "5c", "6c"], 2),  # seat 2 wins the first trick
        (["4o", "Ko", "5o", "6o"], 3),  # then loses the second
        *MORDIENNE[2:],  # and wins the seven others
    ]
    result = replay(record(scripted_deal(0, tricks)))
    assert result["deals"][0]["trick_winners"] == [2, 3, 2, 2, 2, 2, 2, 2, 2]
    assert result["deals"][0]["points"] == [1, 0, 1, 0]


def all_spoiled() -> list:
    """Nine pourri tricks: every trick ties two equal cards at the top (four of
    clubs, five to eight of clubs stay unused)."""
    groups = [("Ao", "Ac"), ("Ab", "Ae"), ("Ko", "Kc"), ("Kb", "Ke"), ("No", "Nc"), ("Nb", "Ne"),
              ("Jo", "Jc"), ("Jb", "Je"), ("9b", "9e")]
    lows = [c for c in ALUETTE_DECK.names(ALUETTE_DECK.all_mask) if strength(c) <= 5]
    tricks = []
    for k, (a, b) in enumerate(groups):
        tricks.append(([a, lows[2 * k], b, lows[2 * k + 1]], None))
    return tricks


def nine_trick_deal(dealer: int) -> dict:
    """The dealer's left leads the nine strongest cards and takes every trick."""
    tops = ["3o", "3c", "2o", "2c", "9c", "9o", "2b", "2e", "Ao"]
    fillers = [c for c in ALUETTE_DECK.names(ALUETTE_DECK.all_mask) if strength(c) <= 8]
    return scripted_deal(dealer, [([top, *fillers[3 * k : 3 * k + 3]], (dealer + 1) % 4)
                                  for k, top in enumerate(tops)])


def test_all_nine_spoiled_nobody_scores_and_the_leader_never_changes():
    """docs/rules.md §4.5, §4.6, §4.8: nine pourri tricks: the same leader throughout, nobody scores, the
    dealer moves left."""
    deal = scripted_deal(1, all_spoiled())
    state = load_record({"game": "aluette", "options": {"first_dealer": 1}, "deals": [deal]})
    assert state.deals[-1].trick_winners == [None] * 9
    assert state.leader == 2  # seat 2, left of dealer 1, led all nine
    assert state.deal_points == [0, 0, 0, 0] and state.totals == [0, 0, 0, 0]
    assert state.deals[-1].points == [0, 0, 0, 0]
    assert state.deal_pending and state.dealer == 2  # the dealer moves one seat left


def test_pourri_keeps_the_leader_and_records_nobody():
    """docs/rules.md §4.5: a pourri trick has no winner and the same leader leads again."""
    state = make_game("aluette").new_match()
    deal = scripted_deal(0, all_spoiled())
    state.deal(state.game.deal_from_json(deal))
    for text in deal["actions"][:4]:
        state.apply(text)
    assert state.tricks_done == 1 and state.array[LAST_TRICK_WINNER] == NOBODY
    assert state.leader == 1 and state.to_move == 1
    assert int(state.array[K.SPOILED]) == 1
    assert list(state.array[K.TRICKS_WON : K.TRICKS_WON + 4]) == [0, 0, 0, 0]


def test_two_tricks_at_the_end_after_seven_spoiled_are_a_mordienne_but_one_is_not():
    """docs/rules.md §4.7: a run needs at least two tricks (k at most 8)."""
    spoiled = all_spoiled()
    two = spoiled[:7] + [(["3o", "5b", "6b", "7b"], 1), (["3c", "8b", "2e", "2b"], 1)]
    result = replay(record(scripted_deal(0, two)))
    assert result["deals"][0]["trick_winners"] == [None] * 7 + [1, 1]
    assert result["deals"][0]["points"] == [0, 2, 0, 2]  # k = 8: two tricks suffice
    one = spoiled[:8] + [(["3o", "5b", "6b", "7b"], 1)]
    result = replay(record(scripted_deal(0, one)))
    assert result["deals"][0]["points"] == [0, 1, 0, 1]  # k = 9 is not a Mordienne


def test_winning_all_nine_is_a_mordienne():
    """docs/rules.md §4.7: all nine tricks (k = 1) is a Mordienne."""
    result = replay(record(nine_trick_deal(2)))
    assert result["deals"][0]["trick_winners"] == [3] * 9
    assert result["deals"][0]["points"] == [0, 2, 0, 2]


# the tie for most tricks goes to the seat that reached the number first
TIE = [
    (["4c", "5c", "Ao", "6c"], 3),  # led by seat 1: seat 3 wins (its first win is the earliest)
    (["4o", "Ac", "5o", "6o"], 0),
    (["Ae", "4e", "5e", "6e"], 0),
    (["7c", "Ab", "7o", "7e"], 1),
    (["8c", "8o", "Kc", "8e"], 3),
    (["4b", "Ko", "5b", "6b"], 0),  # seat 0 reaches three tricks
    (["Ke", "Kb", "7b", "8b"], None),  # pourri: seat 0 leads again
    (["Jc", "Jo", "No", "Je"], 2),
    (["9b", "Nc", "9e", "Jb"], 3),  # seat 3 reaches three tricks later, with the last trick
]


def test_most_tricks_tie_goes_to_who_reached_the_number_first():
    """docs/rules.md §4.6: a tie for the most tricks goes to who reached that number first."""
    result = replay(record(scripted_deal(0, TIE)))
    assert result["deals"][0]["trick_winners"] == [3, 0, 0, 1, 3, 0, None, 2, 3]
    assert result["deals"][0]["points"] == [1, 0, 1, 0]


# seat 1 takes four tricks; partners 0 and 2 take three and two: five together, but a deal is won by one
# player (dealer 0, so seat 1 leads)
UNPOOLED = [
    (["3o", "4c", "5c", "6c"], 1),
    (["3c", "4o", "5o", "6o"], 1),
    (["2o", "4e", "5e", "6e"], 1),
    (["2c", "7c", "7o", "7e"], 1),  # seat 1 has four tricks
    (["4b", "9c", "5b", "6b"], 2),
    (["9o", "7b", "8o", "8c"], 2),  # seat 2 has two
    (["8e", "8b", "2b", "Jo"], 0),
    (["2e", "Jc", "Je", "Jb"], 0),
    (["Ao", "Ko", "Kc", "Ke"], 0),  # seat 0 has three: its team five
]


def test_partners_tricks_are_not_added_together():
    """docs/rules.md §4.1, §4.6: the deal goes to the player with the most tricks (seat 1, four), not to
    the team whose partners took more together (seats 0 and 2, three and two)."""
    result = replay(record(scripted_deal(0, UNPOOLED)))
    assert result["deals"][0]["trick_winners"] == [1, 1, 1, 1, 2, 2, 0, 0, 0]
    assert result["deals"][0]["points"] == [0, 1, 0, 1]


RULE_BOOK_STRENGTH = {c: len(CLASSES) - k for k, cls in enumerate(CLASSES) for c in cls}
"""Strength by the rule book's table (§4.3), the strongest 19."""


def test_every_seat_of_a_trick_may_play_any_card_of_its_hand():
    """docs/rules.md §4.4: no obligation for the second, third and fourth players either: whatever is on
    the table, the legal plays are the whole hand (a weaker card while holding a stronger one too)."""
    by_place = [0, 0, 0]
    weaker_while_stronger = 0
    for seed in range(30):
        state = make_game("aluette").new_match(seed=seed)
        rng = make_rng(seed)
        while not state.is_terminal and state.deal_number == 1 and not state.deal_pending:
            view = state.view(state.to_move)
            if view["trick"]:
                assert sorted(state.legal_texts()) == sorted(view["hand"])
                by_place[len(view["trick"]) - 1] += 1
                top = max(RULE_BOOK_STRENGTH[c] for c in view["trick"])
                strengths = [RULE_BOOK_STRENGTH[c] for c in view["hand"]]
                if max(strengths) > top and min(strengths) < top:
                    weaker_while_stronger += 1
            state.apply(int(K.random_action(state.array, rng)))
    assert min(by_place) > 100 and weaker_while_stronger > 50


def test_deal_winner_kernel_on_counts():
    """docs/rules.md §4.6, §4.7: the deal winner and its points from trick counts and first and latest
    wins."""
    state = np.zeros(K.STATE_SIZE, np.int64)
    won, first, last = [3, 1, 1, 3], [1, 3, 7, 0], [5, 3, 7, 8]
    state[K.TRICKS_WON : K.TRICKS_WON + 4] = won
    state[K.FIRST_WIN : K.FIRST_WIN + 4] = first
    state[K.LAST_WIN : K.LAST_WIN + 4] = last
    assert tuple(int(v) for v in K.deal_winner(state, 9)) == (0, 1)
    state[K.TRICKS_WON : K.TRICKS_WON + 4] = [0, 0, 2, 0]
    state[K.FIRST_WIN : K.FIRST_WIN + 4] = [-1, -1, 7, -1]
    state[K.LAST_WIN : K.LAST_WIN + 4] = [-1, -1, 8, -1]
    assert tuple(int(v) for v in K.deal_winner(state, 9)) == (2, 2)
    state[K.TRICKS_WON : K.TRICKS_WON + 4] = 0
    assert int(K.deal_winner(state, 9)[0]) == NOBODY


# ------------------------------------------------------------------ a match


def one_trick_deal(dealer: int) -> dict:
    """The dealer's left wins the first trick, the eight others are spoiled: 1 point."""
    spoiled = all_spoiled()
    return scripted_deal(dealer, [(["3o", "5b", "6b", "7b"], (dealer + 1) % 4), *spoiled[1:]])


def test_five_deal_match_win_with_dealer_rotation():
    """docs/rules.md §4.8, §4.9, §0.2: five deals with the dealer moving left; the team with more match
    points wins."""
    # dealers 0 1 2 3 0: the first leaders 1 2 3 0 1 win one point each for their team
    deals = [one_trick_deal(d) for d in (0, 1, 2, 3, 0)]
    result = replay(record(*deals))
    assert [d["points"] for d in result["deals"]] == [[0, 1, 0, 1], [1, 0, 1, 0]] * 2 + [[0, 1, 0, 1]]
    assert result["totals"] == [2, 3, 2, 3]
    assert result["outcome"] == [0, 1, 0, 1]


def test_five_deal_match_draw():
    """docs/rules.md §4.9, §0.5: equal match points after five deals are a draw, 0.5 each."""
    deals = [one_trick_deal(0), one_trick_deal(1), scripted_deal(2, all_spoiled()),
             nine_trick_deal(3), nine_trick_deal(0)]
    state = load_record(record(*deals))
    assert state.totals == [3, 3, 3, 3]
    assert state.is_terminal and state.outcome == [0.5, 0.5, 0.5, 0.5]
    out = np.zeros(4)
    contract.returns(state.array, 1, out)
    assert list(out) == [0.5] * 4


def test_match_is_over_after_five_deals_and_dealers_must_rotate():
    """docs/rules.md §4.8, §4.9: a sixth deal or a dealer out of rotation is a record error
    (docs/records.md)."""
    deals = [one_trick_deal(d) for d in (0, 1, 2, 3, 0)]
    with pytest.raises(InvalidRecordError, match="deal 6: the match ended"):
        load_record(record(*deals, one_trick_deal(1)))
    with pytest.raises(InvalidRecordError, match=r"deal 2: dealer 2 contradicts the rules .*seat 1"):
        load_record(record(one_trick_deal(0), one_trick_deal(2)))


def test_deal_returns_are_the_normalised_margin():
    out = np.zeros(4)
    state = load_record(record(scripted_deal(0, MORDIENNE)))
    contract.returns(state.array, OBJECTIVE_DEAL, out)
    assert list(out) == [1.0, 0.0, 1.0, 0.0]
    state = load_record(record(scripted_deal(0, TIE)))
    contract.returns(state.array, OBJECTIVE_DEAL, out)
    assert list(out) == [0.75, 0.25, 0.75, 0.25]
    state = load_record(record(scripted_deal(0, all_spoiled())))
    contract.returns(state.array, OBJECTIVE_DEAL, out)
    assert list(out) == [0.5] * 4


# ------------------------------------------------------------- records


def test_examples_replay_exactly():
    """docs/records.md: the Aluette example matches replay to their expected output."""
    for path in sorted(EXAMPLES.glob("aluette-*.json")):
        example = json.loads(path.read_text())
        assert replay(example["record"]) == example["expected"], path.name


def test_record_errors_name_the_problem():
    """docs/records.md, docs/rules.md §4.2, §4.10: hands of nine, 'undealt' optional and exact, illegal
    plays named."""
    deal = scripted_deal(0, MORDIENNE)
    bad = dict(deal, hands=[h[:] for h in deal["hands"]])
    bad["hands"][1][0] = bad["hands"][0][0]
    with pytest.raises(InvalidRecordError, match="dealt twice"):
        load_record(record(bad))
    short = dict(deal, hands=[deal["hands"][0][:8], *deal["hands"][1:]])
    with pytest.raises(InvalidRecordError, match="hand of seat 0 has 8 cards, not 9"):
        load_record(record(short))
    wrong_undealt = dict(deal, undealt=deal["undealt"][:-1] + [deal["hands"][0][0]])
    with pytest.raises(InvalidRecordError, match="'undealt' lists dealt cards"):
        load_record(record(wrong_undealt))
    without_undealt = {k: v for k, v in deal.items() if k != "undealt"}
    assert replay(record(without_undealt)) == replay(record(deal))
    illegal = dict(deal, actions=["Ao", "Ao"])
    with pytest.raises(InvalidRecordError, match=r"deal 1, action 1 \('Ao'\).*not legal for seat 2"):
        load_record(record(illegal))
    with pytest.raises(OptionError, match="unknown option 'target'"):
        make_game("aluette", target=3)


def test_record_round_trip_of_a_played_match():
    """docs/records.md, docs/rules.md §4.2, §4.8: a played match round-trips; dealers rotate left; twelve
    cards undealt."""
    state = make_game("aluette", first_dealer=3).new_match()
    rng = make_rng(8)
    buffer = np.zeros(contract.MAX_ACTIONS, np.int64)
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=rng)
        else:
            state.apply(int(contract.random_action(state.array, rng, buffer)))
    rec = json.loads(json.dumps(record_of(state)))
    assert np.array_equal(load_record(rec).array, state.array)
    assert [d["dealer"] for d in rec["deals"]] == [3, 0, 1, 2, 3]
    assert len(rec["deals"][0]["undealt"]) == 12


# --------------------------------------------------------------- views


def mid_deal_tie(actions: int = 18):
    """The TIE deal after four tricks and two cards of the fifth (seat 3 to move)."""
    deal = scripted_deal(0, TIE)
    return deal, load_record(record(dict(deal, actions=deal["actions"][:actions])))


def test_view_shows_only_the_seats_own_cards_and_public_facts():
    """docs/rules.md §4.2, docs/design.md §4: a view shows the seat's own cards and public facts, no
    unused card."""
    deal, state = mid_deal_tie()
    game = state.game
    view = state.view(3)
    assert state.to_move == 3 and view["legal_actions"] == view["hand"]
    assert set(view["hand"]) < set(deal["hands"][3]) and len(view["hand"]) == 5
    assert view["tricks_won"] == [2, 1, 0, 1] and view["tricks_done"] == 4
    assert view["first_win"] == [1, 3, None, 0] and view["last_win"] == [2, 3, None, 0]
    assert view["trick"] == ["8c", "8o"] and len(view["played"]) == 16
    assert view["hand_sizes"] == [5, 4, 4, 5] and view["leader"] == 1
    shown = set(json.dumps(view).replace('"', " ").replace(",", " ").replace("]", " ").split())
    for s in (0, 1, 2):
        assert not shown & set(state.view(s)["hand"]), f"seat 3's view shows a card of seat {s}"
    assert not shown & set(deal["undealt"]), "seat 3's view shows an unused card"
    assert game.state_from_view(view, seed=5).view(3) == view
    picture = game.render(state, seat=3)
    assert "seat 0: (5 cards)" in picture and "trick 5, led by seat 1: 8c 8o" in picture


def test_state_from_view_rejects_inconsistent_views():
    _, state = mid_deal_tie()
    game = state.game
    view = state.view(3)
    cases = [
        (dict(view, hand=view["hand"][:-1]), "should hold 5 cards"),
        (dict(view, trick=[view["hand"][0], "8o"]), "appears twice"),
        (dict(view, leader=2), "leader 2 contradicts the tricks won: seat 1 must lead"),
        (dict(view, to_move=0), "seat 0 cannot be to move"),
        (dict(view, tricks_won=[2, 1, 1, 1]), "add up to more than the 4 tricks"),
        (dict(view, first_win=[1, 3, None, 2], last_win=[2, 3, None, 2]), "trick index 2 is won by both"),
        (dict(view, last_win=[2, 3, None, 5]), "seat 3 cannot have won 1 trick"),
        (dict(view, deal_points=[1, 0, 1, 0]), "must be zero until the deal is scored"),
        (dict(view, totals=[1, 0, 0, 0]), "partners 0 and 2 must share"),
        (dict(view, totals=[5, 0, 5, 0]), "exceed 2 match points per deal"),
        (dict(view, played=view["played"][:-1]), "15 played cards do not make 4 complete tricks"),
        (dict(view, history=view["history"][:-1]), "history disagrees"),
        (dict(view, deal_number=6), "past the match's 5 deals"),
        (dict(view, cheat=1), "unknown field 'cheat'"),
        ({k: v for k, v in view.items() if k != "first_win"}, "needs the field 'first_win'"),
        (dict(view, first_win=[1, 3, "x", 0]), "first_win"),
    ]
    for bad, message in cases:
        with pytest.raises(InvalidViewError, match=message):
            game.state_from_view(bad)
    # an empty history is accepted: the other fields still describe the position
    assert game.state_from_view(dict(view, history=[]), seed=1).to_move == 3


def test_state_from_view_of_finished_deals_and_match():
    state = load_record(record(*[one_trick_deal(d) for d in (0, 1, 2, 3, 0)]))
    game = state.game
    for seat in range(4):
        view = state.view(seat)
        assert view["to_move"] is None and view["deal_points"] == [0, 1, 0, 1]
        rebuilt = game.state_from_view(view)
        assert rebuilt.is_terminal and rebuilt.outcome == [0, 1, 0, 1]
        assert rebuilt.view(seat) == view
    between = load_record(record(one_trick_deal(0)))
    view = between.view(0)
    rebuilt = game.state_from_view(view)
    assert rebuilt.deal_pending and rebuilt.dealer == 1 and rebuilt.view(0) == view


# ---------------------------------------------------------- pure Python


def test_pure_reference_playouts_obey_the_rules():
    """docs/rules.md §4.3, §4.6, §4.7: the plain-Python reference's strengths and deal scores agree with
    the engine."""
    rng = random.Random(4)
    for _ in range(300):
        result = pure.random_playout(rng, dealer=rng.randrange(4))
        winners, points = result["trick_winners"], result["points"]
        assert len(winners) == 9
        assert points[0] == points[2] and points[1] == points[3]
        assert min(points[0], points[1]) == 0 and max(points) in (0, 1, 2)
        assert (max(points) == 0) == all(w is None for w in winners)
        # the engine's scoring agrees on the same trick results
        state = np.zeros(K.STATE_SIZE, np.int64)
        state[K.FIRST_WIN : K.FIRST_WIN + 4] = -1
        state[K.LAST_WIN : K.LAST_WIN + 4] = -1
        for index, w in enumerate(winners):
            if w is not None:
                state[K.TRICKS_WON + w] += 1
                state[K.LAST_WIN + w] = index
                if state[K.FIRST_WIN + w] < 0:
                    state[K.FIRST_WIN + w] = index
        seat, score = (int(v) for v in K.deal_winner(state, 9))
        assert score == max(points) and (score == 0 or points[seat] == score)
    assert pure.STRENGTH["3o"] > pure.STRENGTH["3c"] > pure.STRENGTH["Ae"] == pure.STRENGTH["Ab"]
    assert pure.trick_winner(["Ab", "Ae", "4o", "4c"]) is None




# ------------------------------------------------------------------ small variants (§4.11-§4.13)

SMALL_ORDER = ["3o", "Ao", "Ac", "Ab", "Ae", "3c", "Ko", "Kc", "Kb", "Ke", "2o", "No", "Nc", "Nb", "Ne", "2c",
               "Jo", "Jc", "Jb", "Je", "9c", "9b", "9e", "9o", "8o", "8c", "8b", "8e", "2b", "7o", "7c", "7b",
               "7e", "2e", "6o", "6c", "6b", "6e", "5o", "5c", "5b", "5e", "4o", "4c", "4b", "4e", "3b", "3e"]
"""The order of docs/rules.md §4.11, written out independently of the engine."""


def small_record(cards: int, hand: int, tricks: list[tuple[list[str], int | None]], dealer: int = 0) -> dict:
    """A record of one deal of the variant ``cards``/``hand`` from its tricks, as
    :func:`scripted_deal` makes them; the deck's cards not played are its undealt ones."""
    hands: list[list[str]] = [[] for _ in range(4)]
    leader = (dealer + 1) % 4
    actions = []
    for trick, winner in tricks:
        for k, c in enumerate(trick):
            hands[(leader + k) % 4].append(c)
        actions.extend(trick)
        if winner is not None:
            leader = winner
    assert all(len(h) == hand for h in hands) and len(set(actions)) == len(actions)
    undealt = [c for c in SMALL_ORDER[:cards] if c not in actions]
    deal = {"dealer": dealer, "hands": hands, "actions": actions}
    if undealt:
        deal["undealt"] = undealt
    options = {"first_dealer": dealer, "cards": cards, "hand": hand}
    return {"game": "aluette", "options": options, "deals": [deal]}


def test_a_small_deck_is_the_first_cards_of_the_order_with_unique_and_equal_cards():
    """docs/rules.md §4.11, §4.12: the deck of cards=k is the first k cards of the order, each keeping
    its class; with cards=8 it is 3o, the four aces, 3c, Ko and Kc. The eight strongest cards are all
    unique (a deck of them could never spoil a trick), but every deck of the order from four cards on has
    two equal cards and a unique card above them."""
    assert sorted(SMALL_ORDER) == sorted(ALUETTE_DECK.names(ALUETTE_DECK.all_mask))
    assert all(len(cls) == 1 for cls in CLASSES[:8])
    for cards in range(4, 49):
        game = make_game("aluette", cards=cards, hand=min(cards // 4, 9))
        deck = {ALUETTE_DECK.name(c) for c in game.cards_in_play()}
        assert deck == set(SMALL_ORDER[:cards]), cards
        classes = [[c for c in cls if c in deck] for cls in CLASSES]
        pair = next(k for k, cls in enumerate(classes) if len(cls) >= 2)
        assert any(len(cls) == 1 and len(CLASSES[k]) == 1 for k, cls in enumerate(classes[:pair])), cards
    eight = make_game("aluette", cards=8, hand=2)
    assert sorted(eight.deck.name(c) for c in eight.cards_in_play()) == sorted(["3o", "Ao", "Ac", "Ab", "Ae",
                                                                                 "3c", "Ko", "Kc"])
    assert strength("Ko") == strength("Kc") and trick_winner(["Ko", "Ao", "Kc", "Ac"], leader=0) is None


def test_a_small_variant_deals_hand_cards_from_its_deck_and_lists_the_rest_as_undealt():
    """docs/rules.md §4.11: with cards=9 and hand=2 every seat gets two cards of the nine, and the one
    left lies unused: nobody sees it, and the record lists it as undealt (never a card out of the deck)."""
    game = make_game("aluette", cards=9, hand=2)
    deck = set(SMALL_ORDER[:9])
    for seed in range(40):
        state = game.new_match(seed=seed)
        hands = [ALUETTE_DECK.names(int(state.array[K.HANDS + s])) for s in range(4)]
        assert all(len(h) == 2 and set(h) <= deck for h in hands)
        record = game.deal_to_json(state.deals[-1].vector)
        held = {c for h in hands for c in h}
        assert len(record["undealt"]) == 1 and set(record["undealt"]) == deck - held
        assert ALUETTE_DECK.names(int(state.array[K.UNDEALT])) == record["undealt"]
        for seat in range(4):
            view = state.view(seat)
            assert view["hand_sizes"] == [2, 2, 2, 2]
            assert record["undealt"][0] not in json.dumps(view)
    assert make_game("aluette", cards=8, hand=2).deal_to_json(
        make_game("aluette", cards=8, hand=2).new_match(seed=1).deals[-1].vector).keys() == {"hands"}


def test_every_small_deal_is_equally_likely_and_listed_once():
    """docs/rules.md §4.11, §0.6: cards=8, hand=2 has 8! / 2!^4 = 2,520 deals and cards=9, hand=2
    9! / (2!^4 1!) = 22,680, each listed once by all_deals; seeded deals fall on them uniformly (a
    chi-squared check on the hand of seat 0, C(8, 2) = 28 hands)."""
    for cards, count in ((8, 2520), (9, 22680)):
        game = make_game("aluette", cards=cards, hand=2)
        assert game.deal_count() == count
        deals = set()
        for vector in game.all_deals():
            assert sorted(vector.tolist()) == list(range(48))
            deals.add(tuple(frozenset(vector[2 * s : 2 * s + 2].tolist()) for s in range(4)))
            assert set(vector[: cards].tolist()) == set(game.cards_in_play())
        assert len(deals) == count
    assert make_game("aluette").deal_count() == factorial(48) // (factorial(9) ** 4 * factorial(12))
    game = make_game("aluette", cards=8, hand=2)
    counts: dict[int, int] = {}
    draws = 5600
    for seed in range(draws):
        hand = int(game.new_match(seed=seed).array[K.HANDS])
        counts[hand] = counts.get(hand, 0) + 1
    assert len(counts) == 28
    expected = draws / 28
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 55.5  # the 99.9% point of chi-squared with 27 degrees of freedom


def test_a_small_deal_is_hand_tricks_spoiled_ones_included():
    """docs/rules.md §4.11, §4.5: a deal of hand=2 ends after two tricks even when one was pourri (its
    leader led again); random deals of hand=2 and 3 always end after 4 x hand cards."""
    tricks = [(["Ao", "Ko", "Ac", "Kc"], None),  # led by seat 1: two aces tie, pourri
              (["3o", "Ab", "3c", "Ae"], 1)]  # seat 1 leads again and wins
    state = load_record(small_record(8, 2, tricks))
    assert state.deals[-1].trick_winners == [None, 1]
    assert state.deal_pending and state.dealer == 1 and state.deal_number == 1
    for cards, hand in ((8, 2), (12, 3), (9, 2)):
        game = make_game("aluette", cards=cards, hand=hand)
        for seed in range(20):
            state = game.new_match(seed=seed)
            rng = np.random.default_rng(seed)
            plays = 0
            while not state.deal_pending:
                legal = state.legal_actions()
                state.apply(legal[int(rng.integers(len(legal)))])
                plays += 1
            assert plays == 4 * hand and len(state.deals[-1].trick_winners) == hand


def test_the_deal_winner_and_mordienne_in_a_short_deal():
    """docs/rules.md §4.13, §4.6, §4.7: with hand tricks for nine, most tricks wins, ties to who got there
    first, nobody scores when all are pourri; Mordienne is a run of at least two tricks ending with the
    last: taking both tricks of hand=2, never in hand=1, the last two of hand=3."""
    cases = [
        (8, 2, [(["3o", "Ko", "Ac", "Kc"], 1), (["3c", "Ab", "Ae", "Ao"], 1)], [1, 1], [0, 2, 0, 2]),
        (8, 2, [(["Ao", "Ko", "Ac", "Kc"], None), (["3o", "Ab", "3c", "Ae"], 1)], [None, 1], [0, 1, 0, 1]),
        (8, 2, [(["Ko", "3c", "Ac", "Kc"], 2), (["Ao", "Ab", "3o", "Ae"], 0)], [2, 0], [1, 0, 1, 0]),
        (10, 2, [(["Ao", "Ko", "Ac", "Kc"], None), (["Ab", "Kb", "Ae", "Ke"], None)], [None, None], [0] * 4),
        (4, 1, [(["Ao", "3o", "Ac", "Ab"], 2)], [2], [1, 0, 1, 0]),
        (12, 3, [(["3o", "Ko", "Kc", "Kb"], 1), (["Ao", "3c", "Ac", "Ab"], 2), (["2o", "Ae", "Ke", "No"], 2)],
         [1, 2, 2], [2, 0, 2, 0]),
        (12, 3, [(["3o", "Ko", "Kc", "Kb"], 1), (["Ao", "3c", "Ac", "Ab"], 2), (["Ae", "Ke", "No", "2o"], 1)],
         [1, 2, 1], [0, 1, 0, 1]),
    ]
    out = np.zeros(4)
    for cards, hand, tricks, winners, points in cases:
        state = load_record(small_record(cards, hand, tricks))
        assert state.deals[-1].trick_winners == winners, tricks
        assert state.deal_points == points, tricks
        contract.returns(state.array, OBJECTIVE_DEAL, out)
        assert list(out) == [(p - q + 2) / 4 for p, q in zip(points, points[1:] + points[:1])]


def test_small_variant_options_records_and_views_outside_the_deck_are_one_line_errors():
    """docs/rules.md §4.11: four hands may not need more cards than the deck has; a record or view
    naming a card out of the deck is refused, and so is an 'undealt' that is not the deck's rest."""
    with pytest.raises(OptionError, match=r"^aluette option hand=3 is too many: a deck of 8 cards has 2 a "):
        make_game("aluette", cards=8, hand=3)
    with pytest.raises(OptionError, match=r"aluette option cards=3 is out of range \(4\.\.48"):
        make_game("aluette", cards=3, hand=1)
    game = make_game("aluette", cards=8, hand=2)
    with pytest.raises(InvalidRecordError, match="2o is not in the deck"):
        game.deal_from_json({"hands": [["3o", "Ao"], ["Ac", "Ab"], ["Ae", "3c"], ["Ko", "2o"]]})
    good = {"hands": [["3o", "Ao"], ["Ac", "Ab"], ["Ae", "3c"], ["Ko", "Kc"]]}
    assert game.deal_to_json(game.deal_from_json(good)) == good
    with pytest.raises(InvalidRecordError, match="'undealt' must be the cards of the deck not dealt: none"):
        game.deal_from_json(dict(good, undealt=["2o"]))
    game9 = make_game("aluette", cards=9, hand=2)
    with pytest.raises(InvalidRecordError, match="'undealt' must be the cards of the deck not dealt: Kb"):
        game9.deal_from_json(dict(good, undealt=["2o"]))
    state = game.new_match(seed=3)
    view = state.view(state.to_move)
    view["hand"][0] = "2o"
    with pytest.raises(InvalidViewError, match="2o is not in the deck of these options"):
        game.state_from_view(view)
    state = load_record(small_record(8, 2, [(["3o", "Ko", "Ac", "Kc"], 1), (["3c", "Ab", "Ae", "Ao"], 1)]))
    view = state.view(0)
    with pytest.raises(InvalidViewError, match="trick indices 0..1 or null"):
        game.state_from_view(dict(view, first_win=[None, 2, None, None]))
    with pytest.raises(InvalidViewError, match="deal_points"):
        game.state_from_view(dict(view, deal_points=[0, 1, 0, 1], totals=[0, 1, 0, 1]))
    assert game.state_from_view(view).view(0) == view


def test_a_small_variant_deals_hidden_cards_only_from_its_deck():
    """docs/rules.md §4.11: the cards a seat cannot see, dealt again by determinize or from a view, come
    from the deck in play (its unused card included), never from out of it."""
    game = make_game("aluette", cards=9, hand=2)
    deck = sum(1 << c for c in game.cards_in_play())
    for seed in range(50):
        state = game.new_match(seed=seed)
        world = state.array.copy()
        K.determinize(world, 0, make_rng(seed))
        held = [int(world[K.HANDS + s]) for s in range(4)]
        assert held[0] == int(state.array[K.HANDS])
        assert all(h & ~deck == 0 and bin(h).count("1") == 2 for h in held)
        assert int(world[K.UNDEALT]) & ~deck == 0 and bin(int(world[K.UNDEALT])).count("1") == 1
        rebuilt = game.state_from_view(state.view(1), seed=seed).array
        assert all(int(rebuilt[K.HANDS + s]) & ~deck == 0 for s in range(4))
        assert int(rebuilt[K.UNDEALT]) & ~deck == 0 and bin(int(rebuilt[K.UNDEALT])).count("1") == 1


def test_the_heuristic_counts_unseen_cards_only_from_the_deck():
    """docs/rules.md §4.11: the heuristic scores a small variant's position as it would the same position
    of a 48-card deck in which the cards out of the small deck were already played: they are not unseen
    cards that could beat or tie its card. Counted as unseen, they would change its scores."""
    game = make_game("aluette", cards=9, hand=2)
    out_of_deck = sum(1 << c for c in range(48)) & ~sum(1 << c for c in game.cards_in_play())
    differ = 0
    for seed in range(30):
        state = game.new_match(seed=seed)
        hand = ALUETTE_DECK.names(int(state.array[K.HANDS + state.to_move]))
        cards = [ALUETTE_DECK.parse(c) for c in hand]
        small, whole, blind = np.zeros(48), np.zeros(48), np.zeros(48)
        K.card_scores(state.array, small)
        played = state.array.copy()
        played[K.DECK] = int(K.ALL_CARDS)
        played[K.GONE] |= out_of_deck
        K.card_scores(played, whole)
        assert [small[c] for c in cards] == [whole[c] for c in cards]
        unseen = state.array.copy()
        unseen[K.DECK] = int(K.ALL_CARDS)
        K.card_scores(unseen, blind)
        differ += [small[c] for c in cards] != [blind[c] for c in cards]
    assert differ > 0


def test_a_small_variants_history_replays_in_worlds_of_its_deck():
    """docs/rules.md §4.11: beliefs rebuild the deal of a small variant's world (its hands, its unused
    cards, then the cards out of the deck) and replay the seat's history in it."""
    from slagwerk.search.belief import infer

    game = make_game("aluette", cards=12, hand=3)
    checked = 0
    for seed in range(12):
        state = game.new_match(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(1, 10))):
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        seat = state.to_move
        view = state.view(seat)
        rebuilt = game.state_from_view(view, seed=seed)
        script = rebuilt.game.replay_script(view)
        belief = infer(rebuilt, script, seat, temperature=float("inf"), particles=4, seed=seed)
        assert belief.agreed == 4 and belief.worlds is not None
        for world in belief.worlds:
            # the world keeps the seat's view (the history is the state's log, which a bare array lacks)
            assert {**game.state_from_array(world).view(seat), "history": []} == {**view, "history": []}
            held = [int(world[K.HANDS + s]) for s in range(4)]
            assert held[seat] == int(state.array[K.HANDS + seat])
            assert all(h & ~sum(1 << c for c in game.cards_in_play()) == 0 for h in held)
        checked += 1
    assert checked == 12


def test_a_small_variant_through_the_openspiel_adapter():
    """docs/rules.md §4.11 through the adapter: chance deals only the deck in play card by card (the last
    hand is what is left when the whole deck is dealt), a whole deal is one of deal_count() equally likely
    outcomes with chance=deal, and pyspiel's random simulation plays both to the end."""
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (extra 'openspiel')")
    import pyspiel

    from slagwerk.envs import openspiel as sw_openspiel

    for cards, drawn in ((8, 6), (9, 8)):
        game = sw_openspiel.load_game("aluette", objective="deal", cards=cards, hand=2)
        state = game.new_initial_state()
        n = 0
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert len(outcomes) == cards - n
            assert {state.action_to_string(c).split()[1] for c, _ in outcomes} <= set(SMALL_ORDER[:cards])
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            state.apply_action(outcomes[-1][0])
            n += 1
        assert n == drawn and len(state.legal_actions()) == 2
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    game = sw_openspiel.load_game("aluette", objective="deal", chance="deal", cards=8, hand=2)
    outcomes = game.new_initial_state().chance_outcomes()
    assert game.max_chance_outcomes() == len(outcomes) == make_game("aluette", cards=8, hand=2).deal_count()
    assert len({p for _, p in outcomes}) == 1 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
