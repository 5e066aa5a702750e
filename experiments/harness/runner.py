"""Playing the games of an experiment: one game per task, faults as forfeits, worker processes.

:func:`play_game` plays one scheduled game (a :class:`~.seating.GameSlot`)
and returns its result line; :func:`run_games` runs many on local worker
processes (forked from this one on Linux, joblib's loky elsewhere) or a Dask
cluster (through joblib's Dask backend) and yields the lines as games
finish. Every seed comes from the experiment's seed and the game's place in
the schedule, never from the worker, so the results are the same for any
number of workers.

Seeds: the deals of duplicate group ``g`` come from ``derive_seed(seed, g)``
(the same cards in every rotation of the group); the agent in seat ``s`` of
rotation ``r`` gets ``derive_seed(seed, g, r, s)``.

Scores: with unit ``deal`` a game is one deal and each seat scores the deal's
normalised reward (``returns`` with ``OBJECTIVE_DEAL``: the game's own deal
score mapped to [0, 1], partners equal); with unit ``match`` a game is a whole
match and each seat scores its outcome (1, 0.5, 0). Either way the line also
holds the deal points per seat in the game's own units (docs/records.md
``points``, summed over the match's complete deals) and the number of deals.

Faults: an agent that raises, overruns the per-move time limit or its clock
for the game (``game_time``: its seat's total thinking time in one game, a
chess clock without increment), or returns an illegal action forfeits the
game: its seats (its partner's too, and any other seat it plays) score 0, every
other seat 1, the line's ``forfeit`` names the
seat, the agent and the error, and the experiment goes on. An agent that can
no longer play at all (:class:`~slagwerk.errors.AgentUnavailable`, a
bot that cannot be reached) stops the experiment instead: its game is not
counted, and a resumed run plays it. The time limit
interrupts a move with ``SIGALRM`` where the move runs in a process's main
thread (local workers, ``jobs=1``); on other threads (Dask workers) a move is
judged by its time once it returns. Either way, a move stuck inside one
compiled kernel call cannot be interrupted before the call returns.

Warm-up: before its first game, every process lets each agent make one
untimed decision (a limit of ``WARM_UP_FACTOR`` times the move limit still
applies), so just-in-time compilation or loading numba's cache is never
charged to a game's clock. Agents are stateless between decisions, so this
changes no result.
"""

from __future__ import annotations

import atexit
import faulthandler
import gc
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...agents import make
from ...agents.external import install_all, registered_bots
from ...agents.match import play_match
from ...agents.plugins import load_entry_points, load_plugins, loaded_plugins
from ...agents.spec import AgentSpec, Entry
from ...agents.warmup import ensure_compiled
from ...engine import make_game
from ...engine.bits import derive_seed
from ...engine.records import record_of
from ...engine.state import MAX_SEATS, OBJECTIVE_DEAL, OBJECTIVE_MATCH
from ...errors import AgentUnavailable, IllegalActionError, SlagwerkError, brief, one_line
from .seating import GameSlot

UNITS = ("deal", "match")
"""Units of play: one deal (scored by its normalised deal reward) or a whole match."""
BACKENDS = ("loky", "dask")
"""joblib backends: local worker processes, or a Dask cluster."""
WARM_UP_FACTOR = 10.0
"""The warm-up decision may take this many times the per-move limit (compilation)."""
WARM_UP_SEED = 0x5EA7
OVERRUN_FACTOR = 2.0
OVERRUN_GRACE = 5.0
"""A worker whose agent is still deciding after ``OVERRUN_FACTOR`` times the
move time plus ``OVERRUN_GRACE`` seconds (native code that never lets the
alarm's forfeit happen) is ended by faulthandler's own watchdog thread, which
needs no Python, within twice that time; the game then counts as a crash (see
:func:`run_games`)."""


class ExperimentError(SlagwerkError):
    """An experiment's settings are invalid (unit, counts, backend, results folder)."""


