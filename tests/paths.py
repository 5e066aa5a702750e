"""Where the shared, read-only project files are (../shared beside the checkout)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = SHARED / "examples"
