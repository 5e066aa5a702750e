"""Koetsieren (docs/rules.md §2): every rule and ruling, with hand-computed cases."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from paths import EXAMPLES
from slagwerk.agents import make
from slagwerk.engine import (
    IllegalActionError,
    InvalidRecordError,
    InvalidViewError,
    OptionError,
    make_game,
)
from slagwerk.engine.bits import make_rng
from slagwerk.engine.cards import KOETSIEREN_DECK
from slagwerk.engine.game import State
from slagwerk.engine.koetsieren import kernels as K
from slagwerk.engine.koetsieren import pure
from slagwerk.engine.koetsieren.observation import OBSERVATION_SIZE, SLOT_WIDTH, SLOTS_AT, C, observe
from slagwerk.engine.records import load_record, record_of, replay
from slagwerk.engine.replay import replay_in
from slagwerk.engine.state import OBJECTIVE_DEAL, TOTALS

card = KOETSIEREN_DECK.parse

# ------------------------------------------------------- the seed's example
# Four players A B C D = seats 0 1 2 3, dealer A, so B names trump (clubs) and
# leads. Tricks 1 and 2 are the rule book's; tricks 3 to 5 complete the deal
# so that B takes 2 (tricks 1, 3), C 2 (4, 5), D 0 and A 1 (trick 2).
EXAMPLE_HANDS = [
    {"table": ["9s", "Ts"], "forehead": ["7d", "7c"], "hidden": "8d"},  # A
    {"table": ["Kc", "Jh"], "forehead": ["9d", "8h"], "hidden": "7h"},  # B
    {"table": ["Ac", "9h"], "forehead": ["Ah", "Th"], "hidden": "Qc"},  # C
    {"table": ["Qs", "7s"], "forehead": ["Ad", "8s"], "hidden": "Js"},  # D
]
EXAMPLE_BIDS = ["trump:c", "bid:2", "bid:0", "bid:1", "bid:3"]  # C, D, A, then B (not 2)
EXAMPLE_TRICKS = [
    ["9d", "Ah", "Qs", "7d"],  # B leads diamonds, no trump: B wins
    ["8h", "Th", "Ad", "7c"],  # A's 7c is the only trump: A wins
    ["8d", "Kc", "9h", "7s"],  # A leads; B trumps: B wins
    ["7h", "Ac", "8s", "9s"],  # B leads; C trumps with the ace: C wins
    ["Qc", "Js", "Ts", "Jh"],  # C leads the best trump left: C wins
]
# The same plays by slot (T1 T2 F1 F2 H), as a seat names its own cards.
EXAMPLE_SLOTS = [
    ["F1", "F1", "T1", "F1"],
    ["F2", "F2", "F1", "F2"],
    ["H", "T1", "T2", "T2"],
    ["H", "T1", "F2", "T1"],
    ["H", "H", "T2", "T2"],
]


def example_record(actions=None, players=4, dealer=0, hands=None):
    if actions is None:
        actions = EXAMPLE_BIDS + [c for trick in EXAMPLE_TRICKS for c in trick]
    return {
        "game": "koetsieren",
        "options": {"players": players},
        "deals": [{"dealer": dealer, "hands": hands or EXAMPLE_HANDS, "actions": actions}],
    }


def test_seed_example_bids_tricks_hook_and_penalty():
    """docs/rules.md §2.13, §2.6: the seed's example; its five tricks are one deal, scored after the
    fifth, and the match goes on; only B misses, by one."""
    result = replay(example_record())
    deal = result["deals"][0]
    assert deal["trick_winners"] == [1, 0, 1, 2, 2]
    # only B misses, by one: 1 penalty point
    assert deal["points"] == [0, 1, 0, 0]
    assert result["totals"] == [0, 1, 0, 0] and result["outcome"] is None


def test_seed_example_step_by_step():
    """docs/rules.md §2.3, §2.4, §2.5, §2.7: the trump maker (left of the dealer) names trump, the bidding
    starts on its left, and it bids last under the hook and leads."""
    state = make_game("koetsieren").new_match()
    state.deal(state.game.deal_from_json({"hands": EXAMPLE_HANDS}))
    assert state.to_move == 1 and state.legal_texts() == ["trump:c", "trump:d", "trump:h", "trump:s"]
    state.apply("trump:c")
    assert state.to_move == 2  # bidding starts left of the trump maker
    for text, bidder in zip(EXAMPLE_BIDS[1:4], (2, 3, 0)):
        assert state.to_move == bidder
        state.apply(text)
    assert state.to_move == 1  # the trump maker bids last
    assert "bid:2" not in state.legal_texts()  # 2 + 0 + 1 + 2 = 5: the hook
    assert len(state.legal_actions()) == 5
    state.apply("bid:3")
    assert state.to_move == 1 and state.leader == 1  # the trump maker leads
    for text in EXAMPLE_TRICKS[0]:
        state.apply(text)
    assert state.deals[-1].trick_winners == [1] and state.to_move == 1
    for text in EXAMPLE_TRICKS[1]:
        state.apply(text)
    assert state.deals[-1].trick_winners == [1, 0] and state.to_move == 0


def test_hook_bars_the_trump_makers_bid_with_a_clear_record_error():
    """docs/rules.md §2.4: the hook bars the trump maker's bid that makes 5; the record error says why
    (docs/records.md)."""
    actions = EXAMPLE_BIDS[:4] + ["bid:2"]
    with pytest.raises(InvalidRecordError) as err:
        load_record(example_record(actions))
    text = str(err.value)
    assert "deal 1, action 4 ('bid:2')" in text
    assert "barred by the hook" in text and "trump maker (seat 1)" in text
    assert "sum of the bids to 5" in text and "others bid 3" in text


def test_hook_only_bars_the_last_bidder():
    """docs/rules.md §2.4: only the last bid is restricted, and only where a bid would make the sum 5."""
    # the first three bidders may bring the running sum to 5 (or past it)
    state = load_record(example_record(["trump:c", "bid:5", "bid:0", "bid:0"]))
    assert state.to_move == 1
    assert state.legal_texts() == ["bid:1", "bid:2", "bid:3", "bid:4", "bid:5"]  # 0 is barred
    state = load_record(example_record(["trump:c", "bid:4", "bid:3"]))
    assert len(state.legal_actions()) == 6  # seat 0 is not the trump maker
    state.apply("bid:1")
    assert len(state.legal_actions()) == 6  # 8 already: no bid makes 5


def test_barred_actions_name_the_hooked_bid_only_for_the_trump_maker():
    """docs/rules.md §2.4: the bid the hook bars is the one barred action (a page greys it
    out); its reason is the hook's, and no other seat or phase has one."""
    game = make_game("koetsieren")
    state = load_record(example_record(["trump:c", "bid:5", "bid:0", "bid:0"]))
    assert game.barred_actions(state) == ["bid:0"]
    assert "bid:0" not in state.legal_texts()
    assert "barred by the hook" in game.explain_illegal(state, "bid:0", state.legal_actions())
    state = load_record(example_record(["trump:c", "bid:4", "bid:3", "bid:1"]))
    assert game.barred_actions(state) == []  # 8 already: no bid makes 5
    state = load_record(example_record(["trump:c", "bid:1"]))
    assert game.barred_actions(state) == []  # not the trump maker
    state = load_record(example_record([]))
    assert game.barred_actions(state) == []  # naming trump


