"""MkDocs hook: the API reference reads this checkout's sources, laid out as the installed package.

The repository's folders install under other names (setup.py: ``base/`` is ``slagwerk``,
``engine/`` is ``slagwerk.engine``, ...), so no folder of a clone is a package mkdocstrings can
find by its import name, and an editable install of another checkout would be read instead.
Before the build, this hook copies the package's Python files into a temporary folder as
``slagwerk/...`` (about 1.3 MB) and points mkdocstrings' Python handler there. Nothing is
imported: the docstrings are read from the source (griffe's static analysis).
"""

from __future__ import annotations

import atexit
import runpy
import shutil
import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority

REPO = Path(__file__).resolve().parents[1]


def _only_python(folder: str, names: list[str]) -> set[str]:
    """copytree's ``ignore``: everything but Python files and folders."""
    return {name for name in names
            if name == "__pycache__" or (not name.endswith(".py") and not (Path(folder) / name).is_dir())}


def package_sources(into: Path) -> Path:
    """Copy the package's sources under ``into/slagwerk`` as installed; returns ``into``."""
    layout = runpy.run_path(str(REPO / "setup.py"), run_name="slagwerk_layout")
    for package, folder in sorted(layout["package_dirs"]().items(), key=lambda item: item[0].count(".")):
        target = into.joinpath(*package.split("."))
        shutil.copytree(REPO / folder, target, ignore=_only_python, dirs_exist_ok=True)
    return into


@event_priority(100)  # before mkdocstrings' own: it makes its handlers there
def on_config(config):
    into = Path(tempfile.mkdtemp(prefix="slagwerk-api-"))
    atexit.register(shutil.rmtree, into, ignore_errors=True)
    package_sources(into)
    handlers = config.plugins["mkdocstrings"].config.handlers
    handlers.setdefault("python", {})["paths"] = [str(into)]
    return config
