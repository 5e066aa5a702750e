"""The README's commands parse: every ``slagwerk ...`` in its code blocks is accepted by the
command line's parser (nothing runs), every extra it installs exists, and its Python compiles.

The README is the front door: a newcomer copies its commands as they are.
"""

import ast
import re
import shlex

import pytest

from paths import REPO
from slagwerk.cli import COMMAND_MODULES, build_parser

README = REPO / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def code_blocks(text: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text) if lang == language]


def shell_commands(block: str) -> list[list[str]]:
    """Each simple command of a shell block as its words: continuation lines joined, comments
    dropped, pipelines and lists (``|``, ``&&``, ``;``, ``&``) split."""
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for word in lexer:
            if set(word) <= set("|&;"):
                commands.append(words)
                words = []
            else:
                words.append(word)
        commands.append(words)
    return [words for words in commands if words]


def slagwerk_commands(text: str) -> list[list[str]]:
    """The arguments of every ``slagwerk`` command in the text's ``sh`` blocks."""
    return [words[1:] for block in code_blocks(text, "sh") for words in shell_commands(block)
            if words[0] == "slagwerk"]


def test_the_reader_finds_the_commands():
    text = ('```sh\npip install . && slagwerk tournament   # the main job\n'
            'echo \'{"id": 1}\' | slagwerk bot\nslagwerk tune --game coins \\\n    --budget 3 &\n```\n'
            '```python\nslagwerk = 1\n```\n')
    assert slagwerk_commands(text) == [["tournament"], ["bot"], ["tune", "--game", "coins", "--budget", "3"]]


COMMANDS = slagwerk_commands(README.read_text(encoding="utf-8"))


def test_the_readme_shows_a_command_of_each_kind():
    used = {args[0] for args in COMMANDS if args}
    assert {"tournament", "sprt", "tune", "serve", "play", "bot", "train"} <= used


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(args)[:60] for args in COMMANDS])
def test_a_readme_command_parses(args, capsys):
    assert args and args[0] in COMMAND_MODULES, f"slagwerk {' '.join(args)}: not a command"
    parser = build_parser((args[0],))
    try:
        parsed = parser.parse_args(args)
    except SystemExit as stop:
        pytest.fail(f"slagwerk {' '.join(args)} does not parse (exit {stop.code}): {capsys.readouterr().err}")
    assert parsed.command == args[0]


def test_the_extras_the_readme_installs_exist():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
                 ["project"]["optional-dependencies"])
    named = set()
    for match in re.finditer(r"""(?:\.|slagwerk)\[([\w,-]+)\]""", README.read_text(encoding="utf-8")):
        named |= set(match.group(1).split(","))
    assert {"test", "docs"} <= named
    assert named <= extras, f"extras the README names but pyproject.toml lacks: {sorted(named - extras)}"


def test_the_readme_python_compiles():
    blocks = code_blocks(README.read_text(encoding="utf-8"), "python")
    assert blocks
    for block in blocks:
        ast.parse(block)


def test_the_readme_links_to_files_that_exist():
    """The README is read on GitHub and PyPI, outside the site: its relative links name files."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    missing = [target for target in links
               if not target.startswith(("http://", "https://")) and not (REPO / target).exists()]
    assert not missing


def test_the_readme_says_the_compile_time_the_notice_says():
    from slagwerk.kernel_cache import COMPILE_SECONDS

    assert f"(about {COMPILE_SECONDS} s a game, once" in README.read_text(encoding="utf-8")
