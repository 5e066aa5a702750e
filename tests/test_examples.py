"""The example matches replay to exactly their expected output (docs/records.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paths import EXAMPLES
from slagwerk.cli import main
from slagwerk.engine.records import replay

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


def test_examples_are_present():
    """docs/records.md: there are example matches of every game."""
    games = {path.name.split("-")[0] for path in EXAMPLE_FILES}
    assert games == {"coins", "koetsieren", "kozel", "aluette"}


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_replays_exactly(path):
    """docs/records.md: every example match replays to exactly its expected output."""
    example = json.loads(path.read_text())
    assert replay(example["record"]) == example["expected"]


def test_replay_json_prints_one_line_per_record_in_order(tmp_path, capsys):
    """docs/records.md: replay --json prints one line per record, in order."""
    files = []
    for path in EXAMPLE_FILES:
        record_file = tmp_path / path.name
        record_file.write_text(json.dumps(json.loads(path.read_text())["record"]))
        files.append(record_file)
    assert main(["replay", "--json", *map(str, files)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(files)
    for line, path in zip(lines, EXAMPLE_FILES):
        assert line == json.dumps(json.loads(path.read_text())["expected"])


def test_replay_reports_a_bad_record_and_goes_on(tmp_path):
    """docs/records.md: a bad record prints an error line naming the deal and action, the others still
    replay, and the exit status is non-zero."""
    good = EXAMPLES / "coins-1001.json"
    record = json.loads(good.read_text())["record"]
    record["deals"][0]["actions"][1] = "Ao"  # seat 2 does not hold the ace of coins
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    run = subprocess.run(
        [sys.executable, "-m", "slagwerk", "replay", "--json", str(bad), str(good)],
        capture_output=True, text=True,
    )
    assert run.returncode != 0
    first, second = run.stdout.splitlines()
    error = json.loads(first)["error"]
    assert "deal 1, action 1 ('Ao')" in error and "not legal for seat 2" in error
    assert json.loads(second) == json.loads(good.read_text())["expected"]
    assert "Traceback" not in run.stderr

    plain = subprocess.run([sys.executable, "-m", "slagwerk", "replay", str(bad)],
                           capture_output=True, text=True)
    assert plain.returncode != 0 and "Traceback" not in plain.stderr
    assert "deal 1, action 1" in plain.stderr


def test_replay_reads_the_records_a_tournament_kept(tmp_path, capsys):
    """docs/records.md: `replay` reads a tournament's games.jsonl (played with --records),
    one record per line, named FILE:LINE; a bad line spoils only itself; a log that
    kept no record says how to keep them."""
    kept = tmp_path / "kept"
    assert main(["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "2",
                 "--jobs", "1", "--quiet", "--records", "--results", str(kept)]) == 0
    capsys.readouterr()
    log = kept / "games.jsonl"
    lines = log.read_text().splitlines()
    assert main(["replay", "--json", str(log)]) == 0
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(results) == len(lines) > 0
    for line, result in zip(lines, results):
        assert result == replay(json.loads(line)["record"])
    assert main(["replay", str(log)]) == 0
    assert f"{log}:{len(lines)}: coins" in capsys.readouterr().out

    damaged = tmp_path / "damaged.jsonl"
    game = json.loads(lines[0])
    game["record"]["deals"][0]["actions"][0] = "Zz"
    damaged.write_text("\n".join([json.dumps(game), "{torn", *lines[1:]]) + "\n")
    assert main(["replay", "--json", str(damaged)]) == 1
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert f"{damaged}:1: deal 1, action 0 ('Zz')" in out[0]["error"]
    assert out[1]["error"].startswith(f"{damaged}:2: not JSON")
    assert out[2:] == results[1:]

    plain = tmp_path / "plain"
    assert main(["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "2",
                 "--jobs", "1", "--quiet", "--results", str(plain)]) == 0
    capsys.readouterr()
    assert main(["replay", str(plain / "games.jsonl")]) == 1
    assert "no line keeps a record (a tournament keeps them with --records)" in capsys.readouterr().err
