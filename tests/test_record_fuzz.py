"""Malformed records are one-line errors, never tracebacks; what the rules determine may be left out.

The example records of every game (tests/fixtures/examples) are mutated by
the thousand (types changed, fields dropped and added, actions swapped for
numbers, booleans, floats, null and lists, deep nesting, truncated and
mis-encoded files, huge numbers, dealer variants) and fed in-process through
what ``slagwerk replay``, ``slagwerk view`` and the bot use: only
:class:`SlagwerkError` subclasses may come out, each message one line. Then
a few dozen bad records go through the commands themselves, and ``play
--record`` is checked before the first deal (docs/records.md).
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paths import EXAMPLES
from slagwerk.agents.protocol import encode, handle
from slagwerk.cli import main
from slagwerk.engine import GAMES, InvalidRecordError, SlagwerkError
from slagwerk.engine.records import (
    load_record,
    load_record_file,
    read_record_file,
    replay,
    replay_result,
)

EXAMPLES_LIST = [
    (path.name, json.loads(path.read_text())) for path in sorted(EXAMPLES.glob("*.json"))
]
RECORDS = [example["record"] for _, example in EXAMPLES_LIST]
EXPECTED = [example["expected"] for _, example in EXAMPLES_LIST]
NAMES = [name for name, _ in EXAMPLES_LIST]
INDEX = st.integers(0, len(EXAMPLES_LIST) - 1)
ACTION_TEXTS = sorted({a for r in RECORDS for d in r["deals"] for a in d["actions"]})

FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)

# Values that are wrong where text, a seat number or an object is wanted.
ODD_VALUES = [
    None, True, False, 0, 1, 2, -1, 3.0, 0.5, 1e308, float("inf"), 10**30, -(10**40),
    int("9" * 4000), "", " ", "0", "??", "x" * 5000, "Ao\nKo", "\u2028", [], [0], ["Ao"], [[]],
    {}, {"a": 1}, {"hands": []},
]
TEXT = st.text(alphabet="AKQJT98765432ocebhsd:,?-_ \n\t\u00e9\u2028\x00", max_size=8)
odd_values = (
    st.sampled_from(ODD_VALUES).map(copy.deepcopy)  # copied: mutate() changes lists and objects in place
    | st.integers() | st.floats() | TEXT | st.booleans()
)
leaf_values = odd_values | st.sampled_from(ACTION_TEXTS)


def deep(levels: int, inner=0, kind: str = "list"):
    """A value nested ``levels`` deep (built without recursion)."""
    value = inner
    for _ in range(levels):
        value = [value] if kind == "list" else {"a": value}
    return value


def assert_clean(err: BaseException) -> str:
    """A user error on one line, of reasonable length."""
    assert isinstance(err, SlagwerkError), f"{type(err).__name__}: {err}"
    message = str(err)
    assert message and len(message.splitlines()) == 1 and "\n" not in message and "\r" not in message
    assert len(message) <= 2000
    return message


def load_cleanly(record):
    """What ``replay`` and ``view`` do with a record: the state, or ``None`` after a clean error."""
    try:
        state = load_record(record)
    except Exception as err:  # noqa: BLE001 - anything but a SlagwerkError fails the test
        assert_clean(err)
        return None
    result = replay_result(state)
    json.dumps(result, allow_nan=False)
    for seat in range(state.game.n_players):
        encode(state.view(seat))
    return state


# ------------------------------------------------------------ tree mutations


def nodes(value, path=(), depth: int = 8):
    """Every (path, value) of a JSON tree down to ``depth`` levels, the root included
    (a record is 5 levels deep; deeper is a nest made by :func:`mutate`)."""
    out = [(path, value)]
    stack = [(path, value)]
    while stack:
        here, node = stack.pop()
        if len(here) >= depth:
            continue
        if isinstance(node, dict):
            children = node.items()
        else:
            children = enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            out.append((here + (key,), child))
            stack.append((here + (key,), child))
    return out


def parent_of(root, path):
    node = root
    for key in path[:-1]:
        node = node[key]
    return node


def mutate(data, record):
    """One random change somewhere in ``record`` (in place); returns the new root."""
    every = nodes(record)
    path, node = every[data.draw(st.integers(0, len(every) - 1), label="node")]
    kind = data.draw(st.sampled_from(["replace", "drop", "add", "wrap", "nest", "duplicate"]), label="kind")
    if kind == "replace":
        new = data.draw(leaf_values, label="value")
    elif kind == "wrap":
        new = [node] if data.draw(st.booleans()) else {"x": node}
    elif kind == "nest":
        new = deep(data.draw(st.sampled_from([50, 900, 3000])), node if not path else 0)
    elif kind == "add" and isinstance(node, dict):
        node[data.draw(st.sampled_from(["x", "Dealer", "hand", "actions ", "", "stock", "undealt"]))] = (
            data.draw(leaf_values))
        return record
    elif kind == "duplicate" and isinstance(node, list) and node:
        node.append(node[data.draw(st.integers(0, len(node) - 1))])  # shared, not copied: it may be deep
        return record
    elif kind == "drop" and path:
        container = parent_of(record, path)
        del container[path[-1]]
        return record
    else:
        new = data.draw(odd_values)
    if not path:
        return new
    parent_of(record, path)[path[-1]] = new
    return record


@settings(FUZZ, max_examples=900)
@given(st.data(), INDEX, st.integers(1, 3))
def test_mutated_records_are_replayed_or_refused_in_one_line(data, index, changes):
    record = copy.deepcopy(RECORDS[index])
    for _ in range(changes):
        record = mutate(data, record)
    load_cleanly(record)


NON_TEXT_ACTIONS = [None, 0, 1, 12, -1, True, False, 1.0, 23.0, 1e400, 10**100, [], ["Ao"], {},
                    {"card": "Ao"}]


@settings(FUZZ, max_examples=350)
@given(st.data(), INDEX)
def test_an_action_that_is_not_text_is_refused_naming_deal_and_index(data, index):
    record = copy.deepcopy(RECORDS[index])
    number = data.draw(st.integers(0, len(record["deals"]) - 1), label="deal")
    actions = record["deals"][number]["actions"]
    position = data.draw(st.integers(0, len(actions) - 1), label="action")
    value = st.sampled_from(NON_TEXT_ACTIONS) | st.integers() | st.floats()
    deeply = data.draw(st.booleans(), label="deep")  # made, not drawn: hypothesis could not print it
    actions[position] = deep(2000) if deeply else data.draw(value, label="value")
    with pytest.raises(InvalidRecordError) as err:
        load_record(record)
    message = assert_clean(err.value)
    assert f"deal {number + 1}, action {position}: an action is text in {record['game']} notation" in message


@settings(FUZZ, max_examples=300)
@given(st.data(), INDEX)
def test_a_wrong_action_text_is_refused_or_replayed_cleanly(data, index):
    record = copy.deepcopy(RECORDS[index])
    number = data.draw(st.integers(0, len(record["deals"]) - 1), label="deal")
    actions = record["deals"][number]["actions"]
    position = data.draw(st.integers(0, len(actions) - 1), label="action")
    original = actions[position]
    actions[position] = data.draw(
        st.sampled_from(ACTION_TEXTS) | TEXT
        | st.sampled_from([original.upper(), original.lower(), f" {original}", original[:-1],
                           original * 3, "bid:-1", "bid:6", "bid:05", "trump:x", "lead:", "discard:", "F1",
                           "H", "x" * 3000]),
        label="text",
    )
    try:
        load_record(record)
    except Exception as err:  # noqa: BLE001
        assert re.match(r"deal \d+[,:] ", assert_clean(err)), str(err)


DEALER_VARIANTS = [True, False, 0.0, 1.0, 2.0, -1, 7, 10**30, "0", "1", None, [0], {"seat": 0}, 1e400]


@settings(FUZZ, max_examples=250)
@given(st.data(), INDEX)
def test_dealer_variants(data, index):
    record = copy.deepcopy(RECORDS[index])
    number = data.draw(st.integers(0, len(record["deals"]) - 1), label="deal")
    deal = record["deals"][number]
    choice = data.draw(st.sampled_from(["drop", "same", "wrong"] + DEALER_VARIANTS), label="dealer")
    if choice == "drop":  # the rules name the dealer (the first one: the first_dealer option)
        del deal["dealer"]
        if number == 0:
            record["options"]["first_dealer"] = RECORDS[index]["deals"][0]["dealer"]
        assert replay(record) == EXPECTED[index]
        return
    if choice == "same":
        assert replay(record) == EXPECTED[index]
        return
    n = GAMES[record["game"]](**{k: v for k, v in record["options"].items() if k == "players"}).n_players
    deal["dealer"] = (deal["dealer"] + 1) % n if choice == "wrong" else choice
    with pytest.raises(InvalidRecordError) as err:
        load_record(record)
    message = assert_clean(err.value)
    seat = type(deal["dealer"]) is int and 0 <= deal["dealer"] < n
    if number == 0 and seat and "first_dealer" not in record["options"]:
        return  # a valid first dealer makes another match, whose first wrong action is reported
    assert f"deal {number + 1}: " in message or (number == 0 and "first_dealer" in message), message
    assert "dealer" in message


@pytest.mark.parametrize("options", [0, [], False, "", None, "x", 1.5, [{}], True])
@pytest.mark.parametrize("index", range(len(RECORDS)), ids=NAMES)
def test_options_must_be_an_object(options, index):
    record = dict(RECORDS[index], options=options)
    with pytest.raises(InvalidRecordError, match=r"^'options' must be an object") as err:
        load_record(record)
    assert_clean(err.value)


@settings(FUZZ, max_examples=200)
@given(st.data(), INDEX, st.sampled_from(["x", "Dealer", "note", "hand", "trick_winners", "expected"]))
def test_unknown_fields_are_refused_naming_the_field_and_the_allowed_ones(data, index, field):
    record = copy.deepcopy(RECORDS[index])
    if data.draw(st.booleans(), label="top level"):
        record[field] = 1
        expected = rf"^unknown record field '{field}' \(fields: game, options, players, deals\)"
    else:
        number = data.draw(st.integers(0, len(record["deals"]) - 1), label="deal")
        record["deals"][number][field] = 1
        allowed = ", ".join(["dealer", *GAMES[record["game"]].deal_fields, "actions"])
        expected = rf"^deal {number + 1}: unknown deal field '{field}' \(fields of a \w+ deal: {allowed}\)"
    with pytest.raises(InvalidRecordError, match=expected) as err:
        load_record(record)
    assert_clean(err.value)


@settings(FUZZ, max_examples=200)
@given(st.data(), INDEX)
def test_leaving_out_what_the_rules_determine_replays_the_same(data, index):
    """Every dealer (the first one through the first_dealer option) and Koetsieren's and
    Aluette's 'undealt' follow from the rules; a record without them is the same match."""
    record = copy.deepcopy(RECORDS[index])
    record["options"]["first_dealer"] = record["deals"][0]["dealer"]
    for deal in record["deals"]:
        for key in ("dealer", "undealt"):
            if key in deal and data.draw(st.booleans(), label=f"drop {key}"):
                del deal[key]
    if data.draw(st.booleans(), label="shuffle"):  # the order of fields does not matter
        record = {k: record[k] for k in reversed(list(record))}
    assert replay(json.loads(json.dumps(record))) == EXPECTED[index]


