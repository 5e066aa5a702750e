"""Tournaments end to end: workers, resume after a kill, forfeits, specs, CLI, Dask, evaluate."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from slagwerk.agents import Agent, Decision
from slagwerk.agents.registry import AGENTS, register
from slagwerk.cli import main
from slagwerk.errors import OptionError, SpecError
from slagwerk.experiments.harness.results import ResultsFolder
from slagwerk.experiments.harness.runner import ExperimentError
from slagwerk.experiments.harness.tournament import TournamentConfig, evaluate, run_tournament
from slagwerk.settings import SettingsError

SMALL = TournamentConfig("coins", ("random", "heuristic"), deals=6, seed=4, bootstrap=50)


def games_without_time(folder) -> dict:
    games = ResultsFolder.open(folder).load_games()
    return {index: {k: v for k, v in line.items() if k not in ("time", "think")}
            for index, line in games.items()}


def test_one_worker_and_two_workers_give_identical_results(tmp_path):
    one = run_tournament(SMALL, tmp_path / "one", jobs=1, progress=False)
    two = run_tournament(SMALL, tmp_path / "two", jobs=2, progress=False)
    assert one.ratings == two.ratings
    assert one.ranking_json() == two.ranking_json()
    assert games_without_time(tmp_path / "one") == games_without_time(tmp_path / "two")
    assert one.games == 6 * 3  # coins, two agents: every table has three distinct rotations


def test_results_folder_holds_config_lines_and_summaries(tmp_path):
    result = run_tournament(SMALL, tmp_path / "run", jobs=1, progress=False)
    folder = tmp_path / "run"
    assert json.loads((folder / "config.json").read_text())["agents"] == ["random", "heuristic"]
    lines = (folder / "games.jsonl").read_text().splitlines()
    assert len(lines) == result.games
    line = json.loads(lines[0])
    assert {"agents", "table", "seed", "reward", "points", "time", "forfeit"} <= set(line)
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["ranking"] == result.ranking_json()["ranking"]
    assert summary["head_to_head"]["heuristic"]["random"]["won"] >= 1
    assert "| # | agent | rating |" in (folder / "summary.md").read_text()
    with pytest.raises(ExperimentError, match="already holds a tournament"):
        run_tournament(SMALL, folder, jobs=1, progress=False)


def test_resume_after_a_kill_loses_and_repeats_nothing(tmp_path):
    folder = tmp_path / "killed"
    command = [sys.executable, "-m", "slagwerk", "tournament", "--game", "coins", "--agents", "random",
               "heuristic", "--deals", "80", "--seed", "8", "--jobs", "1", "--bootstrap", "20",
               "--quiet", "--results", str(folder)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    games = folder / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if games.exists() and games.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = games.read_bytes()
    finished = before.count(b"\n")
    assert 10 <= finished < 240, "the tournament must be killed part-way"
    with open(games, "ab") as fh:  # as if the kill had cut a line in half
        fh.write(b'{"index": 4')

    resumed = run_tournament(None, folder, resume=True, jobs=1, progress=False)
    data = games.read_bytes()
    assert data.startswith(before)  # no finished game was lost or rewritten
    indices = [json.loads(line)["index"] for line in data.splitlines()]
    assert len(indices) == len(set(indices)) == 240 == resumed.games
    fresh = run_tournament(TournamentConfig("coins", ("random", "heuristic"), deals=80, seed=8,
                                            bootstrap=20), tmp_path / "fresh", jobs=1, progress=False)
    assert games_without_time(folder) == games_without_time(tmp_path / "fresh")
    assert resumed.ratings == fresh.ratings


# ------------------------------------------------------------------ faults


class _Crasher(Agent):
    name = "test-crasher"

    def decide(self, view):
        raise RuntimeError("boom")


class _Sleeper(Agent):
    name = "test-sleeper"

    def decide(self, view):
        time.sleep(30)
        return Decision(view["legal_actions"][0])


class _Cheater(Agent):
    name = "test-illegal"

    def decide(self, view):
        return Decision("not-a-card")


@pytest.fixture
def faulty_agents():
    classes = (_Crasher, _Sleeper, _Cheater)
    for cls in classes:
        register(cls)
    yield
    for cls in classes:
        AGENTS.pop(cls.name)


def test_faulty_agents_forfeit_and_the_tournament_goes_on(faulty_agents, tmp_path):
    config = TournamentConfig("coins", ("heuristic", "test-crasher", "test-sleeper", "test-illegal"),
                              deals=8, seed=2, move_time=0.3, bootstrap=50)
    start = time.monotonic()
    result = run_tournament(config, tmp_path / "faults", jobs=1, progress=False)
    # the sleeper was cut off at the limit, not waited for (30 s a move); the bound leaves
    # room for a loaded machine
    assert time.monotonic() - start < 60
    errors = {fault["agent"]: fault["error"] for fault in result.forfeits}
    assert errors["test-crasher"] == "RuntimeError: boom"
    assert "time limit of 0.3 s" in errors["test-sleeper"]
    assert "illegal action" in errors["test-illegal"] and "not-a-card" in errors["test-illegal"]
    assert result.ratings.ranking[0].agent == "heuristic"
    lines = ResultsFolder.open(tmp_path / "faults").load_games().values()
    for line in lines:
        if line["forfeit"]:
            seat = line["forfeit"]["seat"]
            assert line["reward"][seat] == 0.0 and line["points"] is None
            assert line["agents"][seat] == line["forfeit"]["agent"]
    assert result.games == len(lines) == 8 * 3


def test_a_forfeit_loses_every_seat_the_faulty_agent_plays(faulty_agents, tmp_path):
    """docs/protocol.md: with two agents at a three-seat table one plays two seats; when
    it forfeits, both its seats score 0 (it must not win on one seat by its fault on the
    other) and the other agent's seat 1."""
    config = TournamentConfig("coins", ("heuristic", "test-illegal"), deals=2, seed=2, bootstrap=20)
    run_tournament(config, tmp_path / "two", jobs=1, progress=False)
    lines = list(ResultsFolder.open(tmp_path / "two").load_games().values())
    doubled = [line for line in lines if line["agents"].count("test-illegal") == 2]
    assert doubled and all(line["forfeit"] for line in lines)
    for line in lines:
        assert line["reward"] == [0.0 if a == "test-illegal" else 1.0 for a in line["agents"]]