def test_two_player_bidding_order_dealer_first_trump_maker_last():
    """docs/rules.md §2.4, §2.5: with two players the dealer bids first and the trump maker last."""
    game = make_game("koetsieren", players=2, first_dealer=0)
    state = game.new_match(seed=4)
    assert state.dealer == 0 and state.to_move == 1  # the trump maker names trump
    state.apply("trump:s")
    assert state.to_move == 0  # with two players the first bidder is the dealer
    state.apply("bid:3")
    assert state.to_move == 1 and "bid:2" not in state.legal_texts()
    state.apply("bid:1")
    assert state.to_move == 1 and state.leader == 1  # the trump maker leads


@pytest.mark.parametrize(
    "cards, trump, expected, why",
    [
        (("9d", "Ah", "Qs", "7d"), "c", 0, "diamonds led, no trump: the ace of hearts is off-suit"),
        (("8h", "Th", "Ad", "7c"), "c", 3, "the lowest trump beats the suit led"),
        (("7c", "Ac", "8c"), "c", 1, "the highest trump wins"),
        (("Kh", "8s", "9s", "7s"), "s", 2, "the highest trump wins, not the last one"),
        (("7h", "As", "Ks"), "d", 0, "off-suit never wins, however high"),
        (("7h", "Ah"), "h", 1, "a trump lead: the higher trump wins"),
        (("Jd", "Qd", "Kd", "7d", "Ad", "9c"), "c", 5, "six players: the lone trump wins"),
    ],
)
def test_trick_winner(cards, trump, expected, why):
    """docs/rules.md §2.8, §2.1: the highest trump wins, else the highest card of the suit led."""
    trick = np.array([card(c) for c in cards], dtype=np.int64)
    got = int(K.trick_winner_position(trick, len(trick), "cdhs".index(trump)))
    assert got == expected, why
    as_tuples = [("789TJQKA".index(c[0]), c[1]) for c in cards]
    assert pure.trick_winner(as_tuples, trump) == expected


