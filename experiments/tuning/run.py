"""A tuning run: optimise an agent's parameters on duplicate deals, then confirm by SPRT.

The objective of a setting is :func:`~slagwerk.experiments.harness.tournament.evaluate`:
the agent's mean normalised reward over ``groups`` duplicate groups against
the opponent pool. SPSA (:mod:`.spsa`) tunes continuous parameters, the
Gaussian-process search (:mod:`.gp`) a few integer ones. Every evaluation is
appended to the results folder as it finishes (:mod:`.folder`); the
recommendation is written to ``best.json`` and then played against the
agent's defaults with :func:`~slagwerk.experiments.harness.sprt.run_sprt`.

>>> config = TuneConfig("coins", "ismcts", ("c=0.1:3.0", "iterations=20"), ("heuristic",), budget=600)
>>> plan = config.plan()
>>> plan.method, plan.groups, plan.games, plan.evaluations
('spsa', 4, 12, 50)
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...agents.external import (
    check_fingerprints,
    install_all,
    keep_stderr_in,
    registered_bots,
)
from ...agents.warmup import ensure_compiled
from ...engine.bits import derive_seed
from ...safe_files import SafeFileError
from ..harness.defaults import default_results_folder
from ..harness.results import FaultLog, run_id
from ..harness.runner import ExperimentError
from ..harness.sprt import SprtResult, run_sprt
from ..harness.tournament import evaluate
from . import folder as files
from .config import Plan, TuneConfig
from .folder import TuningFolder
from .gp import gp_maximize
from .spsa import spsa_maximize

GP_AXIS_VALUES = 64
"""At most this many values per parameter on the GP's grid."""

# Seed streams: one per use, so that changing one never shifts another.
_OPTIMISER_STREAM = 0x7E57
_EVALUATION_STREAM = 0xE7A1
_CONFIRMATION_STREAM = 0xC0F1


@dataclass
class TuneResult:
    """A finished run: the recommendation, the trajectory and the confirmation."""

    config: TuneConfig
    plan: Plan
    tuned: dict
    spec: str
    default_spec: str
    estimate: str
    trajectory: list[dict] = field(default_factory=list)
    evaluations: int = 0
    games: int = 0
    seconds: float = 0.0
    confirmation: SprtResult | None = None
    folder: Path | None = None
    plotted: bool = False
    forfeits: tuple[int, int] = (0, 0)
    forfeit_reason: str | None = None

    def best_json(self) -> dict:
        """``best.json``: what ``--agents ismcts:@best.json`` loads, and where it came from."""
        space = self.plan.space
        data = {
            "agent": self.config.agent,
            "params": {**space.fixed, **self.tuned},
            "spec": self.spec,
            "game": self.config.game,
            "method": self.plan.method,
            "estimate": self.estimate,
            "evaluations": self.evaluations,
            "games": self.games,
            "forfeits": {"candidate": self.forfeits[0], "opponents": self.forfeits[1],
                         "first_reason": self.forfeit_reason},
        }
        if self.confirmation is not None:
            data["confirmation"] = {"against": self.default_spec, **self.confirmation.as_json(),
                                    "conclusion": verdict_text(self)}
        return data

    def summary_json(self) -> dict:
        return {"config": self.config.dump(), "plan": self.plan.as_json(), "best": self.best_json(),
                "seconds": round(self.seconds, 2), "trajectory": self.trajectory}


def default_folder(config: TuneConfig) -> Path:
    """The results folder of a run given none: ``slagwerk-results/tune-<game>-<agent>-<time>``."""
    return default_results_folder(f"tune-{config.game}-{config.agent}")


