"""Bots from other programs: an agent that asks a bot over the bot protocol (docs/protocol.md).

``--bot NAME=COMMAND`` names a program that speaks the protocol's JSON lines
on its standard input and output; ``--bot NAME=http://HOST:PORT`` a bot served
over the protocol's HTTP form (``GET /v1/info``, ``POST /v1/act``). Either way
:func:`register_bots` asks the bot's ``hello`` once, checks it, and registers
``NAME`` as an agent (:data:`~slagwerk.agents.registry.AGENTS`), so ``NAME``
works wherever an agent spec does: ``--agents NAME heuristic``, ``NAME+heuristic``,
``NAME:key=value`` with the parameters the bot declares, ``tune --agent NAME``.

``NAME/AGENT=COMMAND`` picks the bot's agent ``AGENT`` when its ``hello``
lists several (``slagwerk bot`` itself lists every built-in agent). Otherwise
the agent asked for is ``NAME`` if the bot lists it, the bot's only agent if
it lists one, and ``NAME`` if it lists none.

Requests: one ``act`` per decision with ``game``, ``agent`` (``AGENT`` alone,
or ``AGENT:key=value,...`` for the parameters the spec sets), the seat's
``view`` exactly as built-in agents get it (never anything else of the
state) and ``seed`` (the agent's seed). The answer must be one of the view's
legal actions.

Processes: one per bot and process that plays games (a tournament worker, or
the harness itself with ``--jobs 1``), started (and sent ``hello``) when an
agent is made for a game, so never on a move's clock, and reused across
games. Any fault (the bot exits, overruns and is interrupted,
writes garbage, answers an error, an illegal action or another request's id)
raises :class:`BotFault` (the game is forfeited, see
:mod:`slagwerk.experiments.harness.runner`) and ends the process; the next request
starts a fresh one. A bot that cannot be started (twice in a row) or reached
over HTTP raises :class:`BotUnreachable` instead: the run stops, its finished
games kept, rather than forfeiting every game left. An HTTP request goes out
on a new connection when the kept-alive one turns out closed (servers close
idle ones); one dropped after the request left is the bot's fault.
The bot's standard error goes to its log file (in a tournament's results
folder) or to the harness's. The processes end with the harness: at exit, and
on Linux also when it is killed (the kernel's parent-death signal).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

import orjson

from .. import json_check
from ..engine.seeds import MAX_SEED
from ..errors import AgentUnavailable, SlagwerkError, SpecError, brief, one_line
from .base import Agent, Decision, ParamSpec
from .limits import HELLO_TIMEOUT_S
from .protocol import schemas
from .registry import AGENTS, parse_spec
from .spec import PARTNER_SPLIT

if TYPE_CHECKING:
    import http.client

HELLO_NOTICE_S = 10.0
"""After this long without a ``hello`` answer, the harness says on stderr that it waits."""
QUIT_GRACE_S = 2.0
"""How long a bot program may take to exit once its input ends, before it is killed."""
CONNECT_PAUSES_S = (0.2, 1.0)
"""The pauses before an HTTP bot's connection is tried again (a server restarting
within about a second is waited for); then it is unreachable."""
CONNECT_TIMEOUT_S = 5.0
"""How long one attempt to connect to an HTTP bot may take (less if its answer's
timeout is shorter): a host gone silent is unreachable, not a slow move."""
MAX_ANSWER_BYTES = 1 << 20
"""The longest answer line read from a bot."""
STDERR_PREFIX, STDERR_SUFFIX = "bot-", ".stderr.log"
"""A bot's standard error is appended to ``<folder>/bot-<NAME>.stderr.log``."""
_BOT_OPTION = re.compile(
    r"\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?:/(?P<agent>\s*[^=\s][^=]*))?=\s*(?:"
    r"(?P<url>http://(?:[^/:?#\[\]@\s]+|\[[0-9A-Fa-f:.]+\])"  # a bot server: HOST or [IPv6], a port
    r"(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?)/?\s*"
    r"|(?P<command>(?!https?://)\S.*))", re.DOTALL)
