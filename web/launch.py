"""``slagwerk play GAME --web``: start the page's server and open a match in the browser.

The match is the page's contract URL (docs/web.md): ``/?game=G&seat=S&agent=SPEC...``
with the seed and the game options, served by a loopback :class:`~.server.WebServer`
on a free port. A spec's ``@FILE`` is read here, once, and goes into the URL as values.
"""

from __future__ import annotations

import contextlib
import sys
import webbrowser
from urllib.parse import urlencode

from ..agents.match import seat_specs
from ..agents.protocol import Limits
from .server import WebServer

TIME_LIMIT_MS = 30_000
"""A bot's move may take this long (its search budget 80% of it), as ``slagwerk serve``'s default."""


def match_url(base: str, game, seat: int, specs: list[str], seed: int) -> str:
    """The page's URL that starts this match (docs/web.md)."""
    query = [("game", game.name), ("seat", seat), *(("agent", spec) for spec in specs), ("seed", seed)]
    query += [(f"opt.{key}", value) for key, value in game.options.items()]
    return f"{base}/?{urlencode(query)}"


def play_in_browser(game, seat: int, specs: list[str] | None, seed: int, port: int = 0) -> int:
    """Serve the page on loopback, open the match in the browser, serve until Ctrl-C."""
    others = [spec for spec in seat_specs(game, seat, specs) if spec is not None]
    print("starting the bot worker...", file=sys.stderr, flush=True)
    limits = Limits(max_time_ms=TIME_LIMIT_MS * 4 // 5)
    server = WebServer("127.0.0.1", port, limits=limits, time_limit_ms=TIME_LIMIT_MS, workers=1,
                       warm_games=[game.name])
    url = match_url(f"http://127.0.0.1:{server.port}", game, seat, others, seed)
    print(f"your match is at {url}\n(opening it in the browser; Ctrl-C stops the server)",
          file=sys.stderr, flush=True)
    with contextlib.suppress(webbrowser.Error):  # no browser here: the address above is enough
        webbrowser.open(url)
    return server.serve_until_interrupted()
