from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_scripted import ran


@pytest.fixture(autouse=True)
def _clear_ran() -> Iterator[None]:
    ran.clear()
    yield
    ran.clear()