class _Ledger:
    """The objective as the optimisers see it: logged evaluations replayed, new ones played and logged."""

    def __init__(self, config: TuneConfig, plan: Plan, done: list[dict], log, bar, jobs: int,
                 backend: str, scheduler: str | None, path: Path | None, faults: FaultLog | None):
        self.config, self.plan, self.done = config, plan, done
        self.log, self.bar, self.jobs, self.faults = log, bar, jobs, faults
        self.backend, self.scheduler, self.path = backend, scheduler, path
        self.count = 0
        self.run = config.run_id()

    def __call__(self, unit: np.ndarray, key: int, **extra) -> tuple[float, float]:
        space = self.plan.space
        params = space.params(unit)
        index = self.count
        self.count += 1
        if index < len(self.done):
            line = self.done[index]
            if line.get("params") != params or line.get("key") != key:
                raise ExperimentError(
                    f"{self.path}: evaluation {index} in the log is of {line.get('params')} (key "
                    f"{line.get('key')}), but the resumed run asks for {params} (key {key}): the "
                    f"log belongs to another run"
                )
            return float(line["score"]), float(line["stderr"])
        config = self.config
        start = time.perf_counter()
        traces: list[tuple[dict, str]] = []  # written after the evaluation's line: a resume replays it
        result = evaluate(config.game, dict(config.options), space.spec(params), list(config.opponents),
                          self.plan.groups, derive_seed(config.seed, _EVALUATION_STREAM, key),
                          jobs=self.jobs, unit=config.unit, move_time=config.move_time,
                          game_time=config.game_time, backend=self.backend, scheduler=self.scheduler,
                          on_fault=None if self.faults is None else lambda *fault: traces.append(fault))
        line = {"index": index, "key": key, "params": params,
                "unit": [round(float(u), 6) for u in unit], "groups": result.groups,
                "games": self.plan.games, "score": result.mean, "stderr": result.stderr,
                "forfeits": list(result.forfeits), "forfeit_reason": result.forfeit_reason,
                "seconds": round(time.perf_counter() - start, 3), **extra, "run": self.run}
        if self.log is not None:
            try:
                TuningFolder.append(self.log, line)
            except SafeFileError as err:
                raise SafeFileError(f"{err}; every evaluation finished before is kept: continue with "
                                    f"--resume {self.path.parent}") from None
        if self.faults is not None:
            self.faults.add_all(traces, f"evaluation {index}")
        self.done.append(line)
        if self.bar is not None:
            self.bar.update(self.plan.games)
            self.bar.set_postfix_str(", ".join(f"{k}={v}" for k, v in params.items()), refresh=False)
        return result.mean, result.stderr


