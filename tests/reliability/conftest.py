"""Hypothesis draws the same examples on every ``make test`` (a red run is then reproducible
and never a matter of luck); ``make soak`` (``AGENTHOOKS_SOAK=1``) explores at random. Every
test here is marked ``slow``: thousands of generated cases, which ``make check`` leaves to
``make test``."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # the hook sees the whole session's items: mark only this folder's
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.slow)


settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("AGENTHOOKS_SOAK") == "1" else "repeatable")
