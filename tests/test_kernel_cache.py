"""The compiled-kernel cache: per user and per kernel sources, never stale, never
inside the installed package (slagwerk.kernel_cache)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import PACKAGE_DIRS, REPO
from slagwerk import __version__, kernel_cache
from slagwerk.engine import GAME_NAMES

PROBE = """
import numpy as np
import slagwerk
from slagwerk.engine.coins import kernels as k
from slagwerk.engine.state import PHASE, PHASE_PLAY, TO_MOVE
assert slagwerk.__file__.startswith({site!r}), slagwerk.__file__
state = np.zeros(k.STATE_SIZE, np.int64)
state[PHASE] = PHASE_PLAY
state[TO_MOVE] = 0
state[k.HANDS] = 0b101101
print(k.legal_actions(state, np.zeros(64, np.int64)))
"""


def _install_copy(site: Path) -> Path:
    """Copy the package's sources to ``site`` as a plain (non-editable) install has them."""
    for package, source in PACKAGE_DIRS.items():
        shutil.copytree(REPO / source, site / package.replace(".", "/"), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    return site / "slagwerk"


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _probe(site: Path, cache_root: Path) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "SLAGWERK_"))}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", SLAGWERK_CACHE_DIR=str(cache_root))
    done = subprocess.run([sys.executable, "-c", PROBE.format(site=str(site))], env=env, cwd=site,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_an_edited_callee_in_another_file_recompiles_and_the_package_stays_untouched(tmp_path):
    """coins.legal_actions (engine/coins/kernels.py) calls hand_actions
    (engine/common.py): numba's own cache keys the caller by its own file
    only, so an edit of the callee alone would leave stale code in use."""
    site, cache_root = tmp_path / "site", tmp_path / "cache"
    package = _install_copy(site)
    before = _files(package)
    assert _probe(site, cache_root) == 4  # four cards in hand
    assert _probe(site, cache_root) == 4  # and again from the cache
    first = {p.name for p in cache_root.iterdir()}
    assert len(first) == 1 and next(iter(first)).startswith(f"{__version__}-")

    common = package / "engine" / "common.py"
    text = common.read_text()
    old = "    return mask_to_indices(np.uint64(state[hands + state[TO_MOVE]]), out)\n"
    assert text.count(old) == 1
    common.write_text(text.replace(old, old.replace("return ", "return 1000 + ")))
    assert _probe(site, cache_root) == 1004  # the edit is seen: compiled afresh
    assert len({p.name for p in cache_root.iterdir()} - first) == 1  # in a new folder

    assert _files(package) == before  # no cache file, nothing at all written into the package
    assert [p for p in cache_root.rglob("*") if p.suffix in (".nbi", ".nbc")]  # it went here instead


UNWRITABLE_PROBE = PROBE + """
from slagwerk import kernel_cache
with kernel_cache.compiling(["coins"]):
    pass
print(kernel_cache.cache_folder(), list(kernel_cache.cache_folder().rglob("*.nbi"))[:1])
"""


def test_a_cache_folder_that_cannot_be_written_is_replaced_for_the_run(tmp_path):
    """numba's own fallback for an unwritable cache folder is __pycache__ inside
    the package; instead the run compiles into a private temporary folder,
    says so, and removes it at exit."""
    site = tmp_path / "site"
    package = _install_copy(site)
    before = _files(package)
    (tmp_path / "file").write_text("a file, not a folder")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "SLAGWERK_"))}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", SLAGWERK_CACHE_DIR=str(tmp_path / "file"))
    done = subprocess.run([sys.executable, "-c", UNWRITABLE_PROBE.format(site=str(site))], env=env, cwd=site,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert lines[0].split()[-1] == "4"
    folder, cached = lines[1].split(" ", 1)
    assert Path(folder).name.startswith("slagwerk-kernels-") and ".nbi" in cached  # compiled there
    assert not Path(folder).exists()  # and removed at exit
    assert f"the cache folder {tmp_path / 'file'}" in done.stderr and "cannot be written" in done.stderr
    assert "SLAGWERK_CACHE_DIR" in done.stderr and done.stderr.count("\n") == 1
    assert _files(package) == before  # nothing written into the package


def test_cache_folder_is_per_user_version_and_sources(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv(kernel_cache.MANAGED_ENV, raising=False)
    monkeypatch.setenv("SLAGWERK_CACHE_DIR", str(tmp_path))
    folder = kernel_cache.cache_folder()
    assert folder.parent == tmp_path
    assert folder.name == f"{__version__}-{kernel_cache.kernel_sources_hash()}"
    monkeypatch.delenv("SLAGWERK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert kernel_cache.cache_folder().parent == tmp_path / "xdg" / "slagwerk"


def test_an_explicit_numba_cache_dir_is_used_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.delenv(kernel_cache.MANAGED_ENV, raising=False)
    assert kernel_cache.cache_folder() == tmp_path / "mine"
    # ... but one slagwerk chose (inherited by a child process) is chosen again
    monkeypatch.setenv(kernel_cache.MANAGED_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv("SLAGWERK_CACHE_DIR", str(tmp_path / "root"))
    assert kernel_cache.cache_folder().parent == tmp_path / "root"


def test_the_first_compilation_is_announced_once(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(kernel_cache.MANAGED_ENV, raising=False)
    with kernel_cache.compiling(["coins", "kozel"]) as cold:
        assert cold == ["coins", "kozel"]
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "compiling" in message and "coins, kozel" in message
    assert "once" in message and str(tmp_path) in message
    with kernel_cache.compiling(["coins"]) as cold:
        assert cold == []
    assert capsys.readouterr().err == ""


def test_a_part_compiled_apart_does_not_silence_the_games_own_announcement(monkeypatch, tmp_path, capsys):
    """The environments compile a game's encoding only: a later run's search compile
    (about 25 s) must still be announced, and the encoding's own once."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(kernel_cache.MANAGED_ENV, raising=False)
    with kernel_cache.compiling(["kozel"], part="encoding", seconds=3, label="observation encoding") as cold:
        assert cold == ["kozel"]
    said = capsys.readouterr().err
    assert "compiling the numba kernels for the observation encoding of kozel (about 3 s, once" in said
    with kernel_cache.compiling(["kozel"], part="encoding", seconds=3) as cold:
        assert cold == []
    with kernel_cache.compiling(["kozel"]) as cold:
        assert cold == ["kozel"]
        with kernel_cache.compiling(["kozel"], part="belief-1", seconds=3) as inner:
            assert inner == ["kozel"]  # compiled and marked, but said by the outer line only
    assert capsys.readouterr().err.count("compiling") == 1
    with kernel_cache.compiling(["kozel"], part="belief-1", seconds=3) as cold:
        assert cold == []


def test_old_cache_folders_are_pruned(monkeypatch, tmp_path):
    monkeypatch.setenv("SLAGWERK_CACHE_DIR", str(tmp_path))
    folders = []
    for i in range(6):
        folders.append(tmp_path / f"0.0.{i}-x")
        folders[-1].mkdir()
        os.utime(folders[-1], (1000 + i, 1000 + i))
    removed = kernel_cache.prune_old_folders(folders[-1], keep=2)
    assert sorted(removed) == sorted(folders[:3])
    assert sorted(p for p in tmp_path.iterdir()) == folders[3:]


@pytest.mark.parametrize("name", ["engine", "search"])
def test_kernel_sources_are_hashed(name):
    """The hash covers the folders holding kernels (else an edit there would go unseen)."""
    folders = {p.name for p in kernel_cache.kernel_folders()}
    assert name in folders


FIRST_DECISIONS = """
import json, sys
from numba.core import caching
import slagwerk.jit
if sys.argv[1] == "numba":  # numba's own way of loading, for comparison
    caching.Cache.load_overload = caching.Cache.load_overload.numba_load
from slagwerk.agents import make
from slagwerk.engine import make_game
actions = {}
for name in sys.argv[2:]:
    game = make_game(name)
    state = game.new_match(seed=3)
    actions[name] = make("ismcts", game, seed=1).decide(state.view(state.to_move)).action
registries = [m for m in ("numba.typed.dictimpl", "numba.np.polynomial.polynomial_functions",
                         "numba.np.arraymath", "scipy.linalg") if m in sys.modules]
print(json.dumps({"actions": actions, "registries": registries}))
"""


def _first_decisions(way: str) -> dict:
    done = subprocess.run([sys.executable, "-c", FIRST_DECISIONS, way, *GAME_NAMES],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cached_kernels_load_without_numbas_compiler_registries_and_decide_alike():
    """base/jit.py: a warm process loads slagwerk's kernels after starting numba's
    runtime alone (none of the compiler's registries, nor numba's NumPy support, are
    imported), and the loaded kernels decide exactly as the same kernels loaded
    numba's own way."""
    _first_decisions("light")  # compiles whatever the cache lacks
    light = _first_decisions("light")
    numba_way = _first_decisions("numba")
    assert light["registries"] == []
    assert numba_way["registries"] != []  # the check above can see them
    assert set(light["actions"]) == set(GAME_NAMES)
    assert light["actions"] == numba_way["actions"]


def test_a_kernel_compiled_afresh_gets_numbas_numpy_support_without_scipy_linalg(tmp_path):
    """base/jit.py: a cache miss loads numba's NumPy support (compiling needs it)
    with scipy's linear algebra hidden from its BLAS probe."""
    code = ("import sys\n"
            "from slagwerk.engine.bits import mask_of, popcount\n"
            "assert 'numba.np.arraymath' not in sys.modules\n"
            "print(int(popcount(mask_of([1, 5, 9]))),\n"
            "      'numba.np.arraymath' in sys.modules, 'scipy.linalg' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "True", "False"]
    assert any(tmp_path.rglob("*.nbi"))  # it really was compiled into the (empty) cache
