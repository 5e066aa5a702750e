"""How well ``belief=inferred`` locates the hidden cards, against ``uniform``.

For positions from real games (matches of the built-in agents), the seat to
move's belief is built both ways from its view: ``uniform`` is ``particles``
determinizations, ``inferred`` the resampled worlds of
:func:`slagwerk.search.belief.infer`. For every hidden card (one whose place
differs between the uniform worlds) the probability each belief gives its
true place is estimated from the worlds, ``(k + 1) / (worlds + places)``
with ``k`` the worlds that put it there and ``places`` the places the
uniform worlds gave it (the same smoothing for both). The measure is the
mean over hidden cards of ``log p_inferred - log p_uniform`` (nats; positive
means the inferred belief puts more weight on the truth), per stage of the
deal (the share of its tricks done: early, middle, late).

Everything is seeded; see :func:`run` for the files it writes.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...agents import make
from ...engine import make_game
from ...engine.bits import derive_seed, make_rng
from ...engine.replay import OpponentModel
from ...safe_files import replace_file
from ...search.belief import DEFAULT_PARTICLES, infer
from ..harness.plots import image_bytes, interval_arms, pyplot
from ..harness.results import BELIEF_FILES, claim_folder
from ..harness.runner import ExperimentError

STAGES = ("early", "middle", "late")
MIN_PARTICLES = 2
"""Fewest worlds per belief: a hidden card is one the uniform worlds place differently."""
DEFAULT_AGENTS = ("ismcts:iterations=300,belief=uniform", "heuristic")
"""Who plays the games the positions come from."""
FILES = BELIEF_FILES
"""Every file a run writes (and, with ``force``, replaces)."""
PLOT = FILES[-1]


def stage_of(tricks_done: int, tricks_per_deal: int) -> str:
    """``early``, ``middle`` or ``late``: the third of the deal's tricks it is in."""
    return STAGES[min(2, 3 * tricks_done // max(tricks_per_deal, 1))]


def positions(game_name: str, count: int, seed: int, agent_specs=DEFAULT_AGENTS, share: float = 0.3):
    """``count`` (true state, seat, view) from matches of ``agent_specs`` (seats take
    them in turn); a position is kept with probability ``share`` once its deal
    has a history."""
    game = make_game(game_name)
    chooser = random.Random(seed)
    found = []
    match = 0
    while len(found) < count:
        agents = [make(agent_specs[(s + match) % len(agent_specs)], game, seed=derive_seed(seed, match, s))
                  for s in range(game.n_players)]
        state = game.new_match()
        deal_rng = make_rng(derive_seed(seed, match, 0xDEA1))
        match += 1
        while not state.is_terminal and len(found) < count:
            if state.deal_pending:
                state.deal(rng=deal_rng)
                continue
            seat = state.to_move
            view = state.view(seat)
            if view["history"] and chooser.random() < share:
                found.append((state.clone(), seat, view))
            state.apply(agents[seat].act(view))
    return found


def _place_counts(game, worlds, hidden, true_places):
    """Per hidden card, how many of ``worlds`` put it at its true place."""
    hits = np.zeros(len(hidden))
    for world in worlds:
        places = game.card_places(world)
        hits += places[hidden] == true_places[hidden]
    return hits


def measure_position(game, true_state, seat, view, particles: int, temperature: float, seed: int,
                     model: OpponentModel | None = None) -> dict:
    """The log-likelihood gain of one position (see the module doc); ``model``'s
    weights and temperature replace the game's (whether the model reads the
    card play stays the game's, as for an agent given the same model file)."""
    rebuilt = game.state_from_view(view, seed=seed)
    script = rebuilt.game.replay_script(view)
    if model is not None and script is not None:
        script = replace(script, model=replace(script.model, score_weight=model.score_weight,
                                               best_weight=model.best_weight, temperature=model.temperature))
    rng = make_rng(derive_seed(seed, 1))
    uniform = []
    for _ in range(particles):
        world = rebuilt.array.copy()
        game.kernels.determinize(world, seat, rng)
        uniform.append(world)
    placed = np.array([game.card_places(w) for w in uniform])
    hidden = np.flatnonzero((placed != placed[0]).any(axis=0))
    true_places = game.card_places(true_state.array)
    t = temperature if temperature > 0 else script.temperature
    belief = infer(rebuilt, script, seat, temperature=t, particles=particles, seed=derive_seed(seed, 2))
    row = {"stage": stage_of(view["tricks_done"], game.view_max_tricks), "tricks_done": view["tricks_done"],
           "hidden_cards": int(len(hidden)), "agreed": belief.agreed, "effective": belief.effective}
    if len(hidden) == 0:
        row["gain"] = 0.0
        return row
    n_places = np.array([len(set(placed[:, c])) for c in hidden])
    uniform_hits = _place_counts(game, uniform, hidden, true_places)
    inferred = belief.worlds if belief.worlds is not None else uniform
    inferred_hits = _place_counts(game, inferred, hidden, true_places)
    p_uniform = (uniform_hits + 1) / (len(uniform) + n_places)
    p_inferred = (inferred_hits + 1) / (len(inferred) + n_places)
    row["gain"] = float(np.mean(np.log(p_inferred) - np.log(p_uniform)))
    row["log_p_uniform"] = float(np.mean(np.log(p_uniform)))
    row["log_p_inferred"] = float(np.mean(np.log(p_inferred)))
    return row


def summarize(rows: list[dict]) -> list[dict]:
    """Mean gain per stage and overall, with a 95% interval (normal, over positions;
    ``low`` and ``high`` are ``None`` for a stage of one position: no spread, no interval)."""
    out = []
    for stage in (*STAGES, "all"):
        gains = [r["gain"] for r in rows if r["hidden_cards"] and (stage == "all" or r["stage"] == stage)]
        if not gains:
            continue
        mean = float(np.mean(gains))
        low = high = None
        if len(gains) > 1:
            half = 1.96 * float(np.std(gains, ddof=1)) / math.sqrt(len(gains))
            low, high = round(mean - half, 4), round(mean + half, 4)
        out.append({"stage": stage, "positions": len(gains), "mean_gain": round(mean, 4),
                    "low": low, "high": high})
    return out


def _interval_text(stage: dict) -> str:
    if stage["low"] is None:
        return "none (one position)"
    return f"[{stage['low']:+.4f}, {stage['high']:+.4f}]"


def plot(summary: list[dict], game_name: str, folder: Path) -> bool:
    """A bar per stage (and overall) with its 95% interval, written as ``belief.png``
    in ``folder``; False without matplotlib."""
    try:
        plt = pyplot()
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(5, 3.2))
    names = [s["stage"] for s in summary]
    means = [s["mean_gain"] for s in summary]
    lows = [s["mean_gain"] if s["low"] is None else s["low"] for s in summary]  # no interval: no bar
    highs = [s["mean_gain"] if s["high"] is None else s["high"] for s in summary]
    ax.bar(names, means, yerr=interval_arms(means, lows, highs), capsize=4, color="#4a7ab0")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_ylabel("log-likelihood gain per hidden card (nats)")
    ax.set_title(f"{game_name}: inferred belief against uniform")
    fig.tight_layout()
    replace_file(folder, PLOT, image_bytes(fig)["png"])
    return True


def claim(out: Path, *, force: bool = False) -> None:
    """Make ``out`` ready for a run (see :func:`run`); claiming it twice is harmless.

    :raises ExperimentError: if it holds other files (unless ``force``) or a
        tournament's or experiment's run.
    :raises SafeFileError: if it is a link or cannot be created.
    """
    claim_folder(out, "belief experiment", FILES, force=force, resumable=False)


def run(game_name: str, out: Path, *, count: int = 60, particles: int = DEFAULT_PARTICLES,
        temperature: float = 0.0, seed: int = 1, agent_specs=DEFAULT_AGENTS, progress=None,
        model: OpponentModel | None = None, force: bool = False) -> dict:
    """Measure ``count`` positions of ``game_name`` (from games of ``agent_specs``)
    and write into folder ``out``: ``positions.csv`` (one row per position),
    ``summary.json``, ``summary.md`` and ``belief.png``. ``temperature`` 0 uses
    the model's own; ``model`` (an :class:`OpponentModel`) replaces the game's.

    ``out`` must be new or empty (with ``force``: this experiment's earlier
    files there are replaced, nothing else), checked before any work; files
    are written as every results folder's are (:mod:`slagwerk.safe_files`).
    """
    if isinstance(particles, bool) or not isinstance(particles, int) or particles < MIN_PARTICLES:
        raise ExperimentError(f"particles must be an integer of at least {MIN_PARTICLES} (the hidden cards "
                              f"are those the uniform worlds place differently), not {particles!r}")
    claim(out, force=force)
    game = make_game(game_name)
    rows = []
    found = positions(game_name, count, seed, agent_specs)
    for i, (state, seat, view) in enumerate(found):
        rows.append(measure_position(game, state, seat, view, particles, temperature, derive_seed(seed, i),
                                     model))
        if progress is not None:
            progress(i + 1, len(found))
    summary = summarize(rows)
    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, fieldnames=sorted({k for r in rows for k in r}))
    writer.writeheader()
    writer.writerows(rows)
    replace_file(out, "positions.csv", table.getvalue().encode("utf-8"))
    result = {"game": game_name, "positions": count, "particles": particles, "temperature": temperature,
              "seed": seed, "summary": summary}
    if model is not None:
        result["model"] = {"score_weight": model.score_weight, "best_weight": model.best_weight,
                           "temperature": model.temperature}
    replace_file(out, "summary.json", (json.dumps(result, indent=2) + "\n").encode("utf-8"))
    lines = [f"# Belief accuracy: {game_name}", "",
             f"{count} positions, {particles} worlds per belief, seed {seed}, temperature "
             f"{temperature or 'the model default'}"
             + (f", model: score_weight {model.score_weight:g}, best_weight {model.best_weight:g}"
                if model is not None else "") + ". Gain: mean log-likelihood of the true place of each "
             "hidden card under `inferred` minus under `uniform` (nats per hidden card).", "",
             "| stage | positions | mean gain | 95% interval |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {s['stage']} | {s['positions']} | {s['mean_gain']:+.4f} | {_interval_text(s)} |"
              for s in summary]
    replace_file(out, "summary.md", ("\n".join(lines) + "\n").encode("utf-8"))
    result["plot"] = plot(summary, game_name, out)
    return result
