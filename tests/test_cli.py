"""The command line: play, replay and bench work end to end; bad input is one clear line."""

from __future__ import annotations

import json

import pytest

from slagwerk.cli import main
from slagwerk.engine.records import replay


def test_play_prints_the_match_and_saves_a_record_that_replays(tmp_path, capsys):
    record_file = tmp_path / "match.json"
    assert main(["play", "coins", "--agents", "heuristic", "random", "random",
                 "--seed", "7", "--record", str(record_file)]) == 0
    out = capsys.readouterr().out
    assert "seat 1:" in out and "-> trick to seat" in out and "final totals" in out
    record = json.loads(record_file.read_text())
    assert record["players"] == ["heuristic", "random", "random"]
    result = replay(record)
    assert result["outcome"] is not None and max(result["totals"]) >= 10


def test_play_is_reproducible(capsys):
    main(["play", "coins", "--seed", "3", "--quiet"])
    first = capsys.readouterr().out
    main(["play", "coins", "--seed", "3", "--quiet"])
    assert capsys.readouterr().out == first


def test_play_takes_the_game_as_the_other_commands_do(capsys):
    main(["play", "coins", "--seed", "3", "--quiet"])
    positional = capsys.readouterr().out
    assert main(["play", "--game", "coins", "--seed", "3", "--quiet"]) == 0
    assert capsys.readouterr().out == positional


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "coins", "--agents", "random", "random"], "or one per seat, not 2"),
        (["play", "coins", "--agents", "nosuch"], "unknown agent 'nosuch'"),
        (["play", "coins", "--agents", "random:depth=3"], "unknown parameter 'depth'"),
        (["play", "coins", "--target", "0"], "target=0 is out of range"),
        (["play", "coins", "-o", "target"], "is not KEY=VALUE"),
        (["play", "coins", "-o", "target=5", "--target", "7"], "--target 7: the option target is already 5"),
        (["play", "coins", "--agents", "random:label=", "random", "random"], "label= needs a name"),
        (["play", "kozel", "--agents", "heuristic+random"], "play takes an agent spec per seat"),
        (["tournament", "--game", "kozel", "--agents", "a+b+c", "random"], "names two agents, not 3"),
        (["tournament", "--game", "coins", "--agents", "heuristic+random", "random"],
         "a partnership A+B is only for the team games (Kozel, Aluette), not coins"),
        (["sprt", "random", "heuristic", "--game", "coins", "--scheduler", "tcp://h:8786"],
         "--scheduler tcp://h:8786 needs --backend dask"),
        (["tournament", "--agents", "random", "--scheduler", "tcp://h:8786", "--backend", "loky"],
         "--scheduler tcp://h:8786 needs --backend dask"),
        ([], "error: name a command (slagwerk COMMAND --help describes one)"),  # after the help
        (["experiment"],
         "error: name an experiment: slagwerk experiment {budget,information,belief,exploitability}"),
    ],
)
def test_bad_input_is_one_clear_error_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["bench", "--seconds", "0"], "--seconds: must be a number above 0 and at most 3600, not 0"),
    (["bench", "--seconds", "nan"], "--seconds: must be a number above 0"),
    (["play", "coins", "--move-time", "inf"],
     "--move-time: must be a number from 0 to 604800 seconds, not inf"),
    (["tournament", "--move-time", "-1"], "--move-time: must be a number from 0 to 604800 seconds"),
    (["sprt", "a", "b", "--game", "coins", "--move-time", "1e400"], "--move-time: must be a number from 0"),
    (["tournament", "--jobs", str(10**20)], "--jobs: must be an integer from -1 to 1024"),
    (["tournament", "--jobs", "0"], "--jobs: must be -1 (every core) or 1 or more, not 0"),
    (["bot", "--time-limit-ms", "99999999999"], "--time-limit-ms: must be 0 or an integer from 10 to"),
    (["bot", "--time-limit-ms", "5"], "--time-limit-ms: must be 0 or an integer from 10 to 604800000, not 5"),
    (["bot", "--max-request-bytes", str(10**20)], "--max-request-bytes: must be an integer from 2 to"),
    (["serve", "--workers", str(10**20)], "--workers: must be an integer from 1 to 256"),
    (["serve", "--port", "70000"], "--port: must be an integer from 0 to 65535"),
    (["experiment", "belief", "--game", "coins", "--temperature", "nan"], "--temperature: must be a number"),
    (["play", "coins", "--seed", "x"], "--seed: not an integer: 'x'"),
    (["tournament", "--game", "coins", "--deals", "1000000000"],
     "--deals: must be an integer from 1 to 100000, not 1000000000"),
    (["tournament", "--bootstrap", str(10**20)], "--bootstrap: must be an integer from 10"),
    (["tournament", "--seed", "x"], "--seed: not an integer: 'x'"),
    (["sprt", "heuristic", "random", "--game", "coins", "--elo1", "inf"],
     "--elo1: must be a number from -1000 to 1000 Elo, not inf"),
    (["sprt", "heuristic", "random", "--game", "coins", "--max-groups", str(10**7)],
     "--max-groups: must be an integer from 1 to 100000"),
    (["play", "coins", "--record", ""], "--record: needs a value, not an empty text"),
    (["play", "--quiet"], "one of the arguments game --game is required"),
    (["play", "kozel", "--game", "coins"], "argument --game: not allowed with argument game"),
    (["tournament", "--results", " "], "--results: needs a value"),
    (["experiment", "budget", "--game", "coins", "--budgets", ""], "--budgets: needs a value"),
])
def test_a_number_out_of_range_is_one_line_from_the_parser_before_anything_runs(argv, message, capsys):
    """A time limit, count or size the operating system, memory or C integers could not
    hold (or a NaN) stops the command at once, on one line naming the option."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and err.count("\n") == 1, err
    assert "--help lists the options" in err


def test_force_keeps_the_earlier_run_when_the_new_settings_are_bad(tmp_path, capsys):
    folder = tmp_path / "run"
    common = ["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "1",
              "--jobs", "1", "--quiet", "--results", str(folder)]
    assert main([*common, "--bootstrap", "10"]) == 0
    before = (folder / "games.jsonl").read_text()
    with pytest.raises(SystemExit):
        main([*common, "--bootstrap", str(10**20), "--force"])
    assert (folder / "games.jsonl").read_text() == before
    bad_agent = [word if word != "heuristic" else "nosuch" for word in common]
    assert main([*bad_agent, "--force"]) == 2
    assert (folder / "games.jsonl").read_text() == before
    with pytest.raises(SystemExit):
        main([*common, "--jobs", str(10**20), "--force"])
    assert (folder / "games.jsonl").read_text() == before


@pytest.mark.parametrize("argv", [["play", "coins", "--seed", "-1"], ["tournament", "--seed", str(2**63)]])
def test_a_seed_out_of_range_is_refused_by_the_parser(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert "argument --seed: " in err and "an integer 0..2**63-1, not " in err


@pytest.mark.parametrize("argv, hint", [
    (["play", "coins", "--qui"], "--qui: did you mean --quiet?"),
    (["tournament", "--deal", "3"], "--deal: did you mean --deals?"),
    (["experiment", "belief", "--game", "coins", "--posit", "3"], "--posit: did you mean --positions?"),
])
def test_an_option_must_be_spelt_in_full_and_a_near_one_is_named(argv, hint, capsys):
    """An abbreviation is not taken for the option it starts (a later option would change
    its meaning); the error names the option meant, on one line."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert "unrecognized arguments" in err and hint in err


