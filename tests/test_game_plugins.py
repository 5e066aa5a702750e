"""A game from another installed package (entry-point group ``slagwerk.games``) is known to every
process: the command line's flags, a tournament's workers, ``--resume``, the bot's ``hello``
and the web page's game list.

The installed package is made by hand in a temporary folder: the toy game of
docs/adding-a-game.md under its own name, with an option flag no built-in game
has (``--tricks``), declared by a ``.dist-info`` folder's ``entry_points.txt``.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from paths import REPO

pytestmark = pytest.mark.slow

PLUGIN = '''
import dataclasses

import toy_game
from slagwerk.engine.spec import OptionSpec

INFO = dataclasses.replace(toy_game.INFO, options={
    "target": OptionSpec(5, 1, 100, "tricks that end the match", flag="--tricks"),
    "first_dealer": OptionSpec(0, 0, 1, "dealer of the first deal", flag="--first-dealer"),
})
'''


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("site")
    (site / "toy_plugin.py").write_text(PLUGIN)
    info = site / "toy_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[slagwerk.games]\ntoy = toy_plugin:INFO\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO / "tests"), env.get("PYTHONPATH", "")])
    return env


def slagwerk(env, *argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "slagwerk", *argv], env=env, capture_output=True,
                          text=True, timeout=600, **kwargs)


def test_the_game_gets_its_flag_and_plays_a_tournament_on_workers_and_resumes(plugin_env, tmp_path):
    done = slagwerk(plugin_env, "tournament", "--help")
    assert "--tricks" in done.stdout and "toy" in done.stdout, done.stderr
    folder = tmp_path / "run"
    done = slagwerk(plugin_env, "tournament", "--game", "toy", "--tricks", "2", "--agents", "random",
                    "heuristic", "--deals", "4", "--jobs", "2", "--bootstrap", "20", "--quiet",
                    "--results", str(folder))
    assert done.returncode == 0, done.stderr
    assert json.loads((folder / "config.json").read_text())["options"] == {"target": 2, "first_dealer": 0}
    assert len((folder / "games.jsonl").read_text().splitlines()) == 8  # two seatings a group
    again = slagwerk(plugin_env, "tournament", "--resume", str(folder), "--tricks", "2", "--quiet")
    assert again.returncode == 0, again.stderr
    other = slagwerk(plugin_env, "tournament", "--resume", str(folder), "--tricks", "3", "--quiet")
    assert other.returncode == 2
    assert "target=3 conflicts with first_dealer=0,target=2 stored in" in other.stderr
    assert "conflicts with" in other.stderr and other.stderr.count("\n") == 1


def test_the_bot_and_the_web_page_list_the_game(plugin_env):
    done = slagwerk(plugin_env, "bot", "--time-limit-ms", "0", input='{"id": 1, "type": "hello"}\n')
    hello = json.loads(done.stdout.splitlines()[0])
    assert hello["games"]["toy"]["options"]["target"]["max"] == 100, done.stderr
    server = subprocess.Popen([sys.executable, "-m", "slagwerk", "serve", "--port", "0"], env=plugin_env,
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        line = ""
        while "serving" not in line:
            line = server.stderr.readline()
            assert line, "the server ended before it was serving"
        port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/v1/info")  # the page's game list (web/static/app.js)
        info = json.loads(conn.getresponse().read())
        assert "toy" in info["games"] and "coins" in info["games"]
    finally:
        server.terminate()
        server.wait(timeout=60)
        server.stderr.close()


def test_a_broken_game_plugin_is_one_warning_and_the_rest_works(plugin_env, tmp_path):
    site = tmp_path / "broken"
    info = site / "broken_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[slagwerk.games]\nnothing = no_such_module:INFO\n")
    env = dict(plugin_env, PYTHONPATH=os.pathsep.join([str(site), plugin_env["PYTHONPATH"]]))
    done = slagwerk(env, "replay", "--help")
    assert done.returncode == 0
    code = textwrap.dedent("""
        from slagwerk.engine import GAME_NAMES
        print(' '.join(GAME_NAMES))
    """)
    listed = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            timeout=300)
    assert listed.stdout.split() == ["coins", "koetsieren", "kozel", "aluette", "toy"]
    warnings = [line for line in listed.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "game plugin 'nothing' (no_such_module:INFO) skipped" in warnings[0]
