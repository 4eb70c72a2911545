"""Every Python block of the README and of the site is a program of its own: run by
pytest-examples, with what it says it prints (the ``#>`` lines under a ``print``) checked.
A block that includes a file (``--8<--``) shows one of the recipes under ``examples/``, which
tests/recipes runs and compares with the output its docstring gives."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

from agenthooks.testing import require

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = list(find_examples(str(REPO / "README.md"), str(REPO / "docs")))
INCLUDE = "--8<-- "
REDIS = ("127.0.0.1", 6379)


def redis_problem() -> str | None:
    """Why the Redis the examples of many workers use cannot be reached, or None."""
    try:
        socket.create_connection(REDIS, timeout=2).close()
    except OSError as exc:
        return f"no Redis at 127.0.0.1:6379, which this example needs ({exc})"
    return None


def test_the_readme_and_the_site_have_examples() -> None:
    pages = {Path(example.path).relative_to(REPO).as_posix() for example in EXAMPLES}
    assert "README.md" in pages
    assert "docs/getting-started.md" in pages
    assert len(EXAMPLES) >= 20, len(EXAMPLES)


@pytest.mark.parametrize(
    "example",
    [
        # an example of many workers talks to the shared Redis
        pytest.param(e, marks=pytest.mark.server) if "redis://127.0.0.1:6379" in e.source else e
        for e in EXAMPLES
    ],
    ids=str,
)
def test_example_runs_and_prints_what_it_says(
    example: CodeExample, eval_example: EvalExample
) -> None:
    __tracebackhide__ = True
    if example.source.startswith(INCLUDE):
        included = REPO / example.source.strip().removeprefix(INCLUDE).strip('"')
        assert included.parent == REPO / "examples" and included.suffix == ".py", included
        assert included.is_file(), included
        return
    if "redis://127.0.0.1:6379" in example.source:
        require(redis_problem())
    # a failure is reported as text, outside the except block: pytest 9 cannot render the
    # traceback pytest-examples builds from the page's lines, nor one chained to it (an
    # INTERNALERROR that would end the whole session)
    problem = None
    try:
        eval_example.run_print_check(example)
    except Exception as exc:
        problem = f"{example}: {type(exc).__name__}: {exc}"
    if problem is not None:
        pytest.fail(problem, pytrace=False)
