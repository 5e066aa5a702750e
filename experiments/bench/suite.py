"""``slagwerk bench``: speed measured, never asserted.

Rates are per second of CPU time (see :func:`timed_rate`). Every figure is
reported next to a reference measured in the same run, as
a ratio: numba playouts against plain Python (``engine/<game>/pure.py``),
Coins against its C twin (``engine/coins/playout.c``, shipped with the
package and compiled with the system C compiler, ``-O3 -march=native``, into
a temporary folder when a compiler is found), and search iterations against
playouts (``search_bench``). Start-up is timed in fresh processes: cold
(empty numba cache, compiling) and warm (cached).
"""

from __future__ import annotations

import atexit
import importlib
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

from ...engine import GAME_NAMES, make_game
from ...engine.bits import make_rng
from ...engine.playout import random_playouts
from ...engine.registry import game_info
from .timing import timed_rate


def numba_playout_rate(game_name: str, seconds: float) -> float:
    """Random full-deal playouts per second in the numba kernels."""
    start = make_game(game_name, **game_info(game_name).bench_options).new_match().array
    rng = make_rng(12345)
    random_playouts(start, 2, rng)  # compile or load from cache outside the clock
    return timed_rate(lambda n: random_playouts(start, n, rng), seconds)


def pure_playout_rate(game_name: str, seconds: float) -> float | None:
    """Random full-deal playouts per second in the plain Python reference, if any."""
    try:
        pure = importlib.import_module(f"slagwerk.engine.{game_name}.pure")
    except ModuleNotFoundError:
        return None
    rng = random.Random(12345)

    def step(n):
        for _ in range(n):
            pure.random_playout(rng)

    return timed_rate(step, seconds)


C_TWIN = ("slagwerk.engine.coins", "playout.c")
"""The C twin of the Coins random playout: package and file name (package data)."""
C_COMPILERS = ("cc", "gcc", "clang")
C_FLAGS = ("-std=c99", "-O3", "-march=native")
NO_COMPILER = (
    "C comparison skipped: no C compiler found (looked for cc, gcc and clang on PATH); "
    "install one (e.g. `apt install gcc`, or `xcode-select --install` on macOS) "
    "to measure numba against the C twin engine/coins/playout.c"
)


def find_c_compiler() -> str | None:
    """Path of the system C compiler (the first of :data:`C_COMPILERS` on PATH), or None."""
    return next((path for path in map(shutil.which, C_COMPILERS) if path), None)


def compile_c_twin(folder: Path, compiler: str) -> tuple[Path | None, str]:
    """Compile the C twin into ``folder``: the binary (None if the compiler
    failed) and a note on how it was built or why it was not.

    The source is read from the installed package and copied into ``folder``,
    so nothing is ever written into the package. ``-march=native`` is dropped
    if the compiler rejects it.
    """
    source = folder / C_TWIN[1]
    source.write_text(resources.files(C_TWIN[0]).joinpath(C_TWIN[1]).read_text(encoding="utf-8"),
                      encoding="utf-8")
    binary = folder / "coins_playout"
    error = ""
    for flags in (C_FLAGS, C_FLAGS[:-1]):
        build = subprocess.run([compiler, *flags, "-o", str(binary), str(source)],
                               capture_output=True, text=True)
        if build.returncode == 0:
            return binary, f"{Path(compiler).name} {' '.join(flags[1:])} engine/coins/playout.c"
        error = build.stderr.strip().replace("\n", " ")
    name = Path(compiler).name
    return None, f"C comparison skipped: {name} failed on engine/coins/playout.c: {error[:200]}"


_C_BUILD: dict[str, object] = {}


