"""Where numba keeps slagwerk's compiled kernels, and when it must compile them.

numba's own cache sits in ``__pycache__`` beside each source file and checks
only that file's time stamp: an installed package would receive files it
does not own, and an edit to a kernel's callee in another file would leave
stale machine code in use. So the cache lives in a per-user folder named
after slagwerk's version and a hash of every kernel source,

    <user cache folder>/slagwerk/<version>-<hash>/

and any edit to a kernel source, or an upgrade, starts from an empty folder
by itself. :func:`configure` sets this before any kernel module is imported
(``base/__init__.py`` calls it). An explicit ``NUMBA_CACHE_DIR`` is used
as it is; ``SLAGWERK_CACHE_DIR`` replaces the user cache folder as the root.
A folder that cannot be written is replaced by a private temporary one for
the run (numba's own fallback would write into the installed package).

The first run of a game compiles its kernels for a while: :func:`compiling`
says so in one line beforehand and remembers afterwards, with a marker file
in the cache folder, that the game is compiled.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

ROOT_ENV = "SLAGWERK_CACHE_DIR"
"""Environment variable: the root folder of slagwerk's caches."""
NUMBA_ENV = "NUMBA_CACHE_DIR"
MANAGED_ENV = "SLAGWERK_MANAGED_NUMBA_CACHE"
"""Set beside ``NUMBA_CACHE_DIR`` when slagwerk chose it, so that a child
process (a tournament worker, a test's subprocess) running other sources
chooses again rather than taking it for the user's explicit choice."""

FALLBACK_ENV = "SLAGWERK_TEMPORARY_CACHE"
"""Set to the private temporary cache folder (:func:`temporary_folder`) when the
wanted one cannot be written, so that child processes share it."""

KERNEL_PACKAGES = ("slagwerk.engine", "slagwerk.search", "slagwerk.experiments")
"""Subpackages whose ``.py`` files may hold ``@njit`` kernels."""
KEPT_FOLDERS = 3
"""Cache folders of other versions or sources kept beside the current one."""

COMPILE_SECONDS = 25
"""About how long the first run of one game compiles on a two-core machine
(``slagwerk warmup`` with an empty cache, 2026-12-02: Coins 15.5 s, Koetsieren
20.9 s, Kozel 25.9 s, Aluette 19.6 s)."""


def user_cache_root() -> Path:
    """The platform's per-user cache folder, with ``slagwerk`` appended."""
    explicit = os.environ.get(ROOT_ENV)
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "slagwerk"


def kernel_folders() -> list[Path]:
    """Source folders of :data:`KERNEL_PACKAGES`, found without importing them
    (in a plain install they sit under ``slagwerk/``; in an editable one they
    are the repository's top-level folders)."""
    from importlib.util import find_spec

    folders = []
    for name in KERNEL_PACKAGES:
        spec = find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.extend(Path(p) for p in spec.submodule_search_locations)
    return folders


@lru_cache(maxsize=1)
def kernel_sources_hash() -> str:
    """A short hash of the text of every source file that defines numba kernels
    (read once per process: a process runs the kernels it loaded at first)."""
    import hashlib

    digest = hashlib.sha256()
    for folder in sorted(kernel_folders()):
        for path in sorted(folder.rglob("*.py")):
            try:
                text = path.read_bytes()
            except OSError:
                continue
            if b"njit" in text:
                digest.update(path.relative_to(folder).as_posix().encode())
                digest.update(b"\0")
                digest.update(text)
    return digest.hexdigest()[:16]


def wanted_folder() -> Path:
    """The per-user, per-sources cache folder (see the module doc)."""
    from . import __version__

    return user_cache_root() / f"{__version__}-{kernel_sources_hash()}"


@lru_cache(maxsize=8)
def unwritable_reason(folder: Path) -> str | None:
    """Why ``folder`` cannot hold the cache (created if missing), or None if it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return err.strerror or type(err).__name__
    if not os.access(folder, os.W_OK | os.X_OK):
        return "not writable"
    return None


def _private(folder: Path) -> bool:
    """True for a real folder of this user that nobody else may write to."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISDIR(info.st_mode) and owner_ok and info.st_mode & 0o077 == 0