def test_trick_winner_agrees_with_the_plain_python_rule():
    """docs/rules.md §2.8, on 3000 random tricks of 2 to 6 cards."""
    rng = np.random.default_rng(1)
    for _ in range(3000):
        n = int(rng.integers(2, 7))
        cards = rng.choice(32, size=n, replace=False)
        trump = int(rng.integers(4))
        trumps = [c for c in cards if c // 8 == trump]
        led = [c for c in cards if c // 8 == cards[0] // 8]
        best = max(trumps) if trumps else max(led)
        position = int(K.trick_winner_position(cards.astype(np.int64), n, trump))
        assert cards[position] == best


def test_forehead_plays_by_slot_replay_the_same():
    """docs/rules.md §2.14: a play may name the slot or the card; a record written back names the card."""
    plays = [slot for trick in EXAMPLE_SLOTS for slot in trick]
    by_slot = example_record(EXAMPLE_BIDS + plays)
    assert replay(by_slot) == replay(example_record())
    # the record written back names the cards
    state = load_record(by_slot)
    assert state.deals[0].texts[5:9] == EXAMPLE_TRICKS[0]


def test_a_seat_names_its_own_forehead_cards_by_slot():
    """docs/rules.md §2.2, §2.7, §2.14: who sees which slot; a forehead card is played blind, by its slot;
    a played card is face up for all."""
    state = load_record(example_record(EXAMPLE_BIDS))
    assert state.to_move == 1
    view = state.view(1)
    assert view["hands"][1] == {"table": ["Kc", "Jh"], "forehead": ["??", "??"], "hidden": "7h",
                                 "played": {}}
    assert view["legal_actions"] == ["Kc", "Jh", "F1", "F2", "7h"]
    # the other seats see B's forehead but not its hidden card
    assert state.view(2)["hands"][1] == {"table": ["Kc", "Jh"], "forehead": ["9d", "8h"], "hidden": "??",
                                         "played": {}}
    assert state.game.action_text(state, K.SLOT_H, 2) == "H"
    for text in ("F1", "9d"):
        assert state.game.parse_action(state, text) == K.SLOT_F1
    state.apply("F1")
    assert state.view(1)["trick"] == ["9d"]  # a played card is face up for all
    assert state.view(1)["history"][-1] == {"seat": 1, "action": "9d"}
    assert state.view(2)["hands"][1]["forehead"] == [None, "8h"]
    # ... and so is the slot it came from, for every seat (the player itself learns its blind card)
    for seat in range(4):
        assert state.view(seat)["hands"][1]["played"] == {"F1": "9d"}



@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_slot_still_holding_a_card_may_be_played(players):
    """docs/rules.md §2.7: no duty to follow suit or to trump: whatever was led, the mover may play
    any slot that still holds a card (also an off-suit card while holding the suit led)."""
    free_choices = 0
    for seed in range(20):
        state = make_game("koetsieren", players=players).new_match(seed=seed)
        rng = make_rng(seed)
        while not state.is_terminal and state.deal_number == 1 and not state.deal_pending:
            if state.phase == K.PHASE_PLAY:
                mover = state.to_move
                cards = [int(state.array[K.SLOTS + mover * K.SLOTS_PER_SEAT + slot]) for slot in range(5)]
                assert state.legal_actions() == [slot for slot in range(5) if cards[slot] != K.EMPTY_SLOT]
                if int(state.array[K.N_IN_TRICK]):
                    led = int(state.array[K.TRICK]) // 8
                    suits = {c // 8 for c in cards if c != K.EMPTY_SLOT}
                    free_choices += led in suits and len(suits) > 1
            state.apply(int(K.random_action(state.array, rng)))
    assert free_choices > 20


def test_illegal_plays_name_the_slot_or_card():
    """docs/rules.md §2.3, §2.4, §2.7: trump first, then bids 0 to 5, then each slot's card once; other
    actions are clear errors."""
    state = load_record(example_record(EXAMPLE_BIDS + EXAMPLE_TRICKS[0]))
    assert state.to_move == 1
    with pytest.raises(IllegalActionError, match=r"'F1': seat 1 has already played the card of slot F1"):
        state.apply("F1")
    with pytest.raises(IllegalActionError, match=r"'Ac' is not a card in a slot of seat 1 .*F1=\(played\)"):
        state.apply("Ac")
    with pytest.raises(IllegalActionError, match="'bid:1' is not legal: the bidding is over"):
        state.apply("bid:1")
    fresh = load_record(example_record([]))
    with pytest.raises(IllegalActionError, match="names trump first"):
        fresh.apply("bid:1")
    with pytest.raises(IllegalActionError, match="names trump first"):
        fresh.apply("trump:x")
    fresh.apply("trump:h")
    with pytest.raises(IllegalActionError, match="not a bid: bids are bid:0 .. bid:5"):
        fresh.apply("bid:6")


# ----------------------------------------------------------- match scoring

def _play_example_deal(totals, bids):
    """The example deal after setting the match totals; bids C, D, A, B."""
    state = make_game("koetsieren").new_match()
    state.array[TOTALS : TOTALS + 4] = totals
    state.deal(state.game.deal_from_json({"hands": EXAMPLE_HANDS}))
    for text in ["trump:c"] + [f"bid:{b}" for b in bids]:
        state.apply(text)
    for trick in EXAMPLE_TRICKS:
        for text in trick:
            state.apply(text)
    return state


def test_penalty_is_the_distance_between_bid_and_tricks():
    """docs/rules.md §2.9, §2.10: penalty points are |bid - tricks|; the deal passes one seat left."""
    # A bids 0 instead of 1, so B may not bid 3 and bids 4: A 1 off, B 2 off
    state = _play_example_deal([0, 0, 0, 0], [2, 0, 0, 4])
    assert state.deal_points == [1, 2, 0, 0] and state.totals == [1, 2, 0, 0]
    assert state.deal_pending and state.dealer == 1  # the deal passes left


def test_match_goes_on_while_every_total_is_below_ten():
    """docs/rules.md §2.11: while every total is below ten the match goes on."""
    state = _play_example_deal([8, 7, 5, 9], [2, 0, 0, 4])
    assert state.totals == [9, 9, 5, 9] and not state.is_terminal and state.deal_pending


def test_the_highest_total_loses_when_someone_reaches_ten():
    """docs/rules.md §2.11: after the deal in which a total reaches ten, the highest total loses."""
    state = _play_example_deal([9, 9, 3, 2], [2, 0, 1, 3])
    assert state.totals == [9, 10, 3, 2]
    assert state.is_terminal and state.outcome == [1, 0, 1, 1]


def test_highest_total_loses_not_the_first_to_reach_ten():
    """docs/rules.md §2.11: two players pass ten in the same deal; the higher total loses."""
    state = _play_example_deal([9, 9, 0, 0], [2, 0, 0, 4])
    assert state.totals == [10, 11, 0, 0]
    assert state.outcome == [1, 0, 1, 1]  # A reached 10 too but B is highest


def test_tie_for_the_highest_total_all_of_them_lose():
    """docs/rules.md §2.12: all players sharing the highest total lose."""
    state = _play_example_deal([9, 8, 0, 0], [2, 0, 0, 4])
    assert state.totals == [10, 10, 0, 0]
    assert state.is_terminal and state.outcome == [0, 0, 1, 1]


def test_example_match_with_three_players_ends_with_the_highest_losing():
    """docs/rules.md §2.11: a whole three-player match ends with the highest total losing."""
    example = json.loads((EXAMPLES / "koetsieren-1001.json").read_text())
    state = load_record(example["record"])
    assert state.totals == [5, 12, 9] and state.outcome == [1, 0, 1]


@pytest.mark.parametrize("name", ["koetsieren-1001.json", "koetsieren-1002.json"])
def test_example_files_replay_exactly(name):
    """docs/records.md: the Koetsieren example matches replay to their expected output."""
    example = json.loads((EXAMPLES / name).read_text())
    assert replay(example["record"]) == example["expected"]


# ------------------------------------------------- dealer and trump maker

@pytest.mark.parametrize("players, first_dealer", [(2, 1), (5, 3), (6, 0)])
def test_dealer_and_trump_maker_rotate_left(players, first_dealer):
    """docs/rules.md §2.3, §2.7, §2.10: the dealer moves left each deal; the player on its left makes
    trump and leads."""
    game = make_game("koetsieren", players=players, first_dealer=first_dealer)
    state = game.new_match()
    rng = make_rng(players)
    for deal in range(2 * players):
        assert state.dealer == (first_dealer + deal) % players
        state.deal(rng=rng)
        maker = (state.dealer + 1) % players
        assert int(state.array[K.TRUMP_MAKER]) == maker
        assert state.to_move == maker and state.leader == maker
        while not state.deal_pending:
            state.apply(state.legal_actions()[-1])  # high bids, last slot: no match end
        state.array[TOTALS : TOTALS + players] = 0


def test_a_dealer_against_the_rotation_is_a_record_error():
    """docs/rules.md §2.10: a later dealer in a record must follow the rotation (docs/records.md)."""
    record = json.loads((EXAMPLES / "koetsieren-1001.json").read_text())["record"]
    record["deals"][1]["dealer"] = 2
    with pytest.raises(InvalidRecordError, match=r"deal 2: dealer 2 contradicts the rules .*seat 1"):
        load_record(record)


# ----------------------------------------------------- 2 and 6 players

def test_six_players_deal_thirty_cards_and_leave_two():
    """docs/rules.md §2.1, §2.2, §2.6: six players are dealt 30 cards, 2 stay unused, and a deal is five
    tricks."""
    game = make_game("koetsieren", players=6)
    state = game.new_match(seed=8)
    deal = game.deal_to_json(state.deals[0].vector)
    assert len(deal["hands"]) == 6 and len(deal["undealt"]) == 2
    state.apply("trump:d")
    for _ in range(6):
        state.apply(state.legal_texts()[0])
    while not state.deal_pending:
        state.apply(state.legal_actions()[0])
    assert len(state.deals[0].trick_winners) == 5
    assert sum(int(v) for v in state.array[K.TRICKS_WON : K.TRICKS_WON + 6]) == 5


def test_two_players_leave_twenty_two_cards_undealt():
    """docs/rules.md §2.2: with two players 22 cards stay unused."""
    game = make_game("koetsieren", players=2)
    state = game.new_match(seed=3)
    assert len(game.deal_to_json(state.deals[0].vector)["undealt"]) == 22
    assert bin(int(state.array[K.UNDEALT])).count("1") == 22


def test_players_option_range_and_first_dealer_must_be_a_seat():
    """docs/rules.md §2.1, §0.4: two to six players (default four); the first dealer is a seat."""
    assert make_game("koetsieren").n_players == 4
    with pytest.raises(OptionError, match="players=7 is out of range"):
        make_game("koetsieren", players=7)
    with pytest.raises(OptionError, match="players=1 is out of range"):
        make_game("koetsieren", players=1)
    with pytest.raises(OptionError, match="first_dealer=3 is not a seat"):
        make_game("koetsieren", players=3, first_dealer=3)


# -------------------------------------------------------------- deal JSON

def test_deal_json_round_trip_and_undealt_may_be_left_out():
    """docs/records.md: a Koetsieren deal's slot objects; 'undealt' may be left out."""
    game = make_game("koetsieren", players=3)
    vector = game.new_match(seed=1).deals[0].vector
    deal = game.deal_to_json(vector)
    assert np.array_equal(game.deal_from_json(deal), vector)
    rebuilt = game.deal_from_json({"hands": deal["hands"]})
    assert np.array_equal(rebuilt[:15], vector[:15])
    assert sorted(rebuilt[15:]) == sorted(vector[15:])


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda h, d: h[0].update(table=["9s"]), "hold 2 cards each"),
        (lambda h, d: h[0].pop("hidden"), "exactly 'table'"),
        (lambda h, d: h[1].update(hidden="9s"), "dealt twice: 9s"),
        (lambda h, d: h[2].update(hidden="Xs"), "hand of seat 2.*rank 'X'"),
        (lambda h, d: d.update(undealt=["Kd"]), "must list the 12 cards not in a hand"),
        (lambda h, d: d.update(hands=h[:3]), "must list 4 hands"),
    ],
)
def test_malformed_deals_are_record_errors(change, message):
    """docs/records.md: malformed Koetsieren deals are record errors."""
    record = example_record([])
    deal = record["deals"][0]
    deal["hands"] = copy.deepcopy(EXAMPLE_HANDS)
    change(deal["hands"], deal)
    with pytest.raises(InvalidRecordError, match=message):
        load_record(record)


