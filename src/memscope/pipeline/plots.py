"""``memscope plot``: paper figures with matplotlib (the optional ``plot`` extra).

One function per figure: the X×Y heatmap (value and n per cell), the recency sweep
(Latest@K, Rank-Inversion, Stale-Dominance against alpha, with the paired bootstrap
interval of each change from alpha 1), the DMV-Bench retention curve (TSR by reach with
trunk-cluster intervals, one line per system), CUE-Mem explicit vs implicit accuracy per
task, and the failure-code breakdown per stratum from ``memscope estimate`` (stacked
bars of the PPI++ shares, each with its interval). The data comes from the same
pipeline functions as the commands; this is the only module importing matplotlib, and
only inside :func:`render`. Output is deterministic: the Agg backend, DejaVu Sans, a
fixed SVG hash salt and no creation date in any format, so a snapshot test can compare
files byte for byte. Colours are the Okabe-Ito palette (colour-blind safe).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscope.errors import InputError, MemscopeError

if TYPE_CHECKING:
    from memscope.store import Store

KINDS = ("heatmap", "recency", "retention", "cue", "codes")
FORMATS = (".svg", ".png", ".pdf")
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
HASH_SALT = "memscope"
SWEEP_ALPHAS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)


@dataclass(frozen=True)
class Figure:
    """What a plot wrote."""

    path: Path
    kind: str
    runs: list[str]


def _matplotlib() -> Any:
    """pyplot on the Agg backend, with the settings that make output reproducible."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise MemscopeError(
            "memscope plot needs matplotlib, which is not installed",
            fix="Install the plot extra: pip install 'memscope[plot]' (or pip install matplotlib).",
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


def _save(plt: Any, fig: Any, out: Path) -> None:
    """Write the figure without a creation date (so the bytes depend on the data only)."""
    suffix = out.suffix.lower()
    metadata: dict[str, Any] = {"Software": "memscope"}
    if suffix == ".svg":
        metadata = {"Date": None, "Creator": "memscope"}
    elif suffix == ".pdf":
        metadata = {"CreationDate": None, "ModDate": None, "Creator": "memscope", "Producer": None}
    try:
        fig.savefig(out, metadata=metadata, bbox_inches="tight")
    except OSError as exc:
        raise MemscopeError(
            f"cannot write the figure: {exc.strerror or exc}", where=str(out)
        ) from None
    finally:
        plt.close(fig)


def _heatmap(plt: Any, store: Store, runs: list[str], metric: str | None) -> Any:
    from memscope.analysis.aggregate import X_LEVELS, Y_LEVELS
    from memscope.pipeline.loading import load_run
    from memscope.pipeline.report import build_report

    name = metric or "em"
    fig, axes = plt.subplots(1, len(runs), figsize=(3.4 * len(runs), 3.0), squeeze=False)
    image = None
    for ax, run_id in zip(axes[0], runs, strict=True):
        report = build_report(load_run(store, run_id, detail=False), include_questions=False)
        cells = report["answer"]["by_cell"]
        if not any(name in cell for cell in cells.values()):
            raise InputError(
                f"run {run_id} has no per-cell {name!r}", fix="Try --metric em or --metric judge."
            )
        grid = [[cells.get(f"{x}_{y}", {}).get(name) for x in X_LEVELS] for y in Y_LEVELS]
        values = [[float("nan") if v is None else v for v in row] for row in grid]
        image = ax.imshow(values, cmap="cividis", vmin=0.0, vmax=1.0, origin="lower")
        for yi, y in enumerate(Y_LEVELS):
            for xi, x in enumerate(X_LEVELS):
                cell = cells.get(f"{x}_{y}", {})
                value = cell.get(name)
                text = "–" if value is None else f"{value:.2f}"
                colour = "black" if value is not None and value > 0.55 else "white"
                ax.text(
                    xi,
                    yi,
                    f"{text}\nn={cell.get('n', 0)}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color=colour,
                )
        ax.set_xticks(range(len(X_LEVELS)), X_LEVELS)
        ax.set_yticks(range(len(Y_LEVELS)), Y_LEVELS)
        ax.set_xlabel("X (visual granularity)")
        if ax is axes[0][0]:
            ax.set_ylabel("Y (reasoning depth)")
        ax.set_title(f"{run_id}: {name.upper() if name == 'em' else name}")
    if image is not None:
        fig.colorbar(image, ax=list(axes[0]), shrink=0.8)
    return fig