"""``--bot NAME=TARGET`` or ``NAME/AGENT=TARGET``: TARGET a command, or ``http://HOST:PORT``
(a port from 0 to 65535)."""
_PARAM_TYPES = {"int": int, "float": float, "bool": bool, "str": str}


class BotFault(SlagwerkError):
    """A bot did not answer a request properly: the game is lost by forfeit."""


class BotUnreachable(AgentUnavailable):
    """A bot cannot be reached (HTTP) or started (a program, twice in a row): no game
    can be played with it, so a run stops rather than forfeiting every game left."""


@dataclass(frozen=True)
class BotDefinition:
    """An external bot: its name in specs, how to reach it, and its ``hello``.

    ``command`` (an argument list, never run through a shell) for a program
    on standard input and output, or ``url`` (``http://host:port``);
    ``agent`` is the name the bot knows its agent by; ``hello`` its
    ``hello`` answer as JSON text; ``stderr_folder`` where its standard error
    is kept (``None``: the harness's); ``timeout`` a backstop in seconds for
    one answer (the harness's per-move limit normally ends a slow move first);
    ``hello_timeout`` how long it may take to answer ``hello`` when it starts.
    Picklable, so that worker processes get it.
    """

    name: str
    agent: str
    hello: str
    command: tuple[str, ...] = ()
    url: str | None = None
    stderr_folder: str | None = None
    timeout: float | None = None
    hello_timeout: float = HELLO_TIMEOUT_S

    @property
    def stderr_name(self) -> str:
        """The file name of its standard-error log in ``stderr_folder``."""
        return f"{STDERR_PREFIX}{self.name}{STDERR_SUFFIX}"

    @property
    def address(self) -> str:
        return self.url or shlex.join(self.command)

    @property
    def fingerprint(self) -> str:
        """A hash of how the bot is reached (its command or URL) and of its agent:
        what a results folder stores instead of the command itself."""
        text = json.dumps({"command": list(self.command), "url": self.url, "agent": self.agent},
                          sort_keys=True)
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def info(self) -> dict:
        return json.loads(self.hello)

    def games(self) -> list[str]:
        games = self.info().get("games")
        return sorted(games) if isinstance(games, (dict, list)) else []


def parse_bot_option(text: str) -> tuple[str, str | None, str]:
    """``NAME=COMMAND``, ``NAME/AGENT=COMMAND`` or ``NAME=http://HOST:PORT`` as
    ``(name, agent or None, target)``.

    >>> parse_bot_option("mine=python3 bot.py --fast")
    ('mine', None, 'python3 bot.py --fast')
    >>> parse_bot_option("sw/heuristic=slagwerk bot")
    ('sw', 'heuristic', 'slagwerk bot')
    """
    match = _BOT_OPTION.fullmatch(str(text))
    if match is None:
        raise SpecError(f"--bot {text!r} is not NAME=COMMAND, NAME/AGENT=COMMAND or NAME=http://HOST:PORT "
                        f"(NAME: a letter, then letters, digits, _ and -; PORT: 0 to 65535)")
    target = match["url"] or match["command"].strip()
    return match["name"], match["agent"] and match["agent"].strip(), target


def register_bots(options, timeout: float | None = None, hello_timeout: float = HELLO_TIMEOUT_S
                  ) -> list[BotDefinition]:
    """Register the bots of ``--bot`` options (see :func:`parse_bot_option`): ask each
    for its ``hello``, check the protocol and version, and register its agent.

    :raises SpecError: for a bad option, a name already taken, a bot that cannot be
        started or reached, or a ``hello`` answer that is not the protocol's.
    """
    bots = []
    seen = set()
    for text in options or ():
        name, agent, target = parse_bot_option(text)
        taken = AGENTS.get(name)
        if name in seen or (taken is not None and not issubclass(taken, ExternalAgent)):
            owner = "another --bot" if name in seen else "an agent of slagwerk"
            raise SpecError(f"--bot {name!r}: that name is taken, by {owner} (choose another name)")
        seen.add(name)
        if target.startswith("http://"):
            bot = BotDefinition(name, agent or name, "{}", url=target, timeout=timeout,
                                hello_timeout=hello_timeout)
        else:
            try:
                command = tuple(shlex.split(target))
            except ValueError as err:
                raise SpecError(f"--bot {name}: cannot split its command {target!r}: {err}") from None
            bot = BotDefinition(name, agent or name, "{}", command=command, timeout=timeout,
                                hello_timeout=hello_timeout)
        hello = _client(bot).hello(hello_timeout)
        close(bot.name)
        bot = replace(bot, agent=_agent_of(bot, agent, hello), hello=json.dumps(hello, sort_keys=True))
        install(bot)
        bots.append(bot)
    return bots


