"""Rendering ``memscope table`` results: Rich, Markdown, LaTeX (booktabs) and CSV.

Every format shows the same cells of a ``ResultsTable`` (``usecases.table.build_table``): the value, its n,
with ``--ci`` the 95% interval and with ``--baseline`` Δ vs the baseline row, marked † where
its paired interval excludes 0. The best value of a column is bold (Markdown, LaTeX, Rich).
Output depends only on the data, so it can be snapshot-tested.
"""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from memscope.cli.fitting import Column, FittingTable
from memscope.textsafe import defuse_cell, printable
from memscope.usecases.table.axes import benchmark_name
from memscope.usecases.table.result import MIN_CLUSTERS

if TYPE_CHECKING:
    from memscope.usecases.table.result import ResultsTable, TableCell

MARK = "†"
FLIP = "⇄"
"""Marks a Δ vs the baseline whose sign the verdict correction flips (``--corrected``)."""
METRIC_NAMES = {
    "em": "EM",
    "judge": "Judge",
    "score": "answer score",
    "accuracy": "accuracy",
    "tsr": "TSR",
    "f1": "F1",
    "harness_f1": "F1 (the harness's own)",
    "harness_bleu": "BLEU-1 (the harness's own)",
    "latency": "latency ms (median, p95)",
    "tokens": "tokens (median, p95)",
    "any_clue": "Any-Clue@K",
    "coverage": "Coverage@K",
    "full_clue": "Full-Clue@K",
    "mrr": "MRR",
    "latest_at_k": "Latest@K",
    "latest_miss": "Latest-Miss",
    "rank_inversion": "Rank-Inversion",
    "stale_dominance": "Stale-Dominance",
}


def caption(table: ResultsTable) -> str:
    """One line saying what the table shows."""
    how = (
        "one row per run"
        if table.per_run
        else f"rows = {' × '.join(table.group)}, "
        + ("mean over tasks (macro)" if table.average == "tasks" else "questions pooled (micro)")
    )
    parts = [
        f"{benchmark_name(table.benchmark)} · {METRIC_NAMES.get(table.metric, table.metric)}",
        how,
        "(n) per cell",
    ]
    if table.params.multi_label_axes:
        names = " / ".join(axis.upper() for axis in table.params.multi_label_axes if axis != "cell")
        parts.append(
            f"a question in every {names} column it names (the runner's counting)"
            if table.params.membership == "every"
            else f"a question in the column of its highest {names} label (the paper's rule)"
        )
    repeats = [row.repeats for row in table.rows if row.repeats]
    if repeats:
        from memscope.usecases.table.pooling import repeats_text

        parts.append(
            "pooling "
            + repeats_text(tuple(n for r in repeats for n in r))
            + " of one configuration per row"
        )
    params = table.params
    if params.clustered:
        parts += _clustered_caption(table)
    else:
        if params.resamples:
            parts.append(f"[95% bootstrap interval over questions, {params.resamples} resamples]")
        if table.baseline is not None:
            parts.append(f"Δ vs {table.baseline} ({MARK}: paired 95% interval excludes 0)")
    if table.corrected:
        parts.append(
            "corr = accuracy corrected with people's verdicts (PPI++, 95% interval)"
            + (f", {FLIP}: the correction flips Δ's sign" if table.baseline is not None else "")
        )
    if table.repeats:
        parts.append(
            "m±s×r: a row's runs as repeats: the mean of their own values ± their "
            "standard deviation over r runs"
        )
    parts += table.notes
    return " · ".join(parts)


def _clustered_caption(table: ResultsTable) -> list[str]:
    """What a clustered table (DMV-Bench: chain trunks) resampled, how † is decided, and,
    below :data:`MIN_CLUSTERS` clusters, that its intervals are approximate."""
    parts = []
    if table.params.resamples:
        parts.append(
            "[95% interval over chain trunks: Wilson at the trunks' design effect, t(trunks − 1)]"
        )
    if table.baseline is not None:
        parts.append(
            f"Δ vs {table.baseline} (interval over chain trunks, cluster-robust t; "
            f"{MARK}: trunk sign-flip test p < 0.05, as compare)"
        )
    counts = sorted(
        {
            cell.n_clusters
            for row in table.rows
            for cell in row.cells.values()
            if cell.n_clusters is not None and 0 < cell.n_clusters < MIN_CLUSTERS
        }
    )
    if counts:
        span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        parts.append(f"{span} clusters: interval approximate (fewer than {MIN_CLUSTERS})")
    return parts


