"""Tuning runs end to end on Coins with tiny budgets: plan checks, results folder, resume, CLI, @best.json."""

from __future__ import annotations

import json
import re

import pytest

from slagwerk.agents import make, parse_spec
from slagwerk.agents.registry import resolve_spec_files
from slagwerk.cli import main
from slagwerk.engine import make_game
from slagwerk.errors import SlagwerkError, SpecError
from slagwerk.experiments.harness.runner import ExperimentError
from slagwerk.experiments.tuning import TuneConfig, format_report, run_tuning
from slagwerk.settings import SettingsError

# A search agent small enough that a whole tuning run takes seconds.
TINY = ("c=0.1:3.0", "iterations=4")


def tiny_config(**changes) -> TuneConfig:
    settings = dict(game="coins", agent="ismcts", params=TINY, opponents=("random",), budget=60, groups=1,
                    seed=3, max_groups=6)
    settings.update(changes)
    return TuneConfig(**settings)


# ------------------------------------------------------------------ checks before anything runs


@pytest.mark.parametrize("changes, error, message", [
    (dict(budget=57), ExperimentError, "allows 19 evaluations .* SPSA needs 20 .* give --budget 60 or more"),
    (dict(budget=100, groups=4), ExperimentError, r"give --budget 240 or more, or fewer --groups"),
    (dict(params=("iterations=2:9",), budget=21), ExperimentError, "the GP search needs 8"),
    (dict(method="annealing"), SettingsError, "'method' must be one of auto, spsa, gp, not 'annealing'"),
    (dict(groups=0), SettingsError, "'groups' must be an integer from 1 to 100000 or null, not 0"),
    (dict(budget=-5), SettingsError, "'budget' must be an integer from 1 to 100000000, not -5"),
    (dict(groups=10**8), SettingsError,
     "'groups' must be an integer from 1 to 100000 or null, not 100000000"),
    (dict(opponents=()), SettingsError, r"'opponents' must be a list of non-empty strings \(at least 1\)"),
    (dict(opponents=("nobody",)), SpecError, "unknown agent 'nobody'"),
    (dict(params=("c=0.1:3.0", "iterations=0")), SpecError, "iterations='0' must be an integer from 1"),
    (dict(params=("d=1:2",)), SpecError, "unknown parameter 'd'"),
    (dict(elo0=10.0, elo1=5.0), SettingsError, "--elo0 must be below --elo1"),
    (dict(options=(("target", 0),)), SlagwerkError, "target"),
])
def test_bad_settings_fail_before_any_game(tmp_path, changes, error, message):
    folder = tmp_path / "run"
    with pytest.raises(error, match=message):
        run_tuning(tiny_config(**changes), folder, progress=False)  # a bad setting: when it is made
    assert not folder.exists()


def test_auto_method_and_default_groups():
    assert tiny_config().plan().method == "spsa"
    plan = tiny_config(params=("iterations=2:9",), groups=None, budget=3000).plan()
    assert plan.method == "gp"
    assert plan.games == 3 * plan.groups  # Coins: three rotations per duplicate group
    assert plan.evaluations * plan.games <= 3000 and plan.evaluations >= 8


# ------------------------------------------------------------------ a whole run, resumed


def test_spsa_run_writes_every_evaluation_and_resumes_without_repeating(tmp_path, monkeypatch):
    whole = run_tuning(tiny_config(), tmp_path / "whole", progress=False)
    lines = (tmp_path / "whole" / "evaluations.jsonl").read_text().splitlines()
    assert len(lines) == whole.plan.evaluations == 20
    first = json.loads(lines[0])
    assert set(first) >= {"index", "key", "params", "groups", "games", "score", "stderr"}
    assert first["games"] == 3 and 0.0 <= first["score"] <= 1.0
    assert [json.loads(line)["key"] for line in lines] == [k for k in range(10) for _ in range(2)]
    best = json.loads((tmp_path / "whole" / "best.json").read_text())
    assert best["agent"] == "ismcts" and best["params"]["iterations"] == 4
    assert 0.1 <= best["params"]["c"] <= 3.0
    assert best["spec"] == whole.spec
    summary = json.loads((tmp_path / "whole" / "summary.json").read_text())
    assert summary["plan"]["method"] == "spsa" and len(summary["trajectory"]) == 11
    report = format_report(whole)
    assert "recommended: ismcts:iterations=4,c=" in report and "confirmation:" in report

    # The same run killed after 7 evaluations, mid-write of the 8th.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text((tmp_path / "whole" / "config.json").read_text())
    (broken / "evaluations.jsonl").write_text("\n".join(lines[:7]) + "\n" + lines[7][:25])
    import slagwerk.experiments.tuning.run as tuning_run

    played = []
    real_evaluate = tuning_run.evaluate
    monkeypatch.setattr(tuning_run, "evaluate", lambda *a, **k: played.append(a[2]) or real_evaluate(*a, **k))
    resumed = run_tuning(None, broken, resume=True, progress=False)
    assert len(played) == 13  # only the missing evaluations were played
    assert resumed.tuned == whole.tuned
    resumed_lines = (broken / "evaluations.jsonl").read_text().splitlines()
    strip = [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in resumed_lines]
    assert strip == [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]
    assert (resumed.confirmation is None) == (whole.confirmation is None)
    if whole.confirmation is not None:
        assert resumed.confirmation.as_json() == whole.confirmation.as_json()


