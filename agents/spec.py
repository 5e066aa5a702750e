"""Agent specs: the text ``name:key=value,...`` parsed once into an object.

A command reads a spec where it starts (the command line, a stored run, a
request), parses it here, and from then on passes the :class:`AgentSpec` (or,
for a tournament's entry, the :class:`Entry`) around: to the registry that
makes agents, and pickled as it is to the worker processes, which never parse
a spec again.

>>> spec = AgentSpec.parse("ismcts:iterations=2000,c=0.7")
>>> spec.name, spec.values, spec.label
('ismcts', {'iterations': '2000', 'c': '0.7'}, 'ismcts:iterations=2000,c=0.7')
>>> Entry.parse("heuristic+ismcts:iterations=1e+3").label
'heuristic+ismcts:iterations=1e+3'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import SpecError, brief

_SPEC = re.compile(r"\s*(?P<name>[^:,=@\s]+)\s*(?::(?P<items>\s*[^,=@\s][^,=@]*=[^,@]*"
                   r"(?:,\s*[^,=@\s][^,=@]*=[^,@]*)*)?)?", re.DOTALL)
"""``name`` or ``name:key=value,key=value``: no ``@`` (a spec names values, never files)."""
PARTNER_SPLIT = re.compile(r"\+(?=[A-Za-z])")
"""Where a tournament entry ``A+B`` splits: only before a letter, so that a value like
``1e+3`` stays whole."""


@dataclass(frozen=True)
class AgentSpec:
    """One agent: its registered ``name``, its parameters as ``(key, text)`` pairs in the
    spec's order (the agent's class converts them), the ``label`` that names it in
    tables (``label=...``, or the spec's text), and the ``text`` it was read from."""

    name: str
    params: tuple[tuple[str, str], ...]
    label: str
    text: str

    @classmethod
    def parse(cls, text) -> AgentSpec:
        """The spec of ``text``; :class:`SpecError` naming what is wrong with it."""
        if isinstance(text, AgentSpec):
            return text
        match = _SPEC.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            shown = repr(text.strip()[:80]) if isinstance(text, str) else brief(text)
            raise SpecError(f"agent spec {shown} is not NAME or NAME:KEY=VALUE,... like "
                            f"'ismcts:iterations=2000' (no '@': a spec names values, never files; "
                            f"@FILE works only in command-line options)")
        params: dict[str, str] = {}
        for item in (match["items"] or "").split(",") if match["items"] else ():
            key, _, value = (part.strip() for part in item.partition("="))
            if key in params:
                raise SpecError(f"agent spec {text.strip()!r} sets {key!r} twice")
            params[key] = value
        label = params.pop("label", text.strip())
        if not label:
            raise SpecError(f"agent spec {text.strip()!r}: label= needs a name (the agent's name in tables)")
        return cls(match["name"], tuple(params.items()), label, text.strip())

    @property
    def values(self) -> dict[str, str]:
        return dict(self.params)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Entry:
    """A tournament entry: one agent, or a partnership ``A+B`` of two (team games),
    in which ``A`` holds the lower-numbered seat of its team and ``B`` its partner's."""

    parts: tuple[AgentSpec, ...]
    text: str

    @classmethod
    def parse(cls, text) -> Entry:
        if isinstance(text, Entry):
            return text
        if not isinstance(text, str):
            AgentSpec.parse(text)  # its one-line error
        parts = tuple(AgentSpec.parse(part) for part in PARTNER_SPLIT.split(text.strip()))
        return cls(parts, text.strip())

    @property
    def label(self) -> str:
        """Its agent's label, or the text of a partnership."""
        return self.parts[0].label if len(self.parts) == 1 else self.text

    def seat_spec(self, seat: int, n_seats: int) -> AgentSpec:
        """The spec that plays ``seat``."""
        if len(self.parts) == 1:
            return self.parts[0]
        team = [s for s in range(n_seats) if s % 2 == seat % 2]
        return self.parts[team.index(seat)]

    def __str__(self) -> str:
        return self.text
