"""Fit the opponent model of ``belief=inferred`` (:mod:`slagwerk.search.belief`).

The model (:class:`~slagwerk.engine.replay.OpponentModel`) gives each legal
action of a seat the probability ``softmax(score_weight * score +
best_weight * best)``: ``score`` the heuristic's score of the action (the
game's ``action_scores``), ``best`` 1 for a best-scored action. The two
weights say how closely players follow the heuristic's judgement and how
often they play its very choice.
:func:`collect_moves` plays matches between built-in agents and notes, for
each decision with a choice, the scores of the legal actions and which was
played (scored on the true state: the heuristic reads only what the mover
sees, so this is what the mover's information implies).
:func:`fit_model` maximises the likelihood of those moves.

    python -m slagwerk.experiments.studies.belief_model --game kozel --matches 4

prints the fitted weights; the games store theirs in their package
(``engine/<game>/replay.py``, ``MODEL``). ``--out FILE`` also writes them as a
parameter file of the search agents (:func:`model_params`), so that any
command plays with this model instead of the game's: ``ismcts:@FILE`` in a
spec, or ``slagwerk bot --params NAME=FILE`` and requests naming
``params=NAME``.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...agents import make
from ...agents.plugins import load_entry_points, load_plugins
from ...agents.registry import load_params_file
from ...agents.search_agents import MAX_MODEL_WEIGHT, MAX_TEMPERATURE
from ...engine import GAME_NAMES, contract, make_game
from ...engine.bits import derive_seed, make_rng
from ...engine.replay import OpponentModel
from ...errors import SlagwerkError
from ...safe_files import replace_file
from ...search.belief import BEST_TOLERANCE

DEFAULT_AGENTS = ("ismcts:iterations=1000,belief=uniform", "heuristic")
"""The players whose moves the model is fitted to: the search agents the
belief is meant to read, and the heuristic."""


@dataclass(frozen=True)
class Move:
    """One decision with a choice: the heuristic's scores of the legal actions
    and the index of the action played."""

    scores: np.ndarray
    played: int


def collect_moves(game_name: str, agent_specs=DEFAULT_AGENTS, matches: int = 4, seed: int = 0,
                  max_deals: int | None = 6, progress=None) -> list[Move]:
    """The decisions with two or more legal actions of ``matches`` matches.

    Seats take the agents in turn (seat ``s`` plays ``agent_specs[(s + match)
    % len]``), so every agent sits in every seat over the matches.
    """
    game = make_game(game_name)
    moves = []
    for m in range(matches):
        agents = [make(agent_specs[(s + m) % len(agent_specs)], game, seed=derive_seed(seed, m, s))
                  for s in range(game.n_players)]
        state = game.new_match()
        deal_rng = make_rng(derive_seed(seed, m, 0xDEA1))
        score_rng = make_rng(derive_seed(seed, m, 0x4E))
        while not state.is_terminal:
            if state.deal_pending:
                if max_deals is not None and state.deal_number >= max_deals:
                    break
                state.deal(rng=deal_rng)
                continue
            legal = np.array(state.legal_actions(), dtype=np.int64)
            scores = np.empty(len(legal))
            contract.action_scores(state.array, score_rng, legal, len(legal), scores)
            action = state.apply(agents[state.to_move].act(state.view(state.to_move)))
            if len(legal) > 1:
                moves.append(Move(scores, int(np.flatnonzero(legal == action)[0])))
        if progress is not None:
            progress(m + 1, matches)
    return moves


def features(scores: np.ndarray) -> np.ndarray:
    """float64[n, 2] per legal action: its score less the best score, and 1 for a
    best-scored action (the two terms of :class:`~slagwerk.engine.replay.OpponentModel`)."""
    shifted = scores - scores.max()
    return np.stack([shifted, (shifted >= -BEST_TOLERANCE).astype(float)], axis=1)


def _moments(moves: list[Move], weights: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Log likelihood of ``moves`` at ``weights`` (score, best), its gradient and Hessian."""
    value, gradient, hessian = 0.0, np.zeros(2), np.zeros((2, 2))
    for move in moves:
        x = features(move.scores)
        u = x @ weights
        top = u.max()
        p = np.exp(u - top)
        total = p.sum()
        p /= total
        mean = p @ x
        value += u[move.played] - top - math.log(total)
        gradient += x[move.played] - mean
        centred = x - mean
        hessian -= (centred * p[:, None]).T @ centred
    return value, gradient, hessian


def log_likelihood(moves: list[Move], score_weight: float, best_weight: float = 0.0) -> float:
    """Log likelihood of ``moves`` (see :func:`collect_moves`) under the model's weights."""
    return _moments(moves, np.array([score_weight, best_weight], dtype=float))[0]


