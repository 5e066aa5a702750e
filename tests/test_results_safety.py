"""Results folders trust nothing: no links followed, nothing clobbered, lines checked, one-line failures."""

from __future__ import annotations

import errno
import json
import os
import random
import shutil

import pytest

from slagwerk import __version__, safe_files
from slagwerk.cli import main
from slagwerk.experiments.harness.results import FaultLog, ResultsFolder
from slagwerk.experiments.harness.runner import ExperimentError
from slagwerk.experiments.harness.tournament import TournamentConfig, run_tournament
from slagwerk.experiments.tuning import TuneConfig, run_tuning
from slagwerk.safe_files import AppendLog, SafeFileError

SMALL = TournamentConfig("coins", ("random", "heuristic"), deals=4, seed=4, bootstrap=20)
CLI = ["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "4", "--seed", "4",
       "--jobs", "1", "--quiet", "--bootstrap", "20"]


def played(folder, config=SMALL):
    run_tournament(config, folder, jobs=1, progress=False)
    return folder


def games_without_time(folder) -> dict:
    games = ResultsFolder.open(folder).load_games()
    return {index: {k: v for k, v in line.items() if k not in ("time", "think")}
            for index, line in games.items()}


def one_line_error(capsys, *parts):
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------------ links and existing files


@pytest.mark.parametrize("name", ["games.jsonl", "summary.md", "summary.json", "config.json"])
def test_a_symlink_in_a_resumed_folder_is_refused_and_its_target_untouched(tmp_path, name):
    folder = played(tmp_path / "run")
    victim = tmp_path / "victim.txt"
    victim.write_bytes((folder / name).read_bytes() + b"torn")  # as if a line had been cut in half
    before = victim.read_bytes()
    (folder / name).unlink()
    (folder / name).symlink_to(victim)
    with pytest.raises(SafeFileError, match="symbolic link"):
        run_tournament(None, folder, resume=True, jobs=1, progress=False)
    assert victim.read_bytes() == before
    assert (folder / name).is_symlink()


def test_a_planted_temporary_name_redirects_nothing(tmp_path):
    folder = played(tmp_path / "run")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    for name in ("summary.json.tmp", "config.json.tmp", ".summary.json.tmp"):
        (folder / name).symlink_to(victim)
    run_tournament(None, folder, resume=True, jobs=1, progress=False)
    assert victim.read_text() == "precious"
    assert not (folder / "summary.json").is_symlink()
    assert json.loads((folder / "summary.json").read_text())["games"] == 12


def test_a_symlinked_results_folder_is_refused(tmp_path, capsys):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert main(CLI + ["--results", str(tmp_path / "link")]) == 2
    one_line_error(capsys, "symbolic link", "link")
    assert list((tmp_path / "real").iterdir()) == []
    played(tmp_path / "done")
    (tmp_path / "done-link").symlink_to(tmp_path / "done")
    with pytest.raises(SafeFileError, match="symbolic link"):
        run_tournament(None, tmp_path / "done-link", resume=True, jobs=1, progress=False)


def test_results_never_overwrite_a_folder_that_holds_something_unless_forced(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "summary.md").write_text("my own notes")
    (folder / "other.txt").write_text("keep me")
    assert main(CLI + ["--results", str(folder)]) == 2
    one_line_error(capsys, "is not empty", "--force", str(folder))
    assert (folder / "summary.md").read_text() == "my own notes"
    assert sorted(p.name for p in folder.iterdir()) == ["other.txt", "summary.md"]

    assert main(CLI + ["--results", str(folder), "--force"]) == 0
    capsys.readouterr()
    assert (folder / "other.txt").read_text() == "keep me"
    assert "| # | agent | rating |" in (folder / "summary.md").read_text()
    assert len((folder / "games.jsonl").read_text().splitlines()) == 12

    # An earlier tournament: refused without --force, replaced (not appended to) with it.
    assert main(CLI + ["--results", str(folder)]) == 2
    one_line_error(capsys, "already holds a tournament", "--resume", "--force")
    argv = list(CLI)
    argv[argv.index("--seed") + 1] = "5"
    assert main(argv + ["--results", str(folder), "--force"]) == 0
    capsys.readouterr()
    assert len((folder / "games.jsonl").read_text().splitlines()) == 12
    assert json.loads((folder / "config.json").read_text())["seed"] == 5



