"""The benchmark registry: every ``Benchmark`` spec installed, from Python entry points.

Built-in and third-party benchmarks register the same way, as an entry point of the
group ``memscope.benchmarks`` whose name is the benchmark's name and whose object is its
:class:`~memscope.adapters.spec.Benchmark`::

    [project.entry-points."memscope.benchmarks"]
    mybench = "mybench_memscope:BENCHMARK"

The entry points are read once per process, on first use, and memscope's own benchmarks
loaded then; a third-party plugin's package is imported only when something needs it: a
stored run of its benchmark (:func:`benchmark` by name), or every benchmark at once
(:func:`benchmarks`, :func:`registry`: sniffing a folder, listing what is installed). So
``label``, ``report``, ``audit`` or ``export-labels`` over a store of built-in runs never
import a plugin, and a plugin that hangs or exits at import costs them nothing. Each spec is
checked against the contract (``adapters.spec_check``) and its hooks wrapped
(``adapters.guarded``) as it is loaded. A benchmark that is not installed, whose package fails to load or whose spec
breaks the contract is one clear error when a run needs it, never a fallback to another
benchmark's reading, and never takes the other benchmarks down.
"""

from __future__ import annotations

import contextlib
import io
import os
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
_loaded: _Points | None = None

BUILT_IN_MODULE = "memscope.adapters."
"""Where memscope's own benchmark packages live: an entry point into it is a built-in."""
IMPORT_SECONDS = 20.0
"""How long a plugin's package may take to import before memscope goes on without it
(``MEMSCOPE_PLUGIN_IMPORT_SECONDS`` overrides)."""


def _built_in(point: metadata.EntryPoint) -> bool:
    return point.value.startswith(BUILT_IN_MODULE)


def _import_seconds() -> float:
    try:
        return max(0.01, float(os.environ.get("MEMSCOPE_PLUGIN_IMPORT_SECONDS", IMPORT_SECONDS)))
    except ValueError:
        return IMPORT_SECONDS


def _load_point(point: metadata.EntryPoint) -> object:
    """``point.load()`` for a plugin, contained: whatever it prints goes nowhere, whatever it
    raises (``sys.exit`` and other BaseExceptions included) is a PluginError naming it, and
    an import that does not finish in time leaves it unloaded instead of hanging memscope.

    Raises:
        PluginError: the package failed to load, in words.
    """
    outcome: list[object] = []
    failure: list[BaseException] = []

    def load() -> None:
        try:
            outcome.append(point.load())
        except BaseException as error:
            failure.append(error)

    worker = threading.Thread(target=load, name=f"memscope-plugin-{point.name}", daemon=True)
    # What the package prints while it imports would corrupt memscope's own output (a
    # ``--format json`` document): it goes to a buffer that nobody reads.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        worker.start()
        worker.join(_import_seconds())
    if worker.is_alive():
        raise PluginError(
            f"its package did not finish importing within {_import_seconds():g} s "
            f"({point.value}); memscope goes on without it"
        )
    if failure:
        error = failure[0]
        if isinstance(error, KeyboardInterrupt):
            raise error
        raise PluginError(
            f"its package failed to load ({point.value}: {type(error).__name__}: {error})"
        )
    return outcome[0]


@dataclass
class _Points:
    """The entry points read, and how far they are loaded."""

    registry: Registry
    plugins: list[metadata.EntryPoint]
    """Third-party entry points not imported yet (empty once :func:`_load_plugins` ran)."""
    reserved: set[str]
    plugins_loaded: bool = False


def _ordered(points: Iterable[metadata.EntryPoint]) -> list[metadata.EntryPoint]:
    # The same entry point seen twice (an installed copy and a stale build's metadata on
    # the path) is one registration; the same name for two objects is a clash.
    unique = {(point.name, point.value): point for point in points}
    # memscope's own benchmarks first: on any clash (a name, a flag, a table) the plugin is
    # the one refused, whatever its name sorts as.
    return sorted(unique.values(), key=lambda p: (not _built_in(p), p.name, p.value))


def _read(points: Iterable[metadata.EntryPoint]) -> _Points:
    """Load memscope's own benchmarks now; keep the plugins' entry points for later."""
    ordered = _ordered(points)
    # The built-ins' names are reserved: a plugin can never replace one.
    reserved = {point.name for point in ordered if _built_in(point)}
    state = _Points(Registry(), [p for p in ordered if not _built_in(p)], reserved)
    for point in ordered:
        if _built_in(point):
            _load_one(state, point)
    return state


def _load_plugins(state: _Points) -> None:
    """Import every third-party plugin not imported yet (once per process)."""
    if state.plugins_loaded:
        return
    state.plugins_loaded = True
    for point in state.plugins:
        _load_one(state, point)
    state.plugins = []


