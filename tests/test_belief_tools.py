"""The opponent model's fit, the belief-accuracy experiment and its command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from slagwerk.experiments.belief_accuracy import run, stage_of, summarize
from slagwerk.experiments.belief_model import Move, features, fit_model, log_likelihood


def test_the_fit_recovers_the_weights_that_made_the_moves():
    rng = np.random.default_rng(3)
    weights = np.array([1.7, 0.8])
    moves = []
    for _ in range(5000):
        scores = rng.normal(0.0, 1.0, size=rng.integers(2, 12))
        p = np.exp(features(scores) @ weights)
        moves.append(Move(scores, int(rng.choice(len(scores), p=p / p.sum()))))
    fit = fit_model(moves)
    assert abs(fit["score_weight"] - 1.7) < 0.15 and abs(fit["best_weight"] - 0.8) < 0.15
    assert fit["log_likelihood"] >= max(log_likelihood(moves, a, b) for a, b in ((1.7, 0.8), (1.5, 1.0),
                                                                                  (2.0, 0.0))) - 1e-6
    assert fit["log_likelihood"] > fit["uniform_log_likelihood"]
    with pytest.raises(ValueError):
        fit_model([])


def test_moves_that_always_follow_the_scores_fit_a_sharp_model():
    moves = [Move(np.array([0.0, 1.0, -2.0]), 1)] * 10
    fit = fit_model(moves)
    assert fit["agreement"] == 1.0
    assert log_likelihood(moves, fit["score_weight"], fit["best_weight"]) > -0.01


def test_stages_and_summary():
    assert [stage_of(t, 9) for t in (0, 2, 3, 5, 6, 8)] == ["early"] * 2 + ["middle"] * 2 + ["late"] * 2
    rows = [{"stage": "early", "hidden_cards": 5, "gain": g} for g in (0.1, 0.3)]
    rows.append({"stage": "late", "hidden_cards": 0, "gain": 0.0})  # no hidden card: not counted
    summary = {s["stage"]: s for s in summarize(rows)}
    assert set(summary) == {"early", "all"}
    assert summary["all"]["positions"] == 2 and summary["all"]["mean_gain"] == pytest.approx(0.2)
    assert summary["all"]["low"] < 0.2 < summary["all"]["high"]


def test_the_experiment_writes_its_files(tmp_path):
    result = run("coins", tmp_path, count=3, particles=8, temperature=1.5, seed=4,
                 agent_specs=("heuristic", "random"))
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["summary"] == result["summary"] and stored["positions"] == 3
    assert (tmp_path / "positions.csv").read_text().count("\n") == 4
    assert "| all |" in (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize("flag, value, message", [("--positions", "0", "--positions"),
                                                  ("--particles", "0", "--particles"),
                                                  ("--temperature", "-1", "--temperature")])
def test_the_command_names_a_bad_option(flag, value, message, capsys):
    from slagwerk.cli import main

    assert main(["experiment", "belief", "--game", "coins", flag, value]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
