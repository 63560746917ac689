"""The benchmark registry: every ``Benchmark`` spec installed, from Python entry points.

Built-in and third-party benchmarks register the same way, as an entry point of the
group ``memscope.benchmarks`` whose name is the benchmark's name and whose object is its
:class:`~memscope.adapters.spec.Benchmark`::

    [project.entry-points."memscope.benchmarks"]
    mybench = "mybench_memscope:BENCHMARK"

The registry is read once per process, on first use. A benchmark that is not installed,
or whose package fails to load, is one clear error when a run needs it, never a fallback
to another benchmark's reading.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata

from memscope.adapters.spec import Benchmark
from memscope.errors import PluginError

GROUP = "memscope.benchmarks"
"""The entry-point group benchmarks register under."""


@dataclass
class Registry:
    """The loaded specs by name, and the entry points that failed to load."""

    benchmarks: dict[str, Benchmark] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    """Entry-point name -> why it could not be used."""

    def ordered(self) -> list[Benchmark]:
        """Every loaded benchmark in sniffing order (then by name, so the order is stable)."""
        return sorted(self.benchmarks.values(), key=lambda spec: (spec.sniff_order, spec.name))


_lock = threading.Lock()
_loaded: Registry | None = None


def _load(points: Iterable[metadata.EntryPoint]) -> Registry:
    registry = Registry()
    flags: dict[str, str] = {}
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
        clash = next((flags[o.flag] for o in spec.read_options if o.flag in flags), None)
        if clash is not None:
            registry.problems[point.name] = (
                f"it declares an option flag benchmark {clash!r} already declares"
            )
            continue
        flags.update({option.flag: spec.name for option in spec.read_options})
        registry.benchmarks[spec.name] = spec
    return registry


def registry() -> Registry:
    """The installed benchmarks (read from the entry points once per process)."""
    global _loaded
    with _lock:
        if _loaded is None:
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
            fix="Reinstall the package that provides it, or fix the error it raises on import.",
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


def all_axis_keys() -> set[str]:
    """Every filter word some installed benchmark's axes answer to."""
    keys: set[str] = set()
    for spec in benchmarks():
        for axis in spec.axes.axes:
            keys |= {axis.key, *axis.aliases}
    return keys
