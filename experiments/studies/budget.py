"""Strength against budget: one agent (or several) at many decision budgets, rated on one scale.

A *curve experiment* is a tournament (:mod:`.tournament`) whose entries are
agents at several budgets, plus fixed opponents that anchor the scale. Every
entry meets every other on duplicate deals, so all budgets of all agents get
Elo ratings on one scale with 95% profile-likelihood intervals, and the games' result
lines (``decisions`` and ``think``, see :func:`.runner.play_game`) give each
entry's measured seconds per decision. Two experiments are curves:

- ``budget`` (this module): each ``--agent`` at each budget;
- ``information`` (:mod:`.information`): the same search seeing only its
  seat's view against seeing the true deal (``cheat``), budget by budget.

A budget is the agent's decision budget: with ``by="iterations"``, ISMCTS's
(or any agent's) ``iterations``, or for an agent with ``worlds`` and
``iterations_per_world`` (PIMC) both, split in the proportion of the agent's
defaults (PIMC 40 x 250: a budget of 1000 plays 13 worlds x 77 iterations);
with ``by="time"``, milliseconds per decision (``time_ms``).

The results folder is a tournament's (``config.json`` holds the tournament's
settings and, under ``experiment``, the curve's; ``--resume`` and
``slagwerk report`` work on it as on any tournament) with the experiment's own
files beside it: ``<kind>.csv``, ``<kind>.json``, ``<kind>.md`` and the plot
``<kind>.png`` / ``<kind>.svg``.

>>> config = CurveConfig("budget", "coins", ("ismcts", "pimc"), (100, 1000), opponents=("heuristic",))
>>> [entry.spec for entry in config.entries()][:3]
['ismcts:iterations=100,label=ismcts-100', 'ismcts:iterations=1000,label=ismcts-1000', \
'pimc:worlds=4,iterations_per_world=25,label=pimc-100']
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from ...agents.registry import agent_class, parse_spec
from ...errors import SpecError
from ...settings import SettingsError
from ..harness.config import RunSettings
from ..harness.report import games_of, load_tournament, write_report
from ..harness.results import ResultsFolder
from ..harness.runner import ExperimentError, entry_label, partner_specs
from ..harness.tournament import (
    TournamentConfig,
    TournamentResult,
    format_forfeits,
    run_tournament,
)
from .config import BY, KINDS, CurveSettings

OUTPUT_EXTENSIONS = ("csv", "json", "md", "png", "svg")
EXPERIMENT_KEY = "experiment"
TOURNAMENT_SETTINGS = ("game", "agents", "deals", "seed", "options", "unit", "move_time", "bootstrap")
"""The tournament settings a curve experiment decides (the others keep their defaults)."""
"""The key of ``config.json`` that holds a curve experiment's own settings."""


class CurveFolder(ResultsFolder):
    """A curve experiment's results folder: a tournament's, plus the experiment's files."""

    KIND = "curve experiment"
    FILES = (*ResultsFolder.FILES, *(f"{kind}.{ext}" for kind in KINDS for ext in OUTPUT_EXTENSIONS))


# ------------------------------------------------------------------ budgets in specs