def test_resume_refuses_a_log_of_another_run(tmp_path):
    run_tuning(tiny_config(confirm=False), tmp_path / "a", progress=False)
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    config["seed"] = 4
    (tmp_path / "a" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ExperimentError, match="belongs to another run"):
        run_tuning(None, tmp_path / "a", resume=True, progress=False)
    with pytest.raises(ExperimentError, match="already holds a tuning run"):
        run_tuning(tiny_config(), tmp_path / "a", progress=False)
    with pytest.raises(ExperimentError, match="holds no tuning run"):
        run_tuning(None, tmp_path / "nothing", resume=True, progress=False)


def test_resume_says_when_the_folder_holds_another_kind_of_run(tmp_path, capsys):
    """tune --resume on a tournament's folder names what the folder holds, not a missing setting."""
    assert main(["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "2",
                 "--jobs", "1", "--quiet", "--results", str(tmp_path / "t")]) == 0
    capsys.readouterr()
    assert main(["tune", "--resume", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert "holds no tuning run (no evaluations.jsonl): it holds a tournament" in err


def test_gp_run_on_an_integer_parameter(tmp_path):
    config = tiny_config(params=("iterations=2:9", "c=0.7"), budget=24, confirm=False)
    result = run_tuning(config, tmp_path / "gp", progress=False)
    assert result.plan.method == "gp" and result.plan.evaluations == 8
    assert 2 <= result.tuned["iterations"] <= 9 and isinstance(result.tuned["iterations"], int)
    assert result.spec == f"ismcts:c=0.7,iterations={result.tuned['iterations']}"
    rows = result.trajectory
    assert len(rows) == 8 and "recommended" in rows[-1] and "predicted" in rows[-1]


# ------------------------------------------------------------------ specs that load best.json


def test_specs_load_parameters_from_a_json_file(tmp_path):
    best = tmp_path / "best.json"
    best.write_text(json.dumps({"agent": "ismcts", "params": {"c": 0.42, "iterations": 7}}))
    spec = resolve_spec_files(f"ismcts:@{best}")
    assert spec == "ismcts:c=0.42,iterations=7"  # values, never the path
    assert parse_spec(spec) == ("ismcts", {"c": "0.42", "iterations": "7"}, spec)
    agent = make(resolve_spec_files(f"ismcts:@{best},iterations=9"), make_game("coins"))
    assert agent.config["c"] == 0.42 and agent.config["iterations"] == 9
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"c": 1.5}))
    assert make(resolve_spec_files(f"ismcts:@{plain}"), make_game("coins")).config["c"] == 1.5


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("{not json", ": not JSON: Expecting property name"),
    (json.dumps({"agent": "pimc", "params": {"c": 1}}), "holds parameters of 'pimc', not 'ismcts'"),
    (json.dumps({"c": [1, 2]}), "'c' must be a number, true or false, or a text without"),
    (json.dumps([1, 2]), "parameter file .* must be an object, not \\[1, 2\\]"),
])
def test_a_missing_or_bad_parameter_file_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "best.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SpecError, match=message):
        resolve_spec_files(f"ismcts:@{path}")


def test_a_bad_value_in_a_parameter_file_names_the_parameter(tmp_path):
    path = tmp_path / "best.json"
    path.write_text(json.dumps({"c": "lots"}))
    with pytest.raises(SpecError, match="c='lots' must be a number"):
        make(resolve_spec_files(f"ismcts:@{path}"), make_game("coins"))



def test_several_parameter_files_merge_in_order_and_the_specs_own_items_win(tmp_path):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_text(json.dumps({"c": 0.5, "iterations": 30}))
    second.write_text(json.dumps({"c": 0.7}))
    assert resolve_spec_files(f"ismcts:@{first},@{second}") == "ismcts:c=0.7,iterations=30"
    assert resolve_spec_files(f"ismcts:@{first},c=2,@{second}") == "ismcts:c=2,iterations=30"


