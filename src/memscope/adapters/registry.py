"""The benchmark registry: every ``Benchmark`` spec installed, from Python entry points.

Built-in and third-party benchmarks register the same way, as an entry point of the
group ``memscope.benchmarks`` whose name is the benchmark's name and whose object is its
:class:`~memscope.adapters.spec.Benchmark`::

    [project.entry-points."memscope.benchmarks"]
    mybench = "mybench_memscope:BENCHMARK"

The registry is read once per process, on first use. Each spec is checked against the
contract (``adapters.spec_check``) and its hooks wrapped (``adapters.guarded``) as it is
loaded. A benchmark that is not installed, whose package fails to load or whose spec
breaks the contract is one clear error when a run needs it, never a fallback to another
benchmark's reading, and never takes the other benchmarks down.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memscope.adapters.guarded import guarded
from memscope.adapters.spec import Benchmark
from memscope.adapters.spec_check import clashes, validate
from memscope.errors import PluginError

if TYPE_CHECKING:
    from importlib import metadata

GROUP = "memscope.benchmarks"
"""The entry-point group benchmarks register under."""


@dataclass
class Registry:
    """The loaded specs by name, and the entry points that failed to load."""

    benchmarks: dict[str, Benchmark] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    """Entry-point name -> why it could not be used."""
    failures: dict[str, str] = field(default_factory=dict)
    """Benchmark name -> what its loaded code last raised where memscope carried on
    (``adapters.guarded``: a sniff that failed)."""

    def ordered(self) -> list[Benchmark]:
        """Every loaded benchmark in sniffing order (then by name, so the order is stable)."""
        return sorted(self.benchmarks.values(), key=lambda spec: (spec.sniff_order, spec.name))


_lock = threading.Lock()
_loaded: Registry | None = None


def _load(points: Iterable[metadata.EntryPoint]) -> Registry:
    registry = Registry()
    # The same entry point seen twice (an installed copy and a stale build's metadata on
    # the path) is one registration; the same name for two objects is a clash.
    unique = {(point.name, point.value): point for point in points}
    for point in sorted(unique.values(), key=lambda p: (p.name, p.value)):
        if point.name in registry.benchmarks or point.name in registry.problems:
            registry.problems[point.name] = (
                f"registered twice (again by {point.value}); memscope keeps the first"
            )
            continue
        try:
            spec = point.load()
        except Exception as error:  # a broken plugin must not take the others down
            registry.problems[point.name] = (
                f"its package failed to load ({point.value}: {type(error).__name__}: {error})"
            )
            continue
        if not isinstance(spec, Benchmark):
            registry.problems[point.name] = (
                f"{point.value} is a {type(spec).__name__}, not a memscope Benchmark"
            )
            continue
        if spec.name != point.name:
            registry.problems[point.name] = (
                f"the entry point is named {point.name!r} but its spec says {spec.name!r}"
            )
            continue
        broken = validate(spec) + clashes(spec, registry.benchmarks.values())
        if broken:
            more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
            registry.problems[point.name] = (
                f"its spec ({point.value}) breaks memscope's contract (docs/benchmarks.md): "
                f"{broken[0]}{more}"
            )
            continue
        registry.benchmarks[spec.name] = guarded(spec, _package(point), registry.failures)
    return registry


def _package(point: metadata.EntryPoint) -> str:
    """The distribution that declares ``point`` (its module when unknown), for messages."""
    dist = getattr(point, "dist", None)
    name = getattr(dist, "name", None)
    return str(name) if name else point.value.partition(":")[0]


def registry() -> Registry:
    """The installed benchmarks (read from the entry points once per process)."""
    global _loaded
    with _lock:
        if _loaded is None:
            # Imported here: importlib.metadata (with email and zipfile) costs ~10 ms, paid
            # by the first use of the registry rather than by every import of memscope.
            from importlib import metadata

            _loaded = _load(metadata.entry_points(group=GROUP))
        return _loaded


def reset(points: Iterable[metadata.EntryPoint] | None = None) -> None:
    """Read the registry again on next use (or now, from ``points``): for tests and for a
    plugin installed while the process runs."""
    global _loaded
    with _lock:
        _loaded = None if points is None else _load(points)


def benchmarks() -> list[Benchmark]:
    """Every installed benchmark, in sniffing order."""
    return registry().ordered()


def benchmark(name: str | None) -> Benchmark:
    """The spec of benchmark ``name``.

    Raises:
        PluginError: no benchmark of that name is installed, or its package failed to load.
    """
    found = registry()
    if name and name in found.benchmarks:
        return found.benchmarks[name]
    if name and name in found.problems:
        raise PluginError(
            f"benchmark {name!r} cannot be used: {found.problems[name]}",
            fix="Reinstall the package that provides it, or fix what this message names.",
        )
    known = ", ".join(sorted(found.benchmarks)) or "none"
    raise PluginError(
        f"no benchmark {name!r} is installed (installed: {known})"
        if name
        else "this run names no benchmark",
        fix=(
            "Install the package that provides it (its entry point in the "
            f"'{GROUP}' group), or re-ingest the run."
            if found.benchmarks
            else "memscope's own benchmarks register through its package metadata: install "
            "memscope (`pip install -e .` in a clone) rather than running it from a bare folder."
        ),
    )


def unavailable() -> dict[str, str]:
    """Benchmark (entry-point) name -> why it is not loaded or why its code last failed,
    for messages that say why a directory was not recognised."""
    found = registry()
    return {**found.problems, **found.failures}


def all_axis_keys() -> set[str]:
    """Every filter word some installed benchmark's axes answer to."""
    keys: set[str] = set()
    for spec in benchmarks():
        for axis in spec.axes.axes:
            keys |= {axis.key, *axis.aliases}
    return keys
