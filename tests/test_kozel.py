"""Kozel (docs/rules.md §3, docs/records.md): every rule and ruling with hand-built deals
and records, notation, records, views."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paths import EXAMPLES
from slagwerk.cli import main
from slagwerk.engine import (
    IllegalActionError,
    InvalidRecordError,
    InvalidViewError,
    OptionError,
    contract,
    make_game,
)
from slagwerk.engine.bits import make_rng
from slagwerk.engine.cards import KOZEL_DECK
from slagwerk.engine.kozel import kernels as K
from slagwerk.engine.kozel import pure
from slagwerk.engine.records import load_record, record_of, replay

GAME = make_game("kozel")
ALL_CARDS = KOZEL_DECK.names(KOZEL_DECK.all_mask)  # suit by suit, 6 up to A
mask = KOZEL_DECK.mask


def deal_json(hands, trump, stock_top=()):
    """A deal with these hands; the stock starts with ``stock_top`` and goes on
    with the remaining cards in deck order; ``trump`` is the shown stock card."""
    used = {c for hand in hands for c in hand} | set(stock_top)
    stock = list(stock_top) + [c for c in ALL_CARDS if c not in used]
    return {"hands": hands, "stock": stock, "trump_card": trump}


def start(hands, trump, stock_top=(), dealer=0):
    """A match whose first deal is the given one."""
    game = make_game("kozel", first_dealer=dealer)
    state = game.new_match()
    state.deal(game.deal_from_json(deal_json(hands, trump, stock_top)))
    return state


def play(state, *texts):
    for text in texts:
        state.apply(text)
    return state


def hand(state, seat):
    return set(KOZEL_DECK.names(int(state.array[K.HANDS + seat])))


# ----------------------------------------------------------------- beating


@pytest.mark.parametrize(
    "cards, winning, trump, expected, why",
    [
        ("Th", "9h", "s", True, "a higher card of the same suit beats"),
        ("9h", "Th", "s", False, "a lower card of the same suit does not"),
        ("Th", "Kh", "s", True, "rank order A T K Q J 9 8 7 6: the ten beats the king"),
        ("6s", "Ah", "s", True, "any trump beats a non-trump"),
        ("Ah", "6s", "s", False, "a non-trump never beats a trump"),
        ("Ac", "6d", "s", False, "plain cards of different suits do not compare"),
        ("7s", "8s", "s", False, "a lower trump does not beat a higher trump"),
        ("As,Td,8s", "Qs,9s,6s", "d", True, "mixed suits: As>Qs, trump Td>9s, 8s>6s"),
        ("Ah,8h", "Kh,7h", "s", True, "A beats K and 8 beats 7"),
        ("8h,Qh", "Kh,7h", "s", False, "nothing beats the king: only a partial beat"),
        ("Th,6c", "9h,7h", "s", False, "6c beats nothing: a partial beat is no beat"),
        ("As,6s", "Ts,9h", "s", True, "As beats the trump ten, 6s trumps 9h"),
        ("Js,6s", "Ts,9h", "s", False, "no trump here beats the trump ten"),
        ("7h,7d", "6h,6c", "s", False, "7d cannot beat 6c (different plain suits)"),
        ("Ac,Kc,Qc,6c", "Jc,9c,8c,7c", "h", False, "three high clubs, but the 6c beats nothing"),
        ("Ac,Kc,Qc,Tc", "Jc,9c,7c,6c", "h", True, "four higher clubs beat four clubs"),
    ],
)
def test_beats_set(cards, winning, trump, expected, why):
    """docs/rules.md §3.7, §3.1, §3.4: when a card, and a set of cards, beats another (rank order, trumps,
    incomparable plain suits, pairing)."""
    trump_suit = "cdhs".index(trump)
    assert K.beats_set(mask(cards.split(",")), mask(winning.split(",")), trump_suit) == expected, why


def _pure_card(index):
    return (index % 9, "cdhs"[index // 9])


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4), st.integers(0, 3), st.randoms(use_true_random=False))
def test_beats_set_agrees_with_trying_every_pairing(size, trump, rnd):
    """docs/rules.md §3.7: a set beats when some one-to-one pairing beats, checked against trying every
    pairing."""
    cards = rnd.sample(range(36), 2 * size)
    attack, winning = cards[:size], cards[size:]
    if rnd.random() < 0.5:  # make the winning set one suit, like a lead
        suit = rnd.randrange(4)
        winning = rnd.sample([c for c in range(suit * 9, suit * 9 + 9) if c not in attack], size)
    expected = pure.beats_set(
        [_pure_card(c) for c in attack], [_pure_card(c) for c in winning], "cdhs"[trump]
    )
    assert K.beats_set(sum(1 << c for c in attack), sum(1 << c for c in winning), trump) == expected


# ------------------------------------------------------------------- tricks

# Dealer 0, so seat 1 leads the first trick. Spades are trumps (the 7s is shown).
HANDS = [
    ["Ac", "Td", "8h", "6s"],
    ["9h", "7h", "Kd", "Qc"],
    ["Th", "6c", "Jh", "As"],
    ["Ah", "Kh", "9d", "7c"],
]


def test_leader_leads_one_to_four_cards_of_one_suit():
    """docs/rules.md §3.8: a lead is one to four cards of one suit."""
    state = start(HANDS, "7s")
    assert state.to_move == 1 and state.phase == K.PHASE_PLAY
    assert sorted(state.legal_texts()) == sorted(
        ["lead:9h", "lead:7h", "lead:9h,7h", "lead:Kd", "lead:Qc"]
    )
    with pytest.raises(IllegalActionError, match="a lead is cards of one suit"):
        state.apply("lead:9h,Kd")


def test_responses_have_the_leads_size_and_partial_beats_are_discards():
    """docs/rules.md §3.8: a response has the lead's size; any cards may be discarded; a partial beat is
    no beat."""
    state = play(start(HANDS, "7s"), "lead:9h,7h")
    legal = state.legal_texts()
    # seat 2 holds Th Jh 6c As: any two cards face down, beats only where both cards beat
    assert all(t.startswith(("beat:", "discard:")) and len(t.split(":")[1].split(",")) == 2 for t in legal)
    assert sum(t.startswith("discard:") for t in legal) == 6
    beats = sorted(t for t in legal if t.startswith("beat:"))
    assert beats == ["beat:As,Jh", "beat:As,Th", "beat:Th,Jh"]
    assert "discard:Th,6c" in legal  # Th beats but 6c beats nothing: a discard
    with pytest.raises(IllegalActionError, match="do not each beat a card of the winning set 9h,7h"):
        state.apply("beat:Th,6c")
    with pytest.raises(IllegalActionError, match="played with 2 card"):
        state.apply("discard:6c")


def test_the_last_beater_takes_the_trick_and_leads_next():
    """docs/rules.md §3.8: a beat must beat the current winning set; the last beater's team takes the
    trick and the beater leads next."""
    # 9h led; Th beats it; Ah beats Th (the new winning set); seat 0 discards
    state = play(start(HANDS, "7s"), "lead:9h", "beat:Th", "beat:Ah")
    assert state.to_move == 0
    assert "beat:8h" not in state.legal_texts()  # 8h beat the lead, not the Ah now winning
    play(state, "discard:8h")
    assert state.deals[-1].trick_winners == [3]
    assert state.leader == 3 and state.to_move == 3
    assert int(state.array[K.PILES + 1]) == mask(["9h", "Th", "Ah", "8h"])


def test_a_trick_nobody_beats_goes_to_the_leader():
    """docs/rules.md §3.8: a trick nobody beats goes to its leader."""
    state = play(start(HANDS, "7s"), "lead:Qc", "discard:6c", "discard:7c", "discard:Td")
    assert state.deals[-1].trick_winners == [1] and state.to_move == 1


def test_drawing_one_at_a_time_clockwise_from_the_winner():
    """docs/rules.md §3.12, §3.3: after a trick everyone draws from the top of the stock, one card at a
    time, clockwise from the trick's winner."""
    stock_top = ["Qs", "Ks", "Ts", "Qh", "Jd", "8d", "8c", "9c"]
    state = start(HANDS, "7s", stock_top)
    # seat 1 leads two hearts, seat 2 beats with Jh,Th, seats 3 and 0 discard: seat 2 wins
    play(state, "lead:9h,7h", "beat:Jh,Th", "discard:9d,7c", "discard:8h,6s")
    assert state.deals[-1].trick_winners == [2]
    # winner 2 draws Qs then Jd; seat 3 Ks, 8d; seat 0 Ts, 8c; seat 1 Qh, 9c
    assert hand(state, 2) == {"6c", "As", "Qs", "Jd"}
    assert hand(state, 3) == {"Ah", "Kh", "Ks", "8d"}
    assert hand(state, 0) == {"Ac", "Td", "Ts", "8c"}
    assert hand(state, 1) == {"Kd", "Qc", "Qh", "9c"}
    assert state.view(0)["stock_size"] == 12 and state.view(0)["hand_sizes"] == [4, 4, 4, 4]


