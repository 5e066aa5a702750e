"""docs/adding-a-game.md is true: the toy game in tests/toy_game, added with
one ``register_game`` call, passes the conformance suite, follows its rules,
plays a tournament (in Python and on the command line) and answers bot
requests. It is registered only while this module's tests run."""

from __future__ import annotations

import dataclasses
import json

import pytest
from test_playout_codegen import test_random_playout_loop_has_no_reference_counting as check_playout_loop

import toy_game
from slagwerk.agents.protocol import handle
from slagwerk.cli import main
from slagwerk.engine import GAME_NAMES, GAMES, make_game, registry
from slagwerk.engine.bits import make_rng
from slagwerk.engine.conformance import check_game
from slagwerk.engine.records import record_of, replay
from slagwerk.errors import OptionError
from slagwerk.experiments.harness.tournament import TournamentConfig, run_tournament

BUILT_IN = tuple(registry.GAME_PACKAGES)


@pytest.fixture(scope="module", autouse=True)
def toy():
    """The walk-through's one line, undone when the module's tests end so that
    other test modules see only the built-in games."""
    registry.register_game(toy_game.INFO)
    try:
        yield make_game("toy")
    finally:
        registry.unregister_game("toy")


# ------------------------------------------------------------------ registration


def test_one_call_registers_the_game_everywhere(toy):
    assert (*BUILT_IN, "toy") == GAME_NAMES  # built-in games first, then the registered one
    assert "toy" in GAMES and GAMES["toy"] is type(toy)
    assert registry.info_by_id(9) is toy_game.INFO
    assert (toy.n_players, toy.options) == (2, {"target": 5, "first_dealer": 0})
    assert registry.register_game(toy_game.INFO) is toy_game.INFO  # again: no change
    with pytest.raises(ValueError, match="game id 9 is taken by 'toy'"):
        registry.register_game(dataclasses.replace(toy_game.INFO, name="other"))
    with pytest.raises(OptionError, match="out of range"):
        make_game("toy", first_dealer=2)


def test_unregistering_leaves_the_built_in_games():
    other = dataclasses.replace(toy_game.INFO, name="toy_copy", game_id=10)
    registry.register_game(other)
    assert "toy_copy" in GAME_NAMES
    assert registry.unregister_game("toy_copy") is other
    assert "toy_copy" not in GAME_NAMES and GAME_NAMES[: len(BUILT_IN)] == BUILT_IN
    with pytest.raises(ValueError, match="built-in"):
        registry.unregister_game("coins")


# ------------------------------------------------------------------ conformance


@pytest.mark.parametrize("options", toy_game.INFO.test_options, ids=str)
def test_the_toy_game_passes_the_conformance_suite(options):
    check_game(make_game("toy", **options), matches=4, seed=len(str(options)))


def test_the_random_playout_loop_counts_no_references():
    """``playout_free_of_refcounts`` (declared True by default) holds for the toy."""
    check_playout_loop(toy_game.INFO)


# ------------------------------------------------------------------ the rules

DEAL = {"hands": [["Jc", "Ac", "Kd"], ["Qc", "Qh", "Kh"]],
        "undealt": ["Kc", "Jd", "Qd", "Ad", "Jh", "Ah"]}


def test_a_deal_follows_the_rules_and_replays():
    state = make_game("toy", target=2).new_match()
    state.deal(state.game.deal_from_json(DEAL))
    assert (state.dealer, state.to_move) == (0, 1)  # the seat left of the dealer leads
    state.apply("Kh")
    assert state.legal_texts() == ["Jc", "Ac", "Kd"]  # no heart: any card
    state.apply("Kd")
    assert state.deals[-1].trick_winners == [1] and state.view(1)["voids"] == [["h"], []]
    state.apply("Qc")
    assert state.legal_texts() == ["Jc", "Ac"]  # must follow clubs
    state.apply("Ac")  # the higher club wins and leads
    state.apply("Jc")
    state.apply("Qh")
    assert state.deals[-1].trick_winners == [1, 0, 0]
    assert state.is_terminal and state.totals == [2, 1] and state.outcome == [1, 0]
    assert replay(record_of(state)) == {"deals": [{"trick_winners": [1, 0, 0], "points": [2, 1]}],
                                        "totals": [2, 1], "outcome": [1, 0]}


@pytest.mark.parametrize(("target", "after"), [(2, "match over"), (3, "deal pending")])
def test_a_view_after_the_deal_rebuilds_the_match_over_or_the_next_deal(target, after):
    state = make_game("toy", target=target).new_match()
    state.deal(state.game.deal_from_json(DEAL))
    for card in ("Kh", "Kd", "Qc", "Ac", "Jc", "Qh"):
        state.apply(card)
    for seat in range(2):
        view = state.view(seat)
        rebuilt = state.game.state_from_view(view)
        assert {k: v for k, v in rebuilt.view(seat).items() if k != "history"} == {
            k: v for k, v in view.items() if k != "history"}
        assert (rebuilt.is_terminal, rebuilt.deal_pending) == (after == "match over", after == "deal pending")
        assert rebuilt.outcome == state.outcome and rebuilt.dealer == state.dealer


