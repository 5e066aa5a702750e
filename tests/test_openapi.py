"""The OpenAPI document of `slagwerk serve` (agents/openapi.py): valid OpenAPI 3.1, published
as docs/openapi.json, and every answer the server really gives, and every documented example
exchange, validates against it; what its request schema rejects, the server rejects in one line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from openapi_spec_validator import validate as validate_openapi
from test_http import LIMITS, call, connect, good_request, served
from test_protocol import _documented_exchanges

from slagwerk.agents.openapi import OPENAPI_PATH, document, text

REPO = Path(__file__).resolve().parent.parent


def _validator(schema: dict | str):
    """A validator of ``schema``, or of the document's component of that name (references
    resolve in the document)."""
    if isinstance(schema, str):
        schema = {"$ref": f"#/components/schemas/{schema}"}
    return jsonschema.Draft202012Validator({**schema, "components": document()["components"]})


def _answer_schema(path: str, method: str, status: int) -> dict:
    """The schema the document promises for ``status`` of ``method path`` (KeyError if none)."""
    answer = document()["paths"][path][method.lower()]["responses"][str(status)]
    return answer["content"]["application/json"]["schema"]


def test_the_document_is_valid_openapi_and_published_as_made():
    validate_openapi(document())
    assert (REPO / "docs" / "openapi.json").read_text(encoding="utf-8") == text(), \
        "docs/openapi.json is stale: python -m slagwerk.agents.openapi > docs/openapi.json"
    assert set(document()["paths"]) == {"/v1/act", "/v1/info", OPENAPI_PATH}


@pytest.fixture(scope="module")
def server():
    with served(limits=LIMITS, time_limit_ms=3000, workers=1, socket_timeout=2.0) as bot_server:
        yield bot_server


def test_every_answer_of_the_server_is_the_one_the_document_promises(server):
    conn = connect(server)
    too_big = json.dumps({**good_request(), "pad": "x" * LIMITS.max_request_bytes}).encode()
    exchanges = [
        ("GET", "/v1/info", None, {}),
        ("GET", OPENAPI_PATH, None, {}),
        ("POST", "/v1/act", json.dumps(good_request()).encode(), None),
        ("POST", "/v1/act", json.dumps({**good_request(), "stats": True}).encode(), None),
        ("POST", "/v1/act", b'{"view": 3}', None),
        ("POST", "/v1/act", b"[1, 2]", None),
        ("POST", "/v1/act", json.dumps(good_request()).encode(), {"Content-Type": "text/plain"}),
        ("POST", "/v1/act", too_big, None),
        ("GET", "/v1/act", None, {}),
        ("GET", "/v2/nothing", None, {}),
    ]
    statuses = set()
    for method, path, body, headers in exchanges:
        status, answer = call(conn, method, path, body, headers)
        if status in (405, 413):  # the server closes the connection after these
            conn = connect(server)
        statuses.add(status)
        promised = "/v1/act" if path == "/v2/nothing" else path  # any path's 404 is the error answer
        method_promised = "POST" if promised == "/v1/act" else "GET"
        _validator(_answer_schema(promised, method_promised, status)).validate(answer)
        if path == OPENAPI_PATH:
            assert answer == document()
    assert statuses >= {200, 400, 404, 405, 413, 415}


def test_the_documented_example_exchanges_validate():
    exchanges = _documented_exchanges()
    assert exchanges
    for request, answer in exchanges:
        _validator("ActRequest").validate(request)
        _validator("ActAnswer").validate(answer)


REJECTED = [
    {"unknown_field": 1},
    {"seed": -1},
    {"iterations": 0},
    {"time_ms": 1.5},
    {"stats": "yes"},
    {"id": {"nested": 1}},
    {"type": "hello"},
    {"view": None},
]


@pytest.mark.parametrize("change", REJECTED, ids=[next(iter(c)) for c in REJECTED])
def test_what_the_request_schema_rejects_the_server_rejects_in_one_line(server, change):
    request = {**good_request(), **change}
    with pytest.raises(jsonschema.ValidationError):
        _validator("ActRequest").validate(request)
    status, answer = call(connect(server), "POST", "/v1/act", json.dumps(request).encode())
    assert status == 400
    _validator("ErrorAnswer").validate(answer)
    assert answer["error"] and "\n" not in answer["error"]