def test_face_down_discards_are_seen_only_by_their_owner():
    """docs/rules.md §3.8, §3.9, §3.17: a discard is face down: other seats see discard:N and ?? cards;
    the record names them."""
    state = play(start(HANDS, "7s"), "lead:9h,7h", "discard:Th,6c")
    other, own = state.view(3), state.view(2)
    assert other["history"][-1] == {"seat": 2, "action": "discard:2"}
    assert own["history"][-1] == {"seat": 2, "action": "discard:Th,6c"}
    assert other["trick"]["plays"][1] == {"seat": 2, "kind": "discard", "cards": ["??", "??"]}
    assert own["trick"]["plays"][1]["cards"] == ["Th", "6c"]
    assert "Th" not in other["shown"]
    # the record (which sees everything) names the cards
    assert record_of(state)["deals"][0]["actions"][-1] == "discard:Th,6c"


def _counted_deal_views(seed):
    """A deal played at random to its count; every seat's view then, and the deal's log."""
    state = _random_deal_state(seed)
    return state, [state.view(s) for s in range(4)], state.deals[-1]


def test_face_down_discards_are_turned_up_when_the_deal_is_counted():
    """docs/rules.md §3.8 (3.): face-down discards stay unseen *until the deal is counted*;
    from then on every seat's view names them, in its tricks and in its history, and
    such a view reads back (where an unknown '??' is now refused)."""
    named = 0
    for seed in range(6):
        state, views, log = _counted_deal_views(seed)
        for seat, view in enumerate(views):
            assert [h["action"] for h in view["history"]] == log.texts
            for t, trick in enumerate(view["tricks"]):
                for p in trick["plays"]:  # the cards each seat really played
                    played = int(state.array[K.PLAYED + t * 4 + p["seat"]])
                    assert set(p["cards"]) == set(KOZEL_DECK.names(played))
                    if p["kind"] == "discard" and p["seat"] != seat:
                        named += len(p["cards"])
            rebuilt = GAME.state_from_view(view, seed=1)
            assert {k: v for k, v in rebuilt.view(seat).items() if k != "history"} == {
                k: v for k, v in view.items() if k != "history"}
            hidden = json.loads(json.dumps(view))
            for p in hidden["tricks"][0]["plays"][1:]:
                p["cards"] = ["??"] * len(p["cards"])
            if any(p["seat"] != seat for p in hidden["tricks"][0]["plays"][1:]):
                with pytest.raises(InvalidViewError, match="cannot hold unknown cards"):
                    GAME.state_from_view(hidden)
    assert named > 0, "no deal had another seat's discard: the test proved nothing"


