"""Shared by the timeline tests: real headless Chromium and a PNG decoder to read its
screenshots. Imported by name (pytest puts this folder on sys.path)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from agenthooks.testing import require

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


CHROMIUM_MISSING = (
    f"{CHROMIUM} is missing: the timeline tests render the page in real headless Chromium. "
    "Install the system package: apt-get update && apt-get install -y chromium"
)


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with a throwaway profile. Without it the calling test skips with
    the install command as its reason, except under ``CI=true`` (CI installs it), where it
    fails."""
    require(None if CHROMIUM.exists() else CHROMIUM_MISSING)
    profile = tempfile.mkdtemp(prefix="agenthooks-chromium-")
    try:
        return subprocess.run(
            [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_pixels(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) into
    (width, height, RGB pixels row by row), with the standard library only."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    step = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * step
    rows: list[bytearray] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            left = line[x - step] if x >= step else 0
            up = prev[x]
            corner = prev[x - step] if x >= step else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + pred) & 0xFF
        rows.append(line)
        prev = line
    pixels = [(row[x], row[x + 1], row[x + 2]) for row in rows for x in range(0, stride, step)]
    return width, height, pixels