def temporary_folder() -> Path:
    """A private temporary cache folder for this run, shared with its child
    processes and removed when the process that made it exits.

    Used when the wanted folder cannot be written: numba would otherwise
    fall back to ``__pycache__`` inside the installed package. Never a fixed
    name under the shared temporary folder, where another user could plant
    machine code for us to load.
    """
    inherited = os.environ.get(FALLBACK_ENV)
    if inherited and _private(Path(inherited)):
        return Path(inherited)
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="slagwerk-kernels-"))
    os.environ[FALLBACK_ENV] = str(folder)
    maker = os.getpid()

    def remove() -> None:
        if os.getpid() == maker:  # a forked worker inherits this handler, not the folder
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


def is_temporary(folder: Path) -> bool:
    """True if ``folder`` is this run's :func:`temporary_folder` (kept by no later run)."""
    return str(folder) == os.environ.get(FALLBACK_ENV)


def cache_folder() -> Path:
    """The folder numba caches slagwerk's kernels in (see the module doc): an
    explicit ``NUMBA_CACHE_DIR``, else :func:`wanted_folder`, or a
    :func:`temporary_folder` when that cannot be written."""
    explicit = os.environ.get(NUMBA_ENV)
    if explicit and os.environ.get(MANAGED_ENV) != explicit:
        return Path(explicit)
    wanted = wanted_folder()
    return wanted if unwritable_reason(wanted) is None else temporary_folder()


def configure() -> Path:
    """Point numba's cache at :func:`cache_folder` (before kernels are compiled)."""
    folder = cache_folder()
    if os.environ.get(NUMBA_ENV) != str(folder) or os.environ.get(MANAGED_ENV) == str(folder):
        os.environ[NUMBA_ENV] = os.environ[MANAGED_ENV] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before slagwerk: its config read the old value
        numba.config.CACHE_DIR = str(folder)
    return folder


def prune_old_folders(current: Path, keep: int = KEPT_FOLDERS) -> list[Path]:
    """Remove all but the ``keep`` most recently used sibling cache folders of
    ``current`` (other versions or sources); return the removed ones."""
    import shutil

    root = current.parent
    if root != user_cache_root() or not root.is_dir():
        return []
    others = [p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and p != current]
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    removed = others[keep:]
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    return removed


def _marker(game: str) -> Path:
    return cache_folder() / f"compiled-{game}"


def is_compiled(game: str) -> bool:
    """True once the kernels a run of ``game`` needs are in the cache."""
    return _marker(game).exists()


_SEEN_COMPILED: set = set()
"""Marker files this process found already (not looked for again: a belief asks
at every decision)."""
_OPEN: list = []
"""The :func:`compiling` blocks running now (an inner one, say a belief compiled
inside a game's warm-up, is part of the outer one's announced time)."""


@contextmanager
def compiling(games, stream=None, part: str | None = None, seconds: float = COMPILE_SECONDS,
              label: str | None = None):
    """Around the first use of ``games``' kernels: before it, one line saying
    what compiles, about how long it takes (``seconds`` a game) and that it
    happens once (only when some game is not compiled yet, and not inside
    another such block); after it, mark the games compiled. ``part`` names a
    part of a game's kernels compiled apart (the environments' encoding, a
    belief), with a marker of its own, so that compiling it does not make a
    later run's search silent; ``label`` is how the line names it."""
    games = list(dict.fromkeys(games))
    key = {g: g if part is None else f"{g}-{part}" for g in games}
    marker = {g: _marker(key[g]) for g in games}
    cold = [g for g in games if marker[g] not in _SEEN_COMPILED and not marker[g].exists()]
    _SEEN_COMPILED.update(marker[g] for g in games if g not in cold)
    if cold and not _OPEN:
        stream = stream or sys.stderr
        folder = cache_folder()
        what = ", ".join(cold) if part is None else f"the {label or part} of {', '.join(cold)}"
        about = f"about {round(seconds * len(cold))} s"
        if is_temporary(folder):
            wanted = wanted_folder()
            print(f"compiling the numba kernels for {what} ({about}) for this run only: the cache folder "
                  f"{wanted} cannot be written ({unwritable_reason(wanted)}); set {ROOT_ENV} to a folder "
                  f"you can write", file=stream, flush=True)
        else:
            print(f"compiling the numba kernels for {what} ({about}, once: later runs load them from "
                  f"{folder})", file=stream, flush=True)
    _OPEN.append(games)
    try:
        yield cold
    finally:
        _OPEN.pop()
    if cold:
        folder = cache_folder()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for game in cold:
                _marker(key[game]).write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"), encoding="utf-8")
            prune_old_folders(folder)
        except OSError:  # a read-only cache costs only the message next time
            pass
