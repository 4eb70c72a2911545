"""``agenthooks.testing``'s helpers work where pytest is not installed (a script checking a
recorded run): the module imports, every name of its ``__all__`` is there, and only the
fixtures are missing. pytest is made unimportable for a subprocess (``None`` in
``sys.modules``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.subprocess

SCRIPT = """
import asyncio, sys
sys.modules["pytest"] = None
import agenthooks.testing as testing
from agenthooks.testing import *

agent = make_agent([call("echo", text="hi"), "done"], tools=[])
recorder = HookRecorder()
recorder.attach(agent)
print(asyncio.run(agent.chat("go")).content)
print(recorder.names()[:2])
require(None)
print(sorted(set(testing.__all__) - set(dir(testing))))
print(hasattr(testing, "_hook_recorder"))
"""


def test_the_helpers_work_without_pytest() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "done",
        "['on_chat_start', 'on_user_message']",
        "[]",
        "False",
    ]