def _agent_of(bot: BotDefinition, asked: str | None, hello: dict) -> str:
    agents = hello.get("agents") or {}
    if asked is not None and agents and asked not in agents:
        raise SpecError(f"bot {bot.name!r} has no agent {asked!r} (agents: {', '.join(sorted(agents))})")
    if asked is not None or bot.name in agents or not agents:
        return asked or bot.name
    if len(agents) == 1:
        return next(iter(agents))
    raise SpecError(f"bot {bot.name!r} offers several agents ({', '.join(sorted(agents))}): choose one "
                    f"with --bot {bot.name}/AGENT=...")


def check_answer(name: str, kind: str, answer) -> dict:
    """``answer`` if it is what the protocol's schema says a ``kind`` request is answered
    with (agents/messages.py); :class:`BotFault` naming the bot and the broken rule otherwise.
    An ``error`` answer is a fault too, with the bot's own message."""
    if isinstance(answer, dict) and "error" in answer:
        said = one_line(str(answer["error"]))[:300]
        raise BotFault(f"bot {name!r} answered its {kind} request with an error: {said}")
    try:
        json_check.check(answer, schemas()["answers"][kind], what=f"its {kind} answer")
    except json_check.SchemaMismatch as err:
        hint = {"protocol": " (is it a slagwerk bot?)",
                "version": " (this harness speaks version 1 of the protocol)"}.get(err.field, "")
        raise BotFault(f"bot {name!r}: {err}{hint}") from None
    return answer


# ------------------------------------------------------------------ the agent


class ExternalAgent(Agent):
    """An agent whose decisions come from an external bot (one subclass per bot)."""

    bot: ClassVar[BotDefinition]
    games: ClassVar[tuple[str, ...]] = ()

    def __init__(self, game, seed: int = 0, **params):
        if game.name not in self.games:
            raise SpecError(f"bot {self.name!r} does not play {game.name} "
                            f"(it plays: {', '.join(self.games) or 'nothing'})")
        super().__init__(game, seed, **params)
        given = ",".join(f"{key}={_text(self.config[key])}" for key in params)
        self.request_agent = f"{self.bot.agent}:{given}" if given else self.bot.agent
        # Agents are made before their game starts: a bot (re)starts here, off the move's clock.
        _client(self.bot).ensure_started()

    def decide(self, view: dict) -> Decision:
        legal = view.get("legal_actions") or []
        request = {"type": "act", "game": self.game.name, "agent": self.request_agent, "view": view,
                   "seed": self.seed & MAX_SEED}
        answer = _client(self.bot).act(request)
        action = answer.get("action")
        if action not in legal:
            close(self.bot.name)  # restarted for the next game, as after any fault
            raise BotFault(f"bot {self.name!r} answered {brief(action)}, which is not a legal action "
                           f"here ({len(legal)} were)")
        return Decision(action)


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


EXTERNAL_MODULE = "slagwerk-external-bots"
"""The ``__module__`` of bots' agent classes: not ``slagwerk.``, so that the harness
warms them up only where games are played (see ``runner.warm_up``)."""


def install(bot: BotDefinition) -> type[ExternalAgent]:
    """Register ``bot``'s agent class under its name (replacing an earlier definition)."""
    info = bot.info()
    declared = (info.get("agents") or {}).get(bot.agent) or {}
    params = {key: _param_spec(bot.name, key, spec) for key, spec in (declared.get("params") or {}).items()}
    cls = type(f"ExternalAgent_{bot.name}", (ExternalAgent,), {
        "name": bot.name, "bot": bot, "params": params, "games": tuple(bot.games()),
        "__module__": EXTERNAL_MODULE,
        "description": str(declared.get("description") or f"external bot: {bot.address}"),
    })
    AGENTS[bot.name] = cls
    return cls


