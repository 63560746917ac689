"""``memscope plot``: paper figures with matplotlib (the optional ``plot`` extra).

One function per figure of memscope's own: the X×Y heatmap (value and n per cell), the
recency sweep (Latest@K, Rank-Inversion, Stale-Dominance against alpha, with the paired
bootstrap interval of each change from alpha 1) and the failure-code breakdown per stratum
from ``memscope estimate`` (stacked bars of the PPI++ shares, each with its interval).
A benchmark's own figure (DMV-Bench's ``retention``, CUE-Mem's ``cue``; ``figure``: each
run's own) is the chart its package describes (``usecases.figures.own``), drawn by
``chart_plot``. The numbers come from :mod:`memscope.usecases.figures.data` and the
benchmark's code (the app's terminal plots read the same) and ``memscope estimate``; this
is the only module importing matplotlib, and only inside :func:`render`. Output is deterministic: the Agg backend, DejaVu Sans, a
fixed SVG hash salt and no creation date in any format, so a snapshot test can compare
files byte for byte. Colours are the Okabe-Ito palette (colour-blind safe); the codes
figure gives every code its own look (``figure_data.series_styles``: past eight, a pattern).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Protocol

from memscope.adapters.charts import PLOT_KINDS
from memscope.distribution import install_command
from memscope.errors import InputError, MemscopeError
from memscope.usecases.figures.data import (
    OKABE_ITO,
    SWEEP_METRICS,
    heatmap_grid,
    recency_sweep,
    series_styles,
)
from memscope.usecases.output_files import FIGURE, plan_output, store_files, write_output

if TYPE_CHECKING:
    from memscope.adapters.charts import BenchmarkFigure
    from memscope.store import Store
    from memscope.usecases.runs.loading import RunData

KINDS = PLOT_KINDS
"""memscope's own figures; besides them, ``memscope plot`` draws every benchmark's own by
its name (``usecases.figures.own``)."""


class DrawnFigure(Protocol):
    """What a builder draws: a matplotlib figure (matplotlib is an optional extra, so its
    types are not imported; pyplot is passed as the module it is)."""

    def savefig(self, fname: IO[bytes], **kwargs: object) -> None: ...


FORMATS = (".svg", ".png", ".pdf")
HASH_SALT = "memscope"


@dataclass(frozen=True)
class Figure:
    """What a plot wrote."""

    path: Path
    kind: str
    runs: list[str]


def _matplotlib() -> ModuleType:
    """pyplot on the Agg backend, with the settings that make output reproducible."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise MemscopeError(
            "memscope plot needs matplotlib, which is not installed",
            fix=f"Install the plot extra: {install_command('plot')} (or pip install matplotlib).",
        ) from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    from cycler import cycler  # matplotlib's own dependency

    matplotlib.rcParams.update(
        {
            "svg.hashsalt": HASH_SALT,
            "svg.fonttype": "none",  # text stays text (searchable, small)
            "font.family": "DejaVu Sans",
            "font.size": 9,
            "axes.prop_cycle": cycler(color=OKABE_ITO),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "pdf.compression": 6,
        }
    )
    return plt


def _save(plt: ModuleType, fig: DrawnFigure, suffix: str) -> bytes:
    """The figure's bytes without a creation date (so they depend on the data only).

    Every format carries memscope as its creator: that is how a later ``plot --out`` knows
    it may replace the file (``usecases.output_files.FIGURE``).
    """
    import io

    metadata: dict[str, str | None] = {"Software": "memscope"}
    if suffix == ".svg":
        metadata = {"Date": None, "Creator": "memscope"}
    elif suffix == ".pdf":
        metadata = {"CreationDate": None, "ModDate": None, "Creator": "memscope", "Producer": None}
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format=suffix.lstrip("."), metadata=metadata, bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()


