"""The tools tests import wire_server.py (a real loopback OpenAI-format server) from the
provider tests' folder."""

from __future__ import annotations

import sys
from pathlib import Path

_PROVIDERS = str(Path(__file__).resolve().parent.parent / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)
