"""`ruff check` is part of the test suite, so the README's one test command covers it."""

import ast
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


def _module_bindings(tree):
    """(name, line) for each name a module's top level assigns or defines."""
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield node.name, node.lineno
            continue
        else:
            continue
        for target in targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            for name in names:
                if isinstance(name, ast.Name):
                    yield name.id, node.lineno


def test_no_module_binds_a_name_twice():
    """A module constant given a second meaning further down (a kernel module's
    SPOILED, a state offset, once became a heuristic's table index too) changes
    every kernel compiled after it, silently; ruff does not look for that."""
    twice = []
    for path in sorted(REPO.glob("*/**/*.py")):
        if not path.relative_to(REPO).parts[0].startswith((".", "venv", "build")):
            first = {}
            for name, line in _module_bindings(ast.parse(path.read_text(encoding="utf-8"))):
                if name in first and name != "__all__":
                    twice.append(f"{path.relative_to(REPO)}:{line}: {name} (first at line {first[name]})")
                first.setdefault(name, line)
    assert not twice, "\n".join(twice)
