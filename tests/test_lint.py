"""`ruff check` is part of the test suite, so the README's one test command covers it."""

import os
import shutil
import subprocess
import sys

import pytest

from paths import REPO


def test_ruff_is_clean():
    # the environment's own ruff first: its pytest may run without the environment activated
    ruff = shutil.which("ruff", path=os.path.dirname(sys.executable)) or shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: install the test extra (pip install -e '.[test]')")
    run = subprocess.run([ruff, "check", "."], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
