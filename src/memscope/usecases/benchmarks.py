"""The installed benchmarks as the use cases and the front ends see them.

Everything memscope does differently per benchmark is read from the run's
:class:`Benchmark` spec (``adapters.spec``; the registry fills them from entry points); the
front ends reach the specs through here, never through ``memscope.adapters``.

- :func:`spec_of`: the spec of a benchmark name (one clear error for an unknown one).
- :func:`coordinate_levels`: the levels of the question table's two coordinate columns
  (``x`` / ``y``) where a benchmark places questions on them (MemEye's X1–X4 × Y1–Y3):
  ``report``'s and ``compare``'s ``by_x`` / ``by_y`` / ``by_cell`` groups.
"""

from __future__ import annotations

from typing import Any

from memscope.adapters.axes import Axis
from memscope.adapters.registry import all_axis_keys, benchmark, benchmarks, built_ins
from memscope.adapters.spec import Benchmark, Panel
from memscope.errors import MemscopeError

__all__ = [
    "Benchmark",
    "Panel",
    "all_axis_keys",
    "benchmarks",
    "built_ins",
    "coordinate_axis",
    "coordinate_cells",
    "coordinate_levels",
    "headline_name",
    "installed",
    "plugin_failures",
    "spec_of",
]

HEADLINE_NAMES = {"em": "EM", "tsr": "TSR", "accuracy": "accuracy"}
"""How the runs list calls a run's mean ``em`` (its answer correctness) per benchmark word."""


def headline_name(name: str | None) -> str:
    """What a run's mean ``em`` is called on its benchmark: DMV-Bench's TSR (its ``tsr``
    reads ``em``), CUE-Mem's accuracy, else EM; a benchmark that cannot be loaded: EM."""
    try:
        table = spec_of(name).table
    except MemscopeError:
        return "EM"
    words = [word for word, column in table.metrics if column == "em"]
    word = words[0] if words else table.default_metric
    return HEADLINE_NAMES.get(word, "EM")


def plugin_failures() -> dict[str, str]:
    """Benchmark name -> what its code did that memscope worked around in this process (a
    sniff that raised, a folder its sniff claimed that another reader claims too), for the
    warnings ``ingest`` ends with."""
    from memscope.adapters.registry import failures

    return failures()


def spec_of(name: str | None) -> Benchmark:
    """The spec of benchmark ``name`` (``runs.benchmark``).

    Raises:
        PluginError: the benchmark is not installed or cannot be loaded.
    """
    return benchmark(name)


def coordinate_axis(spec: Benchmark, column: str) -> Axis | None:
    """The benchmark's axis read from the question table's ``column`` (``x`` or ``y``)."""
    return next(
        (axis for axis in spec.axes.axes if ("column", column) in axis.sources()),
        None,
    )


def coordinate_levels(spec: Benchmark) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fixed levels of the ``x`` and the ``y`` coordinate, in order (empty where the
    benchmark places no question on that column)."""
    x, y = coordinate_axis(spec, "x"), coordinate_axis(spec, "y")
    return (
        tuple(level.value for level in x.levels) if x else (),
        tuple(level.value for level in y.levels) if y else (),
    )


def coordinate_cells(spec: Benchmark) -> tuple[str, ...]:
    """The ``x_y`` cells (``X1_Y1`` …) of the coordinate grid, x-major."""
    xs, ys = coordinate_levels(spec)
    return tuple(f"{x}_{y}" for x in xs for y in ys)


def levels_of(name: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`coordinate_levels` of benchmark ``name`` (what the CLI lays ``by_x`` / ``by_y``
    / ``by_cell`` out on)."""
    return coordinate_levels(spec_of(name))


def installed() -> dict[str, Any]:
    """What ``memscope benchmarks`` lists: every installed benchmark and every entry point
    that could not be used.

    Returns:
        ``{"benchmarks": [{"name", "title", "run_files", "axes", "options", "panel",
        "question_panel" (its own question panel's name, or None), "figure" (its own
        figure's name for ``memscope plot``, or None)}],
        "problems": [{"name", "why"}]}``, benchmarks in sniffing order.
    """
    from memscope.adapters.charts import own_figure
    from memscope.adapters.registry import unavailable

    return {
        "benchmarks": [
            {
                "name": spec.name,
                "title": spec.title,
                "run_files": spec.run_files,
                "axes": [axis.key for axis in spec.axes.axes],
                "options": [option.flag for option in spec.read_options],
                "panel": spec.panel,
                "question_panel": None if spec.question_panel is None else spec.question_panel.name,
                "figure": None if (figure := own_figure(spec)) is None else figure.name,
            }
            for spec in benchmarks()
        ],
        "problems": [{"name": name, "why": why} for name, why in sorted(unavailable().items())],
    }
