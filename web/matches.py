"""Matches the web page plays: held by the server, one per browser session.

The engine is the referee: a :class:`WebMatch` holds the true state, applies
the human's actions (checked by the rules) and asks the bot server's worker
pool for every other seat's action with that seat's view, under the server's
time limit. What goes to the page (:meth:`WebMatch.page_json`) is built from
the human seat's view and from what that seat saw of finished deals: never a
card the seat cannot see.

Sessions are held in a :class:`MatchStore` under unguessable ids (the page's
cookie). The store holds at most ``max_sessions`` sessions; a session whose
match is over, or that nobody asked about for a while, is dropped, so memory
stays bounded.
"""

from __future__ import annotations

import random
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus

from ..agents.limits import DEFAULT_MATCHES_PER_CLIENT
from ..agents.protocol import NO_DEFAULTS, Defaults, Limits
from ..agents.registry import make, parse_spec, view_agent_class
from ..engine import GAMES, make_game
from ..engine.bits import derive_seed, make_rng
from ..engine.records import record_of
from ..engine.seeds import SEED_RANGE, is_seed
from ..errors import SlagwerkError, brief

DEAL_SALT = 0xDEA1
AGENT_SALT = 0xA6E
"""Seeds as ``slagwerk play`` derives them: the same seed deals the same cards."""
FALLBACK_SALT = 0xFA11
SESSION_BYTES = 32
"""Random bytes of a session id (256 bits: not guessable)."""
POLL_WAIT_S = 15.0
"""How long a request for news waits for the match to change."""
WORKER_WAIT_S = 120.0
"""How long a bot move may wait for a free worker (other matches use them too)."""


def card_order_json(game) -> dict | None:
    """The game's fixed strength order of the cards for the page, or ``None``."""
    order = game.card_order()
    if order is None:
        return None
    classes, names = order
    return {"classes": classes, "names": names}


class WebError(SlagwerkError):
    """A request of the page that cannot be done; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = HTTPStatus.BAD_REQUEST, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


@dataclass(frozen=True)
class MatchSettings:
    """A checked request for a match: game options, the human's seat, one agent spec per other seat."""

    game: str
    options: dict
    seat: int
    agents: tuple[str, ...]
    seed: int


_ADDRESSED_TO_YOU = (
    # The engine's reasons name the mover "seat N"; the page says "you" (N: the person's seat).
    (r"\bseat N \(the trump maker\) names", "you (the trump maker) name"),
    (r"\bseat N does not lead: it beats or discards", "you do not lead: you beat or discard"),
    (r"\bseat N is asked whether to declare its molodka", "you are asked whether to declare your molodka"),
    (r"\bseat N does not\b", "you do not"),
    (r"\bseat N has\b", "you have"),
    (r"\bseat N must\b", "you must"),
    (r"\bseat N leads\b", "you lead"),
    (r"\bseat N plays\b", "you play"),
    (r"\bin a slot of seat N\b", "in a slot of yours"),
    (r"\bfor seat N\b", "for you"),
    (r"\(seat N\)", "(you)"),
)


