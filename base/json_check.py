"""A fast check of a JSON value against one of slagwerk's published JSON Schemas.

The schemas come from models (``slagwerk.agents.messages``, made with pydantic)
and ship as JSON files. A bot checks every request against them, but cannot
afford to import pydantic or jsonschema on the way to its first answer (each
costs about 0.1 s of a warm bot's 0.36 s), so this module checks the part of
JSON Schema those schemas use, in one pass, with one-line messages that name
the field, the rule and the value:

>>> schema = {"type": "object", "additionalProperties": False, "required": ["seed"],
...           "properties": {"seed": {"type": "integer", "minimum": 0, "maximum": 9}}}
>>> check({"seed": 3}, schema)
>>> check({"seed": -1}, schema)
Traceback (most recent call last):
...
slagwerk.json_check.SchemaMismatch: 'seed' must be an integer from 0 to 9, not -1

It is stricter than JSON Schema in one way: an integer is never a float
(``5.0`` is not an integer). tests/test_json_check.py checks that it accepts
and rejects what the ``jsonschema`` library does, otherwise.
"""

from __future__ import annotations

import re

from .errors import SlagwerkError, brief

KEYWORDS = frozenset({
    "$ref", "$defs", "type", "const", "enum", "anyOf", "properties", "required", "additionalProperties",
    "items", "minItems", "maxItems", "minProperties", "propertyNames", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
    # annotations, which check nothing:
    "title", "description", "default", "examples",
})
"""The keywords this module understands; a schema with any other is refused when loaded
(:func:`unsupported`), so that no rule is silently skipped."""

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaMismatch(SlagwerkError):
    """A value breaks its schema. ``field`` is the name of the offending field
    (``None`` for the value itself), and the message is one line."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def check(value, schema: dict, what: str = "the value", root: dict | None = None,
          error: type[Exception] | None = None) -> None:
    """:class:`SchemaMismatch` (or ``error``, with the same one-line message) if ``value``
    breaks ``schema`` (``$ref`` resolves in ``root``, by default ``schema`` itself);
    ``what`` names the value in messages about its own fields (``unknown field 'x' in WHAT``)."""
    try:
        _check(value, schema, root if root is not None else schema, (), what)
    except SchemaMismatch as err:
        if error is None:
            raise
        raise error(str(err)) from None


def unsupported(schema) -> list[str]:
    """The keywords of ``schema`` (at any depth) that :func:`check` does not understand."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, sub in schema.items():
            if key not in KEYWORDS and not key.startswith("x-"):
                found.append(key)
            if key in ("properties", "$defs"):
                for part in sub.values():
                    found += unsupported(part)
            elif key in ("items", "additionalProperties", "propertyNames"):
                found += unsupported(sub)
            elif key == "anyOf":
                for part in sub:
                    found += unsupported(part)
    return found


def _resolve(schema: dict, root: dict) -> dict:
    while "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"only local references #/$defs/NAME are supported, not {ref!r}")
        schema = root["$defs"][ref[len("#/$defs/"):]]
    return schema


def _name(path: tuple) -> str:
    return repr(".".join(map(str, path)))


def _fail(path: tuple, schema: dict, root: dict, value, what: str):
    subject = _name(path) if path else what
    raise SchemaMismatch(f"{subject} must be {rule(schema, root)}, not {brief(value)}",
                         ".".join(map(str, path)) or None)


def _check(value, schema: dict, root: dict, path: tuple, what: str) -> None:
    schema = _resolve(schema, root)
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            try:
                _check(value, option, root, path, what)
                return
            except SchemaMismatch as err:
                # A value of the right type whose content is wrong: that option's own message.
                if _type_fits(value, _resolve(option, root)) and _is_structured(value):
                    raise err
        _fail(path, schema, root, value, what)
    kind = schema.get("type")
    if kind is not None and not any(_TYPES[k](value) for k in ([kind] if isinstance(kind, str) else kind)):
        _fail(path, schema, root, value, what)
    if "const" in schema and not _same(value, schema["const"]):
        _fail(path, schema, root, value, what)
    if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
        _fail(path, schema, root, value, what)
    if _TYPES["number"](value) and not _in_range(value, schema):
        _fail(path, schema, root, value, what)
    if isinstance(value, str) and (
            not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value))
            or ("pattern" in schema and not re.search(schema["pattern"], value))):
        _fail(path, schema, root, value, what)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            _fail(path, schema, root, value, what)
        if "items" in schema:
            for index, item in enumerate(value):
                _check(item, schema["items"], root, (*path, index), what)
    if isinstance(value, dict):
        _check_object(value, schema, root, path, what)


