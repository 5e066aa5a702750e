"""Duplicate groups: tables and rotations for 3-, 4- and 5-player games and for teams."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest

from slagwerk.engine import GAME_NAMES, make_game
from slagwerk.errors import SpecError
from slagwerk.experiments.harness.runner import GameSetup, play_game
from slagwerk.experiments.harness.seating import rotations, schedule, tables_for


@pytest.mark.parametrize(
    "agents, seats, expected",
    [(2, 3, 2), (3, 3, 2), (4, 3, 8), (2, 4, 4), (3, 4, 9), (4, 4, 6), (5, 4, 30), (2, 5, 6),
     (5, 5, 24)],
)
def test_table_counts(agents, seats, expected):
    tables = tables_for(agents, seats, team_game=False)
    assert len(tables) == expected
    assert len(set(tables)) == expected
    # No two tables are rotations of each other, and every table uses only real agents.
    seen = set()
    for table in tables:
        assert not seen & set(rotations(table))
        seen |= set(rotations(table))
        assert set(table) <= set(range(agents))


@pytest.mark.parametrize("agents, seats", [(2, 3), (3, 3), (4, 3), (2, 4), (4, 4), (5, 4), (2, 5), (5, 5)])
def test_every_agent_meets_every_other_in_every_seat_position(agents, seats):
    """Over the schedule, for every ordered pair (a, b) and every seat offset d,
    some game seats a in some seat s and b in seat s + d; and within each
    group, every seat's cards are played by each agent of the table in turn."""
    tables = tables_for(agents, seats, team_game=False)
    slots = schedule(tables, len(tables))
    offsets = {(a, b): set() for a, b in permutations(range(agents), 2)}
    seat_counts = Counter()
    for slot in slots:
        for s, a in enumerate(slot.seats):
            seat_counts[a, s] += 1
            for d in range(1, seats):
                b = slot.seats[(s + d) % seats]
                if b != a:
                    offsets[a, b].add(d)
    if agents >= seats:
        # every agent is at a table with every other, on each side of it
        assert all(offsets[pair] == set(range(1, seats)) for pair in offsets)
    else:
        assert all(offsets[pair] for pair in offsets)
    # every agent holds every seat equally often
    for a in range(agents):
        assert len({seat_counts[a, s] for s in range(seats)}) == 1


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_a_group_gives_each_agent_each_seat_once_per_place_at_the_table(seats):
    for table in tables_for(3, seats, team_game=False):
        turns = rotations(table)
        assert len(turns) == len(set(turns))
        for s in range(seats):
            # the agents in seat s over the group's games are the table's agents,
            # each as often as it sits at the table
            held = Counter(turn[s] for turn in turns)
            assert {a: held[a] * seats for a in held} == {
                a: c * len(turns) for a, c in Counter(table).items()}


def test_team_tables_are_partnerships_of_copies_and_swap_teams():
    tables = tables_for(3, 4, team_game=True)
    assert tables == [(0, 1, 0, 1), (0, 2, 0, 2), (1, 2, 1, 2)]
    assert rotations((0, 1, 0, 1)) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    slots = schedule(tables, 4)
    assert [(s.index, s.group, s.rotation) for s in slots] == [
        (0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1), (4, 2, 0), (5, 2, 1), (6, 3, 0), (7, 3, 1)]
    assert slots[6].seats == (0, 1, 0, 1)


def test_schedule_indices_do_not_depend_on_where_it_starts():
    tables = tables_for(2, 3, team_game=False)
    whole = schedule(tables, 10)
    assert schedule(tables, 4, first_group=6) == whole[-len(schedule(tables, 4, first_group=6)):]


def test_too_few_agents_is_an_error():
    with pytest.raises(SpecError, match="at least two agents"):
        tables_for(1, 3, team_game=False)


def _game_variants():
    variants = []
    for name in GAME_NAMES:
        game = make_game(name)
        if "players" in game.option_specs:
            for players in (3, 4, 5):
                spec = game.option_specs["players"]
                if spec.low <= players <= spec.high:
                    variants.append((name, (("players", players),)))
        else:
            variants.append((name, ()))
    return variants


@pytest.mark.parametrize("name, options", _game_variants())
def test_a_duplicate_group_replays_the_same_cards_with_the_agents_rotated(name, options):
    """Real engine: every game of a group deals the same cards; the agents move round."""
    game = make_game(name, **dict(options))
    setup = GameSetup(name, options, ("random", "heuristic"), seed=5, keep_records=True)
    tables = tables_for(2, game.n_players, game.team_game, game.team_of)
    slot_list = [slot for slot in schedule(tables, len(tables)) if slot.group == len(tables) - 1]
    lines = [play_game(setup, slot) for slot in slot_list]
    first_deals = [{k: v for k, v in line["record"]["deals"][0].items() if k != "actions"}
                   for line in lines]
    assert all(deal == first_deals[0] for deal in first_deals)
    assert len({tuple(line["agents"]) for line in lines}) == len(lines)
    for line in lines:
        assert line["agents"] == [["random", "heuristic"][a] for a in line["table"]]
        assert line["record"]["players"] == line["agents"]
        assert line["forfeit"] is None and line["deals"] == 1
        assert all(0.0 <= r <= 1.0 for r in line["reward"])
        if game.team_game:
            assert line["reward"][0] == line["reward"][2] and line["reward"][1] == line["reward"][3]


@pytest.mark.parametrize("module", ["seating", "tournament"])
def test_doctests(module):
    import doctest
    import importlib

    assert doctest.testmod(importlib.import_module(f"slagwerk.experiments.harness.{module}")).failed == 0
