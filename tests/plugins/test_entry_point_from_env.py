"""An entry point naming a plugin class with a ``from_env()`` classmethod is built by it (the
plugin distributions' template); any other class is instantiated without arguments. Checked
on real installed metadata in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

SOURCE = """
import os


class Configured:
    def __init__(self, level="code default"):
        self.level = level

    @classmethod
    def from_env(cls):
        return cls(level=os.environ.get("DEMO_LEVEL", "env default"))

    def on_message(self, ctx):
        pass


class Plain:
    level = "plain"

    def on_message(self, ctx):
        pass
"""

SCRIPT = """
import json
from agenthooks import HookBus

bus = HookBus(plugins=["configured", "plain"], strict=True)
print(json.dumps({name: info.plugin.level for name, info in sorted(bus.plugins.items())}))
"""


def test_from_env_builds_the_plugin_and_a_plain_class_is_instantiated(tmp_path: Path) -> None:
    (tmp_path / "demo_plugins.py").write_text(SOURCE, encoding="utf-8")
    info = tmp_path / "demo_plugins-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: demo-plugins\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[agenthooks.plugins]\nconfigured = demo_plugins:Configured\nplain = demo_plugins:Plain\n",
        encoding="utf-8",
    )
    (info / "RECORD").write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTHOOKS_")}
    env.update(PYTHONPATH=str(tmp_path), DEMO_LEVEL="from the environment")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "configured": "from the environment",
        "plain": "plain",
    }
