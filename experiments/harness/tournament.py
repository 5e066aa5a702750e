"""Tournaments: agents ranked by duplicate deals, with ratings, intervals and a results folder.

A tournament plays ``deals`` duplicate groups in one game (see
:mod:`.seating` for who sits where and :mod:`.runner` for how a game is
played and scored), appends every finished game to its results folder
(:mod:`.results`), and ranks the agents with Bradley-Terry / Plackett-Luce
ratings on the Elo scale (:mod:`.ratings`).

>>> config = TournamentConfig("coins", ("random", "heuristic"), deals=4, seed=1, bootstrap=50)
>>> result = run_tournament(config, jobs=1, progress=False, save=False)
>>> [row.agent for row in result.ratings.ranking]
['heuristic', 'random']

For tuning, :func:`evaluate` scores one candidate spec against opponents on
duplicate groups, and :func:`~.sprt.run_sprt` (re-exported here) decides a
head-to-head question sequentially.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ...agents.external import check_fingerprints, keep_stderr_in
from ...agents.plugins import load_plugins
from ...engine import registry
from ...errors import SpecError
from ...safe_files import SafeFileError
from .config import TournamentConfig
from .defaults import DEFAULT_MOVE_TIME, default_results_folder
from .plots import import_in_background
from .ratings import Ratings, groups_from_lines, rate
from .results import FAULTS_LOG, FaultLog, ResultsFolder
from .runner import (
    FAULT_TRACE,
    ExperimentError,
    GameSetup,
    game_info,
    hand_on_fault_traces,
    run_games,
    start_workers,
    validate_setup,
    warm_up,
)
from .seating import rotations, schedule
from .sprt import SprtResult, run_sprt

__all__ = [
    "DEFAULT_MOVE_TIME",
    "Evaluation",
    "SprtResult",
    "TournamentConfig",
    "TournamentResult",
    "evaluate",
    "run_sprt",
    "run_tournament",
]


def points_meaning(game: str) -> str:
    """What a deal's points (docs/records.md ``points``) measure in ``game``, for tables."""
    return registry.game_info(game).points


# ------------------------------------------------------------------ evaluate


@dataclass(frozen=True)
class Evaluation:
    """A candidate's result over duplicate groups.

    ``mean``: mean over groups of the candidate's mean normalised reward
    (in [0, 1]); ``stderr``: its standard error (0 for fewer than two
    groups); ``scores``: the per-group values in group order; ``forfeits``:
    games lost by a fault, the candidate's and its opponents', and
    ``forfeit_reason`` the candidate's first.
    """

    mean: float
    stderr: float
    groups: int
    scores: list = field(default_factory=list)
    forfeits: tuple[int, int] = (0, 0)
    forfeit_reason: str | None = None


def candidate_tables(n_seats: int, team_game: bool, team_of, n_opponents: int) -> list[tuple[int, ...]]:
    """Tables with the candidate (agent 0) in one seat, or as one partnership.

    Opponents are agents ``1 .. n_opponents``. Individual games fill the
    other seats with the opponents in turn, starting one further along in each
    group; team games pit the candidate's partnership against each opponent's
    in turn.
    """
    tables = []
    for g in range(n_opponents):
        if team_game:
            tables.append(tuple(0 if team_of(s) == 0 else 1 + g for s in range(n_seats)))
        else:
            tables.append((0, *(1 + (g + j) % n_opponents for j in range(n_seats - 1))))
    return tables


def evaluate(game: str, options: dict, candidate: str, opponents: list[str], groups: int, seed: int,
             jobs: int = 1, unit: str = "deal", *, move_time: float | None = None,
             game_time: float | None = None, backend: str = "loky",
             scheduler: str | None = None, on_fault=None) -> Evaluation:
    """Score ``candidate`` over ``groups`` duplicate groups against ``opponents``.

    Group ``g`` deals from ``derive_seed(seed, g)``, so two candidates
    evaluated with the same seed meet the same cards (common random numbers).
    A forfeit scores 0 for the candidate's seats in that game; ``on_fault(line,
    trace)`` gets the traceback of each game lost by an agent's own exception.

    :raises SlagwerkError: for a bad spec, option, unit or count, before any game runs.
    """
    if not opponents:
        raise SpecError("evaluate needs at least one opponent spec")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ExperimentError(f"groups must be a positive integer, not {groups!r}")
    setup = GameSetup(game, tuple(sorted(dict(options or {}).items())),
                      (candidate, *opponents), unit, int(seed), move_time, game_time=game_time,
                      fault_traces=on_fault is not None)
    validate_setup(setup, unique_labels=False)
    info = game_info(setup)
    tables = candidate_tables(info.n_players, info.team_game, info.team_of, len(opponents))
    slots = schedule(tables, groups)
    lines = list(run_games(setup, slots, jobs=jobs, backend=backend, scheduler=scheduler,
                           chunk=len(rotations(tables[0]))))
    hand_on_fault_traces(lines, on_fault)
    table = groups_from_lines(lines, len(setup.specs))
    scores = [float(v) for v in table.score[:, 0]]
    mean = float(np.mean(scores))
    stderr = float(np.std(scores, ddof=1) / math.sqrt(len(scores))) if len(scores) > 1 else 0.0
    # by the table's agent index, as the SPRT counts: an opponent may share the candidate's label
    faulty = [line for line in lines if line["forfeit"]]
    mine = [line["forfeit"] for line in faulty if line["table"][line["forfeit"]["seat"]] == 0]
    return Evaluation(mean, stderr, len(scores), scores, (len(mine), len(faulty) - len(mine)),
                      mine[0]["error"] if mine else None)