# ------------------------------------------- which slot a card was played from

def _after_two_tricks():
    """The seed's example after its two tricks (tests above: ``EXAMPLE_SLOTS``)."""
    return load_record(example_record(EXAMPLE_BIDS + EXAMPLE_TRICKS[0] + EXAMPLE_TRICKS[1]))


def test_every_view_says_which_slot_each_card_came_from():
    """docs/rules.md §2.7: everyone sees which slot a card is played from, so every
    seat's view names it in the hand's ``played``, its own blind forehead plays too;
    a state rebuilt from the view keeps it."""
    state = _after_two_tricks()
    expected = [{"F1": "7d", "F2": "7c"}, {"F1": "9d", "F2": "8h"}, {"F1": "Ah", "F2": "Th"},
                {"T1": "Qs", "F1": "Ad"}]
    for seat in range(4):
        view = state.view(seat)
        assert [hand["played"] for hand in view["hands"]] == expected
        rebuilt = state.game.state_from_view(view, seed=seat).view(seat)
        assert rebuilt["hands"] == view["hands"]


def test_a_view_may_leave_out_the_played_slots():
    """A view without a hand's ``played`` (views before it existed) is still read; the
    rebuilt state then does not know those slots, and its view leaves them out too."""
    state = _after_two_tricks()
    view = state.view(1)
    view["hands"][3].pop("played")
    rebuilt = state.game.state_from_view(view).view(1)
    assert "played" not in rebuilt["hands"][3]
    assert rebuilt["hands"][0]["played"] == view["hands"][0]["played"]
    fresh = load_record(example_record(EXAMPLE_BIDS)).view(1)
    for hand in fresh["hands"]:
        hand.pop("played")
    assert state.game.state_from_view(fresh).view(1)["hands"][0]["played"] == {}  # nothing played yet


