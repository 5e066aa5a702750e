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
    """A record (RULES.md §5) is malformed or contradicts the rules."""


class InvalidViewError(SlagwerkError):
    """A seat's view is malformed, impossible or inconsistent with the rules."""


class OptionError(SlagwerkError):
    """A game option is unknown or out of range."""


class SpecError(SlagwerkError):
    """An agent specification names an unknown agent, parameter or bad value."""
