"""Bring your own bot: external programs (stdio), HTTP bots and Python plugins play in
tournaments, SPRT, tuning and ``play`` like built-in agents, lose by forfeit when they
misbehave, and never see a card their seat cannot see (agents/external.py, agents/plugins.py)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.parse

import numpy as np
import pytest
from registry_guard import own_registry  # noqa: F401 (autouse: every test here)

from paths import REPO
from slagwerk.agents import AGENTS, external, make, plugins
from slagwerk.agents.warmup import ensure_compiled
from slagwerk.cli import main
from slagwerk.engine import GAME_NAMES, contract, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.records import replay
from slagwerk.errors import SpecError
from slagwerk.experiments.harness.seating import schedule, tables_for
from slagwerk.experiments.harness.sprt import run_sprt
from slagwerk.experiments.harness.tournament import TournamentConfig, format_ranking, run_tournament

EXAMPLES = REPO / "docs" / "examples"
MINIMAL_BOT = EXAMPLES / "minimal_bot.py"
PLUGIN_BOT = EXAMPLES / "plugin_bot.py"
MISBEHAVING_BOT = REPO / "tests" / "misbehaving_bot.py"
FIRST_LEGAL_HTTP_BOT = REPO / "tests" / "first_legal_http_bot.py"
PY = sys.executable


def bot_option(name: str, *args) -> str:
    """A ``--bot NAME=COMMAND`` for a Python script with arguments."""
    return f"{name}={PY} " + " ".join(str(a) for a in args)


@contextlib.contextmanager
def http_bot_served(script, *args):
    """The HTTP bot ``script`` (which prints "listening on URL" once ready) run with ``args``: its URL."""
    proc = subprocess.Popen([PY, str(script), *map(str, args)], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://"), line
        yield line.split()[-1]
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def http_bot():
    """The minimal example bot served over HTTP on a free port: its URL."""
    with http_bot_served(MINIMAL_BOT, "--http", "0") as url:
        yield url


def positions(game_name: str, count: int, seed: int):
    """``count`` states with a seat to move, reached by seeded random play."""
    rng = np.random.default_rng(seed)
    game = make_game(game_name)
    state = game.new_match(seed=seed)
    out = []
    while len(out) < count:
        if state.is_terminal:
            state = game.new_match(seed=int(rng.integers(1 << 30)))
        if state.deal_pending:
            state.deal(rng=make_rng(int(rng.integers(1 << 30))))
            continue
        if rng.random() < 0.3:
            out.append(state.clone())
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    return out


def deals_covering(agents: int, game) -> int:
    """The fewest duplicate groups in which every one of ``agents`` agents plays."""
    tables = tables_for(agents, game.n_players, game.team_game, game.team_of)
    seen = set()
    for count, table in enumerate(tables, start=1):
        seen.update(table)
        if len(seen) == agents:
            return count
    raise AssertionError("some agent never plays")


def comparable(folder) -> list[dict]:
    """The games of a results folder in schedule order, without the timings (and the
    session that played them)."""
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    for line in lines:
        for key in ("time", "think", "run"):
            line.pop(key, None)
    return sorted(lines, key=lambda line: line["index"])


# ------------------------------------------------------------------ tournaments


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_program_an_http_bot_and_a_plugin_play_a_tournament_among_built_in_agents(
        tmp_path, http_bot, game_name):
    """The example program on stdio (with a parameter), the same bot over HTTP and as a
    plugin (in the team games partnered with the program) rank with random and heuristic;
    the results are the same with 1 and 2 workers."""
    plugins.load_plugins([str(PLUGIN_BOT)])
    external.register_bots([bot_option("prog", MINIMAL_BOT), f"web={http_bot}"])
    game = make_game(game_name)
    plugin = "first-legal:random_share=0.6"
    if game.team_game:  # a partnership of a program and a plugin
        plugin = f"prog+{plugin}"
    agents = ("prog:random_share=0.3", "web", plugin, "random", "heuristic")
    config = TournamentConfig(game_name, agents, deals=deals_covering(len(agents), game), seed=5,
                              bootstrap=20)
    one = run_tournament(config, tmp_path / "one", jobs=1, progress=False)
    two = run_tournament(config, tmp_path / "two", jobs=2, progress=False)
    assert comparable(tmp_path / "one") == comparable(tmp_path / "two")
    assert not one.forfeits and not two.forfeits
    assert {row.agent for row in one.ratings.ranking} == set(one.ratings.labels) == set(agents)
    played = {label for line in comparable(tmp_path / "one") for label in line["agents"]}
    assert played == set(one.ratings.labels)
    stored = json.loads((tmp_path / "one" / "config.json").read_text())
    assert set(stored["bots"]) == {"prog", "web"}
    assert str(MINIMAL_BOT) not in json.dumps(stored)  # a name and a hash, never the command
    log = (tmp_path / "one" / "bot-prog.stderr.log").read_text()
    assert "slagwerk started bot 'prog'" in log  # the bot's standard error is kept with the results
    assert str(MINIMAL_BOT) not in log  # its command is not (it may hold a secret)


def test_the_example_program_and_the_example_plugin_answer_alike():
    """docs/examples: minimal_bot.py over stdio and plugin_bot.py in-process are the same bot."""
    plugins.load_plugins([str(PLUGIN_BOT)])
    external.register_bots([bot_option("prog", MINIMAL_BOT)])
    for game_name in GAME_NAMES:
        game = make_game(game_name)
        outside = make("prog:random_share=0.5", game, seed=11)
        inside = make("first-legal:random_share=0.5", game, seed=11)
        answers = [(outside.act(s.view(s.to_move)), inside.act(s.view(s.to_move)))
                   for s in positions(game_name, 12, seed=4)]
        assert all(a == b for a, b in answers)
        assert len({a for a, _ in answers}) > 1


@pytest.mark.parametrize("kind", ["crash", "hang", "illegal", "garbage", "error", "wrong-id"])
def test_a_misbehaving_bot_answer_is_a_fault_that_restarts_it(kind):
    # only the hanging bot meets the time limit: the others' answers may be slow under load
    timeout = 0.5 if kind == "hang" else 30
    external.register_bots([bot_option("bad", MISBEHAVING_BOT, kind)], timeout=timeout)
    state = make_game("coins").new_match(seed=1)
    agent = make("bad", state.game, seed=1)
    expected = {"crash": "exited", "hang": "did not answer within 0.5 s",
                "illegal": "'not-an-action', which is not a legal action",
                "garbage": "'this is not json', which is not JSON",
                "error": "answered its act request with an error: I refuse",
                "wrong-id": ": an answer must carry the id of its request"}
    for _ in range(2):  # the second request starts a fresh process
        with pytest.raises(external.BotFault, match=re.escape(expected[kind])):
            agent.act(state.view(state.to_move))
        assert getattr(external._CLIENTS.get("bad"), "proc", None) is None  # its process was ended


def test_at_the_end_a_bot_program_sees_its_input_end_and_may_exit(tmp_path, monkeypatch):
    """docs/protocol.md: the end of standard input tells a bot to exit, so a bot that
    flushes its logs then keeps them; it is killed only if it stays (after a fault, at once)."""
    monkeypatch.setattr(external, "QUIT_GRACE_S", 30)  # it exits at once; a loaded machine may be slow
    bots = external.register_bots([bot_option("bye", MISBEHAVING_BOT, "farewell")])
    external.install_all(external.keep_stderr_in(bots, tmp_path))  # as a tournament does
    state = make_game("coins").new_match(seed=1)
    make("bye", state.game, seed=1).act(state.view(state.to_move))
    proc = external._CLIENTS["bye"].proc
    external.close("bye", polite=True)
    assert proc.returncode == 0  # it exited by itself, not killed
    assert "input ended" in (tmp_path / "bot-bye.stderr.log").read_text()


def test_a_planted_stderr_log_stops_the_run_instead_of_hanging_it(tmp_path):
    """A results folder may come from elsewhere: a FIFO named as a bot's standard-error log
    would block the bot's start; it is refused at once, and the run cannot go on without it."""
    os.mkfifo(tmp_path / "bot-prog.stderr.log")
    bots = external.register_bots([bot_option("prog", MINIMAL_BOT)])
    external.install_all(external.keep_stderr_in(bots, tmp_path))  # as a tournament does
    with pytest.raises(external.BotUnreachable, match="its standard error log: .* not a regular file"):
        make("prog", make_game("coins"), seed=1)