def parse_budgets(text, by: str = "iterations") -> tuple:
    """``"100,300,1000"`` (or a sequence) as distinct positive budgets in ascending order:
    integers for iterations, numbers of milliseconds for time.

    >>> parse_budgets("1000,100,300")
    (100, 300, 1000)
    """
    if by not in BY:
        raise ExperimentError(f"--by must be one of {', '.join(BY)}, not {by!r}")
    items = text.split(",") if isinstance(text, str) else list(text)
    budgets = []
    for item in items:
        try:
            value = float(item)
        except (TypeError, ValueError):
            raise ExperimentError(f"--budgets: {item!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise ExperimentError(f"--budgets: {item!r} is not a positive budget")
        if by == "iterations":
            if not value.is_integer():
                raise ExperimentError(f"--budgets: {item!r} is not a whole number of iterations")
            value = int(value)
        budgets.append(value)
    if not budgets:
        raise ExperimentError("--budgets needs at least one budget, e.g. 100,300,1000")
    if len(set(budgets)) != len(budgets):
        raise ExperimentError(f"--budgets names a budget twice: {text!r}")
    return tuple(sorted(budgets))


def curve_name(spec: str) -> str:
    """The name of an agent's curve: its label (the spec text unless ``label=`` gives one),
    with commas made slashes so that it can stand in a spec's label."""
    if len(partner_specs(spec)) > 1:
        raise SpecError(f"{spec!r}: a curve's agent is one agent, not a partnership (opponents may be)")
    return parse_spec(spec)[2].replace(",", "/")


def budget_label(name: str, budget, by: str) -> str:
    return f"{name}-{budget:g}ms" if by == "time" else f"{name}-{budget}"


def with_budget(spec: str, budget, by: str = "iterations", label: str | None = None) -> str:
    """``spec`` with its decision budget set to ``budget`` (see the module doc), labelled.

    :raises SpecError: for an agent without such a budget, or a spec that sets it itself.
    """
    name, params, _ = parse_spec(spec)
    cls = agent_class(name)
    if by == "time":
        keys = {"time_ms": f"{budget:g}"}
    elif "worlds" in cls.params and "iterations_per_world" in cls.params:
        worlds0 = cls.params["worlds"].default
        per_world0 = cls.params["iterations_per_world"].default
        worlds = max(1, round(math.sqrt(budget * worlds0 / per_world0)))
        keys = {"worlds": str(worlds), "iterations_per_world": str(max(1, round(budget / worlds)))}
    else:
        keys = {"iterations": str(budget)}
    missing = [key for key in keys if key not in cls.params]
    if missing:
        raise SpecError(f"agent {name!r} has no parameter {missing[0]!r}, so --by {by} cannot set its "
                        f"budget (parameters: {', '.join(sorted(cls.params)) or 'none'})")
    given = sorted(set(keys) & set(params))
    if given:
        raise SpecError(f"{spec!r} sets {given[0]}, which the experiment's budgets set")
    items = {**params, **keys}
    text = ",".join(f"{key}={value}" for key, value in items.items())
    return f"{name}:{text},label={label or budget_label(curve_name(spec), budget, by)}"


# ------------------------------------------------------------------ the experiment


@dataclass(frozen=True)
class Entry:
    """One tournament entry: a curve's point (``curve``, ``budget``) or an opponent (both ``None``)."""

    spec: str
    label: str
    curve: str | None = None
    budget: float | None = None


class CurveConfig(CurveSettings, RunSettings):
    """A curve experiment's settings: its own (:class:`~.config.CurveSettings`, stored under
    ``config.json``'s ``experiment``) and its tournament's (:class:`~..harness.config.RunSettings`,
    stored as the tournament's)."""

    POSITIONAL: ClassVar[tuple[str, ...]] = ("kind", "game", "agents", "budgets")

    def curves(self) -> list[tuple[str, str]]:
        """``(curve name, spec)`` of every curve, in drawing order."""
        specs = list(self.agents)
        if self.kind == "information":
            specs.append(self.cheat or "cheat")
        return [(curve_name(spec), spec) for spec in specs]

    def entries(self) -> list[Entry]:
        """Every entry of the tournament: the curves' points, then the opponents."""
        entries = [
            Entry(with_budget(spec, budget, self.by), budget_label(name, budget, self.by), name, budget)
            for name, spec in self.curves() for budget in self.budgets
        ]
        return entries + [Entry(spec, entry_label(spec)) for spec in self.opponents]

    def tournament(self) -> TournamentConfig:
        return TournamentConfig(game=self.game, agents=tuple(entry.spec for entry in self.entries()),
                                deals=self.deals, seed=self.seed, options=self.options,
                                unit=self.unit, move_time=self.move_time, bootstrap=self.bootstrap)

    def validate(self) -> None:
        """:raises SlagwerkError: for any bad setting or spec, naming it, before any game runs."""
        cheat = self.cheat or "cheat"
        sees_all = self.kind != "information" or agent_class(parse_spec(cheat)[0]).cheating
        if self.kind == "information" and (len(self.agents) != 1 or not sees_all):
            raise SpecError(f"the information experiment compares one search (--agent; {len(self.agents)} "
                            f"given) with an agent that sees the true deal (--cheat; {cheat!r} "
                            f"{'does' if sees_all else 'is not one'})")
        parse_budgets(self.budgets, self.by)
        names = [name for name, _ in self.curves()]
        if len(set(names)) != len(names):
            raise SpecError(f"two curves share the name {names[0]!r}: give one of them label=...")
        self.tournament().validate()

    def experiment_json(self) -> dict:
        """The experiment's own settings, as ``config.json`` stores them under :data:`EXPERIMENT_KEY`."""
        data = self.dump()
        return {name: data[name] for name in CurveSettings.model_fields}

    @classmethod
    def load_parts(cls, experiment, tournament: TournamentConfig, where: str) -> CurveConfig:
        """The experiment stored under :data:`EXPERIMENT_KEY` with ``tournament`` stored beside it
        (``where``: the file, for errors). :raises SettingsError: naming the key and the value."""
        where = f"{where}, {EXPERIMENT_KEY!r}"
        if not isinstance(experiment, dict):
            return CurveSettings.load(experiment, where)  # raises: not an object
        unknown = [key for key in experiment if key not in CurveSettings.model_fields]
        if unknown:
            raise SettingsError(f"{where}: unknown setting {unknown[0]!r} (settings: "
                                f"{', '.join(CurveSettings.model_fields)})")
        shared = tournament.dump()
        return cls.load({**experiment, **{name: shared[name] for name in RunSettings.model_fields
                                          if name in shared}}, where)


def load_config(path) -> CurveConfig:
    """The curve experiment stored in the results folder ``path``, checked against its tournament.

    :raises ExperimentError: if the folder holds no curve experiment or its two parts disagree.
    """
    folder = CurveFolder.open(path)
    data = folder.config()
    experiment = data.get(EXPERIMENT_KEY)
    if experiment is None:
        raise ExperimentError(f"{str(path)!r} holds a tournament, not an experiment (no {EXPERIMENT_KEY!r} "
                              f"in config.json)")
    tournament = TournamentConfig.load(data, folder.config_path)
    config = CurveConfig.load_parts(experiment, tournament, folder.config_path)
    made = config.tournament()
    if any(getattr(made, key) != getattr(tournament, key) for key in TOURNAMENT_SETTINGS):
        raise ExperimentError(f"{Path(path) / 'config.json'}: the experiment's settings do not make the "
                              f"tournament stored beside them (the file was edited)")
    return config


@dataclass(frozen=True)
class CurveResult:
    """A finished curve experiment: its settings, the tournament and a row per entry."""

    config: CurveConfig
    tournament: TournamentResult
    rows: list
    folder: Path | None


def run_curve(config: CurveConfig | None, results=None, *, resume: bool = False, force: bool = False,
              jobs: int = -1, backend: str = "loky", scheduler: str | None = None,
              progress: bool = True) -> CurveResult:
    """Play (or, with ``resume``, finish) a curve experiment and write its files.

    ``results`` is the folder (required; with ``resume`` the one to continue,
    whose stored settings apply). The games are a tournament's
    (:func:`.tournament.run_tournament`: progress bar, workers, ``--resume``
    safety, ``summary`` and ``report`` files); then the experiment's CSV,
    JSON, Markdown and plots are written (:func:`write_outputs`).
    """
    if results is None:
        raise ExperimentError("an experiment needs its results folder (--results DIR)")
    if resume:
        config = load_config(results)
    else:
        config.validate()
        CurveFolder.create(results, {**config.tournament().dump(), EXPERIMENT_KEY: config.experiment_json()},
                           force=force)
    result = run_tournament(None, results, resume=True, jobs=jobs, backend=backend, scheduler=scheduler,
                            progress=progress)
    lines = games_of(result)
    write_report(result, lines)
    return write_outputs(results, result, lines)


# ------------------------------------------------------------------ rows and files


def entry_rows(config: CurveConfig, result: TournamentResult, lines: list[dict]) -> list[dict]:
    """Per entry: its curve and budget, rating with interval, score, and time per decision.

    ``decisions`` and ``seconds_per_decision`` count every decision the
    entry's seats answered in the games (``decisions`` / ``think`` of the
    result lines); ``seat_games`` is the number of seats it held.
    """
    labels = list(result.ratings.labels)
    decisions = np.zeros(len(labels))
    seconds = np.zeros(len(labels))
    seat_games = np.zeros(len(labels), dtype=int)
    for line in lines:
        for seat, number in enumerate(line["table"]):
            seat_games[number] += 1
            if "decisions" in line:
                decisions[number] += line["decisions"][seat]
                seconds[number] += line["think"][seat]
    rating = {row.agent: row for row in result.ratings.ranking}
    rows = []
    for entry in config.entries():
        number = labels.index(entry.label)
        row = rating[entry.label]
        rows.append({
            "curve": entry.curve, "budget": entry.budget, "label": entry.label, "spec": entry.spec,
            "rating": round(row.rating, 1), "ci_low": round(row.ci95[0], 1),
            "ci_high": round(row.ci95[1], 1),
            "score": None if row.mean_score is None else round(row.mean_score, 4),
            "seat_games": int(seat_games[number]), "decisions": int(decisions[number]),
            "seconds_per_decision": (float(f"{seconds[number] / decisions[number]:.6g}")
                                     if decisions[number] else None),
        })
    return rows


def write_outputs(path, result: TournamentResult | None = None,
                  lines: list[dict] | None = None) -> CurveResult:
    """(Re)write the experiment's CSV, JSON, Markdown and plot from the folder's games.

    ``result`` and ``lines``: the finished tournament and its games, when the
    caller has them (default: rated again from the folder, as ``slagwerk report``).
    """
    config = load_config(path)
    if result is None:
        result, lines = load_tournament(path)
    rows = entry_rows(config, result, lines)
    folder = CurveFolder(path)
    curve = CurveResult(config, result, rows, Path(path))
    extra = gaps(curve) if config.kind == "information" else None
    document = {"experiment": config.kind, "game": config.game, "by": config.by, "unit": config.unit,
                "groups": result.ratings.groups, "tables": len(result.config.tables()),
                "games": result.games, "seed": config.seed,
                "settings": config.experiment_json(), "rows": rows}
    table = rows
    if extra is not None:
        document["gaps"] = extra
        table = extra
    folder.write(f"{config.kind}.json", document)
    folder.write_bytes(f"{config.kind}.csv", _csv(table).encode("utf-8"))
    from ..harness import plots

    images = plots.curve_figure(curve, extra)
    for ext, data in images.items():
        folder.write_bytes(f"{config.kind}.{ext}", data)
    folder.write_bytes(f"{config.kind}.md", markdown(curve, extra).encode("utf-8"))
    return curve


def gaps(curve: CurveResult) -> list[dict]:
    """Information: per budget, the cheat's rating minus the view's, with a 95% interval."""
    config = curve.config
    (view, _), (cheat, _) = config.curves()
    by_point = {(row["curve"], row["budget"]): row for row in curve.rows}
    out = []
    for budget in config.budgets:
        seeing, knowing = by_point[(view, budget)], by_point[(cheat, budget)]
        gap, (low, high) = curve.tournament.ratings.difference(knowing["label"], seeing["label"])
        out.append({
            "budget": budget, "view": seeing["label"], "view_rating": seeing["rating"],
            "view_ci_low": seeing["ci_low"], "view_ci_high": seeing["ci_high"],
            "cheat": knowing["label"], "cheat_rating": knowing["rating"],
            "cheat_ci_low": knowing["ci_low"], "cheat_ci_high": knowing["ci_high"],
            "gap": round(gap, 1), "gap_ci_low": round(low, 1), "gap_ci_high": round(high, 1),
            "view_seconds_per_decision": seeing["seconds_per_decision"],
            "cheat_seconds_per_decision": knowing["seconds_per_decision"],
        })
    return out


def _csv(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: "" if value is None else value for key, value in row.items()})
    return out.getvalue()


