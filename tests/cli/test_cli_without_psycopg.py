"""The console script on a PostgreSQL URL in an environment without the ``postgres`` extra:
one line naming the extra to install, exit 1, never a traceback. psycopg is made
unimportable for the subprocess by packages of the same names, first on its path, that
raise what a missing package raises."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_cli

pytestmark = pytest.mark.subprocess

URL = "postgresql://postgres@127.0.0.1:5432/test"
STORE = f"PostgresStore({URL!r})"


@pytest.fixture
def without_psycopg(tmp_path: Path) -> dict[str, str]:
    """The environment of a subprocess in which ``import psycopg`` fails."""
    for name in ("psycopg", "psycopg_pool"):
        package = tmp_path / "shadow" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            f'raise ModuleNotFoundError("No module named {name!r}", name={name!r})\n',
            encoding="utf-8",
        )
    return {"PYTHONPATH": str(tmp_path / "shadow")}


@pytest.mark.parametrize(
    ("args", "prefix"),
    [
        (["sessions", "list", "--store", URL], "agenthooks sessions: error: "),
        (["sessions", "show", "s1", "--store", URL], "agenthooks sessions: error: "),
        (
            ["approvals", "list", "--source", "store", "--store", URL],
            "agenthooks approvals: error: source 'store' failed: StoreError: ",
        ),
    ],
)
def test_a_postgresql_url_without_psycopg_is_one_line_naming_the_extra(
    without_psycopg: dict[str, str], args: list[str], prefix: str
) -> None:
    result = run_cli(*args, env=without_psycopg)
    assert (result.returncode, result.stdout) == (1, ""), result
    assert result.stderr.splitlines() == [
        f"{prefix}{STORE} needs psycopg 3 and psycopg_pool (psycopg is not installed): "
        "pip install 'agenthooks[postgres]'"
    ]


def test_the_store_names_the_extra_from_the_environment_too(
    without_psycopg: dict[str, str],
) -> None:
    result = run_cli("sessions", "list", env={**without_psycopg, "AGENTHOOKS_STORE": URL})
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and "agenthooks[postgres]" in result.stderr
    assert "Traceback" not in result.stderr
