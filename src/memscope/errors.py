"""The project's error types: one message a person can act on (what, where, what to do).

Foreign exceptions (file, JSON, DuckDB, torch) are caught at the boundary of the layer
that owns them and re-raised as a :class:`MemscopeError`; front ends show ``str(error)``
and never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from memscope.textsafe import printable, printable_id


class MemscopeError(Exception):
    """An error explained to the user.

    Args:
        what: What went wrong, in one sentence.
        where: The file, run, question or setting it concerns (optional).
        fix: What the user can do about it (optional).
    """

    title = "Error"
    exit_code = 1
    """The CLI's exit status for it: 1 a data or user error, 2 a usage error."""

    def __init__(self, what: str, *, where: str | None = None, fix: str | None = None) -> None:
        self.what = what
        self.where = where
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The whole message on one or two lines, safe for a terminal.

        What, where and fix often quote run files, paths and arguments, so every part goes
        through the one sanitiser; ``where`` (a file, a run, a setting) is shown as a name
        (``printable_id``: on one line, and no two different names look the same).
        """
        what = printable(self.what)
        text = what if not self.where else f"{what} ({printable_id(self.where)})"
        if self.fix:
            text = f"{text}\n  {printable(self.fix)}"
        return text

    def __str__(self) -> str:
        return self.message


class InputError(MemscopeError):
    """A command-line value or option the user gave is not acceptable."""

    title = "Invalid input"


class RunDirError(MemscopeError):
    """A run directory (or a file in it) cannot be read as a benchmark run."""

    title = "Unreadable run"


class DatasetError(MemscopeError):
    """The dataset a run points to is missing or malformed."""

    title = "Dataset problem"


class StoreError(MemscopeError):
    """The DuckDB store cannot be opened, migrated or queried."""

    title = "Store problem"


class StoreBusyError(StoreError):
    """Another process holds the store for writing."""

    title = "Store in use"


class StoreDamagedError(StoreError):
    """The store file is damaged (truncated, changed on disk) or its schema is half-made."""

    title = "Store damaged"


class NotFoundError(MemscopeError):
    """A run, question or code the user named does not exist."""

    title = "Not found"


class ConfigError(MemscopeError):
    """The user's configuration file is invalid."""

    title = "Configuration problem"


class EngineError(MemscopeError):
    """The memory engine cannot load a model or embed data."""

    title = "Memory engine problem"


class MediaError(MemscopeError):
    """A media file (an audio clip, an image) cannot be read as what it claims to be."""

    title = "Media problem"


class NoTerminalError(MemscopeError):
    """An interactive command was started without a terminal to draw on and read keys from."""

    title = "No terminal"
    exit_code = 2


class PluginError(MemscopeError):
    """A benchmark a run needs is not installed, or its package cannot be loaded."""

    title = "Benchmark not available"


@contextmanager
def benchmark_code(what: str) -> Iterator[None]:
    """Run a benchmark's own hook (a report section, its view, a figure): a MemscopeError
    passes as it is, anything else becomes one PluginError, ``"<what> failed (<type>:
    <message>)"``, never a traceback."""
    try:
        yield
    except MemscopeError:
        raise
    except Exception as error:
        raise PluginError(f"{what} failed ({type(error).__name__}: {error})") from None
