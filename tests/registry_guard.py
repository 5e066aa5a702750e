"""A fixture for tests that register bots and plugins: the agent registry is restored after
each test, and every bot process it started is ended. Import it into a test module to
apply it to every test there (it is autouse)."""

import pytest

from slagwerk.agents import AGENTS, external, plugins


@pytest.fixture(autouse=True)
def own_registry():
    """Every test registers its own bots and plugins; the registry is restored after it."""
    agents = dict(AGENTS)
    loaded = list(plugins._LOADED)
    yield
    external.close_all()
    AGENTS.clear()
    AGENTS.update(agents)
    plugins._LOADED[:] = loaded