# ------------------------------------------------------------------ tournaments


@dataclass(frozen=True)
class TournamentResult:
    """A finished tournament: its settings, ratings, game count, forfeits and folder."""

    config: TournamentConfig
    ratings: Ratings
    games: int
    forfeits: list
    seconds: float
    folder: Path | None

    def ranking_json(self) -> dict:
        """The ``--json`` document: game, unit, groups and the ranking, best first."""
        return {
            "game": self.config.game,
            "unit": self.config.unit,
            "groups": self.ratings.groups,
            "ranking": [row.as_json() for row in self.ratings.ranking],
        }

    def summary_json(self) -> dict:
        """``summary.json``: the ranking plus head-to-head, forfeits and settings."""
        labels = self.ratings.labels
        summary = self.ranking_json()
        summary["score"] = points_meaning(self.config.game)
        summary["head_to_head"] = {
            labels[i]: {
                labels[j]: dict(zip(("won", "drawn", "lost"), self.ratings.head_to_head[i][j]))
                for j in range(len(labels)) if j != i and sum(self.ratings.head_to_head[i][j])
            }
            for i in range(len(labels))
        }
        summary["games"] = self.games
        summary["forfeits"] = self.forfeits
        summary["seconds"] = round(self.seconds, 2)
        summary["config"] = self.config.dump()
        return summary

    def table(self) -> str:
        """The ranking and head-to-head table as text (also the Markdown summary's body)."""
        return format_ranking(self)


def _default_folder(game: str) -> Path:
    return default_results_folder(f"tournament-{game}")