def _recency(plt: Any, store: Store, runs: list[str], metric: str | None) -> Any:
    from memscope.pipeline.loading import load_run
    from memscope.pipeline.rerun import rerun_run

    metrics = (
        ("latest_at_k", "Latest@K"),
        ("rank_inversion", "Rank-Inversion"),
        ("stale_dominance", "Stale-Dominance"),
    )
    fig, axes = plt.subplots(1, len(metrics), figsize=(9.0, 2.8), sharex=True)
    for index, run_id in enumerate(runs):
        result = rerun_run(load_run(store, run_id, detail=False), list(SWEEP_ALPHAS[1:]))
        points = sorted(result["results"], key=lambda r: r["alpha"])
        alphas = [point["alpha"] for point in points]
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        for ax, (key, title) in zip(axes, metrics, strict=True):
            base = next(p[key] for p in points if p["alpha"] == 1.0)
            values = [p[key] for p in points]
            low = [base + p["delta"][key]["ci_low"] for p in points]
            high = [base + p["delta"][key]["ci_high"] for p in points]
            ax.plot(alphas, values, marker="o", markersize=3, color=colour, label=run_id)
            ax.fill_between(alphas, low, high, color=colour, alpha=0.2, linewidth=0)
            ax.set_title(title)
            ax.set_xlabel("alpha (1 = similarity only)")
            ax.set_ylim(-0.02, 1.02)
    axes[0].set_ylabel(f"Y3 questions (n={result['n']})")
    axes[-1].legend(frameon=False, fontsize=7)
    return fig


def _retention(plt: Any, store: Store, runs: list[str], metric: str | None) -> Any:
    from memscope.pipeline.loading import load_run
    from memscope.pipeline.report_dmv import tsr_section

    fig, ax = plt.subplots(figsize=(4.2, 3.0))
    for index, run_id in enumerate(runs):
        section = tsr_section(load_run(store, run_id, detail=False))
        reach = sorted(section["by_reach"], key=int)
        if not reach:
            raise InputError(f"run {run_id} has no TSR by reach (is it a DMV-Bench run?)")
        values = [section["by_reach"][r]["tsr"] for r in reach]
        low = [section["by_reach"][r]["ci_low"] for r in reach]
        high = [section["by_reach"][r]["ci_high"] for r in reach]
        xs = [int(r) for r in reach]
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        ax.plot(xs, values, marker="o", markersize=3, color=colour, label=run_id.split(":")[-1])
        ax.fill_between(xs, low, high, color=colour, alpha=0.2, linewidth=0)
        ax.set_xticks(xs)
    ax.set_xlabel("reach (sessions back)")
    ax.set_ylabel("TSR")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Retention: TSR by reach (95% trunk-cluster CI)")
    ax.legend(frameon=False, fontsize=7)
    return fig


