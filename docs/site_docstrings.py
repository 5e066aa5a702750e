"""Griffe extension for the API reference: the package's reST inline markup, read as numpy style.

The docstrings use numpy sections (``Parameters`` / ``Returns`` under dashes) where they have
sections, and otherwise Sphinx's inline roles (``:class:`Game```, ``:func:`make```) and
fields (``:raises OptionError: why``, ``:param flag: what``, ``:returns: what``). Griffe's numpy
parser reads neither, so before parsing, this extension turns a role into code
(```Game```; ``~a.b.C`` into ```C```) and ``:raises X: why`` fields into a numpy ``Raises``
section (the few ``:param:`` and ``:returns:`` fields stay text). The source files are not
changed.
"""

from __future__ import annotations

import re

from griffe import Extension

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|data|attr|exc|obj|const|ref):`(~?)([^`]+)`")
FIELD = re.compile(r"^:raises?\s+([^:]+):\s*(.*)$")


def _role(match: re.Match) -> str:
    short, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def numpy_style(text: str) -> str:
    """``text`` with its roles as code and its ``:raises:`` fields as a numpy ``Raises`` section.

    >>> print(numpy_style("The game.\\n\\n:raises OptionError: for an unknown\\n    option."))
    The game.
    <BLANKLINE>
    Raises
    ------
    OptionError
        for an unknown option.
    """
    text = ROLE.sub(_role, text)
    kept: list[str] = []
    raises: list[list[str]] = []
    current = None
    for line in text.splitlines():
        match = FIELD.match(line)
        if match:
            current = [match.group(1).strip(), match.group(2).strip()]
            raises.append(current)
        elif current is not None and line.startswith((" ", "\t")) and line.strip():
            current[1] = f"{current[1]} {line.strip()}".strip()
        else:
            current = None
            kept.append(line)
    if not raises:
        return text
    while kept and not kept[-1].strip():
        kept.pop()
    kept += ["", "Raises", "------"]
    for name, description in raises:
        kept += [name, f"    {description}"]
    return "\n".join(kept)


class SphinxFields(Extension):
    """Rewrites every docstring with :func:`numpy_style` before it is parsed."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = numpy_style(obj.docstring.value)
