"""The CLI tests read recordings of the scenario in record_support.py (beside the record
tests) and point the demo at wire_server.py (a real loopback OpenAI-format server, beside the
provider tests)."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parent.parent
for _folder in ("record", "providers"):
    if str(_TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(_TESTS / _folder))