def test_discards_stay_hidden_until_the_last_trick_is_counted():
    """docs/rules.md §3.8 (3.): before the count (the last trick in progress), another
    seat's discards are still '??' and discard:N."""
    rng = random.Random(4)
    state = GAME.new_match(seed=4)
    while state.array[K.STOCK_NEXT] < K.STOCK_SIZE or state.tricks_done == 0:
        state.apply(rng.choice(state.legal_actions()))
    last = None
    while not state.deal_pending:
        last = state.view(state.to_move)
        state.apply(rng.choice(state.legal_actions()))
    seat = last["seat"]
    log = state.deals[-1]
    theirs = [i for i, s in enumerate(log.seats[: len(last["history"])])
              if s != seat and log.texts[i].startswith("discard:")]
    assert theirs, "nobody else discarded in this deal: pick another seed"
    assert all(last["history"][i]["action"].split(":")[1].isdigit() for i in theirs)
    theirs = [p for t in last["tricks"] for p in t["plays"] if p["kind"] == "discard" and p["seat"] != seat]
    assert sum(p["cards"].count("??") for p in theirs) > 0


def test_beats_are_face_up_for_everyone():
    """docs/rules.md §3.9: a beat is played face up: every seat sees its cards, unlike a discard."""
    state = play(start(HANDS, "7s"), "lead:9h,7h", "beat:Th,Jh")
    for seat in range(4):
        view = state.view(seat)
        assert view["history"][-1] == {"seat": 2, "action": "beat:Th,Jh"}
        assert view["trick"]["plays"][1] == {"seat": 2, "kind": "beat", "cards": ["Th", "Jh"]}
        assert {"Th", "Jh"} <= set(view["shown"])


# ------------------------------------------------------------------ molodka

