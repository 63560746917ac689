"""``memscope compare RUN_A RUN_B``: caption-proof gain Δ and the fixed/broken transitions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.text import Text

from memscope.cli.app import RUNS, app, example
from memscope.cli.common import (
    DatasetOption,
    DbOption,
    FormatOption,
    OutputFormat,
    ReadsRuns,
    handles_errors,
    open_store,
    print_json,
    read_options,
    stdout,
    warn,
)
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.cli.number_options import RESAMPLES, SEED
from memscope.textsafe import printable, printable_id

if TYPE_CHECKING:
    from memscope.usecases.compare.result import Comparison, DeltaGroup, DeltaTable

SHOWN_IDS = 12


@app.command(
    cls=ReadsRuns,
    rich_help_panel=RUNS,
    epilog=example("memscope compare runs/srag_t/ runs/srag_v/"),
)
@handles_errors
def compare(
    run_a: Annotated[
        str,
        typer.Argument(
            help="Run A (run id or directory), e.g. the text-only run.", show_default=False
        ),
    ],
    run_b: Annotated[
        str, typer.Argument(help="Run B, e.g. its native-visual twin.", show_default=False)
    ],
    seed: Annotated[int, typer.Option("--seed", **SEED, help="Bootstrap seed.")] = 20260430,
    resamples: Annotated[
        int, typer.Option("--resamples", **RESAMPLES, help="Bootstrap resamples over questions.")
    ] = 10_000,
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric",
            help="f1 or judge: compare that score of every matched question (a benchmark's own f1 "
            "is its own F1, the one yardstick across harnesses); default: the answer score.",
            show_default=False,
        ),
    ] = None,
    dataset: DatasetOption = None,
    db: DbOption = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Compare two runs question by question: Δ = score_B − score_A and the transitions.

    Questions are matched by task, answer mode and question text (never by position).
    Δ is given overall, per X level, per Y level and per (X, Y) cell with 95% paired
    percentile bootstrap intervals over questions; a benchmark without X/Y gets Δ per
    level of its first row axis (a question category, type, reach or task). It compares the metric `report` and the
    app show: EM for MCQ questions (rotation averaged), Judge for open ones (EM where
    there is no judge score), and says which. Transitions: fixed (A wrong, B right),
    broken (A right, B wrong), both right, both wrong, with their question ids.
    Definitions: docs/metrics.md of the memscope repository, §2 and §6.
    """
    from memscope.usecases.compare.pairs import make_comparison
    from memscope.usecases.runs.selection import SelectOptions, select_runs

    store = open_store(db)
    first, second = select_runs(
        store, [run_a, run_b], SelectOptions(read=read_options(dataset))
    ).run_ids
    result = make_comparison(
        store, first, second, seed=seed, resamples=resamples, metric_name=metric
    )
    for message in result.warnings:
        warn(message)
    if output is OutputFormat.json:
        print_json(result.to_json())
        return
    stdout.print(render_compare(result, scored=metric is not None))


def _bounds(group: DeltaGroup, digits: int) -> str:
    """``[low, high]`` of Δ's interval (``[–]`` where it has none: one cluster)."""
    low, high = group.get("ci_low"), group.get("ci_high")
    if low is None or high is None:
        return "[–]"
    return f"[{low:+.{digits}f}, {high:+.{digits}f}]"


def _clusters(group: DeltaGroup) -> str:
    """Over clusters: how many, and that the interval is approximate below 30."""
    if group.get("n_clusters") is None:
        return ""
    return f" in {group['n_clusters']} clusters" + (
        ": interval approximate" if group.get("approximate") else ""
    )


def _delta(group: DeltaGroup | None) -> str:
    if not group or group.get("delta") is None:
        return "–"
    return f"{group['delta']:+.3f} {_bounds(group, 2)} n={group['n']}{_clusters(group)}"


def _cell(group: DeltaGroup | None) -> str:
    if not group or group.get("delta") is None:
        return "–"
    return f"{group['delta']:+.2f} ({group['n']})"


def _levels_table(
    delta: DeltaTable, levels: tuple[tuple[str, ...], tuple[str, ...]]
) -> RenderableType:
    """Δ with its 95% interval per X level, per Y level and overall."""
    x_levels, y_levels = levels

    table = FittingTable(
        [
            Column("level", justify="left", keep=True),
            Column("n", rank=2),
            Column("A", rank=3),
            Column("B", rank=4),
            Column("Δ", rank=0),
            Column("95% CI", rank=1),
        ],
        title="Δ per level with 95% interval"
        + (
            " over clusters (cluster-robust t; approximate below 30 clusters)"
            if delta.overall.get("n_clusters") is not None
            else " (bootstrap over questions)"
        ),
        title_justify="left",
    )
    rows = [(x, delta.by_x.get(x)) for x in x_levels] + [(y, delta.by_y.get(y)) for y in y_levels]
    rows.append(("all", delta.overall))
    for level, group in rows:
        if not group or group.get("delta") is None:
            continue
        table.add_row(
            level,
            str(group["n"]),
            f"{group['score_a']:.3f}",
            f"{group['score_b']:.3f}",
            f"{group['delta']:+.3f}",
            _bounds(group, 3),
            style="dim" if level == "all" else None,
        )
    return fit(table)