def check_settings(data, limits: Limits, defaults: Defaults = NO_DEFAULTS) -> MatchSettings:
    """The settings of a new match from the page's JSON ``{"game", "options", "seat",
    "agents", "seed"}``; :class:`WebError` naming what is wrong.

    Agents are built here as the bot server would build them (``params=NAME`` names a
    parameter set the server was given; a spec never names a file) and checked
    against the server's limits, so that a bad setting fails before the match starts.
    """
    if not isinstance(data, dict):
        raise WebError("a new match is a JSON object {game, options, seat, agents, seed}")
    unknown = sorted(set(data) - {"game", "options", "seat", "agents", "seed"})
    if unknown:
        raise WebError(f"unknown field {brief(unknown[0])} (fields: game, options, seat, agents, seed)")
    name = data.get("game")
    if not isinstance(name, str) or name not in GAMES:
        raise WebError(f"unknown game {brief(name)} (games: {', '.join(GAMES)})")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise WebError(f"'options' must be an object of the game's options, not {brief(options)}")
    game = make_game(name, **options)  # an OptionError names the option
    n = game.n_players
    seat = data.get("seat", 0)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise WebError(f"'seat' must be a seat of this {name} match (0..{n - 1}), not {brief(seat)}")
    agents = data.get("agents")
    if not isinstance(agents, list) or len(agents) != n - 1:
        raise WebError(f"'agents' must list {n - 1} agent specs, one per other seat in seat order, "
                       f"not {brief(agents)}")
    seed = data.get("seed", 0)
    if isinstance(seed, str) and re.fullmatch(r"[0-9]{1,19}", seed):
        seed = int(seed)  # a browser's numbers hold 53 bits: the page sends a large seed as its digits
    if not is_seed(seed):
        raise WebError(f"'seed' must be {SEED_RANGE}, not {brief(seed)}")
    for spec in agents:
        check_agent(spec, game, limits, defaults)
    return MatchSettings(name, dict(game.options), seat, tuple(a.strip() for a in agents), seed)


def check_agent(spec, game, limits: Limits, defaults: Defaults) -> None:
    """:class:`SpecError` unless ``spec`` is an agent the bot server would run for a view."""
    view_agent_class(spec)  # parse_spec refuses '@': the page never names a file
    limits.check(make(spec, game, parameter_sets=defaults.parameter_sets))


@dataclass
class DealSummary:
    """A finished deal as the human seat knows it once it is counted: its actions,
    where its tricks ended and who took them, its points, and where the seat's
    view lists them (Kozel), its tricks as that view shows them then."""

    number: int
    dealer: int
    history: list[dict]
    trick_ends: list[dict]
    points: list
    totals: list[int]
    tricks: list | None = None

    def to_json(self) -> dict:
        return {"number": self.number, "dealer": self.dealer, "history": self.history,
                "trick_ends": self.trick_ends, "points": self.points, "totals": self.totals,
                "tricks": self.tricks}


Ask = Callable[[dict], tuple[int, dict]]
"""Asks the bot server's worker pool one ``act`` request: (HTTP status, answer)."""