@pytest.mark.parametrize(
    "played, message",
    [
        ({"T1": "Qs"}, r"hands\[3\]\.played must map each emptied slot \(T1 F1\)"),
        ({"T1": "Qs", "F1": "Ad", "H": "Js"}, r"must map each emptied slot \(T1 F1\)"),
        (["Qs", "Ad"], r"must map each emptied slot"),
        ({"T1": "Qs", "F1": "Xx"}, r"hands\[3\]\.played\.F1: unknown card 'Xx'"),
        ({"T1": "Qs", "F1": "Js"}, r"hands\[3\]\.played\.F1 is Js, which is not in 'trick' or 'played'"),
        ({"T1": "Qs", "F1": "Qs"}, r"F1 is Qs, already played from hands\[3\]\.played\.T1"),
        ({"T1": "Qs", "F1": "7d"}, r"hands\[3\]\.played\.F1 is 7d, already played from hands\[0\]"),
    ],
)
def test_a_wrong_played_slot_is_a_one_line_error(played, message):
    """Each way a hand's ``played`` can be wrong is named in one line."""
    view = _after_two_tricks().view(1)
    view["hands"][3]["played"] = played
    with pytest.raises(InvalidViewError, match=message):
        make_game("koetsieren").state_from_view(view)


def test_played_slots_must_hold_what_the_history_shows_the_seat_playing():
    """The history names the cards each seat played; its ``played`` must hold them."""
    view = _after_two_tricks().view(1)
    view["hands"][0]["played"], view["hands"][3]["played"] = (
        {"F1": "7d", "F2": "Ad"}, {"T1": "Qs", "F1": "7c"})
    with pytest.raises(InvalidViewError, match=r"history entry 11: seat 3 played Ad, which is not in "
                                               r"hands\[3\]\.played"):
        make_game("koetsieren").state_from_view(view)