def _number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _interval_text(cell: TableCell) -> str | None:
    """``[low, high]`` of the cell's interval; None without one."""
    if cell.ci_low is None:
        return None
    return f"[{cell.ci_low:.2f}, {_number(cell.ci_high, 2)}]"


def _delta_text(cell: TableCell) -> str | None:
    """``Δ+0.123`` (marked where significant); None without Δ."""
    if cell.delta is None or cell.delta.delta is None:
        return None
    return f"Δ{cell.delta.delta:+.3f}" + (MARK if cell.delta.significant else "")


def _corrected_text(cell: TableCell) -> str | None:
    """``corr 0.646 [0.54, 0.76]`` (with ``cΔ-0.012⇄`` where the sign flips); None where
    the cell has no corrected value."""
    corrected = cell.corrected
    if corrected is None or corrected.estimate is None:
        return None
    text = f"corr {corrected.estimate:.3f}"
    if corrected.low is not None:
        text += f" [{corrected.low:.2f}, {_number(corrected.high, 2)}]"
    if corrected.delta is not None:
        text += f" cΔ{corrected.delta:+.3f}" + (FLIP if corrected.flipped else "")
    return text


def _p95_text(cell: TableCell) -> str | None:
    """``p95 6859`` for a cost metric's cell (its value is the median); None otherwise."""
    return None if cell.p95 is None else f"p95 {_number(cell.p95, 0)}"


def _repeats_text(cell: TableCell) -> str | None:
    """``0.811±0.027×3`` (--repeats: the runs' mean ± their spread); None without."""
    if cell.repeats is None:
        return None
    mean, spread, runs = cell.repeats
    shown = "–" if math.isnan(spread) else f"{spread:.3f}"
    return f"{_number(mean)}±{shown}×{runs}"


def cell_parts(cell: TableCell) -> tuple[str, str]:
    """(the value, the rest: n, interval, Δ, corrected) of one cell as plain text."""
    if cell.value is None:
        return "–", ""
    rest = f"({cell.n})"
    p95 = _p95_text(cell)
    if p95 is not None:  # a cost metric: the value is the median
        return _number(cell.value, 0), f"{p95} {rest}"
    interval = _interval_text(cell)
    if interval is not None:
        rest = f"{interval} " + rest
    repeats = _repeats_text(cell)
    if repeats is not None:
        rest += f" {repeats}"
    delta = _delta_text(cell)
    if delta is not None:
        rest += f" {delta}"
    corrected = _corrected_text(cell)
    if corrected is not None:
        rest += f" {corrected}"
    return _number(cell.value), rest


def render_rich(table: ResultsTable, width: int | None = None) -> tuple[Table, list[str]]:
    """The table for the terminal, and the labels of the columns left out to fit ``width``
    (None: every column). Best values bold; the interval and Δ go on lines of their own in
    the cell. A value is never cut: past the width whole columns are left out, ``all``
    last, and the system names fold onto more lines."""
    labels = [printable(row.label, keep_newlines=False) for row in table.rows]
    longest = max((len(label) for label in labels), default=6)
    columns = [
        Column(
            "system", justify="left", style="bold", fold=True, keep=True, min_width=min(longest, 18)
        )
    ] + [
        Column(column.label, rank=-1 if column.key == "all" else index)
        for index, column in enumerate(table.columns)
    ]
    fitted = FittingTable(columns, title=caption(table), title_justify="left")
    for label, row in zip(labels, table.rows, strict=True):
        cells = []
        for column in table.columns:
            cell = row.cells[column.key]
            value, _ = cell_parts(cell)
            text = Text.assemble((value, "bold" if cell.best else ""))
            if cell.value is not None:
                text.append(f" ({cell.n})")
                # A cost cell's p95, then as cell_parts: interval, repeats, Δ, corrected.
                parts = (
                    (_p95_text(cell),)
                    if cell.p95 is not None
                    else (
                        _interval_text(cell),
                        _repeats_text(cell),
                        _delta_text(cell),
                        _corrected_text(cell),
                    )
                )
                extra = [part for part in parts if part is not None]
                if extra:
                    text.append("".join(f"\n{part}" for part in extra), style="dim")
            cells.append(text)
        fitted.add_row(label, *cells)
    return fitted.render(width if width is not None else 1 << 30)