def _load_one(state: _Points, point: metadata.EntryPoint) -> None:
    """Load one entry point into ``state.registry`` (or say there why it could not be)."""
    registry = state.registry
    built_in = _built_in(point)
    if not built_in and point.name in state.reserved:
        registry.problems[f"{point.name} ({point.value})"] = (
            f"the plugin {point.value} registers as {point.name!r}, the name reserved for "
            "memscope's built-in benchmark; the plugin is not loaded"
        )
        return
    if point.name in registry.benchmarks or point.name in registry.problems:
        registry.problems[point.name] = (
            f"registered twice (again by {point.value}); memscope keeps the first"
        )
        return
    try:
        spec = point.load() if built_in else _load_point(point)
    except PluginError as error:
        registry.problems[point.name] = error.what
        return
    except Exception as error:  # a broken plugin must not take the others down
        registry.problems[point.name] = (
            f"its package failed to load ({point.value}: {type(error).__name__}: {error})"
        )
        return
    if not isinstance(spec, Benchmark):
        registry.problems[point.name] = (
            f"{point.value} is a {type(spec).__name__}, not a memscope Benchmark"
        )
        return
    if spec.name != point.name:
        registry.problems[point.name] = (
            f"the entry point is named {point.name!r} but its spec says {spec.name!r}"
        )
        return
    broken = validate(spec) + clashes(spec, registry.benchmarks.values())
    if broken:
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        registry.problems[point.name] = (
            f"its spec ({point.value}) breaks memscope's contract (docs/benchmarks.md): "
            f"{broken[0]}{more}"
        )
        return
    registry.benchmarks[spec.name] = guarded(
        spec,
        _package(point),
        registry.failures,
        plugin=not built_in,
        version="" if built_in else _version(point),
    )


def _package(point: metadata.EntryPoint) -> str:
    """The distribution that declares ``point`` (its module when unknown), for messages."""
    dist = getattr(point, "dist", None)
    name = getattr(dist, "name", None)
    return str(name) if name else point.value.partition(":")[0]


def _version(point: metadata.EntryPoint) -> str:
    """The version of the distribution that declares ``point`` ("" when unknown)."""
    dist = getattr(point, "dist", None)
    version = getattr(dist, "version", None)
    return str(version) if version else ""


def _state() -> _Points:
    """The entry points, read once per process (memscope's own benchmarks loaded)."""
    global _loaded
    if _loaded is None:
        # Imported here: importlib.metadata (with email and zipfile) costs ~10 ms, paid
        # by the first use of the registry rather than by every import of memscope.
        from importlib import metadata

        _loaded = _read(metadata.entry_points(group=GROUP))
    return _loaded


def registry() -> Registry:
    """Every installed benchmark, plugins imported (the entry points are read once per
    process, a plugin's package imported once, on first need)."""
    with _lock:
        state = _state()
        _load_plugins(state)
        return state.registry


def reset(points: Iterable[metadata.EntryPoint] | None = None) -> None:
    """Read the registry again on next use (or now, from ``points``: memscope's own
    benchmarks loaded, the plugins when first needed): for tests and for a plugin installed
    while the process runs."""
    global _loaded
    with _lock:
        _loaded = None if points is None else _read(points)


def plugins_imported() -> bool:
    """Whether this process has imported the third-party plugins (for tests)."""
    with _lock:
        return _loaded is not None and _loaded.plugins_loaded


def benchmarks_named(names: Iterable[str]) -> list[Benchmark]:
    """The installed benchmarks of ``names`` (those a store's runs name), in sniffing order,
    importing the plugins only when a name is none of memscope's own. An unknown name is
    left out: the run that names it says so when it is opened."""
    wanted = set(names)
    with _lock:
        state = _state()
        if not wanted <= set(state.registry.benchmarks):
            _load_plugins(state)
        found = state.registry
    return [spec for spec in found.ordered() if spec.name in wanted]


def failures() -> dict[str, str]:
    """Benchmark name -> what its loaded code last raised (or claimed) where memscope
    carried on, in this process; imports no plugin (one not imported did nothing)."""
    with _lock:
        return dict(_state().registry.failures)


def built_ins() -> list[Benchmark]:
    """memscope's own benchmarks, in sniffing order (no plugin is imported)."""
    with _lock:
        found = _state().registry
    return [spec for spec in found.ordered() if not getattr(spec.reader, "plugin", False)]


def benchmarks() -> list[Benchmark]:
    """Every installed benchmark, in sniffing order."""
    return registry().ordered()


def benchmark(name: str | None) -> Benchmark:
    """The spec of benchmark ``name``.

    Raises:
        PluginError: no benchmark of that name is installed, or its package failed to load.
    """
    with _lock:
        state = _state()
        if name and name in state.registry.benchmarks:
            return state.registry.benchmarks[name]  # one of memscope's own: no plugin imported
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
