"""Fit the opponent model of ``belief=inferred`` (:mod:`slagwerk.search.belief`).

The model gives a seat's legal action probability ``softmax(beta * score)``
with score 1 for the game's heuristic choice and 0 for the rest, so one
parameter, the temperature ``1 / beta``, says how often players do what the
heuristic would. :func:`collect_moves` plays matches between built-in
agents and notes, for each decision with a choice, the number of legal
actions and whether the action played was the heuristic's (computed on the
true state: the heuristic reads only what the mover sees, so this is what
the mover's information implies). :func:`fit_temperature` maximises the
likelihood of those moves.

    python -m slagwerk.experiments.belief_model --game kozel --matches 4

prints the fitted temperature; the games store theirs in their package
(``engine/<game>/replay.py``, ``MODEL``).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from ..agents import make
from ..engine import make_game
from ..engine.bits import derive_seed, make_rng

DEFAULT_AGENTS = ("ismcts:iterations=1000,belief=uniform", "heuristic")
"""The players whose moves the model is fitted to: the search agents the
belief is meant to read, and the heuristic."""


def collect_moves(game_name: str, agent_specs=DEFAULT_AGENTS, matches: int = 4, seed: int = 0,
                  max_deals: int | None = 6, progress=None) -> np.ndarray:
    """int64[m, 2]: per decision with two or more legal actions, the number of
    legal actions and 1 if the action played was the heuristic's choice.

    Seats take the agents in turn (seat ``s`` plays ``agent_specs[(s + match)
    % len]``), so every agent sits in every seat over the matches.
    """
    game = make_game(game_name)
    kernels = game.kernels
    rows = []
    for m in range(matches):
        agents = [make(agent_specs[(s + m) % len(agent_specs)], game, seed=derive_seed(seed, m, s))
                  for s in range(game.n_players)]
        state = game.new_match()
        deal_rng = make_rng(derive_seed(seed, m, 0xDEA1))
        heuristic_rng = make_rng(derive_seed(seed, m, 0x4E))
        while not state.is_terminal:
            if state.deal_pending:
                if max_deals is not None and state.deal_number >= max_deals:
                    break
                state.deal(rng=deal_rng)
                continue
            seat = state.to_move
            legal = state.legal_actions()
            choice = int(kernels.heuristic_action(state.array, heuristic_rng))
            action = state.apply(agents[seat].act(state.view(seat)))
            if len(legal) > 1:
                rows.append((len(legal), int(action == choice)))
        if progress is not None:
            progress(m + 1, matches)
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def log_likelihood(moves: np.ndarray, beta: float) -> float:
    """Log likelihood of ``moves`` (see :func:`collect_moves`) under inverse temperature ``beta``."""
    n = moves[:, 0].astype(float)
    matched = moves[:, 1].astype(float)
    return float(np.sum(matched * beta - np.log(np.exp(beta) + n - 1.0)))


def fit_temperature(moves: np.ndarray) -> dict:
    """The maximum-likelihood temperature for ``moves``, found by Newton's method on
    ``beta`` (the log likelihood is concave in it), with the agreement rate."""
    if len(moves) == 0:
        raise ValueError("no moves to fit the opponent model to")
    n = moves[:, 0].astype(float)
    agreement = float(moves[:, 1].mean())
    beta = 1.0
    for _ in range(100):
        lift = np.exp(beta)
        p = lift / (lift + n - 1.0)
        gradient = float(np.sum(moves[:, 1] - p))
        curvature = float(np.sum(p * (1.0 - p)))
        if curvature <= 0:
            break
        step = gradient / curvature
        beta = min(max(beta + step, 1e-6), 50.0)
        if abs(step) < 1e-10:
            break
    return {"temperature": 1.0 / beta, "beta": beta, "moves": int(len(moves)), "agreement": agreement,
            "log_likelihood": log_likelihood(moves, beta),
            "uniform_log_likelihood": -float(np.sum(np.log(n)))}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Fit the opponent model of belief=inferred.")
    parser.add_argument("--game", required=True)
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--max-deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS))
    args = parser.parse_args(argv)
    moves = collect_moves(args.game, args.agents, args.matches, args.seed, args.max_deals,
                          progress=lambda done, total: print(f"match {done}/{total}", flush=True))
    fit = fit_temperature(moves)
    print(f"{args.game}: temperature {fit['temperature']:.4f} (beta {fit['beta']:.4f}) from "
          f"{fit['moves']} moves, heuristic agreement {fit['agreement']:.3f}, log likelihood "
          f"{fit['log_likelihood']:.1f} against {fit['uniform_log_likelihood']:.1f} uniform "
          f"({(fit['log_likelihood'] - fit['uniform_log_likelihood']) / fit['moves']:.3f} nats a move)")
    if not math.isfinite(fit["temperature"]):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
