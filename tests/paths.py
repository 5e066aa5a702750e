"""Where the tests' own files are: everything a test reads lives in this repository."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
EXAMPLES = FIXTURES / "examples"
