"""``slagwerk serve`` with the web page: the bot API plus the page and its JSON API.

:class:`WebServer` is the bot server (same loopback binding, request size
limit, client timeout, worker pool and time limit) that also serves

- ``GET /`` and ``GET /static/NAME``: the page, shipped as package data (with the rule book,
  ``/static/rules.md``, as text);
- ``/web/api/...``: the page's JSON API (docs/web.md), under the same body
  size limit as the bot API. A session is a cookie holding an unguessable id
  (HttpOnly, SameSite=Strict); a ``POST`` must say ``Content-Type:
  application/json``, which a page of another site cannot send without this
  server's consent.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from importlib import resources
from urllib.parse import unquote, urlsplit

from ..agents.http import BotHandler, BotServer, json_content_type
from ..agents.protocol import encode, error_answer
from ..errors import SlagwerkError, brief, one_line
from .matches import DEFAULT_PER_CLIENT, WORKER_WAIT_S, MatchStore, WebError
from .watch import RecordShelf, Watch, parse_json

COOKIE = "slagwerk_session"
API = "/web/api/"
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".md": "text/plain; charset=utf-8"}
PAGE_FILES = ("index.html", "app.js", "style.css", "rules.md")
"""The page's files; rules.md is the rule book (docs/rules.md, linked into the package), which
the page links for each game."""
SECURITY_HEADERS = {
    # Everything comes from this server: no CDN, no inline script, nothing framed.
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
                               "form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def page_file(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


class WebServer(BotServer):
    """The bot server with the page. ``results`` are folders whose records the page may
    open (read-only); ``max_matches``, ``idle_s`` and ``finished_s`` bound the
    sessions (:class:`~.matches.MatchStore`), and on a public server one remote address
    holds at most ``matches_per_client`` of them."""

    def __init__(self, *args, results=(), max_matches: int = 64, idle_s: float = 1800.0,
                 finished_s: float = 600.0, matches_per_client: int = DEFAULT_PER_CLIENT, **kwargs):
        super().__init__(*args, **kwargs)
        self.store = MatchStore(self._ask_bot, self.limits, self.defaults, max_sessions=max_matches,
                                idle_s=idle_s, finished_s=finished_s, per_client=matches_per_client)
        self.shelf = RecordShelf(results)
        self.page = {name: page_file(name) for name in PAGE_FILES}

    def _ask_bot(self, request: dict):
        # The time limit counts from when a worker is free: other matches may hold them.
        return self.pool.ask(request, wait_s=WORKER_WAIT_S)


class WebHandler(BotHandler):
    server: WebServer

    def _send_bytes(self, status: int, body: bytes, content_type: str, headers: dict | None = None):
        self.connection.settimeout(self.server.socket_timeout)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, value: dict, headers: dict | None = None):
        body = (encode(value) + "\n").encode("utf-8")
        self._send_bytes(status, body, "application/json", headers)

    def _session_id(self) -> str | None:
        try:
            cookie = SimpleCookie(self.headers.get("Cookie", ""))
        except CookieError:
            return None
        morsel = cookie.get(COOKIE)
        return morsel.value if morsel is not None else None

    def _client(self) -> str | None:
        """Whom a new session counts towards: the remote address on a public server; on a
        loopback one, nobody (every client there is this machine's)."""
        return self.client_address[0] if self.server.public else None

    def _query(self, method: str, name: str) -> dict[str, int]:
        """The query of a request to the page's API ``name``, each parameter a whole number in
        its range (:data:`QUERIES`); :class:`WebError` (400) for anything else."""
        return parse_query(urlsplit(self.path).query, QUERIES.get((method, name), {}), f"{API}{name}")

    # ------------------------------------------------------------ routing

    def _page_methods(self, path: str) -> str | None:
        """The methods a path of the page or its API takes (``Allow``), or None."""
        if path in ("/", "/index.html") or (path.startswith("/static/")
                                            and path[len("/static/"):] in self.server.page):
            return "GET"
        if path.startswith(API):
            return ", ".join(sorted(method for method, name in ROUTES if name == path[len(API):])) or None
        return None

    def _method_not_allowed(self, close: bool = True) -> None:
        path = self._path()
        allow = self._page_methods(path)
        if allow is None:
            super()._method_not_allowed(close)
            return
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, error_answer(None, f"use {allow} for {path[:80]} "
                                                                     f"(not {self.command})"),
                   close=close, headers={"Allow": allow})

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_TRACE = do_CONNECT = _method_not_allowed

    def _not_found(self, close: bool = False):
        self._send(HTTPStatus.NOT_FOUND, error_answer(
            None, f"no such path {self._path()[:80]!r} (paths: the page at GET /, its API under {API}, "
                  f"the bot API's GET /v1/info and POST /v1/act)"), close=close)

    def do_GET(self):
        path = self._path()
        if path in ("/", "/index.html"):
            self._send_bytes(HTTPStatus.OK, self.server.page["index.html"], STATIC_TYPES[".html"])
        elif path.startswith("/static/") and path[len("/static/"):] in self.server.page:
            name = path[len("/static/"):]
            kind = STATIC_TYPES["." + name.rsplit(".", 1)[1]]
            self._send_bytes(HTTPStatus.OK, self.server.page[name], kind)
        elif path.startswith(API):
            self._api(path[len(API):], "GET", None)
        else:
            super().do_GET()

    def do_POST(self):
        path = self._path()
        if not path.startswith(API):
            super().do_POST()
            return
        body = self._read_body()  # the bot API's size limit
        if body is None:
            return
        if not json_content_type(self.headers):
            self._send_json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                            error_answer(None, "the page's API takes Content-Type: application/json"))
            return
        self._api(path[len(API):], "POST", body)

    def _api(self, name: str, method: str, body: bytes | None):
        route = ROUTES.get((method, name))
        if route is None:
            other = "POST" if method == "GET" else "GET"
            if (other, name) in ROUTES:
                self._send_json(HTTPStatus.METHOD_NOT_ALLOWED,
                                error_answer(None, f"use {other} for {API}{name}"), {"Allow": other})
            else:
                self._send_json(HTTPStatus.NOT_FOUND, error_answer(None, f"no such path {API}{name[:60]!r}"))
            return
        try:
            data = None
            if body is not None:
                data = parse_json(body, "the request") if body else {}
            self.query = self._query(method, name)
            route(self, data)
        except WebError as err:
            self._send_json(err.status, error_answer(None, one_line(str(err))), err.headers)
        except SlagwerkError as err:
            self._send_json(HTTPStatus.BAD_REQUEST, error_answer(None, one_line(str(err))))

    # -------------------------------------------------------------- match

    def _match(self):
        session = self.server.store.get(self._session_id())
        if session is None or session.match is None:
            raise WebError("this browser has no match on this server: start one", HTTPStatus.NOT_FOUND)
        return session.match

    def get_match(self, _):
        session = self.server.store.get(self._session_id())
        if session is None or session.match is None:
            self._send_json(HTTPStatus.OK, {"kind": "none"})
            return
        match = session.match
        match.start_bots()  # if a bot is to move and none is thinking (after a failure), one does
        if "after" in self.query:
            match.wait(self.query["after"])
        self._send_json(HTTPStatus.OK, match.page_json())

    def post_match(self, data):
        sid, match = self.server.store.start(self._session_id(), data, self._client())
        self._send_json(HTTPStatus.OK, match.page_json(), {"Set-Cookie": _cookie(sid)})

    def post_act(self, data):
        match = self._match()
        if not isinstance(data, dict) or "action" not in data:
            raise WebError('an action is {"action": NOTATION}')
        match.act(data["action"])
        self._send_json(HTTPStatus.OK, match.page_json())

    def post_explain(self, data):
        match = self._match()
        if not isinstance(data, dict) or "action" not in data:
            raise WebError('ask as {"action": NOTATION}')
        reason = match.explain(data["action"])
        self._send_json(HTTPStatus.OK, {"action": brief(data["action"]), "reason": reason})

    def get_record(self, _):
        match = self._match()
        record = match.record()
        body = (json.dumps(record, indent=1) + "\n").encode("utf-8")
        self._send_bytes(HTTPStatus.OK, body, "application/json", {
            "Content-Disposition": f'attachment; filename="slagwerk-{match.game.name}.json"'})

    # ------------------------------------------------------------- watching

    def _watching(self) -> Watch:
        session = self.server.store.get(self._session_id())
        if session is None or session.watching is None:
            raise WebError("this browser watches no record on this server: open one", HTTPStatus.NOT_FOUND)
        return session.watching

    def get_shelf(self, _):
        self._send_json(HTTPStatus.OK, {"records": self.server.shelf.entries()})

    def post_watch(self, data):
        if isinstance(data, dict) and set(data) == {"shelf"}:
            watch = self.server.shelf.open(data["shelf"])
        elif isinstance(data, dict) and set(data) <= {"record", "title"} and "record" in data:
            title = data.get("title") if isinstance(data.get("title"), str) else "uploaded record"
            watch = Watch(data["record"], title[:120])
        else:
            raise WebError('open a record as {"record": RECORD} or {"shelf": ID}')
        sid, session = self.server.store.open(self._session_id(), self._client())
        session.watching = watch
        self._send_json(HTTPStatus.OK, watch.summary(), {"Set-Cookie": _cookie(sid)})

    def get_watch(self, _):
        self._send_json(HTTPStatus.OK, self._watching().summary())

    def get_frame(self, _):
        frame = self._watching().frame(self.query.get("deal", 1), self.query.get("step", 0))
        self._send_json(HTTPStatus.OK, frame)