def _md_escape(text: str) -> str:
    return (
        printable(text, keep_newlines=False)
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("_", "\\_")
    )


def render_markdown(table: ResultsTable) -> str:
    """A GitHub-flavoured Markdown table, with the caption as a line above it."""
    header = ["system"] + [column.label for column in table.columns]
    lines = [
        caption(table),
        "",
        "| " + " | ".join(_md_escape(h) for h in header) + " |",
        "|" + "|".join([":---"] + ["---:"] * len(table.columns)) + "|",
    ]
    for row in table.rows:
        cells = [_md_escape(row.label)]
        for column in table.columns:
            cell = row.cells[column.key]
            value, rest = cell_parts(cell)
            shown = f"**{value}**" if cell.best else value
            cells.append(f"{shown} {rest}".strip())
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in printable(text, keep_newlines=False))


def _latex_cell(cell: TableCell) -> str:
    if cell.value is None:
        return "--"
    value = _number(cell.value, 0 if cell.p95 is not None else 3)  # a cost cell: the median
    text = rf"\textbf{{{value}}}" if cell.best else value
    p95 = _p95_text(cell)
    if p95 is not None:
        text += rf" {{\scriptsize {p95}}}"
    interval = _interval_text(cell)
    if interval is not None:
        text += rf" {{\scriptsize{interval}}}"
    text += rf" {{\scriptsize({cell.n})}}"
    repeats = _repeats_text(cell)
    if repeats is not None:
        latex = repeats.replace("±", r"$\pm$").replace("×", r"$\times$")
        text += rf" {{\scriptsize {latex}}}"
    if cell.delta is not None and cell.delta.delta is not None:
        mark = r"$^\dagger$" if cell.delta.significant else ""
        text += rf" {{\scriptsize$\Delta${cell.delta.delta:+.3f}{mark}}}"
    corrected = _corrected_text(cell)
    if corrected is not None:
        corrected = corrected.replace("cΔ", r"c$\Delta$").replace(FLIP, r"$^\ddagger$")
        text += rf" {{\scriptsize {corrected}}}"
    return text


def render_latex(table: ResultsTable) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``), numbers right-aligned."""
    columns = table.columns
    lines = [
        f"% {caption(table)}",
        r"\begin{tabular}{l" + "r" * len(columns) + "}",
        r"\toprule",
        " & ".join(["System"] + [_latex_escape(c.label) for c in columns]) + r" \\",
        r"\midrule",
    ]
    for row in table.rows:
        cells = [_latex_escape(row.label)] + [_latex_cell(row.cells[c.key]) for c in columns]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _csv_number(value: float | int | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return f"{value:.6f}"


def _csv_fields(cell: TableCell) -> dict[str, float | int | None]:
    """The cell's numbers by CSV field ("" the value; None where it has no such number)."""
    delta = cell.delta
    corrected = cell.corrected
    return {
        "corrected": None if corrected is None else corrected.estimate,
        "corrected_low": None if corrected is None else corrected.low,
        "corrected_high": None if corrected is None else corrected.high,
        "corrected_n": None if corrected is None else corrected.n_verdicts,
        "corrected_delta": None if corrected is None else corrected.delta,
        "flipped": None if corrected is None else corrected.flipped,
        "": cell.value,
        "n": cell.n,
        "ci_low": cell.ci_low,
        "ci_high": cell.ci_high,
        "delta": None if delta is None else delta.delta,
        "delta_low": None if delta is None else delta.low,
        "delta_high": None if delta is None else delta.high,
        "significant": None if delta is None else delta.significant,
        "delta_p": None if delta is None else delta.p_value,
        "n_clusters": cell.n_clusters,
        "approximate": None if cell.n_clusters is None else cell.approximate,
        "p95": cell.p95,
        "repeats_mean": None if cell.repeats is None else cell.repeats[0],
        "repeats_sd": None
        if cell.repeats is None or math.isnan(cell.repeats[1])
        else cell.repeats[1],
        "repeats_runs": None if cell.repeats is None else cell.repeats[2],
    }