@dataclass(frozen=True)
class GameSetup:
    """What every game of an experiment shares (picklable, sent to workers).

    ``options`` is a tuple of ``(name, value)`` pairs; ``specs`` the agent
    specs by agent number; ``move_time`` the per-move limit in seconds
    (``None``: no limit); ``game_time`` each seat's thinking time for the
    whole game in seconds (``None``: no clock); ``plugins`` modules to import first; ``bots``
    external bots to register (both default to those of this process,
    :mod:`slagwerk.agents.plugins` and :mod:`slagwerk.agents.external`);
    ``fault_traces``: a game lost by an agent's own exception carries its
    traceback in the result line's :data:`FAULT_TRACE` (a tournament keeps it
    in ``faults.log`` and takes it off the line).
    """

    game: str
    options: tuple
    specs: tuple[Entry, ...]
    """The entries by agent number: texts given here are parsed once, where the setup is
    made, and reach the workers as :class:`~slagwerk.agents.spec.Entry` objects."""
    unit: str = "deal"
    seed: int = 0
    move_time: float | None = None
    keep_records: bool = False
    plugins: tuple[str, ...] = field(default_factory=loaded_plugins)
    """Modules every worker imports before playing (they register agents)."""
    bots: tuple = field(default_factory=registered_bots)
    """External bots (:class:`~slagwerk.agents.external.BotDefinition`) every worker registers."""
    game_time: float | None = None
    fault_traces: bool = False

    def __post_init__(self):
        object.__setattr__(self, "specs", tuple(Entry.parse(entry) for entry in self.specs))

    @property
    def labels(self) -> list[str]:
        return [entry.label for entry in self.specs]


def partner_specs(entry: str | Entry) -> list[str]:
    """The agent specs (texts) of a tournament entry: ``A+B`` is a partnership of two
    different agents (team games), anything else one agent (:class:`~slagwerk.agents.spec.Entry`)."""
    return [part.text for part in Entry.parse(entry).parts]


def entry_label(entry: str | Entry) -> str:
    """The label of an entry: its spec's label, or the text of a partnership."""
    return Entry.parse(entry).label


def validate_setup(setup: GameSetup, unique_labels: bool = True) -> None:
    """Check the game, its options, the unit, the time limit and every agent spec.

    Builds the game and each agent once, so a bad spec is an error before any
    game runs; with ``unique_labels`` two agents may not share a label.
    :raises SlagwerkError: (``OptionError``, ``SpecError``,
    :class:`ExperimentError`) naming the bad input.
    """
    if setup.unit not in UNITS:
        raise ExperimentError(f"unknown unit {setup.unit!r} (units: {', '.join(UNITS)})")
    if setup.move_time is not None and not setup.move_time > 0:
        raise ExperimentError(f"the per-move time limit must be positive, not {setup.move_time!r}")
    if setup.game_time is not None and not setup.game_time > 0:
        raise ExperimentError(f"the time for a game must be positive, not {setup.game_time!r}")
    if isinstance(setup.seed, bool) or not isinstance(setup.seed, (int, np.integer)):
        raise ExperimentError(f"the seed must be an integer, not {setup.seed!r}")
    game = _game(setup.game, setup.options)
    labels = []
    for entry in setup.specs:
        parts = entry.parts
        if len(parts) > 1 and not game.team_game:
            raise ExperimentError(f"{entry!r}: a partnership A+B is only for the team games (Kozel, "
                                  f"Aluette), not {game.name}")
        if len(parts) > 2:
            raise ExperimentError(f"{entry!r}: a partnership A+B names two agents, not {len(parts)}")
        for part in parts:
            make(part, game, seed=0)
        labels.append(entry.label)
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates and unique_labels:
        raise ExperimentError(
            f"two agents share the label {duplicates[0]!r}; give one of them label=..."
        )


@lru_cache(maxsize=16)
def _game(name: str, options: tuple):
    return make_game(name, **dict(options))


def game_info(setup: GameSetup):
    """The :class:`~slagwerk.engine.Game` of ``setup``."""
    return _game(setup.game, setup.options)


# ------------------------------------------------------------------ faults


FAULT_TRACE = "fault_trace"
"""The result line's key for a forfeit's traceback (only with ``GameSetup.fault_traces``)."""