# Dealer 0: seat 1 leads. Seats 2 (spades), 3 (hearts) and 0 (clubs) hold
# molodkas; diamonds are trumps (the Td is shown).
MOLODKA_HANDS = [
    ["6c", "7c", "8c", "9c"],
    ["Ad", "Kd", "6h", "7h"],
    ["6s", "7s", "8s", "9s"],
    ["Ah", "Kh", "Qh", "Jh"],
]


def test_molodka_questions_before_the_lead_in_priority_from_the_leader():
    """docs/rules.md §3.10, §3.11: before the lead, molodka holders are asked clockwise from the original
    leader."""
    state = start(MOLODKA_HANDS, "Td")
    asked = []
    while state.phase == K.PHASE_QUESTION:
        assert state.legal_texts() == ["molodka", "pass"]
        asked.append(state.to_move)
        state.apply("pass")
    assert asked == [2, 3, 0]  # clockwise from the leader, seat 1 (no molodka)
    assert state.to_move == 1 and state.phase == K.PHASE_PLAY


def test_while_a_question_is_pending_only_molodka_and_pass_are_legal():
    """docs/rules.md §3.11: while a question is pending only molodka and pass are legal, and only then."""
    state = start(MOLODKA_HANDS, "Td")
    with pytest.raises(IllegalActionError, match="asked whether to declare its molodka"):
        state.apply("discard:9s,8s,7s,6s")
    play(state, "pass", "pass", "pass")
    with pytest.raises(IllegalActionError, match="no molodka question is pending"):
        state.apply("molodka")


def test_molodka_before_the_lead_is_the_lead_of_the_four_cards():
    """docs/rules.md §3.10, §3.11: a declared molodka is the lead of the four cards; the others answer
    with four cards; nobody is asked again."""
    state = play(start(MOLODKA_HANDS, "Td"), "pass", "molodka")  # seat 2 passes, seat 3 declares
    assert state.leader == 3 and state.to_move == 0
    view = state.view(1)
    assert view["trick"]["plays"] == [{"seat": 3, "kind": "molodka", "cards": ["Ah", "Kh", "Qh", "Jh"]}]
    assert state.legal_texts() == ["discard:9c,8c,7c,6c"]  # four cards each; nobody is asked again
    play(state, "discard:9c,8c,7c,6c")
    assert state.legal_texts() == ["discard:Ad,Kd,7h,6h"]  # two trumps beat only two hearts
    play(state, "discard:Ad,Kd,7h,6h", "discard:9s,8s,7s,6s")
    assert state.deals[-1].trick_winners == [3]
    assert hand(state, 3) == set(state.game.deal_to_json(state.deals[-1].vector)["stock"][0:16:4])


def test_molodka_after_a_play_returns_the_cards_and_passers_are_asked_again():
    """docs/rules.md §3.10, §3.11: a declaration after a play returns the played cards; a seat that passed
    is asked again at the next question point."""
    state = play(start(MOLODKA_HANDS, "Td"), "pass", "pass", "pass", "lead:Ad")
    asked = [state.to_move]
    play(state, "pass")  # seat 2 passes again
    asked.append(state.to_move)
    play(state, "molodka")  # seat 3 declares: the Ad goes back to seat 1
    assert asked == [2, 3]
    assert "Ad" in hand(state, 1) and state.leader == 3 and state.to_move == 0
    assert state.view(0)["known_cards"][1] == ["Ad"]  # everyone saw it go back
    assert state.view(0)["trick"]["asked"] == [0, 2, 3]
    play(state, "discard:9c,8c,7c,6c")
    assert state.legal_texts() == ["discard:Ad,Kd,7h,6h"]


def test_a_holder_may_pass_and_play_its_four_cards_by_the_usual_rules():
    """docs/rules.md §3.10, §3.11: a holder may pass and lead its four cards by the usual rules."""
    hands = [MOLODKA_HANDS[1], MOLODKA_HANDS[0], MOLODKA_HANDS[2], MOLODKA_HANDS[3]]
    state = start(hands, "Td")  # seat 1 leads and holds the clubs molodka: it is asked first
    assert state.to_move == 1 and state.phase == K.PHASE_QUESTION
    play(state, "pass", "pass", "pass")  # seats 1, 2, 3
    assert "lead:9c,8c,7c,6c" in state.legal_texts()
    play(state, "lead:9c,8c,7c,6c")
    # an ordinary four-card lead: the other holders are asked again
    assert state.phase == K.PHASE_QUESTION and state.to_move == 2