def _heatmap(plt: ModuleType, store: Store, runs: list[str], metric: str | None) -> DrawnFigure:
    from memscope.usecases.runs.batch import load_runs

    name = metric or "em"
    fig, axes = plt.subplots(1, len(runs), figsize=(3.4 * len(runs), 3.0), squeeze=False)
    image = None
    loaded = load_runs(store, runs, detail=False)
    for ax, run_id, data in zip(axes[0], runs, loaded, strict=True):
        grid = heatmap_grid(data, name)
        values = [[float("nan") if v is None else v for v in row] for row in grid.values]
        image = ax.imshow(values, cmap="cividis", vmin=0.0, vmax=1.0, origin="lower")
        for yi in range(len(grid.y_levels)):
            for xi in range(len(grid.x_levels)):
                value = grid.values[yi][xi]
                text = "–" if value is None else f"{value:.2f}"
                colour = "black" if value is not None and value > 0.55 else "white"
                ax.text(
                    xi,
                    yi,
                    f"{text}\nn={grid.n[yi][xi]}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color=colour,
                )
        ax.set_xticks(range(len(grid.x_levels)), grid.x_levels)
        ax.set_yticks(range(len(grid.y_levels)), grid.y_levels)
        ax.set_xlabel("X (visual granularity)")
        if ax is axes[0][0]:
            ax.set_ylabel("Y (reasoning depth)")
        ax.set_title(f"{run_id}: {name.upper() if name == 'em' else name}")
    if image is not None:
        fig.colorbar(image, ax=list(axes[0]), shrink=0.8)
    return fig


def _recency(plt: ModuleType, store: Store, runs: list[str], metric: str | None) -> DrawnFigure:
    from memscope.usecases.runs.batch import load_runs
    from memscope.usecases.runs.declared import latest_label_of

    fig, axes = plt.subplots(1, len(SWEEP_METRICS), figsize=(9.0, 2.8), sharex=True)
    sweep = None
    loaded = load_runs(store, runs, detail=False)
    for index, (run_id, data) in enumerate(zip(runs, loaded, strict=True)):
        sweep = recency_sweep(data)
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        for ax, (key, title) in zip(axes, SWEEP_METRICS, strict=True):
            curve = sweep.curves[key]
            ax.plot(curve.xs, curve.values, marker="o", markersize=3, color=colour, label=run_id)
            ax.fill_between(curve.xs, curve.low, curve.high, color=colour, alpha=0.2, linewidth=0)
            ax.set_title(title)
            ax.set_xlabel("alpha (1 = similarity only)")
            ax.set_ylim(-0.02, 1.02)
    assert sweep is not None
    axes[0].set_ylabel(f"{latest_label_of(loaded[-1].benchmark)} questions (n={sweep.n})")
    axes[-1].legend(frameon=False, fontsize=7)
    return fig


def _own(plt: ModuleType, figure: BenchmarkFigure, loaded: list[RunData]) -> DrawnFigure:
    """A benchmark's own figure, as its package describes it: one panel of every run
    together (a figure that overlays runs), or one panel per run, titled by it."""
    from memscope.usecases.figures.chart_plot import draw_charts
    from memscope.usecases.figures.own import charts_of

    charts = charts_of(figure, loaded)
    if figure.overlay:
        titles = [_titled(charts[0].title, charts[0].summary)]
    else:
        titles = [
            _titled(str(data.run.run_id), chart.summary)
            for data, chart in zip(loaded, charts, strict=True)
        ]
    fig: DrawnFigure = draw_charts(plt, charts, titles)
    return fig


def _titled(title: str, summary: str) -> str:
    return f"{title} · {summary}" if summary else title


