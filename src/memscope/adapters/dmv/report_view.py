"""What ``memscope report`` prints for a DMV-Bench run: TSR and the retention curve by reach.

The ``view`` hook of DMV-Bench's report section (``adapters.sections``): it reads the
report's JSON (the section under ``tsr``) and returns text and table blocks that memscope
lays out. The retention curve is a table of TSR by reach with a bar per reach and a
sparkline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memscope.plugin import Block, TableBlock, TableColumn, TableRow, TextBlock, bar, sparkline

BAR_WIDTH = 24


def fmt(value: float | None, digits: int = 3) -> str:
    """A metric for a table: fixed digits, an en dash when undefined."""
    return "–" if value is None else f"{value:.{digits}f}"


def _interval(entry: Mapping[str, Any]) -> str:
    low, high = entry["ci_low"], entry["ci_high"]
    if low is None or high is None:
        return "–"
    return f"[{low:.2f}, {high:.2f}]"


def _group_table(title: str, label: str, groups: Mapping[str, Mapping[str, Any]]) -> TableBlock:
    # The label column is kept and the bars go first when the terminal is narrow.
    columns = (
        TableColumn(label, style="bold", keep=True),
        *(TableColumn(name) for name in ("n", "TSR", "95% CI (trunks)")),
        TableColumn("", name="bars", justify="left", style="cyan"),
    )
    rows = tuple(
        TableRow(
            (
                key,
                str(entry["n"]),
                fmt(entry["tsr"]),
                _interval(entry),
                bar(entry["tsr"], BAR_WIDTH).ljust(BAR_WIDTH),  # the scale: 0 to 1
            )
        )
        for key, entry in groups.items()
    )
    return TableBlock(title, columns, rows)


def tsr_view(report: Mapping[str, Any]) -> list[Block]:
    """The DMV-Bench report below its header: TSR, retention curve, strata, recall, notes."""
    tsr = report["tsr"]
    parts: list[Block] = [
        TextBlock(
            f"TSR {fmt(tsr['overall'])}  95% CI {_interval(tsr)}  ·  {tsr['n']} probes in {tsr['n_trunks']} chain trunk(s)"
            "  ·  interval over chain trunks (Wilson at the trunks' design effect, t(trunks − 1))"
            + (
                f"  ·  {tsr['n_trunks']} clusters: interval approximate"
                if tsr["approximate"]
                else ""
            )
        ),
        TextBlock(""),
    ]
    by_reach = tsr["by_reach"]
    if by_reach:
        curve = sparkline([entry["tsr"] for entry in by_reach.values()])
        parts.append(_group_table(f"Retention curve: TSR by reach   {curve}", "reach", by_reach))
    if tsr["by_bank_size"]:
        parts.append(
            _group_table(
                "TSR by bank size (entries in memory at the probe)", "bank", tsr["by_bank_size"]
            )
        )
    elif tsr.get("n_without_bank_size"):
        parts.append(
            TextBlock(
                "Bank size unknown (no replay lines in the logs, no trajectory cache).", style="dim"
            )
        )
    if tsr["by_encoding_position"]:
        parts.append(
            _group_table(
                "TSR by encoding position (place in the visit session)",
                "position",
                tsr["by_encoding_position"],
            )
        )
    if tsr.get("encoding_position_note"):
        parts.append(TextBlock(f"Encoding position: {tsr['encoding_position_note']}.", style="dim"))
    recall = tsr.get("recall")
    if recall:
        ranks = ", ".join(f"{rank}: {n}" for rank, n in recall["target_rank"].items())
        parts.append(
            TextBlock(
                f"Target in the probe's ranking (first recall step R1, cue alone): "
                f"Any@{recall['k']} {fmt(recall['any_at_k'])}, MRR {fmt(recall['mrr'])} "
                f"(n={recall['n']}); target rank {ranks}"
            )
        )
        parts.append(
            TextBlock(
                f"Target seen in any recall step's list (unranked; later steps query with the "
                f"current page): {fmt(recall['seen_any_step'])} (n={recall['n_seen_any_step']})"
            )
        )
    for note in report["notes"]:
        parts.append(TextBlock(f"Retrieval: {note}.", style="yellow"))
    return parts