def test_force_clears_an_earlier_run_of_any_kind_and_keeps_foreign_files(tmp_path, capsys):
    """--force over a folder of another kind of run (a single game, several games, a tuning
    run) leaves none of its settings or results beside the new run, so that `report` and
    `--resume` find only the new one; files no run writes stay."""
    folder = tmp_path / "run"
    assert main(CLI + ["--results", str(folder)]) == 0  # coins, at the top
    (folder / "bot-mine.stderr.log").write_text("a bot's old log")
    (folder / "notes.txt").write_text("keep me")
    several = ["tournament", "--game", "kozel", "--game", "aluette", "--agents", "random", "heuristic",
               "--deals", "1", "--seed", "2", "--jobs", "1", "--quiet", "--bootstrap", "20"]
    assert main(several + ["--results", str(folder), "--force"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["aluette", "kozel", "notes.txt"]
    assert main(["report", str(folder)]) == 0
    assert main(["tournament", "--resume", str(folder), "--quiet", "--json"]) == 0
    resumed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["game"] for r in resumed] == ["kozel", "aluette"]

    tune = ["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0", "--param",
            "iterations=4", "--opponents", "random", "--budget", "60", "--groups", "1", "--seed", "3",
            "--jobs", "1", "--quiet", "--no-confirm", "--results", str(folder), "--force"]
    assert main(tune) == 0
    left = sorted(p.name for p in folder.iterdir())
    assert "games.jsonl" not in left and "report.md" not in left and "notes.txt" in left
    assert not list((folder / "kozel").iterdir()) and not list((folder / "aluette").iterdir())
    assert main(["tune", "--resume", str(folder), "--quiet", "--jobs", "1"]) == 0

    assert main(CLI + ["--results", str(folder), "--force"]) == 0
    left = sorted(p.name for p in folder.iterdir())
    assert not {"best.json", "evaluations.jsonl", "trajectory.png"} & set(left), left
    assert main(["report", str(folder)]) == 0
    capsys.readouterr()


def test_the_list_of_run_files_covers_every_kind_of_run():
    """--force knows every file a run writes, also of the kinds defined in modules that
    import the results folder's (curve experiments, tuning runs, the belief experiment)."""
    from slagwerk.experiments.harness.results import _folder_kinds, run_files
    from slagwerk.experiments.studies import belief_accuracy, budget  # noqa: F401
    from slagwerk.experiments.tuning import folder  # noqa: F401

    kinds = _folder_kinds()
    assert {kind.KIND for kind in kinds} >= {"tournament", "curve experiment", "tuning run"}
    for kind in kinds:
        assert {kind.LOG, *kind.FILES} <= run_files(), kind.KIND
    assert set(belief_accuracy.FILES) <= run_files()


def test_force_cannot_be_combined_with_resume(tmp_path, capsys):
    played(tmp_path / "run")
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", "--resume", str(tmp_path / "run"), "--force", "--quiet"])
    assert exit_.value.code == 2
    assert "error: argument --force: not allowed with argument --resume" in capsys.readouterr().err


def test_tuning_refuses_a_folder_with_files_and_writes_no_link(tmp_path, capsys):
    base = ["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0", "--param",
            "iterations=4", "--opponents", "random", "--budget", "60", "--groups", "1", "--seed", "3",
            "--jobs", "1", "--quiet", "--no-confirm", "--results", str(tmp_path / "t")]
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "best.json").write_text("{}")
    assert main(base) == 2
    one_line_error(capsys, "is not empty")
    assert main(base + ["--force"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "t" / "best.json").read_text())["agent"] == "ismcts"
    victim = tmp_path / "victim.json"
    victim.write_text("precious")
    (tmp_path / "t" / "best.json").unlink()
    (tmp_path / "t" / "best.json").symlink_to(victim)
    assert main(["tune", "--resume", str(tmp_path / "t"), "--quiet", "--jobs", "1"]) == 2
    one_line_error(capsys, "symbolic link", "best.json")
    assert victim.read_text() == "precious"


# ------------------------------------------------------------------ the primitives