@settings(FUZZ, max_examples=200)
@given(st.data(), INDEX)
def test_a_record_may_stop_anywhere(data, index):
    record = copy.deepcopy(RECORDS[index])
    deals = data.draw(st.integers(0, len(record["deals"])), label="deals")
    record["deals"] = record["deals"][:deals]
    if deals:
        last = record["deals"][-1]
        last["actions"] = last["actions"][: data.draw(st.integers(0, len(last["actions"])), label="actions")]
    state = load_record(record)
    done = sum(1 for log in state.deals if log.points is not None)
    assert replay_result(state)["deals"][:done] == EXPECTED[index]["deals"][:done]
    if record == RECORDS[index]:
        assert replay_result(state) == EXPECTED[index]


# ------------------------------------------------------------- file mutations


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as name:
        yield name


def file_bytes(data, record) -> bytes:
    text = json.dumps(record)
    raw = text.encode("utf-8")
    kind = data.draw(st.sampled_from(["truncate", "flip", "insert", "encoding", "bom", "huge", "deep", "nan",
                                      "twice", "empty", "wrapped"]), label="file change")
    if kind == "truncate":
        return raw[: data.draw(st.integers(0, len(raw) - 1))]
    if kind == "flip":
        at = data.draw(st.integers(0, len(raw) - 1))
        return raw[:at] + bytes([data.draw(st.integers(0, 255))]) + raw[at + 1 :]
    if kind == "insert":
        at = data.draw(st.integers(0, len(raw)))
        return raw[:at] + data.draw(st.binary(min_size=1, max_size=8)) + raw[at:]
    if kind == "encoding":
        encoding = data.draw(st.sampled_from(["latin-1", "utf-16", "cp1252"]))
        return text.replace('"', '"\u00e9', 1).encode(encoding)
    if kind == "bom":
        return b"\xef\xbb\xbf" + raw
    if kind == "huge":
        digits = data.draw(st.sampled_from([400, 4299, 4301, 20000]))
        return text.replace('"dealer": 0', '"dealer": ' + "1" * digits, 1).replace(
            "[", "[" + "9" * digits + ", ", 1).encode()
    if kind == "deep":
        levels = data.draw(st.sampled_from([500, 990, 5000, 100000]))
        return ("[" * levels + text + "]" * levels).encode()
    if kind == "nan":
        return text.replace("0", "NaN", 1).replace("1", "Infinity", 1).encode()
    if kind == "twice":
        return text.replace('{"game"', '{"game": "coins", "game"', 1).encode()
    if kind == "empty":
        return b""
    return json.dumps({"record": record, "expected": None}).encode()


