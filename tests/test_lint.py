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
    """(name, line, imported) for each name a module's top level imports, assigns
    or defines (blocks such as ``try``/``except`` imports are left out)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    yield (alias.asname or alias.name).split(".")[0], node.lineno, True
            continue
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node.lineno, False
            continue
        else:
            continue
        for target in targets:
            names = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for name in names:
                if isinstance(name, ast.Starred):
                    name = name.value
                if isinstance(name, ast.Name):
                    yield name.id, node.lineno, False


SKIPPED_FOLDERS = {".git", "build", "dist", "venv", ".venv", "node_modules"}


def test_no_module_binds_a_name_twice():
    """A module constant given a second meaning further down (a kernel module's
    SPOILED, a state offset, once became a heuristic's table index too) changes
    every kernel compiled after it, silently; ruff does not look for that.
    Importing a name twice (``import a`` and ``import a.b``) is fine."""
    twice = []
    for path in sorted(REPO.rglob("*.py")):
        if SKIPPED_FOLDERS.intersection(path.relative_to(REPO).parts[:-1]):
            continue
        first = {}
        for name, line, imported in _module_bindings(ast.parse(path.read_text(encoding="utf-8"))):
            if name in first and name != "__all__" and not (imported and first[name][1]):
                twice.append(f"{path.relative_to(REPO)}:{line}: {name} (first at line {first[name][0]})")
            first.setdefault(name, (line, imported))
    assert not twice, "\n".join(twice)
