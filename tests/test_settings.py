"""One description per setting (slagwerk.settings): a field added to a model brings its flag,
its place in config.json and its resume check with it, and every error is one line."""

from __future__ import annotations

import argparse
import json
from typing import Annotated, Literal

import pytest
from pydantic import Field

from slagwerk.errors import OptionError
from slagwerk.experiments.harness.config import TournamentConfig
from slagwerk.settings import Settings, SettingsError, rule, setting


class Sizes(Settings):
    KIND = "toy run"

    name: str = setting(help="what it is called", flag=False, min_length=1)
    count: int = setting(10, "how many", ge=1, le=1000)
    limit: float | None = setting(5.0, "seconds each; 0: none", gt=0, le=60, zero_is_none=True,
                                  unit=" seconds", metavar="SECONDS")
    mode: Literal["fast", "slow"] = setting("fast", "how")
    verbose: bool = setting(False, "say more")
    tags: tuple[Annotated[str, Field(min_length=1)], ...] = setting((), "labels", metavar="TAG")


def parser_of(model) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toy", exit_on_error=False)
    model.add_flags(parser)
    return parser


def test_the_rules_in_words():
    fields = Sizes.model_fields
    assert rule(fields["count"]) == "an integer from 1 to 1000"
    assert rule(fields["limit"]) == "a number above 0 and at most 60 or null"
    assert rule(fields["limit"], command_line=True) == "a number from 0 to 60 seconds"
    assert rule(fields["mode"]) == "one of fast, slow"
    assert rule(fields["verbose"]) == "true or false"
    assert rule(fields["tags"]) == "a list of non-empty strings"
    assert rule(TournamentConfig.model_fields["agents"]) == "a list of non-empty strings (at least 2)"


def test_flags_come_from_the_model_and_make_its_settings():
    args = parser_of(Sizes).parse_args(["--count", "7", "--limit", "0", "--mode", "slow", "--verbose",
                                        "--tags", "a", "b"])
    sizes = Sizes.from_flags(args, name="x")
    assert (sizes.count, sizes.limit, sizes.mode, sizes.verbose, sizes.tags) == (7, None, "slow", True,
                                                                                 ("a", "b"))
    defaults = Sizes.from_flags(parser_of(Sizes).parse_args([]), name="x")
    assert (defaults.count, defaults.limit, defaults.mode, defaults.verbose) == (10, 5.0, "fast", False)
    help_text = " ".join(parser_of(Sizes).format_help().split())
    assert "--count COUNT how many (default 10; an integer from 1 to 1000)" in help_text
    assert "--limit SECONDS seconds each; 0: none (default 5; a number from 0 to 60 seconds)" in help_text


@pytest.mark.parametrize("argv, message", [
    (["--count", "0"], "argument --count: must be an integer from 1 to 1000, not 0"),
    (["--count", "x"], "argument --count: not an integer: 'x'"),
    (["--count", ""], "argument --count: needs a value, not an empty text"),
    (["--limit", "61"], "argument --limit: must be a number from 0 to 60 seconds, not 61"),
    (["--limit", "nan"], "argument --limit: must be a number from 0 to 60 seconds, not nan"),
    (["--mode", "medium"], "argument --mode: invalid choice: 'medium'"),
])
def test_a_bad_flag_is_one_line_from_the_parser(argv, message):
    with pytest.raises(argparse.ArgumentError) as err:
        parser_of(Sizes).parse_args(argv)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_value_the_command_works_out_is_checked_too():
    args = parser_of(Sizes).parse_args([])
    with pytest.raises(OptionError, match=r"^'name' must be a non-empty string, not $"):
        Sizes.from_flags(args, name="")
    with pytest.raises(SettingsError, match=r"^'count' must be an integer from 1 to 1000, not 0$"):
        Sizes(name="x", count=0)


