"""A training run's learning curve: its snapshots rated on duplicate deals by the tournament harness.

Every ``snapshot_every`` rounds the run keeps its network in ``snapshots/`` (a model file each,
``round-000050.npz`` after 50 rounds). When the training ends, up to ``curve_points`` of them,
evenly spread and always the last, meet the fixed ``curve_opponents`` (the heuristic by default)
and each other in one tournament of ``curve_groups`` duplicate groups in ``curve/`` (an ordinary
tournament folder: ``slagwerk report`` reads it, and a stopped run resumes it). All get Elo
ratings on one scale with 95% profile-likelihood intervals; ``curve.csv`` and ``curve.png``
show the snapshots' ratings against the deals they were trained on, with the opponents as lines.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

from ...agents.model import Model, save_model
from ...errors import SlagwerkError
from ..harness.results import ResultsFolder
from ..harness.tournament import TournamentConfig, TournamentResult, run_tournament

SNAPSHOTS = "snapshots"
CURVE_FOLDER = "curve"
CURVE_CSV = "curve.csv"
CURVE_PNG = "curve.png"
CSV_FIELDS = ("entry", "rounds", "deals", "minutes", "rating", "ci_low", "ci_high")


def snapshot_path(folder: Path, rounds: int) -> Path:
    return Path(folder) / SNAPSHOTS / f"round-{rounds:06d}.npz"


def save_snapshot(folder: Path, rounds: int, model: Model) -> None:
    """Keep the network after ``rounds`` rounds (written whole: a kill leaves it or nothing)."""
    (Path(folder) / SNAPSHOTS).mkdir(exist_ok=True)
    save_model(model, snapshot_path(folder, rounds))


def forget_snapshots(folder: Path) -> None:
    """Remove an earlier run's snapshots and curve tournament from ``folder`` (a new run's)."""
    for name in (SNAPSHOTS, CURVE_FOLDER):
        path = Path(folder) / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)


def snapshot_rounds(folder: Path, finished: int) -> list[int]:
    """The rounds of the snapshots kept, up to ``finished`` rounds (a later one is a stopped
    round's, played again on resuming)."""
    found = []
    for path in (Path(folder) / SNAPSHOTS).glob("round-*.npz"):
        number = path.stem.removeprefix("round-")
        if number.isascii() and number.isdigit() and 0 < int(number) <= finished:
            found.append(int(number))
    return sorted(found)


def chosen(available: list[int], points: int) -> list[int]:
    """Up to ``points`` of ``available`` (ascending), evenly spread, always with the last.

    >>> chosen([25, 50, 75, 100, 125, 150, 175, 200], 4)
    [50, 100, 150, 200]
    >>> chosen([25, 50], 4)
    [25, 50]
    """
    if len(available) <= points:
        return list(available)
    step = len(available) / points
    return [available[len(available) - 1 - int(k * step)] for k in range(points)][::-1]


def entry_label(rounds: int) -> str:
    return f"round-{rounds}"


def curve_tournament(folder: Path, config, rounds: list[int]) -> TournamentConfig:
    """The tournament that rates the snapshots after ``rounds`` against the run's opponents."""
    specs = tuple(f"net:model={snapshot_path(folder, r)},label={entry_label(r)}" for r in rounds)
    return TournamentConfig(config.game, (*specs, *config.curve_opponents), deals=config.curve_groups,
                            seed=config.seed, options=dict(config.options))


def rate_snapshots(folder: Path, config, lines: list[dict], *, jobs: int = 1, backend: str = "loky",
                   scheduler: str | None = None, progress: bool = True) -> list[dict] | None:
    """Rate the run's chosen snapshots (see the module doc) and write ``curve.csv`` and
    ``curve.png``; the rows written, or None when the run keeps no curve or no snapshot."""
    if not config.curve_points:
        return None
    rounds = chosen(snapshot_rounds(folder, len(lines)), config.curve_points)
    if not rounds:
        return None
    wanted = curve_tournament(folder, config, rounds)
    target = Path(folder) / CURVE_FOLDER
    stored = _stored_settings(target)
    resume = stored is not None and stored == json.loads(json.dumps(wanted.dump()))
    result = run_tournament(None if resume else wanted, target, resume=resume, force=not resume, jobs=jobs,
                            backend=backend, scheduler=scheduler, progress=progress)
    rows = curve_rows(result, rounds, lines, config.curve_opponents)
    write_curve(folder, rows, config)
    return rows


def _stored_settings(target: Path) -> dict | None:
    try:
        return ResultsFolder.open(target).config()
    except SlagwerkError:  # no curve yet, or one that cannot be read: it is played again
        return None


def curve_rows(result: TournamentResult, rounds: list[int], lines: list[dict], opponents) -> list[dict]:
    """A row per snapshot (its rounds, deals, minutes of training) and per opponent (rounds empty)."""
    rating = {row.agent: row for row in result.ratings.ranking}
    rows = []
    for r in rounds:
        line = lines[r - 1]
        rows.append(_row(rating[entry_label(r)], r, sum(x["deals"] for x in lines[:r]),
                         round(line["total_seconds"] / 60.0, 2)))
    for label in dict.fromkeys(result.ratings.labels[len(rounds):]):
        rows.append(_row(rating[label], None, None, None))
    return rows


def _row(rating, rounds, deals, minutes) -> dict:
    return {"entry": rating.agent, "rounds": rounds, "deals": deals, "minutes": minutes,
            "rating": round(rating.rating, 1), "ci_low": round(rating.ci95[0], 1),
            "ci_high": round(rating.ci95[1], 1)}


def write_curve(folder: Path, rows: list[dict], config) -> None:
    from ...safe_files import replace_file
    from ..harness import plots

    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    replace_file(folder, CURVE_CSV, text.getvalue().encode("utf-8"))
    replace_file(folder, CURVE_PNG, learning_curve_figure(rows, config, plots))


def learning_curve_figure(rows: list[dict], config, plots) -> bytes:
    """The snapshots' ratings against deals trained, with 95% bands; the opponents as lines."""
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.8))
    snapshots = [r for r in rows if r["rounds"] is not None]
    x = [r["deals"] for r in snapshots]
    ax.plot(x, [r["rating"] for r in snapshots], "-o", color="tab:blue", label="net (snapshot)")
    ax.fill_between(x, [r["ci_low"] for r in snapshots], [r["ci_high"] for r in snapshots],
                    color="tab:blue", alpha=0.18, linewidth=0)
    opponents = [r for r in rows if r["rounds"] is None]
    for row, colour in zip(opponents, plots.colours(len(opponents) + 1)[1:]):
        ax.axhline(row["rating"], color=colour, linestyle="--", linewidth=1,
                   label=f"{row['entry']} (opponent)")
        ax.axhspan(row["ci_low"], row["ci_high"], color=colour, alpha=0.08, linewidth=0)
    ax.set_xlabel("deals of self-play trained on")
    ax.set_ylabel("rating (Elo scale, 95% interval)")
    ax.set_title(f"{config.game}: learning curve ({config.curve_groups} duplicate groups, "
                 f"seed {config.seed})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return plots.image_bytes(fig)["png"]
