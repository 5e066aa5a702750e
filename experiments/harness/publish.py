"""A finished tournament as a page of the documentation site (``slagwerk report DIR --page``).

A figure published by hand drifts from the run that made it. This section is made from the
results folder alone: its games (rated again, as ``slagwerk report`` does), its settings, and
``run.json`` (the command, date, version and commit of the run), so that every table says how
it was made.

A page of the site marks where such a section goes, naming the folder relative to the page
(docs/results/runs/ keeps the folders, their games included):

    <!-- results: runs/NAME | an optional title -->
    ...made by refresh_page, never edited by hand...
    <!-- /results -->

``python -m slagwerk.experiments.harness.publish PAGE...`` makes the marked sections again;
tests/test_publish.py checks that every page of docs/ is as its folders make it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from .report import load_tournament
from .results import RUN_FACTS, ResultsFolder
from .tournament import head_to_head_markdown, points_meaning, separated_from_next


def tournament_page(path, title: str | None = None) -> str:
    """The Markdown section of the finished tournament in ``path`` (see the module doc)."""
    result, _ = load_tournament(path)
    config, ratings = result.config, result.ratings
    facts = ResultsFolder(path).read(RUN_FACTS) or {}
    command = facts.get("command") or "(not run by the slagwerk command)"
    commit = facts.get("commit") or f"slagwerk {facts.get('slagwerk', '?')}, not from a git checkout"
    out = [
        f"**{title or f'{config.game}: ' + ', '.join(config.agents)}**",  # fits under any heading
        "",
        f"- command: `{command}`",
        f"- {ratings.groups} duplicate groups, {result.games} games (unit {config.unit}), seed {config.seed}"
        + (f", options {dict(config.options)}" if config.options else ""),
        f"- run: {facts.get('started', 'date not recorded')}, commit {commit}",
        "- rating: Elo from who finished ahead in each duplicate group, with 95% "
        f"profile-likelihood intervals; score: {points_meaning(config.game)}",
        "",
        "| # | agent | rating | 95% interval | separated from the next | score |",
        "| ---: | --- | ---: | --- | --- | ---: |",
    ]
    for rank, (row, below) in enumerate(zip(ratings.ranking, separated_from_next(ratings)), start=1):
        score = "-" if row.mean_score is None else f"{row.mean_score:.3f}"
        out.append(f"| {rank} | `{row.agent}` | {row.rating:.0f} | {row.interval_text(0)} "
                   f"| {below} | {score} |")
    out += ["", "Head to head, duplicate groups won-drawn-lost, row against column (their sum: the groups "
            "the pair met):", "", *head_to_head_markdown(ratings)]
    if result.forfeits:
        out += ["", f"{len(result.forfeits)} games were lost by forfeit (games.jsonl says why)."]
    return "\n".join(out) + "\n"


MARKED = re.compile(r"(<!-- results: (?P<folder>[^|>]+?)(?: \| (?P<title>[^>]+?))? -->\n)(?P<body>.*?)"
                    r"(<!-- /results -->)", re.DOTALL)


def refresh_page(page: Path) -> str:
    """The text of ``page`` with every marked section made again from its folder."""
    page = Path(page)

    def section(match: re.Match) -> str:
        folder = page.parent / match["folder"].strip()
        title = match["title"].strip() if match["title"] else None
        return match.group(1) + tournament_page(folder, title) + match.group(5)

    return MARKED.sub(section, page.read_text(encoding="utf-8"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m slagwerk.experiments.harness.publish",
        description="Make every marked results section of the pages again from its stored folder.")
    parser.add_argument("pages", nargs="+", type=Path, help="Markdown pages to refresh in place")
    for page in parser.parse_args(argv).pages:
        if not page.is_file():
            parser.exit(2, f"publish: no page {page}\n")
        page.write_text(refresh_page(page), encoding="utf-8")
        print(page)


if __name__ == "__main__":
    main()
