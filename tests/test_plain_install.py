"""A plain ``pip install .`` works from the clone's root, where a user is left after the quick start.

Python puts the current folder first on the import path for ``python -m`` and
``python -c`` (the bot workers start that way): a folder there named like the
package, or like a part of it, would be imported instead of the installed
package. The rest of the suite runs on an editable install and cannot see
that, so this test installs a copy of the checkout, non-editable, into a new
virtual environment and runs the bot, the server, the web play and an import
of every subpackage from the copy's root.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from paths import PACKAGES, REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A copy of the checkout (its files as a clone has them, without the editable install's)."""
    root = tmp_path_factory.mktemp("clone") / "slagwerk-clone"
    shutil.copytree(REPO, root, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.egg-info", "build", ".pytest_cache",
        ".ruff_cache", ".hypothesis", "results", "slagwerk-results"))
    return root


@pytest.fixture(scope="module")
def venv(clone, tmp_path_factory) -> dict[str, str]:
    """A new virtual environment with the clone installed, not editable, as ``pip install .``
    installs it (the build backend in an isolated environment; the dependencies come from this
    Python's own packages)."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(folder)], check=True,
                   timeout=300)
    python = folder / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                           "--disable-pip-version-check", str(clone)],
                          capture_output=True, text=True, timeout=600, cwd=clone)
    assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "SLAGWERK_", "PYTHON"))}
    env.update(PATH=f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               SLAGWERK_CACHE_DIR=str(tmp_path_factory.mktemp("cache")), BROWSER="true")
    return {"python": str(python), "slagwerk": str(folder / "bin" / "slagwerk"),
            "site": str(folder), **{"env": env}}


def test_every_subpackage_imports_from_the_installed_copy(venv, clone):
    code = ("import importlib, json, sys\n"
            "found = {name: importlib.import_module(name).__file__ for name in sys.argv[1:]}\n"
            "print(json.dumps(found))\n")
    packages = [p for p in PACKAGES if not p.endswith((".static", ".models"))  # folders of data files
                and not p.endswith((".pettingzoo", ".openspiel"))]
    done = subprocess.run([venv["python"], "-c", code, *packages], cwd=clone, env=venv["env"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    files = json.loads(done.stdout)
    assert set(files) == set(packages)
    outside = {name: path for name, path in files.items() if not path.startswith(venv["site"])}
    assert not outside, f"imported from outside the new environment: {outside}"


def test_the_bot_answers_from_the_clone_root(venv, clone):
    """``slagwerk bot`` with its time limit relays through a worker (``python -m slagwerk``)."""
    requests = json.dumps({"id": 1, "type": "hello"}) + "\n" + json.dumps({"id": 2, "type": "quit"}) + "\n"
    done = subprocess.run([venv["slagwerk"], "bot"], input=requests, cwd=clone, env=venv["env"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["id"] == 1 and "games" in answers[0], answers
    assert "error" not in answers[0]


def _serving_port(proc: subprocess.Popen, pattern: str) -> int:
    line = ""
    while not re.search(pattern, line):
        line = proc.stderr.readline()
        assert line, "the server ended before it was serving"
    return int(re.search(pattern, line).group(1))


def _get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path)
    response = conn.getresponse()
    return response.status, response.read()


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["play", "coins", "--web"]],
                         ids=["serve", "play-web"])
def test_the_server_and_the_web_play_start_from_the_clone_root(venv, clone, command):
    # Ctrl-C as a terminal sends it: a suite started in the background (`pytest &`) has SIGINT
    # ignored, which its children inherit, and Python then keeps ignoring it.
    proc = subprocess.Popen([venv["slagwerk"], *command], cwd=clone, env=venv["env"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        port = _serving_port(proc, r"http://127\.0\.0\.1:(\d+)/")
        # Read the rest of its standard error as it comes: a full pipe would stop the server
        # (and its workers, which share the pipe) at their next line.
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.extend(proc.stderr), daemon=True)
        reader.start()
        status, body = _get(port, "/v1/info")
        assert status == 200, body
        assert "games" in json.loads(body)
        status, page = _get(port, "/")
        assert status == 200 and b"<html" in page.lower()
        proc.send_signal(signal.SIGINT if command[0] == "play" else signal.SIGTERM)
        try:
            assert proc.wait(timeout=60) in (0, 130), "".join(said)[-3000:]
        except subprocess.TimeoutExpired:
            pytest.fail(f"no exit 60 s after the signal; its standard error ended: {''.join(said)[-3000:]}")
        reader.join(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_the_installed_kernels_load_the_light_way(venv, clone):
    """base/jit.py finds the installed kernel folders (a plain install's differ from a checkout's):
    a warm process loads Coins' cached kernels without numba's compiler registries."""
    from test_kernel_cache import FIRST_DECISIONS

    runs = [subprocess.run([venv["python"], "-c", FIRST_DECISIONS, "light", "coins"], cwd=clone,
                           env=venv["env"], capture_output=True, text=True, timeout=900) for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr
    warm = json.loads(runs[1].stdout.strip().splitlines()[-1])  # the first run compiled
    assert warm["registries"] == [] and "coins" in warm["actions"]


def test_the_shipped_models_are_installed(venv, clone):
    code = ("from slagwerk.agents.net import MODELS_FOLDER\n"
            "print(sorted(p.name for p in MODELS_FOLDER.glob('*.npz')))\n")
    done = subprocess.run([venv["python"], "-c", code], cwd=clone, env=venv["env"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(sorted(p.name for p in (REPO / "agents" / "models").glob("*.npz")))