def test_trump_molodka_takes_the_trick():
    """docs/rules.md §3.10, §3.7: four trumps cannot be beaten."""
    hands = [
        ["6d", "7d", "8d", "9d"], ["Ac", "Tc", "Kc", "Qh"], ["As", "Ah", "Ts", "Th"], ["Ks", "Kh", "Jc", "Qs"]
    ]
    state = start(hands, "Td")
    assert state.to_move == 0 and state.phase == K.PHASE_QUESTION  # only seat 0 holds a molodka
    play(state, "molodka")
    for _ in range(3):
        assert all(t.startswith("discard:") for t in state.legal_texts())  # trumps cannot be beaten here
        state.apply(state.legal_actions()[0])
    assert state.deals[-1].trick_winners == [0]


def test_declaring_ends_the_questions_of_the_trick():
    """docs/rules.md §3.10, §3.11: one molodka per trick: after a declaration nobody is asked again."""
    state = play(start(MOLODKA_HANDS, "Td"), "molodka")  # seat 2 declares before the lead
    assert state.phase == K.PHASE_PLAY and state.to_move == 3
    play(state, "discard:Ah,Kh,Qh,Jh")
    assert state.phase == K.PHASE_PLAY and state.to_move == 0  # seat 0's clubs molodka: not asked


# ------------------------------------------------------------------ scoring


@pytest.mark.parametrize(
    "points, tricks, penalty",
    [(59, 3, 2), (31, 1, 2), (30, 1, 4), (0, 2, 4), (0, 0, 6)],
)
def test_penalty_bands(points, tricks, penalty):
    """docs/rules.md §3.15: the losing team's penalty points: 2, 4 or 6."""
    assert K.deal_penalty(points, tricks) == penalty
    assert pure.deal_penalty(points, tricks) == penalty


def _random_deal_state(seed):
    """A match of seed ``seed`` with its first deal played at random to the end."""
    state = GAME.new_match(seed=seed)
    rng = random.Random(seed)
    while not state.deal_pending and not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_deal_score_counts_the_piles_and_charges_the_loser():
    """docs/rules.md §3.2, §3.15, §0.2: the piles hold all 120 card points, partners share them, and the
    losing team takes its penalty."""
    for seed in range(40):
        state = _random_deal_state(seed)
        log = state.deals[-1]
        piles = [int(state.array[K.PILES + t]) for t in range(2)]
        assert piles[0] & piles[1] == 0 and piles[0] | piles[1] == (1 << 36) - 1
        points = [sum(K.RANK_POINTS[c % 9] for c in range(36) if pile >> c & 1) for pile in piles]
        assert sum(points) == 120 and log.points == [points[0], points[1], points[0], points[1]]
        expected = _own_penalty(log)
        assert state.totals == [expected[0], expected[1], expected[0], expected[1]]


def _play_out_deal(state, rng):
    while not state.deal_pending and not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))


def _own_penalty(log):
    """Penalty points per team of a finished deal, computed from its log."""
    points = log.points[:2]
    tricks = [sum(1 for w in log.trick_winners if w % 2 == team) for team in range(2)]
    penalty = [0, 0]
    if points[0] != points[1]:
        loser = points.index(min(points))
        penalty[loser] = 2 if points[loser] >= 31 else 4 if tricks[loser] else 6
    return penalty


def test_eggs_at_sixty_each_score_nothing_and_carry_nothing():
    """docs/rules.md §3.15: at 60 each (eggs) nobody takes penalty points and nothing carries over."""
    seed = next(s for s in range(3000) if _random_deal_state(s).deals[-1].points == [60, 60, 60, 60])
    state = _random_deal_state(seed)
    assert state.totals == [0, 0, 0, 0] and state.deal_pending and not state.is_terminal
    state.deal(rng=make_rng(seed))
    _play_out_deal(state, random.Random(seed))
    penalty = _own_penalty(state.deals[-1])  # the second deal counts on its own
    assert state.totals == [penalty[0], penalty[1], penalty[0], penalty[1]]


def test_next_deal_is_led_by_the_last_trick_winner_and_dealt_by_the_next_seat():
    """docs/rules.md §3.13, §3.14: the next deal is dealt by the seat left of the dealer and led by the
    last trick's winner."""
    for seed in range(6):
        state = _random_deal_state(seed)
        last = state.deals[-1].trick_winners[-1]
        assert state.dealer == 1  # first dealer 0, one seat left
        state.deal(rng=make_rng(seed))
        assert state.leader == last and int(state.array[K.ORIGINAL_LEADER]) == last
        if state.phase == K.PHASE_PLAY:
            assert state.to_move == last



