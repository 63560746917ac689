"""The numbers behind the figures, for both front ends: ``memscope plot`` (matplotlib) and
the app's terminal plots (textual-plotext) read these functions' output, so the two show
the same values.

:func:`heatmap_grid` (the X×Y value and n per cell, from ``build_report``) and
:func:`memeye_lines` (the same grid as one line per Y over X); :func:`recency_sweep`
(Latest@K, Rank-Inversion and Stale-Dominance against alpha, each with the paired
bootstrap interval of its change from alpha 1, placed around the alpha-1 value);
a benchmark's own figure is its package's code (``usecases.figures.own``). Also the shared
colour-blind-safe palette (Okabe-Ito). Pure data: no plotting library, no UI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memscope.errors import InputError

if TYPE_CHECKING:
    from memscope.usecases.runs.loading import RunData

OKABE_ITO = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)
"""Okabe-Ito, colour-blind safe: blue, orange, green, vermillion, purple, sky, yellow, black."""
HATCHES = ("", "///", "...", "xxx", "\\\\\\", "+++", "ooo", "---", "|||", "***")
"""Fill patterns that tell apart series beyond the palette's eight colours."""


@dataclass(frozen=True)
class SeriesStyle:
    """How one series of a figure is drawn: a palette colour and a fill pattern."""

    colour: str
    hatch: str


def series_styles(names: list[str]) -> dict[str, SeriesStyle]:
    """A look of its own for every name (the failure codes of ``memscope plot codes``):
    the Okabe-Ito colours in order, then the same colours again with a pattern each round,
    so no two series share one (eight colours would repeat at the ninth code: ENC-PERC
    and USE-CALIB were drawn alike).

    Raises:
        InputError: more names than colours × patterns (80).
    """
    if len(names) > len(OKABE_ITO) * len(HATCHES):
        raise InputError(
            f"{len(names)} series are too many for one figure",
            fix=f"At most {len(OKABE_ITO) * len(HATCHES)} can be told apart.",
        )
    return {
        name: SeriesStyle(OKABE_ITO[index % len(OKABE_ITO)], HATCHES[index // len(OKABE_ITO)])
        for index, name in enumerate(names)
    }


SWEEP_ALPHAS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)
"""The alphas of the recency sweep (1 = similarity only, the run's own order)."""
SWEEP_METRICS = (
    ("latest_at_k", "Latest@K"),
    ("rank_inversion", "Rank-Inversion"),
    ("stale_dominance", "Stale-Dominance"),
)


@dataclass(frozen=True)
class Curve:
    """One line of a figure: values over ``xs`` with their interval (None: undefined)."""

    label: str
    xs: list[float]
    values: list[float | None]
    low: list[float | None] | None = None
    high: list[float | None] | None = None
    n: list[int] | None = None


@dataclass(frozen=True)
class HeatmapGrid:
    """A MemEye run's X×Y grid of one metric: ``values[y][x]`` and ``n[y][x]``."""

    run_id: str
    metric: str
    x_levels: tuple[str, ...]
    y_levels: tuple[str, ...]
    values: list[list[float | None]]
    n: list[list[int]]


@dataclass(frozen=True)
class RecencySweep:
    """The run-level recency sweep: one curve per metric of :data:`SWEEP_METRICS`."""

    run_id: str
    n: int
    """Latest-state questions (MemEye's Y3) with a gold clue (what every point is over)."""
    lam: float
    k: int
    curves: dict[str, Curve]


def _run_id(data: RunData) -> str:
    return str(data.run.run_id)


def heatmap_grid(data: RunData, metric: str = "em") -> HeatmapGrid:
    """The X×Y value of ``metric`` (em, judge) and n per cell, from the run's report.

    Raises:
        InputError: the run has no per-cell ``metric`` (e.g. judge on a run without one).
    """
    from memscope.usecases.benchmarks import coordinate_levels
    from memscope.usecases.report.build import make_report

    x_levels, y_levels = coordinate_levels(data.spec)
    cells = make_report(data).answer.by_cell
    if not any(metric in cell for cell in cells.values()):
        raise InputError(
            f"run {_run_id(data)} has no per-cell {metric!r}",
            fix="Try --metric em or --metric judge.",
        )
    values = [[cells.get(f"{x}_{y}", {}).get(metric) for x in x_levels] for y in y_levels]
    n = [[int(cells.get(f"{x}_{y}", {}).get("n") or 0) for x in x_levels] for y in y_levels]
    return HeatmapGrid(_run_id(data), metric, tuple(x_levels), tuple(y_levels), values, n)


def memeye_lines(grid: HeatmapGrid) -> list[Curve]:
    """The grid as one curve per Y level over the X levels (x = 1, 2, … for X1, X2, …)."""
    xs = [float(index + 1) for index in range(len(grid.x_levels))]
    return [
        Curve(y, xs, list(grid.values[index]), n=list(grid.n[index]))
        for index, y in enumerate(grid.y_levels)
    ]


def recency_sweep(
    data: RunData,
    *,
    lam: float | None = None,
    k: int | None = None,
    alphas: tuple[float, ...] = SWEEP_ALPHAS,
) -> RecencySweep:
    """Latest@K, Rank-Inversion and Stale-Dominance of the run's latest-state questions at each alpha
    (ascending), each with the 95 % paired bootstrap interval of its change from alpha 1
    added to the alpha-1 value (the defaults of ``memscope rerun``: seed, 10,000 resamples).

    Raises:
        InputError: a parameter out of range, or a run without a ranked retrieval list.
    """
    from memscope.usecases.rerun.defaults import DEFAULT_LAMBDA
    from memscope.usecases.rerun.run_rerank import rerun_run

    result = rerun_run(
        data, [a for a in alphas if a != 1.0], lam=DEFAULT_LAMBDA if lam is None else lam, k=k
    )
    points = sorted(result["results"], key=lambda r: r["alpha"])
    xs = [float(point["alpha"]) for point in points]
    curves = {}
    for key, title in SWEEP_METRICS:
        base = next(p[key] for p in points if p["alpha"] == 1.0)
        curves[key] = Curve(
            title,
            xs,
            [p[key] for p in points],
            [base + p["delta"][key]["ci_low"] for p in points],
            [base + p["delta"][key]["ci_high"] for p in points],
        )
    return RecencySweep(
        _run_id(data),
        int(result["n"]),
        float(result["params"]["lambda"]),
        int(result["params"]["k"]),
        curves,
    )