def test_hidden_cards_are_redealt_without_the_suits_a_seat_showed_it_lacks():
    state = make_game("toy").new_match()
    state.deal(state.game.deal_from_json(DEAL))
    state.apply("Kh")
    state.apply("Kd")  # seat 0 shows it has no heart
    view = state.view(1)
    for seed in range(30):
        world = state.clone()
        world.game.kernels.determinize(world.array, 1, make_rng(seed))
        rebuilt = state.game.state_from_view(view, seed=seed)
        for s in (world, rebuilt):
            assert s.view(1)["hand"] == view["hand"]
            assert not any(card.endswith("h") for card in s.view(0)["hand"])


def test_a_view_shows_nothing_the_seat_cannot_see(toy):
    state = toy.new_match(seed=4)
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=make_rng(state.deal_number))
            continue
        for seat in range(2):
            view = state.view(seat)
            shown = set(view["hand"] + view["trick"] + view["played"] + view.get("legal_actions", []))
            shown |= {item["action"] for item in view["history"]}
            undealt = toy.deal_to_json(state.deals[-1].vector)["undealt"]
            hidden = set(state.view(1 - seat)["hand"]) | set(undealt)
            assert not shown & hidden
        state.apply(state.legal_actions()[-1])


# ------------------------------------------------------------------ tournaments

AGENTS = ("random", "heuristic", "ismcts:iterations=30,label=ismcts")


def test_a_tournament_ranks_agents_in_the_toy_game():
    config = TournamentConfig("toy", AGENTS, deals=6, seed=3, bootstrap=20, move_time=None)
    result = run_tournament(config, jobs=1, progress=False, save=False)
    assert result.games == 6 * 2 and not result.forfeits  # a group: one pairing, in both seatings
    assert sorted(row.agent for row in result.ratings.ranking) == ["heuristic", "ismcts", "random"]
    assert result.summary_json()["score"] == "tricks taken per deal (of 3)"


def test_the_command_line_plays_and_ranks_the_registered_game(tmp_path, capsys):
    assert main(["play", "toy", "--agents", "heuristic", "random", "--target", "2", "--quiet"]) == 0
    assert "final totals" in capsys.readouterr().out
    assert main(["tournament", "--game", "toy", "--agents", *AGENTS, "--deals", "2", "--jobs", "1",
                 "--bootstrap", "10", "--quiet", "--json", "--results", str(tmp_path / "toy")]) == 0
    ranking = json.loads(capsys.readouterr().out)
    assert ranking["game"] == "toy" and len(ranking["ranking"]) == 3
    assert json.loads((tmp_path / "toy" / "config.json").read_text())["game"] == "toy"


# ------------------------------------------------------------------ bot requests


def test_the_bot_answers_act_requests_with_legal_cards(toy):
    hello = handle({"id": 0, "type": "hello"})
    assert hello["games"]["toy"]["players"] == 2
    state = toy.new_match(seed=5)
    state.apply(state.legal_actions()[0])  # the second seat answers a lead
    seat = state.to_move
    view = json.loads(json.dumps(state.view(seat)))  # as it arrives over the wire
    for rid, agent in enumerate(("random", "heuristic", "ismcts", "pimc:worlds=4,iterations_per_world=8")):
        request = {"id": rid, "type": "act", "game": "toy", "agent": agent, "view": view, "seed": 1}
        if agent == "ismcts":
            request["iterations"] = 50
        answer = handle(request)
        assert answer["id"] == rid and answer["action"] in state.legal_texts(seat), answer


def test_the_bot_refuses_an_impossible_toy_view(toy):
    state = toy.new_match(seed=5)
    view = state.view(state.to_move)
    bad = {**view, "voids": [[], ["x"]]}
    answer = handle({"id": 1, "type": "act", "game": "toy", "agent": "random", "view": bad})
    assert "'voids'" in answer["error"]
    own = [view["hand"][0][-1]]  # a void in a suit the seat holds
    bad = {**view, "voids": [own, own]}
    answer = handle({"id": 2, "type": "act", "game": "toy", "agent": "random", "view": bad})
    assert "showed it lacks" in answer["error"]


def test_the_walk_through_counts_the_files_truly():
    """docs/adding-a-game.md: three files make a game (Toy has no more); the built-in games add
    the three optional ones."""
    from pathlib import Path

    from paths import REPO

    def files(folder: Path) -> set[str]:
        return {p.name for p in folder.glob("*.py")}

    assert files(Path(toy_game.__file__).parent) == {"__init__.py", "kernels.py", "game.py"}
    optional = {"observation.py", "replay.py", "pure.py"}
    for name in BUILT_IN:
        assert files(REPO / "engine" / name) == {"__init__.py", "kernels.py", "game.py"} | optional
    text = (REPO / "docs" / "adding-a-game.md").read_text()
    assert all(f"`{name}`" in text for name in optional)
