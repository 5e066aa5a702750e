"""Trust nothing from outside: requests carry values, never paths; every resource is capped.

A request's agent spec may not name a file (``@FILE`` is for command lines,
resolved once where a command starts); a server's parameter files come from
its own command line (``--params NAME=FILE``) and requests name them
``AGENT:params=NAME``. Every parameter that sizes work or memory is capped by
the server's limits, and bad specs and views are one-line errors, never
internal ones.
"""

from __future__ import annotations

import copy
import json
import os
import re
import threading

import pytest
from test_protocol import BotProcess, act_request, positions

from slagwerk.agents import AGENTS, make, parse_spec
from slagwerk.agents.protocol import Defaults, Limits, handle, hello
from slagwerk.agents.registry import load_parameter_sets, resolve_spec_files
from slagwerk.cli import build_parser, main
from slagwerk.engine import GAME_NAMES, SlagwerkError, make_game
from slagwerk.errors import SpecError

STATE = positions("coins", 1, seed=5)[0]
TUNED = {"agent": "ismcts", "params": {"c": 0.42, "iterations": 7}}


@pytest.fixture
def best(tmp_path):
    path = tmp_path / "best.json"
    path.write_text(json.dumps(TUNED))
    return path


# ------------------------------------------------------- requests name values, never paths


def _answer_without_touching(spec: str) -> dict:
    """``handle`` of a request with agent ``spec``, in a thread: opening a FIFO for
    reading would block until a writer comes, so a hang means the path was opened."""
    box = {}
    thread = threading.Thread(target=lambda: box.update(handle(act_request(STATE, spec))), daemon=True)
    thread.start()
    thread.join(timeout=120)
    return box


def test_a_request_naming_a_path_is_refused_without_the_path_being_opened(tmp_path, best):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    answers = {}
    for what, path in (("fifo", fifo), ("file", best), ("missing", tmp_path / "miss.json")):
        answer = _answer_without_touching(f"ismcts:@{path}")
        if not answer:  # unblock the reader that should never have opened it
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        assert answer, f"the request opened {what} {path}"
        assert "error" in answer and "@" in answer["error"] and "never files" in answer["error"]
        assert "\n" not in answer["error"]
        # The error echoes the spec cut to a length, which may cut inside the file's name.
        echo = re.match(r"agent spec '([^']*)'", answer["error"])
        assert echo and f"ismcts:@{path}".startswith(echo.group(1))
        answers[what] = answer["error"][echo.end():]
    # the answer is the same whether the path exists, is a FIFO or is missing: it reveals nothing
    assert answers["fifo"] == answers["file"] == answers["missing"]
    # nobody holds the FIFO open for reading: a non-blocking writer finds no reader
    with pytest.raises(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize("spec", ["ismcts:@/dev/zero", "ismcts:@/dev/stdin", "ismcts:c=1,@x.json",
                                  "heuristic:label=a@b", "@best.json"])
def test_the_spec_parser_refuses_every_at_sign(spec):
    with pytest.raises(SpecError, match="never files"):
        parse_spec(spec)
    answer = handle(act_request(STATE, spec))
    assert set(answer) == {"id", "error"} and "never files" in answer["error"]


def test_command_lines_resolve_files_into_values_once(best, tmp_path):
    assert resolve_spec_files(f"ismcts:@{best}") == "ismcts:c=0.42,iterations=7"
    assert resolve_spec_files(f"ismcts:@{best},iterations=9") == "ismcts:c=0.42,iterations=9"
    assert resolve_spec_files(f"ismcts:label=t,@{best}") == "ismcts:c=0.42,iterations=7,label=t"
    assert resolve_spec_files(f"ismcts:@{best}+heuristic") == "ismcts:c=0.42,iterations=7+heuristic"
    assert resolve_spec_files("pimc:worlds=3") == "pimc:worlds=3"  # no file: unchanged
    for spec in (f"ismcts:@{best}", f"ismcts:@{best},iterations=9,label=x"):
        assert "@" not in resolve_spec_files(spec)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"c": "1,iterations=5"}))  # would smuggle a second item
    with pytest.raises(SpecError, match="what a spec's key=value item can hold"):
        resolve_spec_files(f"ismcts:@{bad}")
    big = tmp_path / "big.json"
    big.write_text(" " * (2 << 20) + "{}")
    with pytest.raises(SpecError, match="larger than"):
        resolve_spec_files(f"ismcts:@{big}")
    with pytest.raises(SpecError, match="never files"):
        resolve_spec_files("heuristic:label=a@b")


