"""The views' JSON Schemas (engine/view_schema.py): every view of random matches of every game
(every seat, every option set the conformance suite plays) validates against its game's schema,
and a view whose shape the schema refuses is refused by the game too, in one line."""

from __future__ import annotations

import copy
import json
import random

import jsonschema
import pytest

from slagwerk.agents.protocol import handle
from slagwerk.engine import GAME_NAMES, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.registry import game_info


def _views(game, matches: int):
    for seed in range(matches):
        state, rng, rnd = game.new_match(seed=seed), make_rng(seed), random.Random(seed)
        while not state.is_terminal:
            if state.deal_pending:
                state.deal(rng=rng)
                continue
            for seat in range(game.n_players):
                yield state.view(seat)
            state.apply(rnd.choice(list(state.legal_actions())))


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_every_view_of_random_matches_fits_its_games_schema(game_name):
    for options in game_info(game_name).test_options:
        game = make_game(game_name, **options)
        validator = jsonschema.Draft202012Validator(game.view_schema())
        jsonschema.Draft202012Validator.check_schema(game.view_schema())
        count = 0
        for view in _views(game, 2):
            errors = list(validator.iter_errors(json.loads(json.dumps(view))))
            assert not errors, (options, errors[0].message, errors[0].json_path)
            count += 1
            if count == 400:  # a whole match and more, every seat: enough, and quick
                break
        assert count > 100


def _to_move_view(game_name):
    game = make_game(game_name)
    return next(view for view in _views(game, 1) if view["to_move"] == view["seat"] and view["history"])


BREAKS = [
    ("an unknown field", lambda v: v.update(extra=1)),
    ("a missing field", lambda v: v.pop("totals")),
    ("a seat out of range", lambda v: v.update(dealer=9)),
    ("a card that is no card", lambda v: v["history"][0].update(seat="one")),
    ("a count that is text", lambda v: v.update(tricks_done="2")),
]


@pytest.mark.parametrize("game_name", GAME_NAMES)
@pytest.mark.parametrize("what, change", BREAKS, ids=[b[0] for b in BREAKS])
def test_what_the_schema_refuses_the_bot_refuses_in_one_line(game_name, what, change):
    view = _to_move_view(game_name)
    schema = make_game(game_name).view_schema()
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(view))
    broken = copy.deepcopy(view)
    change(broken)
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken)), what
    answer = handle({"type": "act", "id": 1, "game": game_name, "agent": "random", "view": broken})
    assert set(answer) == {"id", "error"} and "\n" not in answer["error"], answer
