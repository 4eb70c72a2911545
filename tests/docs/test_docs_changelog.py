"""CHANGELOG.md's top entry is the version ``agenthooks --version`` prints, and the version the
distribution was installed as."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"
ENTRY = re.compile(r"^## (\S+)", flags=re.M)


def test_the_top_entry_is_the_version_the_cli_prints() -> None:
    entries = ENTRY.findall(CHANGELOG.read_text(encoding="utf-8"))
    assert entries, "CHANGELOG.md has no '## VERSION' entry"
    result = subprocess.run(
        [sys.executable, "-m", "agenthooks.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"agenthooks {entries[0]}"
    assert entries[0] == version("agenthooks")


def test_every_entry_is_a_distinct_version() -> None:
    entries = ENTRY.findall(CHANGELOG.read_text(encoding="utf-8"))
    assert len(entries) == len(set(entries)), entries
    assert all(re.fullmatch(r"\d+\.\d+\.\d+(?:[-.]?\w+)?", e) for e in entries), entries