@pytest.mark.parametrize("first_dealer", range(4))
def test_the_seat_left_of_the_first_dealer_leads_the_first_deal(first_dealer):
    """docs/rules.md §3.13: the player left of the dealer leads the first trick of the first deal."""
    for seed in range(5):
        state = make_game("kozel", first_dealer=first_dealer).new_match(seed=seed)
        left = (first_dealer + 1) % 4
        assert state.dealer == first_dealer
        assert state.leader == left and int(state.array[K.ORIGINAL_LEADER]) == left
        if state.phase == K.PHASE_PLAY:  # no molodka question before the lead
            assert state.to_move == left


def test_four_players_in_two_teams_of_partners_opposite():
    """docs/rules.md §3.1: always four players, seats 0 and 2 against 1 and 3; no other number."""
    assert GAME.n_players == 4
    with pytest.raises(OptionError, match="unknown option 'players' for kozel"):
        make_game("kozel", players=4)
    state = GAME.new_match(seed=3)
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=make_rng(3))
            continue
        state.apply(state.legal_actions()[0])
    assert state.totals[0] == state.totals[2] and state.totals[1] == state.totals[3]
    assert state.outcome[0] == state.outcome[2] != state.outcome[1] == state.outcome[3]


def test_the_match_ends_when_a_team_reaches_twelve():
    """docs/rules.md §3.16: the match ends when a team has 12 penalty points, and that team loses."""
    for seed in range(4):
        state = GAME.new_match()
        rng, deal_rng = random.Random(seed), make_rng(seed)
        while not state.is_terminal:
            before = state.totals
            state.deal(rng=deal_rng)
            _play_out_deal(state, rng)
            penalty = _own_penalty(state.deals[-1])
            assert state.totals == [before[s] + penalty[s % 2] for s in range(4)]
        loser = 0 if state.totals[0] >= 12 else 1
        assert state.totals[loser] >= 12 > before[loser] and state.totals[1 - loser] < 12
        assert state.outcome == [0 if s % 2 == loser else 1 for s in range(4)]
        assert state.legal_actions() == []


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("kozel-*.json")), ids=lambda p: p.name)
def test_example_records_replay_exactly(path):
    """docs/records.md: the Kozel example matches replay to their expected output."""
    example = json.loads(path.read_text())
    assert replay(example["record"]) == example["expected"]


# ------------------------------------------------------------------ records


def _record(actions, **deal):
    return {"game": "kozel", "deals": [{"dealer": 0, **deal_json(HANDS, "7s"), **deal, "actions": actions}]}


def test_record_round_trip_with_molodka_and_any_card_order():
    """docs/records.md, docs/rules.md §3.17: a record with a molodka replays; set cards in any order,
    written back canonically."""
    record = {"game": "kozel", "deals": [{"dealer": 0, **deal_json(MOLODKA_HANDS, "Td"),
                                          "actions": ["pass", "pass", "pass", "lead:Ad", "pass", "molodka",
                                                      "discard:6c,7c,8c,9c", "discard:6h,Kd,7h,Ad"]}]}
    state = load_record(record)
    again = record_of(state)
    assert again["deals"][0]["actions"][-1] == "discard:Ad,Kd,7h,6h"  # printed canonically
    assert (load_record(json.loads(json.dumps(again))).array == state.array).all()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"trump_card": "Ac"}, "'trump_card' 'Ac' is not in the stock"),
        ({"stock": ALL_CARDS[:19]}, "'stock' has 19 cards"),
        ({"hands": [HANDS[0], HANDS[0], HANDS[2], HANDS[3]]}, "dealt twice"),
        ({"hands": HANDS[:3]}, "'hands' must list 4 hands"),
        ({"trump_card": "Zz"}, "unknown card 'Zz'"),
    ],
)
def test_bad_deals_in_records_are_errors(change, message):
    """docs/records.md, docs/rules.md §3.3: a Kozel deal needs four hands of four, a 20-card stock and a
    trump card from the stock."""
    with pytest.raises(InvalidRecordError, match=message):
        load_record(_record([], **change))


def test_the_dealer_shows_a_card_from_the_middle_of_the_stock():
    """docs/rules.md §3.5: the toolkit's deals show the trump card from any stock position but the top
    and the bottom, uniformly."""
    places = Counter(int(GAME.new_match(seed=s).deals[0].vector[K.DEAL_TRUMP_POSITION]) for s in range(1800))
    assert sorted(places) == list(range(1, K.STOCK_SIZE - 1))  # 0 is the top, 19 the bottom
    assert all(55 <= n <= 145 for n in places.values()), places  # 100 expected each