class WebMatch:
    """One match between a person and bots. Every method takes the match's lock."""

    def __init__(self, settings: MatchSettings, ask: Ask):
        self.settings = settings
        self.game = make_game(settings.game, **settings.options)
        self.seat = settings.seat
        self.ask = ask
        specs = list(settings.agents)
        self.specs: list[str | None] = [None if s == self.seat else specs.pop(0)
                                        for s in range(self.game.n_players)]
        self.players = ["you" if spec is None else parse_spec(spec)[2] for spec in self.specs]
        self.changed = threading.Condition()
        self.version = 0
        self.thinking: int | None = None
        self.notice: str | None = None
        self.closed = False
        self.deals: list[DealSummary] = []
        self.trick_ends: list[dict] = []
        self._deal_rng = make_rng(derive_seed(settings.seed, DEAL_SALT))
        self._fallback = random.Random(derive_seed(settings.seed, FALLBACK_SALT))
        self._thread: threading.Thread | None = None
        self.state = self.game.new_match()
        self._deal_if_pending()

    @property
    def over(self) -> bool:
        return self.state.is_terminal

    # ------------------------------------------------------------ playing

    def act(self, text) -> None:
        """Apply the human's action (notation); :class:`WebError` if it is not the
        human's turn or the action is illegal (the rules' reason)."""
        with self.changed:
            if self.over:
                raise WebError("the match is over")
            if self.state.to_move != self.seat or self.thinking is not None:
                raise WebError(f"it is seat {self.state.to_move}'s turn, not yours (seat {self.seat})",
                               HTTPStatus.CONFLICT)
            if not isinstance(text, str):
                raise WebError(f"an action is its notation, like {self.state.legal_texts()[0]!r}, "
                               f"not {brief(text)}")
            self.notice = None
            try:
                self._apply(self._own_notation(text))
            except SlagwerkError as err:  # the rules' reason, said to the person
                raise WebError(self._to_you(str(err))) from None
        self.start_bots()

    def explain(self, text) -> str:
        """Why the human's action ``text`` is illegal now (the engine's explanation,
        about the human's own cards and the table only), or ``"legal"``."""
        with self.changed:
            if self.over or self.state.to_move != self.seat:
                return "it is not your turn"
            if not isinstance(text, str):
                return f"an action is text, not {brief(text)}"
            try:
                self._own_notation(text)
            except SlagwerkError as err:
                return self._to_you(str(err))
            return "legal"

    def _own_notation(self, text: str) -> str:
        """The human's legal action ``text`` in its seat's notation, read from the
        human's view alone: parsed in a state rebuilt from that view, so that neither
        what is accepted nor why it is refused depends on a card the human cannot see
        (a Koetsieren forehead card is played by its slot, never named)."""
        rebuilt = self.game.state_from_view(self.state.view(self.seat), seed=0)
        return self.game.action_text(rebuilt, self.game.parse_own_action(rebuilt, text), self.seat)

    def _to_you(self, reason: str) -> str:
        """The engine's reason, about the human's own seat, addressed to the person."""
        for pattern, replacement in _ADDRESSED_TO_YOU:
            reason = re.sub(pattern.replace("N", str(self.seat)), replacement, reason)
        return reason

    def start_bots(self) -> None:
        """Let the bots move (in a thread) until it is the human's turn or the match is over."""
        with self.changed:
            if self._thread is not None or self.closed or self._human_or_over():
                return
            self._thread = threading.Thread(target=self._run_bots, name="slagwerk-web-bots", daemon=True)
            self._thread.start()

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()

    def _human_or_over(self) -> bool:
        return self.over or self.state.to_move == self.seat

    def _run_bots(self) -> None:
        me = threading.current_thread()
        try:
            while True:
                with self.changed:
                    if self.closed or self._human_or_over():
                        # Under the lock of the check: an act() that follows starts the next thread.
                        self._bots_stopped()
                        return
                    seat = self.state.to_move
                    request = {"type": "act", "game": self.game.name, "agent": self.specs[seat],
                               "view": self.state.view(seat),
                               "seed": derive_seed(self.settings.seed, AGENT_SALT, seat)}
                    self.thinking = seat
                    self._changed()
                try:
                    status, answer = self.ask(request)  # in a worker process, under the time limit
                except Exception as err:  # the pool itself failed: the match goes on all the same
                    status = HTTPStatus.INTERNAL_SERVER_ERROR
                    answer = {"error": f"{type(err).__name__}: {err}"}
                with self.changed:
                    self.thinking = None
                    if self.closed:
                        self._bots_stopped()
                        return
                    if status == HTTPStatus.OK:
                        self._apply(answer["action"])
                    else:
                        self._fall_back(seat, answer.get("error", "no answer"))
        except BaseException:
            with self.changed:
                if self._thread is me:
                    self._bots_stopped()
            raise

    def _bots_stopped(self) -> None:
        """The bots' thread ends (the caller holds the lock)."""
        self._thread = None
        self.thinking = None
        self._changed()

    def _fall_back(self, seat: int, error: str) -> None:
        """A bot that failed (ran out of time, its worker died) plays a random legal action."""
        legal = self.state.legal_texts(seat)
        choice = self._fallback.choice(legal)
        self.notice = (f"seat {seat} ({self.players[seat]}) did not answer ({brief(error, 120)}); "
                       f"a random legal action was played for it")
        self._apply(choice)

    def _apply(self, text: str) -> None:
        state = self.state
        before = state.tricks_done
        state.apply(text)  # the rules' check: IllegalActionError says why
        log = state.deals[-1]
        if state.tricks_done > before:
            self.trick_ends.append({"after": len(log.actions) - 1, "winner": log.trick_winners[-1]})
        if log.points is not None:  # the deal is over
            self.deals.append(DealSummary(
                number=state.deal_number, dealer=log.dealer,
                history=[{"seat": s, "action": text} for s, text in zip(
                    log.seats, log.seen_by(self.seat, self.game.info.counting_reveals_actions))],
                trick_ends=self.trick_ends, points=list(log.points), totals=state.totals,
                tricks=state.view(self.seat).get("tricks")))
            self.trick_ends = []
        self._deal_if_pending()
        self._changed()

    def _deal_if_pending(self) -> None:
        if self.state.deal_pending and not self.state.is_terminal:
            self.state.deal(rng=self._deal_rng)

    def _changed(self) -> None:
        self.version += 1
        self.changed.notify_all()

    # ------------------------------------------------------------- output

    def wait(self, after: int, timeout: float = POLL_WAIT_S) -> None:
        """Wait until the match has changed since version ``after`` (or ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != after or self.closed, timeout)

    def page_json(self) -> dict:
        """What the page gets: the human seat's view and public facts, never a hidden card."""
        with self.changed:
            state = self.state
            status = self._status()
            return {
                "kind": "match",
                "version": self.version,
                "game": self.game.name,
                "options": dict(self.game.options),
                "seat": self.seat,
                "players": list(self.players),
                "team_game": self.game.team_game,
                "thinking": self.thinking,
                "over": self.over,
                "outcome": state.outcome,
                "status": status,
                "notice": self.notice,
                "view": state.view(self.seat),
                "trick_ends": list(self.trick_ends),
                "deals": [deal.to_json() for deal in self.deals],
                "barred": self._barred(),
                "card_order": card_order_json(self.game),
            }

    def _barred(self) -> list[dict]:
        """On the human's turn, the actions the rules bar that the person might
        look for (Koetsieren's hooked bid), each with the rules' reason."""
        state = self.state
        if self.over or state.to_move != self.seat or self.thinking is not None:
            return []
        legal = state.legal_actions()
        texts = set(state.legal_texts(self.seat))
        return [{"action": text, "reason": self._to_you(self.game.explain_illegal(state, text, legal))}
                for text in self.game.barred_actions(state) if text not in texts]

    def _status(self) -> str:
        state = self.state
        if state.is_terminal:
            outcome = state.outcome[self.seat]
            result = "you win" if outcome == 1 else "a draw" if outcome == 0.5 else "you lose"
            return f"match over: {result}"
        if self.thinking is not None:
            return f"seat {self.thinking} ({self.players[self.thinking]}) is thinking"
        if state.to_move == self.seat:
            return "your turn"
        return f"seat {state.to_move} ({self.players[state.to_move]}) to move"

    def record(self) -> dict:
        """The finished match's record; :class:`WebError` before the end (it shows every card)."""
        with self.changed:
            if not self.over:
                raise WebError("the record of a match can be downloaded once the match is over",
                               HTTPStatus.CONFLICT)
            return record_of(self.state, players=self.players)


