"""Published results are made from their results folders (experiments/harness/publish.py): a
run keeps how it was made (run.json), `slagwerk report DIR --page` and the site's marked
sections state command, groups, seed, date and commit, and every marked section of docs/ is
what its stored folder makes."""

from __future__ import annotations

import json

from paths import REPO
from slagwerk.cli import main
from slagwerk.experiments.harness.publish import MARKED, refresh_page, tournament_page


def test_a_run_keeps_how_it_was_made_and_its_page_says_it(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "run"
    argv = ["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "2", "--seed", "4",
            "--results", str(folder), "--quiet"]
    monkeypatch.setattr("sys.argv", ["slagwerk", *argv])
    assert main(argv) == 0
    facts = json.loads((folder / "run.json").read_text())
    assert facts["command"] == "slagwerk " + " ".join(argv)
    assert facts["started"].endswith(" UTC") and facts["slagwerk"]
    capsys.readouterr()
    assert main(["report", str(folder), "--page"]) == 0
    page = capsys.readouterr().out
    assert page == tournament_page(folder)
    assert f"- command: `{facts['command']}`" in page
    assert "- 2 duplicate groups, 6 games (unit deal), seed 4" in page
    assert f"- run: {facts['started']}, commit " in page
    assert "| 1 | `heuristic` |" in page or "| 1 | `random` |" in page

    doc = tmp_path / "page.md"
    marker = "<!-- results: run | Coins, a tiny run -->\n"
    doc.write_text(f"Before.\n\n{marker}stale\n<!-- /results -->\n\nAfter.\n")
    made = refresh_page(doc)
    assert made.startswith("Before.\n\n<!-- results: run | Coins, a tiny run -->\n**Coins, a tiny run**\n")
    assert made.endswith("<!-- /results -->\n\nAfter.\n") and "stale" not in made
    doc.write_text(made)
    assert refresh_page(doc) == made


def test_every_published_section_is_what_its_stored_folder_makes():
    """`python -m slagwerk.experiments.harness.publish PAGE` makes them; nobody types them."""
    pages = [page for page in (REPO / "docs").rglob("*.md")
             if MARKED.search(page.read_text(encoding="utf-8"))]
    assert REPO / "docs" / "learned.md" in pages  # the Coins run stored in docs/results/runs
    for page in pages:
        assert refresh_page(page) == page.read_text(encoding="utf-8"), \
            f"{page} is stale: python -m slagwerk.experiments.harness.publish {page}"
