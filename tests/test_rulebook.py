"""The rule book, docs/rules.md, and what cites it.

Code, docs and tests cite rules as ``docs/rules.md §3.10`` (several sections
may follow one another: ``docs/rules.md §2.4, §2.5``) and design notes as
``docs/design.md §4``; markdown links point at headings (``rules.md#35-...``).
Every citation must name a section that exists, every Ruling of the rule book
must be checked by a test that names it, and so must every rule of a game.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from paths import REPO

DOCS = REPO / "docs"
RULES = DOCS / "rules.md"
DESIGN = DOCS / "design.md"
TESTS = REPO / "tests"

# the repository's own text files (not the installed copies, caches or fixtures' data)
SOURCE_DIRS = ("engine", "search", "agents", "experiments", "slagwerk", "tests", "docs")
HEADING = re.compile(r"^(#{2,4}) §(\d+(?:\.\d+)?) +(.+?)\s*$", re.MULTILINE)
SECTION = re.compile(r"§(\d+(?:\.\d+)?)")
CITE_RULES = re.compile(r"rules\.md((?:(?:,|\s|and)+§\d+(?:\.\d+)?)+)")
CITE_DESIGN = re.compile(r"design\.md((?:(?:,|\s|and)+§\d+(?:\.\d+)?)+)")
LINK = re.compile(r"\]\(((?:docs/)?(?:rules|records|design|protocol)\.md)#([^)\s]+)\)")


def headings(path: Path) -> dict[str, str]:
    """``{"3.10": "Molodka", ...}`` of a document's numbered headings."""
    found = HEADING.findall(path.read_text(encoding="utf-8"))
    numbers = [number for _, number, _ in found]
    assert len(numbers) == len(set(numbers)), f"{path.name}: a section number is used twice"
    return {number: title for _, number, title in found}


def slug(heading: str) -> str:
    """The anchor GitHub gives a markdown heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def source_files() -> list[Path]:
    files = [REPO / "README.md"]
    for top in SOURCE_DIRS:
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix in (".py", ".md") and "__pycache__" not in path.parts:
                files.append(path)
    return files


def cited(text: str, pattern: re.Pattern) -> set[str]:
    return {number for match in pattern.finditer(text) for number in SECTION.findall(match.group(1))}


def test_cites():
    """The citation patterns read lists of sections and nothing else."""
    text = "(docs/rules.md §2.4, §2.5 and §0.6: the hook; see §9.9) docs/rules.md\n§3) rules.md §4.1"
    assert cited(text, CITE_RULES) == {"2.4", "2.5", "0.6", "3", "4.1"}
    assert cited("docs/design.md §4, docs/rules.md §1", CITE_DESIGN) == {"4"}
    assert slug("§3.5 Ruling: the card, from the middle") == "35-ruling-the-card-from-the-middle"
    assert slug("`slagwerk replay --json`") == "slagwerk-replay---json"


def test_rule_book_sections_are_numbered_in_order():
    sections = headings(RULES)
    tops = [n for n in sections if "." not in n]
    assert tops == ["0", "1", "2", "3", "4", "5"], "§0 conventions, §1..§4 the games, §5 records"
    for top in tops:
        subs = [int(n.split(".")[1]) for n in sections if n.startswith(top + ".")]
        assert subs == list(range(1, len(subs) + 1)), f"§{top}'s sub-sections are not numbered 1, 2, ..."
    assert [sections[n] for n in "1234"] == ["Coins", "Koetsieren", "Kozel", "Aluette"]


def test_every_citation_names_an_existing_section():
    rules, design = set(headings(RULES)), set(headings(DESIGN))
    bad = []
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(REPO)
        bad += [f"{where}: docs/rules.md §{n}" for n in sorted(cited(text, CITE_RULES) - rules)]
        bad += [f"{where}: docs/design.md §{n}" for n in sorted(cited(text, CITE_DESIGN) - design)]
    assert not bad, "citations of sections that do not exist:\n" + "\n".join(bad)


def test_every_link_into_the_docs_names_an_existing_heading():
    bad = []
    for path in source_files():
        for target, anchor in LINK.findall(path.read_text(encoding="utf-8")):
            document = DOCS / Path(target).name
            if anchor not in anchors(document):
                bad.append(f"{path.relative_to(REPO)}: {target}#{anchor}")
    assert not bad, "links to headings that do not exist:\n" + "\n".join(bad)


def test_cited_by_tests():
    """The test reader sees docstring citations of test functions only."""
    source = (
        '"""docs/rules.md §1.1"""\n'
        "def helper():\n"
        '    """docs/rules.md §1.2"""\n'
        "def test_one():\n"
        '    """docs/rules.md §1.3, §1.4: a rule."""\n'
        "class TestTwo:\n"
        "    def test_two(self):\n"
        '        """docs/rules.md §1.5"""\n'
    )
    assert citations_in_tests(source) == {"1.3", "1.4", "1.5"}


def citations_in_tests(source: str) -> set[str]:
    """Sections of docs/rules.md cited in the docstrings of a module's test functions."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
            found |= cited(ast.get_docstring(node) or "", CITE_RULES)
    return found


def sections_named_by_tests() -> set[str]:
    found = set()
    for path in sorted(TESTS.glob("test_*.py")):
        if path.name != Path(__file__).name:
            found |= citations_in_tests(path.read_text(encoding="utf-8"))
    return found


def test_every_ruling_is_checked_by_a_test_that_names_it():
    rulings = {n: title for n, title in headings(RULES).items() if title.startswith("Ruling")}
    assert len(rulings) >= 10, "the rule book's Rulings are sub-sections titled 'Ruling: ...'"
    untested = sorted(set(rulings) - sections_named_by_tests(), key=lambda n: [int(x) for x in n.split(".")])
    assert not untested, "Rulings no test names in its docstring: " + ", ".join(
        f"§{n} {rulings[n]}" for n in untested
    )


@pytest.mark.parametrize("game", ["1", "2", "3", "4"])
def test_every_rule_of_a_game_is_checked_by_a_test_that_names_it(game):
    rules = {n: title for n, title in headings(RULES).items() if n.startswith(game + ".")}
    untested = sorted(set(rules) - sections_named_by_tests(), key=lambda n: int(n.split(".")[1]))
    assert not untested, "sections no test names in its docstring: " + ", ".join(
        f"§{n} {rules[n]}" for n in untested
    )


def test_every_ruling_says_what_it_rules():
    text = RULES.read_text(encoding="utf-8")
    parts = HEADING.split(text)
    # split gives [before, level, number, title, body, level, number, title, body, ...]
    for number, title, body in zip(parts[2::4], parts[3::4], parts[4::4]):
        if title.startswith("Ruling"):
            assert "**Ruling" in body, f"§{number} {title}: no **Ruling** in its text"


def test_no_file_cites_the_old_rule_book_outside_the_repository():
    old = ("RULES" + ".md", "DESIGN" + ".md")
    bad = [
        str(path.relative_to(REPO))
        for path in source_files()
        if any(name in path.read_text(encoding="utf-8") for name in old)
    ]
    assert not bad, f"files citing {old[0]} or {old[1]} (now docs/rules.md, docs/design.md): {bad}"