def _param_spec(bot: str, key: str, spec: dict) -> ParamSpec:
    """The parameter a (checked) hello answer describes."""
    choices = tuple(spec.get("choices") or ())
    param = ParamSpec(_PARAM_TYPES[spec["type"]], spec.get("default"), str(spec.get("doc", "")),
                      spec.get("min"), spec.get("max"), choices)
    if param.default is not None:  # a default outside its own range would fail only when used
        try:
            param.convert(f"bot {bot!r}:", key, param.default)
        except SpecError as err:
            raise SpecError(f"{err} (its hello's default)") from None
    return param


def registered_bots() -> tuple[BotDefinition, ...]:
    """Every bot registered in this process (what the experiment's workers must register)."""
    return tuple(cls.bot for cls in AGENTS.values() if _is_bot(cls))


def _is_bot(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, ExternalAgent) and cls is not ExternalAgent


def install_all(bots) -> None:
    """Register ``bots`` in this process (a worker: definitions already checked by the harness)."""
    for bot in bots:
        current = AGENTS.get(bot.name)
        if getattr(current, "bot", None) != bot:
            install(bot)


def keep_stderr_in(bots, folder) -> tuple[BotDefinition, ...]:
    """``bots`` with their standard error appended to files in ``folder``."""
    return tuple(replace(bot, stderr_folder=str(folder)) for bot in bots)


def bots_in(specs) -> dict[str, BotDefinition]:
    """The external bots that ``specs`` (agent specs or ``A+B`` entries) name."""
    found = {}
    for entry in specs:
        for part in PARTNER_SPLIT.split(str(entry).strip()):
            name = parse_spec(part)[0]
            cls = AGENTS.get(name)
            if _is_bot(cls):
                found[name] = cls.bot
    return found


def fingerprints(specs) -> dict[str, str]:
    """Name -> fingerprint of every external bot ``specs`` name (stored in results folders)."""
    return {name: bot.fingerprint for name, bot in sorted(bots_in(specs).items())}


def check_fingerprints(stored: dict, specs, folder) -> None:
    """With ``--resume``: every bot the folder recorded must be defined again by ``--bot``,
    with the same command. :raises SpecError: naming the bot."""
    given = {name: cls.bot for name, cls in AGENTS.items() if _is_bot(cls)}
    for name in sorted(set(stored) | set(fingerprints(specs))):
        bot = given.get(name)
        if name not in stored:
            why = f"did not record the external bot {name!r}"
        elif bot is None:
            why = (f"plays the external bot {name!r}: give --bot {name}=COMMAND again (a results folder "
                   f"never stores a command to run)")
        elif bot.fingerprint != stored[name]:
            why = f"was started with another command for the bot {name!r} than {bot.address}"
        else:
            continue
        raise SpecError(f"the run in {str(folder)!r} {why}")


# ------------------------------------------------------------------ connections


_CLIENTS: dict[str, _StdioClient | _HttpClient] = {}
_LOCK = threading.Lock()


def _client(bot: BotDefinition):
    """This process's connection to ``bot`` (reused across games)."""
    client = _CLIENTS.get(bot.name)
    if client is not None and client.bot is bot:  # every decision: no lock, no field comparison
        return client
    with _LOCK:
        client = _CLIENTS.get(bot.name)
        if client is not None and client.bot != bot:
            client.close()
            client = None
        if client is None:
            client = _HttpClient(bot) if bot.url else _StdioClient(bot)
            _CLIENTS[bot.name] = client
        return client


def close(name: str, polite: bool = False) -> None:
    """End this process's connection to the bot ``name``: its process is killed, at
    once or (``polite``) after its input ends and it had :data:`QUIT_GRACE_S` to exit."""
    with _LOCK:
        client = _CLIENTS.pop(name, None)
    if client is not None:
        if polite and isinstance(client, _StdioClient):
            client.close(polite=True)
        else:
            client.close()


