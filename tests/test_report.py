"""Tournament reports: ``report.md`` with plots after every run, rebuilt by ``slagwerk report``."""

from __future__ import annotations

import json

import pytest
from test_experiments import assert_real_image

from slagwerk.cli import main
from slagwerk.experiments.harness.ratings import groups_from_lines
from slagwerk.experiments.harness.report import convergence, load_tournament
from slagwerk.experiments.harness.results import REPORT_MD, REPORT_PLOTS

AGENTS = ["random", "heuristic", "ismcts:iterations=8,label=ismcts-8"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished Coins tournament run from the command line, and what it printed."""
    folder = tmp_path_factory.mktemp("report") / "run"
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["tournament", "--game", "coins", "--agents", *AGENTS, "--deals", "8", "--seed", "3",
                     "--jobs", "1", "--bootstrap", "80", "--quiet", "--results", str(folder)])
    assert code == 0
    return folder, out.getvalue()


def test_every_tournament_folder_gets_a_report_with_its_plots(finished):
    folder, _ = finished
    report = (folder / REPORT_MD).read_text()
    assert (folder / "summary.md").read_text().rstrip("\n") in report  # the run's summary, whole
    for name in REPORT_PLOTS:
        assert f"]({name})" in report
        assert_real_image(folder / name)


def test_report_rebuilds_the_same_summary_and_replaces_only_its_files(finished, capsys):
    folder, printed = finished
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    for name in (REPORT_MD, *REPORT_PLOTS):
        (folder / name).write_bytes(b"stale")
    (folder / "notes.txt").write_text("mine\n")
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out == printed  # the ranking table the run printed
    assert (folder / REPORT_MD).read_bytes() == before[REPORT_MD]
    for name in REPORT_PLOTS:
        assert_real_image(folder / name)
    for name, data in before.items():
        if name not in (REPORT_MD, *REPORT_PLOTS):
            assert (folder / name).read_bytes() == data, f"{name} was rewritten"
    assert (folder / "notes.txt").read_text() == "mine\n"
    result, _ = load_tournament(folder)
    summary = json.loads((folder / "summary.json").read_text())
    assert result.ranking_json()["ranking"] == summary["ranking"]


def test_convergence_ends_at_the_final_ratings(finished):
    """The convergence figure's last point is the ranking's own fit (same games, same model)."""
    folder, _ = finished
    result, lines = load_tournament(folder)
    labels = list(result.ratings.labels)
    checkpoints, fitted, low, high = convergence(groups_from_lines(lines, len(labels)), labels)
    assert checkpoints[-1] == result.ratings.groups == 8
    assert checkpoints == sorted(set(checkpoints)) and checkpoints[0] >= 1
    final = {row.agent: row.rating for row in result.ratings.ranking}
    assert fitted[-1] == pytest.approx([final[label] for label in labels], abs=1e-6)
    assert (low <= fitted).all() and (fitted <= high).all() and (high - low)[-1].min() > 0
    report = (folder / REPORT_MD).read_text()
    best = result.ratings.ranking[0]
    assert f"| 8 | {best.rating:.0f} |" in report


def test_report_on_an_unfinished_run_or_an_empty_folder_is_a_one_line_error(finished, tmp_path, capsys):
    folder, _ = finished
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "config.json").write_bytes((folder / "config.json").read_bytes())
    games = (folder / "games.jsonl").read_text().splitlines(keepends=True)
    (partial / "games.jsonl").write_text("".join(games[:5]))
    assert main(["report", str(partial)]) == 2
    err = capsys.readouterr().err
    assert f"{len(games) - 5} of {len(games)} games are not played yet" in err and err.count("\n") == 1
    assert not (partial / REPORT_MD).exists()
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "nothing': no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "no tournament or experiment there" in capsys.readouterr().err


TAMPERED_TOURNAMENT = [
    ({"bootstrap": 5}, "'bootstrap' must be an integer from 10 to 100000, not 5"),
    ({"bootstrap": "abc"}, "'bootstrap' must be an integer from 10 to 100000, not 'abc'"),
    ({"deals": 1e30}, "'deals' must be an integer from 1 to 100000, not 1e+30"),
    ({"agents": [1, "heuristic"]}, "'agents' must be a list of non-empty strings (at least 2), not [1, "),
    ({"move_time": "x"}, "'move_time' must be a number above 0 and at most 604800 or null, not 'x'"),
    ({"records": "yes"}, "'records' must be true or false, not 'yes'"),
    ({"seed": "5"}, "'seed' must be an integer 0..2**63-1, not '5'"),
    ({"unit": "hand"}, "'unit' must be one of deal, match, not 'hand'"),
    ({"zzz": 1}, "unknown setting 'zzz' (settings: game, options, seed, unit, "),
    ({"game": None}, "'game' must be a non-empty string, not null"),
    ({"experiment": "x"}, "'experiment' must be an object or null, not 'x'"),
]


def tampered_copy(folder, where, change: dict, drop: tuple = ()):
    """A copy of the run in ``folder`` at ``where`` whose config.json has ``change``."""
    import shutil

    shutil.copytree(folder, where)
    config = json.loads((where / "config.json").read_text())
    config = {k: v for k, v in {**config, **change}.items() if k not in drop}
    (where / "config.json").write_text(json.dumps(config))
    return where


@pytest.mark.parametrize("change, message", TAMPERED_TOURNAMENT)
def test_a_tampered_config_is_a_one_line_error_naming_file_key_and_value(finished, tmp_path, capsys,
                                                                          change, message):
    """A config.json edited by hand: `report` and `--resume` say which file, which key and what
    value is wrong, in one line, and touch nothing."""
    folder, _ = finished
    tampered = tampered_copy(folder, tmp_path / "tampered", change)
    before = {p.name: p.read_bytes() for p in tampered.iterdir()}
    for argv in (["report", str(tampered)], ["tournament", "--resume", str(tampered), "--quiet"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {tampered / 'config.json'}: ") and message in err, err
        assert err.count("\n") == 1, err
    assert {p.name: p.read_bytes() for p in tampered.iterdir()} == before


def test_report_names_a_file_given_for_a_folder(finished, capsys):
    folder, _ = finished
    assert main(["report", str(folder / "config.json")]) == 2
    assert "config.json': a file, not folder (give the results folder" in capsys.readouterr().err


def test_a_config_without_a_needed_setting_names_it(finished, tmp_path, capsys):
    folder, _ = finished
    tampered = tampered_copy(folder, tmp_path / "tampered", {}, drop=("deals",))
    assert main(["report", str(tampered)]) == 2
    assert "config.json: the setting 'deals' is missing" in capsys.readouterr().err


def test_report_rebuilds_an_experiment_folder_too(tmp_path, capsys):
    folder = tmp_path / "curve"
    assert main(["experiment", "budget", "--game", "coins", "--agent", "ismcts", "--opponents", "random",
                 "--budgets", "3,9", "--deals", "2", "--jobs", "1", "--bootstrap", "30", "--quiet",
                 "--results", str(folder)]) == 0
    document = (folder / "budget.json").read_text()
    for name in ("budget.json", "budget.png", REPORT_MD):
        (folder / name).unlink()
    capsys.readouterr()
    assert main(["report", str(folder)]) == 0
    assert (folder / "budget.json").read_text() == document
    assert_real_image(folder / "budget.png")
    assert "budget.*" in capsys.readouterr().err
    # its own command continues it (and writes the curve), not a plain tournament's
    assert main(["tournament", "--resume", str(folder), "--quiet"]) == 2
    assert f"holds a budget experiment: continue it with slagwerk experiment budget --resume {folder}" \
        in capsys.readouterr().err



@pytest.mark.parametrize("change, message", [
    ({"budgets": [3, "9"]}, "'budgets' must be a list of numbers above 0, not [3, '9']"),
    ({"budgets": [3, -9]}, "'budgets' must be a list of numbers above 0, not [3, -9]"),
    ({"budgets": [3, 9.5]}, "'budgets' must be whole numbers of iterations, not [3, 9.5]"),
    ({"by": "foo"}, "'by' must be one of iterations, time, not 'foo'"),
    ({"agents": [1]}, "'agents' must be a list of non-empty strings (at least 1), not [1]"),
    ({"zzz": 1}, "unknown setting 'zzz'"),
])
def test_a_tampered_experiment_config_is_a_one_line_error(tmp_path, capsys, change, message):
    """The curve experiment's own settings in config.json are checked as a tournament's are."""
    folder = tmp_path / "curve"
    assert main(["experiment", "budget", "--game", "coins", "--agent", "ismcts", "--opponents", "random",
                 "--budgets", "3,9", "--deals", "2", "--jobs", "1", "--bootstrap", "30", "--quiet",
                 "--results", str(folder)]) == 0
    config = json.loads((folder / "config.json").read_text())
    config["experiment"] = {**config["experiment"], **change}
    (folder / "config.json").write_text(json.dumps(config))
    capsys.readouterr()
    for argv in (["report", str(folder)], ["experiment", "budget", "--resume", str(folder), "--quiet"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {folder / 'config.json'}, 'experiment': ") and message in err, err
        assert err.count("\n") == 1, err


def test_report_on_the_folder_of_a_tournament_in_several_games_reports_each(finished, tmp_path, capsys):
    import shutil

    folder, printed = finished
    root = tmp_path / "all"
    shutil.copytree(folder, root / "coins")
    (root / "coins" / REPORT_MD).unlink()
    assert main(["report", str(root)]) == 0
    assert capsys.readouterr().out == printed
    assert (root / "coins" / REPORT_MD).read_bytes() == (folder / REPORT_MD).read_bytes()


def test_a_rating_outside_its_bootstrap_interval_still_plots(tmp_path, capsys):
    """A percentile interval of few resamples need not contain the estimate
    (here seed 2 of 4 deals, 10 resamples: 'random' 1244 in [1249, 1382]);
    the plot draws that arm as 0 instead of failing the whole report."""
    from slagwerk.experiments.harness.plots import interval_arms

    below, above = interval_arms([1244.2, 1500.0], [1248.7, 1400.0], [1381.5, 1600.0])
    assert below.tolist() == [0.0, 100.0] and [round(a, 1) for a in above] == [137.3, 100.0]
    folder = tmp_path / "few"
    assert main(["tournament", "--game", "coins", "--agents", "random", "heuristic", "ismcts:iterations=20",
                 "--deals", "4", "--bootstrap", "10", "--seed", "2", "--jobs", "1", "--quiet",
                 "--results", str(folder)]) == 0
    assert "random" in capsys.readouterr().out
    for name in REPORT_PLOTS:
        assert_real_image(folder / name)
    with pytest.raises(SystemExit):
        main(["tournament", "--game", "coins", "--agents", "random", "heuristic", "--bootstrap", "9",
              "--results", str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert "error: argument --bootstrap: must be an integer from 10" in err and err.count("\n") == 1
    assert not (tmp_path / "none").exists()
