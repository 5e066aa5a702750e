"""The opponent model's fit, the belief-accuracy experiment and its command."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from slagwerk.experiments.studies.belief_accuracy import run, stage_of, summarize
from slagwerk.experiments.studies.belief_model import Move, features, fit_model, log_likelihood


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
    alone = {s["stage"]: s for s in summarize(rows[:1])}  # one position: a mean, no interval
    assert alone["all"]["mean_gain"] == pytest.approx(0.1) and alone["all"]["low"] is None


def test_a_stage_of_one_position_is_written_as_valid_json_without_an_interval(tmp_path):
    """docs/records.md: NaN is not JSON; a stage measured at one position has no interval."""
    run("coins", tmp_path, count=1, particles=8, seed=4, agent_specs=("heuristic", "random"))
    text = (tmp_path / "summary.json").read_text()
    assert "NaN" not in text
    stored = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in summary.json"))
    assert all(s["low"] is None and s["high"] is None for s in stored["summary"])
    assert "none (one position)" in (tmp_path / "summary.md").read_text()
    assert (tmp_path / "belief.png").stat().st_size > 1000


def test_one_particle_is_refused_it_could_find_no_hidden_card(tmp_path):
    from slagwerk.experiments.harness.runner import ExperimentError

    with pytest.raises(ExperimentError, match="at least 2"):
        run("coins", tmp_path / "x", count=1, particles=1, seed=4)
    assert not (tmp_path / "x").exists()


def test_the_experiment_writes_its_files(tmp_path):
    result = run("coins", tmp_path, count=3, particles=8, temperature=1.5, seed=4,
                 agent_specs=("heuristic", "random"))
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["summary"] == result["summary"] and stored["positions"] == 3
    assert (tmp_path / "positions.csv").read_text().count("\n") == 4
    assert "| all |" in (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize("flag, value, message", [("--positions", "0", "--positions"),
                                                  ("--particles", "1", "--particles"),
                                                  ("--temperature", "-1", "--temperature"),
                                                  ("--temperature", "nan", "--temperature")])
def test_the_command_names_a_bad_option(flag, value, message, capsys):
    from slagwerk.cli import main

    with pytest.raises(SystemExit) as exit_:  # the parser's own check, before anything runs
        main(["experiment", "belief", "--game", "coins", flag, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_command_keeps_to_its_own_folder(tmp_path, capsys):
    """The results folder is checked before any work, as every results folder
    is: another run's files are never replaced, a link is never followed, and
    a bad folder is a one-line error."""
    from slagwerk.cli import main

    def belief(folder, *more):
        return main(["experiment", "belief", "--game", "coins", "--positions", "2", "--particles", "8",
                     "--results", str(folder), *more])

    def one_line_error(*parts):
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.count("error: ") == 1, err
        assert all(part in err for part in parts), err

    tournament = tmp_path / "tournament"
    tournament.mkdir()
    (tournament / "config.json").write_text("{}")
    (tournament / "summary.json").write_text("the tournament's")
    assert belief(tournament, "--force") == 2
    one_line_error("holds a tournament or experiment")
    assert (tournament / "summary.json").read_text() == "the tournament's"
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert belief(tmp_path / "link") == 2
    one_line_error("symbolic link")
    (tmp_path / "file").write_text("x")
    assert belief(tmp_path / "file") == 2
    one_line_error("file")
    assert list((tmp_path / "real").iterdir()) == [] and (tmp_path / "file").read_text() == "x"
    done = tmp_path / "done"
    assert belief(done) == 0
    first = (done / "summary.json").read_text()
    capsys.readouterr()
    assert belief(done) == 2
    one_line_error("is not empty", "--force")
    (done / "notes.txt").write_text("mine")
    assert belief(done, "--force", "--seed", "5") == 0
    assert (done / "notes.txt").read_text() == "mine" and (done / "summary.json").read_text() != first
    from slagwerk.cli.experiment_belief import rebuild

    (done / "belief.png").unlink()
    rebuild(done)  # the plot drawn again from summary.json
    assert (done / "belief.png").read_bytes().startswith(b"\x89PNG")


def _coins_view():
    from slagwerk.engine import make_game

    game = make_game("coins")
    state = game.new_match(seed=3)
    for _ in range(20):  # past trick 6: a history for the belief to read
        state.apply(state.legal_actions()[0])
    return game, state.view(state.to_move)


def test_a_model_file_brings_its_own_weights_to_the_search(tmp_path):
    """``--out FILE`` of the fit is a parameter file: ``ismcts:@FILE`` searches with
    that model. Weights 0 keep every agreeing world alike (effective size = all
    of them); sharp weights concentrate them."""
    from slagwerk.agents import make
    from slagwerk.agents.registry import resolve_spec_files
    from slagwerk.experiments.studies.belief_model import model_params, save_model

    game, view = _coins_view()
    flat, sharp = tmp_path / "flat.json", tmp_path / "sharp.json"
    save_model(flat, {"score_weight": 0.0, "best_weight": 0.0})
    save_model(sharp, {"score_weight": 50.0, "best_weight": 5.0}, temperature=1.0)
    assert json.loads(sharp.read_text()) == model_params({"score_weight": 50.0, "best_weight": 5.0})
    stats = {}
    for name, path in (("flat", flat), ("sharp", sharp), ("game", None)):
        spec = resolve_spec_files(f"ismcts:@{path},iterations=50" if path else
                                  "ismcts:iterations=50,belief=inferred")
        stats[name] = make(spec, game, seed=1).decide(view).stats
        assert stats[name]["belief"] == "inferred"
    assert stats["flat"]["belief_effective"] == stats["flat"]["belief_agreed"] > 1
    effective = {name: stats[name]["belief_effective"] for name in stats}
    assert effective["sharp"] < effective["game"] < effective["flat"]


def test_an_agent_chooses_whether_its_model_reads_the_card_play():
    """``belief_reads_play=no`` weighs only the actions outside the card play: in
    Coins, where every action is a card played (as in Aluette), every agreeing
    world then weighs the same; ``yes`` (Coins' own model) concentrates them."""
    from slagwerk.agents import make

    game, view = _coins_view()
    stats = {choice: make(f"ismcts:iterations=50,belief=inferred,belief_reads_play={choice}", game,
                          seed=1).decide(view).stats for choice in ("auto", "yes", "no")}
    assert stats["no"]["belief_effective"] == stats["no"]["belief_agreed"] > 1
    effective = {choice: stats[choice]["belief_effective"] for choice in stats}
    assert effective["yes"] == effective["auto"] < effective["no"]


def test_a_model_named_by_the_server_serves_requests(tmp_path):
    """A request names the server's parameter set (``--params NAME=FILE``), never a path."""
    from slagwerk.agents.protocol import Defaults, handle
    from slagwerk.agents.registry import load_parameter_sets
    from slagwerk.experiments.studies.belief_model import save_model

    game, view = _coins_view()
    save_model(tmp_path / "m.json", {"score_weight": 0.0, "best_weight": 0.0})
    defaults = Defaults(game="coins", parameter_sets=load_parameter_sets([f"mine={tmp_path / 'm.json'}"]))
    answer = handle({"type": "act", "game": "coins", "agent": "ismcts:params=mine,iterations=50",
                     "view": view, "stats": True}, defaults=defaults)
    assert answer["stats"]["belief"] == "inferred"
    assert answer["stats"]["belief_effective"] == answer["stats"]["belief_agreed"]


@pytest.mark.parametrize("weight", ["-0.5", "nan", "1e5"])
def test_a_bad_model_weight_is_a_one_line_error(weight):
    from slagwerk.agents import make
    from slagwerk.engine import make_game
    from slagwerk.errors import SpecError

    with pytest.raises(SpecError, match="belief_score_weight") as caught:
        make(f"ismcts:belief_score_weight={weight}", make_game("coins"))
    assert "\n" not in str(caught.value)


def test_the_fit_command_writes_a_model_file_and_refuses_a_missing_folder(tmp_path, capsys):
    from slagwerk.experiments.studies.belief_model import main

    out = tmp_path / "model.json"
    main(["--game", "coins", "--matches", "1", "--max-deals", "1", "--agents", "heuristic", "random",
          "--out", str(out), "--temperature", "2"])
    params = json.loads(out.read_text())
    assert params["belief"] == "inferred" and params["belief_temperature"] == 2.0
    assert params["belief_best_weight"] > 0
    with pytest.raises(SystemExit):
        main(["--game", "coins", "--out", str(tmp_path / "missing" / "model.json")])
    assert "its folder does not exist" in capsys.readouterr().err


def test_the_accuracy_experiment_measures_a_model_file(tmp_path):
    """``slagwerk experiment belief --model FILE``: a model of weights 0 is uniform
    over the agreeing worlds, so it must score differently from a sharp one on
    the same positions; a file without both weights is a one-line error."""
    from slagwerk.errors import SpecError
    from slagwerk.experiments.studies.belief_model import load_model, save_model

    save_model(tmp_path / "flat.json", {"score_weight": 0.0, "best_weight": 0.0})
    save_model(tmp_path / "sharp.json", {"score_weight": 20.0, "best_weight": 4.0}, temperature=2.0)
    sharp = load_model(tmp_path / "sharp.json")
    assert (sharp.score_weight, sharp.best_weight, sharp.temperature) == (20.0, 4.0, 2.0)
    gains = {}
    for name in ("flat", "sharp"):
        result = run("coins", tmp_path / name, count=6, particles=16, seed=3,
                     model=load_model(tmp_path / f"{name}.json"))
        assert result["model"]["score_weight"] == (20.0 if name == "sharp" else 0.0)
        gains[name] = [row["mean_gain"] for row in result["summary"]]
    assert gains["flat"] != gains["sharp"]
    (tmp_path / "half.json").write_text('{"belief_score_weight": 1}')
    with pytest.raises(SpecError, match="needs the field 'belief_best_weight'"):
        load_model(tmp_path / "half.json")
    (tmp_path / "bad.json").write_text('{"belief_score_weight": 1, "belief_best_weight": -2}')
    with pytest.raises(SpecError, match="'belief_best_weight' must be a number from 0 to 10000.0, not -2"):
        load_model(tmp_path / "bad.json")


def test_a_model_file_of_the_games_own_weights_measures_as_the_game(tmp_path):
    """A model file brings weights and a temperature; whether the model reads the card
    play stays the game's (Koetsieren's does not), as for ``ismcts:@FILE``."""
    from slagwerk.engine.koetsieren.replay import MODEL
    from slagwerk.experiments.studies.belief_model import load_model, save_model

    save_model(tmp_path / "own.json", {"score_weight": MODEL.score_weight, "best_weight": MODEL.best_weight},
               temperature=MODEL.temperature)
    own = run("koetsieren", tmp_path / "own", count=6, particles=16, seed=3,
              model=load_model(tmp_path / "own.json"))
    stored = run("koetsieren", tmp_path / "stored", count=6, particles=16, seed=3)
    assert [row["mean_gain"] for row in own["summary"]] == [row["mean_gain"] for row in stored["summary"]]


def test_a_weight_fitted_below_zero_is_written_as_zero(tmp_path):
    """The agents take weights of at least 0: the file of a fit that went below 0
    still loads and plays."""
    from slagwerk.experiments.studies.belief_model import load_model, save_model

    save_model(tmp_path / "m.json", {"score_weight": -0.25, "best_weight": 1.5}, temperature=1e5)
    model = load_model(tmp_path / "m.json")
    assert (model.score_weight, model.best_weight, model.temperature) == (0.0, 1.5, 1e5)


def test_the_ceiling_measures_reward_weight_on_the_truth_and_nothing_else():
    from slagwerk.experiments.studies.belief_ceiling import card_gain, evidence

    hits = np.array([[True, False], [False, True], [True, True], [False, False]])
    places = np.array([3, 3])
    assert card_gain(np.zeros(4), hits, places) == pytest.approx(0.0)
    assert card_gain(np.array([0.0, 0.0, 5.0, 0.0]), hits, places) > 0.1  # the world that is right
    assert card_gain(np.array([0.0, 0.0, 0.0, 5.0]), hits, places) < -0.1  # the world that is wrong
    assert evidence(0.0, np.zeros(4)) == pytest.approx(0.0)
    assert evidence(0.0, np.log(np.array([1.0, 1.0, 0.0 + 1e-300, 2.0]))) == pytest.approx(0.0)
    assert evidence(math.log(4.0), np.zeros(4)) == pytest.approx(math.log(4.0))


def test_the_ceiling_replays_every_world_to_its_position_and_is_seeded():
    from slagwerk.engine import make_game
    from slagwerk.engine.bits import make_rng
    from slagwerk.experiments.studies.belief_accuracy import positions
    from slagwerk.experiments.studies.belief_ceiling import history_steps, run
    from slagwerk.search.belief import infer

    game = make_game("kozel")
    for state, seat, view in positions("kozel", 3, 2, ("heuristic",)):
        script = game.replay_script(view)
        steps = history_steps(game, state.array, script, make_rng(1))
        assert steps is not None and len(steps) == len(view["history"])
        assert [mover for _, mover, _, _ in steps] == script.seats.tolist()
        belief = infer(game.state_from_view(view, seed=3), script, seat, temperature=math.inf, particles=8)
        assert all(history_steps(game, w, script, make_rng(2)) is not None for w in belief.worlds)
    first = run("aluette", count=2, worlds=6, iterations=20, searches=2, seed=3)
    assert first["positions"] >= 1, f"every position skipped: {first['skipped']}"
    assert set(first["summary"]) >= {"searcher_gain", "model_evidence"}
    assert all(math.isfinite(v) for row in first["rows"] for k, v in row.items() if k != "stage")
    assert run("aluette", count=2, worlds=6, iterations=20, searches=2, seed=3)["rows"] == first["rows"]