def render_csv(table: ResultsTable) -> str:
    """One line per row; per column its value, n, interval and Δ fields (empty = undefined)."""
    fields = ["", "n"]
    if any(cell.p95 is not None for row in table.rows for cell in row.cells.values()):
        fields.append("p95")  # a cost metric: the value is the median
    if table.repeats:
        fields += ["repeats_mean", "repeats_sd", "repeats_runs"]
    if table.params.resamples:
        fields += ["ci_low", "ci_high"]
    if table.baseline is not None:
        fields += ["delta", "delta_low", "delta_high", "significant"]
        if table.params.clustered:
            fields.append("delta_p")
    if table.params.clustered and (table.params.resamples or table.baseline is not None):
        fields += ["n_clusters", "approximate"]
    if table.corrected:
        fields += ["corrected", "corrected_low", "corrected_high", "corrected_n"]
        if table.baseline is not None:
            fields += ["corrected_delta", "flipped"]
    header = ["system", "runs", "n_questions"] + [
        defuse_cell(f"{c.label} {name}".strip()) for c in table.columns for name in fields
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in table.rows:
        line = [defuse_cell(row.label), defuse_cell(";".join(row.runs)), str(row.n_questions)]
        for column in table.columns:
            numbers = _csv_fields(row.cells[column.key])
            line += [_csv_number(numbers[name]) for name in fields]
        writer.writerow(line)
    return out.getvalue()


def _compared(checks: list[dict[str, Any]]) -> str:
    """What was compared, per upstream file: its fields (a per-level field as its family:
    ``by_x (em, f1, judge)``), so that agreement is never claimed for more than that."""
    by_file: dict[str, dict[str, set[str]]] = {}
    for c in checks:
        name = str(c["source"]).replace("\\", "/").rsplit("/", 1)[-1]
        family, _, rest = str(c["field"]).partition(".")
        metric = rest.rpartition(".")[2] if rest else ""
        by_file.setdefault(name, {}).setdefault(family, set()).update({metric} - {""})
    parts = []
    for name, families in by_file.items():
        fields = ", ".join(
            f"{family} ({', '.join(sorted(metrics))})" if metrics else family
            for family, metrics in families.items()
        )
        if any(family.startswith("by_") for family in families):
            fields += "; per level under the runner's counting (a question in every bucket it names: table --membership every)"
        parts.append(f"{name}: {fields}")
    return "; ".join(parts)


def render_upstream(check: dict[str, Any]) -> str:
    """The upstream comparison as text: a one-line verdict, then each difference."""
    if not check["checks"]:
        files = check.get("summary_files") or []
        where = f" ({', '.join(files)})" if files else ""
        return f"upstream: no benchmark-written summary{where} names these runs"
    lines = []
    if check["n_disagreeing"]:
        lines.append(
            f"upstream: {check['n_disagreeing']} of {len(check['checks'])} values differ from the benchmark's own summary:"
        )
        for c in check["checks"]:
            if not c["agrees"]:
                lines.append(
                    f"  {c['run']} {c['field']}: upstream {c['upstream']} vs memscope {_number(c['memscope'], 4)} ({c['source']})"
                )
    else:
        lines.append(
            f"upstream: all {len(check['checks'])} values of {check['n_runs_checked']} run(s) agree with the benchmark's own summary"
        )
    lines.append(f"  compared: {_compared(check['checks'])}")
    if check["runs_without_summary"]:
        lines.append(f"  no upstream summary row for: {', '.join(check['runs_without_summary'])}")
    return "\n".join(lines)