def test_play_sprt_and_tournament_run_the_files_values(best, tmp_path, capsys):
    record = tmp_path / "match.json"
    assert main(["play", "coins", "--agents", f"ismcts:@{best}", "random", "random", "--quiet",
                 "--record", str(record)]) == 0
    assert json.loads(record.read_text())["players"][0] == "ismcts:c=0.42,iterations=7"
    capsys.readouterr()
    assert main(["sprt", f"ismcts:@{best}", "random", "--game", "coins", "--max-groups", "1",
                 "--jobs", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["a"] == "ismcts:c=0.42,iterations=7"
    folder = tmp_path / "tournament"
    assert main(["tournament", "--game", "coins", "--agents", f"ismcts:@{best}", "random", "--deals", "1",
                 "--jobs", "1", "--bootstrap", "10", "--quiet", "--results", str(folder)]) == 0
    config = json.loads((folder / "config.json").read_text())
    assert config["agents"] == ["ismcts:c=0.42,iterations=7", "random"]
    assert str(best) not in (folder / "config.json").read_text()


def test_tune_stores_its_opponents_values(best, tmp_path):
    folder = tmp_path / "tune"
    assert main(["tune", "--game", "coins", "--agent", "ismcts", "--param", "iterations=2:6",
                 "--opponents", f"ismcts:@{best}", "random", "--budget", "60", "--groups", "1",
                 "--jobs", "1", "--no-confirm", "--quiet", "--results", str(folder)]) == 0
    config = json.loads((folder / "config.json").read_text())
    assert config["opponents"] == ["ismcts:c=0.42,iterations=7", "random"]


def test_view_request_carries_the_files_values(best, tmp_path, capsys):
    from slagwerk.engine.records import record_of

    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_of(STATE)))
    assert main(["view", "--seat", str(STATE.to_move), "--request", f"ismcts:@{best}", str(path)]) == 0
    request = json.loads(capsys.readouterr().out)
    assert request["agent"] == "ismcts:c=0.42,iterations=7"
    assert handle(request)["action"] in STATE.legal_texts()


# ----------------------------------------------------------------- named parameter sets


def test_a_server_names_its_parameter_files_and_requests_name_the_set(best):
    sets = load_parameter_sets([f"tuned={best}"])
    defaults = Defaults(parameter_sets=sets)
    answer = handle(act_request(STATE, "ismcts:params=tuned", stats=True), defaults=defaults)
    assert answer["stats"]["iterations"] == 7
    answer = handle(act_request(STATE, "ismcts:params=tuned,iterations=5", stats=True), defaults=defaults)
    assert answer["stats"]["iterations"] == 5  # the spec's own values override the set's
    assert "no parameter set 'nope' for agent 'ismcts' (sets: tuned (for ismcts))" in handle(
        act_request(STATE, "ismcts:params=nope"), defaults=defaults)["error"]
    assert "no parameter set 'tuned' for agent 'pimc' (sets: tuned (for ismcts))" in handle(
        act_request(STATE, "pimc:params=tuned"), defaults=defaults)["error"]
    alone = handle(act_request(STATE, "ismcts:params=tuned"))  # a server without parameter sets
    assert "no parameter set 'tuned' for agent 'ismcts' (sets: none)" in alone["error"]
    assert hello(defaults=defaults)["parameter_sets"] == {"tuned": {"agent": "ismcts"}}


@pytest.mark.parametrize("item, message", [
    ("tuned", "is not NAME=FILE"),
    ("a,b=x.json", "letters, digits"),
    ("t=/nonexistent/best.json", "cannot read"),
])
def test_bad_parameter_set_options_are_clear_errors(item, message):
    with pytest.raises(SpecError, match=message):
        load_parameter_sets([item])


def test_a_parameter_set_over_the_servers_caps_stops_the_bot_at_start(tmp_path, capsys):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"agent": "ismcts", "params": {"iterations": 10**8}}))
    assert main(["bot", "--time-limit-ms", "0", "--params", f"huge={path}"]) == 2
    assert "iterations=100000000 is more than this server allows" in capsys.readouterr().err


def test_the_bot_loads_parameter_files_once_at_start_and_its_worker_gets_values(tmp_path):
    path = tmp_path / "best.json"
    path.write_text(json.dumps(TUNED))
    process = BotProcess("--params", f"tuned={path}")  # the default time limit: a worker answers
    try:
        info = process.ask({"id": 1, "type": "hello"})
        assert info["parameter_sets"] == {"tuned": {"agent": "ismcts"}} and info["time_limit_ms"] == 30_000
        path.unlink()  # loaded at start: the file is no longer needed
        answer = process.ask(act_request(STATE, "ismcts:params=tuned", rid=2, stats=True))
        assert answer["id"] == 2 and answer["stats"]["iterations"] == 7, answer
        assert process.ask({"id": 3, "type": "quit"}) == {"id": 3, "ok": True}
        assert process.close() == 0
    finally:
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait()