def hand_on_fault_traces(lines, on_fault) -> None:
    """Take each forfeit's traceback out of its result line (:data:`FAULT_TRACE`) and give
    it to ``on_fault(line, trace)`` (``None``: dropped)."""
    for line in lines:
        trace = line.pop(FAULT_TRACE, None)
        if trace is not None and on_fault is not None:
            on_fault(line, trace)


class Forfeit(Exception):
    """Raised inside a game when an agent faults; carries the seat, the error and, for an
    agent's own exception, its traceback (for :attr:`GameSetup.fault_traces`)."""

    def __init__(self, seat: int, error: str, trace: str | None = None):
        super().__init__(error)
        self.seat = seat
        self.error = error
        self.trace = trace


class _MoveTimeout(Exception):
    pass


@lru_cache(maxsize=1)
def _devnull():
    return open(os.devnull, "w")  # noqa: SIM115 - kept open for faulthandler's watchdog


def _on_alarm(signum, frame):
    raise _MoveTimeout


class _Watch:
    """Which seat's answer is waiting to be applied, and the match state; in a
    worker, the watchdog that ends the worker when a move overruns."""

    def __init__(self, marker: int | None = None):
        self.pending_seat: int | None = None
        self.state = None
        self.marker = marker  # a file where a crash leaves the agent deciding (see _Running)
        self.deadline: float | None = None  # when the armed watchdog ends the worker

    def on_action(self, state, seat, text):
        self.pending_seat = None
        self.state = state

    def guard_move(self, limit: float | None) -> None:
        """Before a move of at most ``limit`` seconds: make sure the worker is ended
        if the move is still running ``limit * OVERRUN_FACTOR + OVERRUN_GRACE``
        seconds later, and not before.

        Arming faulthandler's watchdog starts a thread and cancelling it joins
        one, a good part of a millisecond that cheap moves would pay every
        time. So it is armed for twice the bound and armed again only when
        less than one bound is left; :meth:`release` cancels it after the game.
        """
        if self.marker is None:
            return
        if limit is None:
            self.release()
            return
        bound = limit * OVERRUN_FACTOR + OVERRUN_GRACE
        now = time.monotonic()
        if self.deadline is None or self.deadline - now < bound:
            faulthandler.dump_traceback_later(2.0 * bound, exit=True, file=_devnull())
            self.deadline = now + 2.0 * bound

    def release(self) -> None:
        """Cancel the watchdog (the game is over; an idle worker must live)."""
        if self.deadline is not None:
            faulthandler.cancel_dump_traceback_later()
            self.deadline = None


class _GuardedAgent:
    """An agent wrapper that turns the agent's faults into :class:`Forfeit`.

    One wrapper plays one seat for one game: ``seconds`` is the seat's clock,
    which ``game_time`` (if given) bounds."""

    def __init__(self, agent, seat: int, move_time: float | None, watch: _Watch, number: int,
                 game_time: float | None = None):
        self.agent = agent
        self.seat = seat
        self.number = number  # the agent's number in the setup, written to the crash marker
        self.move_time = move_time
        self.game_time = game_time
        self.watch = watch
        self.cheating = agent.cheating
        self.decisions = 0  # answered decisions and their time, for time per decision
        self.seconds = 0.0

    def act(self, view):
        return self._call(self.agent.act, view)

    def decide_true_state(self, state):
        if self.watch.state is None:
            self.watch.state = state
        return self._call(self.agent.decide_true_state, state)

    def _call(self, method, argument):
        limit = self.move_time
        by_clock = False  # the time left on the seat's clock is the tighter bound
        if self.game_time is not None:
            left = self.game_time - self.seconds
            if left <= 0.0:
                raise Forfeit(self.seat, self._out_of_time())
            if limit is None or left < limit:
                limit, by_clock = left, True
        alarm = (
            limit is not None
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if self.watch.marker is not None:
            os.pwrite(self.watch.marker, self.number.to_bytes(8, "little", signed=True), 0)
        self.watch.guard_move(limit)  # a worker whose agent ignores the alarm (native code) is ended
        start = time.perf_counter()
        previous = None
        try:
            if alarm:
                previous = signal.signal(signal.SIGALRM, _on_alarm)
                signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                answer = method(argument)
            finally:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, previous)
        except _MoveTimeout:
            if by_clock:
                raise Forfeit(self.seat, self._out_of_time()) from None
            raise Forfeit(self.seat, f"no move within the time limit of {limit:g} s") from None
        except AgentUnavailable:  # no game left could be played with it: the run stops
            raise
        except Exception as err:  # any fault of the agent loses the game, the tournament goes on
            raise Forfeit(self.seat, f"{type(err).__name__}: {err}", _trace(err)) from None
        except SystemExit as err:  # a plugin that calls exit() must not end the whole run
            raise Forfeit(self.seat, f"the agent called exit({brief(err.code)})", _trace(err)) from None
        elapsed = time.perf_counter() - start
        if limit is not None and elapsed > limit:
            if by_clock:
                raise Forfeit(self.seat, self._out_of_time())
            raise Forfeit(self.seat, f"took {elapsed:.3g} s for a move, over the limit of {limit:g} s")
        self.watch.pending_seat = self.seat
        self.decisions += 1
        self.seconds += elapsed
        return answer

    def _out_of_time(self) -> str:
        return (f"ran out of its time for the game ({self.game_time:g} s) on its move "
                f"{self.decisions + 1}")


