"""Agent specs are parsed once, where they are read, and travel as objects (agents/spec.py)."""

import pickle
import re

import pytest

from slagwerk.agents import make, spec
from slagwerk.agents.spec import AgentSpec, Entry
from slagwerk.engine import make_game
from slagwerk.errors import SpecError
from slagwerk.experiments.harness.runner import GameSetup, play_game
from slagwerk.experiments.harness.seating import GameSlot


@pytest.mark.parametrize("text, name, values, label", [
    ("random", "random", {}, "random"),
    ("ismcts:iterations=20,c=0.7", "ismcts", {"iterations": "20", "c": "0.7"}, "ismcts:iterations=20,c=0.7"),
    (" ismcts : iterations = 5 , label = fast one ", "ismcts", {"iterations": "5"}, "fast one"),
    ("ismcts:c=1e+3", "ismcts", {"c": "1e+3"}, "ismcts:c=1e+3"),
])
def test_a_spec_reads_as_name_values_and_label(text, name, values, label):
    parsed = AgentSpec.parse(text)
    assert (parsed.name, parsed.values, parsed.label, str(parsed)) == (name, values, label, text.strip())


@pytest.mark.parametrize("text, message", [
    ("", "is not NAME or NAME:KEY=VALUE"),
    ("ismcts:iterations", "is not NAME or NAME:KEY=VALUE"),
    ("ismcts:@best.json", "never files"),
    (7, "agent spec 7 is not NAME"),
    ("ismcts:c=1,c=2", "sets 'c' twice"),
    ("ismcts:label=a,label=b", "sets 'label' twice"),
    ("ismcts:label=", "label= needs a name"),
])
def test_a_bad_spec_is_one_line(text, message):
    with pytest.raises(SpecError, match=re.escape(message)) as err:
        AgentSpec.parse(text)
    assert "\n" not in str(err.value)


def test_an_entry_splits_partners_only_before_a_letter():
    entry = Entry.parse("ismcts:c=1e+3+heuristic")
    assert [part.text for part in entry.parts] == ["ismcts:c=1e+3", "heuristic"]
    assert entry.label == "ismcts:c=1e+3+heuristic"
    assert [entry.seat_spec(seat, 4).name for seat in range(4)] == ["ismcts"] * 2 + ["heuristic"] * 2


def test_workers_get_parsed_specs_and_never_parse_again(monkeypatch):
    """A game setup parses its entries when it is made; what a worker unpickles are
    objects, and playing a game with them parses no text (any text would now fail)."""
    setup = GameSetup("coins", (), ("heuristic", "ismcts:iterations=20,label=quick"), seed=3)
    sent = pickle.loads(pickle.dumps(setup))
    assert all(isinstance(part, AgentSpec) for entry in sent.specs for part in entry.parts)
    monkeypatch.setattr(spec, "_SPEC", re.compile(r"(?!)"))  # no text parses any more
    with pytest.raises(SpecError):
        AgentSpec.parse("heuristic")
    line = play_game(sent, GameSlot(0, 0, 0, (0, 1, 1)))
    assert line["forfeit"] is None and set(line["agents"]) == {"heuristic", "quick"}
    assert make(sent.specs[1].parts[0], make_game("coins")).label == "quick"
