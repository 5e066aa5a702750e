"""The documentation site (mkdocs.yml) builds with ``--strict``: a broken link or anchor, a page
missing from the navigation or a docstring the API reference cannot read fails the suite.

The build fetches nothing (no web fonts; only the search plugin and mkdocstrings) and reads
the docstrings from this checkout's sources (docs/site_hooks.py), not from an installed copy.
"""

import os
import subprocess
import sys
from importlib.util import find_spec

import pytest

from paths import REPO


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = [name for name in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers")
               if find_spec(name) is None]
    if missing:
        pytest.fail(f"the docs tools are not installed ({', '.join(missing)}): "
                    "install the test extra (pip install -e '.[test]') or the docs extra ('.[docs]')")
    out = tmp_path_factory.mktemp("site")
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}  # Material's notice about MkDocs 2, not a build warning
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                         cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WARNING" not in run.stderr, run.stderr
    return out


def test_the_site_builds_strictly(site):
    assert (site / "index.html").is_file()
    for page in ("getting-started", "rules", "protocol", "results/strength", "api/engine"):
        assert (site / page / "index.html").is_file(), page


def test_the_api_pages_document_the_public_surface(site):
    engine = (site / "api" / "engine" / "index.html").read_text(encoding="utf-8")
    for name in ("slagwerk.engine.make_game", "slagwerk.engine.game.Game", "slagwerk.engine.game.State",
                 "slagwerk.engine.game.State.apply"):
        assert f'id="{name}"' in engine, name
    agents = (site / "api" / "agents" / "index.html").read_text(encoding="utf-8")
    for name in ("slagwerk.agents.registry.make", "slagwerk.agents.base.Agent"):
        assert f'id="{name}"' in agents, name
    search = (site / "api" / "search" / "index.html").read_text(encoding="utf-8")
    for name in ("slagwerk.search.ismcts.ismcts", "slagwerk.search.pimc.pimc"):
        assert f'id="{name}"' in search, name
    tournaments = (site / "api" / "tournaments" / "index.html").read_text(encoding="utf-8")
    assert 'id="slagwerk.experiments.harness.tournament.run_tournament"' in tournaments
    envs = (site / "api" / "envs" / "index.html").read_text(encoding="utf-8")
    for name in ("slagwerk.envs.pettingzoo.env", "slagwerk.envs.openspiel.register"):
        assert f'id="{name}"' in envs, name


def test_the_docstrings_read_as_numpy_sections(site):
    """A ``:raises X:`` field (docs/site_docstrings.py) becomes a Raises section, not text."""
    engine = (site / "api" / "engine" / "index.html").read_text(encoding="utf-8")
    start = engine.index('id="slagwerk.engine.make_game"')
    make_game = engine[start:engine.index('id="slagwerk.engine.GAME_NAMES"')]
    assert "Raises" in make_game and "OptionError" in make_game and ":raises" not in make_game
    assert ":class:`" not in engine and ":meth:`" not in engine


def test_the_site_loads_nothing_from_elsewhere(site):
    """No web fonts or scripts from other hosts: the site works offline, as it builds."""
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in index and "fonts.gstatic.com" not in index
    assert '<script src="http' not in index