_WARM: set = set()
"""(game, options, spec) whose agent has decided once in this process."""


def warm_up(setup: GameSetup, marker: int | None = None, builtin_only: bool = False,
            numbers=None) -> None:
    """Let each agent of ``setup`` decide once in this process, untimed (see the module doc).

    A fault here is ignored: the agent meets it again, timed, in its games (an agent
    that cannot play at all, :class:`AgentUnavailable`, stops the run here already).
    ``marker``: see :class:`_Running`. ``builtin_only``: only slagwerk's own
    agents (the harness process never runs agents from elsewhere, which may crash).
    """
    ensure_compiled([setup.game])  # says so first when the kernels must compile
    load_plugins(setup.plugins)
    install_all(setup.bots)
    game = game_info(setup)
    limit = None if setup.move_time is None else WARM_UP_FACTOR * setup.move_time
    for number, spec in ((n, part) for n, entry in enumerate(setup.specs) for part in entry.parts):
        key = (setup.game, setup.options, spec)
        if key in _WARM or (numbers is not None and number not in numbers):
            continue
        if builtin_only and not _builtin(spec):
            continue
        agent = make(spec, game, seed=WARM_UP_SEED)
        _WARM.add(key)
        state = game.new_match(seed=WARM_UP_SEED)
        seat = state.to_move
        watch = _Watch(marker)
        guard = _GuardedAgent(agent, seat, limit, watch, number)
        try:
            if guard.cheating:
                guard.decide_true_state(state)
            else:
                guard.act(state.view(seat))
        except Forfeit:
            pass
        finally:
            watch.release()


def _builtin(spec: AgentSpec) -> bool:
    """Whether ``spec`` names one of slagwerk's own agents: not a plugin's, and not
    an external bot (making one starts its process or connection)."""
    from ...agents.external import ExternalAgent
    from ...agents.registry import AGENTS

    cls = AGENTS.get(spec.name)
    return (isinstance(cls, type) and cls.__module__.startswith("slagwerk.")
            and not issubclass(cls, ExternalAgent))


# ------------------------------------------------------------------ one game


