"""Strict JSON for input from outside (records, bot requests): one meaning or an error.

Stricter than :func:`json.loads`: ``NaN`` and ``Infinity``, a number too
large for a float (``1e400``, which the standard parser reads as infinity)
and an object that repeats a field are errors, and so are the inputs that
make the standard parser raise something other than a ``JSONDecodeError``
(nesting thousands deep, an integer with thousands of digits). Every error is one
:class:`StrictJSONError` with a one-line message.

>>> loads('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
slagwerk.engine.strict_json.StrictJSONError: field 'a' appears twice in one object
>>> loads('[1e400]')
Traceback (most recent call last):
...
slagwerk.engine.strict_json.StrictJSONError: the number 1e400 is too large for a float
"""

from __future__ import annotations

import json
import math

from ..errors import brief


class StrictJSONError(ValueError):
    """Text that is not strict JSON (a one-line message)."""


def _reject_constant(name):
    raise StrictJSONError(f"{name} is not a JSON number")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise StrictJSONError(f"the number {shown} is too large for a float")
    return value


def _unique_fields(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise StrictJSONError(f"field {brief(key)} appears twice in one object")
        obj[key] = value
    return obj


def loads(text: str):
    """The JSON value of ``text``; :class:`StrictJSONError` saying why it is refused."""
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          object_pairs_hook=_unique_fields)
    except StrictJSONError:
        raise
    except json.JSONDecodeError as err:
        raise StrictJSONError(f"not JSON: {err.msg} (line {err.lineno}, column {err.colno})") from None
    except RecursionError:
        raise StrictJSONError("its JSON is nested too deeply") from None
    except ValueError as err:  # an integer with more digits than Python converts
        reason = "a number has too many digits" if "digits" in str(err) else brief(str(err), 200)
        raise StrictJSONError(reason) from None
