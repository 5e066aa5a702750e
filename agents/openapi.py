"""The OpenAPI document of ``slagwerk serve``: the bot protocol over HTTP as a contract.

It is made from the protocol's JSON Schemas (``agents/protocol.schema.json``,
which :mod:`.messages` writes from its models), so the two cannot disagree,
and without pydantic, so the server makes it as cheaply as it checks requests.
The server answers it at ``GET /v1/openapi.json``; ``python -m
slagwerk.agents.openapi`` prints it, and docs/openapi.json is its published
copy (tests/test_openapi.py checks that copy, the document against the
OpenAPI 3.1 specification, and the server's real answers against it).

A frontend in another language can generate its client from it.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

from .. import __version__
from .protocol import PROTOCOL_VERSION
from .protocol import schemas as protocol_schemas

OPENAPI_PATH = "/v1/openapi.json"
DOCS_COPY = Path(__file__).resolve().parent.parent / "docs" / "openapi.json"
"""The published copy, in a checkout (not in an installed package)."""

ERROR_STATUSES = {
    "400": "A bad request (the error says what is wrong); also a bad Content-Length.",
    "403": "A Host header that does not name a loopback address, on a server without --public.",
    "404": "An unknown path.",
    "405": "A method the path does not take; the Allow header names the one it takes.",
    "411": "No Content-Length (a Transfer-Encoding is not accepted).",
    "413": "A body over the size limit.",
    "415": "A POST whose Content-Type is not application/json.",
    "429": "On a --public server, the client is over its share of connections or requests in flight "
           "(with Retry-After).",
    "500": "The worker answering the request died (it is replaced).",
    "503": "No worker became free within the time limit, or the server holds its most connections "
           "(with Retry-After).",
    "504": "The request ran over the time limit and was stopped.",
}
"""Every error status the server answers with ``{"id", "error"}`` (docs/protocol.md, HTTP)."""
GET_ERRORS = ("403", "404", "405", "429", "503")
POST_ERRORS = tuple(ERROR_STATUSES)


def _hoisted(schema: dict, components: dict) -> dict:
    """``schema`` with its ``$defs`` moved into ``components`` and its references to them rewritten
    (a ``#/$defs/X`` inside a component would point at the document's root)."""
    schema = copy.deepcopy(schema)
    for name, definition in schema.pop("$defs", {}).items():
        components[name] = _rewritten(definition)
    return _rewritten(schema)


def _rewritten(node):
    if isinstance(node, dict):
        return {key: ("#/components/schemas/" + value[len("#/$defs/"):]
                      if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/")
                      else _rewritten(value)) for key, value in node.items()}
    if isinstance(node, list):
        return [_rewritten(item) for item in node]
    return node


def _json(schema_name: str, description: str) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_name}"}}}}


@functools.cache
def document() -> dict:
    """The OpenAPI 3.1 document of the bot server (see the module doc); do not change it."""
    protocol = protocol_schemas()
    components: dict = {}
    act_request = _hoisted(protocol["requests"]["act"], components)
    act_request["title"] = "ActRequest"
    act_request["required"] = [name for name in act_request["required"] if name != "type"]
    act_request["properties"]["type"] = {**act_request["properties"]["type"],
                                         "description": "May be left out over HTTP; only 'act' is taken."}
    info = _hoisted(protocol["answers"]["hello"], components)
    info["title"] = "InfoAnswer"
    info["properties"]["time_limit_ms"] = {
        "type": "integer", "minimum": 0,
        "description": "The server's time limit per act request in milliseconds (0: none)."}
    views = {f"{name.capitalize()}View": schema for name, schema in protocol.get("views", {}).items()}
    if views:  # the view of an act request is one of the games' (each names its game)
        act_request["properties"]["view"] = {
            "description": act_request["properties"]["view"].get("description", ""),
            "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in views]}
    components.update(views)
    components.update(ActRequest=act_request, InfoAnswer=info,
                      ActAnswer=_hoisted(protocol["answers"]["act"], components),
                      ErrorAnswer=_hoisted(protocol["answers"]["error"], components))

    def errors(statuses):
        return {status: _json("ErrorAnswer", ERROR_STATUSES[status]) for status in statuses}

    return {
        "openapi": "3.1.0",
        "info": {"title": "slagwerk bot server", "version": __version__,
                 "description": f"The slagwerk bot protocol (version {PROTOCOL_VERSION}) over HTTP: "
                                "slagwerk serve. docs/protocol.md explains it."},
        "paths": {
            "/v1/act": {"post": {
                "operationId": "act", "summary": "The action an agent plays from a seat's view.",
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ActRequest"}}}},
                "responses": {"200": _json("ActAnswer", "The action, in the seat's notation."),
                              **errors(POST_ERRORS)}}},
            "/v1/info": {"get": {
                "operationId": "info", "summary": "The server's games, agents, parameters and limits.",
                "responses": {"200": _json("InfoAnswer", "As the hello answer, plus time_limit_ms."),
                              **errors(GET_ERRORS)}}},
            OPENAPI_PATH: {"get": {
                "operationId": "openapi", "summary": "This document.",
                "responses": {"200": {"description": "The OpenAPI document.",
                                      "content": {"application/json": {"schema": {"type": "object"}}}},
                              **errors(GET_ERRORS)}}},
        },
        "components": {"schemas": dict(sorted(components.items()))},
    }


def text() -> str:
    """The document as the published file holds it."""
    return json.dumps(document(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(text(), end="")