def _ids(qids: list[str]) -> Text:
    shown = ", ".join(qids[:SHOWN_IDS]) + (
        f", … (+{len(qids) - SHOWN_IDS})" if len(qids) > SHOWN_IDS else ""
    )
    return Text(printable(shown, keep_newlines=False))


def _axis_table(result: Comparison, scored: bool) -> RenderableType | None:
    """Δ per level of the benchmark's first row axis (a category, a reach …) for a benchmark whose questions have no X/Y coordinate: the JSON's
    ``by_axes`` rows, which the app's comparison matrix shows. None without one."""
    from memscope.usecases.table.axes import level_label  # lazily: it loads the registry

    views = result.delta.by_axes
    if not views:
        return None
    view: dict[str, Any] = dict(views[0])  # JSON as axes_delta builds it
    rows: list[dict[str, Any]] = [
        row for row in view["delta"]["by_row"] if row.get("value") is not None
    ]
    if not rows:
        return None
    axis = str(view["rows"])
    # Without --metric the axes compare the share of questions answered correctly (as the
    # transitions count them); with it, the metric's own per-question values.
    what = result.metric.label if scored else "share correct"
    table = FittingTable(
        [Column(axis, justify="left", keep=True), Column("n", rank=1), Column("Δ", rank=0)]
    )
    for row in rows:
        table.add_row(
            printable(
                level_label(str(result.run_a.benchmark), axis, str(row["level"])),
                keep_newlines=False,
            ),
            str(row["n"]),
            f"{row['value']:+.3f}",
        )
    return Group(Text(f"Δ {what} = B − A per {axis}"), fit(table))


def render_compare(result: Comparison, *, scored: bool = False) -> Group:
    """The comparison as Rich renderables (``scored``: compare --metric was given)."""
    from memscope.usecases.benchmarks import levels_of  # lazily: it loads the registry

    levels = levels_of(result.run_a.benchmark)
    x_levels, y_levels = levels
    a, b = result.run_a, result.run_b
    header = Text.assemble(
        "A ",
        (printable_id(a.run_id), "bold"),
        f" ({printable(a.method, keep_newlines=False)})",
        "  vs  B ",
        (printable_id(b.run_id), "bold"),
        f" ({printable(b.method, keep_newlines=False)})",
        f" · {result.matched} questions matched (A {result.n_a}, B {result.n_b})",
    )
    if result.pairing is not None:
        header.append(f" · {result.pairing.sentence}")
    delta = result.delta
    placed = any(group and group.get("delta") is not None for group in delta.by_cell.values())
    metric_name = result.metric.label
    matrix = FittingTable(
        [
            Column("", justify="left", style="bold", keep=True),
            *(Column(y) for y in y_levels),
            Column("all", style="dim", rank=-1),
        ],
        title=f"Δ {metric_name} = B − A per cell (n)",
        title_justify="left",
    )
    for x in x_levels:
        matrix.add_row(
            x,
            *(_cell(delta.by_cell.get(f"{x}_{y}")) for y in y_levels),
            _cell(delta.by_x.get(x)),
        )
    matrix.add_row(
        "all",
        *(_cell(delta.by_y.get(y)) for y in y_levels),
        _cell(delta.overall),
        style="dim",
    )
    overall = delta.overall
    means = Text(
        f"overall {metric_name}: A {overall['score_a']:.3f} → B {overall['score_b']:.3f}, Δ {_delta(overall)}"
        if overall.get("score_a") is not None
        else "overall: no question scored on both sides"
    )
    transitions = FittingTable(
        [
            Column("class", justify="left", fold=True, min_width=12, keep=True),
            Column("n", keep=True),
            Column("questions", justify="left", fold=True, min_width=12, keep=True),
        ],
        title="Transitions (correct = MCQ EM 1, open judge ≥ 0.5)",
        title_justify="left",
    )
    labels = {
        "fixed": "fixed (A wrong → B right)",
        "broken": "broken (A right → B wrong)",
        "both_right": "both right",
        "both_wrong": "both wrong",
    }
    for name, label in labels.items():
        group = result.transitions[name]
        transitions.add_row(label, str(group.n), _ids(list(group.qids)))
    compared = Text(
        f"compares {metric_name} per question"
        + (
            " (--metric)"
            if result.metric.key == "f1"
            else ", as `memscope report` and the app show it"
        ),
        style="dim",
    )
    parts: list[RenderableType] = [header, compared, Text("")]
    if placed:  # DMV-Bench and CUE-Mem questions have no X/Y coordinate
        parts += [fit(matrix), _levels_table(delta, levels)]
    parts += [means, Text("")]
    by_axis = None if placed else _axis_table(result, scored)
    if by_axis is not None:  # e.g. Δ per category, for a benchmark with no X/Y matrix
        parts += [by_axis, Text("")]
    parts.append(fit(transitions))
    significance = result.significance
    if significance and significance.get("p_value") is not None:
        how = (
            "exact, all sign patterns"
            if significance.get("exact")
            else f"{significance['permutations']} permutations"
        )
        parts.append(
            Text(
                f"{significance['test']}: TSR A {significance['tsr_a']:.3f} → B {significance['tsr_b']:.3f}, "
                f"difference {significance['difference']:+.3f}, p = {significance['p_value']:.3f} "
                f"({significance['n']} probes in {significance['n_trunks']} trunks; {how})"
            )
        )
    return Group(*parts)
