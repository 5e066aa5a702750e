"""Terminal play: a person's seat driven by scripted input, seeing only its own view."""

from __future__ import annotations

import io
import json
import re

import pytest

from slagwerk.agents import make
from slagwerk.agents.human import HumanPlayer, HumanQuit, choose, format_view
from slagwerk.agents.match import play_match
from slagwerk.cli import main
from slagwerk.engine import GAME_NAMES, make_game
from slagwerk.engine.registry import game_infos
from slagwerk.errors import SlagwerkError

SMALL = {info.name: info.short_options for info in game_infos()}


class Script(io.StringIO):
    """Input that repeats a cycle of lines for ever (a match needs many answers)."""

    def __init__(self, lines):
        super().__init__()
        self.lines = list(lines)
        self.count = 0

    def readline(self, *args):
        line = self.lines[self.count % len(self.lines)]
        self.count += 1
        return line + "\n"


class RecordingHuman(HumanPlayer):
    """Keeps every view it was shown, the text printed for it and the action chosen."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.turns = []

    def act(self, view):
        start = self.output.tell()
        action = super().act(view)
        self.output.seek(0, io.SEEK_END)
        self.turns.append((view, self.output.getvalue()[start:], action))
        return action


def card_tokens(text: str, deck) -> set[str]:
    names = set(deck.names(deck.all_mask))
    return {t for t in re.findall(r"(?<![\w?])\w\w(?!\w)", text) if t in names}


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_scripted_person_plays_a_whole_match_seeing_only_its_view(game_name):
    game = make_game(game_name, **SMALL[game_name])
    seat = 1
    out = io.StringIO()
    # nonsense, an out-of-range number, help, history, then the first legal action
    human = RecordingHuman(game, seat, input=Script(["nonsense", "0", "help", "history", "1"]), output=out)
    agents = [make("heuristic", game, seed=s) for s in range(game.n_players)]
    agents[seat] = human
    state = play_match(game, agents, seed=5, on_action=human.observe, max_deals=2)
    assert human.turns, "the person was never asked"
    for view, shown, action in human.turns:
        assert action == view["legal_actions"][0]
        assert "'nonsense' is not a legal action" in shown and "'0' is not a legal action" in shown
        assert "1) " + view["legal_actions"][0] in shown
        # every card named on screen is in the seat's own view: nothing hidden leaks (the key
        # to the cards names cards too, the same for every deal)
        for line in game.legend():
            shown = shown.replace(line, "")
        assert card_tokens(shown, game.deck) <= card_tokens(json.dumps(view), game.deck)
    printed = out.getvalue()
    assert "deal 1, dealer seat" in printed and "deal over: points" in printed
    if game_name == "kozel":  # docs/rules.md §3.8 (3.): the count turns the discards up
        turned = re.findall(r"turned up for the count: (.*)", printed)
        assert turned and all(re.fullmatch(r"seat \d discard:\w\w(,\w\w)*", item)
                              for line in turned for item in line.split(", "))
    if state.is_terminal:
        assert "match over:" in printed


def test_koetsieren_hides_your_own_forehead_cards():
    game = make_game("koetsieren", players=3)
    state = game.new_match(seed=2)
    while "F1" not in state.legal_texts():  # until someone may play a forehead card blind
        state.apply(state.legal_actions()[0])
    seat = state.to_move
    out = io.StringIO()
    choice = HumanPlayer(game, seat, input=io.StringIO("F1\n"), output=out).act(state.view(seat))
    assert choice == "F1"
    forehead = game.deal_to_json(state.deals[-1].vector)["hands"][seat]["forehead"]
    screen = out.getvalue()
    assert "forehead ?? ??" in screen
    assert not set(forehead) & card_tokens(screen, game.deck)



def test_a_forehead_card_is_played_by_its_slot_never_by_a_card_name():
    """docs/rules.md §2.7: a forehead card is played blind. In the state rebuilt from the
    person's view, the card dealt to its forehead at random is not a name it may type."""
    game = make_game("koetsieren", players=3)
    state = game.new_match(seed=2)
    while "F1" not in state.legal_texts():
        state.apply(state.legal_actions()[0])
    seat = state.to_move
    legal = state.legal_texts()
    rebuilt = game.state_from_view(state.view(seat), seed=0)
    guessed = [game.action_text(rebuilt, slot) for slot in (2, 3)]  # F1, F2 as the rebuilt deal has them
    assert choose("F1", legal, rebuilt, seat) == "F1"
    assert [choose(card, legal, rebuilt, seat) for card in guessed] == [None, None]
    table = game.deal_to_json(state.deals[-1].vector)["hands"][seat]["table"][0]
    assert choose(table.lower(), legal, rebuilt, seat) == table

