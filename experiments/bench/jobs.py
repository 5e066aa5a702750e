"""How much faster a tournament runs on two worker processes, against what the machine allows.

A tournament of about ``target`` seconds of single-core work (random,
heuristic and ISMCTS in Coins) runs three ways, each a whole ``slagwerk
tournament`` process timed by the wall clock: with ``--jobs 1``, with
``--jobs 2``, and as its two halves (different seeds) run at the same time as
two separate ``--jobs 1`` processes. The third is the reference measured in
the same run: two processes that share nothing, so its speed-up is the most
two cores of this machine give this work (on a machine whose two cores
share a physical core, or whose neighbours are busy, it is well below 2).
``efficiency`` is the ``--jobs 2`` speed-up over that reference: 1.0 means
the harness's workers cost nothing beyond what two processes cost anyway.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

from ...agents.workers import slagwerk_command

AGENTS = ("random", "heuristic", "ismcts")
CALIBRATION_GROUPS = 4


def _tournament(folder: Path, name: str, game: str, groups: int, jobs: int, seed: int) -> subprocess.Popen:
    command = [*slagwerk_command("tournament", "--game", game, "--agents", *AGENTS),
               "--deals", str(groups), "--jobs", str(jobs), "--seed", str(seed), "--quiet",
               "--results", str(folder / name)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wall(*processes: subprocess.Popen) -> float:
    start = time.perf_counter()
    for process in processes:
        _, err = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"a benchmark tournament failed: {err.strip().splitlines()[-1:]}")
    return time.perf_counter() - start


def jobs_rows(game: str = "coins", target: float = 60.0) -> list[dict]:
    """Rows ``tournament_jobs``: seconds for ``--jobs 1``, ``--jobs 2`` and two
    independent processes, with the speed-ups and the efficiency."""
    with tempfile.TemporaryDirectory(prefix="slagwerk-jobs-") as tmp:
        folder = Path(tmp)
        _wall(_tournament(folder, "calibrate", game, CALIBRATION_GROUPS, 1, 1))
        with open(folder / "calibrate" / "games.jsonl", encoding="utf-8") as lines:
            per_group = sum(json.loads(line)["time"] for line in lines) / CALIBRATION_GROUPS
        groups = max(2, 2 * round(target / per_group / 2))
        one = _wall(_tournament(folder, "jobs1", game, groups, 1, 1))
        two = _wall(_tournament(folder, "jobs2", game, groups, 2, 1))
        halves = _wall(_tournament(folder, "half-a", game, groups // 2, 1, 1),
                       _tournament(folder, "half-b", game, groups // 2, 1, 2))
    base = {"game": game, "benchmark": "tournament_jobs", "groups": groups}
    return [
        {**base, "implementation": "jobs=1", "seconds": round(one, 2)},
        {**base, "implementation": "jobs=2", "seconds": round(two, 2), "speedup": round(one / two, 2),
         "efficiency": round(halves / two, 2)},
        {**base, "implementation": "2 processes", "seconds": round(halves, 2),
         "speedup": round(one / halves, 2)},
    ]
