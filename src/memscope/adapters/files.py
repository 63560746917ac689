"""Small, careful file readers shared by the adapters.

They turn OS, decoding and JSON errors into :class:`~memscope.errors.MemscopeError`
subclasses that name the file and the line, so no adapter leaks a traceback.
"""

from __future__ import annotations

import glob
import hashlib
import os
from pathlib import Path

from memscope.errors import DatasetError, MemscopeError, RunDirError
from memscope.file_kinds import NotRegularFileError, not_regular, open_regular, read_regular
from memscope.json_types import JSONValue

HASH_CHUNK = 1 << 20


def read_json_file(
    path: Path, *, error: type[MemscopeError] = RunDirError, what: str = "file"
) -> JSONValue:
    """Parse a whole JSON file.

    Args:
        path: The file.
        error: The error type to raise (e.g. DatasetError for a dialog JSON).
        what: How to call the file in the message ("metrics.json", "dialog JSON").

    Raises:
        MemscopeError: of type ``error`` when the file is missing, unreadable, not
            UTF-8 or not JSON; the message names the line and column.
    """
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        raise error(f"{what} is missing", where=str(path)) from None
    except NotRegularFileError as exc:
        raise error(f"{what} is {exc.kind}, not a regular file", where=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", where=str(path)) from None
    if not raw.strip():
        raise error(
            f"{what} is empty", where=str(path), fix="Re-run the benchmark or restore the file."
        )
    import orjson

    try:
        # A UTF-8 byte-order mark (Windows editors write one) is accepted as in the JSONL files.
        parsed: JSONValue = orjson.loads(raw.removeprefix(b"\xef\xbb\xbf"))
        return parsed
    except orjson.JSONDecodeError as exc:
        if "utf-8" in exc.msg.lower():
            raise error(f"{what} is not valid UTF-8", where=str(path)) from None
        raise error(
            f"{what} is not valid JSON: {exc.msg}",
            where=f"{path}:{exc.lineno}:{exc.colno}",
            fix="Fix or restore the file; memscope does not guess at broken JSON.",
        ) from None


def file_digest(paths: list[Path]) -> tuple[str, dict[str, list[int]]]:
    """Hash the contents of several files together, in the given order.

    Returns:
        The hex SHA-256 and, per file name, ``[size, mtime_ns]`` so that an unchanged
        run can be recognised later without hashing it again.
    """
    digest = hashlib.sha256()
    stats: dict[str, list[int]] = {}
    for path in paths:
        try:
            # Only a regular file: a FIFO would block this read, a device never end it.
            with open(open_regular(path), "rb") as handle:
                stat = os.fstat(handle.fileno())
                stats[path.name] = [stat.st_size, stat.st_mtime_ns]
                digest.update(path.name.encode() + b"\0")
                while chunk := handle.read(HASH_CHUNK):
                    digest.update(chunk)
        except NotRegularFileError as exc:
            raise RunDirError(
                f"{path.name} is {exc.kind}, not a regular file",
                where=str(path),
                fix="memscope reads a run's files as regular files; restore the file.",
            ) from None
        except OSError as exc:  # every file of a run is read here first: one clear message
            raise RunDirError(
                f"cannot read {path.name}: {exc.strerror or exc}",
                where=str(path),
                fix="Check the file's permissions, or restore it.",
            ) from None
        digest.update(b"\0")
    return digest.hexdigest(), stats


def current_stats(paths: list[Path]) -> dict[str, list[int]]:
    """Return ``[size, mtime_ns]`` per file name, as :func:`file_digest` records them."""
    result: dict[str, list[int]] = {}
    for path in paths:
        stat = path.stat()
        result[path.name] = [stat.st_size, stat.st_mtime_ns]
    return result


def files_named(folder: Path, name: str) -> list[Path]:
    """Every path called exactly ``name`` below ``folder``, sorted.

    ``name`` comes from a run's files (a dataset or history file name) and is matched as
    written: a ``[``, ``*`` or ``?`` in it is a character, never a pattern.
    """
    return sorted(folder.rglob(glob.escape(name)))


def refuse_special(path: Path, flag: str, error: type[MemscopeError] = DatasetError) -> None:
    """Refuse a flag's path that holds a FIFO, device or socket (a folder or file is fine).

    Such a path would otherwise count as "not found", and the run's recorded path be used
    in its place without a word.
    """
    kind = not_regular(path)
    if kind is not None and kind != "a folder":
        raise error(
            f"{flag} is {kind}, not a regular file",
            where=str(path),
            fix=f"Pass a file (or a folder holding it) with {flag}.",
        )


MAGIC_BYTES = 16
IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"BM", "bmp"),
)
AUDIO_MAGIC = ((b"fLaC", "flac"), (b"OggS", "ogg"), (b"ID3", "mp3"))


def media_kind(path: Path) -> str | None:
    """``"image"`` or ``"audio"`` when ``path`` is a regular file of such a format, else None.

    The type is read from the file's first bytes (PNG, JPEG, GIF, BMP, WebP; WAV, FLAC,
    Ogg, MP3, MP4/M4A audio), never from its name. The file is opened only when ``stat``
    says it is a regular file, non-blocking, and checked again on the open handle, so a
    FIFO or device put in its place is never read.
    """
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        descriptor = os.open(
            path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        )
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        head = os.read(descriptor, MAGIC_BYTES)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if any(head.startswith(magic) for magic, _name in IMAGE_MAGIC):
        return "image"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio"
    if any(head.startswith(magic) for magic, _name in AUDIO_MAGIC):
        return "audio"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        return "audio"  # an MPEG audio frame without an ID3 tag
    if head[4:8] == b"ftyp" and head[8:11] in (b"M4A", b"M4B", b"mp4", b"iso", b"MSN"):
        return "audio"
    return None


def strings(value: object) -> list[str]:
    """Return ``value`` as a list of non-empty stripped strings ([] for anything else)."""
    if isinstance(value, str):
        value = [value]
    elif not isinstance(value, list):
        return []
    result = []
    for item in value:
        if item is None:
            continue
        text = (item if isinstance(item, str) else str(item)).strip()
        if text:
            result.append(text)
    return result