# ------------------------------------------------------------------------ resource caps

CAPPED = Limits(max_time_ms=1000, max_iterations=5000, max_nodes=1 << 17, max_worlds=50)


@pytest.mark.parametrize("spec, extra, message", [
    ("ismcts:iterations=1000000000", {}, "iterations=1000000000 is more than this server allows "
                                         "(max_iterations is 5000)"),
    ("ismcts", {"iterations": 5001}, "iterations=5001 is more than this server allows"),
    ("ismcts:iterations=10,node_cap=67108864", {}, "node_cap=67108864 is more than this server allows "
                                                   "(max_nodes is 131072)"),
    ("ismcts:time_ms=2000", {}, "time_ms=2000 is more than this server allows (max_time_ms is 1000)"),
    ("ismcts", {"time_ms": 1001}, "time_ms=1001 is more than this server allows"),
    ("pimc:worlds=51,iterations_per_world=1", {}, "worlds=51 is more than this server allows "
                                                  "(max_worlds is 50)"),
    ("pimc:worlds=50,iterations_per_world=101", {}, "worlds*iterations_per_world=5050 is more than"),
    ("pimc:worlds=1,iterations_per_world=6000", {}, "iterations_per_world=6000 is more than"),
    ("ismcts", {}, "iterations=10000 is more than"),  # the agent's own default counts too
])
def test_every_resource_a_request_asks_for_is_capped(spec, extra, message):
    answer = handle(act_request(STATE, spec, **extra), CAPPED)
    assert set(answer) == {"id", "error"} and message in answer["error"], answer


def test_requests_within_the_caps_are_answered():
    for spec, extra in (("ismcts:iterations=5000,node_cap=131072", {}), ("ismcts", {"iterations": 40}),
                        ("pimc:worlds=50,iterations_per_world=100", {}), ("ismcts:time_ms=50", {})):
        answer = handle(act_request(STATE, spec, **extra), CAPPED)
        assert answer.get("action") in STATE.legal_texts(), (spec, answer)


def test_every_agent_parameter_that_sizes_work_names_its_cap():
    limits = Limits().describe()
    for cls in AGENTS.values():
        for key, spec in cls.params.items():
            if key in ("iterations", "iterations_per_world", "worlds", "node_cap", "time_ms"):
                assert spec.cap in limits, (cls.name, key)
            # every agent's defaults are served by a default server
        if cls.unavailable("coins"):
            continue  # OpenSpiel's agents without its optional wheel; net before a model ships
        Limits().check(make(cls.name, make_game("coins")))


def test_the_cap_options_reach_the_limits():
    args = build_parser().parse_args(["serve", "--max-iterations", "7", "--max-nodes", "9",
                                      "--max-worlds", "3"])
    assert (args.max_iterations, args.max_nodes, args.max_worlds) == (7, 9, 3)
    from slagwerk.cli.bot import limits_from_args

    args = build_parser().parse_args(["bot", "--max-iterations", "7", "--max-nodes", "9",
                                      "--max-worlds", "3"])
    limits = limits_from_args(args)
    assert (limits.max_iterations, limits.max_nodes, limits.max_worlds) == (7, 9, 3)
    assert Limits(max_nodes=9).describe()["max_tree_bytes"] == 9 * 72  # a guided tree (its priors)


# ------------------------------------------------------------------------ smaller holes


@pytest.mark.parametrize("spec, name", [("random:seed=1", "seed"), ("heuristic:game=x", "game"),
                                        ("ismcts:seed=3", "seed"), ("pimc:game=coins", "game")])
def test_a_parameter_that_collides_with_an_argument_is_an_unknown_parameter(spec, name):
    answer = handle(act_request(STATE, spec))
    assert answer == {"id": 1, "error": answer["error"]}
    assert answer["error"].startswith(f"unknown parameter {name!r}"), answer
    with pytest.raises(SpecError, match="unknown parameter"):
        make(spec, make_game("coins"))


def test_a_kozel_view_with_a_list_for_an_asked_seat_is_an_invalid_view():
    state = positions("kozel", 1, seed=8)[0]
    request = act_request(state)
    for asked in ([[]], [{}], [0, [1]], [None]):
        request["view"]["trick"]["asked"] = asked
        answer = handle(request)
        assert set(answer) == {"id", "error"}
        assert not answer["error"].startswith("internal error"), answer
        assert "trick 'asked'" in answer["error"]


