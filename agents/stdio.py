"""The bot protocol over standard input and output: one JSON request per line.

``slagwerk bot`` runs :func:`serve_lines` on its standard streams, in the
spirit of UCI and GTP: every non-blank input line is one request (see
:mod:`slagwerk.agents.protocol`) and gets exactly one answer line, in order.
A line longer than the limit is answered with an error and skipped without
being held in memory; a ``quit`` request or the end of the input stops the
loop.

>>> import io
>>> out = io.StringIO()
>>> serve_lines(io.BytesIO(b'{"id": 1, "type": "quit"}\\n'), out)
0
>>> out.getvalue()
'{"id": 1, "ok": true}\\n'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO, TextIO

from .protocol import (
    DEFAULT_LIMITS,
    NO_DEFAULTS,
    Defaults,
    Limits,
    ProtocolError,
    encode,
    error_answer,
    handle,
    parse_request,
)

_DISCARD_CHUNK = 1 << 16


def serve_lines(instream: BinaryIO, outstream: TextIO, limits: Limits = DEFAULT_LIMITS,
                defaults: Defaults = NO_DEFAULTS,
                handler: Callable[[object], dict] | None = None) -> int:
    """Answer requests from ``instream`` (bytes, one per line) on ``outstream`` until
    ``quit`` or the end of input; returns the exit status (0).

    ``handler`` answers a parsed request (default: :func:`~.protocol.handle`
    in this process; ``slagwerk bot --time-limit-ms`` passes one that sends
    ``act`` requests to a worker process).
    """
    if handler is None:
        def handler(request):
            return handle(request, limits, defaults)

    while True:
        line = instream.readline(limits.max_request_bytes + 1)
        if not line:
            return 0
        if not line.endswith(b"\n") and len(line) > limits.max_request_bytes:
            _discard_rest_of_line(instream)
            _send(outstream, error_answer(
                None, f"the request line is longer than {limits.max_request_bytes} bytes"
            ))
            continue
        if not line.strip():
            continue
        try:
            request = parse_request(line)
        except ProtocolError as err:
            _send(outstream, error_answer(None, str(err)))
            continue
        answer = handler(request)
        _send(outstream, answer)
        if isinstance(request, dict) and request.get("type") == "quit" and "error" not in answer:
            return 0


def _discard_rest_of_line(instream: BinaryIO) -> None:
    while True:
        chunk = instream.readline(_DISCARD_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def _send(outstream: TextIO, answer: dict) -> None:
    outstream.write(encode(answer) + "\n")
    outstream.flush()
