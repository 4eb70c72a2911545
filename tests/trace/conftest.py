"""The trace tests read recordings of the scenario in record_support.py (beside the record
tests) and run the console script the way cli_support.py does (beside the CLI tests)."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parent.parent
for _folder in ("record", "cli"):
    if str(_TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(_TESTS / _folder))