@pytest.mark.parametrize("argv, hint", [
    (["tournament", "--game", "kozl"], "invalid choice: 'kozl': did you mean 'kozel'?"),
    (["play", "aluete"], "invalid choice: 'aluete': did you mean 'aluette'?"),
    (["sprt", "heuristc", "random", "--game", "coins"],
     "unknown agent 'heuristc': did you mean 'heuristic'?"),
])
def test_a_misspelt_game_or_agent_is_one_line_naming_the_nearest(argv, hint, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_:  # the parser's errors
        code = exit_.code
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert hint in err.strip().splitlines()[-1]  # one line (sprt says what it runs first)


@pytest.mark.parametrize("argv", [
    ["tournament", "--agents", "heuristic", "random", "--agents", "ismcts"],
    ["tune", "ismcts", "--game", "coins", "--opponents", "heuristic", "--opponents", "random"],
    ["train", "coins", "--hidden", "8", "8", "--hidden", "4", "4"],
])
def test_a_list_option_given_twice_is_refused_not_halved(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "given twice: name every value after one --" in err
    assert len(err.strip().splitlines()) == 1


def test_game_and_agent_names_are_taken_in_any_case(tmp_path, capsys):
    assert main(["tournament", "--game", "Coins", "--agents", "Random", "HEURISTIC", "--deals", "1",
                 "--results", str(tmp_path / "run"), "--quiet"]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert {row["agent"] for row in summary["ranking"]} == {"Random", "HEURISTIC"}


def test_bench_json_rows(capsys):
    assert main(["bench", "--game", "coins", "--seconds", "0.3", "--no-search", "--no-c",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    by_impl = {row["implementation"]: row for row in rows}
    assert by_impl["numba"]["benchmark"] == "random_playout"
    assert by_impl["numba"]["per_second"] > 0
    assert by_impl["python"]["numba_speedup"] > 1


def test_bench_reports_ismcts_iterations_against_playouts(capsys):
    assert main(["bench", "--game", "coins", "--seconds", "0.3", "--no-c", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    search = [row for row in rows if row["benchmark"] == "ismcts_iteration"]
    assert [row["game"] for row in search] == ["coins"]
    assert search[0]["implementation"] == "numba"
    assert search[0]["per_second"] > 0 and search[0]["ratio_to_random_playout"] > 0
    belief = {row["benchmark"]: row for row in rows if row["benchmark"].endswith("_inferred")}
    assert set(belief) == {"ismcts_iteration_inferred", "ismcts_deal_inferred"}
    assert all(row["ratio_to_uniform"] > 0 for row in belief.values())
    assert "45 card decisions of one deal" in belief["ismcts_deal_inferred"]["note"]


def test_jobs_bench_times_one_and_two_workers_against_two_separate_processes():
    from slagwerk.experiments.bench.jobs import jobs_rows

    rows = {row["implementation"]: row for row in jobs_rows(target=1.0)}
    assert set(rows) == {"jobs=1", "jobs=2", "2 processes"}
    assert len({row["groups"] for row in rows.values()}) == 1 and rows["jobs=1"]["groups"] % 2 == 0
    one, two, halves = (rows[k]["seconds"] for k in ("jobs=1", "jobs=2", "2 processes"))
    assert rows["jobs=2"]["speedup"] == pytest.approx(one / two, abs=0.01)
    assert rows["jobs=2"]["efficiency"] == pytest.approx(halves / two, abs=0.01)
    assert rows["2 processes"]["speedup"] == pytest.approx(one / halves, abs=0.01)


IMPORTED_BY = """
import sys
from slagwerk.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted(m for m in sys.modules if m.startswith("slagwerk.cli."))))
"""


def test_a_command_imports_only_its_own_module_and_help_lists_every_command():
    """A run builds only its command's parser (the others import what it does not use);
    ``slagwerk --help`` and a misspelled command still see every command."""
    import subprocess
    import sys

    from slagwerk.cli import COMMAND_MODULES

    def run(*argv):
        done = subprocess.run([sys.executable, "-c", IMPORTED_BY, *argv], capture_output=True,
                              text=True, timeout=300)
        return done.stdout.strip().splitlines()[-1].split(), done.stdout + done.stderr

    modules, _ = run("bot", "--help")
    assert {m.removeprefix("slagwerk.cli.") for m in modules} <= {"app", "bot", "options"}
    assert "slagwerk.cli.bot" in modules
    modules, text = run("--help")
    assert {f"slagwerk.cli.{name}" for name in COMMAND_MODULES} <= set(modules)
    assert all(name in text for name in COMMAND_MODULES)
    _, text = run("tournamnet")
    assert "invalid choice: 'tournamnet'" in text


def test_the_tournament_parser_imports_neither_numpy_nor_numba():
    """``slagwerk tournament --help`` answers without loading the engines: the defaults
    it shows come from ``experiments/harness/defaults.py``."""
    import subprocess
    import sys

    from slagwerk.experiments.harness.defaults import DEFAULT_BOOTSTRAP

    code = ("import sys\n"
            "from slagwerk.cli import main\n"
            "try:\n"
            "    main(['tournament', '--help'])\n"
            "except SystemExit:\n"
            "    pass\n"
            "print('numpy' in sys.modules, 'numba' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"(default {DEFAULT_BOOTSTRAP}; an integer from 10 to" in " ".join(done.stdout.split())
    assert done.stdout.split()[-2:] == ["False", "False"]


ENDS_QUICKLY = """
import atexit, os, sys, threading, time
from slagwerk import cli

class Finalized:
    def __del__(self):
        os.write(1, b" torn-down")

witness = Finalized()  # finalized only when the interpreter is torn down
atexit.register(lambda: sys.stdout.write(" handler-ran"))
sys.stdout.write("buffered")  # still in the buffer when the command ends
if sys.argv[1] == "thread":  # a thread still running when the command is done
    command_done = threading.Event()
    main = cli.app.main
    cli.app.main = lambda: (main(), command_done.set())[0]
    threading.Thread(target=lambda: (command_done.wait(), time.sleep(0.3),
                                     sys.__stdout__.write(" thread-done"))).start()
sys.argv = ["slagwerk", "bot", "--time-limit-ms", "0"]
cli.entry()
"""


@pytest.mark.parametrize("left_running", ["nothing", "thread"])
def test_the_console_command_ends_without_tearing_down_after_exit_handlers_and_threads(left_running):
    """``slagwerk`` (``cli.entry``) skips the interpreter's teardown once the command
    is done, but only after the exit handlers ran and the output was flushed; a
    thread still running is waited for, the usual way."""
    import subprocess
    import sys

    request = json.dumps({"id": 1, "type": "hello"}) + "\n"
    done = subprocess.run([sys.executable, "-c", ENDS_QUICKLY, left_running], input=request,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert '"id": 1' in done.stdout and "buffered" in done.stdout and "handler-ran" in done.stdout
    if left_running == "thread":
        assert "thread-done" in done.stdout and "torn-down" in done.stdout
    else:
        assert "torn-down" not in done.stdout


def test_an_unfinished_match_is_saved_too(tmp_path, capsys, monkeypatch):
    """docs/records.md: a record may stop anywhere, so --record keeps a match
    that a human left, an agent forfeited or Ctrl-C stopped, as far as it got."""
    import io

    from slagwerk.agents.registry import AGENTS, register
    from slagwerk.agents.simple import RandomAgent

    class Interrupting(RandomAgent):
        name = "test-interrupting"
        description = "a random player until its fourth move, then Ctrl-C"
        moves = 0

        def decide(self, view):
            self.moves += 1
            if self.moves == 4:
                raise KeyboardInterrupt
            return super().decide(view)

    record_file = tmp_path / "left.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n1\nquit\n"))
    assert main(["play", "coins", "--human", "0", "--seed", "3", "--record", str(record_file)]) == 1
    out = capsys.readouterr().out
    assert "match abandoned" in out and f"unfinished match's record saved to {record_file}" in out
    record = json.loads(record_file.read_text())
    assert sum(len(deal["actions"]) for deal in record["deals"]) >= 3 and replay(record)["outcome"] is None

    register(Interrupting)
    try:
        record_file = tmp_path / "stopped.json"
        assert main(["play", "coins", "--agents", "test-interrupting", "random", "random", "--quiet",
                     "--seed", "5", "--record", str(record_file)]) == 130
        assert "interrupted" in capsys.readouterr().err
        actions = json.loads(record_file.read_text())["deals"][0]["actions"]
        assert len(actions) == 9  # three rounds of three seats, then seat 0 was stopped
        assert replay(json.loads(record_file.read_text()))["outcome"] is None
    finally:
        AGENTS.pop("test-interrupting")


@pytest.mark.parametrize("command", [["bot"], ["bot", "--time-limit-ms", "0"], ["serve", "--port", "0"]])
def test_a_bot_server_names_an_unknown_default_game_at_once(command, capsys):
    """By the parser, before any worker starts (a worker's own command line was shown before)."""
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--game", "chess"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "error: argument --game: invalid choice: 'chess' (choose from" in err and err.count("\n") == 1


def test_an_interrupted_sprt_or_tune_says_where_it_stopped(tmp_path, capsys, monkeypatch):
    """Ctrl-C in sprt shows the test after the last finished group; in tune it names the
    folder to --resume (also the default one, which the user never typed)."""
    from slagwerk.experiments import tuning
    from slagwerk.experiments.harness import sprt

    real = sprt.run_sprt

    def stopped_after_three_groups(*args, on_group, **kwargs):
        def group(result):
            on_group(result)
            if result.groups == 3:
                raise KeyboardInterrupt
        return real(*args, on_group=group, **kwargs)

    monkeypatch.setattr(sprt, "run_sprt", stopped_after_three_groups)
    assert main(["sprt", "heuristic", "random", "--game", "coins", "--jobs", "1", "--every", "100"]) == 130
    captured = capsys.readouterr()
    assert captured.err.startswith("sprt: heuristic against random in coins, duplicate groups until")
    out = captured.out.splitlines()
    assert out[-2].startswith("groups     3  W-D-L") and out[-1] == "no decision: interrupted after 3 groups"

    def interrupted(config, folder, **kwargs):  # once the run has begun in its folder
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "config.json").write_text("{}")
        raise KeyboardInterrupt

    monkeypatch.setattr(tuning, "run_tuning", interrupted)
    monkeypatch.chdir(tmp_path)
    tune = ["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0", "--opponents",
            "random", "--budget", "60", "--quiet"]
    assert main(tune) == 130
    err = capsys.readouterr().err
    assert "every finished evaluation is saved; continue with: slagwerk tune --resume " in err
    assert "slagwerk-results/tune-coins-ismcts-" in err

    def interrupted_at_once(*args, **kwargs):  # before its folder holds a run: nothing to resume
        raise KeyboardInterrupt

    monkeypatch.setattr(tuning, "run_tuning", interrupted_at_once)
    assert main([*tune, "--results", "elsewhere"]) == 130
    assert "nothing was saved yet: give the same command again" in capsys.readouterr().err


@pytest.mark.parametrize("delay", [0.3, 1.0, 2.5])
def test_ctrl_c_at_any_moment_of_a_servers_start_is_one_word_and_leaves_no_worker(delay):
    """Ctrl-C reaches the terminal's whole process group: while the command's modules load,
    while its workers start, or once it serves, it says "interrupted" (no traceback, from it
    or from a worker) and stops its workers."""
    import os
    import signal
    import subprocess
    import sys
    import time

    marker = str(1048576 + int(delay * 10))  # a --max-request-bytes only this server's workers get
    # SIGINT as a terminal leaves it: a suite run as a background job inherits it ignored.
    proc = subprocess.Popen([sys.executable, "-m", "slagwerk", "serve", "--port", "0", "--workers", "2",
                             "--max-request-bytes", marker], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
        assert "Traceback" not in out and proc.returncode in (0, 130, -signal.SIGINT), out
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-f", f"max-request-bytes {marker}"], capture_output=True, text=True)
        assert left.stdout == "", left.stdout
    finally:
        proc.kill()
        proc.wait()
        subprocess.run(["pkill", "-f", f"max-request-bytes {marker}"])


@pytest.mark.parametrize("command", [
    ["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "2"],
    ["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0", "--opponents", "random",
     "--budget", "60"],
])
@pytest.mark.parametrize("address, reason", [
    ("tcp://127.0.0.1:1", "Timed out trying to connect"),  # nothing listens on port 1
    ("nonsense", "missing port number"),
])
def test_an_unreachable_dask_scheduler_stops_the_run_before_it_writes_anything(
        command, address, reason, tmp_path, capsys, monkeypatch):
    pytest.importorskip("dask.distributed", reason="dask is an optional extra: pip install -e '.[dask]'")
    from slagwerk.experiments.harness import runner

    monkeypatch.setattr(runner, "SCHEDULER_CHECK_SECONDS", 1)
    folder = tmp_path / "run"
    assert main([*command, "--backend", "dask", "--scheduler", address, "--results", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"connecting to the Dask scheduler {address} (at most 1 s)" in err
    assert f"error: cannot reach the Dask scheduler {address!r}: " in err and reason in err
    assert "Traceback" not in err
    assert not folder.exists()  # so the same command, with the address put right, runs as it is


def test_results_folders_are_named_command_game_time():
    import re

    from slagwerk.experiments.harness.tournament import _default_folder
    from slagwerk.experiments.training.config import TrainConfig
    from slagwerk.experiments.training.run import default_folder as train_folder
    from slagwerk.experiments.tuning import TuneConfig
    from slagwerk.experiments.tuning.run import default_folder as tune_folder

    tune = TuneConfig(game="coins", agent="ismcts", params=("c=0.1:3",), opponents=("random",), budget=60)
    names = [_default_folder("kozel").name, train_folder(TrainConfig(game="aluette")).name,
             tune_folder(tune).name]
    stamp = r"\d{8}-\d{6}"
    assert [re.sub(stamp, "<time>", name) for name in names] == [
        "tournament-kozel-<time>", "train-aluette-<time>", "tune-coins-ismcts-<time>"]