def cpu_seconds(name: str) -> float | None:
    """CPU seconds used so far by this process's bot process ``name`` (Linux; else ``None``)."""
    client = _CLIENTS.get(name)
    proc = getattr(client, "proc", None)
    try:
        with open(f"/proc/{proc.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (AttributeError, OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@atexit.register
def close_all() -> None:
    """End every bot process this process started."""
    for name in list(_CLIENTS):
        close(name, polite=True)


def _forget_inherited() -> None:
    """In a forked child: the connections are the parent's. Close only this
    process's copies of their pipes and sockets (the parent's bots keep
    running); the child starts its own when it needs one."""
    global _LOCK
    _LOCK = threading.Lock()  # another thread of the parent may have held it
    for client in list(_CLIENTS.values()):
        client.forget()
    _CLIENTS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited)


def _encode(request: dict) -> bytes:
    """A request as compact UTF-8 JSON. orjson, because the harness encodes a whole view
    per decision, and the standard library's encoder was its largest share of the
    harness's cost of a decision asked of a bot (about 40 of 90 microseconds)."""
    return orjson.dumps(request)


class _Connection(ABC):
    """What both transports share: request ids and turning any failure into a fault
    after which the connection is closed (the next request starts afresh). Each
    transport supplies :meth:`_exchange`, :meth:`close` and :meth:`forget`."""

    def __init__(self, bot: BotDefinition):
        self.bot = bot
        self.next_id = 0
        self.busy = threading.Lock()  # one request at a time (threads of a Dask worker share it)

    def hello(self, timeout: float) -> dict:
        try:
            return check_answer(self.bot.name, "hello", self._ask({"type": "hello"}, timeout, hello=True))
        except (BotFault, BotUnreachable) as err:
            raise SpecError(str(err)) from None
        finally:
            self.close()

    def ensure_started(self) -> None:
        """Start the bot and read its ``hello`` unless it runs; tried twice, then
        :class:`BotUnreachable` (its hello answered at registration: it broke since)."""
        if self.running():
            return
        for _attempt in range(2):
            self.close()  # a process that ended by itself, or a failed attempt
            try:
                hello = self._ask({"type": "hello"}, self.bot.hello_timeout, hello=True)
                check_answer(self.bot.name, "hello", hello)
                return
            except (BotFault, BotUnreachable) as err:
                failure = err
        self.close()
        reason = one_line(str(failure)).removeprefix(f"bot {self.bot.name!r}").removeprefix(": ").strip()
        where = ""
        if self.bot.stderr_folder is not None:
            where = f"; its standard error: {os.path.join(self.bot.stderr_folder, self.bot.stderr_name)}"
        raise BotUnreachable(f"bot {self.bot.name!r} could not be started (tried twice): {reason}{where}")

    def running(self) -> bool:
        return True

    def closed(self) -> bool:
        """Closed after a fault (cheaper than :meth:`running`, which asks the system)."""
        return False

    def act(self, request: dict) -> dict:
        if self.closed():  # started when the agent was made; after a fault in this game, now
            self.ensure_started()
        answer = self._ask(request, self.bot.timeout)
        try:
            return check_answer(self.bot.name, "act", answer)
        except BotFault:
            self.close()
            raise

    def _ask(self, request: dict, timeout: float | None, hello: bool = False) -> dict:
        with self.busy:
            self.next_id += 1
            request = {"id": self.next_id, **request}
            try:
                answer = self._exchange(request, timeout, hello)
            except BaseException:  # a fault, or the harness's move-time alarm: the stream is out of step
                self.close()
                raise
        if not isinstance(answer, dict):
            self.close()
            raise BotFault(f"bot {self.bot.name!r} answered {brief(answer)}, not a JSON object")
        if answer.get("id", request["id"]) != request["id"]:
            self.close()
            raise BotFault(f"bot {self.bot.name!r} answered request {request['id']} under id "
                           f"{brief(answer.get('id'))}: an answer must carry the id of its request")
        return answer

    @abstractmethod
    def _exchange(self, request: dict, timeout: float | None, hello: bool):
        """Send ``request`` and return the bot's parsed answer (or raise :class:`BotFault`)."""

    @abstractmethod
    def close(self) -> None:
        """End the connection (and the bot's process, for a program)."""

    @abstractmethod
    def forget(self) -> None:
        """In a forked child: let go of the parent's connection, leaving it open there."""


