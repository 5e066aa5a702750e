"""One description per setting: a pydantic model per group of settings, and what comes from it.

A group of settings (a tournament's, an SPRT's, a server's limits...) is one
:class:`Settings` model. Each field says once what the setting is: its type,
its range (``ge``/``gt``/``le``/``lt``, ``Literal`` choices), its default and
its help text (:func:`setting`). From the model come

- the command line's flags (:meth:`Settings.add_flags`): ``--deals`` for the field
  ``deals``, its help with the default, its value checked by the parser;
- the settings of a new run, from the flags given and the values the command
  works out itself (:meth:`Settings.from_flags`);
- the stored form, ``config.json``: the model's dump (:meth:`Settings.dump`);
  reading a stored run is loading it (:meth:`Settings.load`);
- ``--resume``: the stored settings, with every flag given again checked
  against them (:meth:`Settings.refuse_changes`).

Every error is one line that names the setting (its flag, or the file and its
key), the value and the rule (``--deals: must be an integer from 1 to
100000, not '0'``; ``…/config.json: 'deals' must be an integer from 1 to
100000, not 0``). pydantic checks; :func:`rule` says in words what it checks.
A new setting is one line in its model (docs/design.md, "Adding a setting").
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import json
import math
import operator
import types
import typing
from typing import Any, ClassVar, Literal

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo

from .errors import OptionError, SlagwerkError, brief

__all__ = ["Settings", "SettingsError", "redefault", "refuse_conflict", "rule", "setting"]


class SettingsError(SlagwerkError):
    """Settings that break their model's rules: one line naming the setting, the value and the rule
    (for a stored run's ``config.json``, the file too)."""

    def __init__(self, message: str, name: str | None = None, value: Any = None, field=None):
        super().__init__(message)
        self.name, self.value, self.field = name, value, field


def setting(default: Any = ..., help: str = "", *, flag: bool = True, metavar: str | None = None,
            zero_is_none: bool = False, unit: str = "", rule: str | None = None,
            default_text: str | None = None, given_as: str | None = None, positional: bool = False,
            flag_name: str | None = None, repeat: bool = False, **constraints) -> Any:
    """A field of a :class:`Settings` model: ``default`` (``...``: required), its ``help`` text
    and ``constraints`` (pydantic's ``ge``, ``gt``, ``le``, ``lt``, ``min_length``...).

    ``flag``: whether the command line has ``--name`` for it; ``metavar`` names the flag's value;
    ``zero_is_none``: 0 on the command line means none (``--move-time 0``: no limit); ``unit``
    follows the bounds in the rule (``" seconds"``); ``rule`` replaces the rule :func:`rule`
    words from the type; ``default_text`` replaces the default shown in the help; ``given_as``
    names, in errors, the flags a command builds the setting from itself (``flag=False``);
    ``positional``: the command line gives it as an argument, not a flag; ``flag_name`` replaces
    ``--name`` (``--param`` for ``params``; a true-by-default switch is ``--no-name``);
    ``repeat``: a list given as a repeated flag (``--param A --param B``), not ``--name A B``."""
    extra = {"flag": flag, "metavar": metavar, "zero_is_none": zero_is_none, "unit": unit,
             "rule": rule, "default_text": default_text, "given_as": given_as, "positional": positional,
             "flag_name": flag_name, "repeat": repeat}
    if "allow_inf_nan" not in constraints and _numeric_bounds(constraints):
        constraints["allow_inf_nan"] = False
    return Field(default, description=help, json_schema_extra={"slagwerk": extra}, **constraints)


def redefault(model: type[Settings], name: str, default: Any) -> Any:
    """The field ``name`` of ``model`` with another default, for a model that shares the setting
    but not its default (a tuning run's confirmation SPRT asks for 20 Elo, not 50)."""
    field = copy.copy(model.model_fields[name])
    field.default = default
    field._attributes_set = {**field._attributes_set, "default": default}
    return field


def _numeric_bounds(constraints: dict) -> bool:
    return any(key in constraints for key in ("ge", "gt", "le", "lt"))


def _extra(field: FieldInfo) -> dict:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    return extra.get("slagwerk", {"flag": False})


# -- the rule of a field, in words ---------------------------------------------------------


def _bounds(field: FieldInfo) -> dict[str, float]:
    found = {}
    for item in field.metadata:
        for key in ("ge", "gt", "le", "lt", "min_length", "max_length"):
            value = getattr(item, key, None)
            if value is not None and isinstance(item, annotated_types.BaseMetadata):
                found[key] = value
    return found


def _number(value: float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _optional(annotation) -> tuple[Any, bool]:
    """The annotation without ``None``, and whether ``None`` was allowed."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) < len(typing.get_args(annotation)):
            return (args[0] if len(args) == 1 else functools.reduce(operator.or_, args)), True
    return annotation, False


def _scalar_rule(kind, bounds: dict, unit: str) -> str:
    if kind is bool:
        return "true or false"
    if typing.get_origin(kind) is Literal:
        return "one of " + ", ".join(str(choice) for choice in typing.get_args(kind))
    if kind in (int, float):
        noun = "an integer" if kind is int else "a number"
        low = bounds.get("ge", bounds.get("gt"))
        high = bounds.get("le", bounds.get("lt"))
        if "ge" in bounds and "le" in bounds:
            return f"{noun} from {_number(bounds['ge'])} to {_number(bounds['le'])}{unit}"
        parts = []
        if low is not None:
            parts.append(f"{'above' if 'gt' in bounds else 'at least'} {_number(low)}")
        if high is not None:
            parts.append(f"{'below' if 'lt' in bounds else 'at most'} {_number(high)}{unit}")
        return noun + (" " + " and ".join(parts) if parts else "")
    if kind is str:
        return "a non-empty string" if bounds.get("min_length") else "a string"
    return f"a {getattr(kind, '__name__', kind)}"


def rule(field: FieldInfo, *, command_line: bool = False) -> str:
    """What a value of ``field`` must be, in words (``an integer from 1 to 100000``): stored
    (``or null`` where ``None`` is allowed) or, with ``command_line``, as a flag's value."""
    extra = _extra(field)
    if extra.get("rule"):
        return extra["rule"]
    kind, none = _optional(field.annotation)
    bounds = _bounds(field)
    unit = extra.get("unit", "") if command_line else ""
    origin = typing.get_origin(kind)
    if origin in (tuple, list):
        element, _ = _optional(typing.get_args(kind)[0])
        non_empty = False
        if typing.get_origin(element) is typing.Annotated:
            element, *marks = typing.get_args(element)
            non_empty = any(getattr(item, "min_length", 0) for mark in marks
                            for item in getattr(mark, "metadata", [mark]))
        noun = {str: "non-empty strings" if non_empty else "strings", int: "integers",
                float: "numbers"}.get(element, "values")
        at_least = bounds.get("min_length")
        text = f"a list of {noun}" + (f" (at least {at_least})" if at_least else "")
    elif origin is dict:
        values = typing.get_args(kind)[1] if typing.get_args(kind) else Any
        text = "an object" + {str: " of strings", int: " of integers"}.get(values, "")
    elif command_line and extra.get("zero_is_none"):
        text = f"a number from 0 to {_number(bounds['le'])}{unit}" if "le" in bounds else "0 or more"
    else:
        text = _scalar_rule(kind, bounds, unit)
    if none and not command_line:
        text += " or null"
    return text


# -- the models ----------------------------------------------------------------------------


class Settings(BaseModel):
    """A group of settings: one field per setting (:func:`setting`), checked when made."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=False)

    KIND: ClassVar[str] = "run"
    """What a stored one is called in errors (``not a tournament's settings``)."""
    STORED_EXTRA: ClassVar[tuple[str, ...]] = ()
    """Keys a stored file may hold beside the fields, read by someone else (left out here)."""
    POSITIONAL: ClassVar[tuple[str, ...]] = ()
    """Fields a Python caller may give by position, in order (``TournamentConfig("coins", agents)``)."""
    STORED_REQUIRED: ClassVar[tuple[str, ...]] = ()
    """Fields a stored file must hold even where they have a default (what sizes the run: a file
    without them was not written by slagwerk)."""

    def __init__(self, /, *args, **values):
        """The settings ``values`` (the defaults for the rest); ``args`` fill :attr:`POSITIONAL`.

        :raises SettingsError: naming the setting, its value and the rule.
        """
        if len(args) > len(self.POSITIONAL):
            raise TypeError(f"{type(self).__name__} takes {len(self.POSITIONAL)} settings by position")
        values.update(zip(self.POSITIONAL, args))
        try:
            super().__init__(**values)
        except ValidationError as err:
            cause = _own_rule(err)
            if cause is not None:  # a rule between settings (a model validator): already one line
                raise cause from None
            name, value, field = _first_error(type(self), err, values)
            if name not in values and field.is_required():
                raise SettingsError(f"the setting {name!r} is missing", name) from None
            raise SettingsError(f"{name!r} must be {rule(field)}, not {brief(value)}", name, value,
                                field) from None

    # -- the command line --

    @classmethod
    def flag_fields(cls) -> dict[str, FieldInfo]:
        return {name: field for name, field in cls.model_fields.items() if _extra(field).get("flag")}

    @classmethod
    def flag_of(cls, name: str) -> str:
        """How the command line gives the setting ``name`` (``--move-time``, or ``A`` for an argument)."""
        extra = _extra(cls.model_fields[name]) if name in cls.model_fields else {}
        if extra.get("positional"):
            return extra.get("metavar") or name.upper()
        if extra.get("flag_name") or extra.get("given_as"):
            return extra.get("flag_name") or extra.get("given_as")
        field = cls.model_fields.get(name)
        if field is not None and field.default is True:
            return "--no-" + name.replace("_", "-")
        return "--" + name.replace("_", "-")

    @classmethod
    def add_flags(cls, parser: argparse.ArgumentParser, *, exclude: tuple[str, ...] = ()) -> None:
        """``--name`` for each field with a flag but ``exclude``; every flag's value is ``None``
        when it is not given (so that ``--resume`` can tell), and the model applies the default."""
        for name, field in cls.flag_fields().items():
            if name in exclude:
                continue
            extra = _extra(field)
            kind, _ = _optional(field.annotation)
            default = field.default
            shown = extra.get("default_text") or _shown_default(default, extra)
            text = field.description or ""
            kwargs: dict[str, Any] = {"dest": name, "default": None}
            if extra.get("positional"):  # optional to the parser: a --resume names none
                parser.add_argument(name, metavar=extra.get("metavar") or name.upper(), help=text,
                                    type=_flag_type(cls, name), nargs="?")
                continue
            if kind is bool:
                kwargs.update(action="store_const", const=not default)
            else:
                if typing.get_origin(kind) is Literal:
                    kwargs["choices"] = typing.get_args(kind)
                else:
                    kwargs["type"] = _flag_type(cls, name)
                if typing.get_origin(kind) in (tuple, list) and extra.get("repeat"):
                    kwargs["action"] = "append"
                elif typing.get_origin(kind) in (tuple, list):
                    kwargs["nargs"] = "+" if _bounds(field).get("min_length") else "*"
                if extra.get("metavar"):
                    kwargs["metavar"] = extra["metavar"]
                bounds = _bounds(field)
                if shown is not None and kind in (int, float) and _numeric_bounds(bounds):
                    text = f"{text} (default {shown}; {rule(field, command_line=True)})"
                elif shown is not None:
                    text = f"{text} (default {shown})"
            parser.add_argument(cls.flag_of(name), help=text, **kwargs)

    @classmethod
    def given(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The flags given on the command line, as field values (``--move-time 0``: ``None``)."""
        found = {}
        for name, field in cls.flag_fields().items():
            value = getattr(args, name, None)
            if value is None:
                continue
            if _extra(field).get("zero_is_none") and value == 0:
                value = None
            found[name] = value
        return found

    @classmethod
    def value_given(cls, args: argparse.Namespace, name: str):
        """The setting ``name`` as the flags give it, else its default."""
        return cls.given(args).get(name, cls.model_fields[name].default)

    @classmethod
    def from_flags(cls, args: argparse.Namespace, **values):
        """The settings of a new run: the flags given, then ``values`` (what the command worked
        out: the game, the agents read from their files...), the defaults for the rest.

        :raises OptionError: naming the flag (or the setting), the value and the rule.
        """
        data = {**cls.given(args), **values}
        try:
            return cls(**data)
        except SettingsError as err:
            if err.name is None or err.field is None:
                raise OptionError(str(err)) from None
            field = cls.model_fields[err.name]
            where = cls.flag_of(err.name) if err.name in cls.flag_fields() or _extra(field).get("given_as") \
                else repr(err.name)
            missing = err.value is None and field.is_required()  # an argument the parser let go
            raise OptionError(f"{where} is missing: give {rule(err.field, command_line=True)}" if missing else
                              f"{where} must be {rule(err.field, command_line=True)}, not "
                              f"{_shown(err.value)}") from None

    # -- the stored form --

    def dump(self) -> dict[str, Any]:
        """The stored form (``config.json``): every field, JSON values."""
        return self.model_dump(mode="json")

    @classmethod
    def load(cls, data: Any, where: str):
        """The settings stored in ``data`` (read from ``where``, named in errors), checked
        strictly: a JSON value of the field's own kind, never a string for a number.

        :raises SettingsError: one line naming ``where``, the key and the value.
        """
        if not isinstance(data, dict):
            raise SettingsError(f"{where}: not a {cls.KIND}'s settings (a JSON object), "
                                    f"but {brief(data)}")
        fields = {key: value for key, value in data.items() if key not in cls.STORED_EXTRA}
        unknown = [key for key in fields if key not in cls.model_fields]
        if unknown:
            raise SettingsError(f"{where}: unknown setting {unknown[0]!r} (settings: "
                                    f"{', '.join(cls.model_fields)})")
        missing = [name for name in cls.STORED_REQUIRED if name not in fields]
        if missing:
            raise SettingsError(f"{where}: the setting {missing[0]!r} is missing", missing[0])
        try:
            checked = _stored_twin(cls).model_validate_json(json.dumps(fields, allow_nan=True), strict=True)
        except ValidationError as err:
            name, value, field = _first_error(cls, err, fields)
            if name not in fields:
                raise SettingsError(f"{where}: the setting {name!r} is missing") from None
            raise SettingsError(f"{where}: {name!r} must be {rule(field)}, not {brief(value)}") from None
        try:  # the model's own rules between settings
            return cls(**{name: getattr(checked, name) for name in checked.model_fields_set})
        except SettingsError as err:
            raise SettingsError(f"{where}: {err}") from None

    # -- resuming --

    def refuse_changes(self, args: argparse.Namespace, where, **values) -> None:
        """With ``--resume``, each setting given again (a flag, or one of ``values``: what the
        command worked out from its flags) must agree with the stored one.

        :raises OptionError: naming the flag, both values and what to do.
        """
        given = {**type(self).given(args), **values}
        for name, value in given.items():
            field = type(self).model_fields[name]
            with contextlib.suppress(ValidationError):  # not a value it could hold: it differs
                value = TypeAdapter(field.annotation).validate_python(value)
            stored = getattr(self, name)
            if _comparable(value) == _comparable(stored):
                continue
            switch = _optional(field.annotation)[0] is bool  # its flag sets the other value
            refuse_conflict(type(self).flag_of(name), stored, value, where,
                            started_with=stored != field.default if switch else None)


@functools.cache
def _stored_twin(model: type[Settings]) -> type[BaseModel]:
    """The model's fields without its own ``__init__`` (which pydantic would call with the stored
    values, checking them leniently): what a stored file is checked with, strictly."""
    fields = {name: (field.annotation, field) for name, field in model.model_fields.items()}
    return create_model(f"Stored{model.__name__}", __config__=ConfigDict(extra="forbid"), **fields)


def _comparable(value):
    if isinstance(value, (list, tuple)):
        return [_comparable(v) for v in value]
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    return value


def refuse_conflict(flag: str, stored, given, folder, *, started_with: bool | None = None) -> None:
    """With ``--resume``, a setting given again must agree with the one stored in ``folder``.
    For an on/off flag, ``started_with`` says whether the run was started with it (default: a
    flag given as ``True`` means it was not).

    :raises OptionError: naming the flag, the folder's value and the given value.
    """
    if given == stored:
        return
    if isinstance(given, bool) and started_with is None:
        started_with = not given
    if started_with is not None:  # an on/off flag: say which way the run was started
        what = f"{flag} conflicts with the run in {str(folder)!r}, started " + \
            ("with it" if started_with else "without it")
    else:
        what = f"{flag} {_shown(given)} conflicts with {_shown(stored)} stored in {str(folder)!r}"
    raise OptionError(f"{what}: --resume continues a run with its own settings (drop {flag}, or start a "
                      f"new run)")


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in sorted(value.items())) or "(none)"
    return "none" if value is None else str(value)


def _shown_default(default, extra: dict) -> str | None:
    if default is ... or default is None and not extra.get("zero_is_none"):
        return None
    if default is None:
        return "none"
    if isinstance(default, bool):
        return None
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, (list, tuple)):
        return " ".join(map(str, default))
    return str(default)


def _own_rule(err: ValidationError) -> SettingsError | None:
    """The :class:`SettingsError` a model's own validator raised, if that is the first error."""
    cause = err.errors(include_url=False)[0].get("ctx", {}).get("error")
    return cause if isinstance(cause, SettingsError) and cause.name is None else None


def _first_error(model: type[Settings], err: ValidationError, data: dict) -> tuple[str, Any, FieldInfo]:
    """The field of the first error, its value as given, and its description."""
    first = err.errors(include_url=False)[0]
    name = str(first["loc"][0]) if first["loc"] else next(iter(model.model_fields))
    return name, data.get(name), model.model_fields[name]


def _flag_type(model: type[Settings], name: str):
    """The parser's conversion of one flag's value: parsed, then checked by pydantic."""
    field = model.model_fields[name]
    kind, _ = _optional(field.annotation)
    sequence = typing.get_origin(kind) in (tuple, list)
    element = typing.get_args(kind)[0] if sequence else kind
    element, _ = _optional(element)
    # A sequence's own constraints (its length) are not its elements'; an element's are in its type.
    constraints = [] if sequence else list(field.metadata)
    if typing.get_origin(element) is typing.Annotated:
        constraints += list(element.__metadata__)
        element = typing.get_args(element)[0]
    zero_is_none = _extra(field).get("zero_is_none")
    checker = TypeAdapter(typing.Annotated[(element, *constraints)]) \
        if element in (int, float) and constraints and not zero_is_none else None

    def convert(text: str):
        if not text.strip():
            raise argparse.ArgumentTypeError("needs a value, not an empty text")
        if element is int:
            try:
                value = int(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        elif element is float:
            try:
                value = float(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        else:
            return text
        bad = not math.isfinite(value)
        if zero_is_none:
            bounds = _bounds(field)
            bad = bad or value < 0 or ("le" in bounds and value > bounds["le"])
        elif checker is not None and not bad:
            try:
                checker.validate_python(value)
            except ValidationError:
                bad = True
        if bad:
            raise argparse.ArgumentTypeError(f"must be {rule(field, command_line=True)}, not {text}")
        return value

    return convert