@settings(FUZZ, max_examples=350, suppress_health_check=list(HealthCheck))
@given(st.data(), INDEX)
def test_mutated_files_are_replayed_or_refused_in_one_line_naming_the_file(folder, data, index):
    path = os.path.join(folder, "record.json")
    with open(path, "wb") as fh:
        fh.write(file_bytes(data, RECORDS[index]))
    try:
        load_record_file(path)
    except Exception as err:  # noqa: BLE001
        message = assert_clean(err)
        assert message.startswith(f"{path}: ") and not message.startswith(f"{path}: {path}")


def test_reading_names_the_file_once(tmp_path):
    cases = [
        (b"\xff\xfe{", "not UTF-8 text"),
        (b"{", "not JSON"),
        (b"[" * 100000, "nested too deeply"),
        (b'{"game": 1' + b"0" * 5000 + b"}", "too many digits"),
        (b"NaN", "NaN is not a JSON number"),
        (b'{"a": 1, "a": 2}', "appears twice"),
    ]
    for content, why in cases:
        path = tmp_path / "bad.json"
        path.write_bytes(content)
        with pytest.raises(InvalidRecordError) as err:
            read_record_file(path)
        message = assert_clean(err.value)
        assert message.startswith(f"{path}: ") and message.count(str(path)) == 1 and why in message
    with pytest.raises(InvalidRecordError, match="cannot read: No such file") as err:
        load_record_file(tmp_path / "missing.json")
    assert str(err.value).count("missing.json") == 1
    with pytest.raises(InvalidRecordError, match="not a regular file"):
        load_record_file(tmp_path)
    for endless in ("/dev/zero", "/dev/urandom"):  # read whole, these would never end
        with pytest.raises(InvalidRecordError, match=f"{endless}: not a regular file"):
            load_record_file(endless)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InvalidRecordError, match="not a regular file"):  # opening it would wait for a writer
        load_record_file(fifo)