def test_safe_file_primitives(tmp_path):
    safe_files.create_file(tmp_path, "a.json", b"1")
    with pytest.raises(SafeFileError, match="cannot create .*a.json.*exists"):
        safe_files.create_file(tmp_path, "a.json", b"2")
    assert (tmp_path / "a.json").read_bytes() == b"1"
    safe_files.replace_file(tmp_path, "a.json", b"3")
    assert (tmp_path / "a.json").read_bytes() == b"3"
    assert safe_files.read_file(tmp_path, "missing") is None
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(SafeFileError, match="not a regular file"):
        safe_files.read_file(tmp_path, "fifo")  # refused at once, never waiting for a writer
    with pytest.raises(SafeFileError, match="not a regular file"):
        AppendLog(tmp_path, "fifo")
    os.link(tmp_path / "a.json", tmp_path / "b.json")
    with pytest.raises(SafeFileError, match="hard links"):
        AppendLog(tmp_path, "a.json")
    with AppendLog(tmp_path, "log", new=True) as log:
        log.append(b"x\n")
        with pytest.raises(SafeFileError, match="another process is writing"):
            AppendLog(tmp_path, "log")
    with pytest.raises(SafeFileError, match="exists"):
        AppendLog(tmp_path, "log", new=True)
    assert safe_files.remove_file(tmp_path, "log") and not safe_files.remove_file(tmp_path, "log")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "fifo"]
    # several writers at once (a bot's standard error in every worker): the same refusals, no lock
    for name, reason in (("fifo", "not a regular file"), ("a.json", "hard links")):
        with pytest.raises(SafeFileError, match=reason):
            safe_files.open_for_append(tmp_path, name)
    os.symlink(tmp_path / "a.json", tmp_path / "link")
    with pytest.raises(SafeFileError, match="link"):
        safe_files.open_for_append(tmp_path, "link")
    first, second = (safe_files.open_for_append(tmp_path, "shared") for _ in range(2))
    os.write(first, b"1\n"), os.write(second, b"2\n")
    os.close(first), os.close(second)
    assert (tmp_path / "shared").read_bytes() == b"1\n2\n"


def test_a_planted_faults_log_is_warned_of_and_costs_no_game(tmp_path, capsys):
    """faults.log in a folder from elsewhere: a FIFO there neither hangs the run nor stops it."""
    os.mkfifo(tmp_path / "faults.log")
    log = FaultLog(tmp_path)
    line = {"index": 3, "forfeit": {"seat": 1, "agent": "buggy", "error": "KeyError: 'x'"}}
    log.add(line, "Traceback ...\n")
    log.add({**line, "index": 4}, "Traceback ...\n")
    log.close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning: the agents' tracebacks are not kept" in err
    assert "not a regular file" in err


def test_a_failed_replace_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    (tmp_path / "summary.json").write_text("old")

    def no_rename(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(safe_files.os, "replace", no_rename)
    with pytest.raises(SafeFileError, match=r"cannot write .*summary.json.*: Input/output error"):
        safe_files.replace_file(tmp_path, "summary.json", b"new")
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
    assert (tmp_path / "summary.json").read_text() == "old"


# ------------------------------------------------------------------ every line checked on resume


def test_resume_refuses_another_runs_games(tmp_path):
    mine = played(tmp_path / "mine")
    swapped = played(tmp_path / "swapped", TournamentConfig("coins", ("heuristic", "random"), deals=4, seed=4,
                                                            bootstrap=20))
    shutil.copy(swapped / "games.jsonl", mine / "games.jsonl")
    with pytest.raises(ExperimentError, match=r"games.jsonl: line 1 \(game 0\) has agents .* another run"):
        run_tournament(None, mine, resume=True, jobs=1, progress=False)

    other_seed = played(tmp_path / "seed5", TournamentConfig("coins", ("random", "heuristic"), deals=4,
                                                             seed=5, bootstrap=20))
    shutil.copy(other_seed / "games.jsonl", mine / "games.jsonl")
    with pytest.raises(ExperimentError, match=r"line 1 \(game 0\) has seed"):
        run_tournament(None, mine, resume=True, jobs=1, progress=False)

    other_target = played(tmp_path / "target", TournamentConfig("coins", ("random", "heuristic"), deals=4,
                                                                seed=4, options=(("target", 15),),
                                                                bootstrap=20))
    shutil.copy(other_target / "games.jsonl", mine / "games.jsonl")
    with pytest.raises(ExperimentError, match=r"line 1 \(game 0\) has run"):
        run_tournament(None, mine, resume=True, jobs=1, progress=False)


@pytest.mark.parametrize("change, message", [
    (lambda lines: lines + [lines[3]], r"line 13 repeats game 3 of line 4"),
    (lambda lines: lines[:-1] + [lines[-1].replace('"index":11', '"index":99')],
     r"line 12 is game 99, outside"),
    (lambda lines: [lines[0].replace('"reward":[', '"reward":[7,')] + lines[1:], r"line 1 .* no reward"),
    (lambda lines: ["{}"] + lines[1:], r"line 1 is not a game result"),
])
def test_resume_refuses_a_tampered_log(tmp_path, change, message):
    folder = played(tmp_path / "run")
    lines = (folder / "games.jsonl").read_text().splitlines()
    (folder / "games.jsonl").write_text("\n".join(change(lines)) + "\n")
    with pytest.raises(ExperimentError, match=message):
        run_tournament(None, folder, resume=True, jobs=1, progress=False)


def test_resume_refuses_a_folder_of_another_version(tmp_path):
    folder = played(tmp_path / "run")
    config = json.loads((folder / "config.json").read_text())
    assert config["slagwerk"] == __version__
    config["slagwerk"] = "0.0.1"
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ExperimentError, match="written by slagwerk '0.0.1'"):
        run_tournament(None, folder, resume=True, jobs=1, progress=False)
    del config["slagwerk"]
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ExperimentError, match="names no slagwerk version"):
        run_tournament(None, folder, resume=True, jobs=1, progress=False)


