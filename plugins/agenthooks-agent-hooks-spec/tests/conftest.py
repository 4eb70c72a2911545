"""Shared setup of the agent-hooks-spec tests: the loopback OpenAI-format server is importable."""

from __future__ import annotations

import sys
from pathlib import Path

# wire_server.py (a real loopback OpenAI-format server) lives beside the core's provider tests
_PROVIDERS = str(Path(__file__).resolve().parents[3] / "tests" / "providers")
if _PROVIDERS not in sys.path:
    sys.path.insert(0, _PROVIDERS)
