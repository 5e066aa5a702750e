"""Doctests of the package, imported under the names they are installed as.

``--doctest-modules`` (pyproject.toml) collects the docstrings of every module
in the package's folders (setup.py's ``package_dirs``: ``base/``, ``engine/``,
``search/``, ...). pytest would import ``engine/bits.py`` as ``engine.bits`` (its
folder is a package at the top of the repository); the package is installed as
``slagwerk.engine.bits`` (``base/`` is ``slagwerk`` itself),
whose relative imports reach ``slagwerk``. So a package file's doctests are
collected from the installed module (and pytest does not import the
package folders itself); the tests' own files (``tests/``) hold
no doctests and the scripts in ``docs/`` are examples, not collected.
"""

from __future__ import annotations

import importlib
import importlib.util
import runpy
from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule

REPO = Path(__file__).resolve().parent

collect_ignore_glob = ["docs/*.py"]
# the environments import their optional frameworks (extras [pettingzoo], [openspiel]): without
# one installed, its module has no doctests to collect
for _framework, _module in (("pettingzoo", "envs/pettingzoo.py"),
                            ("pyspiel", "envs/openspiel.py")):
    if importlib.util.find_spec(_framework) is None:
        collect_ignore_glob.append(_module)


def _package_dirs() -> dict[Path, str]:
    layout = runpy.run_path(str(REPO / "setup.py"), run_name="slagwerk_layout")
    return {(REPO / folder).resolve(): package for package, folder in layout["package_dirs"]().items()}


PACKAGE_DIRS = _package_dirs()


def installed_name(path: Path) -> str | None:
    """The name ``path`` is imported as once the package is installed (None outside it)."""
    path = path.resolve()
    for folder, package in PACKAGE_DIRS.items():
        if path.is_relative_to(folder):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join((package, *parts))
    return None


class InstalledDoctestModule(DoctestModule):
    """A package file's doctests, from the module ``import slagwerk...`` gives."""

    def _getobj(self):
        name = installed_name(self.path)
        module = importlib.import_module(name)
        if Path(module.__file__).resolve() != self.path.resolve():
            raise self.CollectError(
                f"{name} is imported from {module.__file__}, not {self.path}: "
                "install this checkout (pip install -e .)"
            )
        return module


class InstalledPackage(pytest.Package):
    """A package folder, not imported by pytest as a top-level package of its own
    (``agents/__init__.py`` as ``agents``): its doctests import it as installed."""

    def setup(self) -> None:
        pass  # no setup_module in the package


@pytest.hookimpl(wrapper=True)
def pytest_collect_directory(path: Path, parent):
    collector = yield
    if type(collector) is pytest.Package and installed_name(path / "__init__.py") is not None:
        return InstalledPackage.from_parent(parent, path=path)
    return collector


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent):
    collectors = yield
    result = []
    for collector in collectors:
        if type(collector) is DoctestModule:
            if installed_name(file_path) is None:
                continue  # doctests live in the package only
            collector = InstalledDoctestModule.from_parent(parent, path=file_path)
        result.append(collector)
    return result