def test_evaluate_counts_forfeits_by_seat_not_by_label(faulty_agents):
    """A candidate evaluated against a copy of itself: each game's forfeit is the
    candidate's or the opponent's by the seat that made it, though both share a label."""
    result = evaluate("coins", {}, "test-illegal", ["test-illegal"], groups=2, seed=1)
    assert result.forfeits[0] > 0 and result.forfeits[1] > 0
    assert "not-a-card" in result.forfeit_reason
    clean = evaluate("coins", {}, "heuristic", ["test-illegal"], groups=2, seed=1)
    assert clean.forfeits[0] == 0 and clean.forfeits[1] > 0 and clean.forfeit_reason is None


@pytest.mark.parametrize(
    "agents, error, message",
    [(("random", "nosuch"), SpecError, "unknown agent 'nosuch'"),
     (("random", "heuristic:depth=2"), SpecError, "unknown parameter 'depth'"),
     (("random", "ismcts:iterations=many"), SpecError, "iterations='many' must be an integer from 1"),
     (("random", "ismcts:c=nan"), SpecError, "c='nan' must be a number from 0"),  # nan passes range checks
     (("random",), SettingsError, r"'agents' must be a list of non-empty strings \(at least 2\)"),
     (("random", "random"), ExperimentError, "share the label 'random'")],
)
def test_bad_specs_are_errors_before_anything_runs(tmp_path, agents, error, message):
    with pytest.raises(error, match=message):
        run_tournament(TournamentConfig("coins", agents, deals=2), tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad").exists()


def test_too_few_deals_for_every_agent_to_play_is_an_error(tmp_path):
    """Group g plays table g mod (number of tables): with fewer groups than the
    table where an agent first sits, it would be 'rated' without a game."""
    agents = ("random", "heuristic", "ismcts:iterations=5", "pimc:worlds=2,iterations_per_world=2")
    config = TournamentConfig("coins", agents, deals=2)
    assert len(config.tables()) == 8  # four agents, three seats
    with pytest.raises(ExperimentError, match=r"with --deals 2, pimc:worlds=2,iterations_per_world=2 would "
                       r"play no game \(the agents sit at 8 different tables.*give --deals 3 or more"):
        run_tournament(config, tmp_path / "few", progress=False)
    assert not (tmp_path / "few").exists()
    TournamentConfig("coins", agents, deals=3).validate()


# ------------------------------------------------------------------ command line


def test_cli_json_prints_the_ranking_object(tmp_path, capsys):
    assert main(["tournament", "--game", "coins", "--agents", "heuristic", "random:label=rnd",
                 "--deals", "4", "--jobs", "1", "--json", "--quiet", "--bootstrap", "30",
                 "--results", str(tmp_path / "cli")]) == 0
    ranking = json.loads(capsys.readouterr().out)
    assert set(ranking) == {"game", "unit", "groups", "ranking"}
    assert (ranking["game"], ranking["unit"], ranking["groups"]) == ("coins", "deal", 4)
    assert [row["agent"] for row in ranking["ranking"]] == ["heuristic", "rnd"]
    assert set(ranking["ranking"][0]) == {"agent", "rating", "ci95", "ci95_open", "mean_score",
                                          "mean_score_ci95"}


def test_cli_resume_continues_a_finished_folder_without_playing_again(tmp_path, capsys):
    argv = ["tournament", "--game", "coins", "--agents", "heuristic", "random", "--deals", "3",
            "--jobs", "1", "--quiet", "--bootstrap", "20", "--results", str(tmp_path / "r")]
    assert main(argv) == 0
    first = capsys.readouterr().out
    size = (tmp_path / "r" / "games.jsonl").stat().st_size
    assert main(["tournament", "--resume", str(tmp_path / "r"), "--quiet", "--jobs", "1"]) == 0
    assert capsys.readouterr().out == first
    assert (tmp_path / "r" / "games.jsonl").stat().st_size == size


@pytest.mark.parametrize(
    "argv, message",
    [(["tournament", "--game", "coins", "--agents", "random", "nosuch"], "unknown agent 'nosuch'"),
     (["tournament", "--target", "5"], "need one --game"),
     (["tournament", "--game", "coins", "--deals", "0"], "--deals: must be an integer from 1 to 100000"),
     (["tournament", "--resume", "/nonexistent/folder"], "no tournament there"),
     (["sprt", "heuristic", "random", "--game", "coins", "--elo0", "5", "--elo1", "0"],
      "--elo0 must be below --elo1")],
)
def test_cli_errors_are_one_line(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as stop:  # refused by the parser, before the command runs
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and "error: " in err and err.count("\n") == 1
    assert message in err and "Traceback" not in err


def test_cli_sprt_prints_the_running_test_and_a_verdict(capsys):
    assert main(["sprt", "heuristic", "random", "--game", "coins", "--elo1", "200", "--jobs", "1",
                 "--every", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("groups     1  W-D-L") and "LLR" in out[0] and "Elo" in out[0]
    assert out[-1].startswith("accept H1: heuristic is at least 200 Elo stronger than random")


def test_main_job_runs_every_game_with_the_built_in_agents(tmp_path, capsys, monkeypatch):
    """The README's first command, cut to three groups per game (every agent then plays)."""
    from slagwerk.engine import GAME_NAMES

    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--deals", "3", "--jobs", "1", "--quiet", "--bootstrap", "10"]) == 0
    out = capsys.readouterr().out
    for name in GAME_NAMES:
        assert f"{name}: 3 duplicate groups" in out
    assert "random" in out and "heuristic" in out
    assert len(list((tmp_path / "slagwerk-results").iterdir())) == 1


# ------------------------------------------------------------------ Dask and evaluate


def test_dask_backend_on_a_local_cluster_gives_the_same_results(tmp_path):
    distributed = pytest.importorskip(
        "dask.distributed", reason="dask is an optional extra: pip install -e '.[dask]'")
    config = TournamentConfig("coins", ("random", "heuristic"), deals=3, seed=6, bootstrap=20)
    local = run_tournament(config, tmp_path / "local", jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = run_tournament(config, tmp_path / "dask", backend="dask",
                                scheduler=cluster.scheduler_address, progress=False)
    assert remote.ratings == local.ratings
    assert games_without_time(tmp_path / "dask") == games_without_time(tmp_path / "local")


def test_evaluate_scores_the_candidate_on_common_deals():
    strong = evaluate("coins", {}, "heuristic", ["random"], groups=6, seed=3)
    weak = evaluate("coins", {}, "random", ["random"], groups=6, seed=3)
    assert strong.groups == len(strong.scores) == 6
    assert 0.0 <= weak.mean < strong.mean <= 1.0 and strong.stderr > 0
    assert evaluate("coins", {}, "heuristic", ["random"], groups=6, seed=3) == strong
    assert evaluate("coins", {"target": 15}, "heuristic", ["random", "heuristic"], groups=2,
                    seed=3, unit="match").groups == 2
    with pytest.raises(OptionError):
        evaluate("coins", {"players": 9}, "heuristic", ["random"], groups=2, seed=1)