def test_the_observation_shows_the_card_each_emptied_slot_played():
    """docs/rules.md §2.7, docs/envs.md: an emptied slot shows the card played from it,
    for every seat, without the 'holds a card' bit."""
    state = _after_two_tricks()
    out = np.zeros(OBSERVATION_SIZE)
    for seat in range(4):
        observe(state.array, seat, out)
        r = (3 - seat) % 4  # seat 3's relative place
        for slot, text in ((K.SLOT_T1, "Qs"), (K.SLOT_F1, "Ad")):
            at = SLOTS_AT + (r * K.SLOTS_PER_SEAT + slot) * SLOT_WIDTH
            assert list(np.flatnonzero(out[at : at + C])) == [card(text)]
            assert out[at + C] == 0.0


# ------------------------------------------------------- small variants (§2.15)
# Two players, the deck A K of each suit, two slots each (F1 and H). Dealer seat 0, so
# seat 1 names trump, bids last and leads.
SMALL = {"players": 2, "ranks": 2, "hand": 2}
SMALL_HANDS = [
    {"table": [None, None], "forehead": ["Ah", None], "hidden": "Kc"},
    {"table": [None, None], "forehead": ["Kh", None], "hidden": "Ac"},
]


def small_record(actions, hands=None, undealt=None):
    deal = {"dealer": 0, "hands": hands or copy.deepcopy(SMALL_HANDS), "actions": actions}
    if undealt is not None:
        deal["undealt"] = undealt
    return {"game": "koetsieren", "options": dict(SMALL), "deals": [deal]}


def _live_slots(state, seat):
    return [slot for slot in range(K.SLOTS_PER_SEAT) if int(state.array[K.LIVE + seat]) >> slot & 1]


def test_a_small_deck_is_the_top_ranks_of_each_suit():
    """docs/rules.md §2.15: ranks=2 is A K of each suit, ranks=3 A K Q; every deal deals from it
    alone, and its other cards are the undealt ones."""
    game = make_game("koetsieren", **SMALL)
    assert sorted(game.deck.name(c) for c in game.cards_in_play()) == sorted(
        rank + suit for rank in "AK" for suit in "cdhs")
    game = make_game("koetsieren", players=3, ranks=3, hand=2)
    deck = {c for c in game.cards_in_play()}
    assert sorted({game.deck.name(c)[0] for c in deck}) == ["A", "K", "Q"]
    for seed in range(30):
        state = game.new_match(seed=seed)
        dealt = {int(state.array[K.SLOTS + at]) for at in range(15)} - {K.EMPTY_SLOT}
        undealt = {c for c in range(32) if int(state.array[K.UNDEALT]) >> c & 1}
        assert len(dealt) == 6 and dealt <= deck and undealt == deck - dealt


@pytest.mark.parametrize("hand, slots", [(1, ["F1"]), (2, ["F1", "H"]), (3, ["T1", "F1", "H"]),
                                         (4, ["T1", "F1", "F2", "H"]), (5, ["T1", "T2", "F1", "F2", "H"])])
def test_a_small_hand_deals_the_slots_forehead_first(hand, slots):
    """docs/rules.md §2.15 (Ruling: the slots are dealt forehead first): ``hand`` slots a seat, the first
    of F1 H T1 F2 T2; the others stay empty all deal, null in every view, never played."""
    game = make_game("koetsieren", players=3, ranks=5, hand=hand)
    state = game.new_match(seed=hand)
    for seat in range(3):
        assert [K.SLOT_NAMES[s] for s in _live_slots(state, seat)] == slots
        view = state.view(seat)
        for seen in view["hands"]:
            shown = dict(zip(K.SLOT_NAMES, [*seen["table"], *seen["forehead"], seen["hidden"]]))
            assert [name for name, text in shown.items() if text is not None] == slots
            assert seen["played"] == {}
    state.apply("trump:s")
    while state.phase != K.PHASE_PLAY:
        state.apply(state.legal_actions()[0])
    assert [K.SLOT_NAMES[a] for a in state.legal_actions()] == slots


def test_one_slot_is_the_forehead_card_alone():
    """docs/rules.md §2.15 (Ruling: the slots are dealt forehead first), §2.2: with hand=1 a player sees
    no card of its own, only the others' foreheads, and plays its card blind."""
    game = make_game("koetsieren", players=3, ranks=2, hand=1)
    state = game.new_match(seed=5)
    view = state.view(0)
    assert view["hands"][0] == {"table": [None, None], "forehead": ["??", None], "hidden": None, "played": {}}
    assert all(hand["forehead"][0] not in ("??", None) for hand in view["hands"][1:])
    state.apply("trump:c")
    state.apply("bid:0")
    state.apply("bid:0")
    assert state.legal_texts() == ["bid:0"]  # 0 + 0 + 1 would make the one trick: the hook
    state.apply("bid:0")
    assert state.view(1)["legal_actions"] == ["F1"]


