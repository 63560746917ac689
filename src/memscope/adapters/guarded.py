"""A benchmark's hooks as memscope calls them: what a plugin's code raises stays its own.

The registry hands out every spec with its reader and its summary checks wrapped here, so
that an unexpected exception in one benchmark's code never takes a command, or the other
benchmarks, down with it:

- ``sniff`` that raises counts as "not this benchmark's directory"; the error is kept in
  ``failures`` (by benchmark name), which "not a run directory" messages name;
- ``read_all`` that raises anything but a :class:`~memscope.errors.MemscopeError` becomes a
  :class:`~memscope.errors.PluginError` naming the benchmark and its package, so
  ``memscope ingest ROOT`` reports that directory and goes on with the others;
- a summary check (``check_stored``, ``check_table``) that raises becomes a PluginError the
  same way (ingest rolls the run back; nothing is half-written).

A MemscopeError passes unchanged: it is the reader's own explained message. The original
exception is chained, so ``MEMSCOPE_DEBUG=1`` shows its traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from memscope.adapters.spec import Benchmark, RunReader
from memscope.errors import MemscopeError, PluginError

if TYPE_CHECKING:
    from memscope.adapters.base import ReadOptions
    from memscope.records import RunRecord

Result = TypeVar("Result")
Params = ParamSpec("Params")


def _failed(
    name: str, package: str, doing: str, error: Exception, where: str | None
) -> PluginError:
    return PluginError(
        f"benchmark {name!r} failed {doing} ({type(error).__name__}: {error})",
        where=where,
        fix=f"This is a bug in the package that provides it ({package}); run again with "
        "MEMSCOPE_DEBUG=1 for the traceback and report it to its authors.",
    )


@dataclass(frozen=True)
class GuardedReader:
    """``reader`` of benchmark ``name`` (from ``package``), its failures kept in ``failures``."""

    name: str
    package: str
    reader: RunReader
    failures: dict[str, str]

    def sniff(self, path: Path) -> bool:
        try:
            return bool(self.reader.sniff(path))
        except Exception as error:  # a broken sniff must not hide the other benchmarks' runs
            self.failures[self.name] = (
                f"its sniff raised {type(error).__name__}: {error} (on {path})"
            )
            return False

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        try:
            return self.reader.read_all(path, options)
        except MemscopeError:
            raise
        except Exception as error:
            raise _failed(
                self.name, self.package, "reading this run directory", error, str(path)
            ) from error


def _guarded_hook(
    name: str, package: str, what: str, hook: Callable[Params, Result]
) -> Callable[Params, Result]:
    def call(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        try:
            return hook(*args, **kwargs)
        except MemscopeError:
            raise
        except Exception as error:
            raise _failed(
                name, package, f"checking a run's summary ({what})", error, None
            ) from error

    return call


def guarded(spec: Benchmark, package: str, failures: dict[str, str]) -> Benchmark:
    """``spec`` with its reader and summary checks wrapped (see the module docstring)."""
    return replace(
        spec,
        reader=GuardedReader(spec.name, package, spec.reader, failures),
        check_stored=None
        if spec.check_stored is None
        else _guarded_hook(spec.name, package, "check_stored", spec.check_stored),
        check_table=None
        if spec.check_table is None
        else _guarded_hook(spec.name, package, "check_table", spec.check_table),
    )
