"""The bot protocol's messages as models: the one description of every request and answer.

docs/protocol.md explains the protocol; these models say exactly what each
message may hold. Their JSON Schemas are written, by :func:`write_schemas`,
to ``agents/protocol.schema.json``, which ships with the package: the bot
checks requests against it (:mod:`slagwerk.json_check`, without loading
pydantic), the harness checks the answers of other people's bots against it,
and the documentation publishes it for clients in other languages.
tests/test_messages.py fails when the file is not what these models make.

Requests refuse fields they do not name (a typo is an error, not a silent
default); answers allow more fields than they name, so a bot may say more
and a newer bot still talks to an older harness.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..engine.seeds import MAX_SEED
from .limits import LIMIT_FIELDS

SCHEMA_FILE = Path(__file__).with_name("protocol.schema.json")
MAX_ID_CHARS = 200

RequestId = Annotated[
    int | Annotated[str, Field(max_length=MAX_ID_CHARS)] | None,
    Field(description="Any integer or short text; the answer carries it back."),
]
Budget = Annotated[int, Field(gt=0)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: RequestId = None


class HelloRequest(_Request):
    """Ask for the protocol version, the games, the agents and the limits."""

    type: Literal["hello"]


class QuitRequest(_Request):
    """End a stdio bot (it answers ``{"ok": true}`` first)."""

    type: Literal["quit"]


class WarmRequest(_Request):
    """Load (or compile) one game's agents now, before the first ``act`` request's clock runs."""

    type: Literal["warm"]
    game: str = Field(None, description="The game; the bot's --game when left out.")


class ActRequest(_Request):
    """Ask an agent for the action of the seat to move in ``view``."""

    type: Literal["act"]
    game: str = Field(None, description="The game; the bot's --game, or the view's game, when left out.")
    agent: str = Field(None, description="An agent spec such as ismcts:iterations=2000; the bot's "
                       "--agent when left out.")
    view: dict[str, Any] = Field(description="The seat's view, as docs/protocol.md shows for each game.")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="Seeds the agent: the same request gives the "
                      "same answer.")
    stats: bool = Field(False, description="Also answer the search's statistics.")
    iterations: Budget = Field(None, description="The search's iterations (agents with this budget).")
    time_ms: Budget = Field(None, description="The search's time in milliseconds (agents with this budget).")


REQUESTS = {"hello": HelloRequest, "quit": QuitRequest, "act": ActRequest, "warm": WarmRequest}
"""Every request's model by its ``type``."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: RequestId = None


class ErrorAnswer(_Answer):
    """Any request that fails: one line saying what was wrong."""

    error: str


class ActAnswer(_Answer):
    action: str = Field(description="The action, in the seat's notation (docs/records.md).")
    stats: dict[str, Any] = Field(None, description="The search's statistics, when asked for.")


class WarmAnswer(_Answer):
    warmed: str
    answered: int = Field(ge=0, description="Agents that answered a first request.")


class QuitAnswer(_Answer):
    ok: Literal[True]


class ParamFacts(BaseModel):
    """One agent parameter, as a ``hello`` answer describes it."""

    model_config = ConfigDict(extra="allow")

    type: Literal["int", "float", "bool", "str"]
    default: Any = None
    doc: str = ""
    min: float | None = None
    max: float | None = None
    choices: list[Any] = Field(None)


class AgentFacts(BaseModel):
    model_config = ConfigDict(extra="allow")

    description: str = ""
    params: dict[str, ParamFacts] = Field(None)
    budgets: list[Literal["iterations", "time_ms"]] = Field(None)


LimitFacts = create_model(
    "LimitFacts", __config__=ConfigDict(extra="allow"),
    __doc__="What the server accepts (the flags of the same names of slagwerk bot and serve).",
    max_tree_bytes=(int, Field(ge=0, description="the most memory a request's search tree may take")),
    # Another program's bot may allow more than slagwerk's flags do: only the lower bounds bind.
    **{limit.name: (int, Field(ge=limit.metadata["low"], description=limit.metadata["doc"]))
       for limit in LIMIT_FIELDS},
)


class HelloAnswer(_Answer):
    """Who the bot is. Another program's bot needs ``protocol``, ``version`` and
    ``games`` (a list of names will do); slagwerk's own says the rest too."""

    protocol: Literal["slagwerk-bot"]
    version: Literal[1]
    games: (Annotated[dict[str, dict[str, Any]], Field(min_length=1)]
            | Annotated[list[str], Field(min_length=1)]) = Field(description="The games it plays.")
    agents: dict[str, AgentFacts] = Field(None, description="The agents it offers, with their parameters.")
    slagwerk: str = Field(None, description="slagwerk's version, when it is a slagwerk bot.")
    parameter_sets: dict[str, dict[str, Any]] = Field(None)
    limits: LimitFacts = Field(None)


ANSWERS = {"hello": HelloAnswer, "quit": QuitAnswer, "act": ActAnswer, "warm": WarmAnswer,
           "error": ErrorAnswer}
"""Every answer's model by the request ``type`` it answers (and ``error``)."""


def schemas() -> dict:
    """The JSON Schemas of every request and answer, and of each game's views, in one document
    (``{"requests": {TYPE: schema}, "answers": {TYPE: schema}, "views": {GAME: schema}}``)."""
    from ..engine import GAME_NAMES, make_game

    return {
        "$comment": "Made by slagwerk.agents.messages.write_schemas from the protocol's models and the "
                    "games' view schemas; do not edit.",
        "requests": {kind: _schema(model) for kind, model in REQUESTS.items()},
        "answers": {kind: _schema(model) for kind, model in ANSWERS.items()},
        "views": {name: make_game(name).view_schema() for name in GAME_NAMES},
    }


def _schema(model) -> dict:
    schema = model.model_json_schema()
    # An optional field's null default is "leave it out", not a value a message may hold.
    for name, field in model.model_fields.items():
        prop = schema["properties"][name]
        if field.default is None and not field.is_required() and name != "id":
            prop.pop("default", None)
    for nested in schema.get("$defs", {}).values():  # the same, where the type says null is no value
        for prop in nested.get("properties", {}).values():
            if "default" in prop and prop["default"] is None and prop.get("type") not in (None, "null"):
                prop.pop("default")
    return schema


def write_schemas(path: Path = SCHEMA_FILE) -> Path:
    """Write :func:`schemas` to ``path`` (the package's copy by default)."""
    path.write_text(json.dumps(schemas(), indent=1) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write_schemas())