def run_tournament(config: TournamentConfig | None = None, results=None, *, jobs: int = -1,
                   backend: str = "loky", scheduler: str | None = None, resume: bool = False,
                   progress: bool = True, save: bool = True, force: bool = False,
                   plugins: tuple[str, ...] = ()) -> TournamentResult:
    """Play (or, with ``resume``, finish) a tournament and rank its agents.

    ``plugins`` are modules that register agents, imported by every worker;
    they are not stored in the folder (a resumed run names them again).

    ``results`` is the results folder (default ``slagwerk-results/<game>-<time>``;
    with ``resume`` the folder to continue, whose stored settings then apply
    and ``config`` may be ``None``). A new tournament needs an empty or new
    folder, unless ``force``, which replaces an earlier run's files in it.
    ``save=False`` keeps nothing on disk. ``progress`` shows a tqdm bar with
    games per second and the current leader (by mean reward so far).

    On resuming, every line of the folder's ``games.jsonl`` is checked
    against its ``config.json`` (see :meth:`TournamentConfig.expected_lines`)
    and a damaged tail is cut off.

    :raises SlagwerkError: for bad settings or specs, or a folder that
        disagrees with itself, before any game runs; for a file that cannot
        be written (one line naming the cause and the path; every game
        already written stays in the log).
    """
    plugins = load_plugins(plugins)  # before any spec is checked: they register agents
    folder = None
    log = None
    done: dict[int, dict] = {}
    if resume:
        if results is None:
            raise ExperimentError("--resume needs the results folder of the tournament to continue")
        folder = ResultsFolder.open(results)
        config = TournamentConfig.load(folder.config(), folder.config_path)
        check_fingerprints(dict(config.bots), config.agents, folder.path)  # --bot given again, unchanged
        config.validate()
    else:
        if config is None:
            raise ExperimentError("run_tournament needs a TournamentConfig (or resume=True)")
        config.validate()
        if save:
            folder = ResultsFolder.create(results or _default_folder(config.game), config.dump(),
                                          force=force)
    setup = config.setup()  # with every plugin and external bot of this process
    setup = replace(setup, plugins=tuple(dict.fromkeys((*setup.plugins, *plugins))))
    faults = None
    if folder is not None:  # bots' standard error and agents' tracebacks are kept with the results
        setup = replace(setup, bots=keep_stderr_in(setup.bots, folder.path), fault_traces=True)
        faults = FaultLog(folder.path)
    labels = setup.labels
    all_slots = schedule(config.tables(), config.deals)
    if folder is not None:
        log = folder.log()  # locked before the log is read or repaired
        try:
            done = folder.load_games(config.expected_lines(all_slots), log, repair=resume)
        except BaseException:
            log.close()
            raise
    todo = [slot for slot in all_slots if slot.index not in done]
    start = time.perf_counter()
    leader = _Leader(labels)
    for line in done.values():
        leader.add(line)
    bar = None
    run = config.run_id()
    try:  # from here on the log is closed (its lock released) however the run ends
        if todo:  # compiling, workers and each agent's first decision before the bar's clock starts
            if jobs == 1:  # agents play in this process
                warm_up(setup)
            start_workers(setup, jobs, backend)
            if jobs != 1 and folder is not None:  # waiting for workers: load the report's plotting meanwhile
                import_in_background()
        bar = _progress_bar(config, len(all_slots), len(done), progress)
        last_shown = 0.0
        for line in run_games(setup, todo, jobs=jobs, backend=backend, scheduler=scheduler):
            line["run"] = run
            trace = line.pop(FAULT_TRACE, None)
            if log is not None:
                try:
                    ResultsFolder.append_game(log, line)
                except SafeFileError as err:
                    raise SafeFileError(f"{err}; every game finished before is kept: continue with "
                                        f"--resume {folder.path}") from None
            if trace is not None and faults is not None:
                faults.add(line, trace)
            done[line["index"]] = line
            leader.add(line)
            if bar is not None:
                bar.update(1)
                now = time.perf_counter()
                if now - last_shown > 0.5:
                    bar.set_postfix_str(leader.text(), refresh=False)
                    last_shown = now
    finally:
        if log is not None:
            log.close()
        if faults is not None:
            faults.close()
        if bar is not None:
            bar.set_postfix_str(leader.text(), refresh=False)
            bar.close()
    lines = [done[slot.index] for slot in all_slots]
    ratings = rate(groups_from_lines(lines, len(labels)), labels, config.bootstrap, config.seed)
    forfeits = [
        {"index": line["index"], **line["forfeit"]} for line in lines if line.get("forfeit")
    ]
    result = TournamentResult(config, ratings, len(lines), forfeits,
                              time.perf_counter() - start, folder.path if folder else None)
    if folder is not None:
        folder.write_summary(result.summary_json(), format_markdown(result))
    return result


class _Leader:
    """Running mean reward per agent, for the progress bar."""

    def __init__(self, labels):
        self.labels = labels
        self.total = np.zeros(len(labels))
        self.seats = np.zeros(len(labels))

    def add(self, line):
        for seat, agent in enumerate(line["table"]):
            self.total[agent] += line["reward"][seat]
            self.seats[agent] += 1

    def text(self) -> str:
        if not self.seats.any():
            return "leader by mean reward: -"
        mean = np.where(self.seats > 0, self.total / np.maximum(self.seats, 1), -1.0)
        best = int(np.argmax(mean))
        return f"leader by mean reward: {self.labels[best]} ({mean[best]:.3f})"


def _progress_bar(config: TournamentConfig, total: int, initial: int, progress: bool):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", desc=config.game, dynamic_ncols=True,
                leave=True)


# ------------------------------------------------------------------ reports


def format_ranking(result: TournamentResult) -> str:
    """The ranking table and head-to-head records as aligned text."""
    config, ratings = result.config, result.ratings
    unit_text = "deal: each game is one deal" if config.unit == "deal" else "match: each game is a match"
    lines = [
        f"{config.game}: {ratings.groups} duplicate groups, {result.games} games "
        f"(unit {unit_text}), seed {config.seed}",
        f"rating: Elo from who finished ahead in each duplicate group (by mean reward), "
        f"Bradley-Terry/Plackett-Luce, 95% profile-likelihood CI; score: {points_meaning(config.game)}",
        "(rating counts results, score counts points: the two may order agents differently; "
        "'separated': the rating's interval misses the next agent's)",
    ]
    rows = [("#", "agent", "rating", "95% CI", "separated", "score", "95% CI")]
    for rank, (row, below) in enumerate(zip(ratings.ranking, separated_from_next(ratings)), start=1):
        score = "-" if row.mean_score is None else f"{row.mean_score:.3f}"
        score_ci = "-" if row.mean_score_ci95 is None else (
            f"[{row.mean_score_ci95[0]:.3f}, {row.mean_score_ci95[1]:.3f}]")
        rows.append((str(rank), row.agent, f"{row.rating:.1f}",
                     row.interval_text(), below, score, score_ci))
    lines += _aligned(rows)
    labels, rows = head_to_head_cells(ratings)
    h2h = [("won-drawn-lost", *labels), *rows]
    lines.append("head-to-head (duplicate groups won-drawn-lost, row against column; the sum: groups the "
                 "pair met):")
    lines += _aligned(h2h)
    return "\n".join(lines + format_forfeits(result))