@pytest.mark.parametrize("flags, message", [
    (["--seed", "9"], "--seed 9 conflicts with 4 stored in"),
    (["--seed", "1"], "--seed 1 conflicts with 4 stored in"),  # the default, given explicitly
    (["--agents", "heuristic", "random"], "--agents heuristic random conflicts with random heuristic"),
    (["--deals", "5"], "--deals 5 conflicts with 4"),
    (["--game", "kozel"], "--game kozel conflicts with coins"),
    (["--target", "15"], "--option (or a game option's own flag) first_dealer=0,hand=16,ranks=12,target=15 "
                         "conflicts with first_dealer=0,hand=16,ranks=12,target=10"),
    (["--unit", "match"], "--unit match conflicts with deal"),
    (["--move-time", "5"], "--move-time 5.0 conflicts with 60.0"),
    (["--records"], "--records conflicts with the run in"),
    (["--bootstrap", "30"], "--bootstrap 30 conflicts with 20"),
])
def test_resume_refuses_conflicting_flags(tmp_path, capsys, flags, message):
    folder = tmp_path / "run"
    assert main(CLI + ["--results", str(folder)]) == 0
    capsys.readouterr()
    size = (folder / "games.jsonl").stat().st_size
    assert main(["tournament", "--resume", str(folder), "--quiet", "--jobs", "1"] + flags) == 2
    one_line_error(capsys, message, str(folder))
    assert (folder / "games.jsonl").stat().st_size == size


def test_resume_accepts_flags_that_agree(tmp_path, capsys):
    folder = tmp_path / "run"
    assert main(CLI + ["--results", str(folder)]) == 0
    first = capsys.readouterr().out
    assert main(CLI + ["--resume", str(folder), "--target", "10"]) == 0
    assert capsys.readouterr().out == first


