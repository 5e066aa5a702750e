"""Settings read back from a results folder's ``config.json``, checked key by key.

A folder may come from anywhere and a person may edit its ``config.json``, so
a run's settings are checked for their kind before anything is built from
them: an unknown key, a missing one or a value of the wrong kind is one line
naming the file, the key and the value (``…/config.json: 'deals' must be an
integer from 1 to 100000, not 'abc'``), never a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...engine.seeds import SEED_RANGE, is_seed
from ...errors import brief
from .runner import ExperimentError


@dataclass(frozen=True)
class Setting:
    """One key of a stored run's settings: what its value must be."""

    accepts: Callable[[object], bool]
    kind: str
    """What it must be, as an error says it (``an integer from 1 to 100``)."""
    required: bool = False


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def integer(low: int, high: int, *, required: bool = False, none: bool = False) -> Setting:
    """An integer from ``low`` to ``high`` (or ``null`` if ``none``)."""
    return Setting(lambda v: (none and v is None) or (_integer(v) and low <= v <= high),
                   f"an integer from {low} to {high}" + (" or null" if none else ""), required)


def number(*, positive: bool = False, low: float | None = None, high: float | None = None,
           none: bool = False, required: bool = False) -> Setting:
    """A finite number (positive, or within ``low`` and ``high``; or ``null`` if ``none``)."""
    def accepts(v):
        if none and v is None:
            return True
        return _number(v) and (not positive or v > 0) and (low is None or v >= low) \
            and (high is None or v <= high)
    bounds = " above 0" if positive else f" from {low} to {high}" if low is not None else ""
    return Setting(accepts, f"a number{bounds}" + (" or null" if none else ""), required)


def text(*, required: bool = False, choices: tuple[str, ...] = (), none: bool = False) -> Setting:
    """A non-empty string (one of ``choices`` if given; or ``null`` if ``none``)."""
    def accepts(v):
        if none and v is None:
            return True
        return isinstance(v, str) and v.strip() != "" and (not choices or v in choices)
    kind = f"one of {', '.join(choices)}" if choices else "a non-empty string"
    return Setting(accepts, kind + (" or null" if none else ""), required)


def texts(*, required: bool = False, at_least: int = 0) -> Setting:
    """A list of non-empty strings (at least ``at_least``)."""
    return Setting(lambda v: isinstance(v, list) and len(v) >= at_least
                   and all(isinstance(s, str) and s.strip() for s in v),
                   "a list of non-empty strings" + (f" (at least {at_least})" if at_least else ""), required)


def numbers(*, required: bool = False) -> Setting:
    """A non-empty list of finite numbers above 0."""
    each = number(positive=True)
    return Setting(lambda v: isinstance(v, list) and len(v) > 0 and all(each.accepts(x) for x in v),
                   "a list of numbers above 0", required)


def flag(*, required: bool = False) -> Setting:
    return Setting(lambda v: isinstance(v, bool), "true or false", required)


def seed(*, required: bool = False) -> Setting:
    return Setting(is_seed, SEED_RANGE, required)


def mapping(*, values: str = "any") -> Setting:
    """A JSON object with string keys (``values="text"``: and string values)."""
    return Setting(lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v)
                   and (values != "text" or all(isinstance(x, str) for x in v.values())),
                   "an object" + (" of strings" if values == "text" else ""))


def anything() -> Setting:
    """A value checked elsewhere (by the kind of run that reads it)."""
    return Setting(lambda v: True, "any value")


def check_stored(data, settings: dict[str, Setting], where: str) -> dict:
    """``data`` (a stored run's settings) if every key is one of ``settings`` and holds
    a value of its kind and every required key is there; else :class:`ExperimentError`
    naming ``where`` (the file), the key and the value."""
    if not isinstance(data, dict):
        raise ExperimentError(f"{where}: a run's settings are a JSON object, not {brief(data)}")
    unknown = sorted(set(data) - set(settings))
    if unknown:
        raise ExperimentError(f"{where}: unknown setting {unknown[0]!r} (settings: {', '.join(settings)})")
    for key, setting in settings.items():
        stored_value(data, key, setting, where)
    return data


def stored_value(data: dict, key: str, setting: Setting, where: str):
    """``data[key]`` (``None`` if left out and not required) if it is of its kind;
    else :class:`ExperimentError` naming ``where``, the key and the value."""
    if key not in data:
        if setting.required:
            raise ExperimentError(f"{where}: the setting {key!r} is missing")
        return None
    if not setting.accepts(data[key]):
        raise ExperimentError(f"{where}: {key!r} must be {setting.kind}, not {brief(data[key])}")
    return data[key]