# ---------------------------------------------------------------- the bot


@settings(FUZZ, max_examples=100)
@given(st.data(), INDEX)
def test_the_bot_answers_the_view_of_any_record_prefix(data, index):
    """``slagwerk view --request`` of a record is a request the bot answers (the same state),
    and a view with one field changed is answered or refused on one line."""
    record = copy.deepcopy(RECORDS[index])
    number = data.draw(st.integers(1, len(record["deals"])), label="deals")
    record["deals"] = record["deals"][:number]
    last = record["deals"][-1]
    last["actions"] = last["actions"][: data.draw(st.integers(0, len(last["actions"]) - 1), label="actions")]
    state = load_record(record)
    seat = state.to_move
    view = state.view(seat)
    request = {"id": 1, "type": "act", "game": record["game"], "agent": "random", "view": view}
    answer = handle(json.loads(encode(request)))
    assert answer.get("action") in state.legal_texts(seat), answer
    key = data.draw(st.sampled_from(sorted(view)), label="field")
    deeply = data.draw(st.booleans(), label="deep")  # made, not drawn: hypothesis could not print it
    view[key] = deep(3000) if deeply else data.draw(leaf_values, label="value")
    answer = handle(request)
    if "error" in answer:
        assert not answer["error"].startswith("internal error"), answer["error"]
        assert len(answer["error"].splitlines()) == 1


