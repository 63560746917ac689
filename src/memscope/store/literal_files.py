"""Files handed to DuckDB's readers as exactly those files, never as patterns.

DuckDB's ``read_json``, ``read_csv`` and ``read_parquet`` take a path *pattern*: ``*``,
``?``, ``[...]`` and ``**`` are expanded and ``~`` becomes the home folder, so a run folder
named ``exp[12]`` reads ``exp1/predictions.jsonl`` and ``labels[1].jsonl`` reads
``labels1.jsonl``, silently. Every path memscope gives a reader therefore goes through
:func:`literal_file`, which opens the file itself (only a regular file: a FIFO or device is
refused with what it is, before DuckDB could block on it) and hands DuckDB
``/proc/self/fd/N``: a name with no pattern character that opens the very file memscope
opened and checked, whatever its real name holds. It costs one ``open`` and is read at
full speed. Where ``/proc`` is missing, the path is given with every pattern character
bracketed (``[[]``, ``[*]``, ``[?]``), which DuckDB's globbing matches literally.

DuckDB's messages then name ``/proc/self/fd/N``; :meth:`ReaderPath.explain` puts the real
path back.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memscope.errors import InputError, MemscopeError
from memscope.file_kinds import NotRegularFileError, open_regular

PROC_FDS = Path("/proc/self/fd")
GLOB_CHARACTERS = "*?["


def escape_pattern(path: str) -> str:
    """``path`` as a DuckDB glob pattern that matches only itself (absolute, so no ``~``)."""
    absolute = os.path.abspath(path)
    return "".join(f"[{char}]" if char in GLOB_CHARACTERS else char for char in absolute)


@dataclass(frozen=True)
class ReaderPath:
    """The name DuckDB is given for one file, and the file's real path."""

    name: str
    path: Path

    def explain(self, message: str) -> str:
        """``message`` (a DuckDB error) with the real path in place of the descriptor name."""
        return message.replace(self.name, str(self.path)) if self.name else message


@contextmanager
def literal_file(
    path: str | os.PathLike[str],
    *,
    error: type[MemscopeError] = InputError,
    what: str = "file",
    use_proc: bool | None = None,
) -> Iterator[ReaderPath]:
    """A name DuckDB's readers open as exactly the regular file ``path``, valid inside the block.

    Args:
        path: The file.
        error: The error to raise when it cannot be opened (RunDirError for a run's file).
        what: How to call the file in that message ("predictions.jsonl", "label file").
        use_proc: Force (or forbid) the ``/proc/self/fd`` name; default: when it exists.

    Raises:
        MemscopeError: of type ``error``: nothing is at ``path``, something other than a
            regular file is (saying what), or it cannot be opened.
    """
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        raise error(f"{what} does not exist", where=str(path)) from None
    except NotRegularFileError as exc:
        raise error(
            f"{what} is {exc.kind}, not a regular file",
            where=str(path),
            fix="memscope reads regular files only; copy the data into a file and pass that.",
        ) from None
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", where=str(path)) from None
    try:
        proc = PROC_FDS.is_dir() if use_proc is None else use_proc
        name = f"{PROC_FDS}/{fd}" if proc else escape_pattern(os.fspath(path))
        yield ReaderPath(name, Path(path))
    finally:
        os.close(fd)