def _c_binary() -> tuple[Path | None, str]:
    """Compile the C twin once per process, into a private temporary folder
    (removed at exit)."""
    if "binary" not in _C_BUILD:
        compiler = find_c_compiler()
        if compiler is None:
            binary, note = None, NO_COMPILER
        else:
            folder = Path(tempfile.mkdtemp(prefix="slagwerk-c-twin-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            binary, note = compile_c_twin(folder, compiler)
        _C_BUILD.update(binary=binary, note=note)
    return _C_BUILD["binary"], _C_BUILD["note"]


def c_twin_rate(seconds: float) -> tuple[float | None, str]:
    """Coins random playouts per CPU second of the C twin, or None and why not."""
    binary, note = _c_binary()
    if binary is None:
        return None, note
    count = 200_000  # calibrate the playout count to the time budget
    rate = _run_c(binary, count)
    count = max(count, int(rate * seconds))
    return max(rate, _run_c(binary, count)), note


def run_c_twin(binary: Path, count: int, seed: int = 1) -> dict[str, list[int] | int]:
    """Run ``count`` playouts of the C twin: ``playouts`` and, per seat, the sums
    of the coins taken (``coins``) and of their squares (``squares``)."""
    out = subprocess.run([str(binary), str(count), str(seed)], capture_output=True, text=True,
                         check=True).stdout
    found = re.search(r"playouts=(\d+) coins=([\d,]+) squares=([\d,]+)", out)
    if not found:
        raise RuntimeError(f"unexpected output from the C twin: {out[:200]!r}")
    return {"playouts": int(found[1]), "coins": [int(v) for v in found[2].split(",")],
            "squares": [int(v) for v in found[3].split(",")]}


def _run_c(binary: Path, count: int) -> float:
    """Playouts per CPU second of one run of the C twin (its own CPU time,
    from the child's resource usage, like the in-process measurements)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_c_twin(binary, count)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return count / max(cpu, 1e-9)


def playout_rows(games, seconds: float, with_c: bool = True, rounds: int = 3) -> list[dict]:
    """Playout rows per game. Implementations are measured in ``rounds``
    interleaved rounds and the best rate of each is kept, so that load from
    other processes hits all of them alike instead of one by chance."""
    rows = []
    share = seconds / rounds
    for game in games:
        best: dict[str, float] = {}
        c_note = None
        for _ in range(rounds):
            best["numba"] = max(best.get("numba", 0.0), numba_playout_rate(game, share))
            pure = pure_playout_rate(game, share)
            if pure is not None:
                best["python"] = max(best.get("python", 0.0), pure)
            if game == "coins" and with_c:
                c_rate, c_note = c_twin_rate(share)
                if c_rate is not None:
                    best["c"] = max(best.get("c", 0.0), c_rate)
        numba_rate = best["numba"]
        rows.append({"game": game, "benchmark": "random_playout", "implementation": "numba",
                     "per_second": round(numba_rate, 1)})
        if "python" in best:
            rows.append({"game": game, "benchmark": "random_playout", "implementation": "python",
                         "per_second": round(best["python"], 1),
                         "numba_speedup": round(numba_rate / best["python"], 1)})
        if "c" in best:
            rows.append({"game": game, "benchmark": "random_playout", "implementation": "c",
                         "per_second": round(best["c"], 1),
                         "numba_over_c": round(numba_rate / best["c"], 3), "note": c_note})
        elif game == "coins" and with_c:
            print(f"note: {c_note}", file=sys.stderr)
    return rows


STARTUP_SNIPPET = """
import time, sys
t0 = time.perf_counter()
from slagwerk.engine import make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.playout import random_playouts
for name in sys.argv[1:]:
    random_playouts(make_game(name).new_match().array, 1, make_rng(1))
print(time.perf_counter() - t0)
"""


def startup_rows(games) -> list[dict]:
    """Seconds from interpreter start to the first playout of every game: cold
    (empty numba cache: everything compiles) and warm (the cache of the cold run)."""
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for kind in ("cold", "warm"):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", STARTUP_SNIPPET, *games], env=env,
                                 capture_output=True, text=True, check=True).stdout
            wall = time.perf_counter() - start
            rows.append({"game": "all" if set(games) == set(GAME_NAMES) else ",".join(games),
                         "benchmark": "startup_first_playout",
                         "implementation": kind, "seconds": round(wall, 2),
                         "seconds_in_process": round(float(out.strip()), 2)})
    return rows


def run_bench(games=None, seconds: float = 2.0, startup: bool = False, search: bool = True,
              with_c: bool = True, bots: bool = True) -> list[dict]:
    games = list(games or GAME_NAMES)
    rows = playout_rows(games, seconds, with_c=with_c)
    from . import search as search_bench

    if search:
        rows += search_bench.ismcts_rows(games, seconds)
        rows += search_bench.deadline_rows(games)
        rows += search_bench.net_rows(games, seconds)
        rows += search_bench.guided_rows(games, seconds)
        from .belief import belief_rows

        rows += belief_rows(games, seconds)
    if bots:  # the harness's overhead per decision for a bot program on stdio
        from .bot_overhead import overhead_rows

        rows += overhead_rows(games, seconds)
    from .envs import env_rows  # PettingZoo environment steps (skipped without PettingZoo)

    rows += env_rows(games, seconds)
    if startup:
        rows += startup_rows(games)
        if search:
            rows += search_bench.startup_rows(games)
    return rows


def format_table(rows) -> str:
    lines = [f"{'game':<12}{'benchmark':<31}{'implementation':<16}{'value':>14}  ratio"]
    for row in rows:
        value = row.get("per_second")
        shown = f"{value:>12,.0f}/s" if value is not None else f"{row['seconds']:>13.2f}s"
        ratios = ", ".join(f"{k}={v}" for k, v in row.items()
                           if k not in ("game", "benchmark", "implementation", "per_second",
                                        "seconds", "note"))
        lines.append(f"{row['game']:<12}{row['benchmark']:<31}{row['implementation']:<16}"
                     f"{shown}  {ratios}")
    return "\n".join(lines)