def test_agent_files_are_stored_as_values_and_never_read_again(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.json").write_text(json.dumps({"iterations": 3}))
    assert main(["tournament", "--game", "coins", "--agents", "random", "ismcts:@p.json", "--deals", "2",
                 "--jobs", "1", "--quiet", "--bootstrap", "10", "--results", "r"]) == 0
    first = capsys.readouterr().out
    agents = json.loads((tmp_path / "r" / "config.json").read_text())["agents"]
    assert agents == ["random", "ismcts:iterations=3"]
    (tmp_path / "p.json").write_text(json.dumps({"iterations": 5}))
    assert main(["tournament", "--resume", "r", "--agents", "random", "ismcts:@p.json", "--quiet"]) == 2
    one_line_error(capsys, "--agents random ismcts:iterations=5 conflicts with random ismcts:iterations=3")
    (tmp_path / "p.json").unlink()
    assert main(["tournament", "--resume", "r", "--quiet", "--jobs", "1"]) == 0
    assert capsys.readouterr().out == first


def test_tune_resume_refuses_conflicting_flags_and_foreign_lines(tmp_path, capsys):
    settings = dict(game="coins", agent="ismcts", params=("c=0.1:3.0", "iterations=4"), opponents=("random",),
                    budget=60, groups=1, seed=3, confirm=False)
    run_tuning(TuneConfig(**settings), tmp_path / "a", progress=False)
    own = (tmp_path / "a" / "evaluations.jsonl").read_text().splitlines()
    assert main(["tune", "--resume", str(tmp_path / "a"), "--budget", "90", "--quiet"]) == 2
    one_line_error(capsys, "--budget 90 conflicts with 60")
    assert main(["tune", "--resume", str(tmp_path / "a"), "--opponents", "heuristic", "--quiet"]) == 2
    one_line_error(capsys, "--opponents heuristic conflicts with random")

    # The same optimiser path (same seed, agent and parameters) against other opponents.
    run_tuning(TuneConfig(**{**settings, "opponents": ("heuristic",)}), tmp_path / "b", progress=False)
    shutil.copy(tmp_path / "b" / "evaluations.jsonl", tmp_path / "a" / "evaluations.jsonl")
    with pytest.raises(ExperimentError, match=r"line 1 \(evaluation 0\) has run .* another run"):
        run_tuning(None, tmp_path / "a", resume=True, progress=False)
    (tmp_path / "a" / "evaluations.jsonl").write_text("\n".join(own + own[:1]) + "\n")
    with pytest.raises(ExperimentError, match="line 21 is evaluation 0, expected 20"):
        run_tuning(None, tmp_path / "a", resume=True, progress=False)



@pytest.mark.parametrize("change, message", [
    ({"options": "x"}, "'options' must be an object of integers, not 'x'"),
    ({"move_time": "x"}, "'move_time' must be a number above 0 and at most 604800 or null, not 'x'"),
    ({"opponents": [1]}, "'opponents' must be a list of non-empty strings (at least 1), not [1]"),
    ({"alpha": 2}, "'alpha' must be a number above 0 and below 0.5, not 2"),
    ({"zzz": 1}, "unknown setting 'zzz' (settings: elo0, elo1, alpha, beta, max_groups, game, "),
])
def test_a_tampered_tuning_config_is_a_one_line_error(tmp_path, capsys, change, message):
    """A tuning run's config.json edited by hand: `tune --resume` names the file, the key and
    the value in one line."""
    folder = tmp_path / "t"
    assert main(["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0", "--param",
                 "iterations=4", "--opponents", "random", "--budget", "60", "--groups", "1", "--seed", "3",
                 "--jobs", "1", "--quiet", "--no-confirm", "--results", str(folder)]) == 0
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **change}))
    capsys.readouterr()
    assert main(["tune", "--resume", str(folder), "--quiet", "--jobs", "1"]) == 2
    line = one_line_error(capsys, f"{folder / 'config.json'}: ")
    assert message in line, line


def test_a_confirmation_of_another_run_is_refused(tmp_path):
    config = TuneConfig(game="coins", agent="ismcts", params=("c=0.1:3.0", "iterations=4"),
                        opponents=("random",), budget=60, groups=1, seed=3, max_groups=6)
    result = run_tuning(config, tmp_path / "a", progress=False)
    assert result.confirmation is not None
    again = run_tuning(None, tmp_path / "a", resume=True, progress=False)
    assert again.confirmation.as_json() == result.confirmation.as_json()
    path = tmp_path / "a" / "confirmation.json"
    planted = json.loads(path.read_text())
    planted["result"]["verdict"] = "H1"
    del planted["run"]  # e.g. the SPRT of the same specs with other SPRT settings
    path.write_text(json.dumps(planted))
    with pytest.raises(ExperimentError, match="confirmation.json is not the confirmation of this run"):
        run_tuning(None, tmp_path / "a", resume=True, progress=False)


# ------------------------------------------------------------------ damaged tails