def _leaf_paths(value, path=()):
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaf_paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaf_paths(item, path + (index,))


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_any_view_field_of_a_wrong_shape_is_a_clean_error(game_name):
    """Every field and element of real views replaced by values of other shapes:
    each answer is an action or a named error, never an internal one."""
    for state in positions(game_name, 3, seed=3):
        view = state.view(state.to_move)
        for path in list(_leaf_paths(view)):
            for replacement in ([], {}, [[]], None, "x", 1.5, -1):
                changed = copy.deepcopy(view)
                target = changed
                for key in path[:-1]:
                    target = target[key]
                target[path[-1]] = replacement
                answer = handle({"id": 1, "type": "act", "game": game_name, "agent": "heuristic",
                                 "view": changed})
                assert not answer.get("error", "").startswith("internal error"), (path, replacement, answer)


def test_the_stdio_bot_has_a_default_time_limit_and_0_turns_it_off():
    assert build_parser().parse_args(["bot"]).time_limit_ms == 30_000
    assert build_parser().parse_args(["bot", "--time-limit-ms", "0"]).time_limit_ms == 0
    from slagwerk.agents.workers import bot_command

    argv = bot_command(Limits())
    assert argv[argv.index("--time-limit-ms") + 1] == "0"  # a worker must not start workers of its own


def test_a_pool_warms_each_worker_up_for_a_game_the_first_time_it_is_asked_about_it():
    """The time limit counts the agent's work, not a worker's first load of a game."""
    from slagwerk.agents.workers import WorkerPool, bot_command

    pool = WorkerPool(bot_command(Limits()), 1, time_limit_ms=20_000)
    try:
        worker = pool.idle.queue[0]
        assert worker.warmed == set()
        for game_name in ("coins", "coins", "chess"):
            state = make_game("coins").new_match(seed=1)
            request = {"id": 1, "type": "act", "game": game_name, "agent": "heuristic",
                       "view": state.view(state.to_move)}
            status, answer = pool.ask(request)
            assert ("action" in answer) == (game_name == "coins"), answer
        assert worker.warmed == {"coins"}  # once, and never for a name that is not a game
    finally:
        pool.close()


def test_a_worker_warms_up_only_the_games_it_will_be_asked_for(monkeypatch):
    """A worker compiles or loads what its server needs before its first request:
    the server's default game, the game of a ``play --web`` match, or every game."""
    from slagwerk.agents.protocol import Defaults
    from slagwerk.agents.workers import bot_command

    def warmed(argv):
        args = build_parser().parse_args(argv[argv.index("bot"):])
        return args.warm

    assert "--warm" not in bot_command(Limits())  # each game when first asked about
    assert warmed(bot_command(Limits(), Defaults(game="kozel"))) == ["kozel"]
    assert warmed(bot_command(Limits(), warm_games=["coins", "aluette"])) == ["coins", "aluette"]
    assert build_parser().parse_args(["bot"]).warm is None
    assert build_parser().parse_args(["bot", "--warm"]).warm == []  # every game
    import slagwerk.agents.protocol as protocol

    asked = []
    monkeypatch.setattr(protocol, "handle", lambda request, limits: asked.append(request["game"]) or {})
    protocol.warm_up(Limits(), ["kozel"])
    assert asked and set(asked) == {"kozel"}


def test_slagwerk_error_is_what_bad_specs_raise():
    for spec in ("ismcts:@x", "random:seed=1", "ismcts:iterations=x"):
        with pytest.raises(SlagwerkError):
            make(spec, make_game("coins"))


def test_a_time_limited_bot_relays_warm_requests_to_its_worker_and_checks_settings_once():
    import subprocess
    import sys

    state = make_game("coins").new_match(seed=1)
    view = state.view(state.to_move)
    lines = [{"id": 1, "type": "warm", "game": "kozel"},
             {"id": 2, "type": "act", "game": "coins", "agent": "heuristic", "view": view}]
    done = subprocess.run([sys.executable, "-m", "slagwerk", "bot"], capture_output=True, text=True,
                          timeout=600, input="".join(json.dumps(line) + "\n" for line in lines))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["warmed"] == "kozel" and answers[0]["answered"] >= 4
    assert answers[1]["id"] == 2 and answers[1]["action"] in state.legal_texts()
    bad = subprocess.run([sys.executable, "-m", "slagwerk", "bot", "--agent", "ismcts:iterations=0"],
                         capture_output=True, text=True, timeout=600, input="")
    assert bad.returncode == 2 and bad.stderr.count("must be an integer from 1") == 1, bad.stderr
