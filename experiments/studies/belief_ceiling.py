"""How much can the searchers' play reveal? The opponent model against the searcher itself.

``belief=inferred`` reads the other seats' play through the heuristic's
scores (:mod:`slagwerk.search.belief`). Where it gains nothing, is the model
too crude, or does the play reveal little? This experiment asks the best
model there is for a searching opponent: the searcher itself. For positions
from matches of one ISMCTS agent against itself, it takes the searching
seat's hard-information worlds (every one agrees with the whole public
history), replays the history in each, and scores every action of another
seat three ways:

- ``model``: the game's opponent model's weights, on every action (the
  belief's own likelihood where the model reads the card play; Koetsieren's
  belief weighs only the trump and the bids);
- ``searcher``: the mean share of visits the action got in ``searches``
  ISMCTS searches of the opponents' budget, from the mover's view in that
  world (the searcher's policy, smoothed: a searcher whose visits give an
  action little share rarely plays it);
- ``votes``: the share of those searches that chose the action (closer to
  the policy, noisier).

Two measures per position and likelihood:

- ``gain``: nats per hidden card, the mean log probability of each hidden
  card's true place when the worlds are weighted by the likelihood, minus
  the same with equal weights (the measure of ``slagwerk experiment belief``;
  see :mod:`slagwerk.experiments.studies.belief_accuracy`); what a search on those
  worlds can use;
- ``evidence``: nats of evidence for the true deal, ``log L(truth) - log
  mean L(worlds)``: how much more likely the observed actions are in the true
  deal than in a world of the belief. It is about the deal as a whole and
  does not suffer from the few worlds a sharp likelihood leaves, which the
  gain does.

    python -m slagwerk.experiments.studies.belief_ceiling --game aluette --positions 12 --worlds 128

Everything is seeded. The searcher likelihood runs ``searches`` searches per
action of another seat in every world: an experiment, far too slow for play.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from ...engine import GAME_NAMES, make_game
from ...engine.bits import derive_seed, make_rng
from ...engine.state import TO_MOVE
from ...search.belief import DEAL_TRIES, infer, log_action_probability
from ...search.ismcts import ismcts
from .belief_accuracy import positions, stage_of

LIKELIHOODS = ("model", "searcher", "votes")


def history_steps(game, world, script, rng):
    """``(state, mover, action, legal)`` before each action of ``script``'s history,
    replayed in a deal that dealt ``world`` (up to ``DEAL_TRIES`` deals, as the belief
    tries); None if it cannot be replayed."""
    k = game.kernels
    legal = np.empty(k.MAX_ACTIONS, np.int64)
    for _ in range(DEAL_TRIES):
        deal = np.empty(k.DEAL_SIZE, np.int64)
        if not k.deal_from_world(world, script.template, rng, deal):
            continue
        state = script.start.copy()
        k.apply_deal(state, deal)
        steps = []
        for seat, key in zip(script.seats.tolist(), script.keys.tolist()):
            if int(state[TO_MOVE]) != seat:
                break
            action = int(k.history_action(world, state, key)) if hasattr(k, "history_action") else key
            n = k.legal_actions(state, legal)
            if action not in legal[:n]:
                break
            steps.append((state.copy(), seat, action, legal[:n].copy()))
            k.apply_action(state, action)
        else:
            return steps
    return None


def log_likelihoods(game, steps, seat, model_betas, iterations: int, searches: int, seed: int) -> dict:
    """Log likelihood of the other seats' actions in ``steps`` under each of
    :data:`LIKELIHOODS`."""
    k = game.kernels
    rng = make_rng(seed)
    scores = np.empty(k.MAX_ACTIONS)
    out = dict.fromkeys(LIKELIHOODS, 0.0)
    for j, (state, mover, action, legal) in enumerate(steps):
        n = len(legal)
        if mover == seat or n < 2:
            continue
        index = int(np.flatnonzero(legal == action)[0])
        k.action_scores(state, rng, legal, n, scores)
        out["model"] += log_action_probability(scores, n, index, model_betas[0], model_betas[1])
        share = votes = 0.0
        for r in range(searches):
            found = ismcts(state, mover, iterations=iterations, seed=derive_seed(seed, j, r))
            share += float(found.visits[found.actions == action].sum()) / iterations
            votes += found.action == action
        # Half an observation spread over the legal actions: no action is impossible.
        out["searcher"] += math.log((share + 0.5 / n) / (searches + 0.5))
        out["votes"] += math.log((votes + 0.5 / n) / (searches + 0.5))
    return out


def card_gain(log_weights: np.ndarray, hits: np.ndarray, n_places: np.ndarray) -> float:
    """Mean over hidden cards of ``log p_weighted - log p_equal`` of the true place;
    ``hits[i, c]`` is True where world ``i`` puts hidden card ``c`` at its true
    place; ``p = (k + 1) / (worlds + places)`` with ``k`` the (weighted) worlds
    that do, as in :mod:`slagwerk.experiments.studies.belief_accuracy`."""
    worlds = len(log_weights)
    weights = np.exp(log_weights - log_weights.max())
    weights /= weights.sum()
    weighted = (worlds * (weights[:, None] * hits).sum(axis=0) + 1) / (worlds + n_places)
    equal = (hits.sum(axis=0) + 1) / (worlds + n_places)
    return float(np.mean(np.log(weighted) - np.log(equal)))


def evidence(truth: float, log_weights: np.ndarray) -> float:
    """``log L(truth) - log mean L(worlds)`` (nats)."""
    top = log_weights.max()
    return float(truth - top - math.log(np.mean(np.exp(log_weights - top))))


def measure_position(game, true_state, seat, view, worlds: int, iterations: int, searches: int,
                     seed: int) -> dict | str:
    """One position's ``gain`` and ``evidence`` per likelihood (the module doc), or
    why it was skipped: no world agreed, the truth cannot be replayed, or no card
    is hidden."""
    rebuilt = game.state_from_view(view, seed=seed)
    script = rebuilt.game.replay_script(view)
    belief = infer(rebuilt, script, seat, temperature=math.inf, particles=worlds, seed=derive_seed(seed, 1))
    if belief.worlds is None:
        return "no agreeing world"
    rng = make_rng(derive_seed(seed, 2))
    truth_steps = history_steps(game, true_state.array, script, rng)
    placed = np.array([game.card_places(w) for w in belief.worlds])
    hidden = np.flatnonzero((placed != placed[0]).any(axis=0))
    if truth_steps is None:
        return "truth not replayed"
    if len(hidden) == 0:
        return "no hidden card"
    true_places = game.card_places(true_state.array)
    betas = script.model.betas()
    columns = {name: [] for name in LIKELIHOODS}
    kept = []
    for i, world in enumerate(belief.worlds):
        steps = history_steps(game, world, script, rng)
        if steps is None:  # the belief's worlds replay; a deal rebuilt differently may not
            continue
        kept.append(i)
        for name, value in log_likelihoods(game, steps, seat, betas, iterations, searches,
                                           derive_seed(seed, 3, i)).items():
            columns[name].append(value)
    truth = log_likelihoods(game, truth_steps, seat, betas, iterations, searches, derive_seed(seed, 4))
    hits = placed[kept][:, hidden] == true_places[hidden]
    n_places = np.array([len(set(placed[:, c])) for c in hidden])
    row = {"stage": stage_of(view["tricks_done"], game.view_max_tricks), "hidden_cards": int(len(hidden)),
           "worlds": len(kept)}
    for name in LIKELIHOODS:
        log_weights = np.array(columns[name])
        row[f"{name}_gain"] = card_gain(log_weights, hits, n_places)
        row[f"{name}_evidence"] = evidence(truth[name], log_weights)
    return row


def summarize(rows: list[dict]) -> dict:
    """Mean and 95% half-width (normal, over positions) of each measure."""
    out = {}
    for name in LIKELIHOODS:
        for measure in ("gain", "evidence"):
            values = np.array([r[f"{name}_{measure}"] for r in rows])
            half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan
            out[f"{name}_{measure}"] = {"mean": round(float(values.mean()), 4), "half_width": round(half, 4)}
    return out


def run(game_name: str, count: int = 12, worlds: int = 128, iterations: int = 300, searches: int = 12,
        seed: int = 7, progress=None) -> dict:
    """Measure ``count`` positions from matches of ``ismcts:iterations=ITERATIONS``
    against itself; the searcher likelihood uses the same budget."""
    game = make_game(game_name)
    spec = f"ismcts:iterations={iterations},belief=uniform"
    rows = []
    skipped: dict[str, int] = {}
    found = positions(game_name, count, seed, (spec,))
    for i, (state, seat, view) in enumerate(found):
        row = measure_position(game, state, seat, view, worlds, iterations, searches, derive_seed(seed, 5, i))
        if isinstance(row, str):
            skipped[row] = skipped.get(row, 0) + 1
        else:
            rows.append(row)
        if progress is not None:
            progress(i + 1, len(found))
    return {"game": game_name, "positions": len(rows), "worlds": worlds, "iterations": iterations,
            "searches": searches, "seed": seed, "summary": summarize(rows) if rows else {}, "rows": rows,
            "skipped": skipped}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m slagwerk.experiments.studies.belief_ceiling",
                                     description="How much the searchers' play reveals: the game's "
                                     "opponent model against the searcher itself.")
    parser.add_argument("--game", required=True, choices=GAME_NAMES)
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--worlds", type=int, default=128)
    parser.add_argument("--iterations", type=int, default=300, help="the searchers' budget")
    parser.add_argument("--searches", type=int, default=12, help="searches per observed action and world")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for name in ("positions", "worlds", "iterations", "searches"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    print(f"compiling and measuring {args.positions} positions (the first use compiles the kernels)",
          flush=True)
    result = run(args.game, args.positions, args.worlds, args.iterations, args.searches, args.seed,
                 progress=lambda done, total: print(f"position {done}/{total}", flush=True))
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=2))


if __name__ == "__main__":
    main()