@pytest.mark.parametrize("tail, what, lines_dropped", [
    (b'{"index": 4', "a torn last line", 1),
    (b"\x00" * 4096, "NUL bytes", 1),
    (b'{"index":3,"gro' + b"\x00" * 300 + b"\n" + b"\x00" * 200 + b'{"index": 1}\n', "NUL bytes", 2),
])
def test_a_damaged_tail_is_cut_back_to_the_last_complete_game(tmp_path, capsys, tail, what, lines_dropped):
    fresh = played(tmp_path / "fresh")
    folder = tmp_path / "crashed"
    folder.mkdir()
    shutil.copy(fresh / "config.json", folder / "config.json")
    kept = b"".join((fresh / "games.jsonl").read_bytes().splitlines(keepends=True)[:5])
    (folder / "games.jsonl").write_bytes(kept + tail)
    capsys.readouterr()
    resumed = run_tournament(None, folder, resume=True, jobs=1, progress=False)
    err = capsys.readouterr().err
    assert "games.jsonl: damaged tail cut back to line 5, the last complete one" in err
    assert f"dropped {len(tail)} bytes, {lines_dropped} incomplete line" in err and f"({what}" in err
    data = (folder / "games.jsonl").read_bytes()
    assert data.startswith(kept) and b"\x00" not in data
    assert games_without_time(folder) == games_without_time(fresh)
    assert resumed.ratings == run_tournament(None, fresh, resume=True, jobs=1, progress=False).ratings


@pytest.mark.parametrize("damage", ["nul_in_a_middle_line", "random_bytes"])
def test_nul_bytes_followed_by_finished_games_are_refused_not_cut(tmp_path, capsys, damage):
    """Only a crash's tail is cut: NULs with whole lines after them are damage
    elsewhere, and cutting there would drop finished games."""
    fresh = played(tmp_path / "fresh")
    folder = tmp_path / "damaged"
    folder.mkdir()
    shutil.copy(fresh / "config.json", folder / "config.json")
    lines = (fresh / "games.jsonl").read_bytes().splitlines(keepends=True)
    if damage == "nul_in_a_middle_line":
        lines[2] = lines[2][:10] + b"\x00" * 4 + lines[2][14:]
        data, where = b"".join(lines), "line 3 holds NUL bytes, yet 9 complete lines follow it"
    else:
        data = random.Random(3).randbytes(20000)
        where = "holds NUL bytes, yet"
    (folder / "games.jsonl").write_bytes(data)
    capsys.readouterr()
    assert main(["tournament", "--resume", str(folder), "--quiet", "--jobs", "1"]) == 2
    one_line_error(capsys, "games.jsonl", where, "nothing is cut")
    assert (folder / "games.jsonl").read_bytes() == data
    assert main(["report", str(folder)]) == 2
    one_line_error(capsys, where)


# ------------------------------------------------------------------ every failure is one line


def test_a_results_folder_under_a_file_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "file").write_text("not a folder")
    assert main(CLI + ["--results", str(tmp_path / "file" / "run")]) == 2
    one_line_error(capsys, "cannot create folder", "file/run", "Not a directory")
    assert main(["tune", "--game", "coins", "--agent", "ismcts", "--param", "c=0.1:3.0", "--param",
                 "iterations=4", "--opponents", "random", "--budget", "60", "--groups", "1", "--quiet",
                 "--results", str(tmp_path / "file" / "t")]) == 2
    one_line_error(capsys, "cannot create folder", "Not a directory")


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES, errno.ENOSPC])
def test_a_folder_that_cannot_be_written_is_a_one_line_error(tmp_path, capsys, monkeypatch, code):
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR) and str(path) == "config.json":
            raise OSError(code, os.strerror(code), path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    assert main(CLI + ["--results", str(tmp_path / "run")]) == 2
    one_line_error(capsys, "cannot create", os.path.join("run", "config.json"), os.strerror(code))


def test_a_full_disk_mid_run_keeps_every_finished_game(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "full"
    real_write = os.write
    lines = []

    def filling_write(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("games.jsonl"):
            lines.append(bytes(data))
            if len(lines) == 6:  # half of the sixth line reaches the disk, then the disk is full
                return real_write(fd, bytes(data)[: len(data) // 2])
            if len(lines) > 6:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", filling_write)
    assert main(CLI + ["--results", str(folder)]) == 2
    one_line_error(capsys, "cannot write", "games.jsonl", "No space left on device", "--resume")
    data = (folder / "games.jsonl").read_bytes()
    assert data.endswith(b"\n") and len(data.splitlines()) == 5  # the torn sixth line was cut back
    monkeypatch.setattr(os, "write", real_write)
    assert main(["tournament", "--resume", str(folder), "--quiet", "--jobs", "1"]) == 0
    capsys.readouterr()
    assert (folder / "games.jsonl").read_bytes().startswith(data)
    assert games_without_time(folder) == games_without_time(played(tmp_path / "fresh"))
