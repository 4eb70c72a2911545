"""The hook server's tests: the loopback Anthropic server of tests/providers is imported by
name, as the runtime's tests do."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[1]
for _folder in ("providers", "server"):
    if str(_TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(_TESTS / _folder))
