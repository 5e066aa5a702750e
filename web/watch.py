"""Watching a recorded match: the engine replays it, and the page steps through it.

A :class:`Watch` replays a record (docs/records.md) once, keeping the state
before each deal, and rebuilds any moment of a deal on demand
(:meth:`Watch.frame`): every seat's view at that moment (so the page shows
every hand face up), the actions so far and who took each trick. Trick
winners and points are those of ``slagwerk replay``.

A :class:`RecordShelf` lists the records in the results folders that
``slagwerk serve --results DIR`` was given (record files, and the games a
tournament run with ``--records`` logged), read-only and never through a
symbolic link; the page names a record by an opaque id, never by a path.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from ..engine.game import State
from ..engine.records import RECORD_KEYS, load_record, record_of, replay_result
from ..engine.strict_json import StrictJSONError, loads
from ..errors import SlagwerkError, brief, one_line
from ..safe_files import folder_names, read_file
from .matches import WebError, card_order_json

MAX_SHELF_FILE_BYTES = 64 << 20
"""Larger files in a results folder are not listed."""
MAX_SHELF_ENTRIES = 1000
SHELF_DEPTH = 2
"""A results folder's records are looked for this many folder levels down."""


class Watch:
    """A replayed record; :class:`WebError` naming the problem if it does not replay."""

    def __init__(self, record, title: str = "record"):
        try:
            state = load_record(record)
        except SlagwerkError as err:
            raise WebError(one_line(f"{title}: {err}")) from None
        self.title = title
        self.game = state.game
        players = record.get("players") if isinstance(record, dict) else None
        self.players = list(players) if players else [f"seat {s}" for s in range(self.game.n_players)]
        self.record = record_of(state, players=self.players)
        self.result = replay_result(state)
        self.logs = state.deals
        self.starts = []  # the state array before each deal was dealt
        self.totals_after = []
        again = self.game.new_match()
        for log in self.logs:
            self.starts.append(again.array.copy())
            again.deal(log.vector)
            for action in log.actions:
                again.apply(action)
            self.totals_after.append(again.totals)

    def summary(self) -> dict:
        deals = [{"number": i + 1, "dealer": log.dealer, "steps": len(log.actions),
                  "trick_winners": list(log.trick_winners), "points": log.points,
                  "totals": self.totals_after[i]}
                 for i, log in enumerate(self.logs)]
        return {"kind": "watch", "title": self.title, "game": self.game.name,
                "options": dict(self.game.options), "players": self.players,
                "team_game": self.game.team_game, "deals": deals,
                "card_order": card_order_json(self.game),
                "totals": self.result["totals"], "outcome": self.result["outcome"]}

    def frame(self, deal: int, step: int) -> dict:
        """Deal ``deal`` (from 1) after ``step`` of its actions: every seat's view."""
        if not 1 <= deal <= len(self.logs):
            raise WebError(f"this record has deals 1..{len(self.logs)}, not {brief(deal)}")
        log = self.logs[deal - 1]
        if not 0 <= step <= len(log.actions):
            raise WebError(f"deal {deal} has steps 0..{len(log.actions)}, not {brief(step)}")
        state = State(self.game, self.starts[deal - 1].copy())
        state.deal(log.vector)
        trick_ends = []
        for index, action in enumerate(log.actions[:step]):
            before = state.tricks_done
            state.apply(action)
            if state.tricks_done > before:
                trick_ends.append({"after": index, "winner": state.deals[-1].trick_winners[-1]})
        history = [{"seat": s, "action": text} for s, text in zip(log.seats[:step], log.texts[:step])]
        return {"kind": "frame", "deal": deal, "step": step, "steps": len(log.actions),
                "views": [state.view(s) for s in range(self.game.n_players)],
                "history": history, "trick_ends": trick_ends,
                "deal_record": self.record["deals"][deal - 1]}


def parse_json(data: bytes, title: str):
    """Strict JSON in UTF-8 (``NaN`` or a repeated key is an error); :class:`WebError` naming ``title``."""
    try:
        return loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise WebError(f"{title}: not UTF-8 text") from None
    except StrictJSONError as err:
        raise WebError(f"{title}: {err}") from None


def parse_record_text(data: bytes, title: str):
    """A record from stored bytes; an example file ``{"record": ..., "expected": ...}``
    gives its record."""
    value = parse_json(data, title)
    if isinstance(value, dict) and "record" in value and "game" not in value:
        value = value["record"]
    return value


class RecordShelf:
    """The records of some results folders, by opaque id."""

    def __init__(self, folders=()):
        self.folders = [Path(folder) for folder in folders]

    def entries(self) -> list[dict]:
        """``[{"id", "title"}]`` for every record found (at most :data:`MAX_SHELF_ENTRIES`)."""
        return [{"id": entry_id, "title": title} for entry_id, title, _ in self._scan()]

    def open(self, entry_id) -> Watch:
        for found_id, title, record in self._scan():
            if found_id == entry_id:
                return Watch(record, title)
        raise WebError(f"no record {brief(entry_id)} in this server's results folders", 404)

    def _scan(self):
        count = 0
        for number, root in enumerate(self.folders):
            for relative, data in self._files(root, Path(), 0):
                for line, record in _records_in(relative, data):
                    where = f"{root.name}/{relative}" + (f" game {line}" if line is not None else "")
                    digest = hashlib.sha256(f"{number}\0{relative}\0{line}".encode()).hexdigest()[:24]
                    players = record.get("players")
                    title = f"{where}: {record.get('game')}" + (
                        f" ({', '.join(map(str, players))})" if isinstance(players, list) else "")
                    yield digest, title, record
                    count += 1
                    if count >= MAX_SHELF_ENTRIES:
                        return

    def _files(self, root: Path, relative: Path, depth: int):
        folder = root / relative
        try:
            names = folder_names(folder) or []
        except SlagwerkError:
            return
        for name in names:
            try:
                info = os.lstat(folder / name)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and depth < SHELF_DEPTH:
                yield from self._files(root, relative / name, depth + 1)
            elif stat.S_ISREG(info.st_mode) and info.st_size <= MAX_SHELF_FILE_BYTES and \
                    (name.endswith(".json") or name == "games.jsonl"):
                try:
                    data = read_file(folder, name)  # refuses a symbolic link
                except SlagwerkError:
                    continue
                if data is not None:
                    yield relative / name, data


def _records_in(relative: Path, data: bytes):
    """(line number or None, record) for each record in a file's bytes."""
    if relative.name == "games.jsonl":
        for number, line in enumerate(data.splitlines(), start=1):
            try:
                value = loads(line.decode("utf-8"))
            except (UnicodeDecodeError, StrictJSONError):
                continue
            if isinstance(value, dict) and _looks_like_a_record(value.get("record")):
                yield number, value["record"]
        return
    try:
        value = parse_record_text(data, str(relative))
    except WebError:
        return
    if _looks_like_a_record(value):
        yield None, value


def _looks_like_a_record(value) -> bool:
    """A record's shape (docs/records.md), so that other JSON files of a results
    folder (a tournament's ``config.json`` names a game and a number of deals)
    are not offered for watching."""
    if not isinstance(value, dict) or "game" not in value or not set(value) <= set(RECORD_KEYS):
        return False
    deals = value.get("deals")
    return isinstance(deals, list) and all(
        isinstance(deal, dict) and isinstance(deal.get("actions"), list) for deal in deals)