def _codes(
    plt: ModuleType,
    store: Store,
    runs: list[str],
    metric: str | None,
    annotator: str | None = None,
) -> DrawnFigure:
    from memscope.usecases.labels.estimate import estimate_dict, estimate_run

    by = metric or "y"
    result = estimate_run(store, runs[0], by=by, annotator=annotator)
    groups = ["overall", *result.strata]
    codes = list(result.codes)
    fig, ax = plt.subplots(figsize=(1.2 + 1.0 * len(groups), 3.4))
    bottoms = [0.0] * len(groups)
    styles = series_styles(codes)
    for code in codes:
        values, lows, highs = [], [], []
        for group in groups:
            estimates = (
                result.overall[code] if group == "overall" else result.per_stratum[group][code]
            )
            # As the JSON gives it: clipped to [0, 1].
            found = estimate_dict(estimates.ppi)
            # Rounded: the figure's bytes must not follow the last bit of a sum.
            values.append(round(found["estimate"], 6) if found else 0.0)
            lows.append(round(found["ci_low"], 6) if found else 0.0)
            highs.append(round(found["ci_high"], 6) if found else 0.0)
        style = styles[code]
        ax.bar(
            range(len(groups)),
            values,
            0.6,
            bottom=bottoms,
            color=style.colour,
            label=code,
            hatch=style.hatch or None,
            # The pattern is drawn in the edge colour; no outline (a zero-width edge).
            edgecolor="white",
            linewidth=0,
        )
        for g, (value, low, high) in enumerate(zip(values, lows, highs, strict=True)):
            if value <= 0:
                continue
            # The interval of this code's share, drawn at the top of its segment.
            top = bottoms[g] + value
            ax.errorbar(
                g + 0.22,
                top,
                yerr=[[value - low], [high - value]],
                fmt="none",
                ecolor="black",
                elinewidth=0.6,
                capsize=1.5,
            )
        bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
    labels = [
        f"{g}\n{(result.n_labelled if g == 'overall' else result.strata[g]['n_labelled'])}"
        f"/{(result.n_failures if g == 'overall' else result.strata[g]['n_failures'])}"
        for g in groups
    ]
    ax.set_xticks(range(len(groups)), labels, fontsize=7)
    ax.set_ylabel("share of failures (PPI++, 95% CI)")
    ax.set_ylim(0, max(1.05, max(bottoms) + 0.05))
    who = f"labelled by {annotator}" if annotator else "labelled"
    ax.set_title(f"{runs[0]}: failure codes by {by} ({who}/failures)")
    ax.legend(frameon=False, fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


BUILDERS: dict[str, Callable[[ModuleType, Store, list[str], str | None], DrawnFigure]] = {
    "heatmap": _heatmap,
    "recency": _recency,
    "codes": _codes,
}


def _own_figure(store: Store, kind: str, runs: list[str]) -> tuple[BenchmarkFigure, list[RunData]]:
    """The benchmark's own figure ``kind`` names for ``runs`` (``figure``: theirs), with
    the runs loaded for it; installed plugins are read only to explain a kind no run has."""
    from memscope.usecases.figures.own import figure_for
    from memscope.usecases.runs.batch import load_runs

    loaded = load_runs(store, runs, detail=False)
    return figure_for(
        kind, loaded, memscope_kinds=[one for one in KINDS if one in BUILDERS]
    ), loaded


def render(
    store: Store,
    kind: str,
    runs: list[str],
    out: Path,
    *,
    metric: str | None = None,
    annotator: str | None = None,
) -> Figure:
    """Draw figure ``kind`` of ``runs`` into ``out`` (.svg, .png or .pdf).

    ``metric``: the heatmap's metric (em, judge) or the codes figure's strata (y, cell, x).
    ``annotator``: the codes figure counts this annotator's labels only (default: the
    latest label of anyone, as ``memscope estimate``).

    Raises:
        InputError: an unknown kind or extension, a missing folder, a run without the data.
        MemscopeError: matplotlib is not installed, or the file cannot be written.
    """
    if out.suffix.lower() not in FORMATS:
        raise InputError(
            f"cannot tell the format of {out.name}", fix="End --out in .svg, .png or .pdf."
        )
    if kind == "codes" and len(runs) != 1:
        raise InputError("the codes figure takes one run")
    if annotator is not None and kind != "codes":
        raise InputError(
            f"--annotator is for the codes figure, not {kind}", fix="Leave --annotator out."
        )
    own = None if kind in BUILDERS else _own_figure(store, kind, runs)
    # Checked before drawing: never over the store or a file that is not a memscope figure.
    target = plan_output(out, FIGURE, store_files(store))
    plt = _matplotlib()
    if own is not None:
        fig = _own(plt, *own)
    elif kind == "codes":
        fig = _codes(plt, store, runs, metric, annotator)
    else:
        fig = BUILDERS[kind](plt, store, runs, metric)
    write_output(target, _save(plt, fig, out.suffix.lower()), "figure")
    return Figure(target.given, kind, runs)