# --------------------------------------------------------- the rules' reasons


def koetsieren_record(actions):
    record = copy.deepcopy(RECORDS[NAMES.index("koetsieren-1001.json")])
    record["deals"] = [dict(record["deals"][0], actions=actions)]
    return record


def test_a_negative_bid_is_out_of_range_not_barred_by_the_hook():
    record = koetsieren_record([])
    first = load_record(record)
    trump = first.legal_texts()[0]
    for bids in ([], ["bid:2"]):  # the first bidder, and the second (not the trump maker either)
        with pytest.raises(InvalidRecordError) as err:
            load_record(koetsieren_record([trump, *bids, "bid:-1"]))
        message = assert_clean(err.value)
        assert f"action {1 + len(bids)} ('bid:-1')" in message and "bids are bid:0 .. bid:5" in message
        assert "hook" not in message
    # the trump maker (seat 1, who bids last of three) is barred from bid:5 - 2 - 1 = 2
    hook = r"'bid:2' is barred by the hook: the trump maker \(seat 1\)"
    with pytest.raises(InvalidRecordError, match=hook):
        load_record(koetsieren_record([trump, "bid:2", "bid:1", "bid:2"]))
    with pytest.raises(InvalidRecordError, match="bids are bid:0 .. bid:5"):
        load_record(koetsieren_record([trump, "bid:2", "bid:1", "bid:-1"]))


def test_later_deals_need_no_dealer():
    record = copy.deepcopy(RECORDS[NAMES.index("coins-1002.json")])
    for deal in record["deals"][1:]:
        del deal["dealer"]
    assert replay(record) == EXPECTED[NAMES.index("coins-1002.json")]
    record["deals"][1]["dealer"] = None
    with pytest.raises(InvalidRecordError, match=r"^deal 2: 'dealer' must be a seat number 0..2, not null$"):
        load_record(record)


def test_the_first_dealer_comes_from_the_option_or_its_default():
    index = NAMES.index("aluette-1002.json")  # first dealer 3
    record = copy.deepcopy(RECORDS[index])
    del record["deals"][0]["dealer"]
    record["options"] = {"first_dealer": 3}
    assert replay(record) == EXPECTED[index]
    record["options"] = {}  # the default first dealer 0: seat 1 leads, not seat 0
    with pytest.raises(InvalidRecordError, match=r"^deal 1, action 0 \('\w\w'\): .*not legal for seat 1"):
        load_record(record)
    record["deals"][0]["dealer"] = 3
    record["options"] = {"first_dealer": 2}
    disagree = "option first_dealer=2 disagrees with the first deal's dealer 3"
    with pytest.raises(InvalidRecordError, match=disagree):
        load_record(record)


# ------------------------------------------------------------ the commands