def play_game(setup: GameSetup, slot: GameSlot, marker: int | None = None) -> dict:
    """Play the scheduled game ``slot`` and return its result line (a JSON-able dict).

    Keys: ``index``, ``group``, ``rotation``, ``agents`` (label per seat),
    ``table`` (agent number per seat), ``seed`` (the group's deal seed),
    ``reward`` (per seat, in [0, 1]), ``points`` (deal points per seat in the
    game's units, ``None`` after a forfeit), ``deals`` (complete deals
    counted in ``points``), ``forfeit`` (``None`` or ``{"seat", "agent",
    "error"}``), ``time`` (seconds), ``decisions`` and ``think`` (per seat:
    decisions answered and the seconds they took, for time per decision;
    like ``time``, ``think`` varies from run to run), and ``record``
    (docs/records.md) when ``setup.keep_records``.
    """
    game = game_info(setup)
    n = game.n_players
    labels = setup.labels
    seat_labels = [labels[a] for a in slot.seats]
    deal_seed = derive_seed(setup.seed, slot.group)
    watch = _Watch(marker)
    agents = []
    for seat, agent_number in enumerate(slot.seats):
        spec = setup.specs[agent_number].seat_spec(seat, n)
        agent = make(spec, game, seed=derive_seed(setup.seed, slot.group, slot.rotation, seat))
        agents.append(_GuardedAgent(agent, seat, setup.move_time, watch, agent_number, setup.game_time))
    max_deals = 1 if setup.unit == "deal" else None
    start = time.perf_counter()
    forfeit = None
    state = None
    try:
        state = play_match(game, agents, deal_seed, max_deals=max_deals, on_action=watch.on_action)
    except Forfeit as fault:
        forfeit = fault
    except IllegalActionError as err:
        if watch.pending_seat is None:
            raise
        forfeit = Forfeit(watch.pending_seat, f"illegal action: {err}")
    finally:
        watch.release()
    elapsed = time.perf_counter() - start

    line = _line_head(setup, slot)
    if forfeit is None:
        reward = np.zeros(MAX_SEATS, dtype=np.float64)
        objective = OBJECTIVE_DEAL if setup.unit == "deal" else OBJECTIVE_MATCH
        state.game.kernels.returns(state.array, objective, reward)
        complete = [log.points for log in state.deals if log.points is not None]
        line["reward"] = [float(r) for r in reward[:n]]
        line["points"] = [sum(p[s] for p in complete) for s in range(n)]
        line["deals"] = len(complete)
        line["forfeit"] = None
    else:
        line.update(_forfeit_fields(setup, slot, forfeit.seat, forfeit.error))
        state = watch.state
        if forfeit.trace is not None and setup.fault_traces:
            line[FAULT_TRACE] = forfeit.trace
    line["time"] = round(elapsed, 4)
    line["decisions"] = [agent.decisions for agent in agents]
    line["think"] = [round(agent.seconds, 6) for agent in agents]
    if setup.keep_records:
        line["record"] = record_of(state, players=seat_labels) if state is not None else None
    return line


def _trace(err: BaseException) -> str | None:
    """The traceback of an agent's own exception; ``None`` for a bot's fault, whose
    traceback shows only the harness (its reason says what the bot did)."""
    from ...agents.external import BotFault

    return None if isinstance(err, BotFault) else traceback.format_exc()


def _line_head(setup: GameSetup, slot: GameSlot) -> dict:
    return {
        "index": slot.index,
        "group": slot.group,
        "rotation": slot.rotation,
        "agents": [setup.labels[a] for a in slot.seats],
        "table": list(slot.seats),
        "seed": derive_seed(setup.seed, slot.group),
    }


def _forfeit_fields(setup: GameSetup, slot: GameSlot, seat: int, error: str) -> dict:
    """The result fields of a game that ``seat`` lost by forfeit: its side loses, and so
    does every other seat the same agent plays (it must not gain from its own fault)."""
    game = game_info(setup)
    lost = [s for s in range(game.n_players)
            if _same_side(game, s, seat) or slot.seats[s] == slot.seats[seat]]
    return {
        "reward": [0.0 if s in lost else 1.0 for s in range(game.n_players)],
        "points": None,
        "deals": 0,
        "forfeit": {"seat": seat, "agent": setup.labels[slot.seats[seat]], "error": error},
    }


def crash_line(setup: GameSetup, slot: GameSlot, seat: int, cause: str) -> dict:
    """The result line of a game whose worker process died while ``seat`` was to move."""
    line = _line_head(setup, slot)
    line.update(_forfeit_fields(setup, slot, seat, f"the worker process died: {cause}"))
    line["time"] = 0.0
    if setup.keep_records:
        line["record"] = None
    return line


def _same_side(game, seat: int, other: int) -> bool:
    if seat == other:
        return True
    team = game.team_of(seat)
    return team is not None and team == game.team_of(other)