def _cue(plt: Any, store: Store, runs: list[str], metric: str | None) -> Any:
    from memscope.pipeline.loading import load_run
    from memscope.pipeline.report_cue import cue_section

    fig, axes = plt.subplots(1, len(runs), figsize=(4.6 * len(runs), 3.0), squeeze=False)
    for ax, run_id in zip(axes[0], runs, strict=True):
        section = cue_section(load_run(store, run_id, detail=False))
        tasks = list(section.get("by_task") or {})
        if not tasks:
            raise InputError(f"run {run_id} has no CUE-Mem tasks (is it a CUE-Mem run?)")
        width = 0.38
        for offset, (side, colour) in enumerate(
            (("explicit", OKABE_ITO[0]), ("implicit", OKABE_ITO[1]))
        ):
            values = [section["by_task"][t].get(side) for t in tasks]
            xs = [i + (offset - 0.5) * width for i in range(len(tasks))]
            ax.bar(xs, [0.0 if v is None else v for v in values], width, color=colour, label=side)
            for x, task in zip(xs, tasks, strict=True):
                n = section["by_task"][task].get(f"n_{side}", 0)
                ax.text(x, 0.02, f"n={n}", ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_xticks(range(len(tasks)), [t.replace("_", "\n") for t in tasks], fontsize=7)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("accuracy")
        gap = section.get("ei_gap")
        ax.set_title(f"{run_id}" + (f" · EI-Gap {gap:.2f}" if gap is not None else ""))
        ax.legend(frameon=False, fontsize=7)
    return fig


def _codes(plt: Any, store: Store, runs: list[str], metric: str | None) -> Any:
    from memscope.pipeline.estimate import estimate_run

    by = metric or "y"
    result = estimate_run(store, runs[0], by=by).as_dict()
    groups = ["overall", *result["strata"]]
    codes = list(result["codes"])
    fig, ax = plt.subplots(figsize=(1.2 + 1.0 * len(groups), 3.4))
    bottoms = [0.0] * len(groups)
    for index, code in enumerate(codes):
        entry = result["codes"][code]
        values, lows, highs = [], [], []
        for group in groups:
            found = (entry["overall"] if group == "overall" else entry["per_stratum"][group])["ppi"]
            # Rounded: the figure's bytes must not follow the last bit of a sum.
            values.append(round(found["estimate"], 6) if found else 0.0)
            lows.append(round(found["ci_low"], 6) if found else 0.0)
            highs.append(round(found["ci_high"], 6) if found else 0.0)
        colour = OKABE_ITO[index % len(OKABE_ITO)]
        ax.bar(range(len(groups)), values, 0.6, bottom=bottoms, color=colour, label=code)
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
        f"{g}\n{(result['n_labelled'] if g == 'overall' else result['strata'][g]['n_labelled'])}"
        f"/{(result['n_failures'] if g == 'overall' else result['strata'][g]['n_failures'])}"
        for g in groups
    ]
    ax.set_xticks(range(len(groups)), labels, fontsize=7)
    ax.set_ylabel("share of failures (PPI++, 95% CI)")
    ax.set_ylim(0, max(1.05, max(bottoms) + 0.05))
    ax.set_title(f"{runs[0]}: failure codes by {by} (labelled/failures)")
    ax.legend(frameon=False, fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


BUILDERS: dict[str, Callable[[Any, Store, list[str], str | None], Any]] = {
    "heatmap": _heatmap,
    "recency": _recency,
    "retention": _retention,
    "cue": _cue,
    "codes": _codes,
}


def render(
    store: Store, kind: str, runs: list[str], out: Path, *, metric: str | None = None
) -> Figure:
    """Draw figure ``kind`` of ``runs`` into ``out`` (.svg, .png or .pdf).

    ``metric``: the heatmap's metric (em, judge) or the codes figure's strata (y, cell, x).

    Raises:
        InputError: an unknown kind or extension, a missing folder, a run without the data.
        MemscopeError: matplotlib is not installed, or the file cannot be written.
    """
    if kind not in KINDS:
        raise InputError(f"unknown figure {kind!r}", fix=f"Figures: {', '.join(KINDS)}.")
    if out.suffix.lower() not in FORMATS:
        raise InputError(
            f"cannot tell the format of {out.name}", fix="End --out in .svg, .png or .pdf."
        )
    if not out.expanduser().resolve().parent.is_dir():
        raise InputError(f"the folder of --out does not exist: {out.parent}")
    if kind == "codes" and len(runs) != 1:
        raise InputError("the codes figure takes one run")
    plt = _matplotlib()
    fig = BUILDERS[kind](plt, store, runs, metric)
    _save(plt, fig, out.expanduser())
    return Figure(out.expanduser(), kind, runs)
