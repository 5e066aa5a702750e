"""Errors raised at slagwerk's Python boundary.

All are narrow subclasses of :class:`ValueError` whose messages show the
offending input (``!r``) and where it happened, so a command-line tool can
print them without a traceback.
"""


class SlagwerkError(ValueError):
    """Base class of slagwerk's input errors."""


class CardError(SlagwerkError):
    """A card text is not a card of the deck, or a card list is malformed."""


class IllegalActionError(SlagwerkError):
    """An action is not legal (or not even an action) in the given state."""


class InvalidRecordError(SlagwerkError):
    """A record (docs/records.md) is malformed or contradicts the rules."""


class InvalidViewError(SlagwerkError):
    """A seat's view is malformed, impossible or inconsistent with the rules."""


class OptionError(SlagwerkError):
    """A game option is unknown or out of range."""


class SpecError(SlagwerkError):
    """An agent specification names an unknown agent, parameter or bad value."""


class AgentUnavailable(SlagwerkError):
    """An agent can no longer play at all (a bot that cannot be reached or started):
    a run stops, keeping its finished games, instead of forfeiting every game left.
    ``hint`` (if set) is a second line telling how to continue."""

    hint: str | None = None


class OutputError(SlagwerkError):
    """An output file cannot be written where asked (missing folder, a directory,
    a symlink, an existing file without ``--force``, no permission)."""


MAX_REPR = 60
"""Characters of an offending input value shown in a message (:func:`brief`)."""


def brief(value, limit: int = MAX_REPR) -> str:
    """``repr`` of an input value for a one-line message, with JSON's ``null``,
    ``true`` and ``false`` (the values come from JSON): cut to ``limit``
    characters, and never failing (a value nested thousands deep, an integer
    too long to print).

    >>> brief("Ao"), brief(list(range(100)), 20), brief({"seat": None, "ok": True})
    ("'Ao'", '[0, 1, 2, 3, 4, 5...', "{'seat': null, 'ok': true}")
    """
    parts: list[str] = []
    try:
        _shown(value, parts, [limit + 1])
    except (RecursionError, ValueError):
        parts = [f"<{type(value).__name__} too large to show>"]
    text = one_line("".join(parts))
    return text if len(text) <= limit else text[: limit - 3] + "..."


_JSON_WORDS = {None: "null", True: "true", False: "false"}


def _shown(value, parts: list[str], room: list[int]) -> None:
    """Append ``value``'s text to ``parts`` until ``room[0]`` characters are used."""
    if room[0] <= 0:
        return
    if value is None or isinstance(value, bool):
        text = _JSON_WORDS[value]
    elif isinstance(value, (list, tuple, dict)):
        opening, closing = "{}" if isinstance(value, dict) else "[]"
        parts.append(opening)
        room[0] -= 1
        for i, item in enumerate(value.items() if isinstance(value, dict) else value):
            if room[0] <= 0:
                return
            if i:
                parts.append(", ")
                room[0] -= 2
            if isinstance(value, dict):
                _shown(item[0], parts, room)
                parts.append(": ")
                room[0] -= 2
                item = item[1]
            _shown(item, parts, room)
        text = closing
    else:
        text = repr(value)
    parts.append(text)
    room[0] -= len(text)


def one_line(message: str, limit: int = 2000) -> str:
    """``message`` on one line (line breaks become spaces), at most ``limit`` characters."""
    text = " ".join(str(message).splitlines())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def path_text(path) -> str:
    """A file name for a one-line message (quoted if it holds a line break or
    another unprintable character)."""
    import os

    text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)
    return text if text.isprintable() else repr(text)