def test_a_small_deal_step_by_step_hook_tricks_and_penalty():
    """docs/rules.md §2.15, §2.3 to §2.9: a deal of two slots has two tricks and bids 0 to 2; the hook
    bars the trump maker's bid that makes the sum 2; penalty points are |bid - tricks| and the deal
    objective is 1 - penalty / 2."""
    game = make_game("koetsieren", **SMALL)
    state = load_record(small_record([]))
    assert state.to_move == 1 and state.legal_texts() == ["trump:c", "trump:d", "trump:h", "trump:s"]
    state.apply("trump:c")
    assert state.to_move == 0 and state.legal_texts() == ["bid:0", "bid:1", "bid:2"]
    with pytest.raises(IllegalActionError, match="not a bid: bids are bid:0 .. bid:2"):
        state.apply("bid:3")
    state.apply("bid:1")
    assert state.to_move == 1 and state.legal_texts() == ["bid:0", "bid:2"]
    assert game.barred_actions(state) == ["bid:1"]
    with pytest.raises(IllegalActionError, match="may not bring the sum of the bids to 2"):
        state.apply("bid:1")
    state.apply("bid:2")
    assert state.to_move == 1 and state.view(1)["legal_actions"] == ["F1", "Ac"]
    for text in ("Kh", "Kc"):  # seat 1 leads hearts blind; seat 0's hidden king of clubs trumps it
        state.apply(text)
    assert state.deals[0].trick_winners == [0] and state.to_move == 0
    for text in ("Ah", "Ac"):  # seat 0's blind ace of hearts; seat 1 trumps with the ace of clubs
        state.apply(text)
    assert state.deals[0].trick_winners == [0, 1] and state.deal_pending and state.tricks_done == 2
    assert state.deal_points == [0, 1] and state.totals == [0, 1] and not state.is_terminal
    rewards = np.zeros(2)
    K.returns(state.array, OBJECTIVE_DEAL, rewards)
    assert list(rewards) == [1.0, 0.5]


@pytest.mark.parametrize("others, legal",
                         [((0, 0), ["bid:0"]), ((1, 0), ["bid:1"]), ((1, 1), ["bid:0", "bid:1"])])
def test_the_hook_bars_the_sum_hand(others, legal):
    """docs/rules.md §2.15 (Ruling: the hook bars the sum ``hand``): with one trick a deal, the
    trump maker may not bring the bids to exactly 1; when the others already bid 2, nothing is
    barred."""
    state = make_game("koetsieren", players=3, ranks=2, hand=1).new_match(seed=2)
    state.apply("trump:h")
    for bid in others:
        assert state.legal_texts() == ["bid:0", "bid:1"]  # the others are free
        state.apply(f"bid:{bid}")
    assert state.to_move == state.view(0)["trump_maker"] and state.legal_texts() == legal


def test_a_small_match_still_ends_at_ten():
    """docs/rules.md §2.15, §2.11: a deal of one trick costs at most one point; the match goes on
    until a total reaches ten, and the highest total loses."""
    game = make_game("koetsieren", players=2, ranks=2, hand=1)
    for seed in range(5):
        state = game.new_match(seed=seed)
        rng = make_rng(seed)
        while not state.is_terminal:
            if state.deal_pending:
                state.deal(rng=rng)
                continue
            state.apply(int(K.random_action(state.array, rng)))
        assert all(max(log.points) <= 1 for log in state.deals)
        assert max(state.totals) == 10 and len(state.deals) >= 10
        assert state.outcome == [0 if t == 10 else 1 for t in state.totals]


def test_too_many_slots_for_a_small_deck_is_an_option_error():
    """docs/rules.md §2.15: the players' hands may not need more cards than the deck has."""
    with pytest.raises(OptionError, match="koetsieren option hand=2 is too many: a deck of 2 ranks has 8 "
                                          "cards, 1 for each of 5 players at most"):
        make_game("koetsieren", players=5, ranks=2, hand=2)
    assert make_game("koetsieren", players=4, ranks=2, hand=2).deal_count() == 40320  # 8 of 8
    with pytest.raises(OptionError, match="ranks=1 is out of range"):
        make_game("koetsieren", ranks=1)
    with pytest.raises(OptionError, match="hand=6 is out of range"):
        make_game("koetsieren", hand=6)


def test_a_small_deal_record_writes_null_slots_and_the_decks_undealt_cards():
    """docs/rules.md §2.15: a record writes null for the slots not dealt and lists the deck's unused
    cards as undealt, never the cards out of the deck; it replays to the same match."""
    game = make_game("koetsieren", **SMALL)
    state = load_record(small_record(["trump:c", "bid:1", "bid:2", "Kh", "Kc", "Ah", "Ac"]))
    deal = game.deal_to_json(state.deals[0].vector)
    assert deal["hands"] == SMALL_HANDS
    assert sorted(deal["undealt"]) == ["Ad", "As", "Kd", "Ks"]
    assert np.array_equal(game.deal_from_json(deal), state.deals[0].vector)
    record = record_of(state)
    assert np.array_equal(load_record(json.loads(json.dumps(record))).array, state.array)
    assert replay(record)["deals"][0]["points"] == [0, 1]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda h, d: h[0].update(hidden="Qc"), "Qc is not in the deck of these options"),
        (lambda h, d: h[0].update(table=["As", None]), r"seat 0: slot T1 is never dealt with hand=2"),
        (lambda h, d: h[1].update(hidden=None), "seat 1: slot H: "),
        (lambda h, d: h[1].update(forehead=["Kh"]), "hold 2 slots each"),
        (lambda h, d: d.update(undealt=["Ad", "As", "Kd", "7s"]), "7s is not in the deck"),
        (lambda h, d: d.update(undealt=["Ad", "As"]), "must list the 4 cards not in a hand"),
    ],
)
def test_malformed_small_deals_are_record_errors(change, message):
    """docs/rules.md §2.15: a small deal's cards are of its deck, its slots not dealt null."""
    record = small_record([])
    deal = record["deals"][0]
    change(deal["hands"], deal)
    with pytest.raises(InvalidRecordError, match=message):
        load_record(record)