def test_choose_accepts_numbers_notation_and_case_and_nothing_else():
    legal = ["Ao", "3c", "Kb"]
    assert choose("1", legal) == "Ao" and choose(" 3 ", legal) == "Kb"
    assert choose("3c", legal) == "3c" and choose("KB", legal) == "Kb"
    for bad in ("0", "4", "-1", "Zz", "", "A o"):
        assert choose(bad, legal) is None


def test_quit_and_the_end_of_input_leave_the_game():
    game = make_game("coins")
    state = game.new_match(seed=1)
    view = state.view(state.to_move)
    with pytest.raises(HumanQuit, match="left the game"):
        HumanPlayer(game, state.to_move, input=io.StringIO("quit\n"), output=io.StringIO()).act(view)
    with pytest.raises(HumanQuit, match="input of seat .* ended"):
        HumanPlayer(game, state.to_move, input=io.StringIO("Zz\n"), output=io.StringIO()).act(view)
    with pytest.raises(SlagwerkError, match="seat 3 is not a seat of coins"):
        HumanPlayer(game, 3)


def test_format_view_shows_every_game_field():
    state = make_game("coins").new_match(seed=4)
    view = state.view(state.to_move)
    text = format_view(view)
    assert f"you are seat {view['seat']}" in text
    assert "hand: " + " ".join(view["hand"]) in text and "hand sizes: 16 16 16" in text


def test_play_command_with_a_human_seat(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", Script(["2"]))
    assert main(["play", "coins", "--human", "0", "--target", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "0=human" in out and "your move:" in out and "final totals" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "coins", "--human", "2", "--seed", "3"]) == 1
    assert "match abandoned" in capsys.readouterr().out
    assert main(["play", "coins", "--human", "5"]) == 2
    assert "--human 5 is not a seat of this coins match (0..2)" in capsys.readouterr().err
    # As with --web: one spec per other seat, in seat order (or one per seat, or one for all).
    monkeypatch.setattr("sys.stdin", Script(["1"]))
    assert main(["play", "coins", "--human", "1", "--agents", "random", "heuristic", "--target", "1",
                 "--seed", "3"]) == 0
    assert "seats: 0=random, 1=human, 2=heuristic" in capsys.readouterr().out
    assert main(["play", "coins", "--human", "1", "--agents", "random", "heuristic", "random", "random"]) == 2
    assert "give one agent spec or one per seat or one per other seat (2), not 4" in capsys.readouterr().err


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_the_key_to_the_cards_comes_before_the_first_board_and_with_help(game_name):
    """The terminal explains the card codes (and Coins' suit cycle, Aluette's strength
    classes) once before the first board, and again with 'help'."""
    game = make_game(game_name)
    state = game.new_match(seed=1)
    out = io.StringIO()
    player = HumanPlayer(game, state.to_move, input=io.StringIO("help\n1\n1\n"), output=out)
    player.act(state.view(state.to_move))
    text = out.getvalue()
    key = game.legend()
    assert text.count(key[0]) == 2 and text.index(key[0]) < text.index("your move:")
    assert all(line in text for line in key)
    top_card = key[0].split(": ")[1].split()[0]
    assert game.deck.parse(top_card) is not None
    if game_name == "coins":
        assert "cups > coins > swords > clubs > cups" in key[-1]
    if game_name == "aluette":
        assert "strongest first" in key[1] and key[1].endswith(", 3b 3e")
    player.act(state.view(state.to_move))  # the next decision: no key again
    assert out.getvalue().count(key[0]) == 2