def run_tuning(config: TuneConfig | None = None, results=None, *, jobs: int = 1, backend: str = "loky",
               scheduler: str | None = None, resume: bool = False, progress: bool = True,
               save: bool = True, force: bool = False, on_confirm_group=None) -> TuneResult:
    """Tune (or, with ``resume``, finish tuning) and confirm by SPRT.

    ``results`` is the results folder (default
    ``slagwerk-results/tune-<game>-<agent>-<time>``; with ``resume`` the
    folder to continue, whose stored settings then apply, and whose log is
    checked line by line against them). A new run needs an empty or new
    folder, unless ``force``, which replaces an earlier run's files in it.
    ``save=False`` keeps nothing on disk. ``on_confirm_group(result)`` sees
    the running SPRT.

    :raises SlagwerkError: for bad settings, specs, ranges or a budget too
        small for the method, or a folder that disagrees with itself, before
        any game runs; for a file that cannot be written (one line naming the
        cause and the path; every evaluation already written stays in the log).
    """
    folder = None
    log = None
    faults = None
    done: list[dict] = []
    if resume:
        if results is None:
            raise ExperimentError("--resume needs the results folder of the run to continue")
        folder = TuningFolder.open(results)
        config = TuneConfig.load(folder.config(), folder.config_path)
        check_fingerprints(dict(folder.config().get("bots") or {}), [config.agent, *config.opponents],
                           folder.path)  # the same --bot definitions given again
        plan = config.plan()
    else:
        if config is None:
            raise ExperimentError("run_tuning needs a TuneConfig (or resume=True)")
        plan = config.plan()
        if save:
            folder = TuningFolder.create(results or default_folder(config), config.dump(), force=force)
    if folder is not None:
        install_all(keep_stderr_in(registered_bots(), folder.path))  # bots' stderr kept with the results
        faults = FaultLog(folder.path)  # and the agents' tracebacks
        log = folder.log()  # locked before the log is read or repaired
        try:
            expected = {"run": config.run_id(), "groups": plan.groups, "games": plan.games}
            done = folder.load_evaluations(expected, plan.evaluations, log, repair=resume)
        except BaseException:
            log.close()
            raise
    bar = None
    try:  # from here on the log is closed (its lock released) however the run ends
        ensure_compiled([config.game])  # before the bar's clock starts
        start = time.perf_counter()
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=plan.evaluations * plan.games,
                       initial=min(len(done), plan.evaluations) * plan.games, unit="game",
                       desc=f"tune {config.game} {config.agent} ({plan.method})", dynamic_ncols=True,
                       leave=True)
        ledger = _Ledger(config, plan, done, log, bar, jobs, backend, scheduler,
                         folder.path / files.EVALUATIONS if folder else None, faults)
        if plan.method == "spsa":
            result = _run_spsa(config, plan, ledger)
        else:
            result = _run_gp(config, plan, ledger)
    finally:
        if log is not None:
            log.close()
        if bar is not None:
            bar.close()
        if faults is not None:
            faults.close()
    result.evaluations = plan.evaluations
    result.games = plan.evaluations * plan.games
    # (a log written before forfeits were counted has none to add)
    counted = [line.get("forfeits", [0, 0]) for line in ledger.done]
    result.forfeits = (sum(c[0] for c in counted), sum(c[1] for c in counted))
    result.forfeit_reason = next((line["forfeit_reason"] for line in ledger.done
                                  if line.get("forfeit_reason")), None)
    if folder is not None:
        result.folder = folder.path
        folder.write(files.BEST, result.best_json())
        result.plotted = plot_trajectory(result, folder)
    if config.confirm:
        try:
            result.confirmation = _confirm(config, result, folder, jobs, backend, scheduler,
                                           on_confirm_group, faults)
        finally:
            if faults is not None:
                faults.close()
    result.seconds = time.perf_counter() - start
    if folder is not None:
        folder.write(files.BEST, result.best_json())
        folder.write(files.SUMMARY, result.summary_json())
    return result