# ------------------------------------------------------------------ many games


def _play_many(setup: GameSetup, slots: list[GameSlot], running: str | None = None) -> list[dict]:
    """Play ``slots`` in this process; with ``running`` (a worker's), each game
    leaves a marker there while it is played (see :class:`_Running`)."""
    # A worker that was not forked loads the installed plugins anew: the process that
    # started it warned about any broken one already (in that process this does nothing).
    load_entry_points(warn=lambda text: None)
    if running is None:
        warm_up(setup)
        return [play_game(setup, slot) for slot in slots]
    _die_with_parent()
    lines = []
    for slot in slots:
        path = os.path.join(running, str(slot.index))
        marker = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        try:
            warm_up(setup, marker, numbers=slot.seats)  # a crash there is this game's too
            lines.append(play_game(setup, slot, marker))
        finally:
            os.close(marker)
        os.unlink(path)
    return lines


@lru_cache(maxsize=1)
def _die_with_parent() -> None:
    """Linux: have the kernel end this worker when the process that started it
    dies (killed, even by SIGKILL), instead of lingering for minutes (once per worker)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


class _Running:
    """Markers of the games being played by workers: a file per game, holding
    the seat to move, created when a game starts and removed when it ends. After
    a worker dies, the markers left are the games that were in flight."""

    def __init__(self, folder: str):
        self.folder = folder

    def in_flight(self) -> dict[int, int]:
        """Game index -> number of the agent that was deciding (-1: none yet)."""
        found = {}
        for name in os.listdir(self.folder):
            with open(os.path.join(self.folder, name), "rb") as fh:
                data = fh.read(8)
            found[int(name)] = int.from_bytes(data, "little", signed=True) if len(data) == 8 else -1
            os.unlink(os.path.join(self.folder, name))
        return found


def start_workers(setup: GameSetup, jobs: int = 1, backend: str = "loky") -> None:
    """Start the local worker processes, with the kernels loaded and the built-in
    agents warmed up (see :func:`warm_up`), so that a progress bar started
    afterwards counts games only. The workers are kept for later runs."""
    if backend != "loky" or jobs == 1:
        return
    if _can_fork():
        _forked_pool(setup, jobs)
        return
    from joblib import Parallel, delayed, effective_n_jobs

    ensure_compiled([setup.game])  # compiles here once when cold, filling numba's disk cache for the workers
    workers = effective_n_jobs(jobs)
    Parallel(n_jobs=jobs)(delayed(warm_up)(setup, None, True) for _ in range(workers))


def _can_fork() -> bool:
    """Local workers are forked where fork is safe and cheap (Linux); elsewhere
    joblib's loky starts fresh interpreters."""
    return sys.platform.startswith("linux") and os.environ.get("SLAGWERK_WORKERS") != "loky"


_POOL: dict = {}
"""The forked workers of this process: ``{"key": (size, games), "pool": executor}``."""


