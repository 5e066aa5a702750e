"""Draw the package's import graph, part by part, as docs/images/layers.png.

    python docs/make_layers_drawing.py

Each box is a part of the package (a folder, or a group of the engine's
modules); an arrow means that modules of one part import modules of the other
(at module level or inside a function; its width grows with the number of
such imports). A part sits one row above the highest part it imports, so an
arrow points down whenever the parts import each other in no circle:
tests/test_import_layers.py checks that they do not, and that this drawing
shows today's imports.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from test_import_layers import (  # noqa: E402
    ENGINE_BASE,
    ENGINE_REGISTRY,
    ENGINE_SEARCH,
    GAMES,
    IMPORTS,
    MODULES,
    PACKAGE_DIRS,
    REPO,
)

OUT = HERE / "images" / "layers.png"


def part_of(module: str) -> str:
    """The box a module is drawn in."""
    parts = module.split(".")
    if module == "slagwerk.__main__" or module.startswith("slagwerk.cli"):
        return "cli/"
    if module == "slagwerk" or MODULES[module].parent == REPO / PACKAGE_DIRS["slagwerk"]:
        return "base/"
    if module.startswith("slagwerk.engine."):
        if parts[2] in GAMES:
            return f"engine/{parts[2]}/"
        for names, box in ((ENGINE_BASE, "engine/ (shared)"), (ENGINE_REGISTRY, "engine/ (registry)"),
                           (ENGINE_SEARCH, "engine/ (playout)")):
            if parts[2] in names:
                return box
    if module == "slagwerk.engine":
        return "engine/ (registry)"
    if module.startswith("slagwerk.experiments.") and len(parts) > 2:
        return f"experiments/{parts[2]}/"
    return f"{parts[1]}/"


def edges() -> Counter:
    """(importing part, imported part) -> number of imports between their modules."""
    found = Counter()
    for imp in IMPORTS:
        source, target = part_of(imp.source), part_of(imp.target)
        if source != target:
            found[source, target] += 1
    return found


def levels(found: Counter) -> dict[str, int]:
    """Each part's row: one above the highest part it imports (0: imports no other part).

    :raises ValueError: if parts import each other in a circle (no drawing points only down).
    """
    boxes = {box for edge in found for box in edge}  # a part that imports and is imported by none: left out
    below = {box: {t for (s, t) in found if s == box} for box in boxes}
    level: dict[str, int] = {}
    visiting: set[str] = set()

    def place(box: str) -> int:
        if box in level:
            return level[box]
        if box in visiting:
            raise ValueError(f"parts import each other in a circle through {box}")
        visiting.add(box)
        level[box] = 1 + max((place(other) for other in below[box]), default=-1)
        visiting.discard(box)
        return level[box]

    for box in sorted(boxes):
        place(box)
    return level


def draw(path: Path = OUT) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = edges()
    level = levels(found)
    rows: dict[int, list[str]] = {}
    for box in sorted(level, key=lambda b: (level[b], b)):
        rows.setdefault(level[box], []).append(box)
    width = max(len(row) for row in rows.values())
    where = {}
    for row, boxes in rows.items():
        for i, box in enumerate(boxes):
            where[box] = ((i + 0.5) * width / len(boxes), row * 1.6)
    fig, ax = plt.subplots(figsize=(2.3 * width, 1.3 * len(rows) + 0.8))
    for (source, target), count in sorted(found.items()):
        (x0, y0), (x1, y1) = where[source], where[target]
        ax.annotate("", xy=(x1, y1 + 0.28), xytext=(x0, y0 - 0.28),
                    arrowprops=dict(arrowstyle="-|>", color="#7a8aa0", alpha=0.55,
                                    lw=0.6 + 0.25 * min(count, 12), shrinkA=0, shrinkB=0))
    for box, (x, y) in where.items():
        ax.text(x, y, box, ha="center", va="center", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.45", facecolor="#eef3fb", edgecolor="#34507a"))
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(-0.8, (len(rows) - 1) * 1.6 + 0.8)
    ax.axis("off")
    ax.set_title("slagwerk's parts: an arrow points from a part to a part it imports", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    draw()
    print(f"wrote {OUT.relative_to(HERE.parent)}")