BAD_RECORDS = {
    "null action": lambda r: r["deals"][0]["actions"].__setitem__(2, None),
    "list action": lambda r: r["deals"][0]["actions"].__setitem__(2, ["Ao"]),
    "object action": lambda r: r["deals"][0]["actions"].__setitem__(2, {"card": "Ao"}),
    "number action": lambda r: r["deals"][0]["actions"].__setitem__(0, 0),
    "bool action": lambda r: r["deals"][0]["actions"].__setitem__(0, True),
    "float action": lambda r: r["deals"][0]["actions"].__setitem__(0, 1.0),
    "options 0": lambda r: r.__setitem__("options", 0),
    "options []": lambda r: r.__setitem__("options", []),
    "options false": lambda r: r.__setitem__("options", False),
    "options empty text": lambda r: r.__setitem__("options", ""),
    "dealer true": lambda r: r["deals"][1].__setitem__("dealer", True),
    "dealer 2.0": lambda r: r["deals"][1].__setitem__("dealer", 2.0),
    "deal field": lambda r: r["deals"][1].__setitem__("note", "x"),
    "top field": lambda r: r.__setitem__("note", "x"),
    "huge text action": lambda r: r["deals"][0]["actions"].__setitem__(1, "Z" * 100000),
    "deep action": lambda r: r["deals"][0]["actions"].__setitem__(1, deep(800)),
}
BAD_FILES = {
    "latin-1": "\u00e9".encode("latin-1"),
    "deep": b"[" * 50000 + b"]" * 50000,
    "huge number": b'{"game": "coins", "deals": [], "options": {"target": ' + b"7" * 5000 + b"}}",
    "truncated": json.dumps(RECORDS[NAMES.index("coins-1002.json")])[:777].encode(),
    "json error on line 3": b'{\n"game": "coins",\n"deals": [,]}',
}


def bad_files(tmp_path) -> dict:
    out = {}
    base = RECORDS[NAMES.index("coins-1002.json")]
    for name, change in BAD_RECORDS.items():
        record = copy.deepcopy(base)
        change(record)
        path = tmp_path / (name.replace(" ", "-") + ".json")
        path.write_text(json.dumps(record))
        out[name] = path
    for name, content in BAD_FILES.items():
        path = tmp_path / (name.replace(" ", "-") + ".json")
        path.write_bytes(content)
        out[name] = path
    return out