@dataclass
class Session:
    """What one browser holds: a match and the record it watches."""

    match: WebMatch | None = None
    watching: object | None = None
    seen: float = field(default=0.0)
    client: str | None = None
    """The remote address that opened it, on a server that counts sessions by address."""


DEFAULT_PER_CLIENT = DEFAULT_MATCHES_PER_CLIENT
RETRY_AFTER_S = 60
"""The ``Retry-After`` of a client refused for holding its share."""


class MatchStore:
    """Sessions by unguessable id, at most ``max_sessions`` at once.

    A session is dropped once nobody asked about it for ``idle_s`` seconds,
    or ``finished_s`` seconds when its match is over. When the store is full,
    a new session first pushes out expired ones, then the one whose match
    ended longest ago; with none of those, it is refused (503).

    A session opened with a ``client`` (the remote address, on a public
    server) counts towards that client's share: at most ``per_client``
    sessions. A client at its share first gives up its own session whose
    match ended longest ago; with none, it is refused (429, ``Retry-After``),
    and nobody else's session is touched.
    """

    def __init__(self, ask: Ask, limits: Limits, defaults: Defaults = NO_DEFAULTS, *,
                 max_sessions: int = 64, idle_s: float = 1800.0, finished_s: float = 600.0,
                 per_client: int = DEFAULT_PER_CLIENT, clock: Callable[[], float] = time.monotonic):
        if max_sessions < 1 or per_client < 1:
            raise ValueError(f"max_sessions and per_client must be at least 1, not {max_sessions!r} "
                             f"and {per_client!r}")
        self.per_client = per_client
        self.ask = ask
        self.limits = limits
        self.defaults = defaults
        self.max_sessions = max_sessions
        self.idle_s = idle_s
        self.finished_s = finished_s
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def get(self, sid: str | None) -> Session | None:
        """The session ``sid`` (touched: it stays alive), or ``None``."""
        with self._lock:
            self._purge()
            session = self._sessions.get(sid) if isinstance(sid, str) else None
            if session is not None:
                session.seen = self.clock()
            return session

    def open(self, sid: str | None, client: str | None = None) -> tuple[str, Session]:
        """The session ``sid``, or a new one under a new id if there is none (counted towards
        ``client``'s share, if given)."""
        with self._lock:
            self._purge()
            session = self._sessions.get(sid) if isinstance(sid, str) else None
            if session is None:
                if client is not None:
                    self._make_room_for(client)
                if len(self._sessions) >= self.max_sessions:
                    self._push_out()
                sid = secrets.token_urlsafe(SESSION_BYTES)
                session = self._sessions[sid] = Session(client=client)
            session.seen = self.clock()
            return sid, session

    def start(self, sid: str | None, data, client: str | None = None) -> tuple[str, WebMatch]:
        """A new match for session ``sid`` (replacing its match) from the page's settings."""
        settings = check_settings(data, self.limits, self.defaults)
        sid, session = self.open(sid, client)
        match = WebMatch(settings, self.ask)
        if session.match is not None:
            session.match.close()
        session.match = match
        match.start_bots()
        return sid, match

    def _expired(self, session: Session, now: float) -> bool:
        idle = now - session.seen
        over = session.match is not None and session.match.over
        return idle > self.idle_s or (over and idle > self.finished_s)

    def _purge(self) -> None:
        now = self.clock()
        for sid in [sid for sid, s in self._sessions.items() if self._expired(s, now)]:
            self._drop(sid)

    def _make_room_for(self, client: str) -> None:
        """Below ``client``'s share: its own longest-finished session goes, or 429."""
        own = [(s.seen, sid, s) for sid, s in self._sessions.items() if s.client == client]
        if len(own) < self.per_client:
            return
        finished = [(seen, sid) for seen, sid, s in own if s.match is None or s.match.over]
        if not finished:
            raise WebError(f"you already hold {self.per_client} matches in play on this server (the most "
                           f"one address may); finish one or try again later", HTTPStatus.TOO_MANY_REQUESTS,
                           {"Retry-After": str(RETRY_AFTER_S)})
        self._drop(min(finished)[1])

    def _push_out(self) -> None:
        finished = [(s.seen, sid) for sid, s in self._sessions.items()
                    if s.match is None or s.match.over]
        if not finished:
            raise WebError(f"this server already holds {self.max_sessions} matches in play; "
                           f"try again later", HTTPStatus.SERVICE_UNAVAILABLE)
        self._drop(min(finished)[1])

    def _drop(self, sid: str) -> None:
        session = self._sessions.pop(sid)
        if session.match is not None:
            session.match.close()