def test_a_record_may_show_the_trump_card_from_any_place_in_its_stock():
    """docs/rules.md §3.5, §3.4: a record's trump_card may lie anywhere in its stock, top and bottom
    included (docs/records.md); its suit is trump."""
    stock = deal_json(HANDS, "7s")["stock"]
    for trump in (stock[0], stock[9], stock[-1]):
        record = {"game": "kozel", "deals": [{"dealer": 0, **deal_json(HANDS, trump), "actions": []}]}
        state = load_record(record)
        assert state.view(1)["trump_card"] == trump
        assert record_of(state)["deals"][0]["trump_card"] == trump
        assert int(state.array[K.TRUMP_SUIT]) == "cdhs".index(trump[1])


def test_an_illegal_record_action_names_the_deal_the_index_and_the_reason():
    """docs/records.md, docs/rules.md §3.17: record errors name the deal, the index and the reason; a
    record names a discard's cards."""
    why = r"deal 1, action 1 \('beat:Th,6c'\).*seat 2.*do not each beat"
    with pytest.raises(InvalidRecordError, match=why):
        load_record(_record(["lead:9h,7h", "beat:Th,6c"]))
    with pytest.raises(InvalidRecordError, match=r"action 0 \('discard:2'\).*names its cards"):
        load_record(_record(["discard:2"]))
    with pytest.raises(InvalidRecordError, match=r"'lead:9h,9h'.*twice"):
        load_record(_record(["lead:9h,9h"]))


# ----------------------------------------------------------------- notation


def test_parsing_ignores_card_order_and_printing_is_canonical():
    """docs/rules.md §3.17: the cards of a set in any order; printed highest first; another seat sees
    discard:N."""
    state = play(start(HANDS, "7s"), "lead:7h,9h")
    assert state.deals[-1].texts[-1] == "lead:9h,7h"
    a = GAME.parse_action(state, "beat:Th,As")
    assert a == GAME.parse_action(state, " beat: As , Th ")
    assert GAME.action_text(state, a) == "beat:As,Th"
    discard = GAME.parse_action(state, "discard:6c,Th")
    assert GAME.action_text(state, discard, seat=2) == "discard:Th,6c"
    assert GAME.action_text(state, discard, seat=3) == "discard:2"
    assert GAME.seen_text(state, discard, 0) == "discard:2"
    for bad in ("play:Th", "lead", "discard:", 7):
        with pytest.raises(IllegalActionError):
            GAME.parse_action(state, bad)


# -------------------------------------------------------------------- views


def test_view_round_trips_through_state_from_view_mid_molodka():
    state = play(start(MOLODKA_HANDS, "Td"), "pass", "pass", "pass", "lead:Ad", "pass", "molodka",
                 "discard:9c,8c,7c,6c")
    for seat in range(4):
        view = state.view(seat)
        rebuilt = GAME.state_from_view(json.loads(json.dumps(view)), seed=3)
        strip = {k: v for k, v in view.items() if k != "history"}
        assert {k: v for k, v in rebuilt.view(seat).items() if k != "history"} == strip
        if seat == state.to_move:
            assert rebuilt.legal_actions() == state.legal_actions()


def test_view_with_a_pending_question_rebuilds_a_molodka_for_the_asked_seat():
    state = play(start(MOLODKA_HANDS, "Td"), "pass")  # seat 3 is asked now
    for seed in range(5):
        rebuilt = GAME.state_from_view(state.view(1), seed=seed)
        assert rebuilt.phase == K.PHASE_QUESTION and rebuilt.to_move == 3
        assert K.holds_molodka(rebuilt.array[K.HANDS + 3]) and K.holds_molodka(rebuilt.array[K.HANDS + 2])
        play(rebuilt, "molodka")  # and it can be declared


def test_the_trump_cards_place_in_the_stock_is_hidden():
    """docs/rules.md §3.6: every seat knows the shown card is in the stock, but not where: the views of two
    deals that differ only in its place are equal, and determinizing puts it in many places."""
    stock = deal_json(HANDS, "7s")["stock"]
    on_top = start(HANDS, "7s", stock_top=["7s"])
    in_middle = start(HANDS, "7s", stock_top=[c for c in stock if c != "7s"][:9] + ["7s"])
    for seat in range(4):
        assert on_top.view(seat) == in_middle.view(seat)
    places = set()
    for k in range(40):
        world = on_top.clone()
        contract.determinize(world.array, 1, make_rng(k))
        cards = [int(c) for c in world.array[K.STOCK : K.STOCK + K.STOCK_SIZE]]
        assert int(world.array[K.TRUMP_CARD]) in cards
        places.add(cards.index(int(world.array[K.TRUMP_CARD])))
    assert len(places) > 5


