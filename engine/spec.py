"""What a game declares about itself: :class:`GameInfo` and its :class:`OptionSpec`.

Each game package states its facts once, in its ``__init__.py`` (``INFO``),
without importing numba: the command line, the tournament's tables, the
bench and the conformance suite read them through :mod:`slagwerk.engine.registry`,
and the game's kernels and Python class are imported only when a run uses
the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptionSpec:
    """A game option: default, inclusive integer range, what it means, and the
    command-line shortcut (``--players``) if it has one besides ``--option``."""

    default: int
    low: int
    high: int
    doc: str
    flag: str | None = None


@dataclass(frozen=True)
class GameInfo:
    """Everything the toolkit needs to know about a game before it plays one.

    ``kernels`` names the module of its numba kernels (the engine contract,
    docs/design.md §2) and ``game_class`` its Python class as
    ``"module:Class"``; both are imported on first use.
    """

    name: str
    game_id: int
    title: str
    players: str
    """The number of players as people say it: ``"3"``, ``"2-6"``, ``"4, in teams"``."""
    options: dict[str, OptionSpec]
    points: str
    """What a deal's ``points`` (docs/records.md) measure, for tables."""
    kernels: str
    game_class: str
    team_game: bool = False
    totals: str = "points"
    """What a match's running totals count, in words (the web page's score line)."""
    suit_cycle: str = ""
    """The suits in the order each beats the next, where the rules make them a cycle (Coins:
    ``"coeb"``, clubs beating cups again); empty otherwise. The web page draws it."""
    hides_actions: bool = False
    """Some actions are seen only in part by other seats (the kernels then
    provide ``observed_actions``)."""
    counting_reveals_actions: bool = False
    """Once a deal is counted, every seat sees its hidden actions in full
    (Kozel §3.8.3: the face-down discards are turned up for the count)."""
    bench_options: dict[str, int] = field(default_factory=dict)
    """Options under which every benchmarked deal is a whole deal."""
    rules: str = ""
    """Where the rules are: a section of docs/rules.md."""
    summary: str = ""
    """What makes the game itself, in a line (the README's table and the web page)."""
    playout_free_of_refcounts: bool = True
    """The random playout loop compiles free of reference counting
    (tests/test_playout_codegen.py); False where action kernels are calls."""
    test_options: tuple[dict[str, int], ...] = ({},)
    """Option sets the conformance suite plays the game with."""
    short_options: dict[str, int] = field(default_factory=dict)
    """Options under which a match is short and small (what tests and examples play)."""
    observation: str = ""
    """The module of its observation encoding and compact action index for
    environments (:mod:`slagwerk.engine.encoding`); empty: none."""
    determinize_uses_whole_history: bool = True
    """Every world of the game's ``determinize`` agrees with the deal's whole
    public history. False (Kozel: earlier tricks' molodka questions) has
    ``belief=uniform`` keep only worlds in which the history replays. True
    also promises that nothing but the card play follows its start in a deal
    (the conformance suite checks it): a belief that does not read the play
    stops replaying where it begins."""

    def __post_init__(self):
        if not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"a game name is a lower-case identifier, not {self.name!r}")
        if isinstance(self.game_id, bool) or not isinstance(self.game_id, int) or self.game_id < 0:
            raise ValueError(f"game {self.name!r}: the game id must be an integer >= 0, not {self.game_id!r}")
        if ":" not in self.game_class:
            raise ValueError(f"game {self.name!r}: game_class is 'module:Class', not {self.game_class!r}")
