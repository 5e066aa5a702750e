"""Self-play training (slagwerk train): end to end, resumable without repeating work, reproducible."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("torch")

from slagwerk.agents import make  # noqa: E402
from slagwerk.agents.match import play_match  # noqa: E402
from slagwerk.agents.model import Model, load_model  # noqa: E402
from slagwerk.cli import main  # noqa: E402
from slagwerk.engine import GAME_NAMES, contract, make_game  # noqa: E402
from slagwerk.engine.bits import make_rng  # noqa: E402
from slagwerk.envs.encoded import EncodedMatch  # noqa: E402
from slagwerk.experiments.training.config import TrainConfig  # noqa: E402
from slagwerk.experiments.training.run import run_training  # noqa: E402
from slagwerk.experiments.training.selfplay import VISITS_HALF_WEIGHT, search_targets  # noqa: E402
from slagwerk.search.guide import Guide  # noqa: E402
from slagwerk.search.ismcts import ismcts  # noqa: E402

SMALL = dict(deals=6, chunk=3, hidden=(8, 8), batch_size=32, curve_points=0)
CURVE = dict(snapshot_every=1, curve_points=2, curve_groups=3)
"""A learning curve of the two snapshots of a two-round run, rated on three groups."""


def _config(game="coins", **changes):
    return TrainConfig(game=game, **{**SMALL, "rounds": 3, **changes})


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_short_run_writes_its_folder_and_its_model_plays_a_legal_match(tmp_path, game_name):
    result = run_training(_config(game_name, rounds=2, **CURVE), tmp_path / "run")
    names = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert names == ["checkpoint.pt", "config.json", "curve", "curve.csv", "curve.png", "model.npz",
                     "run.json", "snapshots", "training.jsonl"]
    rows = list(csv.DictReader((tmp_path / "run" / "curve.csv").open()))
    assert [(row["entry"], row["rounds"], row["deals"]) for row in rows] == [
        ("round-1", "1", "6"), ("round-2", "2", "12"), ("heuristic", "", "")]
    assert all(float(row["ci_low"]) <= float(row["rating"]) <= float(row["ci_high"]) for row in rows)
    assert [(row["entry"], row["rating"]) for row in result.curve] == [
        (row["entry"], float(row["rating"])) for row in rows]
    lines = [json.loads(line) for line in (tmp_path / "run" / "training.jsonl").read_text().splitlines()]
    assert [line["round"] for line in lines] == [0, 1] and all(line["deals"] == 6 for line in lines)
    game = make_game(game_name)
    assert load_model(result.model_path, game).meta["trained"]["rounds"] == 2
    agent = make(f"net:model={result.model_path}", game, seed=1)
    assert play_match(game, [agent] * game.n_players, seed=2, max_deals=1).deals


def _weights(path):
    with np.load(path) as archive:
        return [archive[name] for name in ("w1", "b1", "w2", "b2", "w3", "b3")]


def test_an_interrupted_run_resumes_to_the_same_model_without_repeating_a_round(tmp_path):
    whole = run_training(_config(), tmp_path / "whole")

    def stop_after_second(line):
        if line["round"] == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_training(_config(), tmp_path / "part", on_round=stop_after_second)
    resumed = run_training(None, tmp_path / "part", resume=True)
    assert [line["round"] for line in resumed.rounds] == [0, 1, 2]
    log = (tmp_path / "part" / "training.jsonl").read_text().splitlines()
    assert [json.loads(line)["round"] for line in log] == [0, 1, 2]
    for a, b in zip(_weights(whole.model_path), _weights(resumed.model_path)):
        assert np.array_equal(a, b)


def test_the_same_seed_gives_the_same_model_with_any_number_of_workers(tmp_path):
    one = run_training(_config(rounds=2), tmp_path / "one", jobs=1)
    two = run_training(_config(rounds=2), tmp_path / "two", jobs=2)
    other = run_training(_config(rounds=2, seed=9), tmp_path / "other", jobs=1)
    assert all(np.array_equal(a, b) for a, b in zip(_weights(one.model_path), _weights(two.model_path)))
    assert not np.array_equal(_weights(one.model_path)[0], _weights(other.model_path)[0])


@pytest.mark.parametrize("teacher", ["ismcts", "guided"])
def test_a_taught_run_resumes_to_the_model_of_an_uninterrupted_one_with_any_number_of_workers(
        tmp_path, teacher):
    taught = dict(teacher=teacher, teacher_iterations=12, game="kozel", teacher_playout="heuristic")
    whole = run_training(_config(**taught), tmp_path / "whole", jobs=1)

    def stop_after_second(line):
        if line["round"] == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_training(_config(**taught), tmp_path / "part", jobs=2, on_round=stop_after_second)
    resumed = run_training(None, tmp_path / "part", resume=True, jobs=2)
    assert [line["round"] for line in resumed.rounds] == [0, 1, 2]
    assert all(-1 <= line["mean_target"] <= 1 and line["samples"] > 0 for line in resumed.rounds)
    for a, b in zip(_weights(whole.model_path), _weights(resumed.model_path)):
        assert np.array_equal(a, b)
    dmc = run_training(_config(game="kozel"), tmp_path / "dmc", jobs=1)
    assert not np.array_equal(_weights(whole.model_path)[0], _weights(dmc.model_path)[0])
    values_only = run_training(_config(**taught, policy_weight=0.0), tmp_path / "values", jobs=1)
    assert not np.array_equal(_weights(whole.model_path)[0], _weights(values_only.model_path)[0])
    assert load_model(whole.model_path, make_game("kozel")).meta["method"] == f"expert-iteration:{teacher}"


def _midgame(game_name: str, seed: int, steps: int) -> EncodedMatch:
    match = EncodedMatch(game_name, seed=seed, reward="deal")
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if match.step(int(rng.choice(np.flatnonzero(match.mask())))) is not None:
            break  # a deal ended early: its next deal is a position as good as any
    return match


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_the_teachers_targets_are_its_searchs_values_and_blind_to_hidden_cards(game_name):
    match = _midgame(game_name, 5, 3)
    seat = match.to_move
    legal = np.flatnonzero(match.mask())
    index_of = {int(a): int(i) for i, a in zip(legal, match.legal_actions()[legal])}
    actions = match.module.NUM_ACTIONS
    other = match.array.copy()
    contract.determinize(other, seat, make_rng(7))
    assert not np.array_equal(other, match.array)  # some hidden card moved
    guide = Guide(Model.initial(make_game(game_name), hidden=(8, 8), seed=1).weights)
    by_playout = {}
    for teacher, playout in ((None, "random"), (guide, "random"), (None, "heuristic")):
        target, weight, share, chosen = search_targets(match.array, seat, index_of, actions, 60, 3, teacher,
                                                       playout)
        found = ismcts(match.array, seat, iterations=60, seed=3, guide=teacher, playout=playout)
        assert chosen == index_of[int(found.action)]
        tried = {index_of[int(a)]: (v, w) for a, v, w in zip(found.actions, found.visits, found.values)
                 if v > 0}
        assert set(np.flatnonzero(weight)) == set(np.flatnonzero(share)) == set(tried) <= set(legal.tolist())
        for i, (visits, value) in tried.items():
            assert target[i] == pytest.approx(2 * value - 1)
            assert weight[i] == pytest.approx(visits / (visits + VISITS_HALF_WEIGHT))
            assert share[i] == pytest.approx(visits / found.visits.sum())
        hidden_changed = search_targets(other, seat, index_of, actions, 60, 3, teacher, playout)
        for mine, theirs in zip((target, weight, share, chosen), hidden_changed):
            assert np.array_equal(mine, theirs)
        if teacher is None:
            by_playout[playout] = target
    assert not np.array_equal(by_playout["random"], by_playout["heuristic"])  # the teacher's playouts differ


def test_a_run_started_from_a_model_begins_with_its_weights_and_refuses_one_that_does_not_fit(
        tmp_path, capsys):
    start = run_training(_config(rounds=2, seed=3), tmp_path / "start", jobs=1).model_path
    none_trained = run_training(_config(init=str(start), rounds=1, deals=1, learning_rate=1e-9),
                                tmp_path / "from", jobs=1)
    fresh = run_training(_config(rounds=1, deals=1, learning_rate=1e-9), tmp_path / "fresh", jobs=1)
    started, began, random_start = (_weights(p) for p in (start, none_trained.model_path, fresh.model_path))
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(started, began))  # one tiny step from the file
    assert not np.allclose(random_start[0], began[0], atol=1e-3)
    argv = ["train", "coins", "--rounds", "1", "--init", str(start), "--hidden", "16", "16"]
    assert main([*argv, "--results", str(tmp_path / "wrong-size")]) == 2
    assert capsys.readouterr().err.strip().startswith(f"error: --init: model file {str(start)!r} has layers ")
    assert main(["train", "kozel", "--rounds", "1", "--init", str(start),
                 "--results", str(tmp_path / "wrong-game")]) == 2
    assert "error: --init: model file" in capsys.readouterr().err
    assert not (tmp_path / "wrong-size").exists() and not (tmp_path / "wrong-game").exists()


def test_a_run_started_from_a_model_resumes_without_the_file(tmp_path):
    start = tmp_path / "start.npz"
    first = run_training(_config(rounds=1, seed=3), tmp_path / "start", jobs=1)
    start.write_bytes(first.model_path.read_bytes())
    whole = run_training(_config(init=str(start)), tmp_path / "whole", jobs=1)

    def stop_after_first(line):
        if line["round"] == 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_training(_config(init=str(start)), tmp_path / "part", jobs=1, on_round=stop_after_first)
    start.unlink()  # the checkpoint holds the network now
    resumed = run_training(None, tmp_path / "part", resume=True, jobs=1)
    assert [line["round"] for line in resumed.rounds] == [0, 1, 2]
    assert all(np.array_equal(a, b) for a, b in zip(_weights(whole.model_path), _weights(resumed.model_path)))


def test_a_teachers_playout_without_a_teacher_is_one_line(tmp_path, capsys):
    assert main(["train", "kozel", "--teacher-playout", "heuristic", "--rounds", "1",
                 "--results", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err.strip() == ("error: --teacher-playout: only a teacher's search plays "
                                               "out (give --teacher ismcts or guided)")
    assert not (tmp_path / "run").exists()


def test_the_command_trains_resumes_and_writes_the_model_where_asked(tmp_path, capsys):
    folder, out = tmp_path / "run", tmp_path / "coins.npz"
    argv = ["train", "coins", "--rounds", "1", "--deals", "4", "--chunk", "2", "--hidden", "8", "8",
            "--jobs", "1", "--results", str(folder), "--out", str(out)]
    assert main(argv) == 0
    assert load_model(out, make_game("coins")).meta["trained"]["rounds"] == 1
    assert main(["train", "--resume", str(folder), "--jobs", "1"]) == 0  # nothing left: it says so
    assert main(["train", "--resume", str(folder), "--seed", "5", "--jobs", "1"]) == 2
    assert "--seed 5 conflicts with 1 stored in" in capsys.readouterr().err


def test_training_without_pytorch_is_one_line(monkeypatch, tmp_path, capsys):
    from slagwerk.experiments.training import learner

    monkeypatch.setattr(learner, "torch", None)
    assert main(["train", "coins", "--rounds", "1", "--results", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("error: training needs PyTorch, which is not installed: pip install "
                           "'slagwerk[train]' (the CPU build is enough)")
    assert not (tmp_path / "run").exists()


def test_the_curve_rates_evenly_spread_snapshots_and_a_new_run_forgets_the_old_ones(tmp_path):
    from slagwerk.experiments.training.curve import chosen, snapshot_rounds

    assert chosen(list(range(1, 11)), 3) == [4, 7, 10] and chosen([5], 3) == [5]
    run_training(_config(rounds=4, snapshot_every=2), tmp_path / "run")
    assert snapshot_rounds(tmp_path / "run", 4) == [2, 4]
    assert snapshot_rounds(tmp_path / "run", 3) == [2]  # one beyond the rounds kept: a stopped round's
    run_training(_config(rounds=1, snapshot_every=2), tmp_path / "run", force=True)
    assert snapshot_rounds(tmp_path / "run", 10) == []


def test_a_run_stopped_in_its_curve_resumes_the_curve(tmp_path, monkeypatch):
    from slagwerk.experiments.training import run as run_module

    real = run_module.rate_snapshots

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "rate_snapshots", stopped)
    with pytest.raises(KeyboardInterrupt):
        run_training(_config(rounds=2, **CURVE), tmp_path / "run")
    assert not (tmp_path / "run" / "curve.csv").exists()
    monkeypatch.setattr(run_module, "rate_snapshots", real)
    result = run_training(None, tmp_path / "run", resume=True)
    assert [row["entry"] for row in result.curve] == ["round-1", "round-2", "heuristic"]
    assert len(result.rounds) == 2


def test_agreement_compares_a_network_or_a_second_search_with_the_teacher(tmp_path):
    from slagwerk.experiments.training.agreement import agreement

    result = run_training(_config(rounds=1, teacher="ismcts", teacher_iterations=8), tmp_path / "run")
    share, decisions = agreement("coins", str(result.model_path), iterations=8, steps=30, seed=3)
    assert decisions > 0 and 0 <= share <= 1
    assert agreement("coins", str(result.model_path), iterations=8, steps=30, seed=3) == (share, decisions)
    alone, same_decisions = agreement("coins", None, iterations=8, steps=30, seed=3)
    assert same_decisions == decisions and 0 <= alone <= 1