def _forked_pool(setup: GameSetup, jobs: int):
    """Worker processes forked from this one, which loads the game's kernels and
    warms slagwerk's own agents up first: every worker starts with them, instead
    of importing numba and loading the kernels itself (about a second each,
    while the other workers play), and knows the games registered here. Kept
    for later runs of the same size while the registered games stay the same."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from joblib import effective_n_jobs

    from ...engine.registry import game_names

    warm_up(setup, None, True)  # kernels loaded here are loaded in every worker forked below
    key = (effective_n_jobs(jobs), game_names())  # after warm_up: a plugin may register a game
    if _POOL.get("key") != key:
        _drop_pool()
        _POOL.update(key=key, pool=ProcessPoolExecutor(key[0], mp_context=get_context("fork"),
                                                       initializer=_forked_worker))
        # Ended before the interpreter tears its modules down: the executor's own
        # clean-up at exit would otherwise print an ignored exception.
        atexit.unregister(_drop_pool)
        atexit.register(_drop_pool)
    return _POOL["pool"]


def _forked_worker() -> None:
    # Ctrl-C is the harness's to handle: it ends the workers itself. A SIGTERM that the
    # command turned into a stop (slagwerk.cli) ends a worker as a signal does.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    faulthandler.disable()  # a crashing agent dies quietly, as in a fresh interpreter
    _die_with_parent()


def _drop_pool() -> None:
    """End the forked workers at once (games in flight are abandoned)."""
    pool = _POOL.pop("pool", None)
    _POOL.clear()
    if pool is None:
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join()


def run_games(setup: GameSetup, slots: list[GameSlot], jobs: int = 1, backend: str = "loky",
              scheduler: str | None = None, chunk: int = 1):
    """Yield the result line of every game in ``slots`` as it finishes (any order).

    ``jobs`` local worker processes (``-1``: all cores) with the ``loky``
    backend: forked from this process on Linux (see :func:`start_workers`),
    else joblib's loky; ``jobs=1`` plays in this process. ``backend="dask"`` sends the
    games to the Dask scheduler at ``scheduler`` (``None``: a local cluster)
    through joblib's Dask backend. ``chunk`` games travel together to a
    worker (results arrive chunk by chunk).

    A local worker that dies (a segfault, the out-of-memory killer) costs no
    run: the games it had in flight are played again one at a time in a fresh
    worker, and a game that kills its worker again is lost by forfeit by the
    agent that was to move (:func:`crash_line`); the run goes on.
    """
    if backend not in BACKENDS:
        raise ExperimentError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if not slots:
        return
    if backend == "loky" and jobs == 1:
        for part in _chunks(slots, chunk):
            yield from _play_many(setup, part)
        return
    from joblib import Parallel, delayed, parallel_config

    ensure_compiled([setup.game])  # compiles here once when cold, filling numba's disk cache for the workers
    if backend == "dask":
        client = _dask_client(scheduler)
        try:
            with parallel_config(backend="dask"):
                parallel = Parallel(n_jobs=-1, return_as="generator_unordered")
                for lines in parallel(delayed(_play_many)(setup, part) for part in _chunks(slots, chunk)):
                    yield from lines
        finally:
            client.close()  # the connection only: a cluster given by address keeps running
        return
    from concurrent.futures.process import BrokenProcessPool  # loky's is a subclass

    with tempfile.TemporaryDirectory(prefix="slagwerk-running-") as folder:
        running = _Running(folder)
        remaining = list(slots)
        while remaining:
            finished = set()
            try:
                for lines in _play_parts(setup, _chunks(remaining, chunk), jobs, folder):
                    finished.update(line["index"] for line in lines)
                    yield from lines
                return
            except BrokenProcessPool:  # a worker died; the pool is rebuilt on next use
                in_flight = running.in_flight()
                if not in_flight:
                    raise ExperimentError("a worker process died before it began a game "
                                          "(an agent plugin that cannot be imported?)") from None
                remaining = [slot for slot in remaining if slot.index not in finished]
                for slot in [slot for slot in remaining if slot.index in in_flight]:
                    yield _alone(setup, slot, running, in_flight[slot.index])
                remaining = [slot for slot in remaining if slot.index not in in_flight]


def _play_parts(setup: GameSetup, parts: list[list[GameSlot]], jobs: int, folder: str):
    """Yield each part's result lines as the local workers finish them (any order)."""
    if not _can_fork():
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
        yield from parallel(delayed(_play_many)(setup, part, folder) for part in parts)
        return
    from concurrent.futures import as_completed

    pool = _forked_pool(setup, jobs)
    futures = [pool.submit(_play_many, setup, part, folder) for part in parts]
    done = False
    try:
        for future in as_completed(futures):
            yield future.result()
        done = True
    finally:
        if not done:  # interrupted, abandoned or a worker died: no game may outlive the run
            _drop_pool()