def _view_after_a_trick():
    state = play(start(HANDS, "7s"), "lead:9h,7h", "beat:Jh,Th", "discard:9d,7c", "discard:8h,6s")
    play(state, "lead:6c")
    return json.loads(json.dumps(state.view(0)))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda v: v.update(extra=1), "unknown field 'extra'"),
        (lambda v: v.update(hand=v["hand"][:3]), "should hold 4 cards"),
        (lambda v: v["tricks"][0]["plays"][2].update(cards=["9d", "7c"]), "cannot know the face-down 9d"),
        (lambda v: v["tricks"][0].update(winner=1), "the last beater, seat 2, wins it"),
        (lambda v: v["tricks"][0]["plays"][1].update(cards=["Jh", "6s"]), "missing from 'shown'"),
        (lambda v: v.update(to_move=2), "cannot be to move"),
        (lambda v: v.update(stock_size=20), "stock_size 20 should be 12"),
        (lambda v: v.update(hand=["Ac", "Ac", "Ts", "8c"]), "twice"),
        (lambda v: v["trick"].update(asking=1, asked=[1]), "cannot be asked"),
        (lambda v: v.update(totals=[2, 0, 0, 0]), "equal for partners"),
        (lambda v: v.update(trump_card="7x"), "unknown card"),
    ],
)
def test_malformed_or_impossible_views_are_rejected(edit, message):
    view = _view_after_a_trick()
    GAME.state_from_view(view)  # the unedited view is fine
    edit(view)
    with pytest.raises(InvalidViewError, match=message):
        GAME.state_from_view(view)


def test_views_never_show_unseen_cards():
    """docs/rules.md §3.8, docs/design.md §4: a view shows no face-down discard and no other seat's hand."""
    state = play(start(HANDS, "7s"), "lead:9h,7h", "beat:Jh,Th", "discard:9d,7c", "discard:8h,6s")
    view = json.dumps(state.view(1))
    for card in ("9d", "7c", "8h", "6s", "Ac", "Td", "As", "6c") + tuple(hand(state, 3)):
        if card not in hand(state, 1):
            assert f'"{card}"' not in view, card


# ---------------------------------------------------------------------- cli


def test_play_command_plays_kozel(capsys, tmp_path):
    out = tmp_path / "match.json"
    code = main(["play", "kozel", "--agents", "heuristic", "random", "heuristic", "random", "--seed", "3",
                 "--record", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "trump" in printed and "final totals" in printed
    record = json.loads(out.read_text())
    assert replay(record)["outcome"] is not None


@pytest.mark.parametrize("seed", range(4))
def test_observation_pile_points_count_the_face_up_cards_each_team_won(seed):
    """docs/rules.md §3.6, §3.8 and docs/envs.md (Kozel): who won each face-up card is public, the
    face-down discards are not. At a deal's end every card lies in a pile, so the face-up points
    of the two piles and the points of the face-down discards make the deck's 120."""
    import numpy as np

    from slagwerk.engine.kozel import observation as O

    game = make_game("kozel")
    state = game.new_match(seed=seed)
    rng = random.Random(seed)
    seen = np.zeros(O.OBSERVATION_SIZE, np.float32)
    while not state.deal_pending:  # the first deal, played out and scored
        state.apply(rng.choice(list(state.legal_actions())))
    last = state.array
    discards = 0
    for t in range(K.MAX_TRICKS):
        for p in range(K.N_SEATS):
            if last[K.PLAY_KIND + t * K.N_SEATS + p] == K.KIND_DISCARD:
                discards += K.card_points(last[K.PLAYED + t * K.N_SEATS + p])
    views = []
    for seat in range(K.N_SEATS):
        O.observe(last, seat, seen)
        piles = seen[O.PILE_POINTS_AT:O.PILE_POINTS_AT + 2]
        views.append(tuple(round(float(v) * K.DECK_POINTS) for v in piles))
    assert views[0] == views[2] and views[1] == views[3] and views[0] == views[1][::-1]
    assert sum(views[0]) + discards == K.DECK_POINTS
