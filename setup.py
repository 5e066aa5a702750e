"""How the repository's folders install: one folder per layer of the ``slagwerk`` package.

The project's metadata is in ``pyproject.toml``; this file only says where the
package's parts are, because setuptools' declarative ``find`` cannot prefix
what it finds. The design card keeps ``engine/``, ``search/``, ``agents/`` and
``experiments/`` at the top of the repository; ``envs/``, ``web/`` and
``cli/`` sit beside them. Each installs as the subpackage of its name
(``engine/`` as ``slagwerk.engine``), and ``base/`` is the package
``slagwerk`` itself: the bottom layer (version, kernel cache, safe files,
numba set-up, errors) that everything may import.

No folder at the top is named like a part of the package that it is not
whole: there is no ``slagwerk/`` folder, so a Python started in a clone's
root imports the installed package, never half of it.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent
ROOT_FOLDER = "base"
"""The folder of the package ``slagwerk`` itself."""
LAYER_FOLDERS = ("engine", "search", "envs", "agents", "experiments", "web", "cli")
"""The folders that install as ``slagwerk.<folder>``."""
PACKAGE_DATA = {
    "slagwerk.engine.coins": ["playout.c"],  # the C twin of the Coins playout, compiled by `slagwerk bench`
    "slagwerk.web.static": ["*.html", "*.js", "*.css", "rules.md"],  # the page, and the rule book it links
    "slagwerk.agents": ["protocol.schema.json"],  # the protocol's JSON Schemas (agents/messages.py)
    "slagwerk.agents.models": ["*.npz"],  # the net agent's shipped models (docs/learned.md)
}


def package_dirs() -> dict[str, str]:
    """Each package's folder, relative to the repository."""
    return {"slagwerk": ROOT_FOLDER, **{f"slagwerk.{folder}": folder for folder in LAYER_FOLDERS}}


def packages() -> list[str]:
    """Every package under the layer folders (a folder of data files, such as the page's
    ``static/``, counts: its files are package data)."""
    found = ["slagwerk"]
    for package, folder in package_dirs().items():
        for sub in find_namespace_packages(where=str(HERE / folder), exclude=["*__pycache__*"]):
            found.append(f"{package}.{sub}")
        if package != "slagwerk":
            found.append(package)
    return sorted(found)


if __name__ == "__main__":
    setup(packages=packages(), package_dir=package_dirs(), package_data=PACKAGE_DATA)
