"""Agents from outside slagwerk, by import: installed plugins and ``--plugin MODULE``.

A plugin is a Python :class:`~slagwerk.agents.base.Agent` subclass that lives
in another package. Two ways bring it in, and either way it joins the
registry (:data:`~slagwerk.agents.registry.AGENTS`), so that its name works
in every spec, ``A+B`` partnership, ``tune`` and ``slagwerk bot``'s ``hello``:

- an installed distribution declares it in the entry-point group
  ``slagwerk.agents`` (``pyproject.toml``: ``[project.entry-points."slagwerk.agents"]``
  ``my-agent = "my_package.bots:MyAgent"``); :func:`load_entry_points` loads
  every one, once per process;
- ``--plugin MODULE`` (a module name, or a path to a ``.py`` file) imports a
  module that registers its agents itself (``@register``);
  :func:`load_plugin` does it and remembers it, so that the experiment's
  worker processes import the same modules (:func:`loaded_plugins`).

A plugin may not take the name of a built-in agent or of another plugin.
An installed plugin that cannot be loaded is skipped with a one-line warning
(it must not stop every command); a ``--plugin`` that cannot be imported is an
error, since the user asked for it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib.metadata import entry_points
from pathlib import Path

from ..errors import SpecError
from .base import Agent
from .registry import AGENTS, register

ENTRY_POINT_GROUP = "slagwerk.agents"

_LOADED: list[str] = []
"""``--plugin`` modules imported in this process, in order (as given to the workers)."""
_ENTRY_POINTS_LOADED = False


def load_entry_points(warn=None) -> list[str]:
    """Register the agent classes of every installed ``slagwerk.agents`` entry point
    (once per process); return the names registered now. ``warn(text)`` is told
    about an entry point that fails (default: a line on standard error)."""
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return []
    _ENTRY_POINTS_LOADED = True
    warn = warn or (lambda text: print(f"slagwerk: warning: {text}", file=sys.stderr))
    added = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        where = f"agent plugin {point.name!r} ({point.value})"
        try:
            cls = point.load()
        except Exception as err:  # a broken installed plugin must not stop every command
            warn(f"{where} cannot be loaded, skipped: {type(err).__name__}: {err}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, Agent)):
            warn(f"{where} is not an Agent subclass, skipped")
            continue
        if not getattr(cls, "name", None):
            cls.name = point.name
        if cls.name in AGENTS and AGENTS[cls.name] is not cls:
            warn(f"{where}: the agent name {cls.name!r} is taken, skipped")
            continue
        if cls.name != point.name:
            warn(f"{where} is registered by its class's name {cls.name!r}: specs name it so "
                 f"(give the entry point that name to silence this)")
        register(cls)
        added.append(cls.name)
    return added


def load_plugin(module: str) -> None:
    """Import ``module`` (a module name, or a path to a ``.py`` file), which registers
    its agents; a module already loaded in this process is not loaded again.

    :raises SpecError: if it cannot be imported, or it takes a built-in agent's name.
    """
    load_entry_points()
    if module in _LOADED:
        return
    before = dict(AGENTS)
    try:
        if module.endswith(".py") or "/" in module or "\\" in module:
            _import_file(Path(module))
        else:
            importlib.import_module(module)
    except SpecError:
        raise
    except Exception as err:
        hint = ""
        if isinstance(err, ModuleNotFoundError) and err.name == module and Path(f"{module}.py").is_file():
            hint = (f" (a module name is looked for on Python's path, not in this folder: "
                    f"give the file {module}.py)")
        raise SpecError(f"--plugin {module!r} cannot be imported: {type(err).__name__}: {err}{hint}"
                        ) from None
    replaced = sorted(name for name, cls in before.items() if AGENTS.get(name) is not cls)
    if replaced:
        for name in replaced:
            AGENTS[name] = before[name]
        raise SpecError(f"--plugin {module!r} registers an agent named {replaced[0]!r}, which is taken")
    if not set(AGENTS) - set(before):
        print(f"slagwerk: warning: --plugin {module!r} registered no agent (decorate each Agent "
              f"class with @register)", file=sys.stderr)
    _LOADED.append(module)


def load_plugins(modules) -> tuple[str, ...]:
    """:func:`load_plugin` for each of ``modules``; the modules as workers must get them
    (file paths made absolute, so a worker finds them from any folder). Installed plugins
    are loaded first, even with no ``modules`` (a worker process needs them too)."""
    load_entry_points()
    out = []
    for module in modules or ():
        if module.endswith(".py") or "/" in module or "\\" in module:
            module = str(Path(module).resolve())
        load_plugin(module)
        out.append(module)
    return tuple(out)


def loaded_plugins() -> tuple[str, ...]:
    """The ``--plugin`` modules loaded in this process (what its workers must load)."""
    return tuple(_LOADED)


def _import_file(path: Path) -> None:
    name = f"slagwerk_plugin_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path) if path.is_file() else None
    if spec is None or spec.loader is None:
        why = "not a Python module" if path.is_file() else "no such file"
        raise SpecError(f"--plugin {str(path)!r}: {why}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