def _in_range(value, schema: dict) -> bool:
    return not (("minimum" in schema and value < schema["minimum"])
                or ("maximum" in schema and value > schema["maximum"])
                or ("exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"])
                or ("exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]))


def _check_object(value: dict, schema: dict, root: dict, path: tuple, what: str) -> None:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    inside = f"{_name(path)}" if path else what
    if extra is False:
        unknown = sorted(str(key) for key in value if key not in properties)
        if unknown:
            raise SchemaMismatch(f"unknown field {brief(unknown[0])} in {inside} "
                                 f"(fields: {', '.join(properties)})", unknown[0])
    missing = [key for key in schema.get("required", ()) if key not in value]
    if missing:
        raise SchemaMismatch(f"{inside} needs the field {missing[0]!r}", missing[0])
    if len(value) < schema.get("minProperties", 0):
        _fail(path, schema, root, value, what)
    names = schema.get("propertyNames")
    for key, item in value.items():
        if names is not None:
            _check(key, names, root, (*path, key), what)
        if key in properties:
            _check(item, properties[key], root, (*path, key), what)
        elif isinstance(extra, dict):
            _check(item, extra, root, (*path, key), what)


def _type_fits(value, schema: dict) -> bool:
    kind = schema.get("type")
    if kind is None:
        return "const" not in schema and "enum" not in schema
    return any(_TYPES[k](value) for k in ([kind] if isinstance(kind, str) else kind))


def _is_structured(value) -> bool:
    return isinstance(value, (dict, list))


def _same(value, expected) -> bool:
    return value == expected and type(value) is type(expected) or (
        _TYPES["number"](value) and _TYPES["number"](expected) and value == expected)


_WORDS = {"object": "an object", "array": "an array", "string": "a string", "boolean": "true or false",
          "null": "null", "integer": "an integer", "number": "a number"}


def rule(schema: dict, root: dict | None = None) -> str:
    """What ``schema`` asks for, in words: ``an integer from 0 to 9``, ``a string of
    at most 200 characters``, ``an integer or null``.

    >>> rule({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]})
    'a positive integer or null'
    """
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    if "x-rule" in schema:  # the schema's own words for what it asks
        return schema["x-rule"]
    if "anyOf" in schema:
        return " or ".join(rule(option, root) for option in schema["anyOf"])
    if "const" in schema:
        return brief(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(brief(choice) for choice in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(rule({**schema, "type": k}, root) for k in kind)
    if kind in ("integer", "number"):
        return _range(schema, _WORDS[kind])
    if kind == "string":
        limits = []
        if "minLength" in schema and schema["minLength"] > 0:
            least = schema["minLength"]
            limits.append("not empty" if least == 1 else f"of at least {least} characters")
        if "maxLength" in schema:
            limits.append(f"of at most {schema['maxLength']} characters")
        if "pattern" in schema:
            limits.append(f"matching {schema['pattern']}")
        return " ".join(["a string", *limits]) if limits else "a string"
    if kind == "array" and schema.get("minItems"):
        return f"an array of at least {schema['minItems']} item{'s' if schema['minItems'] > 1 else ''}"
    if kind == "object" and schema.get("minProperties"):
        return "a non-empty object"
    return _WORDS.get(kind, "a JSON value")


def _range(schema: dict, word: str) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if "exclusiveMinimum" in schema:
        if schema["exclusiveMinimum"] == 0 and high is None and low is None:
            return f"a positive {word.split()[-1]}"
        low_text = f"above {schema['exclusiveMinimum']}"
    else:
        low_text = None
    if low == 1 and high is None and word == "an integer":
        return "a positive integer"
    if low is not None and high is not None:
        return f"{word} from {low} to {high}"
    if low is not None:
        return f"{word} of at least {low}"
    if low_text and high is not None:
        return f"{word} {low_text} and at most {high}"
    if low_text:
        return f"{word} {low_text}"
    if high is not None:
        return f"{word} of at most {high}"
    return word
