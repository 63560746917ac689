"""A benchmark's hooks as memscope calls them: what a plugin's code does stays its own.

The registry hands out every spec with its reader and its summary checks wrapped here, so
that a failure in one benchmark's code never takes a command, or the other benchmarks,
down with it:

- ``sniff`` that raises counts as "not this benchmark's directory"; the error is kept in
  ``failures`` (by benchmark name), which "not a run directory" messages name;
- ``read_all`` that raises anything but a :class:`~memscope.errors.MemscopeError` becomes a
  :class:`~memscope.errors.PluginError` naming the benchmark and its package, so
  ``memscope ingest ROOT`` reports that directory and goes on with the others;
- a summary check (``check_stored``, ``check_table``) that raises becomes a PluginError the
  same way (ingest rolls the run back; nothing is half-written).

"Raises" includes ``sys.exit()`` and any other BaseException but a KeyboardInterrupt (the
user's): a plugin never ends memscope. What a hook prints goes to stderr, so memscope's
own output (a ``--format json`` document) stays whole. A plugin's (not a built-in's)
``read_all`` result is checked (``adapters.plugin_rows``): a wrong type is the plugin's
error, bad rows are skipped and named, or refused with ``--strict``. Every text a plugin
provides for the terminal (titles, axis titles, level labels, words) passes the sanitiser
(``memscope.textsafe``) here, once, as run data does.

A MemscopeError passes unchanged: it is the reader's own explained message. The original
exception is chained, so ``MEMSCOPE_DEBUG=1`` shows its traceback.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from memscope.adapters.axes import Axis, BenchmarkAxes, Level
from memscope.adapters.plugin_rows import checked_records
from memscope.adapters.spec import Benchmark, MatrixStyle, ReadOption, RunReader
from memscope.errors import MemscopeError, PluginError
from memscope.textsafe import printable

if TYPE_CHECKING:
    from memscope.adapters.base import ReadOptions
    from memscope.records import RunRecord

Result = TypeVar("Result")
Params = ParamSpec("Params")


def _failed(
    name: str, package: str, doing: str, error: BaseException, where: str | None
) -> PluginError:
    return PluginError(
        f"benchmark {name!r} failed {doing} ({type(error).__name__}: {error})",
        where=where,
        fix=f"This is a bug in the package that provides it ({package}); run again with "
        "MEMSCOPE_DEBUG=1 for the traceback and report it to its authors.",
    )


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """A hook's prints go to stderr: memscope's stdout is its own (JSON documents)."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


@dataclass(frozen=True)
class GuardedReader:
    """``reader`` of benchmark ``name`` (from ``package``), its failures kept in ``failures``."""

    name: str
    package: str
    reader: RunReader
    failures: dict[str, str]
    plugin: bool = False
    """A third-party package (its records are checked; see ``adapters.plugin_rows``)."""
    version: str = ""
    """The reader's version, made part of every record's content hash (:func:`reader_is_current`)."""

    def sniff(self, path: Path) -> bool:
        try:
            with _quiet():
                return bool(self.reader.sniff(path))
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            self.failures[self.name] = (
                f"its sniff raised {type(error).__name__}: {error} (on {path})"
            )
            return False

    def read_all(self, path: Path, options: ReadOptions) -> list[RunRecord]:
        try:
            with _quiet():
                records = self.reader.read_all(path, options)
        except (MemscopeError, KeyboardInterrupt):
            raise
        except BaseException as error:
            raise _failed(
                self.name, self.package, "reading this run directory", error, str(path)
            ) from error
        if self.plugin:
            records = checked_records(
                self.name, self.package, records, str(path), strict=options.strict
            )
        for record in records:
            if self.version:
                record.content_hash = (
                    f"{record.content_hash}{READER_MARK}{self.name}@{self.version}"
                )
            record.reread = options.reread
        return records


READER_MARK = "+reader:"
"""What joins a run's content hash to its reader's ``name@version``."""


def reader_is_current(content_hash: str | None) -> bool:
    """Whether a stored run's hash was made by the reader its benchmark has now (a hash
    without a reader version is current: memscope's own readers carry none)."""
    if not content_hash or READER_MARK not in content_hash:
        return True
    from memscope.adapters.registry import benchmarks_named

    name, _, version = content_hash.rpartition(READER_MARK)[2].partition("@")
    spec = next(iter(benchmarks_named([name])), None)
    reader = getattr(spec, "reader", None) if spec is not None else None
    return getattr(reader, "version", None) == version


def _guarded_hook(
    name: str, package: str, what: str, hook: Callable[Params, Result]
) -> Callable[Params, Result]:
    def call(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        try:
            with _quiet():
                return hook(*args, **kwargs)
        except (MemscopeError, KeyboardInterrupt):
            raise
        except BaseException as error:
            raise _failed(
                name, package, f"checking a run's summary ({what})", error, None
            ) from error

    return call


def _text(value: str | None) -> str | None:
    return None if value is None else printable(value, keep_newlines=False)


def _safe_axes(axes: BenchmarkAxes) -> BenchmarkAxes:
    def level(found: Level) -> Level:
        return replace(found, label=printable(found.label, keep_newlines=False))

    def axis(found: Axis) -> Axis:
        return replace(
            found,
            title=printable(found.title, keep_newlines=False),
            levels=tuple(level(one) for one in found.levels),
        )

    return replace(
        axes,
        name=printable(axes.name, keep_newlines=False),
        axes=tuple(axis(one) for one in axes.axes),
        metrics=tuple((key, printable(title, keep_newlines=False)) for key, title in axes.metrics),
        words={key: printable(word, keep_newlines=False) for key, word in axes.words.items()},
    )


def sanitised(spec: Benchmark) -> Benchmark:
    """``spec`` with every text it shows on a terminal made printable (``textsafe``)."""
    matrix: MatrixStyle = spec.matrix
    return replace(
        spec,
        title=printable(spec.title, keep_newlines=False),
        run_files=printable(spec.run_files, keep_newlines=False),
        axes=_safe_axes(spec.axes),
        read_options=tuple(
            ReadOption(
                option.key,
                option.flag,
                printable(option.help, keep_newlines=False),
                option.remembered_as,
            )
            for option in spec.read_options
        ),
        matrix=replace(
            matrix,
            corner=_text(matrix.corner),
            legend=_text(matrix.legend),
            delta_title=printable(matrix.delta_title, keep_newlines=False),
            gap=None
            if matrix.gap is None
            else replace(matrix.gap, title=printable(str(matrix.gap.title), keep_newlines=False)),
        ),
        no_scores_reason=printable(spec.no_scores_reason, keep_newlines=False),
        table=replace(
            spec.table,
            derived=tuple(
                (key, printable(heading, keep_newlines=False), compute)
                for key, heading, compute in spec.table.derived
            ),
            display_names={
                key: printable(shown, keep_newlines=False)
                for key, shown in spec.table.display_names.items()
            },
        ),
    )


def guarded(
    spec: Benchmark,
    package: str,
    failures: dict[str, str],
    *,
    plugin: bool = False,
    version: str = "",
) -> Benchmark:
    """``spec`` with its reader and summary checks wrapped (see the module docstring);
    ``version`` is the reader's when the spec declares none (a plugin's distribution's)."""
    return replace(
        sanitised(spec),
        reader=GuardedReader(
            spec.name, package, spec.reader, failures, plugin, spec.reader_version or version
        ),
        check_stored=None
        if spec.check_stored is None
        else _guarded_hook(spec.name, package, "check_stored", spec.check_stored),
        check_table=None
        if spec.check_table is None
        else _guarded_hook(spec.name, package, "check_table", spec.check_table),
    )