@pytest.mark.parametrize("case", [*BAD_RECORDS, *BAD_FILES])
def test_replay_and_view_print_one_error_line_naming_the_file(case, tmp_path, capsys):
    path = bad_files(tmp_path)[case]
    assert main(["replay", str(path)]) != 0
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: {path}: ") and err.count("\n") == 1
    assert err.count(str(path)) == 1
    assert main(["view", str(path), "--seat", "0"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: {path}: ") and err.count("\n") == 1
    assert main(["replay", "--json", str(path)]) == 1
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1 and json.loads(out)["error"].startswith(f"{path}: ")


def test_replay_json_with_good_and_bad_files(tmp_path):
    files = bad_files(tmp_path)
    good = EXAMPLES / "kozel-1001.json"
    bad = [files["null action"], files["latin-1"], files["dealer true"]]
    run = subprocess.run([sys.executable, "-m", "slagwerk", "replay", "--json", str(bad[0]), str(good),
                          str(bad[1]), str(bad[2])], capture_output=True, text=True)
    assert run.returncode == 1 and "Traceback" not in run.stderr and run.stderr == ""
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(lines) == 4 and lines[1] == EXPECTED[NAMES.index("kozel-1001.json")]
    assert lines[0]["error"].startswith(f"{bad[0]}: deal 1, action 2: an action is text in coins notation ")
    assert lines[0]["error"].endswith("), not null")
    assert lines[2]["error"].startswith(f"{bad[1]}: not UTF-8 text")
    assert lines[3]["error"] == f"{bad[2]}: deal 2: 'dealer' must be a seat number 0..2, not true"


def test_view_in_a_subprocess_exits_non_zero_without_a_traceback(tmp_path):
    files = bad_files(tmp_path)
    argv = ["view", str(files["deep"]), "--seat", "1"]
    run = subprocess.run([sys.executable, "-m", "slagwerk", *argv], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr == f"error: {files['deep']}: not a record: its JSON is nested too deeply\n"


# ------------------------------------------------------------ play --record


@pytest.fixture
def no_match(monkeypatch):
    """Playing is an error: a refused --record must stop before the first deal."""
    from slagwerk.agents import match  # what `slagwerk play` plays with, imported when it plays

    def refuse(*args, **kwargs):
        raise AssertionError("the match was played")

    monkeypatch.setattr(match, "play_match", refuse)


def play_argv(path, *extra):
    return ["play", "coins", "--agents", "random", "--target", "3", "--seed", "1",
            "--record", str(path), *extra]


def test_play_record_into_a_missing_folder_fails_before_the_first_deal(tmp_path, capsys, no_match):
    assert main(play_argv(tmp_path / "missing" / "match.json")) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: --record {tmp_path / 'missing' / 'match.json'}: the folder ")
    assert "does not exist" in err
    (tmp_path / "file").write_text("x")
    assert main(play_argv(tmp_path / "file" / "match.json")) == 2
    assert "is not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["folder", "dot", "slash"])
def test_play_record_to_a_folder_is_refused(tmp_path, capsys, no_match, where):
    path = {"folder": str(tmp_path), "dot": str(tmp_path / "."), "slash": f"{tmp_path}/"}[where]
    assert main(play_argv(path)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "folder; give a file name" in err
    assert os.listdir(tmp_path) == []


def can_create_in(folder) -> bool:
    probe = os.path.join(folder, f".probe-{os.getpid()}")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        return False
    os.unlink(probe)
    return True


def test_play_record_into_an_unwritable_folder_is_refused(tmp_path, capsys, no_match):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    if can_create_in(locked):  # root writes anywhere, but not into sysfs
        if not os.path.isdir("/sys") or can_create_in("/sys"):
            pytest.skip("no folder this user cannot write to")
        locked = "/sys"
    try:
        assert main(play_argv(os.path.join(locked, "match.json"))) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "cannot write in the folder" in err
    finally:
        (tmp_path / "locked").chmod(0o755)


def test_play_record_refuses_an_existing_file_without_force(tmp_path, capsys, no_match):
    path = tmp_path / "match.json"
    path.write_text("precious")
    assert main(play_argv(path)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: --record {path}: the file exists; use --force to overwrite it\n"
    assert path.read_text() == "precious" and sorted(os.listdir(tmp_path)) == ["match.json"]


def test_play_record_refuses_a_symlink_even_with_force(tmp_path, capsys, no_match):
    target = tmp_path / "target.json"
    target.write_text("precious")
    link = tmp_path / "match.json"
    link.symlink_to(target)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    for path in (link, dangling):
        for force in ([], ["--force"]):
            assert main(play_argv(path, *force)) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1 and "is a symbolic link" in err
    assert target.read_text() == "precious" and link.is_symlink() and not (tmp_path / "nowhere.json").exists()
    assert sorted(os.listdir(tmp_path)) == ["dangling.json", "match.json", "target.json"]


def test_play_record_with_force_replaces_the_file(tmp_path, capsys):
    path = tmp_path / "match.json"
    path.write_text("old")
    assert main(play_argv(path, "--force", "--quiet")) == 0
    assert f"record saved to {path}" in capsys.readouterr().out
    record = json.loads(path.read_text())
    assert replay(record)["outcome"] is not None
    assert sorted(os.listdir(tmp_path)) == ["match.json"]  # no temporary file left
    fresh = tmp_path / "fresh.json"
    assert main(play_argv(fresh, "--quiet")) == 0
    assert json.loads(fresh.read_text()) == record


def test_a_failed_match_leaves_no_temporary_file(tmp_path, capsys, no_match):
    with pytest.raises(AssertionError, match="the match was played"):
        main(play_argv(tmp_path / "match.json"))
    assert os.listdir(tmp_path) == []


def test_play_record_into_a_folder_that_takes_no_files_says_so(capsys, no_match):
    """/proc exists but makes no new files (the error is "no such file"): the message
    says the folder takes no files rather than that something does not exist."""
    if not os.path.isdir("/proc") or can_create_in("/proc"):
        pytest.skip("no /proc that refuses new files here")
    assert main(play_argv("/proc/match.json")) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "cannot write in the folder /proc: it takes no new files" in err, err
