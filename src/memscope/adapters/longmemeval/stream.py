"""Reading LongMemEval's large files one entry at a time.

``longmemeval_m.json`` is several GB, one JSON list; it is never held whole: entries are
decoded one by one from a buffer that grows only to the size of the largest entry.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Protocol

from memscope.plugin import DatasetError, open_regular

CHUNK = 1 << 20
_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


class Digest(Protocol):
    """A hashlib object: the file's bytes are fed to it as they are read."""

    def update(self, data: bytes, /) -> None: ...


def iter_json_list(path: Path, *, what: str, digest: Digest | None = None) -> Iterator[Any]:
    """Each element of the JSON list in ``path``, in order; ``digest`` (when given) sees
    every byte of the file, so one pass both hashes and reads it.

    Raises:
        DatasetError: the file cannot be read, is not UTF-8, or is not a JSON list (the
            message names the entry where decoding failed).
    """
    try:
        with open(open_regular(path), "rb", closefd=True) as handle:
            yield from _Elements(handle, path, what, digest).each()
    except UnicodeDecodeError:
        raise DatasetError(f"the {what} is not UTF-8", where=str(path)) from None
    except OSError as error:
        raise DatasetError(
            f"cannot read the {what}: {error.strerror or error}",
            where=str(path),
            fix="Pass the dataset with --dataset PATH.",
        ) from None


class _Elements:
    """A JSON list's elements from a text stream, with a buffer that grows as needed."""

    def __init__(self, handle: IO[bytes], path: Path, what: str, digest: Digest | None) -> None:
        self.handle, self.path, self.what, self.digest = handle, path, what, digest
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buffer, self.pos, self.done = "", 0, False

    def _read(self, size: int) -> str:
        """At least one more character ("" only at the end of the file)."""
        while True:
            block = self.handle.read(size)
            if self.digest is not None:
                self.digest.update(block)
            # a multi-byte character cut by the chunk waits for the next block
            text = self.decoder.decode(block, final=not block)
            if text or not block:
                return text

    def _refill(self, *, grow: bool = False) -> None:
        # as much again as the unread rest when an entry is cut off, so that an entry of
        # n chunks costs about log2(n) retries, not n
        rest = self.buffer[self.pos :]
        size = max(CHUNK, len(rest)) if grow else CHUNK
        more = self._read(size)
        self.buffer, self.pos, self.done = rest + more, 0, not more

    def _next_char(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in _SPACE:
                self.pos += 1
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if self.done:
                return ""
            self._refill()

    def _fail(self, message: str) -> DatasetError:
        return DatasetError(
            f"not a LongMemEval {self.what}: {message}",
            where=str(self.path),
            fix="Pass upstream's file (a JSON list of questions) with --dataset PATH.",
        )

    def each(self) -> Iterator[Any]:
        if self._next_char() != "[":
            raise self._fail("expected a JSON list")
        self.pos += 1
        index = 0
        while True:
            char = self._next_char()
            if char == "]":
                self.pos += 1
                if self._next_char():  # also reads (and hashes) the file to its end
                    raise self._fail("text after the list")
                return
            if index:
                if char != ",":
                    raise self._fail(f"expected ',' or ']' after entry {index}")
                self.pos += 1
                self._next_char()
            if not self.buffer[self.pos :]:
                raise self._fail("the file ends inside the list")
            value = self._decode(index + 1)
            index += 1
            yield value

    def _decode(self, number: int) -> Any:
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as error:
                if self.done:
                    raise self._fail(f"entry {number} is not valid JSON ({error.msg})") from None
                self._refill(grow=True)
                continue
            if end == len(self.buffer) and not self.done and not isinstance(value, (dict, list)):
                self._refill(grow=True)  # a number at the buffer's end may go on
                continue
            self.pos = end
            return value