MAX_QUERY_NUMBER = 10**9
"""The largest number a query parameter takes (a match's version, a deal, a step)."""
QUERIES = {
    ("GET", "match"): {"after": "the match's version the page has; the answer waits for a newer one"},
    ("GET", "frame"): {"deal": "the deal, from 1", "step": "the step in the deal, from 0"},
}
"""The query parameters of the page's API, each a whole number from 0 to :data:`MAX_QUERY_NUMBER`;
a request that gives any other is refused."""


def parse_query(query: str, allowed: dict[str, str], where: str) -> dict[str, int]:
    """``query`` (a URL's part after ``?``) as ``{name: number}``; :class:`WebError` (400), one
    line, for a parameter not in ``allowed``, one given twice, or a value that is not ASCII
    digits of at most :data:`MAX_QUERY_NUMBER`.

    >>> parse_query("deal=2&step=0", {"deal": "", "step": ""}, "/frame")
    {'deal': 2, 'step': 0}
    """
    numbers: dict[str, int] = {}
    if not query:
        return numbers
    for part in query.split("&"):
        name, equals, value = part.partition("=")
        name = unquote(name)
        if name not in allowed:
            takes = f"takes {', '.join(allowed)}" if allowed else "takes no query parameters"
            raise WebError(f"{where} {takes}, not {brief(name)}")
        digits = unquote(value)
        whole = digits.isascii() and digits.isdigit() and len(digits) <= len(str(MAX_QUERY_NUMBER))
        if not equals or not whole or int(digits) > MAX_QUERY_NUMBER:
            raise WebError(f"{where}: {name} must be a whole number from 0 to {MAX_QUERY_NUMBER}, "
                           f"not {brief(digits)}")
        if name in numbers:
            raise WebError(f"{where}: {name} is given twice")
        numbers[name] = int(digits)
    return numbers


def _cookie(sid: str) -> str:
    return f"{COOKIE}={sid}; Path=/; HttpOnly; SameSite=Strict"


ROUTES = {
    ("GET", "match"): WebHandler.get_match,
    ("POST", "match"): WebHandler.post_match,
    ("POST", "act"): WebHandler.post_act,
    ("POST", "explain"): WebHandler.post_explain,
    ("GET", "record"): WebHandler.get_record,
    ("GET", "shelf"): WebHandler.get_shelf,
    ("POST", "watch"): WebHandler.post_watch,
    ("GET", "watch"): WebHandler.get_watch,
    ("GET", "frame"): WebHandler.get_frame,
}
"""The page's API: (method, path after /web/api/) -> handler."""

WebServer.handler_class = WebHandler