def budget_text(config: CurveConfig) -> str:
    return "ms per decision" if config.by == "time" else "iterations per decision"


def markdown(curve: CurveResult, extra: list[dict] | None = None) -> str:
    """``<kind>.md``: the settings, the plot and the table."""
    config, result = curve.config, curve.tournament
    title = "Strength against budget" if config.kind == "budget" else "The value of information"
    out = [
        f"# {title}: {config.game}",
        "",
        f"![{config.kind}]({config.kind}.png)",
        "",
        f"- {result.ratings.groups} duplicate groups (the entries' {len(result.config.tables())} tables "
        f"in turn), {result.games} games, unit `{config.unit}`, "
        f"seed {config.seed}, options {dict(config.options) or 'default'}",
        f"- budgets ({budget_text(config)}): {', '.join(f'{b:g}' for b in config.budgets)}",
        f"- curves: {', '.join(f'`{spec}`' for _, spec in config.curves())}; opponents: "
        f"{', '.join(f'`{spec}`' for spec in config.opponents) or 'none'}",
        "- rating: Elo scale (mean 1500) of every entry in one tournament, 95% profile-likelihood "
        "intervals over duplicate groups; seconds per decision measured in the games",
        "",
    ]
    if extra is not None:
        out += ["| budget | sees its view | sees the deal | gap (Elo) | 95% CI |", "|---|---|---|---|---|"]
        for gap in extra:
            out.append(f"| {gap['budget']:g} | {gap['view_rating']:.0f} [{gap['view_ci_low']:.0f}, "
                       f"{gap['view_ci_high']:.0f}] | {gap['cheat_rating']:.0f} [{gap['cheat_ci_low']:.0f}, "
                       f"{gap['cheat_ci_high']:.0f}] | {gap['gap']:+.0f} | [{gap['gap_ci_low']:+.0f}, "
                       f"{gap['gap_ci_high']:+.0f}] |")
        out.append("")
    out += ["| entry | budget | rating | 95% CI | score | ms per decision |", "|---|---|---|---|---|---|"]
    for row in curve.rows:
        budget = "-" if row["budget"] is None else f"{row['budget']:g}"
        score = "-" if row["score"] is None else f"{row['score']:.3f}"
        ms = "-" if row["seconds_per_decision"] is None else f"{1000 * row['seconds_per_decision']:.2f}"
        out.append(f"| `{row['label']}` | {budget} | {row['rating']:.0f} | [{row['ci_low']:.0f}, "
                   f"{row['ci_high']:.0f}] | {score} | {ms} |")
    return "\n".join(out) + "\n"


def format_text(curve: CurveResult, extra: list[dict] | None = None) -> str:
    """The result as aligned text for the terminal."""
    config = curve.config
    lines = [f"{config.game}: {config.kind}, {curve.tournament.ratings.groups} duplicate groups, "
             f"{curve.tournament.games} games, seed {config.seed}; Elo with 95% CI"]
    rows = [("entry", "budget", "rating", "95% CI", "ms/decision")]
    for row in curve.rows:
        rows.append((row["label"], "-" if row["budget"] is None else f"{row['budget']:g}",
                     f"{row['rating']:.0f}", f"[{row['ci_low']:.0f}, {row['ci_high']:.0f}]",
                     "-" if row["seconds_per_decision"] is None
                     else f"{1000 * row['seconds_per_decision']:.2f}"))
    if extra is not None:
        for gap in extra:
            lines.append(f"  budget {gap['budget']:g}: the deal is worth {gap['gap']:+.0f} Elo "
                         f"[{gap['gap_ci_low']:+.0f}, {gap['gap_ci_high']:+.0f}]")
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines + format_forfeits(curve.tournament))