def _parent_death_signal():
    """In the child before it runs the bot (Linux): be killed when the harness dies."""
    _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


try:  # looked up before any fork: the child only calls it
    import ctypes

    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
except (OSError, AttributeError):
    _PRCTL = None


class _StdioClient(_Connection):
    """A bot program on our pipes: one request line out, one answer line back."""

    def __init__(self, bot: BotDefinition):
        super().__init__(bot)
        self.proc: subprocess.Popen | None = None
        self.pending = b""
        self.poller = None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def closed(self) -> bool:
        return self.proc is None

    def _start(self) -> None:
        stderr = None
        if self.bot.stderr_folder is not None:
            from ..safe_files import SafeFileError, open_for_append

            try:  # the folder may come from elsewhere: no link followed, no FIFO waited on
                stderr = open_for_append(self.bot.stderr_folder, self.bot.stderr_name)
            except SafeFileError as err:
                raise BotUnreachable(f"bot {self.bot.name!r}: its standard error log: {err}") from None
            # the bot's name only: its command may hold a secret, and this file stays with the results
            os.write(stderr, f"--- slagwerk started bot {self.bot.name!r} for process {os.getpid()}\n"
                     .encode())
        in_main = threading.current_thread() is threading.main_thread()
        try:
            self.proc = subprocess.Popen(
                list(self.bot.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                bufsize=0, preexec_fn=_parent_death_signal if (_PRCTL and in_main) else None)
        except OSError as err:
            raise BotUnreachable(f"bot {self.bot.name!r} cannot be started ({self.bot.address}): "
                                 f"{err.strerror or err}") from None
        finally:
            if stderr is not None:
                os.close(stderr)
        self.pending = b""
        self.poller = select.poll()
        self.poller.register(self.proc.stdout.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)

    def _exchange(self, request: dict, timeout: float | None, hello: bool):
        if self.proc is None:
            self._start()
        line = _encode(request) + b"\n"
        try:
            self.proc.stdin.write(line)
        except OSError:
            raise BotFault(f"bot {self.bot.name!r} {self._ended()}") from None
        raw = self._read_line(timeout, notice=hello)
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise BotFault(f"bot {self.bot.name!r} answered {brief(raw.decode('utf-8', 'replace'))}, "
                           f"which is not JSON") from None

    def _read_line(self, timeout: float | None, notice: bool = False) -> bytes:
        """The next answer line; with ``notice`` (a ``hello``), a long wait is said on stderr."""
        fd = self.proc.stdout.fileno()
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        notice_at = start + HELLO_NOTICE_S if notice else None
        while b"\n" not in self.pending:
            if len(self.pending) > MAX_ANSWER_BYTES:
                raise BotFault(f"bot {self.bot.name!r} wrote an answer longer than {MAX_ANSWER_BYTES} bytes")
            now = time.monotonic()
            if notice_at is not None and now >= notice_at:
                limit = "" if timeout is None else f"; it has {timeout:g} s in all"
                print(f"waiting for bot {self.bot.name!r} to answer hello (it may be loading{limit})",
                      file=sys.stderr, flush=True)
                notice_at = None
            ends = [t for t in (deadline, notice_at) if t is not None]
            wait = max(0.0, min(ends) - now) if ends else None
            if not self.poller.poll(None if wait is None else wait * 1000):
                if deadline is not None and time.monotonic() >= deadline:
                    hint = " (--bot-start-timeout gives it longer)" if notice else ""
                    raise BotFault(f"bot {self.bot.name!r} did not answer {'hello ' if notice else ''}"
                                   f"within {timeout:g} s{hint}")
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise BotFault(f"bot {self.bot.name!r} {self._ended()}")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def _ended(self) -> str:
        try:  # briefly: the move's time limit is running
            code = self.proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            return "exited (it closed its standard output)"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"exited (killed by {signal.Signals(-code).name})"
        return f"exited (exit code {code})"

    def close(self, polite: bool = False) -> None:
        """End the bot's process: at once after a fault (the stream is out of step);
        ``polite``, at the end of a run, by ending its input first, as the protocol
        says, so that it can flush and exit, and killing it only after
        :data:`QUIT_GRACE_S`."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if polite and proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=QUIT_GRACE_S)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._close_pipes(proc)

    def forget(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.returncode = 0  # not this process's child: never waited for here
            self._close_pipes(proc)

    @staticmethod
    def _close_pipes(proc) -> None:
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()


class _HttpClient(_Connection):
    """A bot served over HTTP: ``GET /v1/info`` and ``POST /v1/act`` on one kept-alive connection."""

    def __init__(self, bot: BotDefinition):
        super().__init__(bot)
        self.conn: http.client.HTTPConnection | None = None

    def _exchange(self, request: dict, timeout: float | None, hello: bool):
        import http.client  # only HTTP bots need it: the other commands start faster

        self._drop_if_closed()
        if self.conn is None:
            self._connect(timeout)  # unreachable: the request never left, no game is lost
        try:
            if hello:
                self.conn.request("GET", "/v1/info")
            else:
                self.conn.request("POST", "/v1/act", _encode(request), {"Content-Type": "application/json"})
            response = self.conn.getresponse()
            raw = response.read(MAX_ANSWER_BYTES + 1)
            if response.length and len(raw) <= MAX_ANSWER_BYTES:  # the answer was cut off
                raise http.client.IncompleteRead(raw, response.length)
        except (OSError, http.client.HTTPException) as err:
            # Dropped once the request left: the bot's fault (it may crash on this request).
            raise BotFault(f"bot {self.bot.name!r} at {self.bot.url}: {type(err).__name__}: "
                           f"{err}") from None
        try:
            answer = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise BotFault(f"bot {self.bot.name!r} answered HTTP {response.status} with "
                           f"{brief(raw.decode('utf-8', 'replace'))}, which is not JSON") from None
        if response.status != 200 and not (isinstance(answer, dict) and "error" in answer):
            raise BotFault(f"bot {self.bot.name!r} answered HTTP {response.status}")
        if hello and isinstance(answer, dict):
            answer.setdefault("id", request["id"])
        return answer

    def ensure_started(self) -> None:
        """Connect unless connected: agents are made before their game, so a bot that
        cannot be reached is found off the move's clock."""
        self._drop_if_closed()
        if self.conn is None:
            self._connect(self.bot.timeout)

    def _drop_if_closed(self) -> None:
        """Let go of a kept-alive connection that the server closed (servers close idle
        ones; a server that went away closed them all): one it had marked to close, or
        whose socket reads already (the end, or data nobody asked for)."""
        sock = None if self.conn is None else self.conn.sock
        if sock is None:
            self.close()
        elif hasattr(select, "poll"):  # any descriptor number (select() stops at 1024)
            poller = select.poll()
            poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
            if poller.poll(0):
                self.close()
        elif select.select([sock], [], [], 0)[0]:
            self.close()

    def _connect(self, timeout: float | None) -> None:
        """A new connection, tried again after each of :data:`CONNECT_PAUSES_S`; else
        :class:`BotUnreachable`. ``timeout``: the answers' (the connection's own is shorter)."""
        import http.client

        parts = urllib.parse.urlsplit(self.bot.url)
        connect_timeout = CONNECT_TIMEOUT_S if timeout is None else min(CONNECT_TIMEOUT_S, timeout)
        for pause in (0.0, *CONNECT_PAUSES_S):
            time.sleep(pause)
            conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=connect_timeout)
            try:
                conn.connect()
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # small requests
                conn.sock.settimeout(timeout)
            except OSError as err:
                conn.close()
                failure = err
                continue
            conn.timeout = timeout
            self.conn = conn
            return
        raise BotUnreachable(f"bot {self.bot.name!r} at {self.bot.url} cannot be reached "
                             f"({1 + len(CONNECT_PAUSES_S)} attempts): {type(failure).__name__}: {failure}")

    def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            conn.close()

    def forget(self) -> None:
        self.close()  # closes this process's copy of the socket only: no shutdown