def test_the_stored_form_is_the_dump_and_loading_checks_it_strictly():
    sizes = Sizes(name="x", count=3, tags=("a",))
    stored = json.loads(json.dumps(sizes.dump()))
    assert stored == {"name": "x", "count": 3, "limit": 5.0, "mode": "fast", "verbose": False, "tags": ["a"]}
    assert Sizes.load(stored, "run/config.json") == sizes
    bad = [({"count": "3"}, "'count' must be an integer from 1 to 1000, not '3'"),
           ({"count": 3.0}, "'count' must be an integer from 1 to 1000, not 3.0"),
           ({"count": True}, "'count' must be an integer from 1 to 1000, not true"),
           ({"limit": 0}, "'limit' must be a number above 0 and at most 60 or null, not 0"),
           ({"tags": [""]}, "'tags' must be a list of non-empty strings, not ['']"),
           ({"other": 1}, "unknown setting 'other' (settings: name, count, limit, mode, verbose, tags)")]
    for change, message in bad:
        with pytest.raises(SettingsError) as err:
            Sizes.load({**stored, **change}, "run/config.json")
        assert str(err.value) == f"run/config.json: {message}"
    with pytest.raises(SettingsError, match="^run/config.json: not a toy run's settings"):
        Sizes.load([1], "run/config.json")


def test_resuming_refuses_a_setting_given_differently():
    stored = Sizes(name="x", count=3, limit=None, verbose=True)
    parser = parser_of(Sizes)
    stored.refuse_changes(parser.parse_args(["--count", "3", "--limit", "0"]), "run")  # the same: fine
    stored.refuse_changes(parser.parse_args([]), "run")
    with pytest.raises(OptionError, match=r"^--count 4 conflicts with 3 stored in 'run': --resume continues"):
        stored.refuse_changes(parser.parse_args(["--count", "4"]), "run")
    with pytest.raises(OptionError, match=r"^--limit 2.0 conflicts with none stored in 'run'"):
        stored.refuse_changes(parser.parse_args(["--limit", "2"]), "run")
    with pytest.raises(OptionError, match=r"^'name'|^--name x2 conflicts"):
        stored.refuse_changes(parser.parse_args([]), "run", name="x2")


class ExtendedTournament(TournamentConfig):
    """The tournament's model with one more setting: one line."""

    rounds: int = setting(2, "a new setting", ge=1, le=9)


def test_a_setting_added_to_a_model_brings_its_flag_stored_value_and_resume_check():
    parser = argparse.ArgumentParser(exit_on_error=False)
    ExtendedTournament.add_flags(parser)
    assert "--rounds" in parser.format_help() and "--deals" in parser.format_help()
    args = parser.parse_args(["--rounds", "4", "--deals", "3"])
    config = ExtendedTournament.from_flags(args, game="coins", agents=("random", "heuristic"))
    stored = config.dump()
    assert stored["rounds"] == 4 and stored["deals"] == 3
    assert ExtendedTournament.load(stored, "config.json").dump() == stored
    with pytest.raises(SettingsError, match="'rounds' must be an integer from 1 to 9, not 10"):
        ExtendedTournament.load({**stored, "rounds": 10}, "config.json")
    with pytest.raises(argparse.ArgumentError, match="must be an integer from 1 to 9, not 0"):
        parser.parse_args(["--rounds", "0"])
    config.refuse_changes(parser.parse_args(["--rounds", "4"]), "folder")
    with pytest.raises(OptionError, match="--rounds 5 conflicts with 4 stored in 'folder'"):
        config.refuse_changes(parser.parse_args(["--rounds", "5"]), "folder")


class Switches(Settings):
    verbose: bool = setting(False, "say more")
    confirm: bool = setting(True, "skip the confirmation")


def test_a_switch_given_on_resume_says_which_way_the_run_was_started():
    parser = parser_of(Switches)
    assert "--no-confirm" in parser.format_help()
    plain, changed = Switches(), Switches(verbose=True, confirm=False)
    started_without = r"conflicts with the run in 'run', started without it"
    with pytest.raises(OptionError, match=r"^--verbose " + started_without):
        plain.refuse_changes(parser.parse_args(["--verbose"]), "run")
    with pytest.raises(OptionError, match=r"^--no-confirm " + started_without):
        plain.refuse_changes(parser.parse_args(["--no-confirm"]), "run")
    changed.refuse_changes(parser.parse_args(["--verbose", "--no-confirm"]), "run")  # the same: fine