def test_a_bot_slow_to_say_hello_is_announced_as_awaited(monkeypatch, capsys):
    """A bot may load or compile before its hello (600 s allowed): after a while the
    harness says what it is waiting for, rather than sitting silent."""
    monkeypatch.setattr(external, "HELLO_NOTICE_S", 0.2)
    external.register_bots([bot_option("sleepy", MISBEHAVING_BOT, "slow-hello", 1)])
    err = capsys.readouterr().err
    assert err.count("waiting for bot 'sleepy' to answer hello (it may be loading; it has 600 s in all)") == 1
    assert "sleepy" in AGENTS


def test_a_bot_that_never_says_hello_is_given_up_after_the_start_timeout(capsys):
    """--bot-start-timeout: a bot silent past it is one line naming the wait and the flag."""
    mute = bot_option("mute", MISBEHAVING_BOT, "slow-hello", 60)
    assert main(["tournament", "--game", "coins", "--bot", mute, "--bot-start-timeout", "0.5",
                 "--agents", "mute", "random", "--deals", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("error: bot 'mute' did not answer hello within 0.5 s (--bot-start-timeout gives it "
                       "longer)")


def test_misbehaving_bots_lose_by_forfeit_and_the_tournament_ranks_everyone(tmp_path):
    """A crashing, a hanging, an illegal-move and a garbage-writing bot each forfeit every
    game they play (the reason is in games.jsonl); the tournament completes."""
    kinds = ("crash", "hang", "illegal", "garbage")
    external.register_bots([bot_option(kind, MISBEHAVING_BOT, kind) for kind in kinds])
    agents = (*kinds, "random", "heuristic")
    game = make_game("koetsieren", players=2)
    config = TournamentConfig("koetsieren", agents, deals=deals_covering(len(agents), game), seed=2,
                              options=(("players", 2),), move_time=1.0, bootstrap=20)
    result = run_tournament(config, tmp_path / "run", jobs=2, progress=False)
    lines = comparable(tmp_path / "run")
    assert result.games == len(lines) and {row.agent for row in result.ratings.ranking} == set(agents)
    reasons = {"crash": "exited", "hang": "no move within the time limit of 1 s",
               "illegal": "which is not a legal action", "garbage": "which is not JSON"}
    for line in lines:
        bad = [seat for seat, label in enumerate(line["agents"]) if label in kinds]
        if not bad:
            assert line["forfeit"] is None
            continue
        forfeit = line["forfeit"]
        assert forfeit is not None and forfeit["seat"] in bad
        assert reasons[forfeit["agent"]] in forfeit["error"]
        assert line["reward"][forfeit["seat"]] == 0.0
    assert {line["forfeit"]["agent"] for line in lines if line["forfeit"]} == set(kinds)
    stderr = (tmp_path / "run" / "bot-crash.stderr.log").read_text()
    assert "crashing on purpose" in stderr
    top = [row.agent for row in result.ratings.ranking[:2]]
    assert set(top) == {"random", "heuristic"}


# ------------------------------------------------------------------ no leaks


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_bot_gets_the_seats_view_only_unchanged_when_hidden_cards_change(tmp_path, game_name):
    """docs/design.md §4: a bot's request is the seat's view (plus game, agent and seed), the
    same whatever the cards its seat cannot see; the true state really differs."""
    record = tmp_path / "requests.jsonl"
    external.register_bots([bot_option("spy", MISBEHAVING_BOT, "record", record)])
    changed = 0
    for k, state in enumerate(positions(game_name, 4, seed=30)):
        seat = state.to_move
        agent = make("spy", state.game, seed=9)
        worlds = [state]
        for world in range(3):
            other = state.clone()
            contract.determinize(other.array, seat, make_rng(100 * k + world))
            changed += not np.array_equal(other.array, state.array)
            worlds.append(other)
        record.write_text("")
        for world in worlds:
            agent.act(world.view(seat))
        requests = [json.loads(line) for line in record.read_text().splitlines()]
        for request in requests:
            request.pop("id")
        assert requests[0] == {"type": "act", "game": game_name, "agent": "misbehave",
                               "view": state.view(seat), "seed": 9}
        assert all(request == requests[0] for request in requests)
    assert changed > 0, "determinize never changed a hidden card: the test would prove nothing"


# ------------------------------------------------------------------ errors, resume


def test_a_bot_that_does_not_play_the_game_is_an_error_before_any_game(tmp_path, capsys):
    folder = tmp_path / "run"
    status = main(["tournament", "--game", "kozel", "--agents", "coinsbot", "random", "--deals", "1",
                   "--quiet", "--results", str(folder), "--jobs", "1",
                   "--bot", bot_option("coinsbot", MISBEHAVING_BOT, "coins-only")])
    err = capsys.readouterr().err
    assert status == 2 and "bot 'coinsbot' does not play kozel (it plays: coins)" in err
    assert not folder.exists() or not (folder / "games.jsonl").exists()


@pytest.mark.parametrize("option, message", [
    (bot_option("v2", MISBEHAVING_BOT, "version-2"),
         "bot 'v2': 'version' must be 1, not 2 (this harness speaks version 1 of the protocol)"),
    (bot_option("np", MISBEHAVING_BOT, "no-protocol"),
     "bot 'np': its hello answer needs the field 'protocol' (is it a slagwerk bot?)"),
    (bot_option("bd", MISBEHAVING_BOT, "bad-default"),
     "bot 'bd': parameter depth=5 must be an integer from 0 to 3 (its hello's default)"),
    ("random=true", "that name is taken"),
    ("nothing", "a bot named alone is looked up in a bots file: give --bots-file FILE"),
    ("x=/no/such/program", "cannot be started"),
    ("x=http://127.0.0.1:1", "Connection refused"),
    ("x=http://127.0.0.1:1/some/path", "or NAME=http://HOST:PORT (NAME: a letter"),
])
def test_bad_bot_definitions_are_one_line_errors(capsys, option, message):
    status = main(["play", "coins", "--quiet", "--bot", option])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_resume_needs_the_same_bot_definitions_again(tmp_path, capsys):
    folder = tmp_path / "run"
    prog = bot_option("prog", MINIMAL_BOT)
    common = ["--quiet", "--jobs", "1", "--json"]
    assert main(["tournament", "--game", "coins", "--agents", "prog", "random", "--deals", "2",
                 "--results", str(folder), "--bootstrap", "10", "--bot", prog, *common]) == 0
    first = capsys.readouterr().out
    AGENTS.pop("prog")
    # Rating the finished run again needs no bot: the folder's fingerprints identify its games.
    assert main(["report", str(folder)]) == 0
    ranking = [line.split()[1] for line in capsys.readouterr().out.splitlines() if line.strip()[:1].isdigit()]
    assert sorted(ranking) == ["prog", "random"]
    assert main(["tournament", "--resume", str(folder), *common]) == 2
    assert "plays the external bot 'prog': give --bot prog=COMMAND again" in capsys.readouterr().err
    AGENTS.pop("prog", None)
    same = bot_option("prog", MINIMAL_BOT) + "  "  # the same words: the same command
    assert main(["tournament", "--resume", str(folder), "--bot", same, *common]) == 0
    assert capsys.readouterr().out == first
    AGENTS.pop("prog")
    other = f"prog={PY} -u {MINIMAL_BOT}"
    assert main(["tournament", "--resume", str(folder), "--bot", other, *common]) == 2
    assert "was started with another command for the bot 'prog'" in capsys.readouterr().err


@pytest.mark.parametrize("command, run", [
    (["tournament"], ["--agents", "prog", "random", "--deals", "1", "--bootstrap", "10"]),
    (["tune"], ["--agent", "prog", "--param", "random_share=0:1", "--opponents", "random", "--budget", "60",
                "--groups", "1", "--method", "spsa", "--no-confirm"]),
    (["experiment", "budget"], ["--agent", "ismcts", "--budgets", "2", "--opponents", "prog", "--deals", "1",
                                "--bootstrap", "10"]),
])
def test_a_resumed_run_gives_its_bots_the_backstop_of_its_stored_move_limit(tmp_path, command, run):
    """A bot's answer has a backstop timeout derived from the per-move limit; on --resume it is
    the limit the run was started with (here none), not the command line's default (60 s)."""
    folder = tmp_path / "run"
    prog = bot_option("prog", MINIMAL_BOT)
    common = ["--quiet", "--jobs", "1", "--bot", prog]

    def timeout():
        return next(bot for bot in external.registered_bots() if bot.name == "prog").timeout

    assert main([*command, *run, "--game", "coins", "--move-time", "0", "--results", str(folder),
                 *common]) == 0
    assert timeout() is None
    AGENTS.pop("prog")
    assert main([*command, "--resume", str(folder), *common]) == 0
    assert timeout() is None


# ------------------------------------------------------------------ a bot that goes away


def first_legal_http_bot(*args):
    """tests/first_legal_http_bot.py served with ``args``: its URL."""
    return http_bot_served(FIRST_LEGAL_HTTP_BOT, *args)


def test_an_http_bot_whose_server_closes_idle_connections_plays_on():
    """Servers close a kept-alive connection left idle (uvicorn after 5 s): the request is
    sent again on a new connection, where it once forfeited the game (a broken pipe)."""
    with first_legal_http_bot("--idle", 0.2) as url:
        external.register_bots([f"idle/first={url}"])
        state = make_game("coins").new_match(seed=1)
        agent = make("idle", state.game, seed=1)
        view = state.view(state.to_move)
        first = agent.act(view)
        time.sleep(1.5)  # the server has closed the connection by now (0.2 s idle, with room for load)
        assert agent.act(view) == first == view["legal_actions"][0]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_tournament_stops_when_its_http_bot_goes_away_and_resumes_when_it_is_back(
        tmp_path, capsys, jobs):
    """A bot that cannot be reached is not a forfeit of every game left: the run stops with
    a one-line error and the command that continues it, keeping only real games; resumed
    once the bot is back, the results are those of a run the bot never left."""
    folder = tmp_path / "run"
    common = ["--game", "coins", "--agents", "gone", "heuristic", "--deals", "6", "--quiet",
              "--bootstrap", "10", "--jobs", str(jobs)]
    with first_legal_http_bot("--acts", 150) as url:
        bot = f"gone/first={url}"
        assert main(["tournament", *common, "--results", str(folder), "--bot", bot]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-2].startswith(f"error: bot 'gone' at {url} cannot be reached (3 attempts): "
                              f"ConnectionRefusedError")
    assert err[-1] == (f"every finished game is saved; continue with: slagwerk tournament --resume "
                       f"{folder} --bot {bot}")
    stopped = comparable(folder)
    # The worker that meets the bot gone between two requests stops the run. With two, the
    # other may have had a request out, which the bot dropped: those games are its forfeits.
    lost = {line["index"] for line in stopped if line["forfeit"]}
    assert 0 < len(stopped) < 18 and len(lost) <= 2 * (jobs - 1)
    dropped = re.compile(rf"at {re.escape(url)}: (Connection\w*Error|RemoteDisconnected|BrokenPipeError)")
    assert all(line["forfeit"]["agent"] == "gone" and dropped.search(line["forfeit"]["error"])
               for line in stopped if line["forfeit"])
    AGENTS.pop("gone")
    with first_legal_http_bot("--port", urllib.parse.urlsplit(url).port):
        assert main(["tournament", "--resume", str(folder), "--bot", bot, "--quiet"]) == 0
    AGENTS.pop("gone")
    with first_legal_http_bot() as other:
        assert main(["tournament", *common, "--results", str(tmp_path / "whole"),
                     "--bot", f"gone/first={other}"]) == 0
    resumed = [line for line in comparable(folder) if line["index"] not in lost]
    assert resumed == [line for line in comparable(tmp_path / "whole") if line["index"] not in lost]
    assert len(resumed) == 18 - len(lost) and not any(line["forfeit"] for line in resumed)


def test_an_sprt_stopped_by_a_bot_that_went_away_says_it_does_not_resume(capsys):
    with first_legal_http_bot("--acts", 200) as url:
        assert main(["sprt", "gone", "random", "--game", "coins", "--max-groups", "40", "--jobs", "1",
                     "--every", "1", "--bot", f"gone/first={url}"]) == 2
    captured = capsys.readouterr()
    assert re.fullmatch(r"no decision: stopped after \d+ groups", captured.out.splitlines()[-1])
    assert captured.err.splitlines()[-1] == (
        "an SPRT does not resume: the same command (the same --seed) plays the same games again once "
        "the bot is back")


def test_play_keeps_the_record_when_its_http_bot_goes_away(tmp_path, capsys):
    with first_legal_http_bot("--acts", 5) as url:
        status = main(["play", "coins", "--agents", "gone", "random", "random", "--quiet",
                       "--bot", f"gone/first={url}", "--record", str(tmp_path / "r.json")])
    captured = capsys.readouterr()
    assert status == 2 and "cannot be reached" in captured.err
    assert "unfinished match's record saved" in captured.out
    assert replay(json.loads((tmp_path / "r.json").read_text()))["outcome"] is None


def test_a_bot_program_that_cannot_be_started_again_stops_the_run(tmp_path, capsys):
    """Started once for its hello, the program then exits at every start: after two
    tries the SPRT stops with a one-line error instead of forfeiting every game."""
    once = bot_option("once", MISBEHAVING_BOT, "once", tmp_path / "started")
    assert main(["sprt", "once", "random", "--game", "coins", "--max-groups", "2", "--jobs", "1",
                 "--bot", once]) == 2
    err = capsys.readouterr().err
    assert ("error: bot 'once' could not be started (tried twice): exited (exit code 4)"
            in err.splitlines())


# ------------------------------------------------------------------ commands


def test_sprt_says_how_many_games_each_side_lost_by_forfeit(capsys):
    """An SPRT against a bot that answers illegal moves: the running lines, the verdict and
    the JSON say how many games each side forfeited and why (no results folder to look in)."""
    argv = ["sprt", "bad", "random", "--game", "coins", "--max-groups", "2", "--jobs", "1",
            "--every", "1", "--bot", bot_option("bad", MISBEHAVING_BOT, "illegal")]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("groups     1") and out[0].endswith("forfeits A 3 B 0")  # 3 seatings a group
    assert out[-1].startswith("games lost by forfeit: bad 6 (first: ")
    assert "which is not a legal action" in out[-1] and out[-1].endswith("), random 0")
    AGENTS.pop("bad")
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["forfeits"] == {"a": 6, "b": 0} and result["forfeit_reasons"]["b"] is None
    assert "not a legal action" in result["forfeit_reasons"]["a"]


def test_sprt_and_play_take_bots_and_plugins(capsys):
    """The example program against the example plugin: the same bot on both sides, so every
    group is drawn."""
    assert main(["sprt", "prog", "first-legal", "--game", "coins", "--max-groups", "3",
                 "--jobs", "1", "--json", "--bot", bot_option("prog", MINIMAL_BOT),
                 "--plugin", str(PLUGIN_BOT)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["groups"] == 3 and result["draws"] == 3
    AGENTS.pop("prog")
    assert main(["play", "aluette", "--agents", "prog", "heuristic", "prog", "heuristic", "--quiet",
                 "--move-time", "5", "--bot", bot_option("prog", MINIMAL_BOT)]) == 0
    assert "final totals" in capsys.readouterr().out


def test_play_forfeits_a_match_when_a_bot_fails(capsys, tmp_path):
    status = main(["play", "coins", "--agents", "bad", "random", "random", "--quiet",
                   "--bot", bot_option("bad", MISBEHAVING_BOT, "illegal"),
                   "--record", str(tmp_path / "r.json")])
    assert status == 1
    out = capsys.readouterr().out
    assert "seat 0 (bad) forfeits the match" in out and "unfinished match's record saved" in out
    assert replay(json.loads((tmp_path / "r.json").read_text()))["outcome"] is None  # kept as far as it got


def test_a_forfeit_shown_to_a_human_names_no_card(capsys, monkeypatch):
    """docs/design.md §4: with a person at the table, a bot's forfeit is announced without its
    reason, which may name a card of the bot's seat."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 40))
    status = main(["play", "coins", "--human", "1", "--agents", "bad", "random", "random", "--seed", "4",
                   "--bot", bot_option("bad", MISBEHAVING_BOT, "illegal")])
    out = capsys.readouterr().out
    assert status == 1
    assert out.rstrip().endswith("seat 0 (bad) forfeits the match: its agent failed or ran out of time")


def test_an_experiment_draws_a_plugins_curve_against_a_bot_and_resumes_only_with_it(tmp_path, capsys):
    """`slagwerk experiment budget` takes --plugin and --bot as a tournament does: a plugin
    agent with an ``iterations`` parameter is the curve (failing at 5), a bot program anchors
    the scale; the forfeits are reported as a tournament reports them."""
    module = tmp_path / "counting.py"
    module.write_text("from slagwerk.agents import Agent, Decision, ParamSpec, register\n"
                      "@register\nclass Counting(Agent):\n    name = 'counting'\n"
                      "    description = 'plays the first legal action'\n"
                      "    params = {'iterations': ParamSpec(int, 10, 'unused', 1, 10**6)}\n"
                      "    def decide(self, view):\n"
                      "        if self.config['iterations'] == 5:\n            raise RuntimeError('five')\n"
                      "        return Decision(view['legal_actions'][0])\n")
    folder = tmp_path / "curve"
    argv = ["experiment", "budget", "--game", "coins", "--agent", "counting", "--budgets", "1,5",
            "--opponents", "prog", "--deals", "1", "--jobs", "1", "--quiet", "--bootstrap", "10",
            "--results", str(folder), "--plugin", str(module)]
    assert main([*argv, "--bot", bot_option("prog", MINIMAL_BOT)]) == 0
    rows = list(csv.DictReader(io.StringIO((folder / "budget.csv").read_text())))
    assert [row["label"] for row in rows] == ["counting-1", "counting-5", "prog"]
    assert "slagwerk started" in (folder / "bot-prog.stderr.log").read_text()
    faults = [json.loads(x)["forfeit"] for x in (folder / "games.jsonl").read_text().splitlines()]
    assert {fault["agent"] for fault in faults if fault} == {"counting-5"}  # the bot never failed
    out = capsys.readouterr().out
    assert "RuntimeError: five" in out and f"the agents' tracebacks: {folder / 'faults.log'}" in out
    AGENTS.pop("prog")
    before = (folder / "budget.csv").read_text()
    assert main(["report", str(folder)]) == 0  # without the bot or the plugin
    assert (folder / "budget.csv").read_text() == before
    assert main(["experiment", "budget", "--resume", str(folder), "--quiet", "--jobs", "1",
                 "--plugin", str(module)]) == 2
    assert "plays the external bot 'prog'" in capsys.readouterr().err
    assert main(["experiment", "budget", "--resume", str(folder), "--quiet", "--jobs", "1",
                 "--plugin", str(module), "--bot", bot_option("prog", MINIMAL_BOT)]) == 0


def test_tune_tunes_a_parameter_the_bot_declares(tmp_path, capsys):
    folder = tmp_path / "tune"
    assert main(["tune", "--game", "coins", "--agent", "prog", "--param", "random_share=0:1",
                 "--opponents", "random", "--budget", "60", "--groups", "1", "--method", "spsa",
                 "--no-confirm", "--jobs", "1", "--quiet", "--results", str(folder), "--seed", "3",
                 "--bot", bot_option("prog", MINIMAL_BOT)]) == 0
    best = json.loads((folder / "best.json").read_text())
    assert best["agent"] == "prog" and 0.0 <= float(best["params"]["random_share"]) <= 1.0
    assert "slagwerk started" in (folder / "bot-prog.stderr.log").read_text()
    # the follow-up it prints names the bot again, as the folder never keeps its command
    err = capsys.readouterr().err
    assert f"--agents prog:@{folder}/best.json --bot {shlex.quote(bot_option('prog', MINIMAL_BOT))}" in err
    AGENTS.pop("prog")
    assert main(["tune", "--resume", str(folder), "--quiet", "--jobs", "1"]) == 2
    assert "plays the external bot 'prog'" in capsys.readouterr().err
    assert main(["tune", "--resume", str(folder), "--quiet", "--jobs", "1",
                 "--bot", bot_option("prog", MINIMAL_BOT)]) == 0  # nothing left to play


def test_tune_counts_the_candidates_forfeits(tmp_path, capsys):
    """A candidate that fails on every move scores 0; tune's report, best.json and each
    evaluation's line say so, with the reason, instead of recommending in silence."""
    module = tmp_path / "boom.py"
    module.write_text("from slagwerk.agents import Agent, ParamSpec, register\n"
                      "@register\nclass Boom(Agent):\n    name = 'boom'\n    description = 'fails'\n"
                      "    params = {'x': ParamSpec(float, 0.5, 'unused', 0.0, 1.0)}\n"
                      "    def decide(self, view):\n        raise ValueError('plugin bug')\n")
    folder = tmp_path / "tune"
    assert main(["tune", "--game", "coins", "--agent", "boom", "--param", "x=0:1", "--opponents", "random",
                 "--budget", "60", "--groups", "1", "--method", "spsa", "--max-groups", "2", "--jobs", "1",
                 "--quiet", "--results", str(folder), "--seed", "3", "--plugin", str(module)]) == 0
    out, err = capsys.readouterr()
    assert "games lost by forfeit: the candidate 60 (first: ValueError: plugin bug), its opponents 0" in out
    assert "faults.log: the agents' tracebacks" in err
    best = json.loads((folder / "best.json").read_text())
    assert best["forfeits"] == {"candidate": 60, "opponents": 0, "first_reason": "ValueError: plugin bug"}
    lines = [json.loads(x) for x in (folder / "evaluations.jsonl").read_text().splitlines()]
    assert lines and all(line["forfeits"] == [line["games"], 0] for line in lines)
    # the traceback once, in faults.log; every later game of the same bug names the first,
    # the confirmation SPRT's games (2 groups of 3 games: both sides fail) too
    log = (folder / "faults.log").read_text()
    headings = [x for x in log.splitlines() if x.startswith("--- ")]
    assert len(headings) == 60 + 6 and log.count("Traceback (most recent call last)") == 1
    assert headings[0].startswith("--- evaluation 0, game 0, seat ") and "ValueError: plugin bug" in log
    assert headings[59].startswith("--- evaluation 19, game 2, seat ")
    assert headings[-1].startswith("--- confirmation, game 5, seat ")
    assert all(x.endswith("(the traceback of evaluation 0, game 0)") for x in headings[1:])
    assert 'boom.py", line 8, in decide' in log
    assert best["confirmation"]["groups"] == 2
    # a resume plays nothing again and writes nothing again
    assert main(["tune", "--resume", str(folder), "--quiet", "--jobs", "1", "--plugin", str(module)]) == 0
    assert (folder / "faults.log").read_text() == log


def test_an_sprt_hands_on_the_tracebacks_of_the_games_it_counted_only(tmp_path):
    """With two workers an SPRT plays groups in batches; the games of a batch after the
    decision count for nothing, and their faults are not handed on either."""
    module = tmp_path / "boom_sometimes.py"
    module.write_text("from slagwerk.agents import register\n"
                      "from slagwerk.agents.simple import RandomAgent\n"
                      "@register\nclass BoomSometimes(RandomAgent):\n    name = 'boom-sometimes'\n"
                      "    def decide(self, view):\n"
                      "        if len(view['history']) == 5:\n            raise ValueError('plugin bug')\n"
                      "        return super().decide(view)\n")
    plugins.load_plugins([str(module)])
    traces = []
    outcome = run_sprt("coins", {}, "boom-sometimes", "random", 0.0, 400.0, 0.05, 0.05, 40, 3, jobs=2,
                       on_fault=lambda line, trace: traces.append((line["group"], trace)))
    assert outcome.verdict == "H0" and outcome.groups < 8  # decided inside the first batch of 8
    assert sum(outcome.forfeits) == len(traces) > 0
    assert all(group < outcome.groups and "ValueError: plugin bug" in trace for group, trace in traces)


def test_an_installed_plugin_appears_in_the_bots_hello_and_plays(tmp_path):
    """The entry-point group slagwerk.agents of an installed distribution (a dist-info
    folder on the path) brings its agent into `slagwerk bot`."""
    site = tmp_path / "site"
    dist = site / "first_legal_bot-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: first-legal-bot\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[slagwerk.agents]\nfirst-legal = plugin_bot:FirstLegalAgent\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(EXAMPLES),
                                                       os.environ.get("PYTHONPATH", "")]))
    state = make_game("coins").new_match(seed=2)
    requests = [{"id": 1, "type": "hello"},
                {"id": 2, "type": "act", "game": "coins", "agent": "first-legal:random_share=0",
                 "view": state.view(state.to_move)}]
    out = subprocess.run([PY, "-m", "slagwerk", "bot", "--time-limit-ms", "0"], env=env, text=True,
                         input="".join(json.dumps(r) + "\n" for r in requests), capture_output=True,
                         timeout=300, check=True).stdout.splitlines()
    hello, act = (json.loads(line) for line in out)
    assert hello["agents"]["first-legal"]["params"]["random_share"]["max"] == 1.0
    assert act == {"id": 2, "action": state.legal_texts()[0]}
    # ... and plays in a tournament's worker processes without --plugin
    out = subprocess.run([PY, "-m", "slagwerk", "tournament", "--game", "coins", "--agents", "first-legal",
                          "random", "--deals", "1", "--jobs", "2", "--quiet", "--json", "--bootstrap", "10",
                          "--results", str(tmp_path / "run")], env=env, text=True, capture_output=True,
                         timeout=600, check=True).stdout
    ranking = json.loads(out)["ranking"]
    assert {row["agent"] for row in ranking} == {"first-legal", "random"}
    assert all(line["forfeit"] is None for line in comparable(tmp_path / "run"))


def test_installed_plugins_that_clash_or_disagree_on_their_name_are_told_which(monkeypatch, tmp_path):
    """An entry point whose class takes a built-in name is skipped, and one whose class
    has another name registers under the class's name: each warning names the entry point."""
    from importlib.metadata import EntryPoint

    (tmp_path / "imposter.py").write_text("from slagwerk.agents.simple import RandomAgent\n"
                                          "class Imposter(RandomAgent):\n    name = 'random'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLES))  # plugin_bot.py: FirstLegalAgent, named 'first-legal'
    points = [EntryPoint("mine", "plugin_bot:FirstLegalAgent", plugins.ENTRY_POINT_GROUP),
              EntryPoint("other", "imposter:Imposter", plugins.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(plugins, "entry_points", lambda group: points)
    monkeypatch.setattr(plugins, "_ENTRY_POINTS_LOADED", False)
    warnings = []
    assert plugins.load_entry_points(warn=warnings.append) == ["first-legal"]
    assert warnings == [
        "agent plugin 'mine' (plugin_bot:FirstLegalAgent) is registered by its class's name "
        "'first-legal': specs name it so (give the entry point that name to silence this)",
        "agent plugin 'other' (imposter:Imposter): the agent name 'random' is taken, skipped"]
    assert AGENTS["first-legal"].__module__ == "plugin_bot"


def test_a_worker_loads_installed_plugins_without_repeating_their_warnings(monkeypatch, capsys):
    """A worker that was not forked (loky outside Linux, Dask) loads the entry points
    itself; the command that started it has warned about a broken one already."""
    from importlib.metadata import EntryPoint

    from slagwerk.experiments.harness import runner

    monkeypatch.setattr(plugins, "entry_points", lambda group: [
        EntryPoint("broken", "no_such_module_here:Agent", plugins.ENTRY_POINT_GROUP),
        EntryPoint("first-legal", "plugin_bot:FirstLegalAgent", plugins.ENTRY_POINT_GROUP)])
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.setattr(plugins, "_ENTRY_POINTS_LOADED", False)  # as in a fresh worker process
    setup = runner.GameSetup("coins", (), ("first-legal", "random"), seed=1, plugins=(), bots=())
    ensure_compiled(["coins"])  # its notice, if another test process compiles coins meanwhile
    capsys.readouterr()
    [line] = runner._play_many(setup, schedule([(0, 1, 1)], 1)[:1])
    assert line["forfeit"] is None and capsys.readouterr().err == ""
    monkeypatch.setattr(plugins, "_ENTRY_POINTS_LOADED", False)  # a command warns, though
    plugins.load_entry_points()
    assert "agent plugin 'broken' (no_such_module_here:Agent) cannot be loaded" in capsys.readouterr().err


def load_quitter(folder) -> None:
    """Load a plugin agent 'quitter' whose every decision calls ``sys.exit(5)``."""
    module = folder / "quitter.py"
    module.write_text("import sys\nfrom slagwerk.agents import register\n"
                      "from slagwerk.agents.simple import RandomAgent\n"
                      "@register\nclass Quitter(RandomAgent):\n    name = 'quitter'\n"
                      "    def decide(self, view):\n        sys.exit(5)\n")
    plugins.load_plugins([str(module)])


def test_a_plugin_that_calls_exit_forfeits_and_the_run_goes_on(tmp_path):
    """A plugin's exit() (SystemExit) is a fault of that agent like any other: it loses
    the game by forfeit, and the tournament plays every game and ranks everyone."""
    load_quitter(tmp_path)
    game = make_game("coins")
    agents = ("quitter", "random", "heuristic")
    config = TournamentConfig("coins", agents, deals=deals_covering(len(agents), game), seed=3, bootstrap=20)
    result = run_tournament(config, tmp_path / "run", jobs=1, progress=False)
    lines = comparable(tmp_path / "run")
    assert result.games == len(lines) and {row.agent for row in result.ratings.ranking} == set(agents)
    quitter_games = [line for line in lines if "quitter" in line["agents"]]
    assert quitter_games
    assert all(line["forfeit"]["agent"] == "quitter" and "called exit(5)" in line["forfeit"]["error"]
               for line in quitter_games)
    # the results folder keeps each forfeit's traceback, which ends in the plugin's own line
    faults = (tmp_path / "run" / "faults.log").read_text().split("--- ")[1:]
    assert len(faults) == len(quitter_games)
    first = quitter_games[0]
    assert faults[0].startswith(f"game {first['index']}, seat {first['forfeit']['seat']} (quitter): "
                                f"the agent called exit(5)\n")
    assert "in decide\n    sys.exit(5)\nSystemExit: 5\n" in faults[0]
    assert all(fault.endswith(f"(the traceback of game {first['index']})\n") for fault in faults[1:])
    assert f"the agents' tracebacks: {tmp_path / 'run' / 'faults.log'}" in format_ranking(result)


def test_a_plugin_that_calls_exit_under_slagwerk_bot_is_an_error_answer(tmp_path):
    """In ``slagwerk bot`` (agents in its own process) a plugin's exit() is answered as an
    error, and the bot answers the next request: it does not end the server."""
    from slagwerk.agents import protocol

    load_quitter(tmp_path)
    state = make_game("coins").new_match(seed=2)
    request = {"id": 7, "type": "act", "game": "coins", "view": state.view(state.to_move), "seed": 1}
    assert protocol.handle({**request, "agent": "quitter"}) == {
        "id": 7, "error": "internal error: the agent called exit(5)"}
    assert protocol.handle({**request, "agent": "random"})["action"] in request["view"]["legal_actions"]


def test_a_plugin_that_returns_a_bare_action_is_told_what_to_return(tmp_path):
    """A decide() that returns the action text instead of a Decision: the forfeit's reason
    says what was returned and what is expected."""
    module = tmp_path / "bare.py"
    module.write_text("from slagwerk.agents import Agent, register\n"
                      "@register\nclass Bare(Agent):\n    name = 'bare'\n"
                      "    def decide(self, view):\n        return view['legal_actions'][0]\n")
    plugins.load_plugins([str(module)])
    state = make_game("coins").new_match(seed=2)
    with pytest.raises(TypeError, match=r"agent 'bare' returned '\w+' from decide\(\), not a Decision"):
        make("bare", state.game, seed=1).act(state.view(state.to_move))


def test_a_plugin_that_registers_nothing_or_is_not_on_the_path_says_so(tmp_path, monkeypatch, capsys):
    """A plugin file without @register gets a warning; a module name that is only a file in
    the current folder (not on Python's path) is told to give the file."""
    (tmp_path / "quiet.py").write_text("from slagwerk.agents import Agent\n"
                                       "class Quiet(Agent):\n    name = 'q'\n")
    plugins.load_plugins([str(tmp_path / "quiet.py")])
    assert "registered no agent (decorate each Agent class with @register)" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError, match=r"not in this folder: give the file quiet\.py"):
        plugins.load_plugins(["quiet"])


def test_a_plugin_cannot_take_a_built_in_name(tmp_path):
    module = tmp_path / "thief.py"
    module.write_text("from slagwerk.agents import register\nfrom slagwerk.agents.simple import RandomAgent\n"
                      "@register\nclass Thief(RandomAgent):\n    name = 'heuristic'\n")
    with pytest.raises(SpecError, match="registers an agent named 'heuristic', which is taken"):
        plugins.load_plugins([str(module)])
    assert AGENTS["heuristic"].__name__ == "HeuristicAgent"


def test_killing_the_harness_ends_its_bot_processes(tmp_path):
    """A harness killed with SIGKILL takes its bots along (Linux: parent-death signal)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    pids = tmp_path / "pids"
    harness = subprocess.Popen(
        [PY, "-m", "slagwerk", "play", "coins", "--agents", "stuck", "random", "random", "--quiet",
         "--bot", bot_option("stuck", MISBEHAVING_BOT, "hang", "--pid-file", pids)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # the hello process, then the one that plays
            if pids.exists() and len(pids.read_text().split()) >= 2:
                break
            time.sleep(0.1)
        playing = int(pids.read_text().split()[1])
        time.sleep(0.3)
        assert _alive(playing)
        harness.send_signal(signal.SIGKILL)
        harness.wait()
        deadline = time.monotonic() + 10
        while _alive(playing) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(playing)
    finally:
        harness.kill()
        harness.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_bench_reports_the_harness_overhead_of_a_bot_program():
    """`slagwerk bench` (experiments/bench/bot_overhead.py): the same agent in-process and over
    stdio, in games per second, and the overhead per decision (measured, never asserted
    against a speed)."""
    from slagwerk.experiments.bench.bot_overhead import overhead_rows

    (row,) = overhead_rows(["coins"], seconds=0.2, rounds=1)
    assert row["benchmark"] == "bot_harness_overhead" and row["decisions_per_game"] > 10
    assert row["per_second"] > 0 and row["in_process_per_second"] > 0
    assert "overhead_ms_per_decision" in row and "cpu_overhead_ms_per_decision" in row
    assert "harness_ms_per_decision" in row
    assert "bench-first-legal" not in AGENTS and "bench-first-legal-stdio" not in AGENTS


def test_bots_named_once_in_a_file_are_used_by_name(tmp_path, capsys, monkeypatch):
    """--bots-file (or $SLAGWERK_BOTS) names bots once; --bot NAME starts the one named."""
    bots = tmp_path / "bots.json"
    bots.write_text(json.dumps({"mine": f"{PY} {MINIMAL_BOT}"}))
    common = ["tournament", "--game", "coins", "--agents", "mine", "random", "--deals", "1", "--quiet"]
    assert main([*common, "--bots-file", str(bots), "--bot", "mine", "--results", str(tmp_path / "a")]) == 0
    monkeypatch.setenv("SLAGWERK_BOTS", str(bots))
    assert main([*common, "--bot", "mine", "--results", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    for file_text, option, message in [
        (None, "mine", "--bots-file FILE or set SLAGWERK_BOTS"),
        ('{"other": "x"}', "mine", "no bot 'mine' in --bots-file"),
        ("[1, 2]", "mine", "must be a JSON object of commands or URLs by bot name"),
        ("{nope", "mine", "not JSON"),
    ]:
        monkeypatch.delenv("SLAGWERK_BOTS")
        argv = [*common, "--bot", option, "--results", str(tmp_path / "c")]
        if file_text is not None:
            bots.write_text(file_text)
            argv += ["--bots-file", str(bots)]
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert message in err[-1] and "Traceback" not in "\n".join(err)
        monkeypatch.setenv("SLAGWERK_BOTS", "")
