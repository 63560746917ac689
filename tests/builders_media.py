"""Builds hostile image files for tests: small on disk, huge once decoded."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def bomb_png(path: Path, width: int, height: int) -> Path:
    """A black 8-bit grey PNG of ``width`` × ``height`` that compresses to about a
    thousandth (12,000 × 12,000 is ~140 KiB): a decompression bomb. Written row by row, so
    making it costs no more memory than one row."""
    row = b"\x00" + bytes(width)
    packer = zlib.compressobj(9)
    compressed = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", compressed)
        + _png_chunk(b"IEND", b"")
    )
    return path