def separated_from_next(ratings) -> list[str]:
    """Per rank, whether its 95% interval misses the next agent's: ``"yes"``, ``"no"`` (the two
    cannot be told apart on these groups), or ``""`` for the last."""
    ranking = ratings.ranking
    pairs = zip(ranking, ranking[1:])
    return [("yes" if upper.ci95[0] > lower.ci95[1] else "no") for upper, lower in pairs] + [""]


def head_to_head_cells(ratings) -> tuple[list[str], list[tuple[str, ...]]]:
    """The agents best first, and per agent its row: its label, then ``won-drawn-lost`` in the
    groups it met each other agent (empty against itself, ``-`` where they never met)."""
    order = [ratings.labels.index(row.agent) for row in ratings.ranking]
    rows = []
    for i in order:
        cells = []
        for j in order:
            won, drawn, lost = ratings.head_to_head[i][j]
            cells.append("" if i == j else f"{won}-{drawn}-{lost}" if won + drawn + lost else "-")
        rows.append((ratings.labels[i], *cells))
    return [ratings.labels[j] for j in order], rows


def head_to_head_markdown(ratings) -> list[str]:
    """:func:`head_to_head_cells` as the lines of a Markdown table."""
    labels, rows = head_to_head_cells(ratings)
    return (["| | " + " | ".join(f"`{label}`" for label in labels) + " |", "|---" * (len(labels) + 1) + "|"]
            + [f"| `{label}` | " + " | ".join(cells) + " |" for label, *cells in rows])


def format_forfeits(result: TournamentResult) -> list[str]:
    """The games lost by forfeit (the first ten) and where the tracebacks are, as text lines."""
    if not result.forfeits:
        return []
    lines = [f"forfeits: {len(result.forfeits)}"]
    for fault in result.forfeits[:10]:
        lines.append(f"  game {fault['index']}: {fault['agent']} (seat {fault['seat']}): {fault['error']}")
    if result.folder is not None and (Path(result.folder) / FAULTS_LOG).is_file():
        lines.append(f"  the agents' tracebacks: {Path(result.folder) / FAULTS_LOG}")
    return lines


def _aligned(rows) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def format_markdown(result: TournamentResult) -> str:
    """``summary.md``: settings, ranking, head-to-head and forfeits in Markdown."""
    config, ratings = result.config, result.ratings
    out = [
        f"# Tournament: {config.game}",
        "",
        f"- agents: {', '.join(f'`{a}`' for a in config.agents)}",
        f"- {ratings.groups} duplicate groups, {result.games} games, unit `{config.unit}`, "
        f"seed {config.seed}, options {dict(config.options) or 'default'}",
        "- rating: Elo scale (mean 1500), Bradley-Terry / Plackett-Luce fitted on the ranking "
        "of each duplicate group; 95% intervals from a bootstrap over groups",
        f"- score: {points_meaning(config.game)}, with a bootstrap 95% interval",
        "",
        "- separated: the rating's interval misses the next agent's; rating counts results and "
        "score counts points, so the two may order agents differently",
        "",
        "| # | agent | rating | 95% CI | separated from the next | score | 95% CI |",
        "|---|---|---|---|---|---|---|",
    ]
    for rank, (row, below) in enumerate(zip(ratings.ranking, separated_from_next(ratings)), start=1):
        score = "-" if row.mean_score is None else f"{row.mean_score:.3f}"
        score_ci = "-" if row.mean_score_ci95 is None else (
            f"[{row.mean_score_ci95[0]:.3f}, {row.mean_score_ci95[1]:.3f}]")
        out.append(f"| {rank} | `{row.agent}` | {row.rating:.1f} | "
                   f"{row.interval_text()} | {below} | {score} | {score_ci} |")
    out += ["", "## Head to head (groups won-drawn-lost, row against column)", "",
            *head_to_head_markdown(ratings)]
    if result.forfeits:
        out += ["", f"## Forfeits ({len(result.forfeits)})", ""]
        out += [f"- game {f['index']}: `{f['agent']}` (seat {f['seat']}): {f['error']}"
                for f in result.forfeits]
    return "\n".join(out) + "\n"
