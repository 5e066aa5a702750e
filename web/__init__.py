"""The web page of ``slagwerk serve``: play the bots in a browser, watch recorded matches.

The page (``static/``: plain HTML, CSS and JavaScript, no build step, no
network access beyond this server) talks to a small JSON API beside the bot
API (docs/web.md). The server holds every match, with the engine as referee,
and sends the page only the human seat's view (:mod:`.matches`); recorded
matches are replayed by the engine with every hand face up (:mod:`.watch`).
:mod:`.server` routes the page's requests through the bot server's limits.
"""
