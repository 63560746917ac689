"""Renders the DMV-Bench part of ``memscope report``: TSR and the retention curve by reach.

Not a command module: ``cli/report.py`` calls :func:`render_dmv_report` for a DMV-Bench
run. The retention curve is a table of TSR by reach with a bar per reach and a sparkline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from memscope.cli.common import fmt
from memscope.cli.fitting import Column, FittingTable, fit
from memscope.textplot import bar, sparkline

if TYPE_CHECKING:
    from memscope.usecases.report.result import Report
    from memscope.usecases.report.sections import TsrGroup, TsrSection

BAR_WIDTH = 24


def _interval(entry: TsrGroup | TsrSection) -> str:
    low, high = entry["ci_low"], entry["ci_high"]
    if low is None or high is None:
        return "–"
    return f"[{low:.2f}, {high:.2f}]"


def _group_table(
    title: str, label: str, groups: dict[str, TsrGroup], *, bars: bool
) -> RenderableType:
    # The label column is kept and the bars go first when the terminal is narrow.
    columns = [
        Column(label, style="bold", keep=True),
        *(Column(name) for name in ("n", "TSR", "95% CI (trunks)")),
    ]
    if bars:
        columns.append(Column("", name="bars", justify="left", style="cyan"))
    table = FittingTable(columns, title=title, title_justify="left")
    for key, entry in groups.items():
        cells = [key, str(entry["n"]), fmt(entry["tsr"]), _interval(entry)]
        if bars:
            cells.append(bar(entry["tsr"], BAR_WIDTH).ljust(BAR_WIDTH))  # the scale: 0 to 1
        table.add_row(*cells)
    return fit(table)


def render_dmv_report(report: Report, tsr: TsrSection, header: Text) -> Group:
    """The DMV-Bench report (header, TSR, retention curve, strata) as Rich renderables;
    ``tsr`` is the report's ``retention`` section."""
    parts: list[RenderableType] = [header, Text("")]
    parts.append(
        Text(
            f"TSR {fmt(tsr['overall'])}  95% CI {_interval(tsr)}  ·  {tsr['n']} probes in {tsr['n_trunks']} chain trunk(s)"
            "  ·  interval over chain trunks (Wilson at the trunks' design effect, t(trunks − 1))"
            + (
                f"  ·  {tsr['n_trunks']} clusters: interval approximate"
                if tsr["approximate"]
                else ""
            )
        )
    )
    parts.append(Text(""))
    by_reach = tsr["by_reach"]
    if by_reach:
        curve = sparkline([entry["tsr"] for entry in by_reach.values()])
        parts.append(
            _group_table(f"Retention curve: TSR by reach   {curve}", "reach", by_reach, bars=True)
        )
    if tsr["by_bank_size"]:
        parts.append(
            _group_table(
                "TSR by bank size (entries in memory at the probe)",
                "bank",
                tsr["by_bank_size"],
                bars=True,
            )
        )
    elif tsr.get("n_without_bank_size"):
        parts.append(
            Text(
                "Bank size unknown (no replay lines in the logs, no trajectory cache).", style="dim"
            )
        )
    if tsr["by_encoding_position"]:
        parts.append(
            _group_table(
                "TSR by encoding position (place in the visit session)",
                "position",
                tsr["by_encoding_position"],
                bars=True,
            )
        )
    if tsr.get("encoding_position_note"):
        parts.append(Text(f"Encoding position: {tsr['encoding_position_note']}.", style="dim"))
    recall = tsr.get("recall")
    if recall:
        ranks = ", ".join(f"{rank}: {n}" for rank, n in recall["target_rank"].items())
        parts.append(
            Text(
                f"Target in the probe's ranking (first recall step R1, cue alone): "
                f"Any@{recall['k']} {fmt(recall['any_at_k'])}, MRR {fmt(recall['mrr'])} "
                f"(n={recall['n']}); target rank {ranks}"
            )
        )
        parts.append(
            Text(
                f"Target seen in any recall step's list (unranked; later steps query with the "
                f"current page): {fmt(recall['seen_any_step'])} (n={recall['n_seen_any_step']})"
            )
        )
    for note in report.notes:
        parts.append(Text(f"Retrieval: {note}.", style="yellow"))
    return Group(*parts)