def fit_model(moves: list[Move]) -> dict:
    """The maximum-likelihood weights (score, best) for ``moves``: Newton's method
    with a backtracking line search (the log likelihood is concave in them), with
    how often the played action was a best-scored one."""
    if len(moves) == 0:
        raise ValueError("no moves to fit the opponent model to")
    agreement = float(np.mean([m.scores[m.played] >= m.scores.max() - BEST_TOLERANCE for m in moves]))
    weights = np.array([0.0, 1.0])
    value, gradient, hessian = _moments(moves, weights)
    for _ in range(100):
        try:
            step = -np.linalg.solve(hessian - 1e-9 * np.eye(2), gradient)
        except np.linalg.LinAlgError:
            step = gradient
        size = 1.0
        while size > 1e-12:
            candidate = weights + size * step
            if np.all(np.abs(candidate) < MAX_MODEL_WEIGHT):
                new = _moments(moves, candidate)
                if new[0] >= value:
                    break
            size /= 2
        else:
            break
        improved = new[0] - value
        weights, (value, gradient, hessian) = candidate, new
        if improved < 1e-10:
            break
    return {"score_weight": float(weights[0]), "best_weight": float(weights[1]), "moves": len(moves),
            "agreement": agreement, "log_likelihood": value,
            "uniform_log_likelihood": -float(sum(math.log(len(m.scores)) for m in moves))}


def model_params(fit: dict, temperature: float = 1.0) -> dict:
    """A fitted model as the search agents' parameters (``belief=inferred`` with its
    weights and temperature): the content of a model file. The agents take
    weights of at least 0, so a weight fitted below 0 is written as 0."""
    return {"belief": "inferred", "belief_score_weight": round(max(fit["score_weight"], 0.0), 6),
            "belief_best_weight": round(max(fit["best_weight"], 0.0), 6),
            "belief_temperature": float(temperature)}


def save_model(path, fit: dict, temperature: float = 1.0) -> None:
    """Write ``fit`` as a parameter file (:func:`model_params`) to ``path``, atomically:
    ``ismcts:@PATH`` plays with it, as does ``slagwerk bot --params NAME=PATH``."""
    target = Path(path)
    data = json.dumps(model_params(fit, temperature), indent=2) + "\n"
    replace_file(target.parent, target.name, data.encode())


def load_model(path) -> OpponentModel:
    """The opponent model of a model file (:func:`save_model`): both weights, and
    its temperature (1 if it has none). :class:`SpecError` names what is wrong."""
    _, params = load_params_file(str(path), schema=MODEL_FILE_SCHEMA)
    return OpponentModel(float(params["belief_score_weight"]), float(params["belief_best_weight"]),
                         float(params.get("belief_temperature", 1.0)))


_WEIGHT = {"type": "number", "minimum": 0, "maximum": MAX_MODEL_WEIGHT}
MODEL_FILE_SCHEMA = {"type": "object", "required": ["belief_score_weight", "belief_best_weight"],
                     "properties": {
    "belief_score_weight": _WEIGHT, "belief_best_weight": _WEIGHT,
    "belief_temperature": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TEMPERATURE}}}
"""A model file's parameters (:func:`model_params`)."""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m slagwerk.experiments.studies.belief_model",
                                     description="Fit the opponent model of belief=inferred.")
    parser.add_argument("--game", required=True, choices=GAME_NAMES)
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--max-deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS),
                        help="the agents whose moves the model is fitted to (specs)")
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                        help="import a module that registers agents (repeatable; installed plugins "
                        "are found without it)")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="write the model as a parameter file: ismcts:@FILE uses it")
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="the temperature written to --out (default 1: as fitted)")
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error(f"--matches must be at least 1, not {args.matches}")
    if not args.temperature > 0:
        parser.error(f"--temperature must be positive, not {args.temperature}")
    if args.out and not Path(args.out).resolve().parent.is_dir():  # said before the long fit, not after
        parser.error(f"--out {args.out!r}: its folder does not exist")
    try:
        load_entry_points()
        load_plugins(args.plugin)
        moves = collect_moves(args.game, args.agents, args.matches, args.seed, args.max_deals,
                              progress=lambda done, total: print(f"match {done}/{total}", flush=True))
    except SlagwerkError as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    fit = fit_model(moves)
    gain = (fit["log_likelihood"] - fit["uniform_log_likelihood"]) / fit["moves"]
    print(f"{args.game}: score_weight {fit['score_weight']:.4f}, best_weight {fit['best_weight']:.4f} from "
          f"{fit['moves']} moves, a best-scored action played {fit['agreement']:.3f} of the time, log "
          f"likelihood {fit['log_likelihood']:.1f} against {fit['uniform_log_likelihood']:.1f} uniform "
          f"({gain:.3f} nats a move)")
    if not (math.isfinite(fit["score_weight"]) and math.isfinite(fit["best_weight"])):
        raise SystemExit(1)
    if args.out:
        for key in ("score_weight", "best_weight"):
            if fit[key] < 0:
                print(f"note: {key} fitted below 0 ({fit[key]:.4f}); the file says 0 "
                      "(agents take weights >= 0)")
        try:
            save_model(args.out, fit, args.temperature)
        except SlagwerkError as err:
            parser.exit(2, f"{parser.prog}: error: {err}\n")
        print(f"model written to {args.out}: play with it as ismcts:@{args.out}")


if __name__ == "__main__":
    main()
