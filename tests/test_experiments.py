"""The curve experiments (``slagwerk experiment budget|information``) end to end at tiny budgets.

Each test runs the experiment through the command line into a results folder,
then checks the written CSV and JSON against the games in ``games.jsonl``
(decisions, time per decision, seats), against the tournament's own
``summary.json`` (ratings and intervals), and that the plots are real
images.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from slagwerk.cli import main
from slagwerk.errors import SpecError
from slagwerk.experiments.harness.runner import ExperimentError
from slagwerk.experiments.studies.budget import CurveConfig, parse_budgets, with_budget

TINY = ["--budgets", "4,16", "--seed", "5", "--jobs", "1", "--bootstrap", "60", "--quiet"]
"""Tiny budgets; the tests give enough --deals for every entry to meet every table's others."""


def assert_real_image(path, min_bytes=8000):
    """A PNG file that decodes to a picture with something drawn on it."""
    from matplotlib.image import imread

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > min_bytes, path
    pixels = imread(path)
    assert pixels.shape[0] > 200 and pixels.shape[1] > 300
    assert float(pixels[..., :3].var()) > 1e-3, f"{path} is blank"


def games_of(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def measured(games: list[dict]) -> dict[str, dict]:
    """Per label, straight from the games: seats held, decisions and their seconds."""
    out: dict[str, dict] = {}
    for game in games:
        for seat, label in enumerate(game["agents"]):
            entry = out.setdefault(label, {"seat_games": 0, "decisions": 0, "seconds": 0.0})
            entry["seat_games"] += 1
            entry["decisions"] += game["decisions"][seat]
            entry["seconds"] += game["think"][seat]
    return out


def check_rows_against_games(folder, rows: list[dict]) -> None:
    summary = json.loads((folder / "summary.json").read_text())
    ranking = {row["agent"]: row for row in summary["ranking"]}
    from_games = measured(games_of(folder))
    assert {row["label"] for row in rows} == set(ranking) == set(from_games)
    for row in rows:
        games = from_games[row["label"]]
        assert row["rating"] == ranking[row["label"]]["rating"]
        assert [row["ci_low"], row["ci_high"]] == ranking[row["label"]]["ci95"]
        assert row["seat_games"] == games["seat_games"]
        assert row["decisions"] == games["decisions"] > 0
        assert row["seconds_per_decision"] == pytest.approx(games["seconds"] / games["decisions"], rel=1e-5)


def test_budget_experiment_writes_what_its_games_give(tmp_path, capsys):
    folder = tmp_path / "budget"
    assert main(["experiment", "budget", "--game", "coins", "--agent", "ismcts", "--agent", "pimc",
                 "--opponents", "random", *TINY, "--deals", "6", "--results", str(folder)]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    # 5 entries at 3 seats: 20 tables, so 6 groups cannot meet them all equally often
    assert "the entries sit at 20 different tables" in captured.err
    document = json.loads((folder / "budget.json").read_text())
    assert document["tables"] == 20
    rows = document["rows"]
    assert [(row["curve"], row["budget"]) for row in rows] == [
        ("ismcts", 4), ("ismcts", 16), ("pimc", 4), ("pimc", 16), (None, None)]
    assert rows[1]["spec"] == "ismcts:iterations=16,label=ismcts-16"
    assert rows[3]["spec"] == "pimc:worlds=2,iterations_per_world=8,label=pimc-16"  # 40 x 250 split
    check_rows_against_games(folder, rows)
    games = games_of(folder)
    assert document["games"] == len(games) == 18 and document["groups"] == 6
    # every seat-decision of a search entry is counted: a Coins deal has 16 decisions per seat
    assert all(row["decisions"] == 16 * row["seat_games"] for row in rows)
    with open(folder / "budget.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [r["label"] for r in table] == [r["label"] for r in rows]
    assert [float(r["rating"]) for r in table] == [r["rating"] for r in rows]
    assert [int(r["decisions"]) for r in table] == [r["decisions"] for r in rows]
    assert_real_image(folder / "budget.png")
    assert (folder / "budget.svg").read_text().lstrip().startswith("<?xml")
    markdown = (folder / "budget.md").read_text()
    assert "![budget](budget.png)" in markdown and "`ismcts-16`" in markdown
    for row in rows:
        assert f"{row['rating']:.0f}" in printed
    assert (folder / "report.md").is_file()  # the tournament's own report too


def test_information_experiment_gap_is_the_difference_of_the_ratings(tmp_path, capsys):
    folder = tmp_path / "information"
    assert main(["experiment", "information", "--game", "kozel", *TINY, "--deals", "10",
                 "--results", str(folder)]) == 0
    document = json.loads((folder / "information.json").read_text())
    check_rows_against_games(folder, document["rows"])
    labels = [row["label"] for row in document["rows"]]
    assert labels == ["ismcts-4", "ismcts-16", "cheat-4", "cheat-16", "heuristic"]
    summary = json.loads((folder / "summary.json").read_text())
    rating = {row["agent"]: row["rating"] for row in summary["ranking"]}
    for gap in document["gaps"]:
        budget = gap["budget"]
        assert (gap["view"], gap["cheat"]) == (f"ismcts-{budget}", f"cheat-{budget}")
        assert gap["gap"] == pytest.approx(rating[f"cheat-{budget}"] - rating[f"ismcts-{budget}"], abs=0.11)
        assert gap["gap_ci_low"] <= gap["gap_ci_high"]
    with open(folder / "information.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [float(r["gap"]) for r in table] == [g["gap"] for g in document["gaps"]]
    assert_real_image(folder / "information.png")
    assert "the deal is worth" in capsys.readouterr().out


def test_resume_of_a_finished_experiment_plays_nothing_and_writes_the_same(tmp_path, capsys):
    folder = tmp_path / "run"
    args = ["experiment", "budget", "--game", "coins", "--agent", "ismcts", "--opponents", "random",
            "--budgets", "3,9", "--deals", "2", "--jobs", "1", "--bootstrap", "40", "--quiet"]
    assert main([*args, "--results", str(folder)]) == 0
    games = (folder / "games.jsonl").read_bytes()
    first = (folder / "budget.json").read_text()
    (folder / "budget.csv").unlink()
    assert main(["experiment", "budget", "--resume", str(folder), "--quiet"]) == 0
    assert (folder / "games.jsonl").read_bytes() == games
    assert (folder / "budget.json").read_text() == first and (folder / "budget.csv").is_file()
    capsys.readouterr()
    # a setting given again must agree with the stored one
    assert main(["experiment", "budget", "--resume", str(folder), "--budgets", "3,10"]) == 2
    assert "--budgets 3 10 conflicts with 3 9" in capsys.readouterr().err
    assert main(["experiment", "information", "--resume", str(folder)]) == 2
    assert "holds the experiment 'budget', not 'information'" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--budgets", "0,10"], "--budgets: '0' is not a positive budget"),
    (["--budgets", "10,ten"], "--budgets: 'ten' is not a number"),
    (["--budgets", "2.5"], "not a whole number of iterations"),
    (["--budgets", "10,10"], "names a budget twice"),
    (["--agent", "heuristic", "--budgets", "10"], "agent 'heuristic' has no parameter 'iterations'"),
    (["--agent", "ismcts:iterations=5", "--budgets", "10"], "sets iterations, which the experiment's"),
    (["--agent", "ismcts", "--budgets", "10", "--opponents", "nobody"], "unknown agent 'nobody'"),
])
def test_bad_settings_are_one_line_errors_before_any_game(tmp_path, capsys, args, message):
    argv = ["experiment", "budget", "--game", "coins", "--results", str(tmp_path / "x"), *args]
    if "--agent" not in args:
        argv += ["--agent", "ismcts"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "x" / "games.jsonl").exists()


def test_budgets_by_time_and_by_iterations():
    assert parse_budgets("300,30,100") == (30, 100, 300)
    assert parse_budgets("2.5,10", by="time") == (2.5, 10.0)
    assert with_budget("ismcts:c=0.5", 20, "time") == "ismcts:c=0.5,time_ms=20,label=ismcts:c=0.5-20ms"
    assert with_budget("pimc", 10000) == "pimc:worlds=40,iterations_per_world=250,label=pimc-10000"
    assert with_budget("pimc", 1000).startswith("pimc:worlds=13,iterations_per_world=77,")
    assert with_budget("cheat:label=oracle", 50) == "cheat:iterations=50,label=oracle-50"
    with pytest.raises(SpecError, match="partnership"):
        CurveConfig("budget", "kozel", ("ismcts+heuristic",), (10,)).entries()
    with pytest.raises(ExperimentError, match="--by"):
        parse_budgets("10", by="seconds")


def test_information_needs_an_agent_that_sees_the_deal(tmp_path, capsys):
    assert main(["experiment", "information", "--game", "coins", "--cheat", "ismcts", "--budgets", "5",
                 "--results", str(tmp_path / "x")]) == 2
    assert "with an agent that sees the true deal (--cheat; 'ismcts' is not one)" in capsys.readouterr().err


def test_experiment_rows_scale_with_budget_in_time_per_decision(tmp_path):
    """Sanity of the measured times: a search with 30 times the iterations takes longer per decision."""
    folder = tmp_path / "time"
    assert main(["experiment", "budget", "--game", "coins", "--agent", "ismcts", "--opponents", "random",
                 "--budgets", "10,300", "--deals", "2", "--jobs", "1", "--bootstrap", "20", "--quiet",
                 "--results", str(folder)]) == 0
    rows = json.loads((folder / "budget.json").read_text())["rows"]
    small, large = (row["seconds_per_decision"] for row in rows[:2])
    assert large > small > 0
    assert np.isfinite([row["rating"] for row in rows]).all()
