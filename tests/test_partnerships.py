"""Team games: an entry is two copies of an agent, unless told otherwise with A+B."""

import pytest

from slagwerk.agents.spec import Entry
from slagwerk.experiments.harness.runner import (
    ExperimentError,
    GameSetup,
    entry_label,
    partner_specs,
    play_game,
    validate_setup,
)
from slagwerk.experiments.harness.seating import GameSlot


def test_partner_specs_split_only_between_agents():
    assert partner_specs("heuristic+random") == ["heuristic", "random"]
    assert partner_specs("ismcts:c=1e+3,iterations=50") == ["ismcts:c=1e+3,iterations=50"]
    assert partner_specs("ismcts:iterations=50+heuristic") == ["ismcts:iterations=50", "heuristic"]
    assert entry_label("heuristic+random") == "heuristic+random"
    assert entry_label("ismcts:label=fast") == "fast"


def test_a_partnership_puts_each_agent_in_its_own_seat_of_the_team():
    """docs/rules.md §0.2: partners sit opposite: an entry A+B plays A in its team's first seat (0 or 1)
    and B opposite it (2 or 3)."""
    entry = "heuristic+random"
    assert [Entry.parse(entry).seat_spec(seat, 4).text for seat in range(4)] == [
        "heuristic", "heuristic", "random", "random"]
    assert Entry.parse("heuristic").seat_spec(3, 4).text == "heuristic"


def test_mixed_partnership_plays_a_team_game():
    """docs/rules.md §0.2: partners in seats 0 and 2 share their team's reward."""
    setup = GameSetup("aluette", (), ("heuristic+random", "random"), "deal", 5)
    validate_setup(setup)
    line = play_game(setup, GameSlot(index=0, group=0, rotation=0, seats=(0, 1, 0, 1)))
    assert line["agents"] == ["heuristic+random", "random", "heuristic+random", "random"]
    assert line["forfeit"] is None and len(line["reward"]) == 4
    assert line["reward"][0] == line["reward"][2]  # partners share the team's reward


@pytest.mark.parametrize("game, entry", [("coins", "heuristic+random"),
                                         ("kozel", "heuristic+random+random")])
def test_partnerships_only_in_team_games_and_of_two(game, entry):
    with pytest.raises(ExperimentError, match="partnership A\\+B"):
        validate_setup(GameSetup(game, (), (entry, "random"), "deal", 1))
