"""A fixture that records the compile-time constants (``dispatch.Constant``) each
generic kernel is specialised with. Import it into a test module to use it."""

import pytest

from slagwerk.engine import dispatch


@pytest.fixture(name="compile_constants")
def compile_constants_fixture(monkeypatch):
    """A list that fills with ``(kernel name, constant)`` for every constant passed
    to ``dispatch.specialize`` during the test."""
    constants = []
    specialize = dispatch.specialize

    def recording(kernel, game_id, *args):
        constants.extend((kernel.py_func.__name__, int(a)) for a in args if type(a) is dispatch.Constant)
        return specialize(kernel, game_id, *args)

    monkeypatch.setattr(dispatch, "specialize", recording)
    return constants
