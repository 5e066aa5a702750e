"""Where the tests' own files are: everything a test reads lives in this repository."""

import runpy
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
EXAMPLES = FIXTURES / "examples"

_LAYOUT = runpy.run_path(str(REPO / "setup.py"), run_name="slagwerk_layout")
PACKAGE_DIRS: dict[str, str] = _LAYOUT["package_dirs"]()
"""Each installed package's folder in the repository (setup.py: ``slagwerk`` is ``base/``)."""
PACKAGES: list[str] = _LAYOUT["packages"]()
"""Every package ``pip install .`` ships (setup.py's find)."""
PACKAGE_DATA: dict[str, list[str]] = _LAYOUT["PACKAGE_DATA"]
"""The data files each package ships (setup.py)."""