def test_a_small_variants_views_and_worlds_hold_only_its_deck():
    """docs/rules.md §2.15: the cards a seat cannot see, dealt again by determinize or from a view,
    and those the heuristic counts as unseen, come from the deck in play (its unused cards
    included), never from outside it; a view naming a card outside it, or one in a slot not dealt,
    is refused."""
    game = make_game("koetsieren", players=2, ranks=3, hand=2)
    deck = sum(1 << c for c in game.cards_in_play())
    for seed in range(40):
        state = game.new_match(seed=seed)
        seat = seed % 2
        world = state.array.copy()
        K.determinize(world, seat, make_rng(seed))
        rebuilt = game.state_from_view(state.view(seat), seed=seed).array
        for array in (world, rebuilt):
            cards = [int(array[K.SLOTS + at]) for at in range(10) if array[K.SLOTS + at] != K.EMPTY_SLOT]
            assert len(cards) == 4 and all(deck >> c & 1 for c in cards)
            assert int(array[K.UNDEALT]) & ~deck == 0 and bin(int(array[K.UNDEALT])).count("1") == 8
        assert int(K.unseen_mask(state.array, seat)) & ~deck == 0
        assert bin(int(K.unseen_mask(state.array, seat))).count("1") == 12 - 2  # all but the two it sees
    view = game.new_match(seed=1).view(0)
    view["hands"][1]["forehead"][0] = "7c"
    with pytest.raises(InvalidViewError, match="7c is not in the deck of these options"):
        game.state_from_view(view)
    view = game.new_match(seed=1).view(0)
    view["hands"][1]["table"][1] = "Qd"
    with pytest.raises(InvalidViewError, match=r"hands\[1\] slot T2 is never dealt with hand=2"):
        game.state_from_view(view)


def test_a_small_views_history_replays_in_the_worlds_a_belief_draws():
    """docs/rules.md §2.15, §2.7: a belief deals a world again from the view's history
    (``deal_from_world``, positions ``hand * seat + k``) and replays it to the same view; a search
    with an inferred belief decides from it."""
    game = make_game("koetsieren", **SMALL)
    state = load_record(small_record(["trump:c", "bid:1", "bid:2", "Kh", "Kc", "Ah"]))
    view = state.view(1)
    script = game.replay_script(view)
    for seed in range(10):
        world = state.array.copy()
        K.determinize(world, 1, make_rng(seed))
        replayed, why = replay_in(K, script, world, make_rng(seed))
        assert why == "" and State(game, replayed).view(1)["hands"] == view["hands"]
    decision = make("ismcts:iterations=50,belief=inferred", game, seed=1).decide(view)
    assert decision.action == "Ac"  # the only card left


def test_a_small_variant_lists_every_deal_once():
    """docs/rules.md §2.15: a deal is which card lies in which dealt slot of which seat: 8 * 7 * 6 * 5
    = 1,680 deals of players=2, ranks=2, hand=2, each once, and random deals fall on them uniformly."""
    game = make_game("koetsieren", **SMALL)
    deals = list(game.all_deals())
    assert game.deal_count() == len(deals) == 1680
    assert len({tuple(d[:4]) for d in deals}) == 1680
    deck = set(game.cards_in_play())
    assert all(sorted(d) == list(range(32)) and set(d[:8]) == deck for d in deals)
    assert make_game("koetsieren", players=2, ranks=3, hand=2).deal_count() == 11880
    counts = {}
    draws = 5600
    for seed in range(draws):
        array = game.new_match(seed=seed).array
        key = (int(array[K.SLOTS + K.SLOT_F1]), int(array[K.SLOTS + K.SLOTS_PER_SEAT + K.SLOT_H]))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 56  # seat 0's forehead and seat 1's hidden card: 8 * 7
    expected = draws / 56
    assert sum((n - expected) ** 2 / expected for n in counts.values()) < 93.2  # chi-squared 99.9%, 55 df


def test_a_small_variants_observation_counts_its_deal():
    """docs/rules.md §2.15, docs/envs.md: the environments draw the dealt slots card by card and bound a
    deal's actions by its slots; tricks and penalty points are fractions of the deal's tricks."""
    from slagwerk.engine.koetsieren import observation

    game = make_game("koetsieren", **SMALL)
    assert observation.dealt_positions(game.options_array) == 4
    assert observation.max_deal_steps(game.options_array) == 1 + 3 * 2
    full = make_game("koetsieren")
    assert observation.dealt_positions(full.options_array) == 20
    assert observation.max_deal_steps(full.options_array) == 1 + 6 * 4
    state = load_record(small_record(["trump:c", "bid:1", "bid:2", "Kh", "Kc"]))
    out = np.zeros(OBSERVATION_SIZE)
    observe(state.array, 0, out)
    assert out[observation.WON_AT] == 0.5 and out[observation.WON_AT + 1] == 0.0  # 1 trick of 2