def _alone(setup: GameSetup, slot: GameSlot, running: _Running, agent: int) -> dict:
    """Play a game that was in flight when a worker died, alone in a fresh worker;
    if it kills that worker too, it is a forfeit (see :func:`run_games`).

    The worker is this replay's own, never a reused pool's: a pool that has just
    lost a worker can miss that its replacement died (a run once waited for
    loky's five-minute idle timeout there)."""
    from concurrent.futures.process import BrokenProcessPool  # loky's is a subclass

    if _can_fork():
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        pool = ProcessPoolExecutor(1, mp_context=get_context("fork"), initializer=_forked_worker)
    else:
        from joblib.externals.loky import ProcessPoolExecutor

        pool = ProcessPoolExecutor(1)
    try:
        future = pool.submit(_play_many, setup, [slot], running.folder)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        try:
            return future.result()[0]
        except BrokenProcessPool as err:
            agent = running.in_flight().get(slot.index, agent)
            seat = slot.seats.index(agent) if agent in slot.seats else 0
            return crash_line(setup, slot, seat, _crash_cause(err, processes))
    finally:
        pool.shutdown(wait=True)


def _crash_cause(err: Exception, processes: list) -> str:
    """How the worker died: its exit code, by signal name where a signal ended it
    (e.g. ``SIGSEGV``), else the executor's error."""
    for process in processes:
        code = _exit_code(process)
        if code is not None and code < 0:
            try:
                return f"exit code {signal.Signals(-code).name}({code})"
            except ValueError:
                return f"exit code {code}"
        if code:
            return f"exit code {code}"
    return one_line(f"{type(err).__name__}: {err}")


def _exit_code(process) -> int | None:
    """The process's exit code once it is known. The executor's own thread reaps
    the process too; while it does, ``exitcode`` can read None for a moment."""
    deadline = time.monotonic() + 5
    while process.exitcode is None and time.monotonic() < deadline:
        process.join(timeout=0.05)
    return process.exitcode


def _chunks(slots: list[GameSlot], chunk: int) -> list[list[GameSlot]]:
    return [slots[i : i + chunk] for i in range(0, len(slots), max(1, chunk))]


SCHEDULER_CHECK_SECONDS = 10
"""How long :func:`check_dask` waits for a scheduler to answer."""


def check_dask(scheduler: str | None) -> None:
    """Raise ``ExperimentError`` unless the Dask backend can run: the extra is
    installed and the scheduler at ``scheduler`` (when one is named) answers
    within :data:`SCHEDULER_CHECK_SECONDS`. A command checks this before it
    writes anything, so a wrong address leaves no results folder behind."""
    if scheduler:
        _dask_client(scheduler, timeout=SCHEDULER_CHECK_SECONDS).close()
    else:
        _dask_client_class()


def parallel_map(function, tasks: list, jobs: int = 1, backend: str = "loky", scheduler: str | None = None
                 ) -> list:
    """``[function(*task) for task in tasks]`` on ``jobs`` local workers (loky) or a Dask cluster
    (``backend="dask"``, the scheduler at ``scheduler`` or a local one), results in task order.
    A pure ``function`` gives the same list however many workers share it."""
    if backend not in BACKENDS:
        raise ExperimentError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if backend == "loky" and jobs == 1:
        return [function(*task) for task in tasks]
    from joblib import Parallel, delayed, parallel_config

    if backend == "loky":
        return Parallel(n_jobs=jobs)(delayed(function)(*task) for task in tasks)
    client = _dask_client(scheduler)
    try:
        with parallel_config(backend="dask"):
            return Parallel(n_jobs=-1)(delayed(function)(*task) for task in tasks)
    finally:
        client.close()


def _dask_client_class():
    try:
        from dask.distributed import Client
    except ImportError:
        raise ExperimentError(
            "the dask backend needs the optional extra: pip install 'slagwerk[dask]'"
        ) from None
    return Client


def _dask_client(scheduler: str | None, **options):
    client = _dask_client_class()
    try:
        return client(scheduler, **options) if scheduler else client(processes=False)
    except (OSError, ValueError) as err:  # ValueError: an address Dask cannot read
        message = f"cannot reach the Dask scheduler {scheduler!r}: {err}"
    # The half-made Client that failed is closed now, once its traceback is gone. Left to the
    # garbage collector, its __del__ once ran inside the next Client's start and waited there
    # for the loop that start held: the test process hung (seen in the suite, distributed 2026.8.0).
    gc.collect()
    raise ExperimentError(message)
