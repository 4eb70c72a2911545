"""Who is calling: bearer tokens checked against a token file of ``NAME = SHA256HEX`` lines.

The file holds no token, only each token's SHA-256 in hex, so reading it (or a backup of it)
gives nobody a token. The name is the caller's identity: every record of the caller's
sessions carries it. Every line is compared, in constant time, whatever matched before, so
the time an answer takes says nothing about which token came close.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

_LINE = re.compile(r"^\s*(?P<name>[A-Za-z0-9_.@-]+)\s*=\s*(?P<hex>[0-9a-fA-F]+)\s*$")
_DIGEST_HEX = 64


class TokenFileError(ConfigError):
    """A token file that cannot be used: missing, unreadable, or a line that is not
    ``NAME = SHA256HEX``; names the file and the line."""


@dataclass(frozen=True)
class Caller:
    """Who made a request: the token file's name for the token they presented."""

    name: str


ANONYMOUS = Caller("anonymous")
"""The caller of a server started with ``--no-auth`` (loopback only)."""


def token_digest(token: str) -> str:
    """The SHA-256 of ``token`` in hex, as a token file holds it."""
    return hashlib.sha256(token.encode()).hexdigest()


class Tokens:
    """The callers a server accepts, from ``NAME = SHA256HEX`` entries.

    Args:
        entries: ``{name: sha256 hex}``.

    Raises:
        TokenFileError: A digest that is not 64 hex digits.
    """

    __slots__ = ("_entries",)

    def __init__(self, entries: dict[str, str]) -> None:
        checked: list[tuple[str, bytes]] = []
        for name, digest in entries.items():
            if len(digest) != _DIGEST_HEX or not all(c in "0123456789abcdefABCDEF" for c in digest):
                raise TokenFileError(
                    f"token {name!r}: {digest!r} is not a SHA-256 in hex (64 hex digits)"
                )
            checked.append((name, bytes.fromhex(digest)))
        self._entries = tuple(checked)

    @classmethod
    def from_file(cls, path: str | Path) -> Tokens:
        """Read a token file: one ``NAME = SHA256HEX`` per line; blank lines and lines
        starting with ``#`` are skipped.

        Raises:
            TokenFileError: The file cannot be read, a line does not parse, a name repeats,
                or the file names no caller.
        """
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise TokenFileError(f"{where}: cannot read the token file ({exc.strerror})") from None
        entries: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            match = _LINE.match(line)
            if match is None:
                raise TokenFileError(
                    f"{where}:{number}: expected NAME = SHA256HEX (the hex SHA-256 of the token)"
                )
            name = match["name"]
            if name in entries:
                raise TokenFileError(f"{where}:{number}: the name {name!r} appears twice")
            try:
                cls({name: match["hex"]})
            except TokenFileError as exc:
                raise TokenFileError(f"{where}:{number}: {exc}") from None
            entries[name] = match["hex"]
        if not entries:
            raise TokenFileError(f"{where}: the token file names no caller")
        return cls(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def caller(self, authorization: str | None) -> Caller | None:
        """The caller an ``Authorization`` header's bearer token belongs to, else ``None``."""
        if authorization is None:
            return None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        digest = hashlib.sha256(token.strip().encode()).digest()
        found: str | None = None
        for name, expected in self._entries:  # every entry, whatever matched: constant time
            if hmac.compare_digest(digest, expected) and found is None:
                found = name
        return None if found is None else Caller(found)


__all__ = ["ANONYMOUS", "Caller", "TokenFileError", "Tokens", "token_digest"]