@pytest.mark.parametrize("params, message", [
    ({"c": "1,iterations=5"}, "'c' must be a number, true or false, or a text without ','"),
    ({"c": "random+heuristic"}, "'c' must be a number, true or false, or a text without"),
    ({"c x": 1}, "'c x' must be a parameter's name, not 'c x'"),
])
def test_a_parameter_file_holds_only_what_a_spec_can_write(tmp_path, params, message):
    """A value with a comma would become a second item of the spec it is written into."""
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(params))
    with pytest.raises(SpecError, match=re.escape(message)):
        resolve_spec_files(f"ismcts:@{path}")


def test_parameters_tuned_in_another_game_load_with_a_warning(tmp_path, capsys):
    best = tmp_path / "best.json"
    best.write_text(json.dumps({"agent": "ismcts", "params": {"c": 0.42}, "game": "kozel"}))
    said = []
    assert resolve_spec_files(f"ismcts:@{best}", "kozel", said.append) == "ismcts:c=0.42"
    assert resolve_spec_files(f"ismcts:@{best}", None, said.append) == "ismcts:c=0.42"
    assert said == []  # the file's own game, or no game known: nothing to say
    assert resolve_spec_files(f"ismcts:@{best}+heuristic", "coins", said.append) == "ismcts:c=0.42+heuristic"
    assert said == [f"parameter file {str(best)!r} was tuned in 'kozel'; it is used here in 'coins'"]
    said.clear()
    resolve_spec_files(f"ismcts:@{best}", ["kozel", "coins", "aluette"], said.append)
    assert said and said[0].endswith("it is used here in 'coins', 'aluette'")
    plain = tmp_path / "plain.json"  # a plain object of values records no game
    plain.write_text(json.dumps({"c": 1.5}))
    resolve_spec_files(f"ismcts:@{plain}", "coins", said.append)
    assert len(said) == 1

    # the commands say it on stderr, one line, and go on
    capsys.readouterr()
    assert main(["play", "coins", "--agents", *[f"ismcts:@{best},iterations=5"] * 2, "random",
                 "--seed", "3", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "slagwerk: warning: parameter file" in err
    assert err.count("tuned in 'kozel'; it is used here in 'coins'") == 1  # once, for two seats


# ------------------------------------------------------------------ the command


def test_tune_command_end_to_end(tmp_path, capsys):
    folder = tmp_path / "cli"
    status = main(["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0:log",
                   "--param", "iterations=4", "--opponents", "random", "heuristic", "--budget", "60",
                   "--groups", "1", "--seed", "2", "--jobs", "1", "--max-groups", "4", "--quiet",
                   "--results", str(folder)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "method spsa, 20 evaluations of 1 duplicate groups" in out
    assert "recommended: ismcts:iterations=4,c=" in out and "confirmation:" in out
    assert "best.json" in err
    best = json.loads((folder / "best.json").read_text())
    spec = resolve_spec_files(f"ismcts:@{folder / 'best.json'}")
    assert make(spec, make_game("coins")).config["c"] == best["params"]["c"]

    status = main(["tune", "--resume", str(folder), "--json", "--quiet", "--jobs", "1"])
    out, _ = capsys.readouterr()
    assert status == 0 and json.loads(out)["params"] == best["params"]


def test_tune_says_how_large_its_confirmation_may_grow_and_what_an_undecided_one_means(tmp_path, capsys):
    status = main(["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0:log",
                   "--param", "iterations=4", "--opponents", "random", "--budget", "60",
                   "--groups", "1", "--seed", "2", "--jobs", "1", "--max-groups", "1",
                   "--results", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert status == 0, err
    first = next(line for line in err.splitlines() if line.startswith("tune:"))
    assert first == ("tune: 20 evaluations of 1 duplicate groups (3 games each, 60 games) by spsa; then an "
                     "SPRT of the best against the defaults, of at most 1 duplicate groups (it stops as soon "
                     "as it decides)")
    if "confirmation: the recommendation is the agent's default" not in out:  # one group decides nothing
        assert "confirmation: undecided: the SPRT reached its limit of 1 groups without accepting" in out
    assert "not shown" not in out


@pytest.mark.parametrize("argv, message", [
    (["--param", "c=2:1"], "low end must be below"),
    (["--param", "x=1:2"], "unknown parameter 'x'"),
    (["--param", "c=0.1:3", "--budget", "30"], "SPSA needs 20"),
])
def test_tune_command_errors(tmp_path, capsys, argv, message):
    base = ["tune", "--game", "coins", "--agent", "ismcts", "--opponents", "random", "--budget", "60",
            "--groups", "1", "--quiet", "--results", str(tmp_path / "x")]
    assert main(base + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_tune_command_needs_its_settings(capsys):
    assert main(["tune", "--game", "coins"]) == 2
    assert "tune needs --agent, --opponents, --budget" in capsys.readouterr().err


def test_plot_is_written_when_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_tuning(tiny_config(confirm=False), tmp_path / "plot", progress=False)
    assert result.plotted and (tmp_path / "plot" / "trajectory.png").stat().st_size > 1000