def _run_spsa(config: TuneConfig, plan: Plan, ledger: _Ledger) -> TuneResult:
    space = plan.space
    trajectory: list[dict] = []

    def objective(unit, key):
        # Both points of an iteration share key k: the same deals and agent seeds.
        side = "+" if not trajectory or trajectory[-1]["iteration"] != key else "-"
        if side == "+":
            trajectory.append({"iteration": key})
        score, _ = ledger(unit, key, iteration=key, side=side)
        return score

    def on_step(step):
        row = trajectory[-1]
        row.update(games=(step.iteration + 1) * 2 * plan.games, params=space.params(step.theta),
                   score=round((step.y_plus + step.y_minus) / 2, 4), plus=round(step.y_plus, 4),
                   minus=round(step.y_minus, 4))

    outcome = spsa_maximize(objective, space.start(), plan.evaluations // 2,
                            derive_seed(config.seed, _OPTIMISER_STREAM), on_step=on_step)
    tuned = space.params(outcome.best)
    tail = [row["score"] for row in trajectory[len(trajectory) // 2:]]
    last = ", ".join(f"{k}={v}" for k, v in space.params(outcome.final).items())
    estimate = f"mean score {np.mean(tail):.3f} around the iterates of the second half; last iterate {last}"
    trajectory.append({"iteration": len(trajectory), "games": plan.evaluations * plan.games,
                       "params": space.params(outcome.final), "final": True})
    return TuneResult(config, plan, tuned, space.spec(tuned), space.spec(), estimate, trajectory)


def _run_gp(config: TuneConfig, plan: Plan, ledger: _Ledger) -> TuneResult:
    space = plan.space
    axes = [d.unit_values(GP_AXIS_VALUES) for d in space.dims]
    trajectory: list[dict] = []

    def objective(unit, key):
        return ledger(unit, key)

    def on_evaluation(ev):
        row = {"evaluation": ev.index, "games": (ev.index + 1) * plan.games,
               "params": space.params(ev.point), "score": round(ev.score, 4),
               "stderr": round(ev.stderr, 4)}
        if ev.recommended is not None:
            row["recommended"] = space.params(ev.recommended)
            row["predicted"] = round(ev.predicted, 4)
        trajectory.append(row)

    outcome = gp_maximize(objective, axes, plan.evaluations, derive_seed(config.seed, _OPTIMISER_STREAM),
                          start=space.start(), on_evaluation=on_evaluation)
    tuned = space.params(outcome.best)
    estimate = f"predicted score {outcome.predicted:.3f} +- {outcome.predicted_sd:.3f} (GP posterior)"
    return TuneResult(config, plan, tuned, space.spec(tuned), space.spec(), estimate, trajectory)


def _confirm(config, result, folder, jobs, backend, scheduler, on_group, faults) -> SprtResult | None:
    """The SPRT of the recommendation against the defaults (``None`` when they are the same)."""
    if result.spec == result.default_spec:
        return None
    stored = folder.read(files.CONFIRMATION) if folder is not None else None
    key = {"a": result.spec, "b": result.default_spec, "run": run_id(config.dump())}
    if stored is not None:
        where = folder.path / files.CONFIRMATION
        if not isinstance(stored, dict) or {k: stored.get(k) for k in key} != key:
            raise ExperimentError(f"{where} is not the confirmation of this run's recommendation "
                                  f"{result.spec!r} against {result.default_spec!r} with its settings: "
                                  f"remove it to play the SPRT again")
        try:
            return SprtResult.from_json(stored["result"])
        except (KeyError, TypeError, ValueError):
            raise ExperimentError(f"{where} holds no SPRT result: remove it to play the SPRT again") from None
    traces: list[tuple[dict, str]] = []  # written with confirmation.json: a resume replays the SPRT
    outcome = run_sprt(config.game, dict(config.options), result.spec, result.default_spec, config.elo0,
                       config.elo1, config.alpha, config.beta, config.max_groups,
                       confirmation_seed(config), jobs, config.unit,
                       move_time=config.move_time, game_time=config.game_time, backend=backend,
                       scheduler=scheduler, on_group=on_group,
                       on_fault=None if faults is None else lambda *fault: traces.append(fault))
    if folder is not None:
        folder.write(files.CONFIRMATION, {**key, "result": outcome.as_json()})
    if faults is not None:
        faults.add_all(traces, "confirmation")
    return outcome


def confirmation_seed(config: TuneConfig) -> int:
    """The seed of the confirmation SPRT (``slagwerk sprt --seed`` reproduces it)."""
    return derive_seed(config.seed, _CONFIRMATION_STREAM)


def verdict_text(result: TuneResult) -> str:
    """Whether the gain is real, in one sentence."""
    sprt = result.confirmation
    if sprt is None:
        if result.spec == result.default_spec:
            return "the recommendation is the agent's default setting: there is no gain to confirm"
        return "not confirmed (no SPRT was run)"
    elo = f"{sprt.elo:+.0f} Elo, 95% CI [{sprt.elo_ci95[0]:+.0f}, {sprt.elo_ci95[1]:+.0f}]"
    if sprt.verdict == "H1":
        return (f"the gain is real: the SPRT accepted H1 (elo1={sprt.elo1:g}) over H0 "
                f"(elo0={sprt.elo0:g}) after {sprt.groups} groups ({elo})")
    if sprt.verdict == "H0":
        return (f"no real gain: the SPRT accepted H0 (at most {sprt.elo0:g} Elo better than the "
                f"defaults) after {sprt.groups} groups ({elo})")
    return (f"undecided: the SPRT reached its limit of {sprt.groups} groups without accepting either "
            f"hypothesis, so a gain is neither shown nor ruled out (LLR {sprt.llr:.2f} within "
            f"[{sprt.bounds[0]:.2f}, {sprt.bounds[1]:.2f}]; {elo}); --max-groups lets it play longer")


def format_report(result: TuneResult, max_rows: int = 20) -> str:
    """The trajectory (at most ``max_rows`` rows), the recommendation and the verdict, as text."""
    config, plan = result.config, result.plan
    lines = [
        f"{config.game}: tuning {config.agent} over {plan.space.describe()}",
        f"method {plan.method}, {plan.evaluations} evaluations of {plan.groups} duplicate groups "
        f"({plan.games} games each, {result.games} games), opponents {', '.join(config.opponents)}, "
        f"seed {config.seed}",
        "trajectory:",
    ]
    rows = [r for r in result.trajectory if not r.get("final")]
    count = min(max_rows, len(rows))
    shown = sorted({round(i) for i in np.linspace(0, len(rows) - 1, count)}) if rows else []
    names = plan.space.names
    if plan.method == "spsa":
        table = [("iteration", "games", *names, "score+", "score-")]
        table += [(str(rows[i]["iteration"]), str(rows[i]["games"]),
                   *(str(rows[i]["params"][n]) for n in names),
                   f"{rows[i]['plus']:.3f}", f"{rows[i]['minus']:.3f}") for i in shown]
    else:
        table = [("eval", "games", *names, "score", "recommended", "predicted")]
        for i in shown:
            row = rows[i]
            rec = row.get("recommended")
            table.append((str(row["evaluation"]), str(row["games"]), *(str(row["params"][n]) for n in names),
                          f"{row['score']:.3f}+-{row['stderr']:.3f}",
                          ",".join(f"{k}={v}" for k, v in rec.items()) if rec else "-",
                          f"{row['predicted']:.3f}" if rec else "-"))
    widths = [max(len(r[c]) for r in table) for c in range(len(table[0]))]
    lines += ["  " + "  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in table]
    lines.append(f"recommended: {result.spec}  ({result.estimate})")
    lines.append(f"defaults:    {result.default_spec}")
    lines.append(f"confirmation: {verdict_text(result)}")
    if any(result.forfeits):
        first = f" (first: {result.forfeit_reason})" if result.forfeit_reason else ""
        lines.append(f"games lost by forfeit: the candidate {result.forfeits[0]}{first}, "
                     f"its opponents {result.forfeits[1]}; the scores count them as losses")
    return "\n".join(lines)


def plot_trajectory(result: TuneResult, folder: TuningFolder) -> bool:
    """Plot every tuned parameter and the scores against games played into the folder's
    ``trajectory.png``; ``False`` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    space = result.plan.space
    rows = [r for r in result.trajectory if "params" in r]
    fig, axes = plt.subplots(len(space.dims) + 1, 1, figsize=(7, 2.2 * (len(space.dims) + 1)), sharex=True,
                             squeeze=False)
    games = [r["games"] for r in rows]
    for ax, dim in zip(axes[:-1, 0], space.dims):
        if result.plan.method == "gp":
            modelled = [r for r in rows if "recommended" in r]
            ax.plot([r["games"] for r in modelled], [r["recommended"][dim.name] for r in modelled],
                    drawstyle="steps-post", label="recommended")
            ax.plot(games, [r["params"][dim.name] for r in rows], ".", alpha=0.5, label="evaluated")
            ax.legend(loc="best", fontsize="small")
        else:
            ax.plot(games, [r["params"][dim.name] for r in rows], label="iterate")
        ax.axhline(result.tuned[dim.name], color="black", linestyle=":", linewidth=1)
        ax.set_ylabel(dim.name)
        if dim.log:
            ax.set_yscale("log")
    score_rows = [r for r in rows if "score" in r]
    ax = axes[-1, 0]
    ax.plot([r["games"] for r in score_rows], [r["score"] for r in score_rows], ".", alpha=0.6)
    ax.set_ylabel("score")
    ax.set_xlabel("games played")
    fig.suptitle(f"{result.config.game}: {result.config.agent} ({result.plan.method})")
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=100)
    plt.close(fig)
    folder.write_bytes(files.PLOT, image.getvalue())  # atomically, never through a link
    return True

